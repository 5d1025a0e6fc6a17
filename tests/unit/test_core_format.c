// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of core/isocam_format.c: the format table, line and image
 * sizes for every format and sensor size, bandwidth numbers and the alt
 * setting choice against the emulator's real alt table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/media-bus-format.h>
#include <linux/videodev2.h>
#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>
#include "isocam_format.h"

/* The alt table the emulator advertises, in bytes per microframe. */
static u32 alt_bytes[ISOCAM_USB_NUM_ALTS];

static int setup_alts(void **state)
{
	static const u32 wmaxp[ISOCAM_USB_NUM_ALTS] = ISOCAM_USB_ALT_WMAXP_INIT;
	unsigned int i;

	(void)state;
	for (i = 0; i < ISOCAM_USB_NUM_ALTS; i++)
		alt_bytes[i] = ISOCAM_USB_MAXP_BYTES(wmaxp[i]);
	return 0;
}

static void test_alt_table(void **state)
{
	static const u32 expect[] = { 0, 128, 256, 512, 768, 1024, 2048,
				      3072 };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(expect); i++)
		assert_int_equal(alt_bytes[i], expect[i]);
}

static void test_table(void **state)
{
	const struct isocam_format_info *fi;

	(void)state;
	fi = isocam_format_by_index(0);
	assert_non_null(fi);
	assert_int_equal(fi->fourcc, V4L2_PIX_FMT_YUYV);
	assert_int_equal(fi->mbus_code, MEDIA_BUS_FMT_YUYV8_2X8);
	assert_int_equal(fi->sensor_fmt, IC1280_FMT_YUYV);
	assert_int_equal(fi->bytes_per_pixel, 2);
	assert_int_equal(fi->colorspace, V4L2_COLORSPACE_SRGB);

	fi = isocam_format_by_index(1);
	assert_non_null(fi);
	assert_int_equal(fi->fourcc, V4L2_PIX_FMT_RGB565);
	assert_int_equal(fi->mbus_code, MEDIA_BUS_FMT_RGB565_2X8_LE);
	assert_int_equal(fi->sensor_fmt, IC1280_FMT_RGB565);
	assert_int_equal(fi->bytes_per_pixel, 2);
	assert_int_equal(fi->colorspace, V4L2_COLORSPACE_SRGB);

	fi = isocam_format_by_index(2);
	assert_non_null(fi);
	assert_int_equal(fi->fourcc, V4L2_PIX_FMT_GREY);
	assert_int_equal(fi->mbus_code, MEDIA_BUS_FMT_Y8_1X8);
	assert_int_equal(fi->sensor_fmt, IC1280_FMT_GREY);
	assert_int_equal(fi->bytes_per_pixel, 1);
	assert_int_equal(fi->colorspace, V4L2_COLORSPACE_SRGB);

	/* The bridge's JPEG of the sensor's YUYV: last, and compressed. */
	fi = isocam_format_by_index(3);
	assert_non_null(fi);
	assert_int_equal(fi->fourcc, V4L2_PIX_FMT_MJPEG);
	assert_int_equal(fi->mbus_code, MEDIA_BUS_FMT_YUYV8_2X8);
	assert_int_equal(fi->sensor_fmt, IC1280_FMT_YUYV);
	assert_int_equal(fi->codec, ISOCAM_CODEC_JPEG);
	assert_true(fi->compressed);
	assert_int_equal(fi->colorspace, V4L2_COLORSPACE_JPEG);
	for (fi = isocam_format_by_index(0); fi != isocam_format_by_index(3);
	     fi++) {
		assert_int_equal(fi->codec, ISOCAM_CODEC_RAW);
		assert_false(fi->compressed);
	}

	assert_null(isocam_format_by_index(4));
	assert_null(isocam_format_by_index(~0U));
}

static void test_lookup(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < IC1280_FMT_COUNT; i++) {
		const struct isocam_format_info *fi = isocam_format_by_index(i);

		assert_ptr_equal(isocam_format_by_fourcc(fi->fourcc), fi);
		assert_ptr_equal(isocam_format_by_mbus(fi->mbus_code), fi);
		/* Every sensor format appears exactly once. */
		assert_int_equal(fi->sensor_fmt, i);
	}
	/* The sensor's YUYV is YUYV, MJPEG only by its fourcc. */
	assert_ptr_equal(isocam_format_by_mbus(MEDIA_BUS_FMT_YUYV8_2X8),
			 isocam_format_by_index(0));
	assert_ptr_equal(isocam_format_by_fourcc(V4L2_PIX_FMT_MJPEG),
			 isocam_format_by_index(3));
	assert_null(isocam_format_by_fourcc(V4L2_PIX_FMT_JPEG));
	assert_null(isocam_format_by_fourcc(0));
	assert_null(isocam_format_by_mbus(MEDIA_BUS_FMT_SBGGR8_1X8));
	assert_null(isocam_format_by_mbus(0));
}

static void test_sizes(void **state)
{
	static const struct {
		u32 fourcc, w, h, bpl, size;
	} cases[] = {
		{ V4L2_PIX_FMT_YUYV, 1280, 960, 2560, 2457600 },
		{ V4L2_PIX_FMT_YUYV, 640, 480, 1280, 614400 },
		{ V4L2_PIX_FMT_YUYV, 320, 240, 640, 153600 },
		{ V4L2_PIX_FMT_YUYV, 160, 120, 320, 38400 },
		{ V4L2_PIX_FMT_RGB565, 1280, 960, 2560, 2457600 },
		{ V4L2_PIX_FMT_RGB565, 640, 480, 1280, 614400 },
		{ V4L2_PIX_FMT_RGB565, 320, 240, 640, 153600 },
		{ V4L2_PIX_FMT_RGB565, 160, 120, 320, 38400 },
		{ V4L2_PIX_FMT_GREY, 1280, 960, 1280, 1228800 },
		{ V4L2_PIX_FMT_GREY, 640, 480, 640, 307200 },
		{ V4L2_PIX_FMT_GREY, 320, 240, 320, 76800 },
		{ V4L2_PIX_FMT_GREY, 160, 120, 160, 19200 },
		/* No lines; the size is the bridge's largest JPEG. */
		{ V4L2_PIX_FMT_MJPEG, 1280, 960, 0, 1280 * 960 / 4 + 32768 },
		{ V4L2_PIX_FMT_MJPEG, 160, 120, 0, 160 * 120 / 4 + 32768 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct isocam_format_info *fi =
			isocam_format_by_fourcc(cases[i].fourcc);

		assert_non_null(fi);
		assert_int_equal(isocam_bytesperline(fi, cases[i].w),
				 cases[i].bpl);
		assert_int_equal(isocam_sizeimage(fi, cases[i].w, cases[i].h),
				 cases[i].size);
	}
}

static void test_bandwidth(void **state)
{
	(void)state;
	/*
	 * 640x480 YUYV at 30 fps in 3072-byte packets: 614400 bytes take
	 * ceil(614400 / 3060) = 201 packets, 12 header bytes each:
	 * (614400 + 2412) * 30.
	 */
	assert_int_equal(isocam_stream_bandwidth(614400, 1, 30, 3072),
			 18504360);
	/* In 1024-byte packets: 608 packets, (614400 + 7296) * 30. */
	assert_int_equal(isocam_stream_bandwidth(614400, 1, 30, 1024),
			 18650880);
	/* 29.97 fps: 616812 * 30000 / 1001 = 18485874.1, rounded up. */
	assert_int_equal(isocam_stream_bandwidth(614400, 1001, 30000, 3072),
			 18485875);
	/* 320x240 YUYV at 30 fps in 768-byte packets: 204 packets. */
	assert_int_equal(isocam_stream_bandwidth(153600, 1, 30, 768),
			 4681440);
	/* 1280x960 GREY at 5 fps (interval 1/5) in 1024: 1215 packets. */
	assert_int_equal(isocam_stream_bandwidth(1228800, 1, 5, 1024),
			 6216900);
	/* Nothing to send costs nothing. */
	assert_int_equal(isocam_stream_bandwidth(0, 1, 30, 1024), 0);
	/* Invalid: no interval, or packets that cannot hold a header. */
	assert_true(isocam_stream_bandwidth(614400, 0, 30, 3072) == U64_MAX);
	assert_true(isocam_stream_bandwidth(614400, 1, 0, 3072) == U64_MAX);
	assert_true(isocam_stream_bandwidth(614400, 1, 30, 12) == U64_MAX);
	assert_true(isocam_stream_bandwidth(614400, 1, 30, 0) == U64_MAX);
	/* Huge numbers saturate instead of wrapping. */
	assert_true(isocam_stream_bandwidth(U32_MAX, 1, U32_MAX, 13) ==
		    U64_MAX);
	/* A huge interval: below one byte per second rounds up to 1. */
	assert_int_equal(isocam_stream_bandwidth(1, U32_MAX, 1, 3072), 1);
}

static void test_alt_capacity(void **state)
{
	(void)state;
	assert_int_equal(isocam_alt_capacity(0), 0);
	assert_int_equal(isocam_alt_capacity(128), 1024000);
	assert_int_equal(isocam_alt_capacity(1024), 8192000);
	assert_int_equal(isocam_alt_capacity(3072), 24576000);
}

static void test_pick_alt(void **state)
{
	const unsigned int n = ISOCAM_USB_NUM_ALTS;

	(void)state;
	/* 640x480 YUYV at 30 fps needs 18.5 MB/s: only 3x1024 carries it. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 614400, 1, 30), 7);
	/* 320x240 YUYV at 30 fps, 4.7 MB/s: 768 bytes (6.1 MB/s). */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 153600, 1, 30), 4);
	/* 160x120 GREY at 30 fps, 0.58 MB/s: the smallest alt. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 19200, 1, 30), 1);
	/* 1280x960 GREY at 5 fps, 6.2 MB/s: 1024 bytes, not 768. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 1228800, 1, 5), 5);
	/* 640x480 YUYV at 15 fps, 9.25 MB/s: 2x1024. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 614400, 1, 15), 6);
	/* 1280x960 YUYV at 30 fps, 74 MB/s: impossible. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 2457600, 1, 30), -1);
	/* 640x480 YUYV at 60 fps, 37 MB/s: impossible. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 614400, 1, 60), -1);
	/* 1280x960 MJPEG at 30 fps, at most 10.3 MB/s: 2x1024. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n,
					 ISOCAM_JPEG_MAX_FRAME(1280, 960), 1,
					 30), 6);
	/* 640x480 MJPEG at 60 fps, at most 6.6 MB/s: 1024. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n,
					 ISOCAM_JPEG_MAX_FRAME(640, 480), 1,
					 60), 5);
	/* Alt 0 alone carries nothing; no alts at all neither. */
	assert_int_equal(isocam_pick_alt(alt_bytes, 1, 19200, 1, 30), -1);
	assert_int_equal(isocam_pick_alt(alt_bytes, 0, 19200, 1, 30), -1);
	/* An invalid interval never fits. */
	assert_int_equal(isocam_pick_alt(alt_bytes, n, 19200, 0, 30), -1);
}

/* 5% headroom: a stream within 5% of an alt's capacity needs the next. */
static void test_pick_alt_margin(void **state)
{
	static const u32 alts[] = { 0, 1024, 2048 };

	(void)state;
	/* 260000 bytes at 30 fps: 7892520 B/s, 96% of 8192000. */
	assert_int_equal(isocam_stream_bandwidth(260000, 1, 30, 1024),
			 7892520);
	assert_int_equal(isocam_pick_alt(alts, 3, 260000, 1, 30), 2);
	/* 240000 bytes: 7285680 B/s, 89%: fits 1024. */
	assert_int_equal(isocam_pick_alt(alts, 3, 240000, 1, 30), 1);
}

/* The table need not be sorted: the smallest fitting alt wins. */
static void test_pick_alt_unsorted(void **state)
{
	static const u32 alts[] = { 3072, 0, 1024, 768, 2048, 128, 768 };

	(void)state;
	assert_int_equal(isocam_pick_alt(alts, ARRAY_SIZE(alts), 614400, 1,
					 30), 0);
	assert_int_equal(isocam_pick_alt(alts, ARRAY_SIZE(alts), 614400, 1,
					 15), 4);
	/* Equal sizes: the first one. */
	assert_int_equal(isocam_pick_alt(alts, ARRAY_SIZE(alts), 153600, 1,
					 30), 3);
	assert_int_equal(isocam_pick_alt(alts, ARRAY_SIZE(alts), 19200, 1,
					 30), 5);
}

/*
 * For every format, size and frame rate the sensor offers: the chosen alt
 * carries the stream with headroom, and no smaller alt does.
 */
static void test_pick_alt_all_modes(void **state)
{
	static const u32 sizes[][2] = IC1280_SIZES_INIT;
	static const u32 rates[] = { 5, 10, 15, 20, 25, 30, 60 };
	unsigned int f, s, r, i, fits = 0;

	(void)state;
	for (f = 0; f < IC1280_FMT_COUNT; f++) {
		const struct isocam_format_info *fi = isocam_format_by_index(f);

		for (s = 0; s < IC1280_NUM_SIZES; s++) {
			u32 size = isocam_sizeimage(fi, sizes[s][0],
						    sizes[s][1]);

			for (r = 0; r < ARRAY_SIZE(rates); r++) {
				int alt = isocam_pick_alt(alt_bytes,
							  ISOCAM_USB_NUM_ALTS,
							  size, 1, rates[r]);
				u64 need;

				assert_int_equal(alt >= 0,
						 isocam_fits_bandwidth(alt_bytes,
								       ISOCAM_USB_NUM_ALTS,
								       size, 1,
								       rates[r]));
				if (alt < 0) {
					need = isocam_stream_bandwidth(size, 1,
								       rates[r],
								       3072);
					assert_true(need * 105 >
						    isocam_alt_capacity(3072) * 100);
					continue;
				}
				fits++;
				assert_true(alt > 0);
				need = isocam_stream_bandwidth(size, 1,
							       rates[r],
							       alt_bytes[alt]);
				assert_true(need * 105 <=
					    isocam_alt_capacity(alt_bytes[alt]) * 100);
				for (i = 1; i < (unsigned int)alt; i++) {
					need = isocam_stream_bandwidth(size, 1,
								       rates[r],
								       alt_bytes[i]);
					assert_true(need * 105 >
						    isocam_alt_capacity(alt_bytes[i]) * 100);
				}
			}
		}
	}
	/* 84 modes; the big ones do not fit high speed at high rates. */
	assert_int_equal(fits, 66);
}

static void test_fits_bandwidth(void **state)
{
	(void)state;
	assert_true(isocam_fits_bandwidth(alt_bytes, ISOCAM_USB_NUM_ALTS,
					  614400, 1, 30));
	assert_false(isocam_fits_bandwidth(alt_bytes, ISOCAM_USB_NUM_ALTS,
					   2457600, 1, 30));
	assert_true(isocam_fits_bandwidth(alt_bytes, ISOCAM_USB_NUM_ALTS,
					  2457600, 1, 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alt_table),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_bandwidth),
		cmocka_unit_test(test_alt_capacity),
		cmocka_unit_test(test_pick_alt),
		cmocka_unit_test(test_pick_alt_margin),
		cmocka_unit_test(test_pick_alt_unsorted),
		cmocka_unit_test(test_pick_alt_all_modes),
		cmocka_unit_test(test_fits_bandwidth),
	};

	return cmocka_run_group_tests_name("core_format", tests, setup_alts,
					   NULL);
}
