/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Payload parsing and frame assembly (isocam_asm_*, the frame assembler):
 * isochronous packets in, complete frames out. Bus agnostic: the USB
 * driver feeds it packets from URB completions and lends it buffers
 * through callbacks.
 *
 * Rules (see include/isocam/payload.h):
 * - A packet shorter than its header, or whose bHeaderLength is not 2, 6
 *   or 12, or lacks EOH, or has RES set, is a bad packet: counted, and the
 *   frame in progress is marked bad.
 * - A FID toggle starts a new frame; the frame in progress (if any) is
 *   finished first, marked bad unless it was complete.
 * - EOF finishes the frame. A finished frame is good when no error was
 *   seen and exactly frame_size bytes arrived. Compressed frames
 *   (isocam_asm_set_compressed()) vary in size: one is good when it ended
 *   with EOF, no error was seen and it had 1 to frame_size bytes.
 * - ERR marks the frame bad.
 * - Payload beyond the buffer's size is never written; it marks the frame
 *   bad (overflow). Nor is payload beyond frame_size: such a frame is bad
 *   anyway, and bytesused never exceeds sizeimage.
 * - With no buffer to fill, the frame's payload is discarded and the
 *   frame counted as dropped.
 * - A PTS or SCR bit whose field lies beyond bHeaderLength also makes a
 *   bad packet.
 * - The first packet after init or flush starts a frame, as in uvcvideo:
 *   streams start on a frame boundary, and a stream joined mid-frame
 *   shows up as one short (bad) frame rather than a lost good one.
 * - After EOF, packets keep the old FID until the next frame: their
 *   payload is dropped (out_of_sync) until the FID toggles.
 * - A frame that ends with no payload and no error is no frame: nothing
 *   is returned or counted, and a lent buffer is kept for the next one.
 * - Zero-length packets only count.
 * - A frame's PTS is the first one its packets carry.
 * - A packet's SCR source clock goes to the scr op (when there is one) as
 *   soon as its header is trusted, before the packet can end a frame: the
 *   driver's clock has the sample before it stamps that frame.
 */
#ifndef ISOCAM_ASM_H
#define ISOCAM_ASM_H

#include "isocam_compat.h"

struct isocam_asm_buf {
	void *cookie;		/* the driver's buffer, handed back as is */
	u8 *vaddr;
	u32 size;		/* bytes available at vaddr */
};

struct isocam_asm_ops {
	/* Lend a buffer for a new frame; return false when none is queued. */
	bool (*get_buf)(void *priv, struct isocam_asm_buf *buf);
	/*
	 * Return a buffer. bytesused is what was written; error is true for a
	 * bad frame (the driver flags it V4L2_BUF_FLAG_ERROR). pts is the
	 * payload PTS when pts_valid.
	 */
	void (*buf_done)(void *priv, struct isocam_asm_buf *buf, u32 bytesused,
			 bool error, bool pts_valid, u32 pts);
	/* Optional: the SCR source clock of the packet being fed. */
	void (*scr)(void *priv, u32 stc);
};

struct isocam_asm_stats {
	u64 packets;		/* packets seen, empty ones included */
	u64 empty_packets;	/* zero-length packets */
	u64 bad_packets;	/* malformed headers */
	u64 bytes;		/* payload bytes written into buffers */
	u32 frames;		/* good frames delivered */
	u32 error_frames;	/* frames delivered with the error flag */
	u32 dropped_frames;	/* frames that had no buffer */
	u32 stopped_frames;	/* frames cut short by a stop (flush) */
	u32 err_bit;		/* packets with ISOCAM_PH_ERR */
	u32 overflows;		/* frames that exceeded frame_size */
	u32 short_frames;	/* frames that ended below frame_size */
	u32 out_of_sync;	/* payloads dropped between EOF and a new FID */
	u32 bus_errors;		/* isocam_asm_packet_error() calls */
};

struct isocam_assembler {
	const struct isocam_asm_ops *ops;
	void *priv;
	u32 frame_size;		/* expected bytes per frame (sizeimage) */
	bool compressed;	/* frame_size is a limit, not the size */

	/* frame in progress */
	bool have_buf;
	bool in_frame;
	bool discarding;	/* in a frame without a buffer */
	bool bad;
	bool pts_valid;
	bool has_data;		/* the frame carried payload */
	bool overflow;		/* the frame exceeded buffer or frame_size */
	int last_fid;		/* -1: none yet */
	u32 pts;
	u32 bytesused;
	struct isocam_asm_buf buf;

	struct isocam_asm_stats stats;
};

void isocam_asm_init(struct isocam_assembler *a,
		     const struct isocam_asm_ops *ops, void *priv,
		     u32 frame_size);

/* Compressed frames from now on (or raw again); kept by flush. */
void isocam_asm_set_compressed(struct isocam_assembler *a, bool compressed);

/* Feed one isochronous packet (data may be NULL when len is 0). */
void isocam_asm_packet(struct isocam_assembler *a, const u8 *data, u32 len);

/*
 * A packet the bus reported as failed (its iso status was an error):
 * the frame in progress is marked bad.
 */
void isocam_asm_packet_error(struct isocam_assembler *a);

/*
 * Stream stop: a buffer still held is returned with error set, and the
 * next packet starts afresh (as after init). Statistics are kept.
 */
void isocam_asm_flush(struct isocam_assembler *a);

#endif /* ISOCAM_ASM_H */
