// SPDX-License-Identifier: GPL-2.0 OR MIT
/* JPEG frames to YCbCr for the test tools (jpeg_decode.h). */
#include "jpeg_decode.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>	/* jpeglib.h wants FILE */

#include <jpeglib.h>

#include "mjpeg.h"

struct dec_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jb;
};

static void dec_exit(j_common_ptr ci)
{
	longjmp(((struct dec_err *)ci->err)->jb, 1);
}

/* A warning is a corrupt frame here: nothing the camera sends has one. */
static void dec_message(j_common_ptr ci, int level)
{
	if (level < 0)
		longjmp(((struct dec_err *)ci->err)->jb, 1);
}

int jpeg_decode_ycc(const uint8_t *jpg, size_t len, unsigned int w,
		    unsigned int h, uint8_t *out)
{
	struct jpeg_decompress_struct ci;
	struct dec_err err;
	JSAMPROW row[1];

	ci.err = jpeg_std_error(&err.mgr);
	err.mgr.error_exit = dec_exit;
	err.mgr.emit_message = dec_message;
	if (setjmp(err.jb)) {
		jpeg_destroy_decompress(&ci);
		return -1;
	}
	jpeg_create_decompress(&ci);
	jpeg_mem_src(&ci, jpg, (unsigned long)len);
	if (jpeg_read_header(&ci, TRUE) != JPEG_HEADER_OK ||
	    ci.image_width != w || ci.image_height != h ||
	    ci.jpeg_color_space != JCS_YCbCr) {
		jpeg_destroy_decompress(&ci);
		return -1;
	}
	ci.out_color_space = JCS_YCbCr;
	ci.do_fancy_upsampling = FALSE;
	ci.dct_method = JDCT_ISLOW;
	jpeg_start_decompress(&ci);
	while (ci.output_scanline < h) {
		row[0] = out + (size_t)ci.output_scanline * w * 3;
		jpeg_read_scanlines(&ci, row, 1);
	}
	jpeg_finish_decompress(&ci);
	jpeg_destroy_decompress(&ci);
	return 0;
}

static double psnr(double se, size_t n)
{
	return se ? 10 * log10(255.0 * 255.0 * (double)n / se) : 99;
}

void jpeg_psnr_yuyv(const uint8_t *ycc, const uint8_t *yuyv, unsigned int w,
		    unsigned int h, double *y_db, double *c_db)
{
	size_t n = (size_t)w * h, i;
	double se_y = 0, se_c = 0;

	for (i = 0; i < n; i++) {
		const uint8_t *pair = yuyv + (i & ~(size_t)1) * 2;
		double dy = (double)ycc[3 * i] -
			    mjpeg_full_range(yuyv[2 * i], 0);
		double du = (double)ycc[3 * i + 1] - mjpeg_full_range(pair[1], 1);
		double dv = (double)ycc[3 * i + 2] - mjpeg_full_range(pair[3], 3);

		se_y += dy * dy;
		se_c += du * du + dv * dv;
	}
	*y_db = psnr(se_y, n);
	*c_db = psnr(se_c, 2 * n);
}
