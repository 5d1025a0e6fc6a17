// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The camera's pixel formats and the bandwidth math that picks an
 * isochronous alt setting for them.
 */
#include <linux/media-bus-format.h>
#include <linux/videodev2.h>
#include <isocam/ic1280_regs.h>
#include <isocam/payload.h>
#include <isocam/usb.h>

#include "isocam_format.h"

/*
 * sRGB for the raw three, as uvcvideo and vivid report for webcam YUV and
 * RGB: the sensor renders sRGB primaries and the bridge does no
 * conversion. MJPEG is JFIF: full-range BT.601 Y'CbCr of sRGB, which
 * V4L2_COLORSPACE_JPEG names.
 */
static const struct isocam_format_info isocam_formats[] = {
	{
		.fourcc = V4L2_PIX_FMT_YUYV,
		.mbus_code = MEDIA_BUS_FMT_YUYV8_2X8,
		.sensor_fmt = IC1280_FMT_YUYV,
		.bytes_per_pixel = 2,
		.colorspace = V4L2_COLORSPACE_SRGB,
	},
	{
		.fourcc = V4L2_PIX_FMT_RGB565,
		.mbus_code = MEDIA_BUS_FMT_RGB565_2X8_LE,
		.sensor_fmt = IC1280_FMT_RGB565,
		.bytes_per_pixel = 2,
		.colorspace = V4L2_COLORSPACE_SRGB,
	},
	{
		.fourcc = V4L2_PIX_FMT_GREY,
		.mbus_code = MEDIA_BUS_FMT_Y8_1X8,
		.sensor_fmt = IC1280_FMT_GREY,
		.bytes_per_pixel = 1,
		.colorspace = V4L2_COLORSPACE_SRGB,
	},
	{
		.fourcc = V4L2_PIX_FMT_MJPEG,
		.mbus_code = MEDIA_BUS_FMT_YUYV8_2X8,
		.sensor_fmt = IC1280_FMT_YUYV,
		.codec = ISOCAM_CODEC_JPEG,
		.compressed = true,
		.colorspace = V4L2_COLORSPACE_JPEG,
	},
};

const struct isocam_format_info *isocam_format_by_index(unsigned int index)
{
	if (index >= ARRAY_SIZE(isocam_formats))
		return NULL;
	return &isocam_formats[index];
}

const struct isocam_format_info *isocam_format_by_fourcc(u32 fourcc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(isocam_formats); i++)
		if (isocam_formats[i].fourcc == fourcc)
			return &isocam_formats[i];
	return NULL;
}

const struct isocam_format_info *isocam_format_by_mbus(u32 mbus_code)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(isocam_formats); i++)
		if (isocam_formats[i].mbus_code == mbus_code)
			return &isocam_formats[i];
	return NULL;
}

u32 isocam_bytesperline(const struct isocam_format_info *fi, u32 width)
{
	return width * fi->bytes_per_pixel;
}

u32 isocam_sizeimage(const struct isocam_format_info *fi, u32 width,
		     u32 height)
{
	if (fi->compressed)
		return ISOCAM_JPEG_MAX_FRAME(width, height);
	return isocam_bytesperline(fi, width) * height;
}

/* a * b / c rounded up, saturating at U64_MAX; c != 0. */
static u64 isocam_mul_div_round_up(u64 a, u32 b, u32 c)
{
	u32 rem;
	u64 q = div_u64_rem(a, c, &rem);
	u64 hi, lo;

	/* a * b / c = q * b + rem * b / c, and rem * b fits in 64 bits. */
	if (b && q > div_u64(U64_MAX, b))
		return U64_MAX;
	hi = q * b;
	lo = div_u64((u64)rem * b + c - 1, c);
	if (hi > U64_MAX - lo)
		return U64_MAX;
	return hi + lo;
}

u64 isocam_stream_bandwidth(u32 sizeimage, u32 interval_num,
			    u32 interval_den, u32 packet_bytes)
{
	u32 payload_per_packet;
	u64 per_frame;

	if (!interval_num || !interval_den ||
	    packet_bytes <= ISOCAM_PH_LEN_FULL)
		return U64_MAX;
	payload_per_packet = packet_bytes - ISOCAM_PH_LEN_FULL;
	per_frame = (u64)sizeimage + (u64)ISOCAM_PH_LEN_FULL *
		    DIV_ROUND_UP(sizeimage, payload_per_packet);
	/* frames per second = den / num */
	return isocam_mul_div_round_up(per_frame, interval_den, interval_num);
}

u64 isocam_alt_capacity(u32 packet_bytes)
{
	return (u64)packet_bytes * ISOCAM_USB_MICROFRAMES_PER_SEC;
}

/* Whether an alt of packet_bytes carries the stream with the margin. */
static bool isocam_alt_fits(u32 packet_bytes, u32 sizeimage,
			    u32 interval_num, u32 interval_den)
{
	u64 need = isocam_stream_bandwidth(sizeimage, interval_num,
					   interval_den, packet_bytes);
	u64 cap = isocam_alt_capacity(packet_bytes);

	if (need > cap)
		return false;
	/* need * (100 + margin) <= cap * 100, without overflow: cap < 2^46 */
	return need * (100 + ISOCAM_BW_MARGIN_PCT) <= cap * 100;
}

int isocam_pick_alt(const u32 *packet_bytes, unsigned int n, u32 sizeimage,
		    u32 interval_num, u32 interval_den)
{
	unsigned int i;
	int best = -1;

	for (i = 0; i < n; i++) {
		if (!isocam_alt_fits(packet_bytes[i], sizeimage, interval_num,
				     interval_den))
			continue;
		if (best < 0 || packet_bytes[i] < packet_bytes[best])
			best = i;
	}
	return best;
}

bool isocam_fits_bandwidth(const u32 *packet_bytes, unsigned int n,
			   u32 sizeimage, u32 interval_num, u32 interval_den)
{
	return isocam_pick_alt(packet_bytes, n, sizeimage, interval_num,
			       interval_den) >= 0;
}
