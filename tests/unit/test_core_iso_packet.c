// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of core/isocam_iso_packet.c: every field of a completed iso packet
 * that disagrees with what was submitted makes it unreadable, whatever
 * the others say.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "isocam_iso_packet.h"

#define PB	3072u		/* bytes per packet of the largest alt */
#define NP	32u
#define BUF	(PB * NP)

static struct isocam_iso_packet_desc good(unsigned int i, u32 actual)
{
	struct isocam_iso_packet_desc d = {
		.offset = i * PB, .length = PB, .actual_length = actual,
	};

	return d;
}

static void test_ok(void **state)
{
	struct isocam_iso_packet_desc d = good(5, 1000);
	u32 len = 77;

	(void)state;
	assert_int_equal(isocam_iso_packet_check(&d, 5, PB, BUF, &len), ISOCAM_ISO_PACKET_OK);
	assert_int_equal(len, 1000);
	d = good(NP - 1, PB);
	assert_int_equal(isocam_iso_packet_check(&d, NP - 1, PB, BUF, &len),
			 ISOCAM_ISO_PACKET_OK);
	assert_int_equal(len, PB);
	d = good(0, 0);
	assert_int_equal(isocam_iso_packet_check(&d, 0, PB, BUF, &len), ISOCAM_ISO_PACKET_OK);
	assert_int_equal(len, 0);
}

static void test_wild_offset(void **state)
{
	static const u32 offsets[] = { 0x7fff0000u, 0xffffffffu, BUF, PB + 1,
				       5 * PB };
	unsigned int i;
	u32 len = 77;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		struct isocam_iso_packet_desc d = good(4, 10);

		d.offset = offsets[i];
		assert_int_equal(isocam_iso_packet_check(&d, 4, PB, BUF, &len),
				 ISOCAM_ISO_PACKET_BAD);
		assert_int_equal(len, 0);
	}
}

static void test_actual_over_length(void **state)
{
	struct isocam_iso_packet_desc d = good(0, PB + 1);
	u32 len;

	(void)state;
	assert_int_equal(isocam_iso_packet_check(&d, 0, PB, BUF, &len), ISOCAM_ISO_PACKET_BAD);
	d.actual_length = 0xffffffffu;
	assert_int_equal(isocam_iso_packet_check(&d, 0, PB, BUF, &len), ISOCAM_ISO_PACKET_BAD);
}

static void test_length_changed(void **state)
{
	struct isocam_iso_packet_desc d = good(2, 100);
	u32 len;

	(void)state;
	d.length = 4 * 1024;
	assert_int_equal(isocam_iso_packet_check(&d, 2, PB, BUF, &len), ISOCAM_ISO_PACKET_BAD);
	d.length = PB - 1;
	assert_int_equal(isocam_iso_packet_check(&d, 2, PB, BUF, &len), ISOCAM_ISO_PACKET_BAD);
}

static void test_past_buffer(void **state)
{
	/* Consistent fields, but a buffer shorter than the packets claim. */
	struct isocam_iso_packet_desc d = good(NP - 1, PB);
	u32 len;

	(void)state;
	assert_int_equal(isocam_iso_packet_check(&d, NP - 1, PB, BUF - 1, &len),
			 ISOCAM_ISO_PACKET_BAD);
	/* index * packet_bytes overflowing 32 bits never matches an offset */
	d.offset = 0;
	assert_int_equal(isocam_iso_packet_check(&d, 0x80000000u, 2, BUF, &len),
			 ISOCAM_ISO_PACKET_BAD);
}

static void test_bus_error(void **state)
{
	struct isocam_iso_packet_desc d = good(1, 500);
	u32 len = 77;

	(void)state;
	d.status = -71;
	assert_int_equal(isocam_iso_packet_check(&d, 1, PB, BUF, &len),
			 ISOCAM_ISO_PACKET_BUS_ERROR);
	assert_int_equal(len, 0);
	/* bad fields win over a status: the status is untrusted too */
	d.offset = 0x7fff0000u;
	assert_int_equal(isocam_iso_packet_check(&d, 1, PB, BUF, &len), ISOCAM_ISO_PACKET_BAD);
}

static void test_count(void **state)
{
	(void)state;
	assert_true(isocam_iso_packet_count_ok(1, NP));
	assert_true(isocam_iso_packet_count_ok(NP, NP));
	assert_false(isocam_iso_packet_count_ok(0, NP));
	assert_false(isocam_iso_packet_count_ok(-1, NP));
	assert_false(isocam_iso_packet_count_ok(NP + 1, NP));
	assert_false(isocam_iso_packet_count_ok(0x7fffffff, NP));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_wild_offset),
		cmocka_unit_test(test_actual_over_length),
		cmocka_unit_test(test_length_changed),
		cmocka_unit_test(test_past_buffer),
		cmocka_unit_test(test_bus_error),
		cmocka_unit_test(test_count),
	};

	return cmocka_run_group_tests_name("core_iso_packet", tests, NULL,
					   NULL);
}
