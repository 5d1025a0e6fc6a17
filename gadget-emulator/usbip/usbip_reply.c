// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A RET_SUBMIT as a gather list (usbip_reply.h). Pieces name their own
 * bytes by offset, not by pointer, so the own buffer may move while the
 * reply grows; pointers are resolved only when it is sent or flattened.
 */
#include "usbip_reply.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "grow.h"
#include "usbip_proto.h"
#include "video_stream.h"

void usbip_reply_reset(struct usbip_reply *r)
{
	r->own_len = 0;
	r->n_pc = 0;
	r->len = 0;
}

void usbip_reply_free(struct usbip_reply *r)
{
	free(r->own);
	free(r->pc);
	free(r->iov);
	*r = (struct usbip_reply){ 0 };
}

static struct usbip_reply_piece *new_piece(struct usbip_reply *r)
{
	struct usbip_reply_piece *pc = emu_reserve(r->pc, &r->pc_cap,
						   r->n_pc + 1, sizeof(*pc),
						   64);

	if (!pc)
		return NULL;
	r->pc = pc;
	return &r->pc[r->n_pc++];
}

uint8_t *usbip_reply_own(struct usbip_reply *r, size_t len)
{
	struct usbip_reply_piece *last = r->n_pc ? &r->pc[r->n_pc - 1] : NULL;
	uint8_t *own;

	/* a byte more than asked: never a NULL buffer, even for len 0 */
	own = emu_reserve(r->own, &r->own_cap, r->own_len + len + 1, 1, 4096);
	if (!own)
		return NULL;
	r->own = own;
	if (!len)
		return r->own + r->own_len;
	/* right after the last own piece: that piece just grows */
	if (!last || last->ext || last->off + last->len != r->own_len) {
		last = new_piece(r);
		if (!last)
			return NULL;
		*last = (struct usbip_reply_piece){ .off = r->own_len };
	}
	last->len += len;
	r->own_len += len;
	r->len += len;
	return r->own + r->own_len - len;
}

uint8_t *usbip_reply_own_at(struct usbip_reply *r, size_t off)
{
	return r->own + off;
}

int usbip_reply_ref(struct usbip_reply *r, const void *p, size_t len)
{
	struct usbip_reply_piece *pc;

	if (!len)
		return 0;
	pc = new_piece(r);
	if (!pc)
		return -1;
	*pc = (struct usbip_reply_piece){ .ext = p, .len = len };
	r->len += len;
	return 0;
}

void usbip_reply_trim(struct usbip_reply *r, size_t len)
{
	size_t at = 0, i;

	for (i = 0; i < r->n_pc && at + r->pc[i].len <= len; i++)
		at += r->pc[i].len;
	if (i < r->n_pc && at < len)
		r->pc[i++].len = len - at;
	r->n_pc = i;
	r->len = len;
	/* own bytes past the last piece kept are free again */
	r->own_len = 0;
	for (i = 0; i < r->n_pc; i++)
		if (!r->pc[i].ext && r->pc[i].off + r->pc[i].len > r->own_len)
			r->own_len = r->pc[i].off + r->pc[i].len;
}

long usbip_reply_packet(struct usbip_reply *r, struct video_stream *vs,
			uint64_t t_ns, size_t maxlen, bool copy)
{
	struct video_packet p;
	size_t len, start = r->len;
	uint8_t *b;

	if (copy) {
		b = usbip_reply_own(r, maxlen);
		if (!b)
			return -1;
		len = video_stream_packet(vs, t_ns, b, maxlen);
		if (len > maxlen)	/* never trust a callee with vhci's rules */
			len = maxlen;
		usbip_reply_trim(r, r->len - (maxlen - len));
		return (long)len;
	}
	len = video_stream_packet_iov(vs, t_ns, maxlen, &p);
	if (!len)
		return 0;
	b = usbip_reply_own(r, p.head_len);
	if (!b)
		return -1;
	memcpy(b, p.head, p.head_len);
	if (p.data_len && p.held) {
		if (usbip_reply_ref(r, p.data, p.data_len) < 0)
			return -1;
	} else if (p.data_len) {
		/* the pipe could not keep it aside: copied while it is there */
		b = usbip_reply_own(r, p.data_len);
		if (!b)
			return -1;
		memcpy(b, p.data, p.data_len);
	}
	if (p.fill_len) {
		b = usbip_reply_own(r, p.fill_len);
		if (!b)
			return -1;
		memset(b, VIDEO_STREAM_FILLER, p.fill_len);
	}
	if (len > maxlen) {	/* never trust a callee with vhci's rules */
		usbip_reply_trim(r, start + maxlen);
		len = maxlen;
	}
	return (long)len;
}

long usbip_reply_iso_packets(struct usbip_reply *r, struct video_stream *vs,
			     uint64_t start_ns, struct usbip_iso_desc *d,
			     uint32_t np, uint32_t alt_bytes, uint32_t tbl,
			     bool copy)
{
	size_t pos = 0;
	uint32_t i;

	for (i = 0; i < np; i++) {
		size_t maxlen = d[i].length;
		long n = 0;

		if (maxlen > alt_bytes)
			maxlen = alt_bytes;
		if (maxlen > tbl - pos)
			maxlen = tbl - pos;
		if (maxlen)
			n = usbip_reply_packet(r, vs, start_ns +
					       i * USBIP_MICROFRAME_NS,
					       maxlen, copy);
		if (n < 0)
			return -1;
		pos += (size_t)n;
		d[i].actual_length = (uint32_t)n;
	}
	return (long)pos;
}

void usbip_reply_flatten(const struct usbip_reply *r, uint8_t *out)
{
	size_t i;

	for (i = 0; i < r->n_pc; i++) {
		const struct usbip_reply_piece *pc = &r->pc[i];

		memcpy(out, pc->ext ? pc->ext : r->own + pc->off, pc->len);
		out += pc->len;
	}
}

int usbip_reply_send(struct usbip_reply *r, int fd,
		     usbip_reply_sendmsg send_fn)
{
	struct iovec *v = emu_reserve(r->iov, &r->iov_cap,
				      r->n_pc ? r->n_pc : 1, sizeof(*v), 64);
	size_t i, n;

	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	r->iov = v;
	for (i = 0; i < r->n_pc; i++)
		v[i] = (struct iovec){
			.iov_base = (void *)(r->pc[i].ext ? r->pc[i].ext :
					     r->own + r->pc[i].off),
			.iov_len = r->pc[i].len,
		};
	n = r->n_pc;
	while (n) {
		struct msghdr msg = {
			.msg_iov = v,
			.msg_iovlen = n < IOV_MAX ? n : IOV_MAX,
		};
		ssize_t sent = send_fn(fd, &msg, MSG_NOSIGNAL);
		size_t left;

		if (sent < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!sent) {	/* never for a stream socket: do not spin */
			errno = EPIPE;
			return -1;
		}
		/* partial write: go on from the first byte not sent */
		left = (size_t)sent;
		while (n && left >= v->iov_len) {
			left -= v->iov_len;
			v++;
			n--;
		}
		if (n) {
			v->iov_base = (uint8_t *)v->iov_base + left;
			v->iov_len -= left;
		}
	}
	return 0;
}
