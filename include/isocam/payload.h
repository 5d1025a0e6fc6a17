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

#define ISOCAM_PH_FID		0x01	/* toggles on each new frame */
#define ISOCAM_PH_EOF		0x02	/* last packet of a frame */
#define ISOCAM_PH_PTS		0x04	/* PTS field present */
#define ISOCAM_PH_SCR		0x08	/* SCR field present */
#define ISOCAM_PH_RES		0x10	/* reserved, must be 0 */
#define ISOCAM_PH_STI		0x20	/* still image, unused */
#define ISOCAM_PH_ERR		0x40	/* the device saw an error */
#define ISOCAM_PH_EOH		0x80	/* end of header, always set */

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

#endif /* ISOCAM_PAYLOAD_H */
