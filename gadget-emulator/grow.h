/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A byte buffer that only grows: the emulator's frame and scratch
 * buffers, reused from frame to frame.
 */
#ifndef ISOCAM_EMU_GROW_H
#define ISOCAM_EMU_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* At least need bytes at *buf (capacity *cap); 0, or -1 out of memory. */
static inline int emu_grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *n;

	if (need <= *cap)
		return 0;
	n = realloc(*buf, need);
	if (!n)
		return -1;
	*buf = n;
	*cap = need;
	return 0;
}

#endif /* ISOCAM_EMU_GROW_H */
