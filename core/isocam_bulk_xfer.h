/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The bulk personality (include/isocam/usb.h, "Bulk transport
 * personality"): the checks its endpoint descriptor and each completed
 * bulk IN URB get before they are used, and the bandwidth a high-speed
 * bulk pipe carries.
 *
 * Nothing is trusted: the descriptor is whatever the device sent, and a
 * completed URB's actual_length is what the host controller (or USB/IP's
 * vhci, from the remote's word) wrote into it.
 */
#ifndef ISOCAM_BULK_XFER_H
#define ISOCAM_BULK_XFER_H

#include "isocam_compat.h"

/* USB 2.0 9.6.6: the endpoint descriptor fields the checks read. */
#define ISOCAM_EP_DIR_IN		0x80
#define ISOCAM_EP_ADDR_RESERVED		0x70
#define ISOCAM_EP_NUM_MASK		0x0f
#define ISOCAM_EP_XFER_MASK		0x03
#define ISOCAM_EP_XFER_BULK		0x02
/* bmAttributes bits 7:2 are reserved for a bulk endpoint. */
#define ISOCAM_EP_ATTR_RESERVED_BULK	0xfc
/* wMaxPacketSize bits 15:11 are reserved for a bulk endpoint. */
#define ISOCAM_EP_MAXP_RESERVED_BULK	0xf800
/* USB 2.0 5.8.3: a high-speed bulk endpoint's packets are 512 bytes. */
#define ISOCAM_HS_BULK_MAXP		512
/* USB 2.0 5.8.4: at most 13 bulk packets of 512 bytes per microframe. */
#define ISOCAM_HS_BULK_PACKETS_PER_UFRAME	13

/*
 * NULL when a high-speed endpoint with these descriptor fields (raw, as
 * the device sent them, wmaxp already in CPU order) is a usable bulk IN
 * endpoint for the stream; else a phrase saying what is wrong with it.
 */
const char *isocam_bulk_xfer_ep_problem(u8 address, u8 attributes, u16 wmaxp);

enum isocam_bulk_xfer_verdict {
	ISOCAM_BULK_XFER_OK,	/* read *len bytes from the buffer's start */
	ISOCAM_BULK_XFER_EMPTY,	/* nothing arrived: the contract says never */
	ISOCAM_BULK_XFER_BAD,	/* actual_length beyond what was submitted */
};

/*
 * A bulk IN URB submitted for submitted bytes into a buffer of buffer_len
 * bytes completed with status 0 and actual_length. *len is the number of
 * bytes to read (0 unless ISOCAM_BULK_XFER_OK); it never exceeds
 * ISOCAM_USB_BULK_MAX_PAYLOAD, submitted or buffer_len.
 */
enum isocam_bulk_xfer_verdict isocam_bulk_xfer_check(u32 actual_length,
						     u32 submitted,
						     u32 buffer_len, u32 *len);

/*
 * Payload bytes per second a high-speed bulk pipe carries at most: 13
 * packets of 512 bytes every microframe (53.2 MB/s).
 */
u64 isocam_bulk_xfer_capacity(void);

/*
 * Whether a stream of sizeimage bytes per frame at num/den seconds per
 * frame fits a high-speed bulk pipe, with one full payload header per
 * ISOCAM_USB_BULK_MAX_PAYLOAD transfer and ISOCAM_BW_MARGIN_PCT headroom
 * as for the isochronous alts.
 */
bool isocam_bulk_xfer_fits(u32 sizeimage, u32 interval_num, u32 interval_den);

#endif /* ISOCAM_BULK_XFER_H */
