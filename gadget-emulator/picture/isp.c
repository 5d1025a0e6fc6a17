// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The sensor's image processing of one pixel (isp.h). */
#include "isp.h"

#include <isocam/ic1280_regs.h>

#define AE_REF		(IC1280_EXPOSURE_DEFAULT * IC1280_GAIN_DEFAULT)

/* round(sin(d degrees) * 16384), d = 0..90 */
static const int16_t sin_q14[91] = {
	0, 286, 572, 857, 1143, 1428, 1713, 1997, 2280, 2563,
	2845, 3126, 3406, 3686, 3964, 4240, 4516, 4790, 5063, 5334,
	5604, 5872, 6138, 6402, 6664, 6924, 7182, 7438, 7692, 7943,
	8192, 8438, 8682, 8923, 9162, 9397, 9630, 9860, 10087, 10311,
	10531, 10749, 10963, 11174, 11381, 11585, 11786, 11982, 12176, 12365,
	12551, 12733, 12911, 13085, 13255, 13421, 13583, 13741, 13894, 14044,
	14189, 14330, 14466, 14598, 14726, 14849, 14968, 15082, 15191, 15296,
	15396, 15491, 15582, 15668, 15749, 15826, 15897, 15964, 16026, 16083,
	16135, 16182, 16225, 16262, 16294, 16322, 16344, 16362, 16374, 16382,
	16384,
};

static int32_t isin(int deg)	/* deg in -180..180 */
{
	int sign = 1;

	if (deg < 0) {
		deg = -deg;
		sign = -1;
	}
	if (deg > 90)
		deg = 180 - deg;
	return sign * sin_q14[deg];
}

static int32_t icos(int deg)
{
	if (deg < 0)
		deg = -deg;
	return deg <= 90 ? sin_q14[90 - deg] : -sin_q14[deg - 90];
}

/* a / d rounded half away from zero (d > 0): well defined for negatives. */
static int64_t div_round(int64_t a, int64_t d)
{
	return a >= 0 ? (a + d / 2) / d : -((-a + d / 2) / d);
}

static int32_t clamp32(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

static uint8_t sat8(int64_t v)
{
	return (uint8_t)clamp32(v, 0, 255);
}

struct isp_out isp_pixel(const struct scene_params *p, uint8_t r8, uint8_t g8,
			 uint8_t b8, bool isp)
{
	int64_t r = r8, g = g8, b = b8;
	int64_t y, cb, cr, cb2, cr2;
	struct isp_out o;

	if (isp) {
		int64_t k = (int64_t)p->exposure * p->gain;
		int64_t d = (int64_t)AE_REF * IC1280_WB_GAIN_DEFAULT;

		r = sat8(div_round(r * k * p->red_gain, d));
		g = sat8(div_round(g * k, AE_REF));
		b = sat8(div_round(b * k * p->blue_gain, d));
	}
	y = div_round(19595 * r + 38470 * g + 7471 * b, 65536);
	cb = div_round(-11059 * r - 21709 * g + 32768 * b, 65536);
	cr = div_round(32768 * r - 27439 * g - 5329 * b, 65536);
	if (isp) {
		int32_t cs = icos(p->hue), sn = isin(p->hue);

		y = clamp32(div_round((y - 128) * p->contrast, 128) + 128 +
			    p->brightness, 0, 255);
		cb2 = div_round(cb * cs - cr * sn, 16384);
		cr2 = div_round(cb * sn + cr * cs, 16384);
		cb = clamp32(div_round(cb2 * p->saturation, 128), -128, 127);
		cr = clamp32(div_round(cr2 * p->saturation, 128), -128, 127);
	}
	o.y = (uint8_t)(16 + div_round(y * 219, 255));
	o.u = (uint8_t)clamp32(128 + div_round(cb * 224, 255), 16, 240);
	o.v = (uint8_t)clamp32(128 + div_round(cr * 224, 255), 16, 240);
	r = sat8(y + div_round(91881 * cr, 65536));
	g = sat8(y - div_round(22554 * cb + 46802 * cr, 65536));
	b = sat8(y + div_round(116130 * cb, 65536));
	o.rgb565 = (uint16_t)((r >> 3) << 11 | (g >> 2) << 5 | (b >> 3));
	return o;
}

