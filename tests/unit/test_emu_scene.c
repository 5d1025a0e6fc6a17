// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The scene renderer: determinism (it is the reference the checker
 * recomputes), the stamp, and that every control is visible and
 * measurable in the next frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>

#include "scene.h"

#define STAMP ISOCAM_STAMP_LEN

/* Render into a fresh buffer (freed by the caller). */
static uint8_t *render(struct scene *sc, const struct scene_params *p,
		       uint32_t counter)
{
	uint8_t *b = malloc(scene_frame_size(p));

	assert_non_null(b);
	assert_int_equal(scene_render(sc, p, counter, b), 0);
	return b;
}

/* Mean of the luma bytes after the first row (the stamp lives there). */
static double mean_luma(const struct scene_params *p, const uint8_t *f)
{
	size_t step = p->format == IC1280_FMT_GREY ? 1 : 2;
	size_t i, n = 0, row = (size_t)p->width * step;
	double sum = 0;

	for (i = row; i < scene_frame_size(p); i += step, n++)
		sum += f[i];
	return sum / n;
}

static double mean_at(const struct scene_params *p, const uint8_t *f,
		      size_t first, size_t step)
{
	size_t i, n = 0;
	double sum = 0;

	for (i = (size_t)p->width * 2 + first; i < scene_frame_size(p);
	     i += step, n++)
		sum += f[i];
	return sum / n;
}

static void assert_sum_ok(const uint8_t *f, size_t size)
{
	const uint8_t *c = f + ISOCAM_STAMP_OFF_CHECKSUM;
	uint32_t sum = c[0] | c[1] << 8 | c[2] << 16 | (uint32_t)c[3] << 24;

	assert_int_equal(sum, isocam_stamp_checksum(f + STAMP, size - STAMP));
}

static void test_frame_size(void **state)
{
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 640, 480);

	(void)state;
	assert_int_equal(scene_frame_size(&p), 640 * 480 * 2);
	p.format = IC1280_FMT_RGB565;
	assert_int_equal(scene_frame_size(&p), 640 * 480 * 2);
	p.format = IC1280_FMT_GREY;
	assert_int_equal(scene_frame_size(&p), 640 * 480);
	p.format = IC1280_FMT_COUNT;
	assert_int_equal(scene_frame_size(&p), 0);
}

static void test_rejects_bad_params(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 161, 120);
	uint8_t buf[161 * 120 * 2];

	(void)state;
	assert_int_equal(scene_render(sc, &p, 0, buf), -1);	/* odd YUYV */
	p = scene_params_default(IC1280_FMT_COUNT, 160, 120);
	assert_int_equal(scene_render(sc, &p, 0, buf), -1);
	p = scene_params_default(IC1280_FMT_GREY, 0, 120);
	assert_int_equal(scene_render(sc, &p, 0, buf), -1);
	p = scene_params_default(IC1280_FMT_GREY, 4, 4);	/* smaller than the stamp */
	assert_int_equal(scene_render(sc, &p, 0, buf), -1);
	p = scene_params_default(IC1280_FMT_GREY, 160, 120);
	p.test_pattern = IC1280_TP_COUNT;
	assert_int_equal(scene_render(sc, &p, 0, buf), -1);
	scene_free(sc);
}

/* Same (params, counter), any history, any instance: same bytes. */
static void test_deterministic(void **state)
{
	static const uint8_t fmts[] = { IC1280_FMT_YUYV, IC1280_FMT_RGB565,
					IC1280_FMT_GREY };
	struct scene *a = scene_new(), *b = scene_new();
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct scene_params p = scene_params_default(fmts[i], 320, 240);
		struct scene_params q = p;
		uint8_t *f1, *f2, *f3, *f4;

		q.brightness = 50;
		q.flip = IC1280_FLIP_H;
		f1 = render(a, &p, 17);
		f2 = render(a, &q, 17);		/* different tables in a */
		f3 = render(a, &p, 17);		/* rebuilt */
		f4 = render(b, &p, 17);		/* another instance */
		assert_memory_equal(f1, f3, scene_frame_size(&p));
		assert_memory_equal(f1, f4, scene_frame_size(&p));
		assert_memory_not_equal(f1, f2, scene_frame_size(&p));
		/* cached checksums are dropped with the tables they cover */
		assert_sum_ok(f2, scene_frame_size(&q));
		assert_sum_ok(f3, scene_frame_size(&p));
		free(f1);
		free(f2);
		free(f3);
		free(f4);
	}
	scene_free(a);
	scene_free(b);
}

static void test_stamp_round_trip(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_RGB565, 320, 240), q;
	uint32_t counter, sum;
	uint8_t *f;

	(void)state;
	p.brightness = -20;
	p.contrast = 150;
	p.saturation = 60;
	p.hue = -45;
	p.exposure = 321;
	p.gain = 40;
	p.red_gain = 140;
	p.blue_gain = 90;
	p.flip = IC1280_FLIP_V;
	p.aec = 0;
	p.awb = 0;
	p.frame_length = 3000;
	f = render(sc, &p, 123456);
	assert_memory_equal(f, "ICAM", 4);
	assert_int_equal(scene_stamp_parse(f, scene_frame_size(&p), &q,
					   &counter, &sum), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	assert_int_equal(counter, 123456);
	assert_int_equal(sum, isocam_stamp_checksum(f + STAMP,
				scene_frame_size(&p) - STAMP));
	/* Little endian on the wire. */
	assert_int_equal(f[ISOCAM_STAMP_OFF_COUNTER], 123456 & 0xff);
	assert_int_equal(f[ISOCAM_STAMP_OFF_WIDTH], 320 & 0xff);
	assert_int_equal(f[ISOCAM_STAMP_OFF_WIDTH + 1], 320 >> 8);

	/* The checksum follows the cached path too (a second frame). */
	free(f);
	f = render(sc, &p, 123456);
	assert_int_equal(scene_stamp_parse(f, scene_frame_size(&p), &q,
					   &counter, &sum), 0);
	assert_int_equal(sum, isocam_stamp_checksum(f + STAMP,
				scene_frame_size(&p) - STAMP));

	/* Refused: short data, bad magic, inconsistent size. */
	assert_int_equal(scene_stamp_parse(f, scene_frame_size(&p) - 1, &q,
					   NULL, NULL), -1);
	assert_int_equal(scene_stamp_parse(f, 10, &q, NULL, NULL), -1);
	f[ISOCAM_STAMP_OFF_SIZEIMAGE] ^= 2;
	assert_int_equal(scene_stamp_parse(f, scene_frame_size(&p), &q,
					   NULL, NULL), -1);
	f[ISOCAM_STAMP_OFF_SIZEIMAGE] ^= 2;
	f[ISOCAM_STAMP_OFF_WIDTH] ^= 2;
	assert_int_equal(scene_stamp_parse(f, scene_frame_size(&p), &q,
					   NULL, NULL), -1);
	f[ISOCAM_STAMP_OFF_WIDTH] ^= 2;
	f[0] = 'X';
	assert_int_equal(scene_stamp_parse(f, scene_frame_size(&p), &q,
					   NULL, NULL), -1);
	free(f);
	scene_free(sc);
}

/* The scene moves: frame n is frame 0 scrolled left by n * step. */
static void test_motion(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_GREY, 640, 480);
	uint8_t *f0 = render(sc, &p, 0), *f5 = render(sc, &p, 5);
	size_t x, y;

	(void)state;
	assert_memory_not_equal(f0 + STAMP, f5 + STAMP, 640 * 480 - STAMP);
	for (y = 1; y < 480; y++)
		for (x = 0; x < 640; x++)
			assert_int_equal(f5[y * 640 + x],
					 f0[y * 640 + (x + 10) % 640]);
	free(f0);
	free(f5);
	scene_free(sc);
}

static void test_brightness_moves_luma(void **state)
{
	static const uint8_t fmts[] = { IC1280_FMT_YUYV, IC1280_FMT_GREY };
	struct scene *sc = scene_new();
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct scene_params p = scene_params_default(fmts[i], 320, 240);
		uint8_t *f0 = render(sc, &p, 3), *fp, *fm;
		double m0 = mean_luma(&p, f0);

		p.brightness = 40;
		fp = render(sc, &p, 3);
		p.brightness = -40;
		fm = render(sc, &p, 3);
		/* 40 full-range steps are ~34 limited-range ones, less clipping */
		assert_true(mean_luma(&p, fp) > m0 + 20);
		assert_true(mean_luma(&p, fm) < m0 - 20);
		free(f0);
		free(fp);
		free(fm);
	}
	scene_free(sc);
}

static void test_exposure_gain_scale(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_GREY, 320, 240);
	uint8_t *f;
	double m_def, m_half, m_dbl, m_gain;

	(void)state;
	f = render(sc, &p, 0);
	m_def = mean_luma(&p, f);
	free(f);
	p.exposure = 50;
	f = render(sc, &p, 0);
	m_half = mean_luma(&p, f);
	free(f);
	p.exposure = 200;
	f = render(sc, &p, 0);
	m_dbl = mean_luma(&p, f);
	free(f);
	p.exposure = 100;
	p.gain = 32;		/* 2x gain == 2x exposure */
	f = render(sc, &p, 0);
	m_gain = mean_luma(&p, f);
	free(f);
	/* Half the light: luma above black halves (16 is black). */
	assert_true(m_half - 16 < (m_def - 16) * 0.6);
	assert_true(m_half - 16 > (m_def - 16) * 0.4);
	assert_true(m_dbl > m_def + 30);
	assert_true(m_gain > m_dbl - 0.5 && m_gain < m_dbl + 0.5);
	scene_free(sc);
}

static double luma_spread(const struct scene_params *p, const uint8_t *f)
{
	double m = mean_luma(p, f), v = 0;
	size_t i, n = 0;

	for (i = p->width; i < scene_frame_size(p); i++, n++)
		v += (f[i] - m) * (f[i] - m);
	return v / n;
}

static void test_contrast_saturation_hue(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_GREY, 320, 240);
	struct scene_params y = scene_params_default(IC1280_FMT_YUYV, 320, 240);
	uint8_t *f0, *f1;
	size_t i;

	(void)state;
	f0 = render(sc, &p, 0);
	p.contrast = 200;
	f1 = render(sc, &p, 0);
	assert_true(luma_spread(&p, f1) > luma_spread(&p, f0) * 1.5);
	free(f0);
	free(f1);

	/* Saturation 0: every chroma byte is neutral. */
	y.saturation = 0;
	f0 = render(sc, &y, 0);
	for (i = (size_t)y.width * 2; i < scene_frame_size(&y); i += 2)
		assert_int_equal(f0[i + 1], 128);
	free(f0);

	/* Hue 180 mirrors chroma around neutral; luma stays. */
	y.saturation = 128;
	f0 = render(sc, &y, 0);
	y.hue = 180;
	f1 = render(sc, &y, 0);
	for (i = (size_t)y.width * 2; i < scene_frame_size(&y); i += 2) {
		assert_int_equal(f0[i], f1[i]);
		assert_true(abs((f0[i + 1] - 128) + (f1[i + 1] - 128)) <= 2);
	}
	free(f0);
	free(f1);
	scene_free(sc);
}

static void test_white_balance(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 320, 240);
	uint8_t *f0, *f1;

	(void)state;
	f0 = render(sc, &p, 0);
	p.awb = 0;
	p.red_gain = 220;
	p.blue_gain = 60;
	f1 = render(sc, &p, 0);
	/* More red: V (Cr) up; less blue: U (Cb) down. */
	assert_true(mean_at(&p, f1, 3, 4) > mean_at(&p, f0, 3, 4) + 5);
	assert_true(mean_at(&p, f1, 1, 4) < mean_at(&p, f0, 1, 4) - 5);
	free(f0);
	free(f1);
	scene_free(sc);
}

static void test_flips_mirror(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 320, 240);
	struct scene_params h = p, v = p;
	uint8_t *f, *fh, *fv;
	size_t x, y, row = 320 * 2;

	(void)state;
	h.flip = IC1280_FLIP_H;
	v.flip = IC1280_FLIP_V;
	f = render(sc, &p, 9);
	fh = render(sc, &h, 9);
	fv = render(sc, &v, 9);
	for (y = 1; y < 240; y++) {
		for (x = 0; x < 320; x += 2) {
			const uint8_t *a = f + y * row + x * 2;
			const uint8_t *b = fh + y * row + (318 - x) * 2;

			/* macropixel mirrored: Y0/Y1 swap, chroma equal */
			assert_int_equal(a[0], b[2]);
			assert_int_equal(a[2], b[0]);
			assert_int_equal(a[1], b[1]);
			assert_int_equal(a[3], b[3]);
		}
	}
	for (y = 1; y < 239; y++)
		assert_memory_equal(f + y * row, fv + (239 - y) * row, row);
	assert_memory_not_equal(f + row, fh + row, row);
	free(f);
	free(fh);
	free(fv);
	scene_free(sc);
}

static void test_patterns(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, 320, 240);
	struct scene_params g = scene_params_default(IC1280_FMT_GREY, 320, 240);
	struct scene_params r = scene_params_default(IC1280_FMT_RGB565, 320, 240);
	uint8_t *f, *f2;
	size_t i, x;

	(void)state;
	/* Solid white, exact in every format, controls do not touch it. */
	p.test_pattern = g.test_pattern = r.test_pattern = IC1280_TP_SOLID_WHITE;
	p.brightness = -60;
	f = render(sc, &p, 0);
	for (i = STAMP; i < scene_frame_size(&p); i += 2) {
		assert_int_equal(f[i], 235);
		assert_int_equal(f[i + 1], 128);
	}
	free(f);
	f = render(sc, &g, 0);
	for (i = STAMP; i < scene_frame_size(&g); i++)
		assert_int_equal(f[i], 235);
	free(f);
	f = render(sc, &r, 0);
	for (i = STAMP; i < scene_frame_size(&r); i++)
		assert_int_equal(f[i], 0xff);
	free(f);

	/* Colour bars in RGB565 (little endian): red is bar 5 of 8. */
	r.test_pattern = IC1280_TP_COLOR_BARS;
	f = render(sc, &r, 0);
	x = 320 * 5 / 8 + 4;
	assert_int_equal(f[320 * 2 * 10 + x * 2], 0x00);
	assert_int_equal(f[320 * 2 * 10 + x * 2 + 1], 0xf8);
	x = 320 * 6 / 8 + 4;	/* blue */
	assert_int_equal(f[320 * 2 * 10 + x * 2], 0x1f);
	assert_int_equal(f[320 * 2 * 10 + x * 2 + 1], 0x00);
	x = 319;		/* black */
	assert_int_equal(f[320 * 2 * 10 + x * 2], 0);
	/* Static: a later frame has the same picture. */
	f2 = render(sc, &r, 77);
	assert_memory_equal(f + STAMP, f2 + STAMP, scene_frame_size(&r) - STAMP);
	free(f);
	free(f2);

	/* Gradient: luma never falls left to right, spans black to white. */
	g.test_pattern = IC1280_TP_GRADIENT;
	f = render(sc, &g, 0);
	for (x = 1; x < 320; x++)
		assert_true(f[320 * 5 + x] >= f[320 * 5 + x - 1]);
	assert_int_equal(f[320 * 5], 16);
	assert_true(f[320 * 5 + 319] >= 233);
	free(f);

	/* Checkerboard: only black and white, both present. */
	g.test_pattern = IC1280_TP_CHECKERBOARD;
	f = render(sc, &g, 0);
	for (i = STAMP; i < scene_frame_size(&g); i++)
		assert_true(f[i] == 16 || f[i] == 235);
	assert_int_not_equal(f[320 * 10 + 5], f[320 * 10 + 25]);
	free(f);
	scene_free(sc);
}

/* GREY is exactly the luma plane of YUYV: one pipeline for both. */
static void test_grey_is_yuyv_luma(void **state)
{
	struct scene *sc = scene_new();
	struct scene_params y = scene_params_default(IC1280_FMT_YUYV, 160, 120);
	struct scene_params g = scene_params_default(IC1280_FMT_GREY, 160, 120);
	uint8_t *fy, *fg;
	size_t i;

	(void)state;
	y.brightness = g.brightness = 25;
	y.contrast = g.contrast = 170;
	fy = render(sc, &y, 4);
	fg = render(sc, &g, 4);
	for (i = STAMP; i < 160 * 120; i++)
		assert_int_equal(fg[i], fy[2 * i]);
	free(fy);
	free(fg);
	scene_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_size),
		cmocka_unit_test(test_rejects_bad_params),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_stamp_round_trip),
		cmocka_unit_test(test_motion),
		cmocka_unit_test(test_brightness_moves_luma),
		cmocka_unit_test(test_exposure_gain_scale),
		cmocka_unit_test(test_contrast_saturation_hue),
		cmocka_unit_test(test_white_balance),
		cmocka_unit_test(test_flips_mirror),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_grey_is_yuyv_luma),
	};

	return cmocka_run_group_tests_name("emu_scene", tests, NULL, NULL);
}
