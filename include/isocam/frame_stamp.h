/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The frame stamp: the first ISOCAM_STAMP_LEN bytes of every image the
 * emulated camera sends. It lets a receiver check, without any side
 * channel, that no frame was dropped, duplicated or torn, and which
 * sensor settings produced it. It is between the emulator and the test
 * tools only: the driver never looks at pixels.
 *
 * Layout (little endian):
 *   0..3    magic "ICAM"
 *   4..7    frame counter since stream start (0, 1, 2, ...)
 *   8..11   checksum of bytes [ISOCAM_STAMP_LEN, sizeimage), see below
 *   12..15  sizeimage
 *   16      output format (IC1280_FMT_*)
 *   17      flip (IC1280_FLIP_*)
 *   18      test pattern
 *   19      flags: bit0 AEC on, bit1 AWB on, bit2 JPEG (see below)
 *   20..21  width
 *   22..23  height
 *   24      brightness (s8)
 *   25      contrast
 *   26      saturation
 *   27      analog gain
 *   28..29  hue (s16)
 *   30..31  effective exposure (100 us units)
 *   32      red gain (effective)
 *   33      blue gain (effective)
 *   34..35  frame length lines
 *   36      JPEG quality (1..100) of a JPEG frame, else 0
 *   37..39  reserved, 0
 *
 * A JPEG frame (MJPEG: the bridge's encoding of the sensor's YUYV) keeps
 * its pixels whole and carries the stamp in a COM segment of exactly
 * ISOCAM_STAMP_LEN bytes, the last segment before SOS. There, sizeimage
 * is the JPEG's length, the checksum covers the JPEG from the SOS marker
 * to the end, and the format is the one that was encoded.
 *
 * Userspace only (uses <stdint.h>).
 */
#ifndef ISOCAM_FRAME_STAMP_H
#define ISOCAM_FRAME_STAMP_H

#include <stddef.h>
#include <stdint.h>

#define ISOCAM_STAMP_MAGIC		"ICAM"
#define ISOCAM_STAMP_LEN		40
#define ISOCAM_STAMP_OFF_COUNTER	4
#define ISOCAM_STAMP_OFF_CHECKSUM	8
#define ISOCAM_STAMP_OFF_SIZEIMAGE	12
#define ISOCAM_STAMP_OFF_FORMAT		16
#define ISOCAM_STAMP_OFF_FLIP		17
#define ISOCAM_STAMP_OFF_TEST_PATTERN	18
#define ISOCAM_STAMP_OFF_FLAGS		19
#define ISOCAM_STAMP_OFF_WIDTH		20
#define ISOCAM_STAMP_OFF_HEIGHT		22
#define ISOCAM_STAMP_OFF_BRIGHTNESS	24
#define ISOCAM_STAMP_OFF_CONTRAST	25
#define ISOCAM_STAMP_OFF_SATURATION	26
#define ISOCAM_STAMP_OFF_GAIN		27
#define ISOCAM_STAMP_OFF_HUE		28
#define ISOCAM_STAMP_OFF_EXPOSURE	30
#define ISOCAM_STAMP_OFF_RED_GAIN	32
#define ISOCAM_STAMP_OFF_BLUE_GAIN	33
#define ISOCAM_STAMP_OFF_FLL		34
#define ISOCAM_STAMP_OFF_JPEG_QUALITY	36
#define ISOCAM_STAMP_FLAG_AEC		0x01
#define ISOCAM_STAMP_FLAG_AWB		0x02
#define ISOCAM_STAMP_FLAG_JPEG		0x04

/*
 * Checksum: sixteen 32-bit FNV-1a lanes, lane l over the little-endian
 * words at byte offsets 64k + 4l; the last 0..63 bytes, zero padded to
 * whole words, go to lanes 0, 1, ... in turn; then FNV-1a over the
 * sixteen lane values. Independent lanes keep the multiplies off one
 * dependency chain: the emulator's first pass over a picture (before its
 * checksums are cached) costs about half of what one chain did.
 */
static inline uint32_t isocam_stamp_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint32_t isocam_stamp_checksum(const uint8_t *p, size_t n)
{
	uint32_t lane[16], h = 2166136261u;
	size_t i;
	unsigned int l;

	for (l = 0; l < 16; l++)
		lane[l] = 2166136261u;
	for (i = 0; i + 64 <= n; i += 64)
		for (l = 0; l < 16; l++)
			lane[l] = (lane[l] ^ isocam_stamp_le32(p + i + 4 * l)) *
				  16777619u;
	for (l = 0; i < n; i += 4, l++) {
		uint8_t w[4] = { 0 };
		size_t k;

		for (k = 0; k < 4 && i + k < n; k++)
			w[k] = p[i + k];
		lane[l] = (lane[l] ^ isocam_stamp_le32(w)) * 16777619u;
	}
	for (l = 0; l < 16; l++)
		h = (h ^ lane[l]) * 16777619u;
	return h;
}

#endif /* ISOCAM_FRAME_STAMP_H */
