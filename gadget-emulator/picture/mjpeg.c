// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * MJPEG frames of the scene (mjpeg.h).
 *
 * A JPEG encode costs several frame intervals inside the emulated guest,
 * but the scene only ever scrolls sideways, and a JPEG with a restart
 * marker after every MCU codes each MCU on its own: the DC predictors
 * restart and the bits are byte-aligned at every marker. So for each
 * scroll within one MCU column (16 pixels in 4:2:2) the picture is
 * encoded once; any frame is then that encoding with every MCU row
 * rotated by whole MCUs and the restart markers renumbered in place: a
 * copy of the compressed bytes, and byte for byte the JPEG a direct
 * encode of that frame gives (fixed Huffman tables, exact integer DCT).
 */
#include "mjpeg.h"

#include <assert.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>	/* jpeglib.h wants FILE */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>

#include "grow.h"

#define MCU_W		16	/* 4:2:2: two 8x8 luma blocks side by side */
#define MCU_H		8
/* One encoding per scroll position within an MCU column. */
static_assert(MJPEG_VARIANTS == MCU_W, "MJPEG_VARIANTS is the MCU's width");

#define COM_LEN		(4 + ISOCAM_STAMP_LEN)	/* marker, length, stamp */

/* One scroll position within an MCU column, encoded. */
struct encoding {
	unsigned char *jpeg;	/* libjpeg's buffer; NULL: not yet */
	unsigned long len;
	size_t sos;		/* offset of the SOS marker */
	size_t data;		/* first byte of entropy-coded data */
	uint32_t *start, *end;	/* MCU i's coded bytes: [start[i], end[i]) */
};

struct mjpeg {
	bool valid;
	struct scene_params key;	/* what enc[] shows */
	uint8_t quality;
	uint32_t cols, rows;		/* MCUs */
	struct encoding enc[MCU_W];
	uint8_t *pixels;
	size_t pixels_cap;
	uint8_t *line;			/* one YCbCr 4:4:4 scanline */
	size_t line_cap;
	unsigned long encodes;
};

struct mjpeg_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jb;
};

static void err_exit(j_common_ptr ci)
{
	longjmp(((struct mjpeg_err *)ci->err)->jb, 1);
}

static void err_quiet(j_common_ptr ci, int level)
{
	(void)ci;
	(void)level;
}

uint8_t mjpeg_full_range(uint8_t v, unsigned int i)
{
	int t;

	if (!(i & 1)) {		/* luma: 16..235 to 0..255 */
		t = ((int)v - 16) * 255;
		t = t < 0 ? 0 : (t + 109) / 219;
	} else {		/* chroma: 16..240 around 128 to 0..255 */
		t = ((int)v - 128) * 255;
		t = 128 + (t >= 0 ? t + 112 : t - 112) / 224;
	}
	return (uint8_t)(t < 0 ? 0 : t > 255 ? 255 : t);
}

struct mjpeg *mjpeg_new(void)
{
	return calloc(1, sizeof(struct mjpeg));
}

static void forget(struct mjpeg *m)
{
	unsigned int r;

	for (r = 0; r < MCU_W; r++) {
		struct encoding *e = &m->enc[r];

		free(e->jpeg);
		free(e->start);
		free(e->end);
		memset(e, 0, sizeof(*e));
	}
	m->valid = false;
}

void mjpeg_free(struct mjpeg *m)
{
	if (!m)
		return;
	forget(m);
	free(m->pixels);
	free(m->line);
	free(m);
}

unsigned long mjpeg_encodes(const struct mjpeg *m)
{
	return m->encodes;
}

int mjpeg_can_encode(const struct scene_params *p)
{
	return p->format == IC1280_FMT_YUYV && p->width && p->height &&
	       !(p->width % MCU_W) && !(p->height % MCU_H);
}

/* Find the SOS segment and every MCU between the restart markers. */
static int split(const struct mjpeg *m, struct encoding *e)
{
	const uint8_t *b = e->jpeg;
	size_t n = e->len, pos = 2, i;
	uint32_t nmcu = m->cols * m->rows, k = 0;
	unsigned int seg = 0;

	if (n < 4 || b[0] != 0xff || b[1] != 0xd8)
		return -1;
	for (;;) {
		if (pos + 4 > n || b[pos] != 0xff)
			return -1;
		seg = (unsigned int)b[pos + 2] << 8 | b[pos + 3];
		if (b[pos + 1] == 0xda)
			break;
		pos += 2 + seg;
	}
	e->sos = pos;
	e->data = pos + 2 + seg;
	e->start = malloc(nmcu * sizeof(*e->start));
	e->end = malloc(nmcu * sizeof(*e->end));
	if (!e->start || !e->end)
		return -1;
	e->start[0] = (uint32_t)e->data;
	for (i = e->data; i + 1 < n;) {
		uint8_t mk = b[i + 1];

		if (b[i] != 0xff || !mk) {	/* data, or a stuffed 0xff */
			i += b[i] == 0xff ? 2 : 1;
			continue;
		}
		if (mk >= 0xd0 && mk <= 0xd7) {
			if (k + 1 >= nmcu || mk != 0xd0 + k % 8)
				return -1;
			e->end[k++] = (uint32_t)i;
			e->start[k] = (uint32_t)(i + 2);
			i += 2;
			continue;
		}
		if (mk != 0xd9 || k + 1 != nmcu || i + 2 != n)
			return -1;
		e->end[k] = (uint32_t)i;
		return 0;
	}
	return -1;
}

/* Encode the picture scrolled by r pixels (r < MCU_W) into m->enc[r]. */
static int encode(struct mjpeg *m, struct scene *sc,
		  const struct scene_params *p, unsigned int r)
{
	struct encoding *e = &m->enc[r];
	struct jpeg_compress_struct ci;
	struct mjpeg_err err;
	JSAMPROW row[1];

	if (emu_grow(&m->pixels, &m->pixels_cap, scene_frame_size(p)) ||
	    emu_grow(&m->line, &m->line_cap, (size_t)p->width * 3) ||
	    scene_render_pixels(sc, p, r, m->pixels))
		return -1;
	ci.err = jpeg_std_error(&err.mgr);
	err.mgr.error_exit = err_exit;
	err.mgr.emit_message = err_quiet;
	if (setjmp(err.jb)) {
		jpeg_destroy_compress(&ci);
		return -1;
	}
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, &e->jpeg, &e->len);
	ci.image_width = p->width;
	ci.image_height = p->height;
	ci.input_components = 3;
	ci.in_color_space = JCS_YCbCr;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, m->quality, TRUE);
	ci.comp_info[0].h_samp_factor = 2;
	ci.comp_info[0].v_samp_factor = 1;
	ci.comp_info[1].h_samp_factor = ci.comp_info[2].h_samp_factor = 1;
	ci.comp_info[1].v_samp_factor = ci.comp_info[2].v_samp_factor = 1;
	ci.restart_interval = 1;
	ci.dct_method = JDCT_ISLOW;
	ci.optimize_coding = FALSE;
	jpeg_start_compress(&ci, TRUE);
	row[0] = m->line;
	while (ci.next_scanline < ci.image_height) {
		const uint8_t *s = m->pixels +
				   (size_t)ci.next_scanline * p->width * 2;
		uint8_t *d = m->line;
		unsigned int x;

		/* YUYV to 4:4:4 with each pair's chroma twice: libjpeg's 2:1
		 * downsampling then gives the pair's chroma back exactly. */
		for (x = 0; x < p->width; x += 2, s += 4, d += 6) {
			uint8_t u = mjpeg_full_range(s[1], 1);
			uint8_t v = mjpeg_full_range(s[3], 3);

			d[0] = mjpeg_full_range(s[0], 0);
			d[1] = u;
			d[2] = v;
			d[3] = mjpeg_full_range(s[2], 2);
			d[4] = u;
			d[5] = v;
		}
		jpeg_write_scanlines(&ci, row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	m->encodes++;
	return split(m, e);
}

/* Point the cache at these params and quality, forgetting other ones. */
static int select_key(struct mjpeg *m, const struct scene_params *p,
		      uint8_t quality)
{
	if (!mjpeg_can_encode(p) || quality < MJPEG_QUALITY_MIN ||
	    quality > MJPEG_QUALITY_MAX)
		return -1;
	if (m->valid && m->quality == quality && scene_same_image(&m->key, p))
		return 0;
	forget(m);
	m->key = *p;
	m->quality = quality;
	m->cols = p->width / MCU_W;
	m->rows = p->height / MCU_H;
	m->valid = true;
	return 0;
}

static struct encoding *encoding_for(struct mjpeg *m, struct scene *sc,
				     const struct scene_params *p,
				     unsigned int r)
{
	struct encoding *e = &m->enc[r];

	if (e->start)
		return e;
	if (encode(m, sc, p, r)) {
		free(e->jpeg);
		free(e->start);
		free(e->end);
		memset(e, 0, sizeof(*e));
		return NULL;
	}
	return e;
}

int mjpeg_prepare(struct mjpeg *m, struct scene *sc,
		  const struct scene_params *p, uint8_t quality)
{
	uint32_t c;

	if (select_key(m, p, quality))
		return -1;
	/* Sixteen frames pass every scroll within an MCU column. */
	for (c = 0; c < MCU_W; c++)
		if (!encoding_for(m, sc, p, scene_shift(p, c) % MCU_W))
			return -1;
	return 0;
}

unsigned int mjpeg_variant(const struct scene_params *p, uint32_t counter)
{
	return scene_shift(p, counter) % MCU_W;
}

size_t mjpeg_frame(struct mjpeg *m, struct scene *sc,
		   const struct scene_params *p, uint8_t quality,
		   uint32_t counter, uint8_t *out, size_t cap)
{
	uint32_t shift = scene_shift(p, counter), k, y, c, nmcu;
	const struct encoding *e;
	struct scene_params sp;
	uint8_t *o, *com, *sos;
	size_t total;

	if (select_key(m, p, quality))
		return 0;
	e = encoding_for(m, sc, p, mjpeg_variant(p, counter));
	if (!e)
		return 0;
	/* Rotating MCUs moves bytes but never adds or drops any. */
	total = e->len + COM_LEN;
	if (total > cap || total > UINT32_MAX)
		return 0;
	k = shift / MCU_W;
	nmcu = m->cols * m->rows;

	o = out;
	memcpy(o, e->jpeg, e->sos);
	o += e->sos;
	com = o;
	com[0] = 0xff;
	com[1] = 0xfe;
	com[2] = 0;
	com[3] = COM_LEN - 2;
	o += COM_LEN;
	sos = o;
	memcpy(o, e->jpeg + e->sos, e->data - e->sos);
	o += e->data - e->sos;
	for (y = 0; y < m->rows; y++) {
		for (c = 0; c < m->cols; c++) {
			uint32_t i = y * m->cols + (c + k) % m->cols;
			uint32_t at = y * m->cols + c;
			size_t len = e->end[i] - e->start[i];

			memcpy(o, e->jpeg + e->start[i], len);
			o += len;
			if (at + 1 < nmcu) {
				o[0] = 0xff;
				o[1] = (uint8_t)(0xd0 + at % 8);
				o += 2;
			}
		}
	}
	o[0] = 0xff;
	o[1] = 0xd9;
	o += 2;

	sp = *p;
	sp.jpeg_quality = quality;
	scene_stamp_write(com + 4, &sp, counter,
			  isocam_stamp_checksum(sos, (size_t)(o - sos)),
			  (uint32_t)total);
	return total;
}

/* The offset of the SOS marker after the segments from SOI on, or 0. */
static size_t find_sos(const uint8_t *b, size_t n, size_t *com)
{
	size_t pos = 2;

	*com = 0;
	if (n < 4 || b[0] != 0xff || b[1] != 0xd8)
		return 0;
	while (pos + 4 <= n && b[pos] == 0xff) {
		size_t seg = (size_t)b[pos + 2] << 8 | b[pos + 3];

		if (b[pos + 1] == 0xda)
			return pos;
		if (seg < 2)
			return 0;
		*com = b[pos + 1] == 0xfe && seg == COM_LEN - 2 ? pos : 0;
		pos += 2 + seg;
	}
	return 0;
}

size_t mjpeg_frame_len(const uint8_t *buf, size_t n)
{
	size_t com, i = find_sos(buf, n, &com);

	if (!i || i + 4 > n)
		return 0;
	for (i += 2 + ((size_t)buf[i + 2] << 8 | buf[i + 3]); i + 1 < n; i++) {
		if (buf[i] != 0xff || !buf[i + 1] ||
		    (buf[i + 1] >= 0xd0 && buf[i + 1] <= 0xd7))
			continue;	/* data, stuffing, restart markers */
		return buf[i + 1] == 0xd9 ? i + 2 : 0;
	}
	return 0;
}

const uint8_t *mjpeg_stamp(const uint8_t *jpg, size_t len)
{
	size_t com, sos = find_sos(jpg, len, &com);

	return sos && com && com + COM_LEN == sos ? jpg + com + 4 : NULL;
}
