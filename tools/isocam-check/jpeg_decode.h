/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Decoding the camera's JPEG frames for the test tools: to YCbCr 4:4:4,
 * chroma replicated, not interpolated (fancy upsampling would blend
 * across MCUs), with the exact integer IDCT, so that equal MCUs decode
 * to equal pixels wherever they sit.
 */
#ifndef ISOCAM_JPEG_DECODE_H
#define ISOCAM_JPEG_DECODE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decode jpg into out (w * h * 3 bytes: Y, Cb, Cr per pixel). Returns 0,
 * or -1 when it is not a w x h YCbCr JPEG libjpeg decodes without a
 * warning (a corrupt one).
 */
int jpeg_decode_ycc(const uint8_t *jpg, size_t len, unsigned int w,
		    unsigned int h, uint8_t *out);

/*
 * PSNR in dB of a decoded frame (ycc, as above) against the YUYV picture
 * it encodes, stretched to full range as the encoder does: luma in *y_db,
 * chroma (both, per pixel pair) in *c_db; 99 for identical.
 */
void jpeg_psnr_yuyv(const uint8_t *ycc, const uint8_t *yuyv, unsigned int w,
		    unsigned int h, double *y_db, double *c_db);

#endif /* ISOCAM_JPEG_DECODE_H */
