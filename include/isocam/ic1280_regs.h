/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * IC1280 image sensor: i2c address, register map, ranges and defaults.
 * 16-bit register addresses (sent big endian), 8-bit values. Multi-byte
 * registers are big endian: the _H register holds the high byte, and a
 * write that auto-increments over both updates them together.
 *
 * The ic1280.ko driver and the emulator's register file compile against
 * this header; the V4L2 control ranges come from here too.
 */
#ifndef ISOCAM_IC1280_REGS_H
#define ISOCAM_IC1280_REGS_H

#define IC1280_I2C_ADDR			0x3c	/* 7-bit */
#define IC1280_NAME			"ic1280"

/* --- identification (read only) --- */
#define IC1280_REG_CHIP_ID_H		0x0000
#define IC1280_REG_CHIP_ID_L		0x0001
#define IC1280_CHIP_ID			0x1280
#define IC1280_REG_REVISION		0x0002
#define IC1280_REVISION			0x01

/* --- mode control --- */
#define IC1280_REG_MODE_SELECT		0x0100
#define IC1280_MODE_STANDBY		0x00	/* power-on state: sends nothing */
#define IC1280_MODE_STREAMING		0x01
#define IC1280_REG_SOFTWARE_RESET	0x0103
#define IC1280_SOFTWARE_RESET		0x01	/* self-clearing; all to defaults */

/* --- output format and size --- */
#define IC1280_REG_OUTPUT_FORMAT	0x0200
#define IC1280_FMT_YUYV			0x00	/* YUYV 4:2:2, 2 bytes/pixel */
#define IC1280_FMT_RGB565		0x01	/* RGB565 little endian */
#define IC1280_FMT_GREY			0x02	/* 8-bit luma */
#define IC1280_FMT_COUNT		3
#define IC1280_REG_X_OUTPUT_SIZE_H	0x0202
#define IC1280_REG_X_OUTPUT_SIZE_L	0x0203
#define IC1280_REG_Y_OUTPUT_SIZE_H	0x0204
#define IC1280_REG_Y_OUTPUT_SIZE_L	0x0205

/*
 * Supported output sizes (full array and 2x/4x/8x binning). Any other
 * size programmed into X/Y_OUTPUT_SIZE is snapped by the sensor to the
 * largest supported size that fits, as binning sensors do.
 */
#define IC1280_SIZES_INIT {		\
	{ 1280, 960 },			\
	{  640, 480 },			\
	{  320, 240 },			\
	{  160, 120 },			\
}

#define IC1280_NUM_SIZES		4
#define IC1280_DEFAULT_WIDTH		640
#define IC1280_DEFAULT_HEIGHT		480

/*
 * --- frame timing ---
 * frame rate = IC1280_PIXEL_RATE / (LINE_LENGTH_PCK * FRAME_LENGTH_LINES)
 * With the fixed line length below, FRAME_LENGTH_LINES is
 * IC1280_FLL_FOR_FPS(fps): 500 for 60 fps ... 6000 for 5 fps.
 */
#define IC1280_PIXEL_RATE		48000000
#define IC1280_LINE_LENGTH_PCK		1600
#define IC1280_REG_FRAME_LENGTH_H	0x0340
#define IC1280_REG_FRAME_LENGTH_L	0x0341
#define IC1280_REG_LINE_LENGTH_H	0x0342	/* read only */
#define IC1280_REG_LINE_LENGTH_L	0x0343
#define IC1280_FLL_FOR_FPS(fps) \
	(IC1280_PIXEL_RATE / (IC1280_LINE_LENGTH_PCK * (fps)))
#define IC1280_FLL_MIN_FULL		1000	/* 1280x960: 30 fps at most */
#define IC1280_FLL_MIN_BINNED		500	/* smaller sizes: 60 fps */
#define IC1280_FLL_MAX			6000	/* 5 fps */
#define IC1280_FLL_DEFAULT		1000	/* 30 fps */

/* --- exposure and gain --- */
#define IC1280_REG_AEC_ENABLE		0x3503	/* 1: auto exposure */
#define IC1280_AEC_DEFAULT		1
#define IC1280_REG_EXPOSURE_H		0x3500	/* units of 100 us */
#define IC1280_REG_EXPOSURE_L		0x3501
#define IC1280_EXPOSURE_MIN		1
#define IC1280_EXPOSURE_MAX		2000
#define IC1280_EXPOSURE_DEFAULT		100	/* 10 ms */
#define IC1280_REG_ANALOG_GAIN		0x3508	/* 16 = 1x */
#define IC1280_GAIN_MIN			16
#define IC1280_GAIN_MAX			128
#define IC1280_GAIN_DEFAULT		16

/* --- white balance --- */
#define IC1280_REG_AWB_ENABLE		0x3400	/* 1: auto white balance */
#define IC1280_AWB_DEFAULT		1
#define IC1280_REG_RED_GAIN		0x3401	/* 128 = 1x */
#define IC1280_REG_BLUE_GAIN		0x3402
#define IC1280_WB_GAIN_MIN		0
#define IC1280_WB_GAIN_MAX		255
#define IC1280_WB_GAIN_DEFAULT		128

/* --- image processing --- */
#define IC1280_REG_BRIGHTNESS		0x5000	/* signed: -128..127 */
#define IC1280_BRIGHTNESS_MIN		(-128)
#define IC1280_BRIGHTNESS_MAX		127
#define IC1280_BRIGHTNESS_DEFAULT	0
#define IC1280_REG_CONTRAST		0x5001	/* 128 = 1x */
#define IC1280_CONTRAST_MIN		0
#define IC1280_CONTRAST_MAX		255
#define IC1280_CONTRAST_DEFAULT		128
#define IC1280_REG_SATURATION		0x5002	/* 128 = 1x */
#define IC1280_SATURATION_MIN		0
#define IC1280_SATURATION_MAX		255
#define IC1280_SATURATION_DEFAULT	128
#define IC1280_REG_HUE_H		0x5004	/* signed degrees: -180..180 */
#define IC1280_REG_HUE_L		0x5005
#define IC1280_HUE_MIN			(-180)
#define IC1280_HUE_MAX			180
#define IC1280_HUE_DEFAULT		0

/* --- orientation --- */
#define IC1280_REG_FLIP			0x3820
#define IC1280_FLIP_H			0x01	/* mirror left-right */
#define IC1280_FLIP_V			0x02	/* upside down */

/* --- power line frequency (anti-flicker for auto exposure) --- */
#define IC1280_REG_PLF			0x3c00
#define IC1280_PLF_DISABLED		0
#define IC1280_PLF_50HZ			1
#define IC1280_PLF_60HZ			2
#define IC1280_PLF_DEFAULT		IC1280_PLF_50HZ

/* --- test patterns (replace the scene) --- */
#define IC1280_REG_TEST_PATTERN		0x5100
#define IC1280_TP_OFF			0
#define IC1280_TP_COLOR_BARS		1
#define IC1280_TP_GRADIENT		2
#define IC1280_TP_CHECKERBOARD		3
#define IC1280_TP_SOLID_WHITE		4
#define IC1280_TP_COUNT			5

/* The highest register address, for regmap's max_register. */
#define IC1280_REG_MAX			0x5100

#endif /* ISOCAM_IC1280_REGS_H */
