// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of core/isocam_asm.c: every framing rule of
 * isocam_asm.h, against fake driver buffers fenced by guard bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <isocam/payload.h>
#include "isocam_asm.h"

#define GUARD		64
#define GUARD_BYTE	0xa5
#define MAX_BUFS	16
#define MAX_DONE	16
#define FRAME		100

struct fake_buf {
	u8 *mem;		/* GUARD | size | GUARD */
	u32 size;
};

struct done {
	void *cookie;
	u32 bytesused;
	bool error;
	bool pts_valid;
	u32 pts;
	u8 data[4096];
};

struct fake {
	struct fake_buf bufs[MAX_BUFS];
	unsigned int nbufs;	/* buffers queued */
	unsigned int next;	/* next one get_buf lends */
	unsigned int get_calls;
	unsigned int ndone;
	struct done done[MAX_DONE];
	unsigned int nscr;
	u32 scr[MAX_DONE];
	unsigned int scr_ndone[MAX_DONE];	/* frames done at each SCR */
	struct isocam_assembler a;
};

static bool fake_get_buf(void *priv, struct isocam_asm_buf *buf)
{
	struct fake *f = priv;
	struct fake_buf *fb;

	f->get_calls++;
	if (f->next >= f->nbufs)
		return false;
	fb = &f->bufs[f->next++];
	buf->cookie = fb;
	buf->vaddr = fb->mem ? fb->mem + GUARD : NULL;
	buf->size = fb->size;
	return true;
}

static void fake_buf_done(void *priv, struct isocam_asm_buf *buf,
			  u32 bytesused, bool error, bool pts_valid, u32 pts)
{
	struct fake *f = priv;
	struct fake_buf *fb = buf->cookie;
	struct done *d;

	assert_true(f->ndone < MAX_DONE);
	assert_non_null(fb);
	assert_true(bytesused <= fb->size);
	assert_true(bytesused <= f->a.frame_size);
	d = &f->done[f->ndone++];
	d->cookie = buf->cookie;
	d->bytesused = bytesused;
	d->error = error;
	d->pts_valid = pts_valid;
	d->pts = pts;
	if (bytesused)
		memcpy(d->data, buf->vaddr, bytesused);
}

static void fake_scr(void *priv, u32 stc)
{
	struct fake *f = priv;

	assert_true(f->nscr < MAX_DONE);
	f->scr_ndone[f->nscr] = f->ndone;
	f->scr[f->nscr++] = stc;
}

static const struct isocam_asm_ops fake_ops = {
	.get_buf = fake_get_buf,
	.buf_done = fake_buf_done,
	.scr = fake_scr,
};

static void add_buf(struct fake *f, u32 size)
{
	struct fake_buf *fb;

	assert_true(f->nbufs < MAX_BUFS);
	fb = &f->bufs[f->nbufs++];

	fb->mem = malloc(size + 2 * GUARD);
	assert_non_null(fb->mem);
	memset(fb->mem, GUARD_BYTE, size + 2 * GUARD);
	fb->size = size;
}

static void assert_guards(const struct fake *f)
{
	unsigned int i, j;

	for (i = 0; i < f->nbufs; i++) {
		const struct fake_buf *fb = &f->bufs[i];

		if (!fb->mem)
			continue;
		for (j = 0; j < GUARD; j++) {
			assert_int_equal(fb->mem[j], GUARD_BYTE);
			assert_int_equal(fb->mem[GUARD + fb->size + j],
					 GUARD_BYTE);
		}
	}
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	isocam_asm_init(&f->a, &fake_ops, f, FRAME);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	unsigned int i;

	assert_guards(f);
	for (i = 0; i < f->nbufs; i++)
		free(f->bufs[i].mem);
	free(f);
	return 0;
}

/* Payload byte n of a frame: a pattern that catches misplaced copies. */
static u8 pat(u32 n)
{
	return (u8)(n * 7 + 3);
}

/*
 * Send a packet: a header of hlen bytes with info (EOH added), then n
 * payload bytes of the pattern starting at frame offset off. A 12-byte
 * header's SCR source clock is pts + 1000.
 */
static void send_hdr(struct fake *f, u8 hlen, u8 info, u32 pts, u32 off,
		     u32 n)
{
	u8 pkt[4096];
	u32 i;

	assert_true(hlen + n <= sizeof(pkt));
	memset(pkt, 0, hlen);
	pkt[0] = hlen;
	pkt[1] = info | ISOCAM_PH_EOH;
	if (hlen >= ISOCAM_PH_LEN_PTS) {
		pkt[2] = (u8)pts;
		pkt[3] = (u8)(pts >> 8);
		pkt[4] = (u8)(pts >> 16);
		pkt[5] = (u8)(pts >> 24);
	}
	if (hlen >= ISOCAM_PH_LEN_FULL) {
		pkt[6] = (u8)(pts + 1000);
		pkt[7] = (u8)((pts + 1000) >> 8);
		pkt[8] = (u8)((pts + 1000) >> 16);
		pkt[9] = (u8)((pts + 1000) >> 24);
	}
	for (i = 0; i < n; i++)
		pkt[hlen + i] = pat(off + i);
	isocam_asm_packet(&f->a, pkt, hlen + n);
}

static void send(struct fake *f, u8 info, u32 off, u32 n)
{
	send_hdr(f, ISOCAM_PH_LEN_MIN, info, 0, off, n);
}

static void send_raw(struct fake *f, const u8 *pkt, u32 len)
{
	isocam_asm_packet(&f->a, pkt, len);
}

static void assert_pattern(const struct done *d, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		assert_int_equal(d->data[i], pat(i));
}

/* A whole frame with frame-id fid in packets of 40, 40 and 20 bytes. */
static void send_frame(struct fake *f, u8 fid)
{
	send(f, fid, 0, 40);
	send(f, fid, 40, 40);
	send(f, fid | ISOCAM_PH_EOF, 80, 20);
}

static void test_good_frame(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	send_frame(f, 0);
	assert_int_equal(f->ndone, 1);
	assert_ptr_equal(f->done[0].cookie, &f->bufs[0]);
	assert_int_equal(f->done[0].bytesused, FRAME);
	assert_false(f->done[0].error);
	assert_false(f->done[0].pts_valid);
	assert_pattern(&f->done[0], FRAME);
	assert_int_equal(f->a.stats.frames, 1);
	assert_int_equal(f->a.stats.error_frames, 0);
	assert_int_equal(f->a.stats.packets, 3);
	assert_int_equal(f->a.stats.bytes, FRAME);
}

static void test_consecutive_frames(void **state)
{
	struct fake *f = *state;
	unsigned int i;

	for (i = 0; i < 4; i++)
		add_buf(f, FRAME);
	for (i = 0; i < 4; i++)
		send_frame(f, i & 1);
	assert_int_equal(f->ndone, 4);
	for (i = 0; i < 4; i++) {
		assert_ptr_equal(f->done[i].cookie, &f->bufs[i]);
		assert_false(f->done[i].error);
		assert_pattern(&f->done[i], FRAME);
	}
	assert_int_equal(f->a.stats.frames, 4);
	assert_int_equal(f->get_calls, 4);
}

/* FID toggles before EOF: the incomplete frame is delivered as bad. */
static void test_fid_toggle_incomplete(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, 0, 0, 40);
	send(f, 0, 40, 20);
	assert_int_equal(f->ndone, 0);
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 2);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 60);
	assert_pattern(&f->done[0], 60);
	assert_false(f->done[1].error);
	assert_int_equal(f->done[1].bytesused, FRAME);
	assert_pattern(&f->done[1], FRAME);
	assert_int_equal(f->a.stats.short_frames, 1);
	assert_int_equal(f->a.stats.error_frames, 1);
	assert_int_equal(f->a.stats.frames, 1);
}

/* A device that never sets EOF: a complete frame ended by FID is good. */
static void test_fid_toggle_complete(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, 0, 0, 60);
	send(f, 0, 60, 40);
	assert_int_equal(f->ndone, 0);
	send(f, ISOCAM_PH_FID, 0, 60);
	assert_int_equal(f->ndone, 1);
	assert_false(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, FRAME);
	assert_int_equal(f->a.stats.frames, 1);
	assert_int_equal(f->a.stats.short_frames, 0);
}

/* Packets after EOF with the old FID are dropped; the next FID syncs. */
static void test_eof_then_same_fid(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send_frame(f, 0);
	send(f, 0, 0, 30);		/* stray payload */
	send(f, 0, 0, 0);		/* idle header-only packet */
	send(f, ISOCAM_PH_EOF, 0, 10);
	assert_int_equal(f->ndone, 1);
	assert_int_equal(f->get_calls, 1);
	assert_int_equal(f->a.stats.out_of_sync, 2);
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 2);
	assert_false(f->done[1].error);
	assert_pattern(&f->done[1], FRAME);
	assert_int_equal(f->a.stats.frames, 2);
	assert_int_equal(f->a.stats.bytes, 2 * FRAME);
}

static void test_err_bit(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, 0, 0, 40);
	send(f, ISOCAM_PH_ERR, 40, 40);
	send(f, ISOCAM_PH_EOF, 80, 20);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	/* The data still lands; only the flag says it is suspect. */
	assert_int_equal(f->done[0].bytesused, FRAME);
	assert_int_equal(f->a.stats.err_bit, 1);
	assert_int_equal(f->a.stats.error_frames, 1);
	assert_int_equal(f->a.stats.frames, 0);
	/* The error does not leak into the next frame. */
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 2);
	assert_false(f->done[1].error);
}

/* An ERR header-only packet is a bad frame even without payload. */
static void test_err_bit_empty_frame(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	send(f, ISOCAM_PH_ERR | ISOCAM_PH_EOF, 0, 0);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 0);
	assert_int_equal(f->a.stats.error_frames, 1);
	assert_int_equal(f->a.stats.short_frames, 1);
}

static void bad_packet_case(struct fake *f, const u8 *pkt, u32 len,
			    unsigned int expect_bad)
{
	/* A frame in progress, then the bad packet, then the rest. */
	send(f, 0, 0, 50);
	send_raw(f, pkt, len);
	assert_int_equal(f->a.stats.bad_packets, expect_bad);
	send(f, ISOCAM_PH_EOF, 50, 50);
	assert_true(f->done[f->ndone - 1].error);
	/* The bad packet's payload never lands in the buffer. */
	assert_int_equal(f->done[f->ndone - 1].bytesused, FRAME);
	assert_pattern(&f->done[f->ndone - 1], FRAME);
	/* Restart, so that the next case's FID 0 starts a frame. */
	isocam_asm_flush(&f->a);
}

static void test_bad_headers(void **state)
{
	struct fake *f = *state;
	const u8 e = ISOCAM_PH_EOH;
	const u8 fid = ISOCAM_PH_FID;
	/* Every one carries a toggled FID and EOF that must be ignored. */
	const u8 one[] = { 2 };
	const u8 zero_len[] = { 0, e | fid | ISOCAM_PH_EOF, 1, 2, 3 };
	const u8 len3[] = { 3, e | fid | ISOCAM_PH_EOF, 1, 2, 3 };
	const u8 len13[16] = { 13, e | fid | ISOCAM_PH_EOF };
	const u8 beyond[] = { 12, e | fid | ISOCAM_PH_EOF, 1, 2, 3 };
	const u8 no_eoh[] = { 2, fid | ISOCAM_PH_EOF, 1, 2, 3 };
	const u8 res[] = { 2, e | ISOCAM_PH_RES | fid | ISOCAM_PH_EOF, 1 };
	const u8 pts2[] = { 2, e | ISOCAM_PH_PTS | fid | ISOCAM_PH_EOF, 1 };
	const u8 scr6[] = { 6, e | ISOCAM_PH_SCR | fid | ISOCAM_PH_EOF,
			    0, 0, 0, 0, 1 };
	const u8 ff[] = { 0xff, 0xff, 0xff, 0xff };
	const struct {
		const u8 *p;
		u32 len;
	} cases[] = {
		{ one, sizeof(one) }, { zero_len, sizeof(zero_len) },
		{ len3, sizeof(len3) }, { len13, sizeof(len13) },
		{ beyond, sizeof(beyond) }, { no_eoh, sizeof(no_eoh) },
		{ res, sizeof(res) }, { pts2, sizeof(pts2) },
		{ scr6, sizeof(scr6) }, { ff, sizeof(ff) },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		add_buf(f, FRAME);
		bad_packet_case(f, cases[i].p, cases[i].len, i + 1);
		assert_int_equal(f->ndone, i + 1);
	}
	assert_int_equal(f->a.stats.error_frames, ARRAY_SIZE(cases));
	assert_int_equal(f->a.stats.frames, 0);
	assert_int_equal(f->a.stats.packets, 3 * ARRAY_SIZE(cases));
}

/* The legal header lengths with their fields are accepted. */
static void test_header_lengths_ok(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	send_hdr(f, ISOCAM_PH_LEN_FULL, ISOCAM_PH_PTS | ISOCAM_PH_SCR, 1234,
		 0, 30);
	send_hdr(f, ISOCAM_PH_LEN_PTS, ISOCAM_PH_PTS, 1234, 30, 30);
	/* A 12-byte header need not flag its fields. */
	send_hdr(f, ISOCAM_PH_LEN_FULL, 0, 0, 60, 20);
	send_hdr(f, ISOCAM_PH_LEN_MIN, ISOCAM_PH_EOF, 0, 80, 20);
	assert_int_equal(f->a.stats.bad_packets, 0);
	assert_int_equal(f->ndone, 1);
	assert_false(f->done[0].error);
	assert_pattern(&f->done[0], FRAME);
}

/* A bad packet between frames changes nothing. */
static void test_bad_packet_outside_frame(void **state)
{
	struct fake *f = *state;
	const u8 bad[] = { 5, ISOCAM_PH_EOH | ISOCAM_PH_FID, 9, 9, 9 };

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send_frame(f, 0);
	send_raw(f, bad, sizeof(bad));
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->a.stats.bad_packets, 1);
	assert_int_equal(f->ndone, 2);
	assert_false(f->done[1].error);
	assert_int_equal(f->a.stats.frames, 2);
}

/* More data than the frame holds: clamped, flagged, guards intact. */
static void test_overflow(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, 0, 0, 90);
	send(f, 0, 90, 90);
	send(f, 0, 180, 500);
	send(f, ISOCAM_PH_EOF, 680, 20);
	assert_guards(f);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, FRAME);
	assert_pattern(&f->done[0], FRAME);
	assert_int_equal(f->a.stats.overflows, 1);
	assert_int_equal(f->a.stats.short_frames, 0);
	assert_int_equal(f->a.stats.error_frames, 1);
	assert_int_equal(f->a.stats.bytes, FRAME);
	/* A single oversized packet. */
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, 0, 1000);
	assert_guards(f);
	assert_int_equal(f->ndone, 2);
	assert_true(f->done[1].error);
	assert_int_equal(f->done[1].bytesused, FRAME);
	assert_int_equal(f->a.stats.overflows, 2);
}

/* A buffer smaller than the frame: never written past its size. */
static void test_small_buffer(void **state)
{
	struct fake *f = *state;

	add_buf(f, 64);
	send_frame(f, 0);
	assert_guards(f);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 64);
	assert_pattern(&f->done[0], 64);
	assert_int_equal(f->a.stats.overflows, 1);
}

/* A larger buffer: still no more than frame_size bytes written. */
static void test_large_buffer(void **state)
{
	struct fake *f = *state;
	u32 i;

	add_buf(f, 2 * FRAME);
	send(f, 0, 0, 150);
	send(f, ISOCAM_PH_EOF, 150, 10);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, FRAME);
	for (i = FRAME; i < 2 * FRAME; i++)
		assert_int_equal(f->bufs[0].mem[GUARD + i], GUARD_BYTE);
	assert_int_equal(f->a.stats.overflows, 1);
}

/* A buffer without memory is handed back, never written. */
static void test_null_vaddr(void **state)
{
	struct fake *f = *state;

	f->bufs[0].mem = NULL;
	f->bufs[0].size = FRAME;
	f->nbufs = 1;
	send_frame(f, 0);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 0);
}

static void test_short_frame(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	send(f, 0, 0, 40);
	send(f, ISOCAM_PH_EOF, 40, 40);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 80);
	assert_pattern(&f->done[0], 80);
	assert_int_equal(f->a.stats.short_frames, 1);
	assert_int_equal(f->a.stats.error_frames, 1);
	assert_int_equal(f->a.stats.overflows, 0);
}

/* No buffer queued: the frame is discarded and counted once. */
static void test_no_buffer_drop(void **state)
{
	struct fake *f = *state;

	send_frame(f, 0);
	assert_int_equal(f->ndone, 0);
	assert_int_equal(f->a.stats.dropped_frames, 1);
	assert_int_equal(f->a.stats.bytes, 0);
	assert_int_equal(f->get_calls, 1);
	/* A buffer queued mid-frame is not used for the frame's tail. */
	send(f, ISOCAM_PH_FID, 0, 40);
	add_buf(f, FRAME);
	send(f, ISOCAM_PH_FID, 40, 40);
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, 80, 20);
	assert_int_equal(f->ndone, 0);
	assert_int_equal(f->a.stats.dropped_frames, 2);
	assert_int_equal(f->get_calls, 2);
	/* The next frame gets it. */
	send_frame(f, 0);
	assert_int_equal(f->ndone, 1);
	assert_false(f->done[0].error);
	assert_pattern(&f->done[0], FRAME);
	assert_int_equal(f->a.stats.frames, 1);
	assert_int_equal(f->a.stats.dropped_frames, 2);
}

/* Frames without a buffer ended by FID toggles are dropped too. */
static void test_no_buffer_fid_toggle(void **state)
{
	struct fake *f = *state;

	send(f, 0, 0, 40);
	send(f, ISOCAM_PH_FID, 0, 40);
	send(f, 0, 0, 40);
	assert_int_equal(f->a.stats.dropped_frames, 2);
	assert_int_equal(f->ndone, 0);
}

static void test_flush_held_buffer(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send_hdr(f, ISOCAM_PH_LEN_PTS, ISOCAM_PH_PTS, 77, 0, 40);
	isocam_asm_flush(&f->a);
	assert_int_equal(f->ndone, 1);
	assert_ptr_equal(f->done[0].cookie, &f->bufs[0]);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 40);
	assert_true(f->done[0].pts_valid);
	assert_int_equal(f->done[0].pts, 77);
	/* Cut by the stop, not lost on the bus: its own count. */
	assert_int_equal(f->a.stats.stopped_frames, 1);
	assert_int_equal(f->a.stats.error_frames, 0);
	/* Flushing again returns nothing twice. */
	isocam_asm_flush(&f->a);
	assert_int_equal(f->ndone, 1);
	/* A new stream starts afresh, even with the old FID. */
	send_frame(f, 0);
	assert_int_equal(f->ndone, 2);
	assert_false(f->done[1].error);
	assert_pattern(&f->done[1], FRAME);
}

static void test_flush_idle(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	isocam_asm_flush(&f->a);
	assert_int_equal(f->ndone, 0);
	assert_int_equal(f->get_calls, 0);
	send_frame(f, 0);
	isocam_asm_flush(&f->a);
	assert_int_equal(f->ndone, 1);
	assert_int_equal(f->a.stats.frames, 1);
	assert_int_equal(f->a.stats.error_frames, 0);
	assert_int_equal(f->a.stats.stopped_frames, 0);
}

/* A buffer kept from an empty frame is still returned by flush. */
static void test_flush_kept_buffer(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	send(f, ISOCAM_PH_EOF, 0, 0);
	assert_int_equal(f->get_calls, 1);
	assert_int_equal(f->ndone, 0);
	isocam_asm_flush(&f->a);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 0);
	assert_int_equal(f->a.stats.error_frames, 0);
	assert_int_equal(f->a.stats.stopped_frames, 0);
	assert_int_equal(f->a.stats.frames, 0);
}

/*
 * A frame cut by flush without a buffer counts as dropped: it had no
 * buffer from its start, so the stop did not lose it.
 */
static void test_flush_discarding(void **state)
{
	struct fake *f = *state;

	send(f, 0, 0, 40);
	isocam_asm_flush(&f->a);
	assert_int_equal(f->a.stats.dropped_frames, 1);
	assert_int_equal(f->a.stats.stopped_frames, 0);
	assert_int_equal(f->ndone, 0);
}

static void test_zero_length_packets(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	isocam_asm_packet(&f->a, NULL, 0);
	send(f, 0, 0, 40);
	isocam_asm_packet(&f->a, NULL, 0);
	isocam_asm_packet(&f->a, NULL, 0);
	send(f, 0, 40, 40);
	isocam_asm_packet(&f->a, NULL, 0);
	send(f, ISOCAM_PH_EOF, 80, 20);
	assert_int_equal(f->ndone, 1);
	assert_false(f->done[0].error);
	assert_int_equal(f->a.stats.packets, 7);
	assert_int_equal(f->a.stats.empty_packets, 4);
}

/* Header-only packets start and end frames like any other. */
static void test_header_only_packets(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, 0, 0, 0);		/* starts the frame */
	assert_int_equal(f->get_calls, 1);
	send(f, 0, 0, 50);
	send(f, 0, 50, 50);
	send(f, ISOCAM_PH_EOF, 0, 0);	/* ends it */
	assert_int_equal(f->ndone, 1);
	assert_false(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, FRAME);
	assert_pattern(&f->done[0], FRAME);
}

/* An empty frame takes nothing: its buffer serves the next frame. */
static void test_empty_frame_keeps_buffer(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	send(f, ISOCAM_PH_EOF, 0, 0);
	send(f, ISOCAM_PH_FID, 0, 0);
	send(f, 0, 0, 0);
	assert_int_equal(f->ndone, 0);
	assert_int_equal(f->get_calls, 1);
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 1);
	assert_false(f->done[0].error);
	assert_int_equal(f->get_calls, 1);
	assert_int_equal(f->a.stats.frames, 1);
	assert_int_equal(f->a.stats.error_frames, 0);
	assert_int_equal(f->a.stats.dropped_frames, 0);
	assert_int_equal(f->a.stats.short_frames, 0);
}

static void test_pts(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send_hdr(f, ISOCAM_PH_LEN_FULL, ISOCAM_PH_PTS | ISOCAM_PH_SCR,
		 0xdeadbeef, 0, 50);
	send_hdr(f, ISOCAM_PH_LEN_FULL,
		 ISOCAM_PH_PTS | ISOCAM_PH_SCR | ISOCAM_PH_EOF, 0x1111, 50, 50);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].pts_valid);
	assert_int_equal(f->done[0].pts, 0xdeadbeef);
	/* The next frame has none: no stale PTS. */
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 2);
	assert_false(f->done[1].pts_valid);
}

/*
 * Every trusted SCR reaches the scr op, the one of a frame's last packet
 * before that frame is done; a header that lies about its SCR, or a
 * 12-byte header without the SCR bit, gives none.
 */
/*
 * Compressed frames: any size up to frame_size is good when the frame
 * ends with EOF and no error; nothing beyond it, and a frame the next
 * FID cut off before its EOF is bad, however many bytes it had.
 */
static void test_compressed(void **state)
{
	struct fake *f = *state;
	unsigned int i;

	isocam_asm_set_compressed(&f->a, true);
	for (i = 0; i < 6; i++)
		add_buf(f, FRAME);
	send(f, ISOCAM_PH_EOF, 0, 1);				/* 1 byte */
	send(f, ISOCAM_PH_FID, 0, 30);
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, 30, 27);		/* 57 */
	send_frame(f, 0);					/* 100 */
	assert_int_equal(f->ndone, 3);
	assert_int_equal(f->done[0].bytesused, 1);
	assert_int_equal(f->done[1].bytesused, 57);
	assert_pattern(&f->done[1], 57);
	assert_int_equal(f->done[2].bytesused, FRAME);
	for (i = 0; i < 3; i++)
		assert_false(f->done[i].error);
	assert_int_equal(f->a.stats.frames, 3);
	assert_int_equal(f->a.stats.short_frames, 0);

	/* Beyond frame_size: bad, never written past. */
	send(f, ISOCAM_PH_FID, 0, FRAME);
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, FRAME, 1);
	assert_int_equal(f->ndone, 4);
	assert_true(f->done[3].error);
	assert_int_equal(f->a.stats.overflows, 1);
	/* Cut off by the next FID before its EOF: bad. */
	send(f, 0, 0, 40);
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, 0, 10);
	assert_int_equal(f->ndone, 6);
	assert_true(f->done[4].error);
	assert_int_equal(f->done[4].bytesused, 40);
	assert_false(f->done[5].error);
	/* A header-only frame is still no frame; the ERR bit still counts. */
	send(f, ISOCAM_PH_EOF, 0, 0);
	send(f, ISOCAM_PH_FID, 0, 0);
	send(f, 0, 0, 0);
	assert_int_equal(f->ndone, 6);
	add_buf(f, FRAME);
	send(f, ISOCAM_PH_FID | ISOCAM_PH_ERR | ISOCAM_PH_EOF, 0, 0);
	assert_int_equal(f->ndone, 7);
	assert_true(f->done[6].error);
	assert_int_equal(f->a.stats.frames, 4);
	assert_int_equal(f->a.stats.error_frames, 3);
}

static void test_scr(void **state)
{
	struct fake *f = *state;
	const u8 scr6[] = { 6, ISOCAM_PH_EOH | ISOCAM_PH_SCR, 0, 0, 0, 0, 1 };

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send_hdr(f, ISOCAM_PH_LEN_FULL, ISOCAM_PH_PTS | ISOCAM_PH_SCR, 5, 0, 50);
	send_hdr(f, ISOCAM_PH_LEN_FULL, ISOCAM_PH_PTS, 6, 50, 10);
	send_raw(f, scr6, sizeof(scr6));
	send_hdr(f, ISOCAM_PH_LEN_FULL,
		 ISOCAM_PH_SCR | ISOCAM_PH_EOF, 0xfffffff0, 60, 40);
	assert_int_equal(f->nscr, 2);
	assert_int_equal(f->scr[0], 1005);
	assert_int_equal(f->scr[1], 0xfffffff0u + 1000u);
	assert_int_equal(f->scr_ndone[1], 0);
	assert_int_equal(f->ndone, 1);
	/* Without the op, SCRs are simply not reported. */
	f->a.ops = &(const struct isocam_asm_ops){
		.get_buf = fake_get_buf, .buf_done = fake_buf_done,
	};
	send_hdr(f, ISOCAM_PH_LEN_FULL, ISOCAM_PH_SCR | ISOCAM_PH_FID |
		 ISOCAM_PH_EOF, 7, 0, FRAME);
	assert_int_equal(f->nscr, 2);
	assert_int_equal(f->ndone, 2);
}

/* Joining mid-frame: a short bad frame, then frames in sync. */
static void test_first_packet_mid_frame(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, 0, 60, 20);
	send(f, ISOCAM_PH_EOF, 80, 20);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->done[0].bytesused, 40);
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 2);
	assert_false(f->done[1].error);
	assert_pattern(&f->done[1], FRAME);
}

/* The first packet starts a frame whichever FID it has. */
static void test_first_packet_fid1(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 1);
	assert_false(f->done[0].error);
}

static void test_packet_error(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, 0, 0, 40);
	isocam_asm_packet_error(&f->a);
	send(f, 0, 40, 40);
	send(f, ISOCAM_PH_EOF, 80, 20);
	assert_int_equal(f->ndone, 1);
	assert_true(f->done[0].error);
	assert_int_equal(f->a.stats.bus_errors, 1);
	/* Between frames it marks nothing: sizes catch a lost start. */
	isocam_asm_packet_error(&f->a);
	send_frame(f, ISOCAM_PH_FID);
	assert_int_equal(f->ndone, 2);
	assert_false(f->done[1].error);
	assert_int_equal(f->a.stats.bus_errors, 2);
}

/* FID toggle and EOF in one packet: a one-packet frame. */
static void test_single_packet_frame(void **state)
{
	struct fake *f = *state;

	add_buf(f, FRAME);
	add_buf(f, FRAME);
	add_buf(f, FRAME);
	send(f, ISOCAM_PH_EOF, 0, FRAME);
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, 0, FRAME);
	send(f, ISOCAM_PH_EOF, 0, FRAME);
	assert_int_equal(f->ndone, 3);
	assert_false(f->done[0].error);
	assert_false(f->done[1].error);
	assert_false(f->done[2].error);
	assert_pattern(&f->done[2], FRAME);
	assert_int_equal(f->a.stats.frames, 3);
}

/* A mixed stream, checked against every counter. */
static void test_stats(void **state)
{
	struct fake *f = *state;
	const u8 bad[] = { 7, ISOCAM_PH_EOH };
	unsigned int i;

	for (i = 0; i < 4; i++)
		add_buf(f, FRAME);
	send_frame(f, 0);				/* good */
	isocam_asm_packet(&f->a, NULL, 0);		/* empty */
	send(f, ISOCAM_PH_FID, 0, 30);
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, 30, 30);	/* short */
	send(f, 0, 0, 70);
	send(f, ISOCAM_PH_ERR, 70, 70);			/* overflow + err */
	send(f, ISOCAM_PH_FID, 0, 50);			/* ends it */
	send_raw(f, bad, sizeof(bad));			/* bad packet */
	send(f, ISOCAM_PH_FID | ISOCAM_PH_EOF, 50, 50);	/* error frame */
	send_frame(f, 0);				/* no buffer */
	send(f, 0, 0, 5);				/* out of sync */

	assert_int_equal(f->a.stats.packets, 15);
	assert_int_equal(f->a.stats.empty_packets, 1);
	assert_int_equal(f->a.stats.bad_packets, 1);
	assert_int_equal(f->a.stats.bytes, 100 + 60 + 100 + 100);
	assert_int_equal(f->a.stats.frames, 1);
	assert_int_equal(f->a.stats.error_frames, 3);
	assert_int_equal(f->a.stats.dropped_frames, 1);
	assert_int_equal(f->a.stats.err_bit, 1);
	assert_int_equal(f->a.stats.overflows, 1);
	assert_int_equal(f->a.stats.short_frames, 1);
	assert_int_equal(f->a.stats.out_of_sync, 1);
	assert_int_equal(f->a.stats.bus_errors, 0);
	assert_int_equal(f->ndone, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_good_frame),
		T(test_consecutive_frames),
		T(test_fid_toggle_incomplete),
		T(test_fid_toggle_complete),
		T(test_eof_then_same_fid),
		T(test_err_bit),
		T(test_err_bit_empty_frame),
		T(test_bad_headers),
		T(test_header_lengths_ok),
		T(test_bad_packet_outside_frame),
		T(test_overflow),
		T(test_small_buffer),
		T(test_large_buffer),
		T(test_null_vaddr),
		T(test_short_frame),
		T(test_no_buffer_drop),
		T(test_no_buffer_fid_toggle),
		T(test_flush_held_buffer),
		T(test_flush_idle),
		T(test_flush_kept_buffer),
		T(test_flush_discarding),
		T(test_zero_length_packets),
		T(test_header_only_packets),
		T(test_empty_frame_keeps_buffer),
		T(test_pts),
		T(test_scr),
		T(test_compressed),
		T(test_first_packet_mid_frame),
		T(test_first_packet_fid1),
		T(test_packet_error),
		T(test_single_packet_frame),
		T(test_stats),
#undef T
	};

	return cmocka_run_group_tests_name("core_assembler", tests, NULL,
					   NULL);
}
