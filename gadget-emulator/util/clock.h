/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The emulator's one clock: CLOCK_MONOTONIC in nanoseconds. */
#ifndef ISOCAM_EMU_CLOCK_H
#define ISOCAM_EMU_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* ISOCAM_EMU_CLOCK_H */
