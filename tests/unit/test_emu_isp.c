// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The sensor's pixel processing: at the power-on settings it is the bare
 * conversion, the conversion's ends are where BT.601 puts them, and each
 * control moves the pixel the way its register says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <isocam/ic1280_regs.h>

#include "isp.h"
#include "scene.h"

static struct scene_params defaults(void)
{
	return scene_params_default(IC1280_FMT_YUYV, 320, 240);
}

static void assert_same(struct isp_out a, struct isp_out b)
{
	assert_int_equal(a.y, b.y);
	assert_int_equal(a.u, b.u);
	assert_int_equal(a.v, b.v);
	assert_int_equal(a.rgb565, b.rgb565);
}

static void test_defaults_are_the_bare_conversion(void **state)
{
	struct scene_params p = defaults();
	unsigned int r, g, b;

	(void)state;
	for (r = 0; r < 256; r += 17)
		for (g = 0; g < 256; g += 17)
			for (b = 0; b < 256; b += 17)
				assert_same(isp_pixel(&p, r, g, b, true),
					    isp_pixel(&p, r, g, b, false));
}

static void test_conversion_ends(void **state)
{
	struct scene_params p = defaults();
	struct isp_out o;

	(void)state;
	o = isp_pixel(&p, 0, 0, 0, false);
	assert_int_equal(o.y, 16);
	assert_int_equal(o.u, 128);
	assert_int_equal(o.v, 128);
	assert_int_equal(o.rgb565, 0);
	o = isp_pixel(&p, 255, 255, 255, false);
	assert_int_equal(o.y, 235);
	assert_int_equal(o.u, 128);
	assert_int_equal(o.v, 128);
	assert_int_equal(o.rgb565, 0xffff);
	/* red: Cr at its top, Cb below grey */
	o = isp_pixel(&p, 255, 0, 0, false);
	assert_int_equal(o.v, 240);
	assert_true(o.u < 128);
	assert_int_equal(o.rgb565 >> 11, 31);
}

static void test_controls_move_the_pixel(void **state)
{
	struct scene_params p = defaults();
	struct isp_out grey, o;

	(void)state;
	grey = isp_pixel(&p, 128, 128, 128, true);
	assert_int_equal(grey.y, 126);
	/* brightness adds to full-range luma: 40 is 34 steps of 219 */
	p.brightness = 40;
	o = isp_pixel(&p, 128, 128, 128, true);
	assert_int_equal(o.y, grey.y + 34);
	/* contrast 0 flattens every grey to mid grey */
	p = defaults();
	p.contrast = 0;
	assert_int_equal(isp_pixel(&p, 10, 10, 10, true).y, grey.y);
	assert_int_equal(isp_pixel(&p, 250, 250, 250, true).y, grey.y);
	/* saturation 0: no colour left */
	p = defaults();
	p.saturation = 0;
	o = isp_pixel(&p, 200, 30, 30, true);
	assert_int_equal(o.u, 128);
	assert_int_equal(o.v, 128);
	/* a hue of 180 degrees turns red's chroma around */
	p = defaults();
	p.hue = 180;
	o = isp_pixel(&p, 200, 30, 30, true);
	assert_true(o.v < 128);
	assert_true(o.u > 128);
	/* twice the exposure saturates a light grey to white */
	p = defaults();
	p.exposure = (uint16_t)(2 * p.exposure);
	assert_int_equal(isp_pixel(&p, 200, 200, 200, true).y, 235);
	/* the red gain alone moves red, and only with the ISP */
	p = defaults();
	p.red_gain = 255;
	assert_true(isp_pixel(&p, 100, 100, 100, true).v > 128);
	assert_int_equal(isp_pixel(&p, 100, 100, 100, false).v, 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_the_bare_conversion),
		cmocka_unit_test(test_conversion_ends),
		cmocka_unit_test(test_controls_move_the_pixel),
	};

	return cmocka_run_group_tests_name("emu_isp", tests, NULL, NULL);
}
