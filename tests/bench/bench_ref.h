/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the emulator benchmarks measure against: the monotonic clock and
 * a memcpy of the same bytes, best of 3 runs, in the same process.
 */
#ifndef ISOCAM_BENCH_REF_H
#define ISOCAM_BENCH_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Keeps the compiler from dropping work whose result nobody reads. */
static volatile uint8_t bench_sink;

/* Seconds per memcpy of size bytes, the best of 3 runs of n copies. */
static inline double bench_memcpy(size_t size, unsigned int n)
{
	uint8_t *a = malloc(size), *b = malloc(size);
	double best = 1e9;
	unsigned int r, i;

	if (!a || !b)
		abort();
	memset(a, 1, size);
	memset(b, 2, size);
	for (r = 0; r < 3; r++) {
		double t = bench_now();

		for (i = 0; i < n; i++) {
			a[i % size] = (uint8_t)i;
			memcpy(b, a, size);
		}
		t = (bench_now() - t) / n;
		bench_sink = b[i % size];
		if (t < best)
			best = t;
	}
	free(a);
	free(b);
	return best;
}

#endif /* ISOCAM_BENCH_REF_H */
