// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The synthetic scene and the test patterns (scene.h).
 *
 * The picture is drawn once per geometry as an 8-bit index image over a
 * palette of at most 256 colours: a background of hue columns and
 * brightness bands, and a few shapes (discs, colour squares, a fine
 * checker, a grey ramp) that make flips, byte order and motion visible.
 * All image controls are per-colour functions, so a control change
 * costs one 256-entry palette recomputation plus one table-lookup pass
 * to the output format ("base image"). Per frame, the scene scrolls
 * left by a few pixels: each row is copied from the base image at a
 * wrapping offset (two memcpy per row), then the stamp is written. The
 * checksum of each scroll offset is cached, since it only depends on the
 * base image and the offset.
 *
 * Each palette colour goes through the sensor's processing (isp.h); test
 * patterns skip its controls: they are made after the pixel array and
 * the ISP, and are exact references.
 */
#include "scene.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>

#include "grow.h"
#include "isp.h"

#define MAX_DIM		8192

struct rgb {
	uint8_t r, g, b;
};

/* One palette in the output's terms. */
struct palette {
	uint8_t y[256];		/* limited range luma (YUYV, GREY) */
	uint8_t u[256], v[256];
	uint16_t rgb565[256];
};

struct scene {
	/* index image, depends on geometry only */
	bool idx_valid;
	uint16_t iw, ih;
	uint8_t iflip, itp;
	uint8_t *idx;
	size_t idx_cap;

	/* base image in the output format, depends on all image params */
	bool base_valid;
	struct scene_params bp;
	uint8_t *base;
	size_t base_cap;

	/* checksum of bytes after the stamp, per scroll offset */
	uint32_t *sum;
	uint8_t *sum_valid;
	size_t sum_cap;
};

/* Background palette layout: HUES columns x BANDS rows, then extras. */
#define HUES		32
#define BANDS		6
#define P_BLACK		192
#define P_WHITE		193
#define P_GREY		194
#define P_RED		195
#define P_GREEN		196
#define P_BLUE		197
#define P_YELLOW	198
#define P_DARK		199
#define P_RAMP0		200	/* 200..255: grey ramp */
#define RAMP_N		56

struct scene_params scene_params_default(uint8_t fmt, uint16_t w, uint16_t h)
{
	struct scene_params p;

	memset(&p, 0, sizeof(p));
	p.format = fmt;
	p.width = w;
	p.height = h;
	p.brightness = IC1280_BRIGHTNESS_DEFAULT;
	p.contrast = IC1280_CONTRAST_DEFAULT;
	p.saturation = IC1280_SATURATION_DEFAULT;
	p.hue = IC1280_HUE_DEFAULT;
	p.exposure = IC1280_EXPOSURE_DEFAULT;
	p.gain = IC1280_GAIN_DEFAULT;
	p.red_gain = IC1280_WB_GAIN_DEFAULT;
	p.blue_gain = IC1280_WB_GAIN_DEFAULT;
	p.aec = IC1280_AEC_DEFAULT;
	p.awb = IC1280_AWB_DEFAULT;
	p.frame_length = IC1280_FLL_DEFAULT;
	return p;
}

size_t scene_frame_size(const struct scene_params *p)
{
	size_t px = (size_t)p->width * p->height;

	switch (p->format) {
	case IC1280_FMT_YUYV:
	case IC1280_FMT_RGB565:
		return px * 2;
	case IC1280_FMT_GREY:
		return px;
	default:
		return 0;
	}
}

static unsigned int bytes_pp(uint8_t format)
{
	return format == IC1280_FMT_GREY ? 1 : 2;
}

static bool params_renderable(const struct scene_params *p)
{
	if (p->format >= IC1280_FMT_COUNT || !p->width || !p->height ||
	    p->width > MAX_DIM || p->height > MAX_DIM ||
	    p->test_pattern >= IC1280_TP_COUNT)
		return false;
	if (p->format == IC1280_FMT_YUYV && (p->width & 1))
		return false;	/* YUYV macropixels are two wide */
	return scene_frame_size(p) >= ISOCAM_STAMP_LEN;
}

/* ---- palettes ---- */

/* Background colour: hue column h, brightness band b (HSV, integer). */
static struct rgb background_rgb(unsigned int h, unsigned int b)
{
	unsigned int v = 70 + b * 33;		/* 70..235 */
	unsigned int s = 150;
	unsigned int h6 = h * 6 * 256 / HUES;	/* 0..1535 */
	unsigned int sector = h6 >> 8, f = h6 & 255;
	uint8_t p = (uint8_t)(v * (255 - s) / 255);
	uint8_t q = (uint8_t)(v * (255 * 255 - s * f) / (255 * 255));
	uint8_t t = (uint8_t)(v * (255 * 255 - s * (255 - f)) / (255 * 255));
	uint8_t vv = (uint8_t)v;

	switch (sector) {
	case 0: return (struct rgb){ vv, t, p };
	case 1: return (struct rgb){ q, vv, p };
	case 2: return (struct rgb){ p, vv, t };
	case 3: return (struct rgb){ p, q, vv };
	case 4: return (struct rgb){ t, p, vv };
	default: return (struct rgb){ vv, p, q };
	}
}

static struct rgb scene_rgb(unsigned int i)
{
	static const struct rgb extras[] = {
		[P_BLACK - P_BLACK] = { 0, 0, 0 },
		[P_WHITE - P_BLACK] = { 220, 220, 220 },
		[P_GREY - P_BLACK] = { 128, 128, 128 },
		[P_RED - P_BLACK] = { 200, 30, 30 },
		[P_GREEN - P_BLACK] = { 30, 180, 40 },
		[P_BLUE - P_BLACK] = { 30, 50, 200 },
		[P_YELLOW - P_BLACK] = { 230, 210, 40 },
		[P_DARK - P_BLACK] = { 40, 40, 40 },
	};

	if (i < P_BLACK)
		return background_rgb(i % HUES, i / HUES);
	if (i < P_RAMP0)
		return extras[i - P_BLACK];
	i = (i - P_RAMP0) * 255 / (RAMP_N - 1);
	return (struct rgb){ (uint8_t)i, (uint8_t)i, (uint8_t)i };
}

static struct rgb pattern_rgb(uint8_t tp, unsigned int i)
{
	/* 100% colour bars: white, yellow, cyan, green, magenta, red, blue, black */
	static const struct rgb bars[8] = {
		{ 255, 255, 255 }, { 255, 255, 0 }, { 0, 255, 255 },
		{ 0, 255, 0 }, { 255, 0, 255 }, { 255, 0, 0 },
		{ 0, 0, 255 }, { 0, 0, 0 },
	};

	if (tp == IC1280_TP_COLOR_BARS)
		return bars[i & 7];
	return (struct rgb){ (uint8_t)i, (uint8_t)i, (uint8_t)i };
}

static void palette_entry(struct palette *pal, unsigned int i, struct rgb c,
			  const struct scene_params *p, bool isp)
{
	struct isp_out o = isp_pixel(p, c.r, c.g, c.b, isp);

	pal->y[i] = o.y;
	pal->u[i] = o.u;
	pal->v[i] = o.v;
	pal->rgb565[i] = o.rgb565;
}

static void palette_build(struct palette *pal, const struct scene_params *p)
{
	unsigned int i;

	for (i = 0; i < 256; i++) {
		if (p->test_pattern == IC1280_TP_OFF)
			palette_entry(pal, i, scene_rgb(i), p, true);
		else
			palette_entry(pal, i, pattern_rgb(p->test_pattern, i),
				      p, false);
	}
}

/* ---- index image ---- */

/*
 * Drawn row by row as spans (a disc is a span per row from an integer
 * square root), with per-column values computed once: no division or
 * shape test per pixel, so even a geometry change (size, flip, test
 * pattern) under qemu TCG costs a few milliseconds, not a frame.
 */

static long isqrt(long v)
{
	long r = 0, bit = 1L << 30;

	while (bit > v)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

static void span(uint8_t *row, long w, long x0, long x1, uint8_t v)
{
	if (x0 < 0)
		x0 = 0;
	if (x1 > w)
		x1 = w;
	if (x1 > x0)
		memset(row + x0, v, (size_t)(x1 - x0));
}

/* Pixels with (x - cx)^2 + (y - cy)^2 <= r^2. */
static void disc_row(uint8_t *row, long w, long y, long cx, long cy, long r,
		     uint8_t v)
{
	long dy = y - cy, half;

	if (dy < -r || dy > r)
		return;
	half = isqrt(r * r - dy * dy);
	span(row, w, cx - half, cx + half + 1, v);
}

/* Per-column tables of one geometry. */
struct columns {
	uint8_t *hue;		/* background hue column */
	uint8_t *ramp;		/* grey ramp step */
	uint8_t *cell;		/* checker cell parity */
};

static void scene_row(uint8_t *row, const struct columns *c, long y, long w,
		      long h)
{
	long cell = w / 80 > 2 ? w / 80 : 2, x;
	uint8_t band = (uint8_t)(y * BANDS / h * HUES);

	/* back to front: background, ramp, squares, triangle, discs, checker */
	for (x = 0; x < w; x++)
		row[x] = band + c->hue[x];
	if (y >= h * 7 / 8 && y < h * 15 / 16)
		for (x = 0; x < w; x++)
			row[x] = P_RAMP0 + c->ramp[x];
	if (y >= h * 3 / 4 && y < h * 3 / 4 + h / 10) {
		long x0 = w * 9 / 16, sq = w / 16;

		span(row, w, x0, x0 + sq, P_RED);
		span(row, w, x0 + sq, x0 + 2 * sq, P_GREEN);
		span(row, w, x0 + 2 * sq, x0 + 3 * sq, P_BLUE);
	}
	/* an upward triangle: up and down differ at a glance */
	if (y >= h / 2 && y < h / 2 + h / 5) {
		long half = (y - h / 2) * (w / 16) / (h / 5 ? h / 5 : 1);

		span(row, w, w * 7 / 8 - half, w * 7 / 8 + half + 1, P_GREY);
	}
	disc_row(row, w, y, w / 2, h * 5 / 8, h / 8, P_DARK);
	disc_row(row, w, y, w / 2 + h / 32, h * 5 / 8, h / 24, P_YELLOW);
	disc_row(row, w, y, w / 4, h / 3, h / 6, P_WHITE);
	/* a fine checker: sharp edges, shows byte order and tearing */
	if (y >= h / 8 && y < h * 3 / 8) {
		uint8_t ry = (uint8_t)(y / cell & 1);

		for (x = w * 5 / 8; x < w * 6 / 8; x++)
			row[x] = (c->cell[x] ^ ry) ? P_WHITE : P_BLACK;
	}
}

static void pattern_row(uint8_t *row, uint8_t tp, long y, long w)
{
	long sq = w / 16 > 1 ? w / 16 : 1, x;

	switch (tp) {
	case IC1280_TP_COLOR_BARS:
		for (x = 0; x < w; x++)
			row[x] = (uint8_t)(x * 8 / w);
		break;
	case IC1280_TP_GRADIENT:
		for (x = 0; x < w; x++)
			row[x] = (uint8_t)(x * 256 / w);
		break;
	case IC1280_TP_CHECKERBOARD:
		for (x = 0; x < w; x++)
			row[x] = ((x / sq + y / sq) & 1) ? 255 : 0;
		break;
	default:	/* IC1280_TP_SOLID_WHITE */
		memset(row, 255, (size_t)w);
		break;
	}
}

/*
 * The flips are applied here, once: vflip reverses rows; hflip mirrors
 * the columns and, in scene_render, reverses the scroll offset. Test
 * patterns repeat rows, so each distinct row is drawn once.
 */
static int index_build(struct scene *sc, const struct scene_params *p)
{
	long w = p->width, h = p->height, x, y;
	uint8_t flip = p->test_pattern ? 0 : p->flip;
	uint8_t *tmp, *prev = NULL;
	struct columns c;
	long prev_key = -1;

	if (sc->idx_valid && sc->iw == w && sc->ih == h && sc->iflip == flip &&
	    sc->itp == p->test_pattern)
		return 0;
	sc->idx_valid = false;
	if (emu_grow(&sc->idx, &sc->idx_cap, (size_t)w * h))
		return -1;
	tmp = malloc((size_t)w * 4);
	if (!tmp)
		return -1;
	c.hue = tmp + w;
	c.ramp = tmp + 2 * w;
	c.cell = tmp + 3 * w;
	for (x = 0; x < w; x++) {
		long cell = w / 80 > 2 ? w / 80 : 2;

		c.hue[x] = (uint8_t)(x * HUES / w);
		c.ramp[x] = (uint8_t)(x * RAMP_N / w);
		c.cell[x] = (uint8_t)(x / cell & 1);
	}
	for (y = 0; y < h; y++) {
		long sy = (flip & IC1280_FLIP_V) ? h - 1 - y : y;
		uint8_t *row = sc->idx + (size_t)y * w;
		long key = sy;

		if (p->test_pattern == IC1280_TP_CHECKERBOARD)
			key = sy / (w / 16 > 1 ? w / 16 : 1) & 1;
		else if (p->test_pattern)
			key = 0;
		if (p->test_pattern && key == prev_key) {
			memcpy(row, prev, (size_t)w);
			continue;
		}
		if (p->test_pattern)
			pattern_row(tmp, p->test_pattern, sy, w);
		else
			scene_row(tmp, &c, sy, w, h);
		if (flip & IC1280_FLIP_H)
			for (x = 0; x < w; x++)
				row[x] = tmp[w - 1 - x];
		else
			memcpy(row, tmp, (size_t)w);
		prev = row;
		prev_key = key;
	}
	free(tmp);
	sc->iw = (uint16_t)w;
	sc->ih = (uint16_t)h;
	sc->iflip = flip;
	sc->itp = p->test_pattern;
	sc->idx_valid = true;
	return 0;
}

/* ---- base image ---- */

/* Only these params change pixels; AEC/AWB flags and FLL are stamp-only. */
int scene_same_image(const struct scene_params *a,
		     const struct scene_params *b)
{
	return a->format == b->format && a->width == b->width &&
	       a->height == b->height && a->brightness == b->brightness &&
	       a->contrast == b->contrast && a->saturation == b->saturation &&
	       a->hue == b->hue && a->exposure == b->exposure &&
	       a->gain == b->gain && a->red_gain == b->red_gain &&
	       a->blue_gain == b->blue_gain && a->flip == b->flip &&
	       a->test_pattern == b->test_pattern;
}

static int base_build(struct scene *sc, const struct scene_params *p)
{
	struct palette pal;
	size_t n = (size_t)p->width * p->height, i;
	uint8_t *o;

	if (sc->base_valid && scene_same_image(&sc->bp, p))
		return 0;
	sc->base_valid = false;
	if (index_build(sc, p) || emu_grow(&sc->base, &sc->base_cap,
				       scene_frame_size(p)))
		return -1;
	if (sc->sum_cap < p->width) {
		uint32_t *s = realloc(sc->sum, p->width * sizeof(*s));
		uint8_t *v;

		if (!s)
			return -1;
		sc->sum = s;
		v = realloc(sc->sum_valid, p->width);
		if (!v)
			return -1;
		sc->sum_valid = v;
		sc->sum_cap = p->width;
	}
	memset(sc->sum_valid, 0, p->width);

	palette_build(&pal, p);
	o = sc->base;
	switch (p->format) {
	case IC1280_FMT_GREY:
		for (i = 0; i < n; i++)
			o[i] = pal.y[sc->idx[i]];
		break;
	case IC1280_FMT_RGB565:
		for (i = 0; i < n; i++) {
			uint16_t c = pal.rgb565[sc->idx[i]];

			o[2 * i] = (uint8_t)c;		/* little endian */
			o[2 * i + 1] = (uint8_t)(c >> 8);
		}
		break;
	default:	/* YUYV: chroma is the mean of the pixel pair */
		for (i = 0; i < n; i += 2) {
			uint8_t a = sc->idx[i], b = sc->idx[i + 1];

			o[2 * i] = pal.y[a];
			o[2 * i + 1] = (uint8_t)((pal.u[a] + pal.u[b] + 1) >> 1);
			o[2 * i + 2] = pal.y[b];
			o[2 * i + 3] = (uint8_t)((pal.v[a] + pal.v[b] + 1) >> 1);
		}
		break;
	}
	sc->bp = *p;
	sc->base_valid = true;
	return 0;
}

struct scene *scene_new(void)
{
	return calloc(1, sizeof(struct scene));
}

void scene_free(struct scene *sc)
{
	if (!sc)
		return;
	free(sc->idx);
	free(sc->base);
	free(sc->sum);
	free(sc->sum_valid);
	free(sc);
}

/* Pixels the scene moves per frame: even (YUYV pairs), ~0.3% of the width. */
static uint32_t scroll_step(uint16_t width)
{
	uint32_t s = (width / 320u) & ~1u;

	return s < 2 ? 2 : s;
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *b, uint32_t v)
{
	put16(b, (uint16_t)v);
	put16(b + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

static uint32_t get32(const uint8_t *b)
{
	return get16(b) | (uint32_t)get16(b + 2) << 16;
}

void scene_stamp_write(uint8_t *f, const struct scene_params *p,
		       uint32_t counter, uint32_t sum, uint32_t size)
{
	memset(f, 0, ISOCAM_STAMP_LEN);
	memcpy(f, ISOCAM_STAMP_MAGIC, 4);
	put32(f + ISOCAM_STAMP_OFF_COUNTER, counter);
	put32(f + ISOCAM_STAMP_OFF_CHECKSUM, sum);
	put32(f + ISOCAM_STAMP_OFF_SIZEIMAGE, size);
	f[ISOCAM_STAMP_OFF_FORMAT] = p->format;
	f[ISOCAM_STAMP_OFF_FLIP] = p->flip;
	f[ISOCAM_STAMP_OFF_TEST_PATTERN] = p->test_pattern;
	f[ISOCAM_STAMP_OFF_FLAGS] = (p->aec ? ISOCAM_STAMP_FLAG_AEC : 0) |
				    (p->awb ? ISOCAM_STAMP_FLAG_AWB : 0) |
				    (p->jpeg_quality ? ISOCAM_STAMP_FLAG_JPEG : 0);
	f[ISOCAM_STAMP_OFF_JPEG_QUALITY] = p->jpeg_quality;
	put16(f + ISOCAM_STAMP_OFF_WIDTH, p->width);
	put16(f + ISOCAM_STAMP_OFF_HEIGHT, p->height);
	f[ISOCAM_STAMP_OFF_BRIGHTNESS] = (uint8_t)p->brightness;
	f[ISOCAM_STAMP_OFF_CONTRAST] = p->contrast;
	f[ISOCAM_STAMP_OFF_SATURATION] = p->saturation;
	f[ISOCAM_STAMP_OFF_GAIN] = p->gain;
	put16(f + ISOCAM_STAMP_OFF_HUE, (uint16_t)p->hue);
	put16(f + ISOCAM_STAMP_OFF_EXPOSURE, p->exposure);
	f[ISOCAM_STAMP_OFF_RED_GAIN] = p->red_gain;
	f[ISOCAM_STAMP_OFF_BLUE_GAIN] = p->blue_gain;
	put16(f + ISOCAM_STAMP_OFF_FLL, p->frame_length);
}

uint32_t scene_shift(const struct scene_params *p, uint32_t counter)
{
	uint32_t off;

	if (p->test_pattern != IC1280_TP_OFF || !p->width)
		return 0;
	off = (uint32_t)((uint64_t)counter * scroll_step(p->width) % p->width);
	if (p->flip & IC1280_FLIP_H)
		off = (p->width - off) % p->width;
	return off;
}

int scene_render_pixels(struct scene *sc, const struct scene_params *p,
			uint32_t shift, uint8_t *buf)
{
	size_t bpp, row, size, y;

	if (!params_renderable(p) || shift >= p->width || base_build(sc, p))
		return -1;
	bpp = bytes_pp(p->format);
	row = (size_t)p->width * bpp;
	size = scene_frame_size(p);

	/* The hot path: the scene moves by rotating every row. */
	if (!shift) {
		memcpy(buf, sc->base, size);
	} else {
		size_t a = shift * bpp;

		for (y = 0; y < p->height; y++) {
			const uint8_t *src = sc->base + y * row;
			uint8_t *dst = buf + y * row;

			memcpy(dst, src + a, row - a);
			memcpy(dst + row - a, src, a);
		}
	}
	return 0;
}

int scene_render(struct scene *sc, const struct scene_params *p,
		 uint32_t counter, uint8_t *buf)
{
	uint32_t off = scene_shift(p, counter);
	size_t size;

	if (scene_render_pixels(sc, p, off, buf))
		return -1;
	size = scene_frame_size(p);
	if (!sc->sum_valid[off]) {
		sc->sum[off] = isocam_stamp_checksum(buf + ISOCAM_STAMP_LEN,
						     size - ISOCAM_STAMP_LEN);
		sc->sum_valid[off] = 1;
	}
	scene_stamp_write(buf, p, counter, sc->sum[off], (uint32_t)size);
	return 0;
}

int scene_stamp_parse(const uint8_t *frame, size_t len,
		      struct scene_params *p, uint32_t *counter,
		      uint32_t *checksum)
{
	uint8_t flags;

	if (len < ISOCAM_STAMP_LEN || memcmp(frame, ISOCAM_STAMP_MAGIC, 4))
		return -1;
	memset(p, 0, sizeof(*p));
	p->format = frame[ISOCAM_STAMP_OFF_FORMAT];
	p->flip = frame[ISOCAM_STAMP_OFF_FLIP];
	p->test_pattern = frame[ISOCAM_STAMP_OFF_TEST_PATTERN];
	flags = frame[ISOCAM_STAMP_OFF_FLAGS];
	p->aec = !!(flags & ISOCAM_STAMP_FLAG_AEC);
	p->awb = !!(flags & ISOCAM_STAMP_FLAG_AWB);
	p->width = get16(frame + ISOCAM_STAMP_OFF_WIDTH);
	p->height = get16(frame + ISOCAM_STAMP_OFF_HEIGHT);
	p->brightness = (int8_t)frame[ISOCAM_STAMP_OFF_BRIGHTNESS];
	p->contrast = frame[ISOCAM_STAMP_OFF_CONTRAST];
	p->saturation = frame[ISOCAM_STAMP_OFF_SATURATION];
	p->gain = frame[ISOCAM_STAMP_OFF_GAIN];
	p->hue = (int16_t)get16(frame + ISOCAM_STAMP_OFF_HUE);
	p->exposure = get16(frame + ISOCAM_STAMP_OFF_EXPOSURE);
	p->red_gain = frame[ISOCAM_STAMP_OFF_RED_GAIN];
	p->blue_gain = frame[ISOCAM_STAMP_OFF_BLUE_GAIN];
	p->frame_length = get16(frame + ISOCAM_STAMP_OFF_FLL);
	p->jpeg_quality = frame[ISOCAM_STAMP_OFF_JPEG_QUALITY];
	if (counter)
		*counter = get32(frame + ISOCAM_STAMP_OFF_COUNTER);
	if (checksum)
		*checksum = get32(frame + ISOCAM_STAMP_OFF_CHECKSUM);
	if (!params_renderable(p))
		return -1;
	/* A JPEG's stamped size is its own, a raw frame's its params'. */
	if (flags & ISOCAM_STAMP_FLAG_JPEG)
		return p->jpeg_quality && p->jpeg_quality <= 100 &&
		       get32(frame + ISOCAM_STAMP_OFF_SIZEIMAGE) == len ? 0 : -1;
	if (p->jpeg_quality ||
	    get32(frame + ISOCAM_STAMP_OFF_SIZEIMAGE) != scene_frame_size(p) ||
	    scene_frame_size(p) > len)
		return -1;
	return 0;
}
