// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: random packet streams into the frame assembler, with
 * small random buffers. Whatever the device sends, nothing is read past a
 * packet or written past a buffer (ASan: every packet and buffer is its
 * own exact-size allocation, buffers also carry checked guard bytes), a
 * buffer is returned exactly once, bytesused <= size, and the counters
 * agree with what was delivered.
 *
 * Input: byte 0..1 frame_size (le16, 0..1023; bit 15: compressed frames,
 * any size up to it), byte 2 how buffers are sized, byte 3 how often the
 * queue is empty; then records of one length
 * byte L and L packet bytes. L = 0xff is an event instead: the next byte
 * picks flush, a bus error or a zero-length packet.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isocam_asm.h"

#define GUARD		32
#define GUARD_BYTE	0x5a
#define MAX_OUT		4

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_assembler: %s:%d: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

struct fbuf {
	u8 *mem;		/* size + GUARD bytes */
	u32 size;
	int out;		/* lent and not yet returned */
};

struct ctx {
	struct isocam_assembler a;
	u8 size_mode;
	u8 empty_mode;
	unsigned int gets;
	struct fbuf bufs[MAX_OUT];
	unsigned int outstanding;
	u64 good, returned_bytes;
};

static u32 pick_size(struct ctx *c)
{
	u32 fs = c->a.frame_size;

	switch ((c->size_mode + c->gets) % 6) {
	case 0:
		return fs;
	case 1:
		return fs ? fs - 1 : 0;
	case 2:
		return fs + 1;
	case 3:
		return c->size_mode % 17;
	case 4:
		return fs / 2;
	default:
		return fs + c->size_mode;
	}
}

static bool fz_get_buf(void *priv, struct isocam_asm_buf *buf)
{
	struct ctx *c = priv;
	struct fbuf *fb = NULL;
	unsigned int i;

	c->gets++;
	if (c->empty_mode && c->gets % (c->empty_mode % 5 + 2) == 0)
		return false;
	for (i = 0; i < MAX_OUT; i++)
		if (!c->bufs[i].out)
			fb = &c->bufs[i];
	/* The assembler holds at most one buffer at a time. */
	CHECK(fb);
	CHECK(c->outstanding == 0);
	fb->size = pick_size(c);
	fb->mem = malloc(fb->size + GUARD);
	CHECK(fb->mem);
	memset(fb->mem, GUARD_BYTE, fb->size + GUARD);
	fb->out = 1;
	c->outstanding++;
	buf->cookie = fb;
	buf->vaddr = fb->mem;
	buf->size = fb->size;
	return true;
}

static void fz_buf_done(void *priv, struct isocam_asm_buf *buf, u32 bytesused,
			bool error, bool pts_valid, u32 pts)
{
	struct ctx *c = priv;
	struct fbuf *fb = buf->cookie;
	unsigned int i;

	(void)pts_valid;
	(void)pts;
	CHECK(fb >= c->bufs && fb < c->bufs + MAX_OUT);
	CHECK(fb->out);
	CHECK(buf->vaddr == fb->mem && buf->size == fb->size);
	CHECK(bytesused <= fb->size);
	CHECK(bytesused <= c->a.frame_size);
	if (!error) {
		if (c->a.compressed)
			CHECK(bytesused >= 1);
		else
			CHECK(bytesused == c->a.frame_size);
		c->good++;
	}
	for (i = 0; i < GUARD; i++)
		CHECK(fb->mem[fb->size + i] == GUARD_BYTE);
	c->returned_bytes += bytesused;
	free(fb->mem);
	fb->mem = NULL;
	fb->out = 0;
	c->outstanding--;
}

static const struct isocam_asm_ops fz_ops = {
	.get_buf = fz_get_buf,
	.buf_done = fz_buf_done,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c;
	size_t pos = 4;

	if (size < 4)
		return 0;
	memset(&c, 0, sizeof(c));
	c.size_mode = data[2];
	c.empty_mode = data[3];
	isocam_asm_init(&c.a, &fz_ops, &c, (data[0] | data[1] << 8) & 0x3ff);
	isocam_asm_set_compressed(&c.a, data[1] & 0x80);

	while (pos < size) {
		u32 len = data[pos++];
		u8 *pkt;

		if (len == 0xff) {
			u8 ev = pos < size ? data[pos++] : 0;

			if (ev % 3 == 0)
				isocam_asm_flush(&c.a);
			else if (ev % 3 == 1)
				isocam_asm_packet_error(&c.a);
			else
				isocam_asm_packet(&c.a, NULL, 0);
			continue;
		}
		if (len > size - pos)
			len = size - pos;
		/* An exact-size copy: reading past it is an ASan error. */
		pkt = len ? malloc(len) : NULL;
		if (len) {
			CHECK(pkt);
			memcpy(pkt, data + pos, len);
		}
		isocam_asm_packet(&c.a, pkt, len);
		free(pkt);
		pos += len;
		CHECK(c.outstanding <= 1);
		CHECK(c.a.bytesused <= c.a.frame_size);
		CHECK(!c.a.have_buf || c.a.bytesused <= c.a.buf.size);
	}
	isocam_asm_flush(&c.a);

	/* Every buffer came back, and the counters tell the truth. */
	CHECK(c.outstanding == 0);
	CHECK(c.good == c.a.stats.frames);
	CHECK(c.returned_bytes == c.a.stats.bytes);
	CHECK(c.a.stats.empty_packets <= c.a.stats.packets);
	CHECK(c.a.stats.bad_packets <= c.a.stats.packets);
	return 0;
}
