// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Payload parsing and frame assembly. The rules are in isocam_asm.h;
 * this file only applies them. Everything the device sends is untrusted:
 * lengths are checked before use and copies are clamped to the buffer.
 */
#include <isocam/payload.h>

#include "isocam_asm.h"

void isocam_asm_init(struct isocam_assembler *a,
		     const struct isocam_asm_ops *ops, void *priv,
		     u32 frame_size)
{
	memset(a, 0, sizeof(*a));
	a->ops = ops;
	a->priv = priv;
	a->frame_size = frame_size;
	a->last_fid = -1;
}

void isocam_asm_set_compressed(struct isocam_assembler *a, bool compressed)
{
	a->compressed = compressed;
}

/* Whether data[0..len) starts with a payload header we can trust. */
static bool isocam_asm_header_ok(const u8 *data, u32 len)
{
	u8 hlen, info;

	if (len < ISOCAM_PH_LEN_MIN)
		return false;
	hlen = data[ISOCAM_PH_OFF_LEN];
	info = data[ISOCAM_PH_OFF_INFO];
	if (hlen != ISOCAM_PH_LEN_MIN && hlen != ISOCAM_PH_LEN_PTS &&
	    hlen != ISOCAM_PH_LEN_FULL)
		return false;
	if (hlen > len)
		return false;
	if (!(info & ISOCAM_PH_EOH) || (info & ISOCAM_PH_RES))
		return false;
	if ((info & ISOCAM_PH_PTS) && hlen < ISOCAM_PH_LEN_PTS)
		return false;
	if ((info & ISOCAM_PH_SCR) && hlen < ISOCAM_PH_LEN_FULL)
		return false;
	return true;
}

static void isocam_asm_start_frame(struct isocam_assembler *a)
{
	a->in_frame = true;
	a->bad = false;
	a->pts_valid = false;
	a->has_data = false;
	a->overflow = false;
	a->bytesused = 0;

	/* A buffer kept from an empty frame is reused as is. */
	if (!a->have_buf) {
		a->have_buf = a->ops->get_buf(a->priv, &a->buf);
		/* A buffer without memory can hold nothing. */
		if (a->have_buf && !a->buf.vaddr)
			a->buf.size = 0;
	}
	a->discarding = !a->have_buf;
}

static void isocam_asm_give_back(struct isocam_assembler *a, bool error)
{
	struct isocam_asm_buf buf = a->buf;

	a->have_buf = false;
	memset(&a->buf, 0, sizeof(a->buf));
	a->ops->buf_done(a->priv, &buf, a->bytesused, error, a->pts_valid,
			 a->pts);
	a->bytesused = 0;
}

static void isocam_asm_end_frame(struct isocam_assembler *a)
{
	bool error;

	a->in_frame = false;
	if (!a->has_data && !a->bad) {
		/* Nothing happened: keep any buffer for the next frame. */
		a->discarding = false;
		return;
	}
	if (a->discarding) {
		a->discarding = false;
		a->stats.dropped_frames++;
		return;
	}

	if (a->overflow)
		a->stats.overflows++;
	else if (!a->compressed && a->bytesused < a->frame_size)
		a->stats.short_frames++;
	if (a->compressed)
		error = a->bad || a->overflow || !a->bytesused;
	else
		error = a->bad || a->overflow || a->bytesused != a->frame_size;
	if (error)
		a->stats.error_frames++;
	else
		a->stats.frames++;
	isocam_asm_give_back(a, error);
}

static void isocam_asm_copy(struct isocam_assembler *a, const u8 *p, u32 n)
{
	u32 limit, room, count;

	a->has_data = true;
	if (a->discarding)
		return;

	limit = min_t(u32, a->buf.size, a->frame_size);
	room = a->bytesused < limit ? limit - a->bytesused : 0;
	count = min_t(u32, n, room);
	if (count) {
		memcpy(a->buf.vaddr + a->bytesused, p, count);
		a->bytesused += count;
		a->stats.bytes += count;
	}
	if (count < n) {
		a->overflow = true;
		a->bad = true;
	}
}

void isocam_asm_packet(struct isocam_assembler *a, const u8 *data, u32 len)
{
	u8 hlen, info;
	int fid;

	a->stats.packets++;
	if (len == 0) {
		a->stats.empty_packets++;
		return;
	}
	if (!isocam_asm_header_ok(data, len)) {
		/* Its FID and EOF cannot be trusted either: change nothing. */
		a->stats.bad_packets++;
		if (a->in_frame)
			a->bad = true;
		return;
	}

	hlen = data[ISOCAM_PH_OFF_LEN];
	info = data[ISOCAM_PH_OFF_INFO];
	if ((info & ISOCAM_PH_SCR) && a->ops->scr)
		a->ops->scr(a->priv,
			    get_unaligned_le32(data + ISOCAM_PH_OFF_SCR_STC));
	fid = info & ISOCAM_PH_FID;
	if (info & ISOCAM_PH_ERR)
		a->stats.err_bit++;

	if (fid != a->last_fid) {
		/*
		 * A new frame; the FID toggle ends the one in progress. A
		 * compressed frame with data ends only by its EOF: cut off.
		 */
		if (a->in_frame) {
			if (a->compressed && a->has_data)
				a->bad = true;
			isocam_asm_end_frame(a);
		}
		a->last_fid = fid;
		isocam_asm_start_frame(a);
	} else if (!a->in_frame) {
		/* The rest of a frame already ended by EOF. */
		if (len > hlen)
			a->stats.out_of_sync++;
		return;
	}

	if (info & ISOCAM_PH_ERR)
		a->bad = true;
	if ((info & ISOCAM_PH_PTS) && !a->pts_valid) {
		a->pts = get_unaligned_le32(data + ISOCAM_PH_OFF_PTS);
		a->pts_valid = true;
	}
	if (len > hlen)
		isocam_asm_copy(a, data + hlen, len - hlen);
	if (info & ISOCAM_PH_EOF)
		isocam_asm_end_frame(a);
}

void isocam_asm_packet_error(struct isocam_assembler *a)
{
	a->stats.bus_errors++;
	if (a->in_frame)
		a->bad = true;
}

void isocam_asm_flush(struct isocam_assembler *a)
{
	bool partial = a->in_frame && (a->has_data || a->bad);

	/*
	 * A frame cut by the stop is neither a bus loss nor a late consumer:
	 * count it apart, so that error_frames stays exact.
	 */
	if (a->have_buf) {
		if (partial)
			a->stats.stopped_frames++;
		isocam_asm_give_back(a, true);
	} else if (partial) {
		a->stats.dropped_frames++;
	}
	a->in_frame = false;
	a->discarding = false;
	a->bad = false;
	a->pts_valid = false;
	a->has_data = false;
	a->overflow = false;
	a->last_fid = -1;
}
