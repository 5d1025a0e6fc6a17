// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of core/isocam_clock.c: clock recovery converges on a
 * synthetic camera whose clock drifts and whose packets arrive in bursts,
 * as over USB/IP in an emulated guest, and nothing the device sends (a
 * wrap, a step back, a jump, a stall, garbage) breaks it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "isocam_clock.h"

#define URB_TICKS	4000u	/* 32 microframes per URB */
#define FRAME_TICKS	33333u	/* 30 fps */
#define FLOOR_NS	500000.0	/* the smallest delivery delay */
#define BURST_MIN_NS	10e6	/* deliveries come every 10 to 30 ms */
#define BURST_VAR_NS	20e6
#define WARMUP_NS	2e9

/* A camera on a bus: its clock's rate and where it starts. */
struct sim {
	double ppm;		/* device clock rate error */
	double host0;		/* host ns at device tick 0 */
	u32 stc0;		/* the device clock's value at tick 0 */
	u64 rng;
	double burst;		/* host ns of the next delivery burst */
};

static double sim_rand(struct sim *s)	/* uniform in [0, 1) */
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (double)(s->rng >> 11) / 9007199254740992.0;
}

/* The true host time of device tick k. */
static double sim_host(const struct sim *s, double k)
{
	return s->host0 + k * ISOCAM_CLOCK_NS_PER_TICK * (1.0 + s->ppm * 1e-6);
}

/*
 * When URB j reaches the host: its last packet left at its true time,
 * then waited at least FLOOR_NS and on to the next burst (they come
 * 10 to 30 ms apart), and up to 2 ms more.
 */
static double sim_arrival(struct sim *s, unsigned int j)
{
	double sent = sim_host(s, (double)(j + 1) * URB_TICKS - 125) + FLOOR_NS;

	if (!s->burst)
		s->burst = s->host0;
	while (s->burst < sent)
		s->burst += BURST_MIN_NS + sim_rand(s) * BURST_VAR_NS;
	return s->burst + sim_rand(s) * 2e6;
}

struct result {
	unsigned int frames;
	double worst_spacing;	/* recovered spacing against the truth */
	double worst_offset;	/* |recovered - true - FLOOR_NS| */
	double worst_arrival;	/* arrival-stamp spacing against the truth */
	bool monotonic;
};

/*
 * Stream for the given host time; convert each frame's PTS when its last
 * URB has arrived, as the driver does, and compare with the truth once
 * past the warm-up.
 */
static struct result sim_run(struct sim *s, struct isocam_clock *c,
			     double seconds)
{
	struct result r = { .monotonic = true };
	unsigned int j, urbs = (unsigned int)(seconds * 250), frame = 0;
	double last_rec = 0, last_true = 0, last_arr = 0;
	u64 prev = 0;

	for (j = 0; j < urbs; j++) {
		double arr = sim_arrival(s, j);
		u32 scr = s->stc0 + (j + 1) * URB_TICKS - 125;

		isocam_clock_sample(c, scr, (u64)arr);
		while ((double)(frame + 1) * FRAME_TICKS <=
		       (double)(j + 1) * URB_TICKS) {
			u32 pts = s->stc0 + frame * FRAME_TICKS;
			double truth = sim_host(s, (double)frame * FRAME_TICKS);
			u64 rec;

			assert_true(isocam_clock_to_host(c, pts, &rec));
			if (frame && rec <= prev)
				r.monotonic = false;
			if (truth - s->host0 >= WARMUP_NS) {
				double sp = fabs(((double)rec - last_rec) -
						 (truth - last_true));
				double off = fabs((double)rec - truth - FLOOR_NS);
				double asp = fabs((arr - last_arr) -
						  (truth - last_true));

				r.frames++;
				if (sp > r.worst_spacing)
					r.worst_spacing = sp;
				if (off > r.worst_offset)
					r.worst_offset = off;
				if (asp > r.worst_arrival)
					r.worst_arrival = asp;
			}
			prev = rec;
			last_rec = (double)rec;
			last_true = truth;
			last_arr = arr;
			frame++;
		}
	}
	return r;
}

static void converge(double ppm, u32 stc0)
{
	struct sim s = { .ppm = ppm, .host0 = 5e12, .stc0 = stc0,
			 .rng = 0x9e3779b97f4a7c15ull };
	struct isocam_clock c;
	struct result r;

	isocam_clock_init(&c);
	r = sim_run(&s, &c, 20);
	print_message("ppm %+.0f stc0 %#x: %u frames, spacing within %.1f us, offset within %.1f us of the floor; arrival stamps %.1f us\n",
		      ppm, stc0, r.frames, r.worst_spacing / 1e3,
		      r.worst_offset / 1e3, r.worst_arrival / 1e3);
	assert_true(r.frames > 500);
	/* The model is hard: arrival stamps wander by milliseconds... */
	assert_true(r.worst_arrival > 5e6);
	/* ...and recovered ones keep the frame interval within 0.1 ms. */
	assert_true(r.worst_spacing < 1e5);
	/* The least delay the bursts allow sits a little above the floor. */
	assert_true(r.worst_offset < 2.5e6);
	assert_true(r.monotonic);
	assert_int_equal(c.stats.resets, 1);
	assert_int_equal(c.stats.late, 0);
}

static void test_converges(void **state)
{
	(void)state;
	converge(0, 1000);
}

static void test_converges_drift(void **state)
{
	(void)state;
	converge(250, 77);
	converge(-400, 123456789);
	converge(5000, 3);	/* a ceramic resonator */
}

/* The 32-bit clock wraps one second into the run. */
static void test_wrap(void **state)
{
	(void)state;
	converge(100, 0xffffffffu - 1000000u);
}

static void test_no_sample(void **state)
{
	struct isocam_clock c;
	u64 t = 7;

	(void)state;
	isocam_clock_init(&c);
	assert_false(isocam_clock_to_host(&c, 0, &t));
	assert_int_equal(t, 7);
	isocam_clock_sample(&c, 1000, 1000000000ull);
	assert_true(isocam_clock_to_host(&c, 1000, &t));
	assert_int_equal(t, 1000000000ull);
	/* At the nominal rate until there is more to go on. */
	assert_true(isocam_clock_to_host(&c, 1500, &t));
	assert_int_equal(t, 1000500000ull);
	isocam_clock_reset(&c);
	assert_false(isocam_clock_to_host(&c, 1000, &t));
}

static void test_out_of_reach(void **state)
{
	struct isocam_clock c;
	u64 t;

	(void)state;
	isocam_clock_init(&c);
	isocam_clock_sample(&c, 50000000, 3000000000000ull);
	assert_true(isocam_clock_to_host(&c, 50000000 + ISOCAM_CLOCK_MAX_REACH,
					 &t));
	assert_false(isocam_clock_to_host(&c, 50000001 +
					  ISOCAM_CLOCK_MAX_REACH, &t));
	assert_false(isocam_clock_to_host(&c, 49999999 -
					  ISOCAM_CLOCK_MAX_REACH, &t));
	/* Never before the host clock's zero. */
	isocam_clock_reset(&c);
	isocam_clock_sample(&c, 5000000, 1000);
	assert_false(isocam_clock_to_host(&c, 4000000, &t));
}

/* A device clock that steps back or leaps ahead starts over. */
static void test_step_back_and_jump(void **state)
{
	struct isocam_clock c;
	u64 t;

	(void)state;
	isocam_clock_init(&c);
	isocam_clock_sample(&c, 1000000, 10000000000ull);
	isocam_clock_sample(&c, 1004000, 10004000000ull);
	assert_int_equal(c.stats.resets, 1);
	isocam_clock_sample(&c, 1003999, 10008000000ull);
	assert_int_equal(c.stats.resets, 2);
	assert_true(isocam_clock_to_host(&c, 1003999, &t));
	assert_int_equal(t, 10008000000ull);
	/* Ten seconds of device time in four milliseconds of host time. */
	isocam_clock_sample(&c, 11003999, 10012000000ull);
	assert_int_equal(c.stats.resets, 3);
	assert_true(isocam_clock_to_host(&c, 11003999, &t));
	assert_int_equal(t, 10012000000ull);
}

/* A sample two seconds late is a stall: skipped, the line unmoved. */
static void test_stall_skipped(void **state)
{
	struct sim s = { .host0 = 1e12, .stc0 = 5, .rng = 42 };
	struct isocam_clock c;
	struct result r;
	u64 before, after;
	u32 scr;

	(void)state;
	isocam_clock_init(&c);
	r = sim_run(&s, &c, 4);
	assert_true(r.worst_spacing < 1e5);
	scr = s.stc0 + 4 * 250 * URB_TICKS;
	assert_true(isocam_clock_to_host(&c, scr, &before));
	isocam_clock_sample(&c, scr, (u64)(sim_host(&s, 4e6) + 2e9));
	assert_int_equal(c.stats.late, 1);
	assert_int_equal(c.stats.resets, 1);
	assert_true(isocam_clock_to_host(&c, scr, &after));
	assert_true(after == before);
}

/*
 * A clock 2% off is broken: drift is believed only up to 1%, and a line
 * that falls 50 ms behind starts over rather than stamping ever further
 * off.
 */
static void test_drift_beyond_belief(void **state)
{
	struct sim s = { .ppm = 20000, .host0 = 2e12, .stc0 = 9, .rng = 7 };
	struct isocam_clock c;
	struct result r;

	(void)state;
	isocam_clock_init(&c);
	r = sim_run(&s, &c, 60);
	assert_true(c.stats.resets >= 5);
	assert_true(r.worst_offset < 100e6);
}

/* Anything at all: no overflow (UBSan), no crash, stamps when in reach. */
static void test_garbage(void **state)
{
	static const u64 hosts[] = {
		0, 1, 999, 1ull << 52, (1ull << 52) + 1, 1ull << 63,
		~0ull, ~0ull - 1, 5000000000000ull,
	};
	static const u32 stcs[] = {
		0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 4000, 123456789,
	};
	struct isocam_clock c;
	unsigned int i;
	u64 x = 1, t;

	(void)state;
	isocam_clock_init(&c);
	for (i = 0; i < 200000; i++) {
		u64 h;
		u32 stc;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		h = i % 3 ? hosts[x % ARRAY_SIZE(hosts)] : x;
		stc = i % 5 ? stcs[(x >> 32) % ARRAY_SIZE(stcs)] : (u32)(x >> 16);
		isocam_clock_sample(&c, stc, h);
		(void)isocam_clock_to_host(&c, (u32)(x >> 8), &t);
	}
	assert_int_equal(c.stats.samples, 200000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_sample),
		cmocka_unit_test(test_converges),
		cmocka_unit_test(test_converges_drift),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_out_of_reach),
		cmocka_unit_test(test_step_back_and_jump),
		cmocka_unit_test(test_stall_skipped),
		cmocka_unit_test(test_drift_beyond_belief),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests_name("core_clock", tests, NULL, NULL);
}
