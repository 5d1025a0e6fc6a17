/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The bridge's JPEG encoder: MJPEG frames of the scene, cheap enough for
 * the emulated guest. Baseline JPEG, YCbCr 4:2:2 in full range (JFIF),
 * a restart marker after every MCU, the frame stamp in a COM segment
 * (frame_stamp.h). Pixels: the scene's YUYV (scene_render_pixels(), no
 * stamp drawn) with luma and chroma stretched from limited to full range
 * (mjpeg_full_range()).
 */
#ifndef ISOCAM_EMU_MJPEG_H
#define ISOCAM_EMU_MJPEG_H

#include <stddef.h>
#include <stdint.h>

#include "scene.h"

#define MJPEG_QUALITY_MIN	1
#define MJPEG_QUALITY_MAX	100

struct mjpeg;

struct mjpeg *mjpeg_new(void);
void mjpeg_free(struct mjpeg *m);

/* Whether the encoder takes these params: YUYV, sizes in whole MCUs. */
int mjpeg_can_encode(const struct scene_params *p);

/*
 * Encode frame `counter` of the scene into out (cap bytes). Returns the
 * frame's length, or 0 when the params cannot be encoded, the frame does
 * not fit in cap or memory ran out. The first frame at each scroll
 * within an MCU (and after any change of params or quality) pays for a
 * real encode; the others cost a copy of the compressed bytes.
 */
size_t mjpeg_frame(struct mjpeg *m, struct scene *sc,
		   const struct scene_params *p, uint8_t quality,
		   uint32_t counter, uint8_t *out, size_t cap);

/*
 * Which of the MJPEG_VARIANTS encodings (one per scroll position within
 * an MCU column) frame `counter` is made from: frames of one variant and
 * params are that encoding with its MCUs rotated, so they decode to the
 * same pixels, rotated by whole MCUs.
 */
#define MJPEG_VARIANTS	16
unsigned int mjpeg_variant(const struct scene_params *p, uint32_t counter);

/* Encode every scroll position now (e.g. at stream start); 0 or -1. */
int mjpeg_prepare(struct mjpeg *m, struct scene *sc,
		  const struct scene_params *p, uint8_t quality);

/* Real encodes so far (for the cost to be visible in benchmarks). */
unsigned long mjpeg_encodes(const struct mjpeg *m);

/*
 * Reading frames back (test tools): the length of the JPEG that starts
 * at buf (SOI through EOI, n bytes available), or 0 if it is not one;
 * and its stamp (the COM segment right before SOS), or NULL.
 */
size_t mjpeg_frame_len(const uint8_t *buf, size_t n);
const uint8_t *mjpeg_stamp(const uint8_t *jpg, size_t len);

/* Limited-range YUYV byte at position i (0: Y, 1: U, 2: Y, 3: V) to full range. */
uint8_t mjpeg_full_range(uint8_t v, unsigned int i);

#endif /* ISOCAM_EMU_MJPEG_H */
