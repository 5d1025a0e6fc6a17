/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The checks a completed isochronous URB gets before its data is read.
 *
 * Nothing in a completed URB is trusted: a host controller fills in the
 * packet count, each packet's actual_length and status, and USB/IP's vhci
 * copies offset, length, actual_length, status and number_of_packets from
 * whatever the remote sent. The driver knows what it submitted, so every
 * field is checked against that, and a packet is read only when all of
 * them agree.
 */
#ifndef ISOCAM_ISO_PACKET_H
#define ISOCAM_ISO_PACKET_H

#include "isocam_compat.h"

/* One packet as the URB reports it after completion. */
struct isocam_iso_packet_desc {
	u32 offset;
	u32 length;
	u32 actual_length;
	int status;
};

enum isocam_iso_packet_verdict {
	ISOCAM_ISO_PACKET_OK,		/* read actual_length bytes at offset */
	ISOCAM_ISO_PACKET_BUS_ERROR,	/* the bus reported an error for it */
	ISOCAM_ISO_PACKET_BAD,		/* fields disagree with the submission */
};

/*
 * Check packet index of a URB submitted with packets of packet_bytes each,
 * back to back in a buffer of buffer_len bytes. *len is the number of
 * payload bytes to read at d->offset (0 unless ISOCAM_ISO_PACKET_OK).
 */
enum isocam_iso_packet_verdict
isocam_iso_packet_check(const struct isocam_iso_packet_desc *d,
			unsigned int index, u32 packet_bytes, u32 buffer_len,
			u32 *len);

/*
 * Whether a completed URB's packet count can be used: it must lie in
 * 1..submitted (a count above what was submitted would index past the
 * URB's descriptor array).
 */
bool isocam_iso_packet_count_ok(int reported, unsigned int submitted);

#endif /* ISOCAM_ISO_PACKET_H */
