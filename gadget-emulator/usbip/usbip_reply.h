/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A RET_SUBMIT of video data on its way to the socket, as a gather list:
 * the reply's own bytes (USB/IP header, payload headers, filler, iso
 * descriptors, and any data that had to be copied) in one growing buffer,
 * and frame data referenced where the video pipe keeps it. It is sent
 * with sendmsg() from those pieces, so the kernel's copy into the socket
 * is the only one the frame data gets.
 *
 * The wire bytes are the same whichever way a packet was put in (copied
 * or referenced): usbip_reply_flatten() gives them, for tests.
 *
 * One per session; not shared between threads. Zero-initialised is
 * empty.
 */
#ifndef ISOCAM_EMU_USBIP_REPLY_H
#define ISOCAM_EMU_USBIP_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "usbip_proto.h"

struct video_stream;

struct usbip_reply {
	uint8_t *own;		/* the reply's own bytes */
	size_t own_len, own_cap;
	struct usbip_reply_piece {
		const uint8_t *ext;	/* frame data; NULL: own + off */
		size_t off, len;
	} *pc;
	size_t n_pc, pc_cap;
	size_t len;		/* bytes in all */
	struct iovec *iov;	/* for sending */
	size_t iov_cap;
};

void usbip_reply_reset(struct usbip_reply *r);
void usbip_reply_free(struct usbip_reply *r);

/*
 * Append len bytes of the reply's own: where to write them, good until
 * the next call that appends; NULL out of memory. Own bytes appended one
 * after the other with nothing referenced between are contiguous.
 */
uint8_t *usbip_reply_own(struct usbip_reply *r, size_t len);
/* Byte off of the reply's own bytes (the header is at 0). */
uint8_t *usbip_reply_own_at(struct usbip_reply *r, size_t off);
/* Append len bytes at p, which must not change until the reply is sent. */
int usbip_reply_ref(struct usbip_reply *r, const void *p, size_t len);
/* Keep only the first len bytes (len <= r->len). */
void usbip_reply_trim(struct usbip_reply *r, size_t len);

/*
 * Append the video pipe's packet for bus time t_ns, at most maxlen bytes:
 * its length, or -1 out of memory (the pipe has moved on all the same).
 * copy: written into the reply's own bytes, as video_stream_packet()
 * writes it (for hostile.h, which rewrites it in place); else its frame
 * data is referenced (video_stream_packet_iov()): the caller must not let
 * the pipe render again before the reply is sent (video_stream_release()
 * only then).
 */
long usbip_reply_packet(struct usbip_reply *r, struct video_stream *vs,
			uint64_t t_ns, size_t maxlen, bool copy);

/*
 * An iso URB's packets from the pipe, packed back to back (as vhci's
 * usbip_pad_iso expects): packet i, at bus time start_ns + i microframes,
 * gets at most d[i].length, alt_bytes and what is left of tbl.
 * d[i].offset and .length are the URB's; actual_length is set. The data
 * bytes, or -1 out of memory. copy as for usbip_reply_packet(); with it
 * the data is contiguous in the reply's own bytes.
 */
long usbip_reply_iso_packets(struct usbip_reply *r, struct video_stream *vs,
			     uint64_t start_ns, struct usbip_iso_desc *d,
			     uint32_t np, uint32_t alt_bytes, uint32_t tbl,
			     bool copy);

/* The reply's bytes, in order, into out (r->len bytes). */
void usbip_reply_flatten(const struct usbip_reply *r, uint8_t *out);

/*
 * Send all of it on fd, in order, resuming after partial writes (and
 * EINTR). 0, or -1 with errno set (EAGAIN: the send timeout ran out).
 * send_fn is sendmsg() or a test's stand-in; flags get MSG_NOSIGNAL.
 */
typedef ssize_t (*usbip_reply_sendmsg)(int fd, const struct msghdr *msg,
				       int flags);
int usbip_reply_send(struct usbip_reply *r, int fd,
		     usbip_reply_sendmsg send_fn);

#endif /* ISOCAM_EMU_USBIP_REPLY_H */
