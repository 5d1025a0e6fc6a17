// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The IC1280 register file (include/isocam/ic1280_regs.h).
 *
 * Registers hold exactly the bytes written, like a real sensor's, so a
 * 16-bit register written one byte at a time reads back what was sent.
 * What the sensor *does* with them (clamped exposure and frame length,
 * the snapped output size, AEC/AWB overrides) is computed when asked, in
 * ic1280_scene_params() and ic1280_frame_period_ns().
 *
 * Write rules, all NAKed on the offending byte (the transfer stops there,
 * earlier bytes stay written, as on a real i2c bus):
 *  - read-only registers (chip id, revision, line length) and addresses
 *    the sensor does not implement (they read as 0);
 *  - a value an enumerated register does not define (format, test
 *    pattern, mode, flip, PLF, AEC/AWB, reset): silently storing it would
 *    hide a driver bug.
 */
#include "ic1280_model.h"

#include <stdlib.h>
#include <string.h>

#include <isocam/ic1280_regs.h>

#define REG_SPACE	(IC1280_REG_MAX + 1)

/* Register attributes. */
#define RA_IMPL		0x01	/* the sensor has this register */
#define RA_RO		0x02	/* writes NAKed */

struct ic1280 {
	uint16_t chip_id;
	uint16_t ptr;		/* i2c register pointer */
	uint32_t generation;
	uint32_t stream_starts;
	uint8_t regs[REG_SPACE];
	uint8_t attr[REG_SPACE];
};

struct reg_default {
	uint16_t addr;
	uint8_t val;
	uint8_t attr;
};

static const struct reg_default reg_defaults[] = {
	{ IC1280_REG_CHIP_ID_H, 0, RA_RO },	/* from chip_id */
	{ IC1280_REG_CHIP_ID_L, 0, RA_RO },
	{ IC1280_REG_REVISION, IC1280_REVISION, RA_RO },
	{ IC1280_REG_MODE_SELECT, IC1280_MODE_STANDBY, 0 },
	{ IC1280_REG_SOFTWARE_RESET, 0, 0 },
	{ IC1280_REG_OUTPUT_FORMAT, IC1280_FMT_YUYV, 0 },
	{ IC1280_REG_X_OUTPUT_SIZE_H, IC1280_DEFAULT_WIDTH >> 8, 0 },
	{ IC1280_REG_X_OUTPUT_SIZE_L, IC1280_DEFAULT_WIDTH & 0xff, 0 },
	{ IC1280_REG_Y_OUTPUT_SIZE_H, IC1280_DEFAULT_HEIGHT >> 8, 0 },
	{ IC1280_REG_Y_OUTPUT_SIZE_L, IC1280_DEFAULT_HEIGHT & 0xff, 0 },
	{ IC1280_REG_FRAME_LENGTH_H, IC1280_FLL_DEFAULT >> 8, 0 },
	{ IC1280_REG_FRAME_LENGTH_L, IC1280_FLL_DEFAULT & 0xff, 0 },
	{ IC1280_REG_LINE_LENGTH_H, IC1280_LINE_LENGTH_PCK >> 8, RA_RO },
	{ IC1280_REG_LINE_LENGTH_L, IC1280_LINE_LENGTH_PCK & 0xff, RA_RO },
	{ IC1280_REG_AEC_ENABLE, IC1280_AEC_DEFAULT, 0 },
	{ IC1280_REG_EXPOSURE_H, IC1280_EXPOSURE_DEFAULT >> 8, 0 },
	{ IC1280_REG_EXPOSURE_L, IC1280_EXPOSURE_DEFAULT & 0xff, 0 },
	{ IC1280_REG_ANALOG_GAIN, IC1280_GAIN_DEFAULT, 0 },
	{ IC1280_REG_AWB_ENABLE, IC1280_AWB_DEFAULT, 0 },
	{ IC1280_REG_RED_GAIN, IC1280_WB_GAIN_DEFAULT, 0 },
	{ IC1280_REG_BLUE_GAIN, IC1280_WB_GAIN_DEFAULT, 0 },
	{ IC1280_REG_BRIGHTNESS, (uint8_t)IC1280_BRIGHTNESS_DEFAULT, 0 },
	{ IC1280_REG_CONTRAST, IC1280_CONTRAST_DEFAULT, 0 },
	{ IC1280_REG_SATURATION, IC1280_SATURATION_DEFAULT, 0 },
	{ IC1280_REG_HUE_H, (uint8_t)((uint16_t)IC1280_HUE_DEFAULT >> 8), 0 },
	{ IC1280_REG_HUE_L, (uint8_t)IC1280_HUE_DEFAULT, 0 },
	{ IC1280_REG_FLIP, 0, 0 },
	{ IC1280_REG_PLF, IC1280_PLF_DEFAULT, 0 },
	{ IC1280_REG_TEST_PATTERN, IC1280_TP_OFF, 0 },
};

static void load_defaults(struct ic1280 *s)
{
	size_t i;

	memset(s->regs, 0, sizeof(s->regs));
	for (i = 0; i < sizeof(reg_defaults) / sizeof(reg_defaults[0]); i++)
		s->regs[reg_defaults[i].addr] = reg_defaults[i].val;
	s->regs[IC1280_REG_CHIP_ID_H] = s->chip_id >> 8;
	s->regs[IC1280_REG_CHIP_ID_L] = s->chip_id & 0xff;
}

struct ic1280 *ic1280_new(uint16_t chip_id)
{
	struct ic1280 *s = calloc(1, sizeof(*s));
	size_t i;

	if (!s)
		return NULL;
	s->chip_id = chip_id;
	for (i = 0; i < sizeof(reg_defaults) / sizeof(reg_defaults[0]); i++)
		s->attr[reg_defaults[i].addr] = RA_IMPL | reg_defaults[i].attr;
	load_defaults(s);
	return s;
}

void ic1280_free(struct ic1280 *s)
{
	free(s);
}

static uint16_t reg16(const struct ic1280 *s, uint16_t addr_h)
{
	return (uint16_t)(s->regs[addr_h] << 8 | s->regs[addr_h + 1]);
}

static long clampl(long v, long lo, long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Is v a value this enumerated register defines? */
static bool value_ok(uint16_t addr, uint8_t v)
{
	switch (addr) {
	case IC1280_REG_MODE_SELECT:
		return v == IC1280_MODE_STANDBY || v == IC1280_MODE_STREAMING;
	case IC1280_REG_SOFTWARE_RESET:
	case IC1280_REG_AEC_ENABLE:
	case IC1280_REG_AWB_ENABLE:
		return v <= 1;
	case IC1280_REG_OUTPUT_FORMAT:
		return v < IC1280_FMT_COUNT;
	case IC1280_REG_FLIP:
		return !(v & ~(IC1280_FLIP_H | IC1280_FLIP_V));
	case IC1280_REG_PLF:
		return v <= IC1280_PLF_60HZ;
	case IC1280_REG_TEST_PATTERN:
		return v < IC1280_TP_COUNT;
	default:
		return true;
	}
}

/* One data byte at the pointer; false means NAK. */
static bool write_byte(struct ic1280 *s, uint16_t addr, uint8_t v)
{
	bool was_streaming;

	if (addr >= REG_SPACE || !(s->attr[addr] & RA_IMPL) ||
	    (s->attr[addr] & RA_RO) || !value_ok(addr, v))
		return false;

	if (addr == IC1280_REG_SOFTWARE_RESET) {
		/* Self-clearing: the register itself always reads 0. */
		if (v == IC1280_SOFTWARE_RESET)
			load_defaults(s);
		return true;
	}
	was_streaming = ic1280_streaming(s);
	s->regs[addr] = v;
	if (!was_streaming && ic1280_streaming(s))
		s->stream_starts++;
	return true;
}

/*
 * The generation moves once per transfer, after all its bytes: a 16-bit
 * register written in one transfer changes the picture once, never
 * through a half-written value.
 */
static void bump_if_changed(struct ic1280 *s, const struct scene_params *before)
{
	struct scene_params after;

	ic1280_scene_params(s, &after);
	if (memcmp(before, &after, sizeof(after)))
		s->generation++;
}

int ic1280_i2c_write(struct ic1280 *s, const uint8_t *buf, size_t len)
{
	struct scene_params before;
	size_t i;
	int ret = 0;

	if (len == 0)
		return 0;	/* address probe: the sensor is there */
	if (len == 1)
		return -1;	/* half a register address */
	s->ptr = (uint16_t)(buf[0] << 8 | buf[1]);
	if (len == 2)
		return 0;	/* pointer set, for a following read */

	ic1280_scene_params(s, &before);
	for (i = 2; i < len; i++) {
		if (!write_byte(s, s->ptr, buf[i])) {
			ret = -1;
			break;
		}
		s->ptr++;
	}
	bump_if_changed(s, &before);
	return ret;
}

int ic1280_i2c_read(struct ic1280 *s, uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = ic1280_reg_get(s, s->ptr++);
	return 0;
}

uint8_t ic1280_reg_get(const struct ic1280 *s, uint16_t addr)
{
	return addr < REG_SPACE ? s->regs[addr] : 0;
}

bool ic1280_streaming(const struct ic1280 *s)
{
	return s->regs[IC1280_REG_MODE_SELECT] == IC1280_MODE_STREAMING;
}

uint32_t ic1280_stream_starts(const struct ic1280 *s)
{
	return s->stream_starts;
}

/* The largest supported size that fits the programmed one, else the least. */
static void output_size(const struct ic1280 *s, uint16_t *w, uint16_t *h)
{
	static const uint16_t sizes[IC1280_NUM_SIZES][2] = IC1280_SIZES_INIT;
	uint16_t x = reg16(s, IC1280_REG_X_OUTPUT_SIZE_H);
	uint16_t y = reg16(s, IC1280_REG_Y_OUTPUT_SIZE_H);
	unsigned int i, best = IC1280_NUM_SIZES;

	for (i = 0; i < IC1280_NUM_SIZES; i++) {
		if (sizes[i][0] > x || sizes[i][1] > y)
			continue;
		if (best == IC1280_NUM_SIZES ||
		    (uint32_t)sizes[i][0] * sizes[i][1] >
		    (uint32_t)sizes[best][0] * sizes[best][1])
			best = i;
	}
	if (best == IC1280_NUM_SIZES) {
		/* Nothing fits: the smallest mode. */
		best = 0;
		for (i = 1; i < IC1280_NUM_SIZES; i++)
			if ((uint32_t)sizes[i][0] * sizes[i][1] <
			    (uint32_t)sizes[best][0] * sizes[best][1])
				best = i;
	}
	*w = sizes[best][0];
	*h = sizes[best][1];
}

/* FRAME_LENGTH as the timing engine uses it: within the mode's limits. */
static uint16_t frame_length(const struct ic1280 *s)
{
	uint16_t w, h;
	long min;

	output_size(s, &w, &h);
	min = w >= 1280 ? IC1280_FLL_MIN_FULL : IC1280_FLL_MIN_BINNED;
	return (uint16_t)clampl(reg16(s, IC1280_REG_FRAME_LENGTH_H), min,
				IC1280_FLL_MAX);
}

uint64_t ic1280_frame_period_ns(const struct ic1280 *s)
{
	uint64_t llp = reg16(s, IC1280_REG_LINE_LENGTH_H);

	return llp * frame_length(s) * 1000000000ull / IC1280_PIXEL_RATE;
}

void ic1280_scene_params(const struct ic1280 *s, struct scene_params *p)
{
	/* memset: padding too, so params compare with memcmp. */
	memset(p, 0, sizeof(*p));
	p->format = s->regs[IC1280_REG_OUTPUT_FORMAT];
	output_size(s, &p->width, &p->height);
	p->brightness = (int8_t)s->regs[IC1280_REG_BRIGHTNESS];
	p->contrast = s->regs[IC1280_REG_CONTRAST];
	p->saturation = s->regs[IC1280_REG_SATURATION];
	p->hue = (int16_t)clampl((int16_t)reg16(s, IC1280_REG_HUE_H),
				 IC1280_HUE_MIN, IC1280_HUE_MAX);
	p->aec = s->regs[IC1280_REG_AEC_ENABLE];
	p->awb = s->regs[IC1280_REG_AWB_ENABLE];
	if (p->aec) {
		/* The "correct" exposure the AEC loop converges to. */
		p->exposure = IC1280_EXPOSURE_DEFAULT;
		p->gain = IC1280_GAIN_DEFAULT;
	} else {
		p->exposure = (uint16_t)clampl(reg16(s, IC1280_REG_EXPOSURE_H),
					       IC1280_EXPOSURE_MIN,
					       IC1280_EXPOSURE_MAX);
		p->gain = (uint8_t)clampl(s->regs[IC1280_REG_ANALOG_GAIN],
					  IC1280_GAIN_MIN, IC1280_GAIN_MAX);
	}
	if (p->awb) {
		/* The scene is lit neutrally, so AWB settles on unity. */
		p->red_gain = IC1280_WB_GAIN_DEFAULT;
		p->blue_gain = IC1280_WB_GAIN_DEFAULT;
	} else {
		p->red_gain = s->regs[IC1280_REG_RED_GAIN];
		p->blue_gain = s->regs[IC1280_REG_BLUE_GAIN];
	}
	p->flip = s->regs[IC1280_REG_FLIP];
	p->test_pattern = s->regs[IC1280_REG_TEST_PATTERN];
	p->frame_length = frame_length(s);
}

uint32_t ic1280_generation(const struct ic1280 *s)
{
	return s->generation;
}
