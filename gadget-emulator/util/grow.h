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

/*
 * p (capacity *cap elements of size elem) with room for need >= 1,
 * doubling from at least first: for buffers appended to piece by piece.
 * The buffer (maybe moved), or NULL out of memory (p is left as it was).
 */
static inline void *emu_reserve(void *p, size_t *cap, size_t need,
				size_t elem, size_t first)
{
	size_t n = *cap ? *cap : first;

	if (need <= *cap)
		return p;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (n > SIZE_MAX / elem)
		return NULL;
	p = realloc(p, n * elem);
	if (p)
		*cap = n;
	return p;
}

#endif /* ISOCAM_EMU_GROW_H */
