// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The hostile modes that lie in USB/IP's terms (usbip_hostile.h): iso
 * replies rewritten in place, and control URBs held unanswered.
 */
#include "usbip_hostile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>

/* --- isochronous replies --- */

uint64_t hostile_iso_deadline(const struct hostile *h, uint64_t deadline_ns)
{
	if (hostile_on(h, HOSTILE_ISO_NEVER))
		return HOSTILE_NEVER_NS;
	if (hostile_on(h, HOSTILE_ISO_LATE))
		return deadline_ns + HOSTILE_ISO_LATE_NS;
	return deadline_ns;
}

/*
 * From packed to the layout vhci's usbip_pad_iso would have made: each
 * packet at its offset, the rest of its slot zero. Last packet first, so
 * that no packet is overwritten before it has moved (packed positions
 * never lie above offsets for the back-to-back slots a driver submits).
 * Every move stays inside the tbl bytes: the parser checked each
 * offset + length against the buffer, and actual_length <= length.
 */
static void unpack(struct hostile_iso_reply *r)
{
	uint32_t pos = r->data_len, i;

	for (i = r->np; i-- > 0;) {
		struct usbip_iso_desc *d = &r->d[i];

		pos -= d->actual_length;
		memmove(r->data + d->offset, r->data + pos, d->actual_length);
		memset(r->data + d->offset + d->actual_length, 0,
		       d->length - d->actual_length);
	}
	r->data_len = r->tbl;
}

/*
 * Claim more than each packet's length, but let the claims add up to
 * exactly transfer_buffer_length, which vhci checks: packets claim
 * length + 4096 while the buffer lasts, the next one what is left.
 */
static void claim_over(struct hostile_iso_reply *r)
{
	uint32_t left = r->tbl, i;

	for (i = 0; i < r->np; i++) {
		uint64_t want = (uint64_t)r->d[i].length + HOSTILE_ISO_ACTUAL_EXTRA;

		r->d[i].actual_length = want < left ? (uint32_t)want : left;
		left -= r->d[i].actual_length;
	}
}

void hostile_iso_reply(const struct hostile *h, struct hostile_iso_reply *r)
{
	bool wild = hostile_on(h, HOSTILE_ISO_OFFSET_WILD);
	bool over = hostile_on(h, HOSTILE_ISO_ACTUAL_OVER);
	bool pkt_status = hostile_on(h, HOSTILE_ISO_PKT_STATUS);
	bool urb_status = hostile_on(h, HOSTILE_ISO_URB_STATUS);
	uint32_t i;

	if (wild || over)
		unpack(r);
	if (over)
		claim_over(r);
	for (i = 0; i < r->np; i++) {
		struct usbip_iso_desc *d = &r->d[i];

		/* whole slots: the claims add up to tbl, as vhci checks */
		if (wild && !over)
			d->actual_length = d->length;
		if (wild)
			d->offset = HOSTILE_ISO_WILD_OFFSET + i;
		if (hostile_on(h, HOSTILE_ISO_LEN_OVER))
			d->length = HOSTILE_ISO_LEN_OVER_LEN;
		if (pkt_status) {
			d->actual_length = 0;
			d->status = -EPROTO;
		}
		if (urb_status)
			d->actual_length = 0;
	}
	if (pkt_status) {
		r->data_len = 0;
		r->error_count = (int32_t)r->np;
	}
	if (urb_status) {
		r->status = -EPROTO;
		r->data_len = 0;
	}
	if (hostile_on(h, HOSTILE_ISO_NP_MORE) && r->np) {
		const struct usbip_iso_desc last = r->d[r->np - 1];

		/* packets that were never asked for, past the buffer's end */
		for (i = 0; i < HOSTILE_ISO_EXTRA_PACKETS; i++)
			r->d[r->np + i] = (struct usbip_iso_desc){
				.offset = last.offset + (i + 1) * last.length,
				.length = last.length,
			};
		r->np += HOSTILE_ISO_EXTRA_PACKETS;
	}
	if (hostile_on(h, HOSTILE_ISO_NP_ZERO))
		r->np = 0;
}

/*
 * The standard requests a host sends to start and stop a stream, as
 * opposed to those of enumeration, which the std modes still answer.
 */
static bool stream_std_request(uint8_t bmRequestType, uint8_t bRequest)
{
	return (bmRequestType & USB_TYPE_MASK) == USB_TYPE_STANDARD &&
	       (bRequest == USB_REQ_SET_INTERFACE ||
		bRequest == USB_REQ_CLEAR_FEATURE);
}

int hostile_hold_control(const struct hostile *h, struct hostile_held *held,
			 uint8_t bmRequestType, uint8_t bRequest,
			 uint32_t seqnum)
{
	bool never, never_unlink;

	if ((bmRequestType & USB_TYPE_MASK) == USB_TYPE_VENDOR) {
		never = hostile_on(h, HOSTILE_CTRL_NEVER) || hostile_wedged(h);
		never_unlink = hostile_on(h, HOSTILE_CTRL_NEVER_UNLINK);
	} else if (stream_std_request(bmRequestType, bRequest)) {
		never = hostile_on(h, HOSTILE_STD_NEVER);
		never_unlink = hostile_on(h, HOSTILE_STD_NEVER_UNLINK);
	} else {
		return 0;
	}
	if (!never && !never_unlink)
		return 0;
	if (held->n == held->cap) {
		size_t cap = held->cap ? held->cap * 2 : 16;
		struct hostile_held_urb *p;

		if (held->cap >= HOSTILE_HELD_MAX)
			return -1;
		p = realloc(held->urb, cap * sizeof(*p));
		if (!p)
			return -1;
		held->urb = p;
		held->cap = cap;
	}
	held->urb[held->n].seqnum = seqnum;
	held->urb[held->n].answer_unlink = !never_unlink;
	held->n++;
	return 1;
}

int hostile_held_unlink(struct hostile_held *held, uint32_t seqnum)
{
	size_t i;

	for (i = 0; i < held->n; i++) {
		bool answer = held->urb[i].answer_unlink;

		if (held->urb[i].seqnum != seqnum)
			continue;
		held->urb[i] = held->urb[--held->n];
		return answer;
	}
	return -1;
}

void hostile_held_free(struct hostile_held *held)
{
	free(held->urb);
	held->urb = NULL;
	held->n = held->cap = 0;
}
