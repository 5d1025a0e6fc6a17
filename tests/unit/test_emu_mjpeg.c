// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of gadget-emulator/picture/mjpeg.c: every frame is a valid baseline
 * JPEG of the scene at its scroll, its stamp rides in the COM segment,
 * and rotating restart-marked MCUs is exact: a frame scrolled by r + 16k
 * pixels decodes to the frame scrolled by r, rotated by 16k pixels.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>

#include "jpeg_decode.h"
#include "mjpeg.h"
#include "scene.h"

#define CAP	(1280 * 960 * 2)

/* Decode, or NULL if libjpeg finds anything wrong. */
static uint8_t *decode(const uint8_t *jpg, size_t len, unsigned int w,
		       unsigned int h)
{
	uint8_t *img = malloc((size_t)w * h * 3);

	assert_non_null(img);
	if (jpeg_decode_ycc(jpg, len, w, h, img)) {
		free(img);
		return NULL;
	}
	return img;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

struct fixture {
	struct mjpeg *m;
	struct scene *sc;
	uint8_t *out;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = mjpeg_new();
	f->sc = scene_new();
	f->out = malloc(CAP);
	assert_non_null(f->m);
	assert_non_null(f->sc);
	assert_non_null(f->out);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	mjpeg_free(f->m);
	scene_free(f->sc);
	free(f->out);
	free(f);
	return 0;
}

/* The stamp says what the frame is, and its checksum covers SOS..EOI. */
static void check_stamp(const uint8_t *jpg, size_t len,
			const struct scene_params *p, uint32_t counter,
			uint8_t quality)
{
	const uint8_t *s = mjpeg_stamp(jpg, len);
	size_t sos = (size_t)(s - jpg) + ISOCAM_STAMP_LEN;
	struct scene_params q;
	uint32_t cnt, sum;

	assert_non_null(s);
	assert_int_equal(mjpeg_frame_len(jpg, len + 100), len);
	assert_int_equal(mjpeg_frame_len(jpg, len - 1), 0);
	assert_memory_equal(s, ISOCAM_STAMP_MAGIC, 4);
	assert_int_equal(le32(s + ISOCAM_STAMP_OFF_COUNTER), counter);
	assert_int_equal(le32(s + ISOCAM_STAMP_OFF_SIZEIMAGE), len);
	assert_int_equal(le32(s + ISOCAM_STAMP_OFF_CHECKSUM),
			 isocam_stamp_checksum(jpg + sos, len - sos));
	assert_int_equal(s[ISOCAM_STAMP_OFF_FORMAT], p->format);
	assert_true(s[ISOCAM_STAMP_OFF_FLAGS] & ISOCAM_STAMP_FLAG_JPEG);
	assert_int_equal(s[ISOCAM_STAMP_OFF_JPEG_QUALITY], quality);
	assert_int_equal(s[ISOCAM_STAMP_OFF_BRIGHTNESS], (uint8_t)p->brightness);
	assert_int_equal(jpg[len - 2], 0xff);
	assert_int_equal(jpg[len - 1], 0xd9);
	/* scene_stamp_parse() reads it as a JPEG's: its size is the frame's. */
	assert_int_equal(scene_stamp_parse(s, len, &q, &cnt, &sum), 0);
	assert_int_equal(q.jpeg_quality, quality);
	assert_int_equal(cnt, counter);
	assert_true(scene_same_image(&q, p));
	assert_int_equal(scene_stamp_parse(s, len + 1, &q, &cnt, &sum), -1);
}

/* PSNR of luma and chroma against the scene's pixels at that scroll. */
static void check_psnr(struct scene *sc, const struct scene_params *p,
		       uint32_t shift, const uint8_t *ycc, double min_db)
{
	uint8_t *ref = malloc(scene_frame_size(p));
	double y, c;

	assert_non_null(ref);
	assert_int_equal(scene_render_pixels(sc, p, shift, ref), 0);
	jpeg_psnr_yuyv(ycc, ref, p->width, p->height, &y, &c);
	free(ref);
	assert_true(y > min_db);
	assert_true(c > min_db);
}

/*
 * Frames of one scroll cycle: each a JPEG of the scene at its scroll,
 * and exactly the first frame of its sub-MCU scroll rotated by whole MCUs.
 */
static void rotation_exact(struct fixture *f, struct scene_params p,
			   uint8_t quality)
{
	unsigned int w = p.width, h = p.height, r;
	uint8_t *first[16] = { 0 };
	uint32_t c;
	unsigned long enc0 = mjpeg_encodes(f->m);

	for (c = 0; c < 200; c += 7) {
		uint32_t shift = scene_shift(&p, c);
		size_t len = mjpeg_frame(f->m, f->sc, &p, quality, c, f->out, CAP);
		uint8_t *img;
		size_t y, x;

		assert_true(len > 0);
		check_stamp(f->out, len, &p, c, quality);
		img = decode(f->out, len, w, h);
		assert_non_null(img);
		r = shift % 16;
		if (!first[r]) {
			/* Its own scroll's first: a real picture of the scene. */
			check_psnr(f->sc, &p, shift, img, 30);
			/* ...from here on, compare un-rotated. */
			first[r] = malloc((size_t)w * h * 3);
			assert_non_null(first[r]);
			for (y = 0; y < h; y++)
				for (x = 0; x < w; x++)
					memcpy(first[r] + (y * w + (x + shift - r) % w) * 3,
					       img + (y * w + x) * 3, 3);
		} else {
			for (y = 0; y < h; y++)
				for (x = 0; x < w; x++)
					assert_memory_equal(img + (y * w + x) * 3,
							    first[r] + (y * w + (x + shift - r) % w) * 3,
							    3);
		}
		free(img);
	}
	/* One real encode per scroll within an MCU column, no more. */
	assert_true(mjpeg_encodes(f->m) - enc0 <= 16);
	for (r = 0; r < 16; r++)
		free(first[r]);
}

static void test_rotation_exact(void **state)
{
	struct fixture *f = *state;
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 320, 240);

	rotation_exact(f, p, 85);
	p.flip = IC1280_FLIP_H | IC1280_FLIP_V;
	rotation_exact(f, p, 50);
}

static void test_large(void **state)
{
	struct fixture *f = *state;
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 1280, 960);
	size_t len;

	assert_int_equal(mjpeg_prepare(f->m, f->sc, &p, 85), 0);
	/* 1280 wide scrolls 4 pixels a frame: 4 positions in an MCU. */
	assert_int_equal(mjpeg_encodes(f->m), 4);
	len = mjpeg_frame(f->m, f->sc, &p, 85, 123, f->out, CAP);
	assert_true(len > 0);
	print_message("1280x960 q85: %zu bytes (raw %u)\n", len, 1280 * 960 * 2);
	/* Comfortably inside what 3 x 1024 bytes a microframe carry at 30 fps. */
	assert_true(len < 24576000 / 30);
	check_stamp(f->out, len, &p, 123, 85);
	assert_int_equal(mjpeg_encodes(f->m), 4);
}

/* Quality and picture changes re-encode; stamp-only changes do not. */
static void test_cache(void **state)
{
	struct fixture *f = *state;
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 160, 120);
	size_t q85, q20;
	unsigned long e;

	q85 = mjpeg_frame(f->m, f->sc, &p, 85, 0, f->out, CAP);
	e = mjpeg_encodes(f->m);
	assert_int_equal(e, 1);
	assert_true(mjpeg_frame(f->m, f->sc, &p, 85, 0, f->out, CAP) == q85);
	assert_int_equal(mjpeg_encodes(f->m), e);
	q20 = mjpeg_frame(f->m, f->sc, &p, 20, 0, f->out, CAP);
	assert_int_equal(mjpeg_encodes(f->m), ++e);
	assert_true(q20 < q85);
	p.aec = !p.aec;
	p.frame_length++;
	assert_true(mjpeg_frame(f->m, f->sc, &p, 20, 0, f->out, CAP) == q20);
	assert_int_equal(mjpeg_encodes(f->m), e);
	p.brightness = 40;
	assert_true(mjpeg_frame(f->m, f->sc, &p, 20, 0, f->out, CAP) > 0);
	assert_int_equal(mjpeg_encodes(f->m), ++e);
}

static void test_refused(void **state)
{
	struct fixture *f = *state;
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 160, 120);
	struct scene_params rgb = scene_params_default(IC1280_FMT_RGB565, 160, 120);
	struct scene_params odd = scene_params_default(IC1280_FMT_YUYV, 168, 120);
	size_t len = mjpeg_frame(f->m, f->sc, &p, 85, 3, f->out, CAP);

	assert_true(len > 0);
	assert_int_equal(mjpeg_frame(f->m, f->sc, &p, 85, 3, f->out, len - 1), 0);
	assert_int_equal(mjpeg_frame(f->m, f->sc, &p, 85, 3, f->out, len), len);
	assert_int_equal(mjpeg_frame(f->m, f->sc, &p, 0, 3, f->out, CAP), 0);
	assert_int_equal(mjpeg_frame(f->m, f->sc, &p, 101, 3, f->out, CAP), 0);
	assert_int_equal(mjpeg_frame(f->m, f->sc, &rgb, 85, 3, f->out, CAP), 0);
	assert_int_equal(mjpeg_frame(f->m, f->sc, &odd, 85, 3, f->out, CAP), 0);
	assert_false(mjpeg_can_encode(&rgb));
	assert_false(mjpeg_can_encode(&odd));
}

static void test_full_range(void **state)
{
	(void)state;
	assert_int_equal(mjpeg_full_range(16, 0), 0);
	assert_int_equal(mjpeg_full_range(235, 2), 255);
	assert_int_equal(mjpeg_full_range(0, 0), 0);
	assert_int_equal(mjpeg_full_range(255, 0), 255);
	assert_int_equal(mjpeg_full_range(126, 0), 128);
	assert_int_equal(mjpeg_full_range(128, 1), 128);
	assert_int_equal(mjpeg_full_range(16, 3), 0);
	assert_int_equal(mjpeg_full_range(240, 1), 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_range),
		cmocka_unit_test_setup_teardown(test_rotation_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	return cmocka_run_group_tests_name("emu_mjpeg", tests, NULL, NULL);
}
