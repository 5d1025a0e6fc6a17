// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of core/isocam_bulk_xfer.c: the bulk endpoint descriptor is
 * refused for any field a high-speed bulk IN endpoint cannot have, a
 * completed bulk URB is read only up to what was submitted, and payload
 * transfers cut as the contract says (include/isocam/usb.h) assemble
 * into whole frames, one transfer fed as one payload.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <isocam/payload.h>
#include <isocam/usb.h>

#include "isocam_bulk_xfer.h"
#include "isocam_asm.h"

#define GOOD_ADDR	ISOCAM_USB_BULK_EP_ADDR
#define GOOD_ATTR	ISOCAM_EP_XFER_BULK
#define GOOD_MAXP	ISOCAM_USB_BULK_MAXP
#define MAXPL		ISOCAM_USB_BULK_MAX_PAYLOAD

static void test_ep_good(void **state)
{
	(void)state;
	assert_null(isocam_bulk_xfer_ep_problem(GOOD_ADDR, GOOD_ATTR, GOOD_MAXP));
	/* any endpoint number 1-15 will do */
	assert_null(isocam_bulk_xfer_ep_problem(0x8f, GOOD_ATTR, GOOD_MAXP));
	assert_null(isocam_bulk_xfer_ep_problem(0x82, GOOD_ATTR, GOOD_MAXP));
}

static void test_ep_bad(void **state)
{
	static const struct {
		u8 addr, attr;
		u16 maxp;
	} bad[] = {
		{ GOOD_ADDR, 0x01, GOOD_MAXP },		/* iso */
		{ GOOD_ADDR, 0x03, GOOD_MAXP },		/* interrupt */
		{ GOOD_ADDR, 0x00, GOOD_MAXP },		/* control */
		{ GOOD_ADDR, 0x06, GOOD_MAXP },		/* bulk + sync bits */
		{ GOOD_ADDR, 0x82, GOOD_MAXP },		/* reserved bit 7 */
		{ 0x01, GOOD_ATTR, GOOD_MAXP },		/* OUT */
		{ 0x91, GOOD_ATTR, GOOD_MAXP },		/* reserved address bit */
		{ 0xf1, GOOD_ATTR, GOOD_MAXP },
		{ 0x80, GOOD_ATTR, GOOD_MAXP },		/* endpoint 0 */
		{ GOOD_ADDR, GOOD_ATTR, 0 },		/* nothing fits */
		{ GOOD_ADDR, GOOD_ATTR, 64 },		/* full-speed size */
		{ GOOD_ADDR, GOOD_ATTR, 1024 },		/* superspeed size */
		{ GOOD_ADDR, GOOD_ATTR, 511 },
		{ GOOD_ADDR, GOOD_ATTR, 0x7ff },
		{ GOOD_ADDR, GOOD_ATTR, 0x0800 | 512 },	/* mult bits */
		{ GOOD_ADDR, GOOD_ATTR, 0x1000 | 512 },
		{ GOOD_ADDR, GOOD_ATTR, 0x8000 | 512 },	/* reserved top bit */
		{ GOOD_ADDR, GOOD_ATTR, 0xffff },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *why = isocam_bulk_xfer_ep_problem(bad[i].addr,
							 bad[i].attr,
							 bad[i].maxp);

		if (!why)
			fail_msg("entry %u (0x%02x 0x%02x 0x%04x) accepted", i,
				 bad[i].addr, bad[i].attr, bad[i].maxp);
		assert_true(why[0] != '\0');
	}
}

static void test_urb_ok(void **state)
{
	u32 len = 77;

	(void)state;
	assert_int_equal(isocam_bulk_xfer_check(MAXPL, MAXPL, MAXPL, &len),
			 ISOCAM_BULK_XFER_OK);
	assert_int_equal(len, MAXPL);
	assert_int_equal(isocam_bulk_xfer_check(13, MAXPL, MAXPL, &len),
			 ISOCAM_BULK_XFER_OK);
	assert_int_equal(len, 13);
	/* a multiple of wMaxPacketSize ends the transfer too (no ZLP) */
	assert_int_equal(isocam_bulk_xfer_check(4 * 512, MAXPL, MAXPL, &len),
			 ISOCAM_BULK_XFER_OK);
	assert_int_equal(len, 4 * 512);
	/* a short URB's buffer */
	assert_int_equal(isocam_bulk_xfer_check(100, 100, 100, &len),
			 ISOCAM_BULK_XFER_OK);
	assert_int_equal(len, 100);
}

static void test_urb_empty(void **state)
{
	u32 len = 77;

	(void)state;
	assert_int_equal(isocam_bulk_xfer_check(0, MAXPL, MAXPL, &len),
			 ISOCAM_BULK_XFER_EMPTY);
	assert_int_equal(len, 0);
}

static void test_urb_beyond(void **state)
{
	static const u32 actual[] = { MAXPL + 1, 0x7fffffffu, 0x80000000u,
				      0xffffffffu };
	unsigned int i;
	u32 len = 77;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(actual); i++) {
		assert_int_equal(isocam_bulk_xfer_check(actual[i], MAXPL, MAXPL,
						   &len), ISOCAM_BULK_XFER_BAD);
		assert_int_equal(len, 0);
	}
	/* beyond what was submitted, though the buffer is larger */
	assert_int_equal(isocam_bulk_xfer_check(101, 100, MAXPL, &len),
			 ISOCAM_BULK_XFER_BAD);
	/* beyond the buffer, though a larger length was submitted */
	assert_int_equal(isocam_bulk_xfer_check(101, MAXPL, 100, &len),
			 ISOCAM_BULK_XFER_BAD);
	/* beyond the contract's maximum, whatever the buffers */
	assert_int_equal(isocam_bulk_xfer_check(MAXPL + 1, 2 * MAXPL, 2 * MAXPL,
					   &len), ISOCAM_BULK_XFER_BAD);
	assert_int_equal(len, 0);
}

static void test_fits(void **state)
{
	(void)state;
	assert_true(isocam_bulk_xfer_capacity() == 13ULL * 512 * 8000);
	/* 640x480 YUYV at 30 fps: 18.4 MB/s */
	assert_true(isocam_bulk_xfer_fits(640 * 480 * 2, 1, 30));
	/* 1280x960 YUYV at 15 fps: 36.9 MB/s */
	assert_true(isocam_bulk_xfer_fits(1280 * 960 * 2, 1, 15));
	/* 1280x960 YUYV at 30 fps: 73.7 MB/s, beyond high speed */
	assert_false(isocam_bulk_xfer_fits(1280 * 960 * 2, 1, 30));
	/* the margin: just under the capacity does not fit */
	assert_false(isocam_bulk_xfer_fits(13 * 512 * 8000 - 1000, 1, 1));
	assert_false(isocam_bulk_xfer_fits(1000, 0, 30));
	assert_false(isocam_bulk_xfer_fits(1000, 1, 0));
	assert_false(isocam_bulk_xfer_fits(0xffffffffu, 1, 0xffffffffu));
}

/* ---- transfers as the contract cuts them, into the assembler ---- */

#define FW	64
#define FH	2050	/* a frame of 2 full transfers and a short one */
#define FSIZE	(FW * FH)

static u8 frame_buf[FSIZE];
static unsigned int frames_done, frames_bad;
static u32 last_used;
static bool last_pts_valid;
static u32 last_pts;
static unsigned int scr_samples;

static bool t_get_buf(void *priv, struct isocam_asm_buf *ab)
{
	(void)priv;
	ab->cookie = frame_buf;
	ab->vaddr = frame_buf;
	ab->size = sizeof(frame_buf);
	return true;
}

static void t_buf_done(void *priv, struct isocam_asm_buf *ab, u32 used,
		       bool error, bool pts_valid, u32 pts)
{
	(void)priv;
	(void)ab;
	if (error)
		frames_bad++;
	else
		frames_done++;
	last_used = used;
	last_pts_valid = pts_valid;
	last_pts = pts;
}

static void t_scr(void *priv, u32 stc)
{
	(void)priv;
	(void)stc;
	scr_samples++;
}

static const struct isocam_asm_ops t_ops = {
	.get_buf = t_get_buf,
	.buf_done = t_buf_done,
	.scr = t_scr,
};

static u8 xfer[MAXPL];

/* One frame's transfers, each fed as one payload, as the driver does. */
static unsigned int send_frame(struct isocam_assembler *a, int fid, u32 pts,
			       u32 urb_len)
{
	u32 off = 0, room = urb_len - ISOCAM_PH_LEN_FULL;
	unsigned int n = 0;

	while (off < FSIZE) {
		u32 chunk = FSIZE - off < room ? FSIZE - off : room;
		u32 actual, len;
		u8 info = ISOCAM_PH_EOH | ISOCAM_PH_PTS | ISOCAM_PH_SCR | fid;
		u32 i;

		if (off + chunk == FSIZE)
			info |= ISOCAM_PH_EOF;
		xfer[0] = ISOCAM_PH_LEN_FULL;
		xfer[1] = info;
		xfer[2] = pts & 0xff;
		xfer[3] = pts >> 8 & 0xff;
		xfer[4] = pts >> 16 & 0xff;
		xfer[5] = pts >> 24;
		memset(xfer + 6, 0, 6);
		for (i = 0; i < chunk; i++)
			xfer[ISOCAM_PH_LEN_FULL + i] = (u8)(off + i);
		actual = ISOCAM_PH_LEN_FULL + chunk;
		assert_int_equal(isocam_bulk_xfer_check(actual, urb_len, urb_len,
						   &len), ISOCAM_BULK_XFER_OK);
		isocam_asm_packet(a, xfer, len);
		off += chunk;
		n++;
	}
	return n;
}

static void test_assemble(void **state)
{
	struct isocam_assembler a;
	unsigned int f, i;

	(void)state;
	frames_done = 0;
	frames_bad = 0;
	scr_samples = 0;
	isocam_asm_init(&a, &t_ops, NULL, FSIZE);
	for (f = 0; f < 4; f++) {
		unsigned int n = send_frame(&a, f & 1, 1000 + f * 33333,
					    MAXPL);

		assert_int_equal(n, 3);
		assert_int_equal(frames_done, f + 1);
		assert_int_equal(last_used, FSIZE);
		assert_true(last_pts_valid);
		assert_int_equal(last_pts, 1000 + f * 33333);
	}
	assert_int_equal(frames_bad, 0);
	assert_int_equal(scr_samples, 12);
	for (i = 0; i < FSIZE; i++)
		if (frame_buf[i] != (u8)i)
			fail_msg("byte %u is 0x%02x", i, frame_buf[i]);
	/* shorter URBs: more transfers per frame, the same frames */
	send_frame(&a, 0, 5, 4096);
	assert_int_equal(frames_done, 5);
	assert_int_equal(frames_bad, 0);
	assert_int_equal(a.stats.out_of_sync, 0);
	assert_int_equal(a.stats.bad_packets, 0);
}

/* A lost transfer (an errored URB) leaves its frame short: an error. */
static void test_assemble_lost(void **state)
{
	struct isocam_assembler a;

	(void)state;
	frames_done = 0;
	frames_bad = 0;
	isocam_asm_init(&a, &t_ops, NULL, FSIZE);
	send_frame(&a, 0, 1, MAXPL);
	assert_int_equal(frames_done, 1);
	isocam_asm_packet_error(&a);
	/* fid 1's first transfer: the error came before it, nothing lost */
	send_frame(&a, 1, 2, MAXPL);
	assert_int_equal(frames_done, 2);
	/* an error in the middle of a frame makes it bad */
	xfer[0] = ISOCAM_PH_LEN_FULL;
	xfer[1] = ISOCAM_PH_EOH;
	memset(xfer + 2, 0, MAXPL - 2);
	isocam_asm_packet(&a, xfer, MAXPL);
	isocam_asm_packet_error(&a);
	xfer[1] = ISOCAM_PH_EOH | ISOCAM_PH_EOF;
	isocam_asm_packet(&a, xfer, 100);
	assert_int_equal(frames_bad, 1);
	assert_int_equal(frames_done, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ep_good),
		cmocka_unit_test(test_ep_bad),
		cmocka_unit_test(test_urb_ok),
		cmocka_unit_test(test_urb_empty),
		cmocka_unit_test(test_urb_beyond),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_assemble),
		cmocka_unit_test(test_assemble_lost),
	};

	return cmocka_run_group_tests_name("core_bulk", tests, NULL, NULL);
}
