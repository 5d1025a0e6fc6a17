/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The hostile modes (hostile.h) that lie in USB/IP's own terms: the
 * RET_SUBMIT of isochronous IN URBs, and control URBs left unanswered
 * until (or even after) they are unlinked. The session applies them
 * (usbip_session.c); a FunctionFS gadget has no such replies.
 */
#ifndef ISOCAM_EMU_USBIP_HOSTILE_H
#define ISOCAM_EMU_USBIP_HOSTILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostile.h"
#include "usbip_proto.h"

/* --- isochronous replies --- */

/* When an iso URB whose honest deadline is deadline_ns is answered. */
uint64_t hostile_iso_deadline(const struct hostile *h, uint64_t deadline_ns);

/*
 * An iso reply as built honestly: data packed back to back (as vhci's
 * usbip_pad_iso expects), one descriptor per packet asked for. d has
 * room for np + HOSTILE_ISO_EXTRA_PACKETS entries and data for tbl
 * bytes; the active modes rewrite it in place.
 */
struct hostile_iso_reply {
	int32_t status;
	int32_t error_count;
	uint8_t *data;
	uint32_t data_len;		/* bytes of data to send */
	uint32_t tbl;			/* the URB's transfer_buffer_length */
	struct usbip_iso_desc *d;
	uint32_t np;			/* descriptors to send */
};
void hostile_iso_reply(const struct hostile *h, struct hostile_iso_reply *r);

/*
 * Control URBs a session keeps unanswered (ctrl-never, ctrl-never-unlink,
 * std-never, std-never-unlink) until they are unlinked. Per session;
 * zero-initialised is empty.
 */
struct hostile_held {
	struct hostile_held_urb {
		uint32_t seqnum;
		bool answer_unlink;
	} *urb;
	size_t n, cap;
};

/*
 * A control URB (its SETUP's bmRequestType and bRequest) arrived: 1 when
 * it is to be kept unanswered (now in held), 0 when it is to be answered,
 * -1 when held is full (HOSTILE_HELD_MAX) or out of memory.
 */
int hostile_hold_control(const struct hostile *h, struct hostile_held *held,
			 uint8_t bmRequestType, uint8_t bRequest,
			 uint32_t seqnum);
/*
 * CMD_UNLINK of seqnum: -1 when it is not held; else it is dropped from
 * held and the return says whether the unlink is answered (1) or not (0).
 */
int hostile_held_unlink(struct hostile_held *held, uint32_t seqnum);
void hostile_held_free(struct hostile_held *held);

#endif /* ISOCAM_EMU_USBIP_HOSTILE_H */
