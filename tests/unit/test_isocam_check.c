// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isocam-check must pass a good capture and catch each kind of bad one:
 * drops, duplicates, reordering, corrupted and torn frames (also when
 * the checksum was made to fit), byte order, wrong size, truncation,
 * a late start, and --timeline must place a control change exactly;
 * for MJPEG also a JPEG that is not the emulator's, garbage between
 * frames and a cut-off last frame. Captures are synthesised with
 * scene_render and mjpeg_frame, the binary is run as the VM scenarios
 * run it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>

#include "mjpeg.h"
#include "scene.h"

#define W 160
#define H 120

struct run {
	int status;
	char out[8192];
};

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	strcpy(path, "/tmp/isocam-check-test-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* The capture: frames with these counters, brightness from `bright`. */
typedef void (*mangle_fn)(uint8_t *frame, size_t size, unsigned int i);

static void write_capture(uint8_t fmt, const uint32_t *counters, unsigned int n,
			  const int8_t *bright, mangle_fn mangle)
{
	struct scene *sc = scene_new();
	struct scene_params p = scene_params_default(fmt, W, H);
	size_t size = scene_frame_size(&p);
	uint8_t *f = malloc(size);
	FILE *o = fopen(path, "wb");
	unsigned int i;

	assert_non_null(o);
	for (i = 0; i < n; i++) {
		p.brightness = bright ? bright[i] : 0;
		assert_int_equal(scene_render(sc, &p, counters[i], f), 0);
		if (mangle)
			mangle(f, size, i);
		assert_int_equal(fwrite(f, 1, size, o), size);
	}
	fclose(o);
	free(f);
	scene_free(sc);
}

/*
 * An MJPEG capture: JPEGs back to back, each mangled (may change length);
 * from frame `at` on at quality2.
 */
typedef size_t (*mangle_jpeg_fn)(uint8_t *jpg, size_t len, unsigned int i);

static void write_mjpeg2(const uint32_t *counters, unsigned int n,
			 uint8_t quality, mangle_jpeg_fn mangle,
			 unsigned int at, uint8_t quality2)
{
	struct scene *sc = scene_new();
	struct mjpeg *m = mjpeg_new();
	struct scene_params p = scene_params_default(IC1280_FMT_YUYV, W, H);
	size_t cap = W * H * 4, len;
	uint8_t *f = malloc(cap);
	FILE *o = fopen(path, "wb");
	unsigned int i;

	assert_non_null(o);
	for (i = 0; i < n; i++) {
		len = mjpeg_frame(m, sc, &p, i < at ? quality : quality2,
				  counters[i], f, cap);
		assert_true(len > 0);
		if (mangle)
			len = mangle(f, len, i);
		assert_int_equal(fwrite(f, 1, len, o), len);
	}
	fclose(o);
	free(f);
	mjpeg_free(m);
	scene_free(sc);
}

static void write_mjpeg(const uint32_t *counters, unsigned int n,
			uint8_t quality, mangle_jpeg_fn mangle)
{
	write_mjpeg2(counters, n, quality, mangle, n, quality);
}

static void seq(uint32_t *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c[i] = i;
}

static void check(struct run *r, const char *args)
{
	char cmd[512];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "%s %s %s 2>&1", ISOCAM_CHECK, args, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = 0;
	r->status = pclose(p);
	assert_true(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
}

static void assert_has(const struct run *r, const char *s)
{
	if (!strstr(r->out, s))
		fail_msg("'%s' not in output:\n%s", s, r->out);
}

static void test_good_capture(void **state)
{
	uint32_t c[30];
	struct run r;

	(void)state;
	seq(c, 30);
	write_capture(IC1280_FMT_YUYV, c, 30, NULL, NULL);
	check(&r, "--format yuyv --size 160x120 --expect-frames 30");
	assert_int_equal(r.status, 0);
	assert_has(&r, "30 frames checked");
	assert_has(&r, "counters 0..29, 0 dropped, 0 duplicated, 0 reordered, "
		   "0 bad stamps, 0 bad checksums, 0 mismatched: OK");
	/* ffmpeg's pixel format names work too */
	check(&r, "--format yuyv422 --size 160x120");
	assert_int_equal(r.status, 0);
	/* but a different frame count does not */
	check(&r, "--format yuyv --size 160x120 --expect-frames 31");
	assert_int_equal(r.status, 1);
}

static void test_sequence_errors(void **state)
{
	static const uint32_t drop[] = { 0, 1, 2, 4, 5 };
	static const uint32_t dup[] = { 0, 1, 2, 2, 3 };
	static const uint32_t reorder[] = { 0, 1, 3, 2 };
	static const uint32_t late[] = { 3, 4, 5 };
	static const uint32_t restart[] = { 0, 1, 2, 0, 1, 2 };
	static const uint32_t restart_late[] = { 0, 1, 2, 1, 2 };
	struct run r;

	(void)state;
	write_capture(IC1280_FMT_GREY, drop, 5, NULL, NULL);
	check(&r, "--format grey --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 1 dropped");
	assert_has(&r, "FAIL");

	/* --allow-drops counts the gap but passes it */
	check(&r, "--format grey --size 160x120 --allow-drops");
	assert_int_equal(r.status, 0);
	assert_has(&r, " 1 dropped");
	assert_has(&r, ": OK");

	write_capture(IC1280_FMT_GREY, dup, 5, NULL, NULL);
	check(&r, "--format grey --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 1 duplicated");
	/* and fails a duplicate all the same */
	check(&r, "--format grey --size 160x120 --allow-drops");
	assert_int_equal(r.status, 1);

	write_capture(IC1280_FMT_GREY, reorder, 4, NULL, NULL);
	check(&r, "--format grey --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 1 reordered");

	/* a sensor that started again: reordering, unless the caller paused it */
	write_capture(IC1280_FMT_GREY, restart, 6, NULL, NULL);
	check(&r, "--format grey --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 1 reordered");
	check(&r, "--format grey --size 160x120 --allow-restarts");
	assert_int_equal(r.status, 0);
	assert_has(&r, " 0 reordered, 1 restarts, ");
	/* its first frames missing are drops, as at a stream start */
	write_capture(IC1280_FMT_GREY, restart_late, 5, NULL, NULL);
	check(&r, "--format grey --size 160x120 --allow-restarts");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 1 dropped");
	check(&r, "--format grey --size 160x120 --allow-restarts --allow-drops");
	assert_int_equal(r.status, 0);
	assert_has(&r, "the sensor started again after 2");

	write_capture(IC1280_FMT_GREY, late, 3, NULL, NULL);
	check(&r, "--format grey --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, "missing at stream start");
	check(&r, "--format grey --size 160x120 --any-start");
	assert_int_equal(r.status, 0);
}

static void flip_a_bit(uint8_t *f, size_t size, unsigned int i)
{
	if (i == 3)
		f[size / 2] ^= 0x10;
}

/* Bottom half from a later frame, and a checksum that fits. */
static void tear(uint8_t *f, size_t size, unsigned int i)
{
	struct scene *sc;
	struct scene_params p;
	uint32_t counter;
	uint8_t *next;
	uint32_t sum;

	if (i != 2)
		return;
	assert_int_equal(scene_stamp_parse(f, size, &p, &counter, NULL), 0);
	sc = scene_new();
	next = malloc(size);
	assert_int_equal(scene_render(sc, &p, counter + 1, next), 0);
	memcpy(f + size / 2, next + size / 2, size - size / 2);
	sum = isocam_stamp_checksum(f + ISOCAM_STAMP_LEN,
				    size - ISOCAM_STAMP_LEN);
	memcpy(f + ISOCAM_STAMP_OFF_CHECKSUM, &sum, 4);	/* x86: LE */
	free(next);
	scene_free(sc);
}

static void swap_bytes(uint8_t *f, size_t size, unsigned int i)
{
	size_t k;
	uint32_t sum;

	if (i != 1)
		return;
	for (k = ISOCAM_STAMP_LEN; k + 1 < size; k += 2) {
		uint8_t t = f[k];

		f[k] = f[k + 1];
		f[k + 1] = t;
	}
	sum = isocam_stamp_checksum(f + ISOCAM_STAMP_LEN,
				    size - ISOCAM_STAMP_LEN);
	memcpy(f + ISOCAM_STAMP_OFF_CHECKSUM, &sum, 4);
}

static void kill_stamp(uint8_t *f, size_t size, unsigned int i)
{
	(void)size;
	if (i == 1)
		memset(f, 0, 4);
}

static void test_content_errors(void **state)
{
	uint32_t c[6];
	struct run r;

	(void)state;
	seq(c, 6);
	write_capture(IC1280_FMT_YUYV, c, 6, NULL, flip_a_bit);
	check(&r, "--format yuyv --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 1 bad checksums, 1 mismatched");
	assert_has(&r, "frame 3 counter 3: 1 bytes differ");

	write_capture(IC1280_FMT_YUYV, c, 6, NULL, tear);
	check(&r, "--format yuyv --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 0 bad checksums, 1 mismatched");
	assert_has(&r, "frame 2 counter 2:");

	write_capture(IC1280_FMT_RGB565, c, 6, NULL, swap_bytes);
	check(&r, "--format rgb565 --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, "byte order swapped");

	write_capture(IC1280_FMT_GREY, c, 6, NULL, kill_stamp);
	check(&r, "--format grey --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, "frame 1: no stamp");
	assert_has(&r, " 1 bad stamps");
}

static void test_wrong_geometry(void **state)
{
	uint32_t c[4];
	struct run r;

	(void)state;
	seq(c, 4);
	write_capture(IC1280_FMT_GREY, c, 4, NULL, NULL);
	/* 4 x 160x120 GREY is 2 x 160x60 GREY... the stamp tells */
	check(&r, "--format grey --size 160x60");
	assert_int_equal(r.status, 1);
	assert_has(&r, "stamp says grey 160x120, expected grey 160x60");
	/* and a size that does not divide the file is a partial frame */
	check(&r, "--format yuyv --size 320x240");
	assert_int_equal(r.status, 1);
	assert_has(&r, "partial frame");
}

static void test_timeline(void **state)
{
	static const int8_t bright[8] = { 0, 0, 0, 0, 0, 40, 40, 40 };
	uint32_t c[8];
	struct run r;

	(void)state;
	seq(c, 8);
	write_capture(IC1280_FMT_YUYV, c, 8, bright, NULL);
	check(&r, "--format yuyv --size 160x120 --timeline");
	assert_int_equal(r.status, 0);
	assert_has(&r, "frame 0 counter 0: start format 0 width 160");
	assert_has(&r, "\nframe 5 counter 5: brightness 0 -> 40\n");
}

static void test_render(void **state)
{
	struct scene_params p = scene_params_default(IC1280_FMT_RGB565, W, H);
	struct scene *sc = scene_new();
	size_t size = scene_frame_size(&p);
	uint8_t *want = malloc(size), *got = malloc(size + 1);
	char cmd[512];
	FILE *f;

	(void)state;
	p.brightness = -12;
	p.flip = IC1280_FLIP_V;
	p.aec = 0;
	p.exposure = 250;
	assert_int_equal(scene_render(sc, &p, 7, want), 0);
	snprintf(cmd, sizeof(cmd), "%s --render --format rgb565 --size 160x120 "
		 "--counter 7 --set brightness=-12 --set flip=2 "
		 "--set exposure=250 %s", ISOCAM_CHECK, path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(got, 1, size + 1, f), size);
	fclose(f);
	assert_memory_equal(want, got, size);
	free(want);
	free(got);
	scene_free(sc);
}

/* One bit of entropy-coded data flipped, checksum refitted. */
static size_t flip_jpeg_bit(uint8_t *jpg, size_t len)
{
	uint8_t *st = (uint8_t *)mjpeg_stamp(jpg, len);
	size_t sos = (size_t)(st - jpg) + ISOCAM_STAMP_LEN, at = len - 40;
	uint32_t sum;

	while (jpg[at] == 0xff || jpg[at - 1] == 0xff || jpg[at] == 0xfe)
		at--;
	jpg[at] ^= 0x01;
	sum = isocam_stamp_checksum(jpg + sos, len - sos);
	memcpy(st + ISOCAM_STAMP_OFF_CHECKSUM, &sum, 4);	/* little endian */
	return len;
}

static size_t jpeg_bit(uint8_t *jpg, size_t len, unsigned int i)
{
	return i == 4 ? flip_jpeg_bit(jpg, len) : len;
}

/* Frame 36: by then each of the 16 variants was seen twice. */
static size_t jpeg_bit_late(uint8_t *jpg, size_t len, unsigned int i)
{
	return i == 36 ? flip_jpeg_bit(jpg, len) : len;
}

/* After frame 2, some bytes that belong to no frame. */
static size_t jpeg_junk(uint8_t *jpg, size_t len, unsigned int i)
{
	if (i == 2) {
		memset(jpg + len, 0x5a, 100);
		return len + 100;
	}
	return len;
}

/* The last frame (of 5) cut short. */
static size_t jpeg_cut(uint8_t *jpg, size_t len, unsigned int i)
{
	(void)jpg;
	return i == 4 ? len / 2 : len;
}

static void test_mjpeg(void **state)
{
	uint32_t c[12];
	struct run r;

	(void)state;
	seq(c, 12);
	write_mjpeg(c, 12, 85, NULL);
	check(&r, "--format mjpeg --size 160x120 --expect-frames 12");
	assert_int_equal(r.status, 0);
	assert_has(&r, "12 frames checked (mjpeg 160x120), counters 0..11, "
		   "0 dropped, 0 duplicated, 0 reordered, 0 bad stamps, "
		   "0 bad checksums, 0 mismatched: OK");
	assert_has(&r, "worst PSNR against the reference: luma ");
	/* Any quality: the stamp says which. */
	write_mjpeg(c, 12, 7, NULL);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 0);
	/* The stamp's size must be the one asked for. */
	check(&r, "--format mjpeg --size 320x240");
	assert_int_equal(r.status, 1);
	assert_has(&r, "12 bad stamps");

	c[6] = 8;
	c[7] = 9;
	write_mjpeg(c, 8, 85, NULL);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, "frame 6 counter 8: 2 frames dropped after 5");
	seq(c, 12);

	write_mjpeg(c, 6, 85, jpeg_bit);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 0 bad checksums, 1 mismatched");
	assert_has(&r, "frame 4 counter 4:");

	write_mjpeg(c, 5, 85, jpeg_junk);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, "100 bytes that are no JPEG frame");
	assert_has(&r, "5 frames checked");

	write_mjpeg(c, 5, 85, jpeg_cut);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, "ends with a JPEG cut off after");
	assert_has(&r, "4 frames checked");

	/* --timeline shows where the quality changed. */
	write_mjpeg2(c, 8, 85, NULL, 6, 30);
	check(&r, "--format mjpeg --size 160x120 --timeline");
	assert_int_equal(r.status, 0);
	assert_has(&r, "\nframe 6 counter 6: quality 85 -> 30\n");

	/* Raw frames are no JPEGs. */
	write_capture(IC1280_FMT_YUYV, c, 3, NULL, NULL);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, "0 frames checked");
}

/* The worst PSNR line of a run: "luma X dB, chroma Y dB". */
static void worst_psnr(const struct run *r, char *out, size_t n)
{
	const char *at = strstr(r->out, "worst PSNR against the reference: ");
	size_t len;

	assert_non_null(at);
	at += strlen("worst PSNR against the reference: ");
	len = strcspn(at, "\n");
	assert_true(len < n);
	memcpy(out, at, len);
	out[len] = 0;
}

/*
 * Every frame's PSNR counts, though a frame byte for byte one already
 * measured (same params, same variant) is not decoded again: a change
 * of quality is measured anew, and a changed frame is decoded.
 */
static void test_mjpeg_every_frame_measured(void **state)
{
	uint32_t c[48];
	char low[128], mixed[128];
	struct run r;

	(void)state;
	seq(c, 48);
	write_mjpeg(c, 24, 7, NULL);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 0);
	worst_psnr(&r, low, sizeof(low));
	/* 40 frames at 85, then 8 at 7: the worst is quality 7's. */
	write_mjpeg2(c, 48, 85, NULL, 40, 7);
	check(&r, "--format mjpeg --size 160x120 --expect-frames 48");
	assert_int_equal(r.status, 0);
	worst_psnr(&r, mixed, sizeof(mixed));
	assert_string_equal(mixed, low);

	write_mjpeg(c, 48, 85, jpeg_bit_late);
	check(&r, "--format mjpeg --size 160x120");
	assert_int_equal(r.status, 1);
	assert_has(&r, " 0 bad checksums, 1 mismatched");
	assert_has(&r, "frame 36 counter 36:");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_capture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequence_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_content_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_geometry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mjpeg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mjpeg_every_frame_measured, setup, teardown),
	};

	return cmocka_run_group_tests_name("isocam_check", tests, NULL, NULL);
}
