// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the fields a host controller (or a USB/IP remote)
 * writes into a completed iso URB, through core/isocam_iso_packet.c. Whatever
 * they say, a packet judged readable lies inside the URB's buffer, exactly
 * where the driver put it, and no longer than the driver allowed; a count
 * judged usable never indexes past the packets submitted.
 *
 * Input: byte 0 packets submitted (1..128), bytes 1..2 packet size (le16,
 * 1..3072); bytes 3..6 the reported count (le32, any value); then records
 * of 16 bytes per packet: offset, length, actual_length, status (le32).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isocam_iso_packet.h"

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_iso_packet: %s:%d: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

static u32 le32(const uint8_t *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int np, i;
	u32 pb, buffer_len;
	int count;

	if (size < 7)
		return 0;
	np = data[0] % 128 + 1;
	pb = (u32)(data[1] | data[2] << 8) % 3072 + 1;
	count = (int)le32(data + 3);
	buffer_len = np * pb;
	data += 7;
	size -= 7;

	if (!isocam_iso_packet_count_ok(count, np))
		return 0;
	CHECK(count >= 1 && (unsigned int)count <= np);
	for (i = 0; i < (unsigned int)count && size >= 16; i++, data += 16,
	     size -= 16) {
		struct isocam_iso_packet_desc d = {
			.offset = le32(data),
			.length = le32(data + 4),
			.actual_length = le32(data + 8),
			.status = (int)le32(data + 12),
		};
		u32 len = 0xdeadbeef;

		switch (isocam_iso_packet_check(&d, i, pb, buffer_len, &len)) {
		case ISOCAM_ISO_PACKET_OK:
			CHECK(d.offset == i * pb);
			CHECK(len == d.actual_length && len <= pb);
			CHECK((u64)d.offset + len <= buffer_len);
			CHECK(d.status == 0);
			break;
		case ISOCAM_ISO_PACKET_BUS_ERROR:
		case ISOCAM_ISO_PACKET_BAD:
			CHECK(len == 0);
			break;
		default:
			CHECK(0);
		}
	}
	return 0;
}
