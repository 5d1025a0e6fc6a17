/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Format and bandwidth math shared by the bridge driver and host tests:
 * which pixel formats the camera has, line and image sizes, the
 * bandwidth a format needs and the smallest alt setting that carries it.
 */
#ifndef ISOCAM_FORMAT_H
#define ISOCAM_FORMAT_H

#include "isocam_compat.h"

struct isocam_format_info {
	u32 fourcc;		/* V4L2_PIX_FMT_* */
	u32 mbus_code;		/* MEDIA_BUS_FMT_* the sensor outputs */
	u8 sensor_fmt;		/* IC1280_FMT_* */
	u8 codec;		/* ISOCAM_CODEC_*: what the bridge makes of it */
	bool compressed;	/* frames of any size up to sizeimage */
	u8 bytes_per_pixel;	/* 0 when compressed */
	u32 colorspace;		/* V4L2_COLORSPACE_* */
};

/*
 * The table, in ENUM_FMT order; NULL past the end (or for no match). A
 * sensor's mbus code maps to its raw format; MJPEG, which the bridge
 * makes from the sensor's YUYV, is found by fourcc or index.
 */
const struct isocam_format_info *isocam_format_by_index(unsigned int index);
const struct isocam_format_info *isocam_format_by_fourcc(u32 fourcc);
const struct isocam_format_info *isocam_format_by_mbus(u32 mbus_code);

/* 0 for compressed formats, whose sizeimage is the largest frame. */
u32 isocam_bytesperline(const struct isocam_format_info *fi, u32 width);
u32 isocam_sizeimage(const struct isocam_format_info *fi, u32 width,
		     u32 height);

/*
 * Payload bytes per second a stream needs: sizeimage per frame at a
 * frame interval of num/den seconds, plus one full payload header per
 * packet that carries data (packets of packet_bytes), rounded up.
 * U64_MAX when num or den is 0 or a packet cannot hold a full header.
 */
u64 isocam_stream_bandwidth(u32 sizeimage, u32 interval_num,
			    u32 interval_den, u32 packet_bytes);

/*
 * Payload bytes per second one alt setting carries (high speed): all of
 * packet_bytes (wMaxPacketSize times transactions) every microframe. The
 * headers' share is already in isocam_stream_bandwidth(), so the two
 * compare directly.
 */
u64 isocam_alt_capacity(u32 packet_bytes);

/*
 * Index into packet_bytes[] (alt 0 first, 0 bytes) of the smallest alt
 * whose capacity covers the stream with ISOCAM_BW_MARGIN_PCT headroom;
 * -1 when none does. Entries need not be sorted.
 */
#define ISOCAM_BW_MARGIN_PCT	5
int isocam_pick_alt(const u32 *packet_bytes, unsigned int n, u32 sizeimage,
		    u32 interval_num, u32 interval_den);

/* Whether a format/size/interval fits the largest alt at all. */
bool isocam_fits_bandwidth(const u32 *packet_bytes, unsigned int n,
			   u32 sizeimage, u32 interval_num, u32 interval_den);

#endif /* ISOCAM_FORMAT_H */
