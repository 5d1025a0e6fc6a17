// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Device clock recovery (see isocam_clock.h).
 *
 * Coordinates: ext is device ticks since the base sample, the 32-bit
 * clock unwrapped; resid is the host ns since the base minus ext at the
 * nominal rate, so a perfect clock with a constant delay has a constant
 * resid, drift is its slope and delivery delay only ever raises it.
 */
#include "isocam_clock.h"

/* Far beyond any real run, far below overflow of ext * ns per tick. */
#define ISOCAM_CLOCK_MAX_EXT	0x10000000000LL		/* 2^40 ticks: 12 days */
#define ISOCAM_CLOCK_MAX_HOST	0x10000000000000LL	/* 2^52 ns: 52 days */
/* Points further apart in resid than this cannot both be minima. */
#define ISOCAM_CLOCK_MAX_DR	0x100000000LL		/* 2^32 ns: 4.3 s */
#define ISOCAM_CLOCK_WINDOW_TICKS \
	((s64)(ISOCAM_CLOCK_POINTS + 1) * ISOCAM_CLOCK_BUCKET_TICKS)
/* The output closes a gap to the target over about this long. */
#define ISOCAM_CLOCK_STEER_TICKS	((s64)ISOCAM_PH_CLOCK_HZ)
/* The offset follows the floor of this many newest points. */
#define ISOCAM_CLOCK_FLOOR_POINTS	8

void isocam_clock_reset(struct isocam_clock *c)
{
	c->have_base = false;
	c->first = 0;
	c->count = 0;
}

void isocam_clock_init(struct isocam_clock *c)
{
	memset(c, 0, sizeof(*c));
}

static void isocam_clock_rebase(struct isocam_clock *c, u32 stc, u64 host_ns)
{
	c->have_base = true;
	c->base_host = host_ns;
	c->last_stc = stc;
	c->last_ext = 0;
	c->bucket_start = 0;
	c->best.ext = 0;
	c->best.resid = 0;
	c->first = 0;
	c->count = 0;
	c->out.ext = 0;
	c->out.resid = 0;
	c->out.num = 0;
	c->out.den = 0;
	c->settled = false;
	c->late_run = false;
	c->stats.resets++;
}

/* a * b / c for c > 0, where the quotient is known to fit. */
static s64 isocam_clock_muldiv(s64 a, s64 b, s64 c)
{
	u64 ua = a < 0 ? -(u64)a : (u64)a;
	u64 ub = b < 0 ? -(u64)b : (u64)b;
	u64 q = mul_u64_u64_div_u64(ua, ub, (u64)c);

	return (a < 0) != (b < 0) ? -(s64)q : (s64)q;
}

/* Point i, oldest first; i == count is the open bucket's minimum. */
static const struct isocam_clock_point *
isocam_clock_point(const struct isocam_clock *c, unsigned int i)
{
	if (i == c->count)
		return &c->best;
	return &c->pts[(c->first + i) % ISOCAM_CLOCK_POINTS];
}

/* Whether p's resid is close enough to ref's for both to be minima. */
static bool isocam_clock_near(const struct isocam_clock_point *ref,
			      const struct isocam_clock_point *p)
{
	s64 dr = p->resid - ref->resid;

	return dr <= ISOCAM_CLOCK_MAX_DR && dr >= -ISOCAM_CLOCK_MAX_DR;
}

static s64 isocam_clock_line_at(const struct isocam_clock_line *l, s64 ext)
{
	if (!l->den)
		return l->resid;
	return l->resid + isocam_clock_muldiv(l->num, ext - l->ext, l->den);
}

/*
 * The target line, at the open bucket's point. Delays only add, so the
 * truth is the floor of the points: the drift is the slope between the
 * lowest point of the older half and the lowest of the newer half (once
 * they lie ISOCAM_CLOCK_SLOPE_SPAN / 2 apart, within ISOCAM_CLOCK_MAX_PPM),
 * and the line at that slope rests on the lowest of the newest
 * ISOCAM_CLOCK_FLOOR_POINTS points, which keeps the lever arm of a slope
 * change short. Returns whether the drift was measured.
 */
static bool isocam_clock_fit(const struct isocam_clock *c,
			     struct isocam_clock_line *l)
{
	const struct isocam_clock_point *ref = &c->best;
	const struct isocam_clock_point *lo[2] = { NULL, NULL };
	unsigned int i, half = (c->count + 1) / 2;
	s64 floor = S64_MAX;

	for (i = 0; i <= c->count; i++) {
		const struct isocam_clock_point *p = isocam_clock_point(c, i);
		unsigned int h = i >= half;

		if (!isocam_clock_near(ref, p))
			continue;
		if (!lo[h] || p->resid < lo[h]->resid)
			lo[h] = p;
	}

	l->ext = ref->ext;
	l->num = 0;
	l->den = 0;
	if (lo[0] && lo[1] &&
	    lo[1]->ext - lo[0]->ext >= ISOCAM_CLOCK_SLOPE_SPAN / 2) {
		s64 den = lo[1]->ext - lo[0]->ext;
		s64 lim = isocam_clock_muldiv(den, ISOCAM_CLOCK_MAX_PPM *
					      ISOCAM_CLOCK_NS_PER_TICK,
					      1000000);
		s64 num = lo[1]->resid - lo[0]->resid;

		l->num = num > lim ? lim : num < -lim ? -lim : num;
		l->den = den;
	}

	i = c->count + 1 > ISOCAM_CLOCK_FLOOR_POINTS ?
	    c->count + 1 - ISOCAM_CLOCK_FLOOR_POINTS : 0;
	for (; i <= c->count; i++) {
		const struct isocam_clock_point *p = isocam_clock_point(c, i);
		s64 at = p->resid - ref->resid;

		if (!isocam_clock_near(ref, p))
			continue;
		if (l->den)
			at += isocam_clock_muldiv(l->num, ref->ext - p->ext,
						  l->den);
		if (at < floor)
			floor = at;
	}
	/* The open bucket's own point is among the newest: floor <= 0. */
	l->resid = ref->resid + floor;
	return l->den != 0;
}

/*
 * Move the output line to the target: at once until the drift is known;
 * after that the line stays continuous and only its slope bends, to close
 * the gap within about ISOCAM_CLOCK_STEER_TICKS but never faster than
 * ISOCAM_CLOCK_SLEW_PPM, so no frame interval stretches by more.
 */
static void isocam_clock_steer(struct isocam_clock *c)
{
	const s64 max = (s64)ISOCAM_CLOCK_SLEW_PPM * ISOCAM_CLOCK_NS_PER_TICK *
			ISOCAM_CLOCK_STEER_TICKS / 1000000;
	struct isocam_clock_line t;
	bool sloped = isocam_clock_fit(c, &t);
	s64 cur, gap, den;

	if (!c->settled) {
		c->out = t;
		c->settled = sloped;
		return;
	}
	cur = isocam_clock_line_at(&c->out, t.ext);
	gap = t.resid - cur;
	if (gap > ISOCAM_CLOCK_MAX_GAP_NS || gap < -ISOCAM_CLOCK_MAX_GAP_NS) {
		/* Beyond steering (a clock outside ISOCAM_CLOCK_MAX_PPM). */
		isocam_clock_rebase(c, c->last_stc,
				    c->base_host + c->last_ext *
				    ISOCAM_CLOCK_NS_PER_TICK + c->best.resid);
		return;
	}
	if (gap > max)
		gap = max;
	if (gap < -max)
		gap = -max;
	/* slope = t.num / t.den + gap / ISOCAM_CLOCK_STEER_TICKS */
	den = t.den ? t.den : 1;
	c->out.ext = t.ext;
	c->out.resid = cur;
	c->out.num = t.num * ISOCAM_CLOCK_STEER_TICKS + gap * den;
	c->out.den = den * ISOCAM_CLOCK_STEER_TICKS;
}

/* Close the open bucket; the window keeps ISOCAM_CLOCK_POINTS of them. */
static void isocam_clock_commit(struct isocam_clock *c, s64 next_start)
{
	if (c->count == ISOCAM_CLOCK_POINTS) {
		c->first = (c->first + 1) % ISOCAM_CLOCK_POINTS;
		c->count--;
	}
	c->pts[(c->first + c->count) % ISOCAM_CLOCK_POINTS] = c->best;
	c->count++;
	while (c->count &&
	       c->pts[c->first].ext < next_start - ISOCAM_CLOCK_WINDOW_TICKS) {
		c->first = (c->first + 1) % ISOCAM_CLOCK_POINTS;
		c->count--;
	}
}

void isocam_clock_sample(struct isocam_clock *c, u32 stc, u64 host_ns)
{
	struct isocam_clock_point p;
	s64 since, pred;
	s32 step;

	c->stats.samples++;
	if (!c->have_base) {
		isocam_clock_rebase(c, stc, host_ns);
		return;
	}
	step = (s32)(stc - c->last_stc);
	since = (s64)(host_ns - c->base_host);
	if (step < 0 || c->last_ext + step > ISOCAM_CLOCK_MAX_EXT ||
	    since > ISOCAM_CLOCK_MAX_HOST || since < -ISOCAM_CLOCK_MAX_HOST) {
		isocam_clock_rebase(c, stc, host_ns);
		return;
	}
	p.ext = c->last_ext + step;
	p.resid = since - p.ext * ISOCAM_CLOCK_NS_PER_TICK;
	pred = isocam_clock_line_at(&c->out, p.ext);
	if (p.resid < pred - ISOCAM_CLOCK_MAX_EARLY_NS) {
		isocam_clock_rebase(c, stc, host_ns);
		return;
	}
	c->last_stc = stc;
	c->last_ext = p.ext;
	if (p.resid > pred + ISOCAM_CLOCK_MAX_LATE_NS) {
		c->stats.late++;
		if (!c->late_run) {
			c->late_run = true;
			c->late_since = p.ext;
		} else if (p.ext - c->late_since >= ISOCAM_PH_CLOCK_HZ) {
			isocam_clock_rebase(c, stc, host_ns);
		}
		return;
	}
	c->late_run = false;
	if (p.ext - c->bucket_start >= ISOCAM_CLOCK_BUCKET_TICKS) {
		isocam_clock_commit(c, p.ext);
		c->bucket_start = p.ext;
		c->best = p;
		isocam_clock_steer(c);
	} else if (p.resid < c->best.resid) {
		c->best = p;
		if (!c->settled)
			isocam_clock_steer(c);
	}
}

bool isocam_clock_to_host(const struct isocam_clock *c, u32 dev,
			  u64 *host_ns)
{
	s64 ext, off;

	if (!c->have_base)
		return false;
	ext = c->last_ext + (s32)(dev - c->last_stc);
	if (ext - c->last_ext > ISOCAM_CLOCK_MAX_REACH ||
	    c->last_ext - ext > ISOCAM_CLOCK_MAX_REACH)
		return false;
	off = ext * ISOCAM_CLOCK_NS_PER_TICK + isocam_clock_line_at(&c->out, ext);
	if (off < 0 ? (u64)-off > c->base_host : (u64)off > U64_MAX - c->base_host)
		return false;
	*host_ns = c->base_host + (u64)off;
	return true;
}
