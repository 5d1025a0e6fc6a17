// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The YUV4MPEG2 reader: what ffmpeg's yuv4mpegpipe writes is read frame
 * for frame, from a file (read again from the start) and from a pipe;
 * headers it cannot show are refused with a reason; a stream that ends
 * mid-frame is an error, not an end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "y4m.h"

/* A temporary file holding text, then n frames of w x h 4:2:0, frame k's bytes all k. */
static int make_file(const char *header, uint32_t w, uint32_t h, int n,
		     size_t cut)
{
	char path[] = "/tmp/isocam-y4m-XXXXXX";
	size_t fs = (size_t)w * h + 2 * (size_t)((w + 1) / 2) * ((h + 1) / 2);
	uint8_t *frame = malloc(fs);
	int fd = mkstemp(path);
	FILE *f;
	int k;

	assert_non_null(frame);
	assert_true(fd >= 0);
	unlink(path);
	f = fdopen(dup(fd), "wb");
	assert_non_null(f);
	fputs(header, f);
	for (k = 0; k < n; k++) {
		memset(frame, k + 1, fs);
		fputs(k % 2 ? "FRAME Ixyz\n" : "FRAME\n", f);
		fwrite(frame, 1, k == n - 1 && cut ? fs - cut : fs, f);
	}
	fclose(f);
	free(frame);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void test_reads_ffmpeg_header_and_frames(void **state)
{
	char err[160];
	int fd = make_file("YUV4MPEG2 W6 H4 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n",
			   6, 4, 3, 0);
	struct y4m *y = y4m_open_fd(fd, err, sizeof(err));
	const struct y4m_info *i;
	uint8_t buf[64];
	int k;

	(void)state;
	assert_non_null(y);
	i = y4m_info(y);
	assert_int_equal(i->width, 6);
	assert_int_equal(i->height, 4);
	assert_int_equal(i->fps_num, 30000);
	assert_int_equal(i->fps_den, 1001);
	assert_int_equal(i->chroma, Y4M_420);
	assert_int_equal(y4m_frame_size(i), 6 * 4 + 2 * 3 * 2);
	for (k = 0; k < 3; k++) {
		memset(buf, 0, sizeof(buf));
		assert_int_equal(y4m_read(y, buf, err, sizeof(err)), 1);
		assert_int_equal(buf[0], k + 1);
		assert_int_equal(buf[y4m_frame_size(i) - 1], k + 1);
		assert_int_equal(buf[y4m_frame_size(i)], 0);
	}
	assert_int_equal(y4m_read(y, buf, err, sizeof(err)), 0);
	/* a file plays again from its first frame */
	assert_int_equal(y4m_rewind(y), 0);
	assert_int_equal(y4m_read(y, buf, err, sizeof(err)), 1);
	assert_int_equal(buf[0], 1);
	y4m_close(y);
}

static void test_frame_sizes_per_chroma(void **state)
{
	struct y4m_info i = { .width = 5, .height = 3, .fps_num = 1,
			      .fps_den = 1 };

	(void)state;
	i.chroma = Y4M_420;
	assert_int_equal(y4m_frame_size(&i), 15 + 2 * 3 * 2);
	i.chroma = Y4M_422;
	assert_int_equal(y4m_frame_size(&i), 15 + 2 * 3 * 3);
	i.chroma = Y4M_444;
	assert_int_equal(y4m_frame_size(&i), 3 * 15);
	i.chroma = Y4M_MONO;
	assert_int_equal(y4m_frame_size(&i), 15);
}

/* Each header is refused, and the reason names what is wrong. */
static void test_refuses_what_it_cannot_show(void **state)
{
	static const struct {
		const char *header, *why;
	} cases[] = {
		{ "P6\n640 480\n", "not a YUV4MPEG2 stream" },
		{ "YUV4MPEG2X W2 H2 F1:1\n", "not a YUV4MPEG2 stream" },
		{ "YUV4MPEG2 W2 H2 F1:1 It\n", "interlaced" },
		{ "YUV4MPEG2 W2 H2 F1:1 C420p10\n", "chroma layout '420p10'" },
		{ "YUV4MPEG2 W2 H2 F1:1 C444alpha\n", "chroma layout" },
		{ "YUV4MPEG2 W0 H2 F1:1\n", "frame size 0x2" },
		{ "YUV4MPEG2 W9000 H2 F1:1\n", "frame size 9000x2" },
		{ "YUV4MPEG2 W2 H2\n", "no frame rate" },
		{ "YUV4MPEG2 W2 H2 F30\n", "'F30' is malformed" },
		{ "YUV4MPEG2 Wx H2 F1:1\n", "'Wx' is malformed" },
		{ "YUV4MPEG2 W2 H2 F1:0\n", "no frame rate" },
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char err[160] = "";
		int fd = make_file(cases[k].header, 2, 2, 0, 0);

		assert_null(y4m_open_fd(fd, err, sizeof(err)));
		if (!strstr(err, cases[k].why))
			fail_msg("%s: got '%s', wanted '%s'", cases[k].header,
				 err, cases[k].why);
	}
}

static void test_cut_frame_is_an_error(void **state)
{
	char err[160] = "";
	int fd = make_file("YUV4MPEG2 W4 H4 F25:1\n", 4, 4, 2, 5);
	struct y4m *y = y4m_open_fd(fd, err, sizeof(err));
	uint8_t buf[64];

	(void)state;
	assert_non_null(y);
	assert_int_equal(y4m_read(y, buf, err, sizeof(err)), 1);
	assert_int_equal(y4m_read(y, buf, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cut short: 19 of 24 bytes"));
	y4m_close(y);
}

static void test_garbage_instead_of_frame(void **state)
{
	char err[160] = "";
	int fd = make_file("YUV4MPEG2 W2 H2 F25:1\nFRAMEX\n", 2, 2, 0, 0);
	struct y4m *y = y4m_open_fd(fd, err, sizeof(err));
	uint8_t buf[16];

	(void)state;
	assert_non_null(y);
	assert_int_equal(y4m_read(y, buf, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected a FRAME line"));
	y4m_close(y);
}

/* A pipe, as from `ffmpeg ... -f yuv4mpegpipe -`: read, not rewound. */
static void test_pipe(void **state)
{
	static const char hdr[] = "YUV4MPEG2 W2 H2 F30:1 Cmono\nFRAME\n\x11\x22\x33\x44";
	char err[160] = "";
	uint8_t buf[4];
	struct y4m *y;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], hdr, sizeof(hdr) - 1),
			 (ssize_t)(sizeof(hdr) - 1));
	close(p[1]);
	y = y4m_open_fd(p[0], err, sizeof(err));
	assert_non_null(y);
	assert_int_equal(y4m_info(y)->chroma, Y4M_MONO);
	assert_int_equal(y4m_read(y, buf, err, sizeof(err)), 1);
	assert_int_equal(buf[3], 0x44);
	assert_int_equal(y4m_read(y, buf, err, sizeof(err)), 0);
	assert_int_equal(y4m_rewind(y), -1);
	y4m_close(y);
}

static void test_missing_file(void **state)
{
	char err[160] = "";

	(void)state;
	assert_null(y4m_open("/nonexistent/clip.y4m", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/clip.y4m: No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_ffmpeg_header_and_frames),
		cmocka_unit_test(test_frame_sizes_per_chroma),
		cmocka_unit_test(test_refuses_what_it_cannot_show),
		cmocka_unit_test(test_cut_frame_is_an_error),
		cmocka_unit_test(test_garbage_instead_of_frame),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests_name("emu_y4m", tests, NULL, NULL);
}
