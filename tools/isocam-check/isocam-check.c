// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isocam-check: verify raw video captured from an isocam camera (what
 * `ffmpeg -f v4l2 ... -f rawvideo out.raw` or `v4l2-ctl --stream-to=`
 * write: frames back to back) against the emulator's reference renderer.
 *
 * Per frame: the stamp (magic, format, size), its checksum, the counter
 * sequence (drops, duplicates, reordering) and the whole frame against
 * scene_render() of the stamped params and counter, which catches torn
 * frames, byte-order and stride bugs that a checksum alone would pass
 * when the driver corrupted consistently. --timeline prints every change
 * of stamped params, so a test finds the frame where a control landed.
 *
 * MJPEG (--format mjpeg): whole JPEGs back to back (what `ffmpeg -f v4l2
 * -input_format mjpeg ... -c:v copy -f mjpeg` writes), each carrying its
 * stamp in a COM segment (frame_stamp.h). Per frame: the stamp and the
 * counter sequence as above, the checksum of its SOS..EOI, the whole JPEG
 * against the emulator's own encoding of that frame (mjpeg.c, byte for
 * byte), and the decoded picture against the reference render: PSNR of
 * luma and chroma at least 18 + quality / 5 dB, which every size and test
 * pattern clears by 1 dB or more at every quality.
 *
 * --render writes reference frames, for tests and the demo.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>

#include "jpeg_decode.h"
#include "mjpeg.h"
#include "scene.h"

#define MAX_REPORTS	10	/* detail lines per kind of problem */

struct check {
	const char *path;
	struct scene_params want;	/* format and size from the user */
	size_t frame_size;
	bool timeline, any_start, quiet, allow_drops, allow_restarts, mjpeg;
	long long expect_frames;

	/* results */
	unsigned long long frames, drops, dups, reorders, restarts, bad_stamps,
			   bad_sums, mismatches, garbage;
	double min_y_db, min_c_db;	/* MJPEG: the worst frame's PSNR */
	bool have_prev;
	uint32_t prev_counter, first_counter, last_counter;
	struct scene_params prev;
	unsigned int reports;
};

static const char *const fmt_names[IC1280_FMT_COUNT] = {
	[IC1280_FMT_YUYV] = "yuyv",
	[IC1280_FMT_RGB565] = "rgb565",
	[IC1280_FMT_GREY] = "grey",
};

static void usage(FILE *o)
{
	fprintf(o,
"usage: isocam-check --format FMT --size WxH [--expect-frames N]\n"
"                    [--timeline] [--any-start] [--allow-drops]\n"
"                    [--allow-restarts] [--quiet]\n"
"                    FILE\n"
"       isocam-check --render --format FMT --size WxH [--counter N]\n"
"                    [--frames N] [--set KEY=VALUE]... OUT\n"
"\n"
"Check raw video from an isocam camera (frames back to back, FILE or -\n"
"for stdin): each frame's stamp, checksum and counter (each exactly the\n"
"previous + 1), and every byte against the emulator's reference render.\n"
"Exit 0 only when all is right; 1 when a check failed; 2 on bad usage.\n"
"\n"
"  --format FMT        yuyv (ffmpeg yuyv422), rgb565 (rgb565le), grey (gray),\n"
"                      mjpeg (JPEGs back to back; not for --render)\n"
"  --size WxH          frame size, e.g. 640x480\n"
"  --expect-frames N   the file must hold exactly N frames\n"
"  --timeline          print each change of the stamped sensor settings:\n"
"                      'frame 57 counter 61: brightness 0 -> 40'\n"
"  --any-start         the first counter need not be 0 (capture started\n"
"                      mid-stream)\n"
"  --allow-drops       gaps in the counters are counted, not failed (the\n"
"                      caller knows why frames were dropped); duplicates,\n"
"                      reordering and bad frames still fail\n"
"  --allow-restarts    a counter that goes back is the sensor starting again\n"
"                      (a USB reset or a sleep paused the stream), counted,\n"
"                      its first frames missing as at a stream start;\n"
"                      reordering cannot be told from it then\n"
"  --quiet             only the summary line\n"
"  --render            write N reference frames (counters from --counter,\n"
"                      default 0) to OUT instead of checking\n"
"  --set KEY=VALUE     a sensor setting for --render: brightness, contrast,\n"
"                      saturation, hue, exposure, gain (these two turn AEC\n"
"                      off), red, blue (turn AWB off), flip (0-3), pattern\n"
"                      (0-4), fll\n"
"\n"
"Capture with ffmpeg's -fps_mode passthrough: with -f rawvideo it otherwise\n"
"duplicates or drops frames to keep a constant rate, and this tool will\n"
"rightly report them.\n");
}

static int parse_format(const char *s)
{
	unsigned int i;

	for (i = 0; i < IC1280_FMT_COUNT; i++)
		if (!strcmp(s, fmt_names[i]))
			return (int)i;
	if (!strcmp(s, "yuyv422"))
		return IC1280_FMT_YUYV;
	if (!strcmp(s, "rgb565le"))
		return IC1280_FMT_RGB565;
	if (!strcmp(s, "gray"))
		return IC1280_FMT_GREY;
	return -1;
}

static bool parse_long(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 0);
	return !errno && end != s && !*end && *v >= min && *v <= max;
}

static bool apply_set(struct scene_params *p, const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t klen;
	long v;

	if (!eq)
		return false;
	klen = (size_t)(eq - kv);
#define KEY(name) (klen == strlen(name) && !strncmp(kv, name, klen))
	if (KEY("brightness") && parse_long(eq + 1, -128, 127, &v))
		p->brightness = (int8_t)v;
	else if (KEY("contrast") && parse_long(eq + 1, 0, 255, &v))
		p->contrast = (uint8_t)v;
	else if (KEY("saturation") && parse_long(eq + 1, 0, 255, &v))
		p->saturation = (uint8_t)v;
	else if (KEY("hue") && parse_long(eq + 1, -180, 180, &v))
		p->hue = (int16_t)v;
	else if (KEY("exposure") && parse_long(eq + 1, 1, 2000, &v))
		p->exposure = (uint16_t)v, p->aec = 0;
	else if (KEY("gain") && parse_long(eq + 1, 16, 128, &v))
		p->gain = (uint8_t)v, p->aec = 0;
	else if (KEY("red") && parse_long(eq + 1, 0, 255, &v))
		p->red_gain = (uint8_t)v, p->awb = 0;
	else if (KEY("blue") && parse_long(eq + 1, 0, 255, &v))
		p->blue_gain = (uint8_t)v, p->awb = 0;
	else if (KEY("flip") && parse_long(eq + 1, 0, 3, &v))
		p->flip = (uint8_t)v;
	else if (KEY("pattern") && parse_long(eq + 1, 0, IC1280_TP_COUNT - 1, &v))
		p->test_pattern = (uint8_t)v;
	else if (KEY("fll") && parse_long(eq + 1, 1, 65535, &v))
		p->frame_length = (uint16_t)v;
	else
		return false;
#undef KEY
	return true;
}

/* Name/value pairs of the stamped params, for --timeline. */
#define N_FIELDS 16
static void fields(const struct scene_params *p, const char **name, long *val)
{
	int i = 0;

#define F(n, v) do { name[i] = n; val[i] = (long)(v); i++; } while (0)
	F("format", p->format);
	F("width", p->width);
	F("height", p->height);
	F("brightness", p->brightness);
	F("contrast", p->contrast);
	F("saturation", p->saturation);
	F("hue", p->hue);
	F("exposure", p->exposure);
	F("gain", p->gain);
	F("red", p->red_gain);
	F("blue", p->blue_gain);
	F("flip", p->flip);
	F("pattern", p->test_pattern);
	F("aec", p->aec);
	F("fll", p->frame_length);
	F("quality", p->jpeg_quality);
#undef F
}

static void timeline(struct check *c, unsigned long long idx, uint32_t counter,
		     const struct scene_params *p)
{
	const char *n[N_FIELDS + 1], *pn[N_FIELDS + 1];
	long v[N_FIELDS + 1], pv[N_FIELDS + 1];
	int i;

	fields(p, n, v);
	n[N_FIELDS] = "awb";
	v[N_FIELDS] = p->awb;
	if (!c->have_prev) {
		printf("frame %llu counter %u: start", idx, counter);
		for (i = 0; i <= N_FIELDS; i++)
			printf(" %s %ld", n[i], v[i]);
		printf("\n");
		return;
	}
	fields(&c->prev, pn, pv);
	pv[N_FIELDS] = c->prev.awb;
	for (i = 0; i <= N_FIELDS; i++)
		if (v[i] != pv[i])
			printf("frame %llu counter %u: %s %ld -> %ld\n", idx,
			       counter, n[i], pv[i], v[i]);
}

static void report(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(struct check *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet || c->reports++ >= MAX_REPORTS * 4)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* Where and how a frame differs from the reference. */
static void describe_mismatch(struct check *c, unsigned long long idx,
			      uint32_t counter, const uint8_t *f,
			      const uint8_t *ref, size_t n, unsigned int bpp)
{
	size_t i, first = n, last = 0, diff = 0, row = c->want.width * bpp;
	bool swapped = bpp == 2;

	for (i = 0; i < n; i++) {
		if (f[i] == ref[i])
			continue;
		if (first == n)
			first = i;
		last = i;
		diff++;
	}
	for (i = ISOCAM_STAMP_LEN; swapped && i + 1 < n; i += 2)
		if (f[i] != ref[i + 1] || f[i + 1] != ref[i])
			swapped = false;
	report(c, "frame %llu counter %u: %zu bytes differ from the reference, "
	       "rows %zu..%zu (first at byte %zu: got 0x%02x, want 0x%02x)%s\n",
	       idx, counter, diff, first / row, last / row, first, f[first],
	       ref[first], swapped ? "; byte order swapped" : "");
}

/* The counter against the previous frame's: drops, duplicates, order. */
static void check_sequence(struct check *c, unsigned long long idx,
			   uint32_t counter, const struct scene_params *p)
{
	if (c->timeline)
		timeline(c, idx, counter, p);
	if (!c->have_prev) {
		c->first_counter = counter;
		if (counter && !c->any_start) {
			c->drops += counter;
			report(c, "frame %llu: first counter is %u: %u frames "
			       "missing at stream start\n", idx, counter,
			       counter);
		}
	} else if (counter == c->prev_counter + 1) {
		/* in order */
	} else if (counter == c->prev_counter) {
		c->dups++;
		report(c, "frame %llu counter %u: duplicate (an ffmpeg capture "
		       "without -fps_mode passthrough?)\n", idx, counter);
	} else if (counter > c->prev_counter) {
		c->drops += counter - c->prev_counter - 1;
		report(c, "frame %llu counter %u: %u frames dropped after %u\n",
		       idx, counter, counter - c->prev_counter - 1,
		       c->prev_counter);
	} else if (c->allow_restarts) {
		c->restarts++;
		c->drops += counter;
		report(c, "frame %llu counter %u: the sensor started again "
		       "after %u\n", idx, counter, c->prev_counter);
	} else {
		c->reorders++;
		report(c, "frame %llu counter %u: out of order after %u\n", idx,
		       counter, c->prev_counter);
	}
	c->have_prev = true;
	c->prev_counter = c->last_counter = counter;
	c->prev = *p;
}

static void check_frame(struct check *c, struct scene *sc, const uint8_t *f,
			uint8_t *ref)
{
	unsigned long long idx = c->frames++;
	struct scene_params p;
	uint32_t counter, sum;

	if (memcmp(f, ISOCAM_STAMP_MAGIC, 4)) {
		c->bad_stamps++;
		report(c, "frame %llu: no stamp (bytes %02x %02x %02x %02x)\n",
		       idx, f[0], f[1], f[2], f[3]);
		return;
	}
	if (scene_stamp_parse(f, SIZE_MAX, &p, &counter, &sum) ||
	    p.format != c->want.format || p.width != c->want.width ||
	    p.height != c->want.height) {
		c->bad_stamps++;
		report(c, "frame %llu: stamp says %s %ux%u, expected %s %ux%u\n",
		       idx, p.format < IC1280_FMT_COUNT ? fmt_names[p.format] :
		       "?", p.width, p.height, fmt_names[c->want.format],
		       c->want.width, c->want.height);
		return;
	}

	check_sequence(c, idx, counter, &p);

	if (isocam_stamp_checksum(f + ISOCAM_STAMP_LEN,
				  c->frame_size - ISOCAM_STAMP_LEN) != sum) {
		c->bad_sums++;
		report(c, "frame %llu counter %u: bad checksum\n", idx, counter);
	}
	if (scene_render(sc, &p, counter, ref) ||
	    memcmp(f, ref, c->frame_size)) {
		c->mismatches++;
		describe_mismatch(c, idx, counter, f, ref, c->frame_size,
				  p.format == IC1280_FMT_GREY ? 1 : 2);
	}
}

/*
 * A frame byte for byte the emulator's encoding decodes to that
 * encoding's pixels: its PSNR is the one measured on the first frame of
 * the same params and variant (mjpeg_variant(): the others are MCU
 * rotations, and the squared error over a frame does not change when
 * its blocks move). Decoding and rendering every frame cost the guest
 * ten times the stream.
 */
struct jpeg_psnr {
	bool valid;
	struct scene_params p;
	double y_db, c_db;
};

/* What an MJPEG frame needs besides the frame: decoder and reference. */
struct jpeg_ctx {
	struct mjpeg *mj;
	uint8_t *ref;		/* the emulator's encoding of the frame */
	size_t ref_cap;
	uint8_t *pix;		/* the picture it encodes (YUYV) */
	uint8_t *ycc;		/* the frame decoded */
	struct jpeg_psnr seen[MJPEG_VARIANTS];	/* by mjpeg_variant() */
};

/* The frame's PSNR against the reference render; -1 if it does not decode. */
static int jpeg_frame_psnr(struct scene *sc, struct jpeg_ctx *j,
			   const struct scene_params *p, uint32_t counter,
			   const uint8_t *f, size_t len, bool same_bytes,
			   double *y_db, double *c_db)
{
	struct jpeg_psnr *seen = &j->seen[mjpeg_variant(p, counter)];

	if (same_bytes && seen->valid && !memcmp(&seen->p, p, sizeof(*p))) {
		*y_db = seen->y_db;
		*c_db = seen->c_db;
		return 0;
	}
	if (jpeg_decode_ycc(f, len, p->width, p->height, j->ycc) ||
	    scene_render_pixels(sc, p, scene_shift(p, counter), j->pix))
		return -1;
	jpeg_psnr_yuyv(j->ycc, j->pix, p->width, p->height, y_db, c_db);
	if (same_bytes)
		*seen = (struct jpeg_psnr){ true, *p, *y_db, *c_db };
	return 0;
}

static void check_jpeg(struct check *c, struct scene *sc, struct jpeg_ctx *j,
		       const uint8_t *f, size_t len)
{
	unsigned long long idx = c->frames++;
	const uint8_t *st = mjpeg_stamp(f, len);
	unsigned int w = c->want.width, h = c->want.height;
	struct scene_params p;
	uint32_t counter, sum;
	double y_db, c_db, min_db;
	size_t sos, n, i;
	bool same;

	if (!st || scene_stamp_parse(st, len, &p, &counter, &sum) ||
	    !p.jpeg_quality || p.format != c->want.format ||
	    p.width != w || p.height != h) {
		c->bad_stamps++;
		report(c, "frame %llu: %s\n", idx, st ?
		       "its stamp is not of a JPEG of the expected size" :
		       "no stamp COM segment before SOS");
		return;
	}
	check_sequence(c, idx, counter, &p);
	sos = (size_t)(st - f) + ISOCAM_STAMP_LEN;
	if (isocam_stamp_checksum(f + sos, len - sos) != sum) {
		c->bad_sums++;
		report(c, "frame %llu counter %u: bad checksum\n", idx, counter);
	}
	n = mjpeg_frame(j->mj, sc, &p, p.jpeg_quality, counter, j->ref,
			j->ref_cap);
	same = n == len && !memcmp(f, j->ref, len);
	if (!same) {
		c->mismatches++;
		for (i = 0; i < len && i < n && f[i] == j->ref[i]; i++)
			;
		report(c, "frame %llu counter %u: %zu bytes, the emulator's "
		       "encoding %zu; they differ from byte %zu on\n", idx,
		       counter, len, n, i);
	}
	if (jpeg_frame_psnr(sc, j, &p, counter, f, len, same, &y_db, &c_db)) {
		c->mismatches++;
		report(c, "frame %llu counter %u: does not decode cleanly\n",
		       idx, counter);
		return;
	}
	if (y_db < c->min_y_db)
		c->min_y_db = y_db;
	if (c_db < c->min_c_db)
		c->min_c_db = c_db;
	min_db = 18 + p.jpeg_quality / 5.0;
	if (y_db < min_db || c_db < min_db) {
		c->mismatches++;
		report(c, "frame %llu counter %u: PSNR luma %.1f dB, chroma %.1f "
		       "dB against the reference, below %.1f dB for quality %u\n",
		       idx, counter, y_db, c_db, min_db, p.jpeg_quality);
	}
}

/* The whole input, for MJPEG's frames of any length. */
static uint8_t *slurp(FILE *in, size_t *len)
{
	size_t cap = 1 << 20, n = 0, got;
	uint8_t *buf = malloc(cap), *b;

	while (buf && (got = fread(buf + n, 1, cap - n, in)) > 0) {
		n += got;
		if (n == cap) {
			b = realloc(buf, cap *= 2);
			if (!b)
				free(buf);
			buf = b;
		}
	}
	*len = n;
	return buf;
}

/* Checks every JPEG in the input; returns the bytes of a cut-off last one. */
static size_t run_mjpeg(struct check *c, struct scene *sc, FILE *in)
{
	size_t raw = (size_t)c->want.width * c->want.height * 2, n, pos = 0;
	struct jpeg_ctx j = {
		.mj = mjpeg_new(),
		.ref_cap = 2 * raw + 65536,
	};
	uint8_t *buf = slurp(in, &n);

	j.ref = malloc(j.ref_cap);
	j.pix = malloc(raw);
	j.ycc = malloc(raw / 2 * 3);
	c->min_y_db = c->min_c_db = 99;
	if (!buf || !j.mj || !j.ref || !j.pix || !j.ycc) {
		fprintf(stderr, "isocam-check: out of memory\n");
		exit(2);
	}
	while (pos < n) {
		size_t len = mjpeg_frame_len(buf + pos, n - pos), skip;

		if (len) {
			check_jpeg(c, sc, &j, buf + pos, len);
			pos += len;
			continue;
		}
		/* Not a whole JPEG here: on to the next SOI, if any. */
		for (skip = 1; pos + skip + 2 < n; skip++)
			if (buf[pos + skip] == 0xff &&
			    buf[pos + skip + 1] == 0xd8 &&
			    buf[pos + skip + 2] == 0xff)
				break;
		if (pos + skip + 2 >= n) {
			/* None: a JPEG cut off at the end, or garbage. */
			if (n - pos >= 2 && buf[pos] == 0xff &&
			    buf[pos + 1] == 0xd8)
				break;
			skip = n - pos;
		}
		c->garbage++;
		report(c, "byte %zu: %zu bytes that are no JPEG frame\n", pos,
		       skip);
		pos += skip;
	}
	mjpeg_free(j.mj);
	free(j.ref);
	free(j.pix);
	free(j.ycc);
	free(buf);
	return n - pos;
}

static int run_check(struct check *c)
{
	FILE *in = strcmp(c->path, "-") ? fopen(c->path, "rb") : stdin;
	uint8_t *f = malloc(c->frame_size), *ref = malloc(c->frame_size);
	struct scene *sc = scene_new();
	size_t got = 0;
	char restarts[32] = "";
	bool ok;

	if (!in) {
		fprintf(stderr, "isocam-check: %s: %s\n", c->path,
			strerror(errno));
		free(f);
		free(ref);
		scene_free(sc);
		return 2;
	}
	if (!f || !ref || !sc) {
		fprintf(stderr, "isocam-check: out of memory\n");
		return 2;
	}
	if (c->mjpeg) {
		got = run_mjpeg(c, sc, in);
	} else {
		for (;;) {
			got = fread(f, 1, c->frame_size, in);
			if (got < c->frame_size)
				break;
			check_frame(c, sc, f, ref);
		}
	}
	if (ferror(in)) {
		fprintf(stderr, "isocam-check: %s: read error\n", c->path);
		return 2;
	}
	if (in != stdin)
		fclose(in);

	ok = !got && c->frames && (c->allow_drops || !c->drops) &&
	     !c->dups && !c->reorders && !c->garbage &&
	     !c->bad_stamps && !c->bad_sums && !c->mismatches &&
	     (c->expect_frames < 0 ||
	      (unsigned long long)c->expect_frames == c->frames);
	if (got && c->mjpeg)
		printf("%s: ends with a JPEG cut off after %zu bytes\n",
		       c->path, got);
	else if (got)
		printf("%s: ends with a partial frame of %zu bytes (frame is "
		       "%zu bytes: wrong --size or --format?)\n", c->path, got,
		       c->frame_size);
	if (c->garbage)
		printf("%s: %llu stretches of bytes that are no JPEG frame\n",
		       c->path, c->garbage);
	if (c->mjpeg && c->frames)
		printf("%s: worst PSNR against the reference: luma %.1f dB, "
		       "chroma %.1f dB\n", c->path, c->min_y_db, c->min_c_db);
	if (c->expect_frames >= 0 &&
	    (unsigned long long)c->expect_frames != c->frames)
		printf("%s: %llu frames, expected %lld\n", c->path, c->frames,
		       c->expect_frames);
	if (c->allow_restarts)
		snprintf(restarts, sizeof(restarts), "%llu restarts, ",
			 c->restarts);
	printf("isocam-check: %s: %llu frames checked (%s %ux%u), counters "
	       "%u..%u, %llu dropped, %llu duplicated, %llu reordered, "
	       "%s%llu bad stamps, %llu bad checksums, %llu mismatched: %s\n",
	       c->path, c->frames,
	       c->mjpeg ? "mjpeg" : fmt_names[c->want.format], c->want.width,
	       c->want.height, c->first_counter, c->last_counter, c->drops,
	       c->dups, c->reorders, restarts, c->bad_stamps, c->bad_sums,
	       c->mismatches, ok ? "OK" : "FAIL");
	free(f);
	free(ref);
	scene_free(sc);
	return ok ? 0 : 1;
}

static int run_render(const struct scene_params *p, const char *out,
		      uint32_t counter, long frames)
{
	FILE *o = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	size_t size = scene_frame_size(p);
	uint8_t *buf = malloc(size ? size : 1);
	struct scene *sc = scene_new();
	long i;
	int ret = 0;

	if (!o || !buf || !sc) {
		fprintf(stderr, "isocam-check: %s: %s\n", out,
			o ? "out of memory" : strerror(errno));
		free(buf);
		scene_free(sc);
		return 2;
	}
	for (i = 0; i < frames && !ret; i++) {
		if (scene_render(sc, p, counter + (uint32_t)i, buf)) {
			fprintf(stderr, "isocam-check: cannot render these "
				"params (odd YUYV width?)\n");
			ret = 2;
		} else if (fwrite(buf, 1, size, o) != size) {
			fprintf(stderr, "isocam-check: %s: write error\n", out);
			ret = 2;
		}
	}
	if (o != stdout && fclose(o) && !ret) {
		fprintf(stderr, "isocam-check: %s: %s\n", out, strerror(errno));
		ret = 2;
	}
	free(buf);
	scene_free(sc);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "expect-frames", required_argument, NULL, 'e' },
		{ "timeline", no_argument, NULL, 't' },
		{ "any-start", no_argument, NULL, 'a' },
		{ "allow-restarts", no_argument, NULL, 'R' },
		{ "allow-drops", no_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "render", no_argument, NULL, 'r' },
		{ "counter", required_argument, NULL, 'c' },
		{ "frames", required_argument, NULL, 'n' },
		{ "set", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check c;
	struct scene_params rp;
	bool render = false, have_fmt = false, have_size = false;
	long v, counter = 0, frames = 1;
	unsigned int w, h;
	char tail;
	int o, fmt;

	memset(&c, 0, sizeof(c));
	c.expect_frames = -1;
	rp = scene_params_default(IC1280_FMT_YUYV, IC1280_DEFAULT_WIDTH,
					  IC1280_DEFAULT_HEIGHT);
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			c.mjpeg = !strcmp(optarg, "mjpeg");
			fmt = c.mjpeg ? IC1280_FMT_YUYV : parse_format(optarg);
			if (fmt < 0) {
				fprintf(stderr, "isocam-check: unknown format "
					"'%s' (yuyv, rgb565, grey, mjpeg)\n", optarg);
				return 2;
			}
			rp.format = (uint8_t)fmt;
			have_fmt = true;
			break;
		case 's':
			if (sscanf(optarg, "%ux%u%c", &w, &h, &tail) != 2 ||
			    !w || !h || w > 8192 || h > 8192) {
				fprintf(stderr, "isocam-check: bad size '%s' "
					"(WxH)\n", optarg);
				return 2;
			}
			rp.width = (uint16_t)w;
			rp.height = (uint16_t)h;
			have_size = true;
			break;
		case 'e':
			if (!parse_long(optarg, 0, 1L << 40, &v)) {
				fprintf(stderr, "isocam-check: bad frame count "
					"'%s'\n", optarg);
				return 2;
			}
			c.expect_frames = v;
			break;
		case 't':
			c.timeline = true;
			break;
		case 'a':
			c.any_start = true;
			break;
		case 'D':
			c.allow_drops = true;
			break;
		case 'R':
			c.allow_restarts = true;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'r':
			render = true;
			break;
		case 'c':
			if (!parse_long(optarg, 0, UINT32_MAX, &counter)) {
				fprintf(stderr, "isocam-check: bad counter\n");
				return 2;
			}
			break;
		case 'n':
			if (!parse_long(optarg, 1, 1000000, &frames)) {
				fprintf(stderr, "isocam-check: bad --frames\n");
				return 2;
			}
			break;
		case 'S':
			if (!apply_set(&rp, optarg)) {
				fprintf(stderr, "isocam-check: bad --set '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!have_fmt || !have_size || optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (render && c.mjpeg) {
		fprintf(stderr, "isocam-check: --render writes raw frames only\n");
		return 2;
	}
	if (render)
		return run_render(&rp, argv[optind], (uint32_t)counter, frames);
	if (c.mjpeg && !mjpeg_can_encode(&rp)) {
		fprintf(stderr, "isocam-check: the camera encodes no %ux%u JPEG\n",
			rp.width, rp.height);
		return 2;
	}

	c.path = argv[optind];
	c.want = rp;
	c.frame_size = scene_frame_size(&rp);
	if (c.frame_size < ISOCAM_STAMP_LEN ||
	    (rp.format == IC1280_FMT_YUYV && (rp.width & 1))) {
		fprintf(stderr, "isocam-check: %ux%u %s cannot hold a stamp\n",
			rp.width, rp.height, fmt_names[rp.format]);
		return 2;
	}
	return run_check(&c);
}
