// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Checks of completed isochronous packets; the rules are in
 * isocam_iso_packet.h.
 */
#include "isocam_iso_packet.h"

enum isocam_iso_packet_verdict
isocam_iso_packet_check(const struct isocam_iso_packet_desc *d,
			unsigned int index, u32 packet_bytes, u32 buffer_len,
			u32 *len)
{
	u64 expect_offset = (u64)index * packet_bytes;

	*len = 0;
	/* Where the driver put the packet and how long it said it may be. */
	if (d->offset != expect_offset || d->length != packet_bytes)
		return ISOCAM_ISO_PACKET_BAD;
	if (d->actual_length > d->length)
		return ISOCAM_ISO_PACKET_BAD;
	/* In 64 bits: offset + actual_length cannot wrap. */
	if ((u64)d->offset + d->actual_length > buffer_len)
		return ISOCAM_ISO_PACKET_BAD;
	if (d->status)
		return ISOCAM_ISO_PACKET_BUS_ERROR;
	*len = d->actual_length;
	return ISOCAM_ISO_PACKET_OK;
}

bool isocam_iso_packet_count_ok(int reported, unsigned int submitted)
{
	return reported > 0 && (unsigned int)reported <= submitted;
}
