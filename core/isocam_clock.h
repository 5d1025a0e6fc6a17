/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Device clock recovery: maps the camera's 1 MHz clock (payload PTS and
 * SCR) to the host's monotonic clock, so that a buffer can be stamped
 * with its start of exposure instead of its arrival.
 *
 * Samples are (SCR source clock, host time the packet arrived). Delivery
 * only ever adds delay, and the delay comes in bursts (USB/IP above all),
 * so the estimator works on the least-delayed sample of each bucket of
 * ISOCAM_CLOCK_BUCKET_TICKS device ticks. Its target line takes the drift
 * from a least-squares fit of the last ISOCAM_CLOCK_POINTS such minima
 * (once they span ISOCAM_CLOCK_SLOPE_SPAN ticks, and never beyond
 * ISOCAM_CLOCK_MAX_PPM) and rests on the lowest of the newest of them.
 * Stamps come from an output line that follows the target directly until
 * then, and after that slews towards it at most ISOCAM_CLOCK_SLEW_PPM:
 * a new floor moves stamps gradually, so consecutive frames stay spaced
 * by their true interval.
 *
 * Nothing the device sends is trusted:
 * - the 32-bit clock wraps (every 71 minutes); a step back resets;
 * - a sample far later than the line (more than ISOCAM_CLOCK_MAX_LATE_NS)
 *   is a delivery stall, skipped, but a second of them in a row means the
 *   line is wrong: reset; a sample far earlier than the line
 *   (ISOCAM_CLOCK_MAX_EARLY_NS) means the device clock jumped: reset;
 * - an output line that trails its target by ISOCAM_CLOCK_MAX_GAP_NS
 *   cannot catch up (a clock beyond ISOCAM_CLOCK_MAX_PPM): reset;
 * - a time to convert far from the samples is refused, and the caller
 *   falls back to arrival time.
 * All arithmetic is bounded: no input makes it overflow.
 */
#ifndef ISOCAM_CLOCK_H
#define ISOCAM_CLOCK_H

#include "isocam_compat.h"

#include <isocam/payload.h>

#define ISOCAM_CLOCK_NS_PER_TICK	(1000000000 / ISOCAM_PH_CLOCK_HZ)
#define ISOCAM_CLOCK_POINTS		32
#define ISOCAM_CLOCK_BUCKET_TICKS	(ISOCAM_PH_CLOCK_HZ / 10)	/* 100 ms */
#define ISOCAM_CLOCK_SLOPE_SPAN		ISOCAM_PH_CLOCK_HZ		/* 1 s */
#define ISOCAM_CLOCK_MAX_PPM		10000
#define ISOCAM_CLOCK_SLEW_PPM		500
#define ISOCAM_CLOCK_MAX_LATE_NS	1000000000LL			/* 1 s */
#define ISOCAM_CLOCK_MAX_EARLY_NS	100000000LL			/* 100 ms */
/* The output may trail the target by this much before it starts over. */
#define ISOCAM_CLOCK_MAX_GAP_NS		50000000LL			/* 50 ms */
/* A time to convert may lie this far from the newest sample. */
#define ISOCAM_CLOCK_MAX_REACH		(10 * ISOCAM_PH_CLOCK_HZ)

/* A bucket's least-delayed sample, relative to the clock's base. */
struct isocam_clock_point {
	s64 ext;	/* device ticks since the base (the 32-bit clock unwrapped) */
	s64 resid;	/* host ns since the base, minus ext at the nominal rate */
};

/* resid at ext; the drift is num / den ns per tick (den 0: none). */
struct isocam_clock_line {
	s64 ext;
	s64 resid;
	s64 num;
	s64 den;
};

struct isocam_clock_stats {
	u32 samples;	/* samples offered */
	u32 late;	/* skipped as a delivery stall */
	u32 resets;	/* restarts: first sample, step back or jump */
};

struct isocam_clock {
	bool have_base;
	u64 base_host;		/* host ns at ext 0 */
	u32 last_stc;		/* the newest sample's raw clock */
	s64 last_ext;
	s64 late_since;		/* ext of the first of a run of late samples */
	bool late_run;

	s64 bucket_start;	/* ext where the open bucket began */
	struct isocam_clock_point best;	/* the open bucket's minimum */

	struct isocam_clock_point pts[ISOCAM_CLOCK_POINTS];	/* a ring */
	unsigned int first;
	unsigned int count;

	struct isocam_clock_line out;	/* what stamps are made from */
	bool settled;			/* out slews, no longer jumps */

	struct isocam_clock_stats stats;
};

/* Forget every sample (stream start); statistics are kept. */
void isocam_clock_reset(struct isocam_clock *c);

void isocam_clock_init(struct isocam_clock *c);

/* The device clock read stc when the packet left; it arrived at host_ns. */
void isocam_clock_sample(struct isocam_clock *c, u32 stc, u64 host_ns);

/*
 * The host time at which the device clock read dev (e.g. a frame's PTS).
 * False until the first sample, or when dev is out of reach.
 */
bool isocam_clock_to_host(const struct isocam_clock *c, u32 dev,
			  u64 *host_ns);

#endif /* ISOCAM_CLOCK_H */
