/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The synthetic scene: a deterministic moving picture rendered from the
 * sensor's registers. scene_render() is THE reference: the emulator
 * sends exactly what it produces, and test tools call it to compute the
 * frame they expect. Per-frame cost is about a memcpy (tables are
 * rebuilt only when parameters change; motion is a row offset).
 */
#ifndef ISOCAM_EMU_SCENE_H
#define ISOCAM_EMU_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "scene_params.h"

/* The sensor's power-on settings as effective params, in fmt at w x h. */
struct scene_params scene_params_default(uint8_t fmt, uint16_t w, uint16_t h);

struct scene;

struct scene *scene_new(void);
void scene_free(struct scene *sc);

/*
 * Whether a and b give the same pictures (the stamp aside: auto modes
 * and frame length only show there).
 */
int scene_same_image(const struct scene_params *a,
		     const struct scene_params *b);

/* Bytes of one frame for the params' format and size. */
size_t scene_frame_size(const struct scene_params *p);

/*
 * Render frame number `counter` (since stream start) into buf, which
 * holds scene_frame_size(p) bytes, stamp included (frame_stamp.h).
 * Returns 0, or -1 for params it cannot render (unknown format, size 0).
 */
int scene_render(struct scene *sc, const struct scene_params *p,
		 uint32_t counter, uint8_t *buf);

/*
 * The scroll of frame `counter`: it shows the scene moved left by this
 * many pixels (0 for test patterns), wrapping around.
 */
uint32_t scene_shift(const struct scene_params *p, uint32_t counter);

/*
 * The picture alone at a scroll of shift pixels (< width), no stamp:
 * what scene_render() draws before it writes the stamp over the first
 * ISOCAM_STAMP_LEN bytes. Returns 0, or -1 as scene_render().
 */
int scene_render_pixels(struct scene *sc, const struct scene_params *p,
			uint32_t shift, uint8_t *buf);

/*
 * Write the stamp (frame_stamp.h) of frame `counter` at f: size bytes
 * whose checksum is sum; a JPEG frame's if p->jpeg_quality.
 */
void scene_stamp_write(uint8_t *f, const struct scene_params *p,
		       uint32_t counter, uint32_t sum, uint32_t size);

/*
 * Parse the stamp at f, of a frame of len bytes: the start of a raw frame,
 * or a JPEG frame's COM segment (then p->jpeg_quality is set and the
 * stamped size must be len). -1 if magic, sizes or quality are off.
 */
int scene_stamp_parse(const uint8_t *frame, size_t len,
		      struct scene_params *p, uint32_t *counter,
		      uint32_t *checksum);

#endif /* ISOCAM_EMU_SCENE_H */
