/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * isocam isochronous payload header. Every non-empty isochronous packet
 * starts with it; the layout follows the UVC payload header so that the
 * framing rules (frame-id toggle, end of frame, error bit) are familiar.
 *
 *   byte 0      bHeaderLength: 2, 6 (PTS) or 12 (PTS + SCR)
 *   byte 1      bmHeaderInfo: ISOCAM_PH_* bits
 *   bytes 2..5  PTS, le32, sensor clock ticks at start of exposure
 *   bytes 6..9  SCR source clock, le32, sensor clock ticks when sent
 *   bytes 10,11 SCR SOF counter, le16, 11-bit USB frame number
 *
 * A packet of zero length carries nothing (the device had no data for
 * that microframe). A header-only packet is legal.
 */
#ifndef ISOCAM_PAYLOAD_H
#define ISOCAM_PAYLOAD_H

#include <linux/types.h>

#define ISOCAM_PH_FID		(1 << 0)	/* toggles on each new frame */
#define ISOCAM_PH_EOF		(1 << 1)	/* last packet of a frame */
#define ISOCAM_PH_PTS		(1 << 2)	/* PTS field present */
#define ISOCAM_PH_SCR		(1 << 3)	/* SCR field present */
#define ISOCAM_PH_RES		(1 << 4)	/* reserved, must be 0 */
#define ISOCAM_PH_STI		(1 << 5)	/* still image, unused */
#define ISOCAM_PH_ERR		(1 << 6)	/* the device saw an error */
#define ISOCAM_PH_EOH		(1 << 7)	/* end of header, always set */

#define ISOCAM_PH_LEN_MIN	2
#define ISOCAM_PH_LEN_PTS	6
#define ISOCAM_PH_LEN_FULL	12

#define ISOCAM_PH_OFF_LEN	0
#define ISOCAM_PH_OFF_INFO	1
#define ISOCAM_PH_OFF_PTS	2
#define ISOCAM_PH_OFF_SCR_STC	6
#define ISOCAM_PH_OFF_SCR_SOF	10

/* PTS and SCR count the sensor's clock: 1 MHz. */
#define ISOCAM_PH_CLOCK_HZ	1000000

struct isocam_payload_header {
	__u8 bHeaderLength;
	__u8 bmHeaderInfo;
	__le32 dwPTS;
	__le32 dwSCR_STC;
	__le16 wSCR_SOF;
} __attribute__((packed));

#endif /* ISOCAM_PAYLOAD_H */
