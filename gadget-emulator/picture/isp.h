/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The sensor's image processing of one pixel, from the light its pixel
 * array saw (8-bit RGB) to what the camera sends, as the sensor's
 * registers set it (scene_params): the synthetic scene's palette and a
 * user's own picture both go through it, so the controls act alike on
 * either. Integer only, so the emulator and the test tools agree to the
 * bit whatever the compiler flags.
 */
#ifndef ISOCAM_EMU_ISP_H
#define ISOCAM_EMU_ISP_H

#include <stdbool.h>
#include <stdint.h>

#include "scene_params.h"

/* One pixel in the camera's output terms. */
struct isp_out {
	uint8_t y, u, v;	/* limited range Y'CbCr (YUYV, GREY) */
	uint16_t rgb565;
};

/*
 * The pixel (r, g, b) through the sensor's processing, or, with isp
 * false (a test pattern, made after it), only its conversion:
 *  1. exposure x gain, relative to the default product (1600), and the
 *     white-balance gains, on 8-bit RGB, saturating at 255;
 *  2. RGB -> full-range Y'CbCr (BT.601);
 *  3. contrast around mid grey, then brightness, on Y; hue rotation and
 *     saturation on CbCr;
 *  4. YUYV and GREY: limited range (Y 16..235), GREY being exactly the
 *     luma of YUYV; RGB565: back to full-range RGB.
 */
struct isp_out isp_pixel(const struct scene_params *p, uint8_t r, uint8_t g,
			 uint8_t b, bool isp);

#endif /* ISOCAM_EMU_ISP_H */
