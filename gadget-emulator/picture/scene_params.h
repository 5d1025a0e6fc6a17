/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The settings a frame is made with: the sensor's registers as they act
 * on the picture (effective values, after the auto modes), the output
 * format and size. The scene renders from them and the ISP (isp.h)
 * processes a pixel by them; the stamp carries them.
 */
#ifndef ISOCAM_EMU_SCENE_PARAMS_H
#define ISOCAM_EMU_SCENE_PARAMS_H

#include <stdint.h>

struct scene_params {
	uint8_t format;		/* IC1280_FMT_* */
	uint16_t width, height;
	int8_t brightness;
	uint8_t contrast, saturation;
	int16_t hue;
	uint16_t exposure;	/* effective, 100 us units */
	uint8_t gain;		/* effective analog gain, 16 = 1x */
	uint8_t red_gain, blue_gain;	/* effective, 128 = 1x */
	uint8_t flip;		/* IC1280_FLIP_* */
	uint8_t test_pattern;	/* IC1280_TP_* */
	uint8_t aec, awb;	/* auto modes on (for the stamp) */
	uint16_t frame_length;	/* FRAME_LENGTH_LINES (for the stamp) */
	uint8_t jpeg_quality;	/* a JPEG frame's (for the stamp); 0: raw */
};

#endif /* ISOCAM_EMU_SCENE_PARAMS_H */
