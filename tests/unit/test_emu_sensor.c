// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The emulated ic1280's register file, driven through its i2c interface
 * as the bridge does: defaults, read-only and unknown registers, the
 * register pointer, 16-bit registers, size snapping, frame timing, AEC
 * and AWB, software reset and the generation counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <isocam/ic1280_regs.h>

#include "ic1280_model.h"

static int wr(struct ic1280 *s, uint16_t reg, const uint8_t *v, size_t n)
{
	uint8_t buf[70];

	buf[0] = reg >> 8;
	buf[1] = reg & 0xff;
	memcpy(buf + 2, v, n);
	return ic1280_i2c_write(s, buf, n + 2);
}

static void wr8(struct ic1280 *s, uint16_t reg, uint8_t v)
{
	assert_int_equal(wr(s, reg, &v, 1), 0);
}

static void wr16(struct ic1280 *s, uint16_t reg, uint16_t v)
{
	uint8_t b[2] = { v >> 8, v & 0xff };

	assert_int_equal(wr(s, reg, b, 2), 0);
}

static void rd(struct ic1280 *s, uint16_t reg, uint8_t *v, size_t n)
{
	uint8_t a[2] = { reg >> 8, reg & 0xff };

	assert_int_equal(ic1280_i2c_write(s, a, 2), 0);
	assert_int_equal(ic1280_i2c_read(s, v, n), 0);
}

static int setup(void **state)
{
	*state = ic1280_new(IC1280_CHIP_ID);
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	ic1280_free(*state);
	return 0;
}

static void test_defaults(void **state)
{
	struct ic1280 *s = *state;
	struct scene_params p;
	uint8_t id[3];

	rd(s, IC1280_REG_CHIP_ID_H, id, 3);
	assert_int_equal(id[0], 0x12);
	assert_int_equal(id[1], 0x80);
	assert_int_equal(id[2], IC1280_REVISION);
	assert_false(ic1280_streaming(s));
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_LINE_LENGTH_H) << 8 |
			 ic1280_reg_get(s, IC1280_REG_LINE_LENGTH_L),
			 IC1280_LINE_LENGTH_PCK);

	ic1280_scene_params(s, &p);
	assert_int_equal(p.format, IC1280_FMT_YUYV);
	assert_int_equal(p.width, IC1280_DEFAULT_WIDTH);
	assert_int_equal(p.height, IC1280_DEFAULT_HEIGHT);
	assert_int_equal(p.frame_length, IC1280_FLL_DEFAULT);
	assert_int_equal(p.exposure, IC1280_EXPOSURE_DEFAULT);
	assert_int_equal(p.gain, IC1280_GAIN_DEFAULT);
	assert_int_equal(p.red_gain, 128);
	assert_int_equal(p.blue_gain, 128);
	assert_int_equal(p.brightness, 0);
	assert_int_equal(p.contrast, IC1280_CONTRAST_DEFAULT);
	assert_int_equal(p.saturation, IC1280_SATURATION_DEFAULT);
	assert_int_equal(p.hue, 0);
	assert_int_equal(p.aec, 1);
	assert_int_equal(p.awb, 1);
	assert_int_equal(p.flip, 0);
	assert_int_equal(p.test_pattern, IC1280_TP_OFF);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_PLF), IC1280_PLF_50HZ);
}

static void test_fake_chip_id(void **state)
{
	struct ic1280 *s = ic1280_new(0xbeef);
	uint8_t id[2];

	(void)state;
	rd(s, IC1280_REG_CHIP_ID_H, id, 2);
	assert_int_equal(id[0] << 8 | id[1], 0xbeef);
	ic1280_free(s);
}

static void test_read_only_nak(void **state)
{
	struct ic1280 *s = *state;
	uint8_t v = 0x55, two[2] = { 0x12, 0x34 };
	uint8_t id[2];

	assert_int_equal(wr(s, IC1280_REG_CHIP_ID_H, &v, 1), -1);
	assert_int_equal(wr(s, IC1280_REG_CHIP_ID_L, &v, 1), -1);
	assert_int_equal(wr(s, IC1280_REG_REVISION, &v, 1), -1);
	assert_int_equal(wr(s, IC1280_REG_LINE_LENGTH_H, two, 2), -1);
	rd(s, IC1280_REG_CHIP_ID_H, id, 2);
	assert_int_equal(id[0] << 8 | id[1], IC1280_CHIP_ID);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_LINE_LENGTH_H) << 8 |
			 ic1280_reg_get(s, IC1280_REG_LINE_LENGTH_L), 1600);

	/* Unimplemented registers read 0 and refuse writes. */
	assert_int_equal(wr(s, 0x1234, &v, 1), -1);
	assert_int_equal(ic1280_reg_get(s, 0x1234), 0);
	assert_int_equal(wr(s, 0xffff, &v, 1), -1);

	/*
	 * A transfer running into a read-only register: bytes before it are
	 * written, the NAK stops it there. FRAME_LENGTH_L then LINE_LENGTH_H.
	 */
	assert_int_equal(wr(s, IC1280_REG_FRAME_LENGTH_L, two, 2), -1);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_FRAME_LENGTH_L), 0x12);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_LINE_LENGTH_H), 1600 >> 8);
}

static void test_address_phase(void **state)
{
	struct ic1280 *s = *state;
	uint8_t lone = 0x01, v[4];

	assert_int_equal(ic1280_i2c_write(s, NULL, 0), 0);	/* probe */
	assert_int_equal(ic1280_i2c_write(s, &lone, 1), -1);

	/* Pointer + auto-increment read across X and Y size. */
	rd(s, IC1280_REG_X_OUTPUT_SIZE_H, v, 4);
	assert_int_equal(v[0] << 8 | v[1], 640);
	assert_int_equal(v[2] << 8 | v[3], 480);
	/* A read continues where the last one stopped. */
	rd(s, IC1280_REG_CHIP_ID_H, v, 1);
	assert_int_equal(ic1280_i2c_read(s, v + 1, 2), 0);
	assert_int_equal(v[0], 0x12);
	assert_int_equal(v[1], 0x80);
	assert_int_equal(v[2], IC1280_REVISION);
}

static void test_16bit_big_endian(void **state)
{
	struct ic1280 *s = *state;
	uint8_t size[4] = { 0x01, 0x40, 0x00, 0xf0 };	/* 320 x 240 */
	struct scene_params p;

	assert_int_equal(wr(s, IC1280_REG_X_OUTPUT_SIZE_H, size, 4), 0);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.width, 320);
	assert_int_equal(p.height, 240);

	/* Byte by byte works too: each register holds what was written. */
	wr8(s, IC1280_REG_AEC_ENABLE, 0);
	wr8(s, IC1280_REG_EXPOSURE_H, 0x03);
	wr8(s, IC1280_REG_EXPOSURE_L, 0x20);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.exposure, 800);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_EXPOSURE_H), 0x03);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_EXPOSURE_L), 0x20);

	/* Signed registers. */
	wr16(s, IC1280_REG_HUE_H, (uint16_t)-90);
	wr8(s, IC1280_REG_BRIGHTNESS, 0x80);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.hue, -90);
	assert_int_equal(p.brightness, -128);
	wr16(s, IC1280_REG_HUE_H, 300);		/* out of range: clamped */
	ic1280_scene_params(s, &p);
	assert_int_equal(p.hue, 180);
	wr16(s, IC1280_REG_HUE_H, (uint16_t)-300);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.hue, -180);
}

static void test_size_snapping(void **state)
{
	static const struct { uint16_t x, y, w, h; } cases[] = {
		{ 1280, 960, 1280, 960 }, { 640, 480, 640, 480 },
		{ 320, 240, 320, 240 }, { 160, 120, 160, 120 },
		{ 1000, 800, 640, 480 }, { 640, 479, 320, 240 },
		{ 4000, 4000, 1280, 960 }, { 1280, 480, 640, 480 },
		{ 100, 100, 160, 120 }, { 0, 0, 160, 120 },
		{ 1279, 960, 640, 480 },
	};
	struct ic1280 *s = *state;
	struct scene_params p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t b[4] = { cases[i].x >> 8, cases[i].x & 0xff,
				 cases[i].y >> 8, cases[i].y & 0xff };

		assert_int_equal(wr(s, IC1280_REG_X_OUTPUT_SIZE_H, b, 4), 0);
		ic1280_scene_params(s, &p);
		assert_int_equal(p.width, cases[i].w);
		assert_int_equal(p.height, cases[i].h);
	}
}

static void test_frame_period(void **state)
{
	static const unsigned int fps[] = { 5, 10, 15, 20, 25, 30, 60 };
	struct ic1280 *s = *state;
	struct scene_params p;
	size_t i;

	assert_int_equal(ic1280_frame_period_ns(s), 1000000000 / 30);
	for (i = 0; i < sizeof(fps) / sizeof(fps[0]); i++) {
		wr16(s, IC1280_REG_FRAME_LENGTH_H, IC1280_FLL_FOR_FPS(fps[i]));
		assert_int_equal(ic1280_frame_period_ns(s), 1000000000 / fps[i]);
		ic1280_scene_params(s, &p);
		assert_int_equal(p.frame_length, IC1280_FLL_FOR_FPS(fps[i]));
	}
	/* Clamped to the mode's limits. */
	wr16(s, IC1280_REG_FRAME_LENGTH_H, 100);
	assert_int_equal(ic1280_frame_period_ns(s), 1000000000 / 60);
	wr16(s, IC1280_REG_FRAME_LENGTH_H, 60000);
	assert_int_equal(ic1280_frame_period_ns(s), 1000000000 / 5);
	/* Full size: 30 fps at most, even with FLL for 60 programmed. */
	wr16(s, IC1280_REG_X_OUTPUT_SIZE_H, 1280);
	wr16(s, IC1280_REG_Y_OUTPUT_SIZE_H, 960);
	wr16(s, IC1280_REG_FRAME_LENGTH_H, IC1280_FLL_FOR_FPS(60));
	assert_int_equal(ic1280_frame_period_ns(s), 1000000000 / 30);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.frame_length, IC1280_FLL_MIN_FULL);
	/* The register still holds what was written. */
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_FRAME_LENGTH_L),
			 IC1280_FLL_FOR_FPS(60) & 0xff);
}

static void test_enum_values_nak(void **state)
{
	struct ic1280 *s = *state;
	uint8_t bad;

	bad = IC1280_FMT_COUNT;
	assert_int_equal(wr(s, IC1280_REG_OUTPUT_FORMAT, &bad, 1), -1);
	bad = IC1280_TP_COUNT;
	assert_int_equal(wr(s, IC1280_REG_TEST_PATTERN, &bad, 1), -1);
	bad = 2;
	assert_int_equal(wr(s, IC1280_REG_MODE_SELECT, &bad, 1), -1);
	bad = 4;
	assert_int_equal(wr(s, IC1280_REG_FLIP, &bad, 1), -1);
	bad = 3;
	assert_int_equal(wr(s, IC1280_REG_PLF, &bad, 1), -1);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_OUTPUT_FORMAT),
			 IC1280_FMT_YUYV);
	assert_false(ic1280_streaming(s));
	wr8(s, IC1280_REG_OUTPUT_FORMAT, IC1280_FMT_GREY);
	wr8(s, IC1280_REG_FLIP, IC1280_FLIP_H | IC1280_FLIP_V);
	wr8(s, IC1280_REG_PLF, IC1280_PLF_60HZ);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_OUTPUT_FORMAT),
			 IC1280_FMT_GREY);
}

static void test_aec_awb(void **state)
{
	struct ic1280 *s = *state;
	struct scene_params p;

	wr16(s, IC1280_REG_EXPOSURE_H, 500);
	wr8(s, IC1280_REG_ANALOG_GAIN, 64);
	wr8(s, IC1280_REG_RED_GAIN, 200);
	wr8(s, IC1280_REG_BLUE_GAIN, 50);
	ic1280_scene_params(s, &p);
	/* Auto modes on: the correct exposure, neutral white balance. */
	assert_int_equal(p.exposure * p.gain,
			 IC1280_EXPOSURE_DEFAULT * IC1280_GAIN_DEFAULT);
	assert_int_equal(p.red_gain, 128);
	assert_int_equal(p.blue_gain, 128);

	wr8(s, IC1280_REG_AEC_ENABLE, 0);
	wr8(s, IC1280_REG_AWB_ENABLE, 0);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.aec, 0);
	assert_int_equal(p.awb, 0);
	assert_int_equal(p.exposure, 500);
	assert_int_equal(p.gain, 64);
	assert_int_equal(p.red_gain, 200);
	assert_int_equal(p.blue_gain, 50);

	/* Manual values outside the sensor's range are clamped. */
	wr16(s, IC1280_REG_EXPOSURE_H, 0);
	wr8(s, IC1280_REG_ANALOG_GAIN, 200);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.exposure, IC1280_EXPOSURE_MIN);
	assert_int_equal(p.gain, IC1280_GAIN_MAX);
	wr16(s, IC1280_REG_EXPOSURE_H, 9999);
	wr8(s, IC1280_REG_ANALOG_GAIN, 1);
	ic1280_scene_params(s, &p);
	assert_int_equal(p.exposure, IC1280_EXPOSURE_MAX);
	assert_int_equal(p.gain, IC1280_GAIN_MIN);
}

static void test_software_reset(void **state)
{
	struct ic1280 *s = *state;
	struct scene_params def, p;
	uint32_t gen;

	ic1280_scene_params(s, &def);
	wr8(s, IC1280_REG_BRIGHTNESS, 40);
	wr8(s, IC1280_REG_OUTPUT_FORMAT, IC1280_FMT_RGB565);
	wr16(s, IC1280_REG_FRAME_LENGTH_H, 3000);
	wr8(s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	assert_true(ic1280_streaming(s));
	gen = ic1280_generation(s);

	wr8(s, IC1280_REG_SOFTWARE_RESET, IC1280_SOFTWARE_RESET);
	assert_false(ic1280_streaming(s));
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_SOFTWARE_RESET), 0);
	ic1280_scene_params(s, &p);
	assert_memory_equal(&p, &def, sizeof(p));
	assert_int_equal(ic1280_frame_period_ns(s), 1000000000 / 30);
	assert_int_not_equal(ic1280_generation(s), gen);
	assert_int_equal(ic1280_reg_get(s, IC1280_REG_CHIP_ID_H), 0x12);
}

static void test_generation(void **state)
{
	struct ic1280 *s = *state;
	uint32_t g = ic1280_generation(s);

	wr8(s, IC1280_REG_BRIGHTNESS, 10);
	assert_int_equal(ic1280_generation(s), g + 1);
	wr8(s, IC1280_REG_BRIGHTNESS, 10);	/* same value: no change */
	assert_int_equal(ic1280_generation(s), g + 1);
	wr8(s, IC1280_REG_MODE_SELECT, 1);	/* not the picture */
	assert_int_equal(ic1280_generation(s), g + 1);
	wr16(s, IC1280_REG_HUE_H, 0x0102);	/* one transfer, one bump */
	assert_int_equal(ic1280_generation(s), g + 2);
	/* AEC on hides manual exposure: the picture does not change. */
	wr16(s, IC1280_REG_EXPOSURE_H, 700);
	assert_int_equal(ic1280_generation(s), g + 2);
	wr8(s, IC1280_REG_AEC_ENABLE, 0);
	assert_int_equal(ic1280_generation(s), g + 3);
	wr8(s, IC1280_REG_FLIP, IC1280_FLIP_H);
	wr8(s, IC1280_REG_TEST_PATTERN, IC1280_TP_COLOR_BARS);
	wr16(s, IC1280_REG_FRAME_LENGTH_H, 2000);
	assert_int_equal(ic1280_generation(s), g + 6);
}

static void test_stream_starts(void **state)
{
	struct ic1280 *s = *state;

	assert_int_equal(ic1280_stream_starts(s), 0);
	wr8(s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	wr8(s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	assert_int_equal(ic1280_stream_starts(s), 1);
	wr8(s, IC1280_REG_MODE_SELECT, IC1280_MODE_STANDBY);
	wr8(s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	assert_int_equal(ic1280_stream_starts(s), 2);
	wr8(s, IC1280_REG_SOFTWARE_RESET, IC1280_SOFTWARE_RESET);
	wr8(s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	assert_int_equal(ic1280_stream_starts(s), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test(test_fake_chip_id),
		cmocka_unit_test_setup_teardown(test_read_only_nak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_address_phase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_16bit_big_endian, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_snapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_period, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enum_values_nak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aec_awb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_software_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_generation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_starts, setup, teardown),
	};

	return cmocka_run_group_tests_name("emu_sensor", tests, NULL, NULL);
}
