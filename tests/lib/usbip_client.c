// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "usbip_client.h"

#include <errno.h>
#include <linux/usb/ch9.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bridge.h"
#include "usbip_server.h"

static void *serve(void *arg)
{
	struct usbip_client *c = arg;

	usbip_server_serve_fd(c->srv, c->server_fd, c->peer);
	return NULL;
}

int usbip_client_connect(struct usbip_client *c, struct usbip_server *srv,
			 const char *peer)
{
	int sv[2], err;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	*c = (struct usbip_client){
		.srv = srv, .fd = sv[0], .server_fd = sv[1],
		.peer = peer ? peer : "test-client", .seq = 1,
	};
	err = pthread_create(&c->thread, NULL, serve, c);
	if (err) {
		close(sv[0]);
		close(sv[1]);
		c->fd = -1;
		return -err;
	}
	return 0;
}

void usbip_client_hangup(struct usbip_client *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	/* the session closes server_fd as it ends */
	pthread_join(c->thread, NULL);
}

int usbip_client_send(struct usbip_client *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int usbip_fd_recv(int fd, void *buf, size_t len, int ms)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		/* no limit: no poll either (the benches count syscalls) */
		int r = ms < 0 ? 1 : poll(&pfd, 1, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1)
			return -1;
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int usbip_client_recv(struct usbip_client *c, void *buf, size_t len, int ms)
{
	return usbip_fd_recv(c->fd, buf, len, ms);
}

bool usbip_client_silent(struct usbip_client *c, int ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 0;
}

int usbip_client_import(struct usbip_client *c, const char *busid, int ms)
{
	uint8_t req[USBIP_IMPORT_REQ_LEN], rep[USBIP_IMPORT_REP_LEN];
	struct usbip_op_common op;

	usbip_import_req_encode(req, busid);
	if (usbip_client_send(c, req, sizeof(req)) < 0 ||
	    usbip_client_recv(c, rep, USBIP_OP_COMMON_LEN, ms) < 0 ||
	    usbip_op_common_decode(rep, USBIP_OP_COMMON_LEN, &op) < 0 ||
	    op.code != USBIP_OP_REP_IMPORT)
		return -1;
	/* as usbipd: a refusal is the status alone */
	if (op.status != USBIP_OP_STATUS_OK)
		return (int)op.status;
	if (usbip_client_recv(c, rep + USBIP_OP_COMMON_LEN, USBIP_DEVICE_LEN,
			      ms) < 0 ||
	    usbip_device_decode(rep + USBIP_OP_COMMON_LEN, USBIP_DEVICE_LEN,
				&c->dev) < 0)
		return -1;
	c->devid = c->dev.busnum << 16 | c->dev.devnum;
	return 0;
}

/* A CMD_SUBMIT or CMD_UNLINK header with the next seqnum. */
static void stamp(struct usbip_client *c, struct usbip_header *h,
		  uint32_t command)
{
	memset(h, 0, sizeof(*h));
	h->command = command;
	h->seqnum = c->seq++;
	h->devid = c->devid;
}

size_t usbip_client_encode_ctrl(struct usbip_client *c, uint8_t *buf,
				uint8_t bm, uint8_t req, uint16_t val,
				uint16_t idx, uint16_t len, const void *out)
{
	struct usb_setup s = { bm, req, val, idx, len };
	bool in = bm & USB_DIR_IN;
	struct usbip_header h;

	stamp(c, &h, USBIP_CMD_SUBMIT);
	h.direction = in ? USBIP_DIR_IN : USBIP_DIR_OUT;
	h.u.cmd_submit.transfer_buffer_length = len;
	usb_setup_encode(h.u.cmd_submit.setup, &s);
	usbip_header_encode(buf, &h);
	if (in || !len)
		return USBIP_HEADER_LEN;
	memcpy(buf + USBIP_HEADER_LEN, out, len);
	return USBIP_HEADER_LEN + len;
}

size_t usbip_client_encode_iso(struct usbip_client *c, uint8_t *buf,
			       uint8_t ep, uint32_t np, uint32_t plen,
			       uint32_t tbl)
{
	struct usbip_header h;
	uint32_t i;

	stamp(c, &h, USBIP_CMD_SUBMIT);
	h.direction = USBIP_DIR_IN;
	h.ep = ep;
	h.u.cmd_submit.transfer_flags = 0x2;	/* URB_ISO_ASAP */
	h.u.cmd_submit.transfer_buffer_length = (int32_t)tbl;
	h.u.cmd_submit.number_of_packets = (int32_t)np;
	h.u.cmd_submit.interval = 1;
	usbip_header_encode(buf, &h);
	for (i = 0; i < np; i++) {
		struct usbip_iso_desc d = { .offset = i * plen, .length = plen };

		usbip_iso_desc_encode(buf + USBIP_HEADER_LEN +
				      i * USBIP_ISO_DESC_LEN, &d);
	}
	return USBIP_HEADER_LEN + np * USBIP_ISO_DESC_LEN;
}

size_t usbip_client_encode_bulk(struct usbip_client *c, uint8_t *buf,
				uint8_t ep, uint32_t len)
{
	struct usbip_header h;

	stamp(c, &h, USBIP_CMD_SUBMIT);
	h.direction = USBIP_DIR_IN;
	h.ep = ep;
	h.u.cmd_submit.transfer_buffer_length = (int32_t)len;
	usbip_header_encode(buf, &h);
	return USBIP_HEADER_LEN;
}

size_t usbip_client_encode_unlink(struct usbip_client *c, uint8_t *buf,
				  uint32_t victim)
{
	struct usbip_header h;

	stamp(c, &h, USBIP_CMD_UNLINK);
	h.u.cmd_unlink.seqnum = victim;
	usbip_header_encode(buf, &h);
	return USBIP_HEADER_LEN;
}

long usbip_client_recv_ret(struct usbip_client *c, bool in, bool iso,
			   uint32_t np, struct usbip_ret *ret, uint8_t *buf,
			   size_t cap, int ms, char *err, size_t errlen)
{
	struct usbip_header h;
	size_t extra = 0;
	long n;

	if (cap < USBIP_HEADER_LEN ||
	    usbip_client_recv(c, buf, USBIP_HEADER_LEN, ms) < 0 ||
	    usbip_header_decode(buf, USBIP_HEADER_LEN, &h) < 0)
		return -1;
	if (h.command == USBIP_RET_SUBMIT) {
		if (in && h.u.ret_submit.actual_length > 0)
			extra += (size_t)h.u.ret_submit.actual_length;
		if (iso && h.u.ret_submit.number_of_packets > 0)
			extra += (size_t)h.u.ret_submit.number_of_packets *
				 USBIP_ISO_DESC_LEN;
	}
	if (USBIP_HEADER_LEN + extra > cap)
		return -2;
	if (usbip_client_recv(c, buf + USBIP_HEADER_LEN, extra, ms) < 0)
		return -1;
	n = usbip_parse_ret(buf, USBIP_HEADER_LEN + extra, in, iso, np, ret,
			    err, errlen);
	return n < 0 ? -3 : n;
}

int usbip_client_ctrl(struct usbip_client *c, uint8_t bm, uint8_t req,
		      uint16_t val, uint16_t idx, uint16_t len, void *data,
		      int ms)
{
	uint8_t buf[USBIP_HEADER_LEN + 256];
	bool in = bm & USB_DIR_IN;
	struct usbip_ret ret;
	char err[160];
	uint32_t seq;

	if (len > 256)
		return USBIP_CLIENT_BROKEN;
	seq = c->seq;
	if (usbip_client_send(c, buf, usbip_client_encode_ctrl(c, buf, bm, req,
							      val, idx, len,
							      data)) < 0 ||
	    usbip_client_recv_ret(c, in, false, 0, &ret, buf, sizeof(buf), ms,
				  err, sizeof(err)) < 0 ||
	    ret.hdr.command != USBIP_RET_SUBMIT || ret.hdr.seqnum != seq)
		return USBIP_CLIENT_BROKEN;
	if (ret.hdr.u.ret_submit.status)
		return ret.hdr.u.ret_submit.status;
	if ((uint32_t)ret.hdr.u.ret_submit.actual_length > len)
		return USBIP_CLIENT_BROKEN;
	if (in)
		memcpy(data, ret.data, ret.data_len);
	return ret.hdr.u.ret_submit.actual_length;
}
