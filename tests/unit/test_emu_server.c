// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The USB/IP server end to end over socketpairs, the test playing vhci:
 * device list, import (and refusals), control URBs, isochronous URBs
 * paced in bus time with replies laid out exactly as vhci parses them,
 * frames reassembled by core/isocam_asm and checked by their stamp,
 * CMD_UNLINK semantics, and a garbage-sending client being dropped while
 * the camera stays importable.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/usb/ch9.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>
#include <isocam/payload.h>
#include <isocam/usb.h>

#include "bridge.h"
#include "isocam_asm.h"
#include "scene.h"
#include "usbip_client.h"
#include "usbip_proto.h"
#include "usbip_server.h"

#define NP		32		/* packets per iso URB */
#define PKT		3072		/* alt 7 */
#define IN_FLIGHT	4

static struct usbip_server *srv;

static void conn_open(struct usbip_client *c)
{
	assert_int_equal(usbip_client_connect(c, srv, "test-client"), 0);
}

static void conn_close(struct usbip_client *c)
{
	usbip_client_hangup(c);
}

static void send_all(int fd, const void *buf, size_t len)
{
	assert_int_equal(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* Read exactly len bytes within 3 s; -1 on EOF (0 bytes) or timeout. */
static int recv_exact(int fd, void *buf, size_t len)
{
	return usbip_fd_recv(fd, buf, len, 3000);
}

static bool readable_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 0 once imported, else the refusal's status (usbipd's ST_* codes). */
static int import(struct usbip_client *c, const char *busid)
{
	uint8_t b;
	int st = usbip_client_import(c, busid, 3000);

	assert_true(st >= 0);
	if (st) {
		/* as usbipd: the status alone, then the connection closes */
		assert_int_equal(recv_exact(c->fd, &b, 1), -1);
		return st;
	}
	assert_string_equal(c->dev.busid, busid);
	assert_int_equal(c->dev.speed, USBIP_SPEED_HIGH);
	assert_int_equal(c->dev.idVendor, ISOCAM_USB_VID);
	assert_int_equal(c->dev.idProduct, ISOCAM_USB_PID);
	return 0;
}

/* Receive one reply; for RET_SUBMIT the caller says what it expects. */
static void recv_ret(struct usbip_client *c, bool in, bool iso, uint32_t np,
		     struct usbip_ret *ret, uint8_t *buf, size_t cap)
{
	char err[160] = "";
	long n = usbip_client_recv_ret(c, in, iso, np, ret, buf, cap, 3000,
				       err, sizeof(err));

	if (n == -3)
		fail_msg("reply vhci would reject: %s", err);
	if (n < 0)
		fail_msg("no whole reply within 3 s (%ld)", n);
}

static uint32_t submit_ctrl(struct usbip_client *c, uint8_t bm, uint8_t req,
			    uint16_t val, uint16_t idx, uint16_t len,
			    const uint8_t *out)
{
	uint8_t buf[USBIP_HEADER_LEN + 256];

	send_all(c->fd, buf, usbip_client_encode_ctrl(c, buf, bm, req, val,
						      idx, len, out));
	return c->seq - 1;
}

/* A control transfer; returns the status, data copied to in_data. */
static int ctrl(struct usbip_client *c, uint8_t bm, uint8_t req, uint16_t val,
		uint16_t idx, uint16_t len, uint8_t *data)
{
	int r = usbip_client_ctrl(c, bm, req, val, idx, len, data, 3000);

	assert_int_not_equal(r, USBIP_CLIENT_BROKEN);
	return r;
}

static void i2c_write(struct usbip_client *c, const uint8_t *d, uint16_t n)
{
	uint8_t buf[64];

	memcpy(buf, d, n);
	assert_int_equal(ctrl(c, USB_DIR_OUT | USB_TYPE_VENDOR |
			      USB_RECIP_INTERFACE, ISOCAM_REQ_I2C_WRITE,
			      IC1280_I2C_ADDR, 0, n, buf), n);
}

/* An iso IN CMD_SUBMIT of np packets of plen bytes into buf; its length. */
static size_t encode_iso(struct usbip_client *c, uint8_t *buf, uint32_t np,
			 uint32_t plen, uint32_t tbl)
{
	return usbip_client_encode_iso(c, buf, 1, np, plen, tbl);
}

/* ok == NULL: the send must succeed; else *ok says whether it did. */
static uint32_t submit_iso_ex(struct usbip_client *c, uint32_t np,
			      uint32_t plen, bool *ok)
{
	uint8_t buf[USBIP_HEADER_LEN + NP * USBIP_ISO_DESC_LEN];
	size_t len = encode_iso(c, buf, np, plen, np * plen);

	if (ok)
		*ok = usbip_client_send(c, buf, len) == 0;
	else
		send_all(c->fd, buf, len);
	return c->seq - 1;
}

static uint32_t submit_iso(struct usbip_client *c, uint32_t np, uint32_t plen)
{
	return submit_iso_ex(c, np, plen, NULL);
}

static void send_unlink(struct usbip_client *c, uint32_t victim, uint32_t *seq)
{
	uint8_t buf[USBIP_HEADER_LEN];

	*seq = c->seq;
	send_all(c->fd, buf, usbip_client_encode_unlink(c, buf, victim));
}

/* Frames as the driver would assemble them. */
struct frames {
	uint8_t bufs[2][19200];
	int next;
	uint32_t good, bad;
	int64_t last_counter;
	uint32_t out_of_order;
};

static bool get_buf(void *priv, struct isocam_asm_buf *b)
{
	struct frames *f = priv;

	b->cookie = NULL;
	b->vaddr = f->bufs[f->next];
	b->size = sizeof(f->bufs[0]);
	f->next ^= 1;
	return true;
}

static void buf_done(void *priv, struct isocam_asm_buf *b, u32 used,
		     bool error, bool pts_valid, u32 pts)
{
	struct frames *f = priv;
	struct scene_params p;
	uint32_t counter, sum;

	(void)pts_valid;
	(void)pts;
	if (error) {
		f->bad++;
		return;
	}
	assert_int_equal(scene_stamp_parse(b->vaddr, used, &p, &counter, &sum),
			 0);
	assert_int_equal(p.width, 160);
	assert_int_equal(p.format, IC1280_FMT_GREY);
	assert_int_equal(sum, isocam_stamp_checksum(b->vaddr + ISOCAM_STAMP_LEN,
						    used - ISOCAM_STAMP_LEN));
	if (f->last_counter >= 0 && counter != f->last_counter + 1)
		f->out_of_order++;
	f->last_counter = counter;
	f->good++;
}

static const struct isocam_asm_ops asm_ops = {
	.get_buf = get_buf,
	.buf_done = buf_done,
};

static void start_camera(struct usbip_client *c)
{
	static const uint8_t fmt[] = { 0x02, 0x00, IC1280_FMT_GREY };
	static const uint8_t size[] = { 0x02, 0x02, 0x00, 160, 0x00, 120 };
	static const uint8_t fll[] = { 0x03, 0x40, 500 >> 8, 500 & 0xff };
	static const uint8_t on[] = { 0x01, 0x00, IC1280_MODE_STREAMING };
	uint8_t d[64];

	assert_int_equal(ctrl(c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 64, d), 18);
	assert_int_equal(d[8] | d[9] << 8, ISOCAM_USB_VID);
	assert_int_equal(ctrl(c, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, d), 0);
	/* an unknown request STALLs: -EPIPE on the wire */
	assert_int_equal(ctrl(c, USB_DIR_IN | USB_TYPE_VENDOR |
			      USB_RECIP_INTERFACE, 0x55, 0, 0, 4, d), -32);
	i2c_write(c, fmt, sizeof(fmt));
	i2c_write(c, size, sizeof(size));
	i2c_write(c, fll, sizeof(fll));
	i2c_write(c, on, sizeof(on));
	assert_int_equal(ctrl(c, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      7, 0, 0, d), 0);
}

static void test_devlist(void **state)
{
	struct usbip_op_common op = { USBIP_VERSION, USBIP_OP_REQ_DEVLIST, 0 };
	uint8_t buf[1024];
	struct usbip_usb_device d;
	struct usbip_client c;
	size_t len = 12 + 2 * (312 + 4);

	(void)state;
	conn_open(&c);
	usbip_op_common_encode(buf, &op);
	send_all(c.fd, buf, 8);
	assert_int_equal(recv_exact(c.fd, buf, len), 0);
	assert_int_equal(buf[11], 2);
	assert_int_equal(usbip_device_decode(buf + 12, 312, &d), 0);
	assert_string_equal(d.busid, "1-1");
	assert_int_equal(d.bNumInterfaces, 1);
	assert_int_equal(buf[12 + 312], ISOCAM_USB_IFACE_CLASS);
	assert_int_equal(usbip_device_decode(buf + 12 + 316, 312, &d), 0);
	assert_string_equal(d.busid, "1-2");
	assert_int_equal(d.devnum, 2);
	/* then the server closes the connection */
	assert_int_equal(recv_exact(c.fd, buf, 1), -1);
	conn_close(&c);
}

static void test_import_refusals(void **state)
{
	struct usbip_client a, b, x;

	(void)state;
	conn_open(&x);
	assert_int_equal(import(&x, "1-9"), USBIP_OP_STATUS_NODEV);
	conn_close(&x);

	conn_open(&a);
	assert_int_equal(import(&a, "1-1"), 0);
	conn_open(&b);
	assert_int_equal(import(&b, "1-1"), USBIP_OP_STATUS_DEV_BUSY);
	conn_close(&b);
	conn_open(&b);
	assert_int_equal(import(&b, "1-2"), 0);	/* the other camera */
	conn_close(&b);
	conn_close(&a);
	/* free again once its client is gone */
	conn_open(&a);
	assert_int_equal(import(&a, "1-1"), 0);
	conn_close(&a);
}

static void test_stream(void **state)
{
	static uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	struct isocam_assembler as;
	struct frames *fr = calloc(1, sizeof(*fr));
	struct usbip_ret ret;
	struct usbip_client c;
	uint32_t expect_seq[64], head = 0, tail = 0, urbs = 0, i;
	uint64_t t0, elapsed;
	const uint32_t total_urbs = 60;	/* 60 x 4 ms: ~14 frames at 60 fps */

	(void)state;
	fr->last_counter = -1;
	isocam_asm_init(&as, &asm_ops, fr, 160 * 120);
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_camera(&c);

	t0 = now_ns();
	for (i = 0; i < IN_FLIGHT; i++)
		expect_seq[tail++ % 64] = submit_iso(&c, NP, PKT);
	while (urbs < total_urbs) {
		uint32_t sum = 0, p;

		recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
		assert_int_equal(ret.hdr.command, USBIP_RET_SUBMIT);
		/* completions come in submission order */
		assert_int_equal(ret.hdr.seqnum, expect_seq[head++ % 64]);
		assert_int_equal(ret.hdr.u.ret_submit.status, 0);
		assert_int_equal(ret.hdr.u.ret_submit.number_of_packets, NP);
		assert_int_equal(ret.num_iso, NP);
		for (p = 0; p < NP; p++) {
			struct usbip_iso_desc d;

			usbip_iso_desc_decode(ret.iso_descs +
					      p * USBIP_ISO_DESC_LEN, &d);
			/* offsets and lengths echoed, data packed in order */
			assert_int_equal(d.offset, p * PKT);
			assert_int_equal(d.length, PKT);
			assert_int_equal(d.status, 0);
			assert_true(d.actual_length <= PKT);
			isocam_asm_packet(&as, ret.data + sum, d.actual_length);
			sum += d.actual_length;
		}
		assert_int_equal(sum, ret.data_len);
		urbs++;
		if (urbs + IN_FLIGHT <= total_urbs)
			expect_seq[tail++ % 64] = submit_iso(&c, NP, PKT);
	}
	elapsed = now_ns() - t0;
	/* paced in bus time: never faster than 125 us per microframe */
	assert_true(elapsed >= (uint64_t)total_urbs * NP * 125000ull * 95 / 100);
	assert_true(fr->good >= 10);
	assert_int_equal(fr->bad, 0);
	assert_int_equal(fr->out_of_order, 0);
	conn_close(&c);
	free(fr);
}

static void test_unlink(void **state)
{
	uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	struct usbip_ret ret;
	struct usbip_client c;
	uint32_t victim, unlink_seq, done, ctrl_seq;
	uint8_t d[16];

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-2"), 0);
	start_camera(&c);

	/* a queued URB is cancelled: -ECONNRESET and never a RET_SUBMIT */
	victim = submit_iso(&c, NP, PKT);
	send_unlink(&c, victim, &unlink_seq);
	recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.seqnum, unlink_seq);
	assert_int_equal(ret.hdr.u.ret_unlink.status, -ECONNRESET);
	assert_false(readable_within(c.fd, 20));

	/* a completed URB: status 0 */
	done = submit_iso(&c, 8, PKT);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, done);
	send_unlink(&c, done, &unlink_seq);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.seqnum, unlink_seq);
	assert_int_equal(ret.hdr.u.ret_unlink.status, 0);

	/* control URBs are answered at once, even with iso queued */
	victim = submit_iso(&c, NP, PKT);
	ctrl_seq = submit_ctrl(&c, USB_DIR_IN | USB_TYPE_VENDOR |
			       USB_RECIP_INTERFACE, ISOCAM_REQ_GET_STATUS, 0,
			       0, 16, NULL);
	recv_ret(&c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, ctrl_seq);
	assert_int_equal(ret.data_len, 16);
	memcpy(d, ret.data, 16);
	assert_int_equal(d[3], 7);	/* alt_setting */
	recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, victim);
	conn_close(&c);
}

/*
 * vhci may send a URB's CMD_UNLINK before its CMD_SUBMIT, and it gives a
 * URB back on any RET_UNLINK: the answer must wait for the URB, cancel
 * it, and no RET_SUBMIT for it may ever follow (vhci would drop the
 * connection: "cannot find a urb of seqnum").
 */
static void test_early_unlink(void **state)
{
	uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	struct usbip_ret ret;
	struct usbip_client c;
	uint32_t victim, unlink_seq, first_unlink = 0, x, i;

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-2"), 0);
	start_camera(&c);

	/* the unlink of the URB after it: no answer until that URB comes */
	victim = c.seq + 1;
	send_unlink(&c, victim, &unlink_seq);
	assert_false(readable_within(c.fd, 50));
	assert_int_equal(submit_iso(&c, 8, PKT), victim);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.seqnum, unlink_seq);
	assert_int_equal(ret.hdr.u.ret_unlink.status, -ECONNRESET);
	/* the cancelled URB is never answered: the next reply is the next URB's */
	x = submit_iso(&c, 8, PKT);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_SUBMIT);
	assert_int_equal(ret.hdr.seqnum, x);

	/* an unlink a newer URB overtakes named nothing to come: status 0 */
	victim = c.seq + 2;
	send_unlink(&c, victim, &unlink_seq);
	x = submit_iso(&c, 8, PKT);		/* victim - 1: still waits */
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_SUBMIT);
	assert_int_equal(ret.hdr.seqnum, x);
	c.seq += 3;		/* vhci's seqnums are shared by its ports */
	x = submit_iso(&c, 8, PKT);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.seqnum, unlink_seq);
	assert_int_equal(ret.hdr.u.ret_unlink.status, 0);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_SUBMIT);
	assert_int_equal(ret.hdr.seqnum, x);

	/* at most 16 wait: the 17th answers the oldest as never ours */
	for (i = 0; i < 17; i++) {
		send_unlink(&c, 1000000 + i, &unlink_seq);
		if (!i)
			first_unlink = unlink_seq;
	}
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.seqnum, first_unlink);
	assert_int_equal(ret.hdr.u.ret_unlink.status, 0);
	assert_false(readable_within(c.fd, 50));
	conn_close(&c);
}

static void test_garbage(void **state)
{
	uint8_t junk[64];
	struct usbip_client c;

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	memset(junk, 0xee, sizeof(junk));
	send_all(c.fd, junk, sizeof(junk));
	/* the server hangs up on this client ... */
	assert_int_equal(recv_exact(c.fd, junk, 1), -1);
	conn_close(&c);
	/* ... and keeps serving: the camera is importable again */
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	conn_close(&c);

	/* not even USB/IP */
	conn_open(&c);
	send_all(c.fd, "GET / HTTP/1.0\r\n\r\n", 18);
	assert_int_equal(recv_exact(c.fd, junk, 1), -1);
	conn_close(&c);
}

/* SCR (bus time, 1 MHz) of data packet p of an iso reply; -1: no data. */
static int64_t packet_scr(const struct usbip_ret *ret, uint32_t p)
{
	uint32_t off = 0, i;
	struct usbip_iso_desc d;
	const uint8_t *h;

	for (i = 0; i < p; i++) {
		usbip_iso_desc_decode(ret->iso_descs + i * USBIP_ISO_DESC_LEN, &d);
		off += d.actual_length;
	}
	usbip_iso_desc_decode(ret->iso_descs + p * USBIP_ISO_DESC_LEN, &d);
	if (d.actual_length < ISOCAM_PH_LEN_FULL)
		return -1;
	h = ret->data + off;
	assert_true(h[ISOCAM_PH_OFF_INFO] & ISOCAM_PH_SCR);
	return (int64_t)((uint32_t)h[ISOCAM_PH_OFF_SCR_STC] |
			 (uint32_t)h[ISOCAM_PH_OFF_SCR_STC + 1] << 8 |
			 (uint32_t)h[ISOCAM_PH_OFF_SCR_STC + 2] << 16 |
			 (uint32_t)h[ISOCAM_PH_OFF_SCR_STC + 3] << 24);
}

/*
 * The host lets the iso queue run dry for 100 ms. Strict (tolerance 0):
 * those microframes are gone, the bus time jumps. Tolerant: the bus
 * clock pauses, the next packet is the very next microframe.
 */
static int64_t gap_after_host_pause(unsigned int tolerance_ms)
{
	static uint8_t buf[USBIP_HEADER_LEN + 8 * PKT + 8 * USBIP_ISO_DESC_LEN];
	static const uint8_t on[] = { 0x01, 0x00, IC1280_MODE_STREAMING };
	struct usbip_server_config cfg = {
		.count = 1, .camera.chip_id = IC1280_CHIP_ID, .camera.seed = 1,
		.late_tolerance_ms = tolerance_ms,
	};
	struct usbip_server *saved = srv;
	struct timespec pause = { .tv_nsec = 100000000 };
	struct usbip_ret ret;
	struct usbip_client c;
	int64_t a, b;
	uint8_t d[18];

	srv = usbip_server_new(&cfg);
	assert_non_null(srv);
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	/* power-on mode: 640x480 YUYV, 30 fps: most microframes carry data */
	assert_int_equal(ctrl(&c, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, d), 0);
	i2c_write(&c, on, sizeof(on));
	assert_int_equal(ctrl(&c, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      7, 0, 0, d), 0);
	submit_iso(&c, 8, PKT);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	a = packet_scr(&ret, 7);
	nanosleep(&pause, NULL);
	submit_iso(&c, 8, PKT);
	recv_ret(&c, true, true, 8, &ret, buf, sizeof(buf));
	b = packet_scr(&ret, 0);
	assert_true(a >= 0 && b >= 0);
	conn_close(&c);
	usbip_server_free(srv);
	srv = saved;
	return (int64_t)(uint32_t)(b - a);	/* 32-bit clock wrap safe */
}

/* --fault=vanish=after:2: the connection drops once frame 3 went out. */
static void test_vanish(void **state)
{
	static uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	struct usbip_server_config cfg = {
		.count = 1, .camera.chip_id = IC1280_CHIP_ID, .camera.seed = 1,
		.camera.fault_spec = "vanish=after:2",
		/* a loaded machine's late client must not cost a frame */
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
	};
	struct isocam_assembler as;
	struct frames *fr = calloc(1, sizeof(*fr));
	struct usbip_server *saved = srv;
	struct usbip_ret ret;
	struct usbip_client c;
	uint32_t urbs = 0, p;
	bool sent;

	(void)state;
	fr->last_counter = -1;
	isocam_asm_init(&as, &asm_ops, fr, 160 * 120);
	srv = usbip_server_new(&cfg);
	assert_non_null(srv);
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_camera(&c);
	submit_iso(&c, NP, PKT);
	for (;;) {
		uint8_t hdr[USBIP_HEADER_LEN];
		struct usbip_header h;
		size_t extra;

		if (recv_exact(c.fd, hdr, sizeof(hdr)) < 0)
			break;	/* vanished */
		assert_int_equal(usbip_header_decode(hdr, sizeof(hdr), &h), 0);
		extra = (size_t)h.u.ret_submit.actual_length +
			NP * USBIP_ISO_DESC_LEN;
		memcpy(buf, hdr, sizeof(hdr));
		assert_int_equal(recv_exact(c.fd, buf + USBIP_HEADER_LEN, extra), 0);
		assert_true(usbip_parse_ret(buf, USBIP_HEADER_LEN + extra, true,
					    true, NP, &ret, NULL, 0) > 0);
		for (p = 0; p < NP; p++) {
			struct usbip_iso_desc d;
			uint32_t off = 0, q;

			for (q = 0; q < p; q++) {
				usbip_iso_desc_decode(ret.iso_descs +
						      q * USBIP_ISO_DESC_LEN, &d);
				off += d.actual_length;
			}
			usbip_iso_desc_decode(ret.iso_descs +
					      p * USBIP_ISO_DESC_LEN, &d);
			isocam_asm_packet(&as, ret.data + off, d.actual_length);
		}
		assert_true(++urbs < 100);	/* 3 frames need ~12 URBs */
		/* the server may already be gone: then the read above says so */
		submit_iso_ex(&c, NP, PKT, &sent);
		(void)sent;
	}
	/* frames 0..2 went out (the 3rd is the vanishing opportunity) */
	assert_int_equal(fr->good, 3);
	assert_int_equal(fr->out_of_order, 0);
	conn_close(&c);
	/* the camera is importable again after the "unplug" */
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	conn_close(&c);
	usbip_server_free(srv);
	srv = saved;
	free(fr);
}

static void test_late_host(void **state)
{
	(void)state;
	assert_int_equal(gap_after_host_pause(1000), 125);
	assert_true(gap_after_host_pause(0) >= 100000);
}

/*
 * --- hostile clients: the limits of usbip_server.h and usbip_session.h ---
 */

/* A server of its own for one test; returns the shared one to restore. */
static struct usbip_server *use_server(struct usbip_server_config *cfg)
{
	struct usbip_server *saved = srv;

	cfg->count = cfg->count ? cfg->count : 2;
	cfg->camera.chip_id = IC1280_CHIP_ID;
	cfg->camera.seed = 1;
	srv = usbip_server_new(cfg);
	assert_non_null(srv);
	return saved;
}

static void restore_server(struct usbip_server *saved)
{
	usbip_server_free(srv);
	srv = saved;
}

/* The peer closes within ms: EOF (not mere silence, as recv_exact allows). */
static void expect_eof(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint8_t b;

	assert_int_equal(poll(&pfd, 1, ms), 1);
	assert_true(recv(fd, &b, 1, 0) <= 0);
}

static uint64_t ms_since(uint64_t t0)
{
	return (now_ns() - t0) / 1000000;
}

/* A header-only command (plus extra bytes) with the conn's devid. */
static void send_hdr(struct usbip_client *c, struct usbip_header *h,
		     const uint8_t *extra, size_t len)
{
	uint8_t buf[USBIP_HEADER_LEN];

	h->devid = c->devid;
	usbip_header_encode(buf, h);
	send_all(c->fd, buf, sizeof(buf));
	if (len)
		send_all(c->fd, extra, len);
}

/* The status of the RET_SUBMIT answering seq. */
static int32_t ret_status(struct usbip_client *c, uint32_t seq)
{
	uint8_t buf[USBIP_HEADER_LEN + 64];
	struct usbip_ret ret;

	recv_ret(c, false, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_SUBMIT);
	assert_int_equal(ret.hdr.seqnum, seq);
	return ret.hdr.u.ret_submit.status;
}

/* A bus id that is not NUL terminated: refused as a failed request. */
static void test_import_malformed(void **state)
{
	uint8_t req[USBIP_IMPORT_REQ_LEN], rep[USBIP_OP_COMMON_LEN];
	struct usbip_op_common op;
	struct usbip_client c;

	(void)state;
	conn_open(&c);
	usbip_import_req_encode(req, "1-1");
	memset(req + USBIP_OP_COMMON_LEN, 'x', USBIP_BUSID_LEN);
	send_all(c.fd, req, sizeof(req));
	assert_int_equal(recv_exact(c.fd, rep, sizeof(rep)), 0);
	assert_int_equal(usbip_op_common_decode(rep, sizeof(rep), &op), 0);
	assert_int_equal(op.status, USBIP_OP_STATUS_ERROR);
	expect_eof(c.fd, 1000);
	conn_close(&c);
}

/* A command for another device than the one imported ends the session. */
static void test_devid_check(void **state)
{
	struct usbip_header h;
	struct usbip_client c;
	uint8_t d[16];

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-2"), 0);
	assert_int_equal(c.devid, 0x10002);
	assert_int_equal(ctrl(&c, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, d), 0);
	c.devid = 0x10001;	/* the other camera's */
	submit_ctrl(&c, USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_INTERFACE,
		    ISOCAM_REQ_GET_STATUS, 0, 0, 16, NULL);
	expect_eof(c.fd, 1000);		/* no reply: hung up on */
	conn_close(&c);

	/* CMD_UNLINK is checked as well */
	conn_open(&c);
	assert_int_equal(import(&c, "1-2"), 0);
	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_UNLINK;
	h.seqnum = c.seq++;
	h.u.cmd_unlink.seqnum = 1;
	c.devid = 0;
	send_hdr(&c, &h, NULL, 0);
	expect_eof(c.fd, 1000);
	conn_close(&c);

	/* and the camera is free again */
	conn_open(&c);
	assert_int_equal(import(&c, "1-2"), 0);
	conn_close(&c);
}

/*
 * max_queued_uframes 64 with 32-packet URBs: two fit, the third waits in
 * the socket, and so does the control URB behind it. It is answered only
 * once the first iso URB completed and made room; with the cap broken it
 * would come first, as in test_unlink. Waiting URBs are not read: they
 * stay in the socket buffer.
 */
static void test_queue_backpressure(void **state)
{
	enum { FLOOD = 230 };
	static uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	static uint8_t flood[FLOOD * (USBIP_HEADER_LEN + NP * USBIP_ISO_DESC_LEN)];
	struct usbip_server_config cfg = { .max_queued_uframes = 64 };
	struct usbip_server *saved = use_server(&cfg);
	struct timespec settle = { .tv_nsec = 50000000 };
	uint32_t iso[4], ctrl_seq, i;
	struct usbip_ret ret;
	struct usbip_client c;
	size_t len;
	int unread;

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_camera(&c);
	/* in one send, so that none of it arrives late */
	for (i = 0, len = 0; i < 3; i++) {
		iso[i] = c.seq;
		len += encode_iso(&c, flood + len, NP, PKT, NP * PKT);
	}
	ctrl_seq = c.seq;
	len += usbip_client_encode_ctrl(&c, flood + len, USB_DIR_IN |
					USB_TYPE_VENDOR | USB_RECIP_INTERFACE,
					ISOCAM_REQ_GET_STATUS, 0, 0, 16, NULL);
	iso[3] = c.seq;
	len += encode_iso(&c, flood + len, NP, PKT, NP * PKT);
	send_all(c.fd, flood, len);

	recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, iso[0]);
	recv_ret(&c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, ctrl_seq);
	for (i = 1; i < 4; i++) {
		recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
		assert_int_equal(ret.hdr.seqnum, iso[i]);
		assert_int_equal(ret.hdr.u.ret_submit.status, 0);
	}

	/* FLOOD URBs at once (128 KB): most stay in the socket, unread */
	for (i = 0, len = 0; i < FLOOD; i++)
		len += encode_iso(&c, flood + len, NP, PKT, NP * PKT);
	send_all(c.fd, flood, len);
	nanosleep(&settle, NULL);
	assert_int_equal(ioctl(c.server_fd, FIONREAD, &unread), 0);
	assert_true(unread >= 32 * 1024);
	conn_close(&c);
	restore_server(saved);
}

/*
 * The queue full (64 microframes), then emptied by unlinks handled in the
 * same go as the completion that made room: the session must read on
 * (it once polled for nothing, without a timeout, and hung).
 */
static void test_backpressure_unlinked(void **state)
{
	static uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	static uint8_t cmds[3 * (USBIP_HEADER_LEN + NP * USBIP_ISO_DESC_LEN) +
			    2 * USBIP_HEADER_LEN];
	struct usbip_server_config cfg = { .max_queued_uframes = 64 };
	struct usbip_server *saved = use_server(&cfg);
	uint32_t iso[3], i;
	struct usbip_ret ret;
	struct usbip_client c;
	size_t len = 0;
	uint8_t d[16];

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_camera(&c);
	for (i = 0; i < 3; i++) {
		iso[i] = c.seq;
		len += encode_iso(&c, cmds + len, NP, PKT, NP * PKT);
	}
	for (i = 3; i-- > 1;)		/* unlink the 3rd, then the 2nd */
		len += usbip_client_encode_unlink(&c, cmds + len, iso[i]);
	send_all(c.fd, cmds, len);
	recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, iso[0]);
	for (i = 0; i < 2; i++) {
		recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
		assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
		assert_int_equal(ret.hdr.u.ret_unlink.status, -ECONNRESET);
	}
	assert_int_equal(ctrl(&c, USB_DIR_IN | USB_TYPE_VENDOR |
			      USB_RECIP_INTERFACE, ISOCAM_REQ_GET_STATUS, 0, 0,
			      16, d), 16);
	conn_close(&c);
	restore_server(saved);
}

/*
 * Sizes no vhci sends are answered -EMSGSIZE, and the session goes on:
 * OUT data above 65535 bytes is skipped unread into memory, however it
 * arrives; iso transfers above 3072 bytes a packet, or of more packets
 * than the queue holds, are refused.
 */
static void test_size_refusals(void **state)
{
	struct usbip_server_config cfg = { .max_queued_uframes = 64 };
	struct usbip_server *saved = use_server(&cfg);
	static uint8_t junk[70000];
	uint8_t iso[USBIP_HEADER_LEN + 65 * USBIP_ISO_DESC_LEN];
	struct usbip_header h;
	struct usbip_client c;
	size_t len;
	uint8_t d[18];

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_camera(&c);

	/* control OUT of 70000 bytes (wLength 0), the data in two pieces */
	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = c.seq++;
	h.u.cmd_submit.transfer_buffer_length = sizeof(junk);
	memset(junk, 0xee, sizeof(junk));
	send_hdr(&c, &h, junk, 30000);
	assert_int_equal(ret_status(&c, h.seqnum), -EMSGSIZE);
	send_all(c.fd, junk + 30000, sizeof(junk) - 30000);
	/* the next command is read where the skipped one ended */
	assert_int_equal(ctrl(&c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 18, d), 18);

	/* iso: 8 packets in a buffer of 8 x 3072 + 1 bytes; 65 packets */
	len = encode_iso(&c, iso, 8, PKT, 8 * PKT + 1);
	send_all(c.fd, iso, len);
	assert_int_equal(ret_status(&c, c.seq - 1), -EMSGSIZE);
	len = encode_iso(&c, iso, 65, PKT, 65 * PKT);
	send_all(c.fd, iso, len);
	assert_int_equal(ret_status(&c, c.seq - 1), -EMSGSIZE);
	/* still in business */
	assert_int_equal(ctrl(&c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 18, d), 18);
	conn_close(&c);
	restore_server(saved);
}

/*
 * The request timeout is for the whole request: a client that trickles
 * its import a few bytes every 50 ms is closed once it ran out, as is
 * one that sends nothing.
 */
static void test_request_timeout(void **state)
{
	struct usbip_server_config cfg = { .request_timeout_ms = 200 };
	struct usbip_server *saved = use_server(&cfg);
	struct timespec pause = { .tv_nsec = 50000000 };
	uint8_t req[USBIP_IMPORT_REQ_LEN];
	uint64_t t0 = now_ns();
	struct usbip_client c;
	size_t off;

	(void)state;
	conn_open(&c);
	expect_eof(c.fd, 2000);
	assert_true(ms_since(t0) >= 150);
	conn_close(&c);

	usbip_import_req_encode(req, "1-1");
	conn_open(&c);
	t0 = now_ns();
	for (off = 0; off < sizeof(req) && ms_since(t0) < 1000; off += 4) {
		if (send(c.fd, req + off, 4, MSG_NOSIGNAL) != 4)
			break;	/* already closed */
		nanosleep(&pause, NULL);
	}
	expect_eof(c.fd, 2000);
	assert_true(ms_since(t0) < 1000);	/* not 10 x 50 ms */
	conn_close(&c);
	restore_server(saved);
}

/*
 * An importer that never sends a command is dropped and the camera
 * freed; one that sent a command may then stay idle as long as it likes.
 */
static void test_first_urb_timeout(void **state)
{
	struct usbip_server_config cfg = { .first_urb_timeout_ms = 200 };
	struct usbip_server *saved = use_server(&cfg);
	struct timespec idle = { .tv_nsec = 400000000 };
	uint64_t t0;
	struct usbip_client c;
	uint8_t d[18];

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	t0 = now_ns();
	expect_eof(c.fd, 2000);
	assert_true(ms_since(t0) >= 150);
	conn_close(&c);

	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);	/* it was freed */
	assert_int_equal(ctrl(&c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 18, d), 18);
	nanosleep(&idle, NULL);
	assert_false(readable_within(c.fd, 0));	/* not hung up on */
	assert_int_equal(ctrl(&c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 18, d), 18);
	conn_close(&c);
	restore_server(saved);
}

static int tcp_connect(uint16_t port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Whether the server lists its devices on this connection. */
static bool lists_devices(int fd)
{
	struct usbip_op_common op = { USBIP_VERSION, USBIP_OP_REQ_DEVLIST, 0 };
	uint8_t buf[USBIP_OP_COMMON_LEN];

	usbip_op_common_encode(buf, &op);
	if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf))
		return false;
	return recv_exact(fd, buf, sizeof(buf)) == 0 &&
	       usbip_op_common_decode(buf, sizeof(buf), &op) == 0 &&
	       op.code == USBIP_OP_REP_DEVLIST;
}

/* Listen on bind (port 0: any) and return what the server logged. */
static char *listen_log(const char *bind)
{
	struct usbip_server_config cfg = { .bind = bind };
	struct usbip_server *saved = use_server(&cfg);
	FILE *tmp = tmpfile();
	int err = dup(2);
	char *text = calloc(1, 4096);

	assert_non_null(tmp);
	assert_non_null(text);
	assert_true(err >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	assert_int_equal(usbip_server_listen(srv), 0);
	fflush(stderr);
	assert_true(dup2(err, 2) >= 0);
	close(err);
	rewind(tmp);
	assert_true(fread(text, 1, 4095, tmp) > 0);
	fclose(tmp);
	restore_server(saved);
	return text;
}

/*
 * --bind off loopback says USB/IP has no authentication (the systemd
 * unit's users bind where others can reach); loopback says nothing.
 */
static void test_bind_warns_off_loopback(void **state)
{
	char *t;

	(void)state;
	t = listen_log("0.0.0.0");
	assert_non_null(strstr(t, "warning: --bind 0.0.0.0 is not loopback, and USB/IP has no authentication"));
	assert_non_null(strstr(t, "listening on 0.0.0.0"));
	free(t);
	t = listen_log("127.0.0.1");
	assert_null(strstr(t, "warning"));
	assert_non_null(strstr(t, "listening on 127.0.0.1"));
	free(t);
}

/*
 * --max-clients 2 over TCP: a third connection is accepted and closed at
 * once while two are served; once one of them has gone, a new one is
 * served again.
 */
static void test_max_clients(void **state)
{
	struct usbip_server_config cfg = {
		.bind = "127.0.0.1", .max_clients = 2,
	};
	struct usbip_server *saved = use_server(&cfg);
	struct timespec pause = { .tv_nsec = 20000000 };
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	int a, b, x, tries;
	uint16_t port;
	struct usbip_client imp;

	(void)state;
	assert_int_equal(usbip_server_listen(srv), 0);
	assert_int_equal(getsockname(usbip_server_listen_fd(srv),
				     (struct sockaddr *)&sa, &salen), 0);
	port = ntohs(sa.sin_port);
	a = tcp_connect(port);
	usbip_server_accept(srv);
	b = tcp_connect(port);
	usbip_server_accept(srv);
	x = tcp_connect(port);
	usbip_server_accept(srv);
	expect_eof(x, 1000);
	close(x);

	/* both served: a imports, b lists */
	imp.fd = a;
	imp.seq = 1;
	assert_int_equal(import(&imp, "1-1"), 0);
	assert_true(lists_devices(b));
	close(b);	/* the server closes after the list anyway */

	/* a slot is free once b's thread is done */
	for (tries = 0; tries < 100; tries++) {
		x = tcp_connect(port);
		usbip_server_accept(srv);
		if (lists_devices(x))
			break;
		close(x);
		nanosleep(&pause, NULL);
	}
	assert_true(tries < 100);
	close(x);
	close(a);
	restore_server(saved);
}

/*
 * The fuzzers' seam: without pacing, 0.4 s of bus time completes at
 * once, and the stream still advances (frames come out).
 */
static void test_no_pacing(void **state)
{
	static uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	struct usbip_server_config cfg = { .no_pacing = true };
	struct usbip_server *saved = use_server(&cfg);
	struct usbip_ret ret;
	uint64_t t0, bytes = 0;
	struct usbip_client c;
	uint32_t i;

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_camera(&c);
	t0 = now_ns();
	for (i = 0; i < 100; i++) {
		submit_iso(&c, NP, PKT);
		recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
		bytes += ret.data_len;
	}
	assert_true(ms_since(t0) < 300);
	assert_true(bytes >= 160 * 120 * 10);	/* 60 fps: 24 frames in 0.4 s */
	conn_close(&c);
	restore_server(saved);
}

/*
 * The replies of 60 iso URBs, PTS and SCR blanked (they count from when
 * the first URB came), appended to out; their length. A fault spec makes
 * packets drop, lie and carry long frames' filler.
 */
static size_t wire_capture(bool copy, const char *faults, uint8_t *out,
			   size_t cap)
{
	static uint8_t buf[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	/*
	 * Bus time still follows the host's clock without pacing: a test
	 * thread the host stalls would skip microframes in one capture and
	 * not the other. A tolerance far above any stall pauses the bus
	 * clock instead, so both captures see the same microframes.
	 */
	struct usbip_server_config cfg = {
		.no_pacing = true, .copy_packets = copy, .camera.fault_spec = faults,
		.late_tolerance_ms = 60000,
	};
	struct usbip_server *saved = use_server(&cfg);
	struct usbip_ret ret;
	struct usbip_client c;
	size_t len = 0, n;
	uint32_t i, p, at;

	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_camera(&c);
	for (i = 0; i < 60; i++) {
		submit_iso(&c, NP, PKT);
		recv_ret(&c, true, true, NP, &ret, buf, sizeof(buf));
		for (p = 0, at = 0; p < NP; p++) {
			struct usbip_iso_desc d;

			usbip_iso_desc_decode(ret.iso_descs +
					      p * USBIP_ISO_DESC_LEN, &d);
			if (d.actual_length >= ISOCAM_PH_LEN_FULL)
				memset(buf + USBIP_HEADER_LEN + at +
				       ISOCAM_PH_OFF_PTS, 0,
				       ISOCAM_PH_LEN_FULL - ISOCAM_PH_OFF_PTS);
			at += d.actual_length;
		}
		n = USBIP_HEADER_LEN + ret.data_len + NP * USBIP_ISO_DESC_LEN;
		assert_true(len + n <= cap);
		memcpy(out + len, buf, n);
		len += n;
	}
	conn_close(&c);
	restore_server(saved);
	return len;
}

/*
 * Sent from the frame buffer or copied (the path hostile modes take), a
 * session puts the same bytes on the wire: frames, FID, EOF and, with
 * faults, dropped packets, ERR, corrupt headers, short and long frames.
 */
static void test_wire_same_copied(void **state)
{
	static const char *const faults[] = {
		NULL, "drop=1/7,corrupt=1/5,err=1/3,short=1/3,long=1/2",
	};
	size_t cap = 60 * (USBIP_HEADER_LEN + NP * PKT +
			   NP * USBIP_ISO_DESC_LEN);
	uint8_t *a = malloc(cap), *b = malloc(cap);
	unsigned int k;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (k = 0; k < 2; k++) {
		size_t la = wire_capture(true, faults[k], a, cap);
		size_t lb = wire_capture(false, faults[k], b, cap);

		/* 60 x 4 ms at 60 fps: ~14 frames of 160x120 */
		assert_true(la > 10 * 160 * 120);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
	}
	free(a);
	free(b);
}

/*
 * --- the bulk transport (--transport=bulk; wire rules in isocam/usb.h) ---
 */

#define BULK_MAX	ISOCAM_USB_BULK_MAX_PAYLOAD

static uint32_t submit_bulk_dir(struct usbip_client *c, uint32_t tbl,
				uint32_t dir)
{
	struct usbip_header h;

	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = c->seq++;
	h.direction = dir;
	h.ep = ISOCAM_USB_BULK_EP_ADDR & 0x0f;
	h.u.cmd_submit.transfer_buffer_length = (int32_t)tbl;
	h.u.cmd_submit.number_of_packets = 0;	/* what vhci sends for bulk */
	if (dir == USBIP_DIR_OUT) {
		uint8_t out[64] = { 0 };

		assert_true(tbl <= sizeof(out));
		send_hdr(c, &h, out, tbl);	/* OUT data follows */
	} else {
		send_hdr(c, &h, NULL, 0);
	}
	return h.seqnum;
}

static uint32_t submit_bulk(struct usbip_client *c, uint32_t tbl)
{
	return submit_bulk_dir(c, tbl, USBIP_DIR_IN);
}

/* A server of bulk cameras for one test. */
static struct usbip_server *use_bulk_server(void)
{
	struct usbip_server_config cfg = {
		.camera.transport = USB_TRANSPORT_BULK,
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
	};

	return use_server(&cfg);
}

/* Configured, 320x240 YUYV at 60 fps; streaming if on. */
static void start_bulk_camera(struct usbip_client *c, bool on)
{
	static const uint8_t fmt[] = { 0x02, 0x00, IC1280_FMT_YUYV };
	static const uint8_t size[] = { 0x02, 0x02, 320 >> 8, 320 & 0xff,
					240 >> 8, 240 & 0xff };
	static const uint8_t fll[] = { 0x03, 0x40, IC1280_FLL_FOR_FPS(60) >> 8,
				       IC1280_FLL_FOR_FPS(60) & 0xff };
	static const uint8_t stream[] = { 0x01, 0x00, IC1280_MODE_STREAMING };
	uint8_t d[64];

	assert_int_equal(ctrl(c, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, d), 0);
	/* bulk has alt 0 alone */
	assert_int_equal(ctrl(c, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      1, 0, 0, d), -32);
	i2c_write(c, fmt, sizeof(fmt));
	i2c_write(c, size, sizeof(size));
	i2c_write(c, fll, sizeof(fll));
	if (on)
		i2c_write(c, stream, sizeof(stream));
}

static void sensor_mode(struct usbip_client *c, uint8_t mode)
{
	const uint8_t m[] = { 0x01, 0x00, mode };

	i2c_write(c, m, sizeof(m));
}

/* Frames as a bulk driver would reassemble them, checked as they end. */
struct bulk_rx {
	uint8_t *data;
	size_t len;
	bool open;
	uint8_t fid;
	uint32_t pts;
	uint32_t xfers;		/* payload transfers of the open frame */
	uint32_t frames;	/* complete frames, each equal to its reference */
	int64_t last_counter;
	uint32_t last_fid;	/* FID of the last complete frame */
};

static uint32_t rd32(const uint8_t *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A complete frame equals the reference render of its own stamp. */
static uint32_t check_bulk_frame(const uint8_t *data, size_t len)
{
	struct scene *sc = scene_new();
	struct scene_params p;
	uint32_t counter, sum;
	uint8_t *ref;

	assert_non_null(sc);
	assert_int_equal(scene_stamp_parse(data, len, &p, &counter, &sum), 0);
	assert_int_equal(len, scene_frame_size(&p));
	assert_int_equal(p.width, 320);
	assert_int_equal(p.format, IC1280_FMT_YUYV);
	assert_int_equal(sum, isocam_stamp_checksum(data + ISOCAM_STAMP_LEN,
						    len - ISOCAM_STAMP_LEN));
	ref = malloc(len);
	assert_non_null(ref);
	assert_int_equal(scene_render(sc, &p, counter, ref), 0);
	assert_memory_equal(ref, data, len);
	free(ref);
	scene_free(sc);
	return counter;
}

/*
 * Receive the RET_SUBMIT of bulk URB seq (tbl bytes) and take its one
 * payload transfer; returns true when it ended a frame.
 */
static bool bulk_recv(struct usbip_client *c, struct bulk_rx *rx, uint32_t seq,
		      uint32_t tbl)
{
	static uint8_t buf[USBIP_HEADER_LEN + BULK_MAX];
	uint32_t room = tbl < BULK_MAX ? tbl : BULK_MAX;
	const uint8_t *x;
	struct usbip_ret ret;
	uint32_t scr, slot, len, exposure;
	uint8_t info;

	recv_ret(c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_SUBMIT);
	assert_int_equal(ret.hdr.seqnum, seq);
	assert_int_equal(ret.hdr.u.ret_submit.status, 0);
	assert_int_equal(ret.hdr.u.ret_submit.number_of_packets, 0);
	len = ret.data_len;
	/* never empty, never past the URB or the contract's maximum */
	assert_true(len > ISOCAM_PH_LEN_FULL && len <= room);
	x = ret.data;
	assert_int_equal(x[ISOCAM_PH_OFF_LEN], ISOCAM_PH_LEN_FULL);
	info = x[ISOCAM_PH_OFF_INFO];
	assert_int_equal(info & (ISOCAM_PH_EOH | ISOCAM_PH_PTS | ISOCAM_PH_SCR |
				 ISOCAM_PH_ERR | ISOCAM_PH_RES),
			 ISOCAM_PH_EOH | ISOCAM_PH_PTS | ISOCAM_PH_SCR);
	if (!rx->open) {
		rx->open = true;
		rx->fid = info & ISOCAM_PH_FID;
		rx->pts = rd32(x + ISOCAM_PH_OFF_PTS);
		rx->len = 0;
		rx->xfers = 0;
		/* FID toggles from one frame to the next, starting at 0 */
		assert_int_equal(rx->fid, rx->frames ? !rx->last_fid : 0);
	}
	assert_int_equal(info & ISOCAM_PH_FID, rx->fid);
	assert_int_equal(rd32(x + ISOCAM_PH_OFF_PTS), rx->pts);
	rx->data = realloc(rx->data, rx->len + len);
	assert_non_null(rx->data);
	memcpy(rx->data + rx->len, x + ISOCAM_PH_LEN_FULL,
	       len - ISOCAM_PH_LEN_FULL);
	rx->len += len - ISOCAM_PH_LEN_FULL;
	scr = rd32(x + ISOCAM_PH_OFF_SCR_STC);
	if (!rx->xfers++) {
		/*
		 * Sent no earlier than the frame's capture slot: PTS is the
		 * slot less the exposure (the stamp's, 100 us units).
		 */
		assert_true(rx->len >= 32);
		exposure = (uint32_t)(rx->data[30] | rx->data[31] << 8) * 100;
		slot = rx->pts + exposure;
		assert_true((int32_t)(scr - slot) >= 0);
	}
	if (!(info & ISOCAM_PH_EOF)) {
		assert_int_equal(len, room);	/* only a frame's last is short */
		return false;
	}
	rx->open = false;
	{
		uint32_t counter = check_bulk_frame(rx->data, rx->len);

		assert_true(rx->last_counter < (int64_t)counter);
		rx->last_counter = counter;
	}
	rx->last_fid = rx->fid;
	rx->frames++;
	return true;
}

/*
 * Bulk IN URBs, 4 in flight as a driver keeps them, reassemble into
 * complete frames equal to their reference render: one payload transfer
 * per URB, full but for each frame's last (EOF), one FID per frame and
 * toggling, no transfer before its frame's capture slot. Smaller URBs
 * carry smaller transfers of the same frames.
 */
static void test_bulk_stream(void **state)
{
	struct usbip_server *saved = use_bulk_server();
	struct bulk_rx rx = { .last_counter = -1 };
	size_t frame = 320 * 240 * 2;
	uint32_t seq[64], head = 0, tail = 0, i, tbl;
	struct usbip_client c;

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_bulk_camera(&c, true);
	for (i = 0; i < IN_FLIGHT; i++)
		seq[tail++ % 64] = submit_bulk(&c, BULK_MAX);
	while (rx.frames < 6) {
		bool eof = bulk_recv(&c, &rx, seq[head++ % 64], BULK_MAX);

		/* three transfers a frame: 65524 + 65524 + the rest */
		if (eof)
			assert_int_equal(rx.xfers,
					 (frame + BULK_MAX - 13) / (BULK_MAX - 12));
		seq[tail++ % 64] = submit_bulk(&c, BULK_MAX);
	}
	/* drain, then 4 KiB URBs: one payload transfer of 4 KiB each */
	while (head != tail)
		bulk_recv(&c, &rx, seq[head++ % 64], BULK_MAX);
	tbl = 4096;
	i = rx.frames;
	while (rx.frames < i + 3) {
		uint32_t s = submit_bulk(&c, tbl);

		if (bulk_recv(&c, &rx, s, tbl) && rx.frames > i + 1)
			assert_int_equal(rx.xfers, (frame + tbl - 13) / (tbl - 12));
	}
	/* a URB above the maximum still gets at most the maximum */
	while (rx.open)
		bulk_recv(&c, &rx, submit_bulk(&c, tbl), tbl);
	bulk_recv(&c, &rx, submit_bulk(&c, 2 * BULK_MAX), 2 * BULK_MAX);
	free(rx.data);
	conn_close(&c);
	restore_server(saved);
}

/*
 * A bulk URB waits while no frame is in the buffer (never an empty
 * completion) and control URBs are answered meanwhile; an unlink of a
 * waiting one answers -ECONNRESET and no RET_SUBMIT ever follows, also
 * when the unlink came first; a completed one's unlink answers 0.
 */
static void test_bulk_wait_and_unlink(void **state)
{
	static uint8_t buf[USBIP_HEADER_LEN + BULK_MAX];
	struct usbip_server *saved = use_bulk_server();
	struct bulk_rx rx = { .last_counter = -1 };
	uint32_t a, b, unlink_seq, ctrl_seq;
	struct usbip_ret ret;
	struct usbip_client c;

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	start_bulk_camera(&c, false);		/* sensor in standby */

	a = submit_bulk(&c, BULK_MAX);
	assert_false(readable_within(c.fd, 150));
	ctrl_seq = submit_ctrl(&c, USB_DIR_IN | USB_TYPE_VENDOR |
			       USB_RECIP_INTERFACE, ISOCAM_REQ_GET_STATUS, 0,
			       0, 16, NULL);
	recv_ret(&c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, ctrl_seq);
	assert_int_equal(ret.data[3], 0);	/* alt 0 */
	/* unlinked while waiting: -ECONNRESET, and never a RET_SUBMIT */
	send_unlink(&c, a, &unlink_seq);
	recv_ret(&c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.seqnum, unlink_seq);
	assert_int_equal(ret.hdr.u.ret_unlink.status, -ECONNRESET);
	assert_false(readable_within(c.fd, 50));

	/* the sensor streams: the waiting URB gets frame 0's first transfer */
	b = submit_bulk(&c, BULK_MAX);
	assert_false(readable_within(c.fd, 50));
	sensor_mode(&c, IC1280_MODE_STREAMING);
	assert_false(bulk_recv(&c, &rx, b, BULK_MAX));
	assert_int_equal(rx.fid, 0);

	/* an early unlink (before its URB) cancels the URB when it comes */
	send_unlink(&c, c.seq + 1, &unlink_seq);
	assert_false(readable_within(c.fd, 50));
	a = submit_bulk(&c, BULK_MAX);
	recv_ret(&c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.seqnum, unlink_seq);
	assert_int_equal(ret.hdr.u.ret_unlink.status, -ECONNRESET);
	/* the next URB gets the next transfer: nothing was lost to a */
	b = submit_bulk(&c, BULK_MAX);
	assert_false(bulk_recv(&c, &rx, b, BULK_MAX));
	assert_int_equal(rx.xfers, 2);
	/* a completed URB's unlink: status 0 */
	send_unlink(&c, b, &unlink_seq);
	recv_ret(&c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.command, USBIP_RET_UNLINK);
	assert_int_equal(ret.hdr.u.ret_unlink.status, 0);
	b = submit_bulk(&c, BULK_MAX);
	assert_true(bulk_recv(&c, &rx, b, BULK_MAX));
	assert_int_equal(rx.frames, 1);

	/* standby mid-stream: URBs wait again, then the endpoint goes away */
	b = submit_bulk(&c, BULK_MAX);
	bulk_recv(&c, &rx, b, BULK_MAX);	/* frame 1 has begun */
	sensor_mode(&c, IC1280_MODE_STANDBY);
	b = submit_bulk(&c, BULK_MAX);
	assert_false(readable_within(c.fd, 100));
	assert_int_equal(ctrl(&c, 0, USB_REQ_SET_CONFIGURATION, 0, 0, 0, buf),
			 0);
	recv_ret(&c, true, false, 0, &ret, buf, sizeof(buf));
	assert_int_equal(ret.hdr.seqnum, b);
	assert_int_equal(ret.hdr.u.ret_submit.status, -ESHUTDOWN);
	assert_int_equal(ret.data_len, 0);
	free(rx.data);
	conn_close(&c);
	restore_server(saved);
}

/*
 * A restarted stream begins afresh (FID 0, counter 0); a halted endpoint
 * STALLs; the limits: no URB too small for a header and a byte, at most
 * 64 waiting, nothing unconfigured or OUT; hostile descriptor modes are
 * refused with bulk.
 */
static void test_bulk_limits(void **state)
{
	static uint8_t buf[USBIP_HEADER_LEN + BULK_MAX];
	struct usbip_server_config hcfg = {
		.count = 1, .camera.chip_id = IC1280_CHIP_ID, .camera.seed = 1,
		.camera.transport = USB_TRANSPORT_BULK, .camera.hostile_spec = "desc-bulk",
	};
	struct usbip_server *saved = use_bulk_server();
	struct bulk_rx rx = { .last_counter = -1 };
	struct usbip_client c;
	uint32_t b, i;

	(void)state;
	conn_open(&c);
	assert_int_equal(import(&c, "1-1"), 0);
	b = submit_bulk(&c, BULK_MAX);		/* not configured: no endpoint */
	assert_int_equal(ret_status(&c, b), -EPIPE);
	start_bulk_camera(&c, true);
	b = submit_bulk_dir(&c, 64, USBIP_DIR_OUT);	/* no OUT endpoint */
	assert_int_equal(ret_status(&c, b), -EPIPE);
	b = submit_bulk(&c, ISOCAM_USB_BULK_MIN_URB - 1);
	assert_int_equal(ret_status(&c, b), -EMSGSIZE);

	/* mid-frame, CLEAR_FEATURE(HALT) (a UVC stream off) restarts it */
	assert_false(bulk_recv(&c, &rx, submit_bulk(&c, BULK_MAX), BULK_MAX));
	assert_int_equal(ctrl(&c, USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, buf), 0);
	rx.open = false;
	rx.frames = 0;
	assert_false(bulk_recv(&c, &rx, submit_bulk(&c, BULK_MAX), BULK_MAX));
	assert_int_equal(rx.fid, 0);
	while (!bulk_recv(&c, &rx, submit_bulk(&c, BULK_MAX), BULK_MAX))
		;
	assert_int_equal(rx.last_counter, 0);

	/* halted: a waiting URB ends -EPIPE, a new one is STALLed */
	sensor_mode(&c, IC1280_MODE_STANDBY);
	b = submit_bulk(&c, BULK_MAX);
	assert_int_equal(ctrl(&c, USB_RECIP_ENDPOINT, USB_REQ_SET_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, buf), 0);
	assert_int_equal(ret_status(&c, b), -EPIPE);
	b = submit_bulk(&c, BULK_MAX);
	assert_int_equal(ret_status(&c, b), -EPIPE);
	assert_int_equal(ctrl(&c, USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, buf), 0);

	/* 64 wait (standby), the 65th is refused */
	for (i = 0; i < 64; i++)
		submit_bulk(&c, BULK_MAX);
	b = submit_bulk(&c, BULK_MAX);
	assert_int_equal(ret_status(&c, b), -EMSGSIZE);
	assert_false(readable_within(c.fd, 50));
	free(rx.data);
	conn_close(&c);
	restore_server(saved);

	saved = srv;
	srv = usbip_server_new(&hcfg);
	assert_null(srv);
	srv = saved;
}

static int setup(void **state)
{
	struct usbip_server_config cfg = {
		.bind = "127.0.0.1", .port = 0, .count = 2,
		.camera.chip_id = IC1280_CHIP_ID, .camera.seed = 1,
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
	};

	(void)state;
	srv = usbip_server_new(&cfg);
	return srv ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	usbip_server_free(srv);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devlist),
		cmocka_unit_test(test_import_refusals),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_unlink),
		cmocka_unit_test(test_early_unlink),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_vanish),
		cmocka_unit_test(test_late_host),
		cmocka_unit_test(test_import_malformed),
		cmocka_unit_test(test_devid_check),
		cmocka_unit_test(test_queue_backpressure),
		cmocka_unit_test(test_backpressure_unlinked),
		cmocka_unit_test(test_size_refusals),
		cmocka_unit_test(test_request_timeout),
		cmocka_unit_test(test_first_urb_timeout),
		cmocka_unit_test(test_max_clients),
		cmocka_unit_test(test_bind_warns_off_loopback),
		cmocka_unit_test(test_no_pacing),
		cmocka_unit_test(test_wire_same_copied),
		cmocka_unit_test(test_bulk_stream),
		cmocka_unit_test(test_bulk_wait_and_unlink),
		cmocka_unit_test(test_bulk_limits),
	};

	return cmocka_run_group_tests_name("emu_server", tests, setup, teardown);
}
