// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Checks of the bulk personality's endpoint and completed URBs, and its
 * bandwidth; the rules are in isocam_bulk_xfer.h.
 */
#include <isocam/usb.h>

#include "isocam_bulk_xfer.h"
#include "isocam_format.h"

const char *isocam_bulk_xfer_ep_problem(u8 address, u8 attributes, u16 wmaxp)
{
	if ((attributes & ISOCAM_EP_XFER_MASK) != ISOCAM_EP_XFER_BULK)
		return "is not a bulk endpoint";
	if (attributes & ISOCAM_EP_ATTR_RESERVED_BULK)
		return "has reserved bmAttributes bits set";
	if (!(address & ISOCAM_EP_DIR_IN))
		return "is an OUT endpoint";
	if (address & ISOCAM_EP_ADDR_RESERVED)
		return "has reserved bEndpointAddress bits set";
	if (!(address & ISOCAM_EP_NUM_MASK))
		return "claims endpoint number 0";
	if (wmaxp & ISOCAM_EP_MAXP_RESERVED_BULK)
		return "has reserved wMaxPacketSize bits set";
	if (wmaxp != ISOCAM_HS_BULK_MAXP)
		return "has a wMaxPacketSize other than the 512 of high-speed bulk";
	return NULL;
}

enum isocam_bulk_xfer_verdict isocam_bulk_xfer_check(u32 actual_length,
						     u32 submitted,
						     u32 buffer_len, u32 *len)
{
	*len = 0;
	if (actual_length > submitted || actual_length > buffer_len ||
	    actual_length > ISOCAM_USB_BULK_MAX_PAYLOAD)
		return ISOCAM_BULK_XFER_BAD;
	if (!actual_length)
		return ISOCAM_BULK_XFER_EMPTY;
	*len = actual_length;
	return ISOCAM_BULK_XFER_OK;
}

u64 isocam_bulk_xfer_capacity(void)
{
	return (u64)ISOCAM_HS_BULK_PACKETS_PER_UFRAME * ISOCAM_HS_BULK_MAXP *
	       ISOCAM_USB_MICROFRAMES_PER_SEC;
}

bool isocam_bulk_xfer_fits(u32 sizeimage, u32 interval_num, u32 interval_den)
{
	u64 need = isocam_stream_bandwidth(sizeimage, interval_num,
					   interval_den,
					   ISOCAM_USB_BULK_MAX_PAYLOAD);
	u64 cap = isocam_bulk_xfer_capacity();

	if (need > cap)
		return false;
	/* need * (100 + margin) <= cap * 100, without overflow: cap < 2^26 */
	return need * (100 + ISOCAM_BW_MARGIN_PCT) <= cap * 100;
}
