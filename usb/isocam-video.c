// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: isochronous streaming.
 *
 * Stream start picks the smallest alt setting whose bandwidth carries the
 * current format at the current frame interval, keeps num_urbs URBs of
 * num_packets packets each in flight, and hands every packet to the core
 * frame assembler, which lends itself vb2 buffers through the ops below.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/usb.h>
#include <media/v4l2-subdev.h>
#include <media/videobuf2-v4l2.h>

#include <isocam/usb.h>

#include "isocam.h"

/*
 * 32 URBs x 32 packets. Each URB spans 32 microframes (4 ms of bus time),
 * so completions run 250 times a second, not 8000, and one URB buffer is
 * at most 32 x 3072 bytes = 96 KiB (uvcvideo's size too). 32 in flight
 * keep 128 ms of bus time queued at the host controller: a completion may
 * be that late before the device has nowhere to put a packet. USB/IP in
 * an emulated guest needs it: there 8 URBs (32 ms) lost a third of the
 * frames at 640x480 YUYV 30 fps, 16 (64 ms) an occasional one, 32 none.
 * Real hardware does with less; both numbers are tunable per stream start.
 */
static unsigned int num_urbs = 32;
module_param(num_urbs, uint, 0644);
MODULE_PARM_DESC(num_urbs, "isochronous URBs in flight (2-64, default 32)");

static unsigned int num_packets = 32;
module_param(num_packets, uint, 0644);
MODULE_PARM_DESC(num_packets,
		 "packets (microframes) per URB (1-128, default 32)");

/* ---- frame assembler ops: called under dev->slock ---- */

static bool isocam_get_buf(void *priv, struct isocam_asm_buf *ab)
{
	struct isocam_dev *dev = priv;
	struct isocam_buffer *buf;
	u32 seq = dev->sequence++;

	buf = list_first_entry_or_null(&dev->queued, struct isocam_buffer,
				       list);
	if (!buf)
		return false;
	list_del(&buf->list);

	buf->vb.sequence = seq;
	/* Start of exposure is unknown; the first packet's arrival is close. */
	buf->vb.vb2_buf.timestamp = dev->pkt_ts;
	ab->cookie = buf;
	ab->vaddr = vb2_plane_vaddr(&buf->vb.vb2_buf, 0);
	ab->size = vb2_plane_size(&buf->vb.vb2_buf, 0);
	if (!ab->vaddr) {
		/* Cannot happen with vmalloc memops; never write through NULL. */
		ab->size = 0;
	}
	return true;
}

static void isocam_buf_done(void *priv, struct isocam_asm_buf *ab,
			    u32 bytesused, bool error, bool pts_valid, u32 pts)
{
	struct isocam_dev *dev = priv;
	struct isocam_buffer *buf = ab->cookie;

	buf->vb.field = V4L2_FIELD_NONE;
	vb2_set_plane_payload(&buf->vb.vb2_buf, 0, bytesused);
	vb2_buffer_done(&buf->vb.vb2_buf,
			error ? dev->error_state : VB2_BUF_STATE_DONE);
}

static const struct isocam_asm_ops isocam_asm_ops = {
	.get_buf = isocam_get_buf,
	.buf_done = isocam_buf_done,
};

/* ---- URBs ---- */

static void isocam_urb_complete(struct urb *urb)
{
	struct isocam_dev *dev = urb->context;
	unsigned long flags;
	u64 now;
	int i, ret;

	switch (urb->status) {
	case 0:
	case -EXDEV:		/* some packets failed: their status tells */
		break;
	case -ENOENT:		/* killed */
	case -ECONNRESET:	/* unlinked */
	case -ESHUTDOWN:	/* device or host controller gone */
	case -ENODEV:
		return;
	default:
		spin_lock_irqsave(&dev->slock, flags);
		dev->stats.urb_errors++;
		spin_unlock_irqrestore(&dev->slock, flags);
		dev_warn_ratelimited(&dev->intf->dev, "URB error %d\n",
				     urb->status);
		goto resubmit;
	}

	now = ktime_get_ns();
	spin_lock_irqsave(&dev->slock, flags);
	dev->stats.urbs++;
	for (i = 0; i < urb->number_of_packets; i++) {
		const struct usb_iso_packet_descriptor *d =
			&urb->iso_frame_desc[i];

		/* Packet i arrived (number_of_packets - 1 - i) uframes ago. */
		dev->pkt_ts = now - (u64)(urb->number_of_packets - 1 - i) *
				    (NSEC_PER_SEC / ISOCAM_USB_MICROFRAMES_PER_SEC);
		if (d->status) {
			dev->stats.packet_errors++;
			isocam_asm_packet_error(&dev->assembler);
			continue;
		}
		isocam_asm_packet(&dev->assembler,
				  (const u8 *)urb->transfer_buffer + d->offset,
				  min(d->actual_length, d->length));
	}
	spin_unlock_irqrestore(&dev->slock, flags);

resubmit:
	ret = usb_submit_urb(urb, GFP_ATOMIC);
	if (ret && ret != -EPERM && ret != -ENODEV && ret != -ESHUTDOWN) {
		spin_lock_irqsave(&dev->slock, flags);
		dev->stats.resubmit_errors++;
		spin_unlock_irqrestore(&dev->slock, flags);
		dev_err_ratelimited(&dev->intf->dev,
				    "URB resubmit failed: %d\n", ret);
	}
}

static void isocam_free_urbs(struct isocam_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->num_urbs; i++) {
		struct urb *urb = dev->urbs[i];

		if (!urb)
			continue;
		usb_free_coherent(dev->udev, urb->transfer_buffer_length,
				  urb->transfer_buffer, urb->transfer_dma);
		usb_free_urb(urb);
		dev->urbs[i] = NULL;
	}
	dev->num_urbs = 0;
}

static int isocam_alloc_urbs(struct isocam_dev *dev)
{
	unsigned int n = clamp(num_urbs, 2U, (unsigned int)ISOCAM_MAX_URBS);
	unsigned int np = clamp(num_packets, 1U,
				(unsigned int)ISOCAM_MAX_PACKETS);
	unsigned int size = np * dev->packet_bytes;
	unsigned int i, j;

	dev->num_packets = np;
	for (i = 0; i < n; i++) {
		struct urb *urb = usb_alloc_urb(np, GFP_KERNEL);

		if (!urb)
			goto nomem;
		dev->urbs[i] = urb;
		dev->num_urbs = i + 1;
		urb->transfer_buffer = usb_alloc_coherent(dev->udev, size,
							  GFP_KERNEL,
							  &urb->transfer_dma);
		if (!urb->transfer_buffer)
			goto nomem;
		urb->dev = dev->udev;
		urb->context = dev;
		urb->pipe = usb_rcvisocpipe(dev->udev, dev->ep_num);
		urb->transfer_flags = URB_ISO_ASAP | URB_NO_TRANSFER_DMA_MAP;
		urb->interval = 1;	/* microframes, checked at probe */
		urb->complete = isocam_urb_complete;
		urb->number_of_packets = np;
		urb->transfer_buffer_length = size;
		for (j = 0; j < np; j++) {
			urb->iso_frame_desc[j].offset = j * dev->packet_bytes;
			urb->iso_frame_desc[j].length = dev->packet_bytes;
		}
	}
	return 0;

nomem:
	dev_err(&dev->intf->dev, "cannot allocate %u URBs of %u bytes\n", n,
		size);
	isocam_free_urbs(dev);
	return -ENOMEM;
}

/* ---- bandwidth ---- */

bool isocam_interval_fits(struct isocam_dev *dev, u32 sizeimage,
			  const struct v4l2_fract *tpf)
{
	return isocam_fits_bandwidth(dev->alt_bytes, dev->num_alts, sizeimage,
				     tpf->numerator, tpf->denominator);
}

static int isocam_set_alt(struct isocam_dev *dev, int alt)
{
	/* debugfs sim_max_alt: behave as a host short of bandwidth would. */
	if (alt && dev->sim_max_alt && alt > dev->sim_max_alt)
		return -ENOSPC;
	return usb_set_interface(dev->udev, dev->ifnum, alt);
}

/*
 * The shortest interval the sensor offers for the current format that is
 * at least tpf and fits one alt of the given capacity.
 */
static bool isocam_interval_for_alt(struct isocam_dev *dev, u32 bytes,
				    struct v4l2_fract *tpf)
{
	u32 tbl[2] = { 0, bytes };
	struct v4l2_subdev_frame_interval_enum fie = {
		.which = V4L2_SUBDEV_FORMAT_ACTIVE,
		.code = dev->fi->mbus_code,
		.width = dev->pix.width,
		.height = dev->pix.height,
	};
	struct v4l2_fract best = { 0, 0 };

	while (!v4l2_subdev_call_state_active(dev->sd, pad,
					      enum_frame_interval, &fie)) {
		struct v4l2_fract f = fie.interval;

		fie.index++;
		if (!f.numerator || !f.denominator)
			continue;
		/* f >= tpf and (no best yet or f < best) */
		if ((u64)f.numerator * tpf->denominator <
		    (u64)tpf->numerator * f.denominator)
			continue;
		if (!isocam_fits_bandwidth(tbl, 2, dev->pix.sizeimage,
					   f.numerator, f.denominator))
			continue;
		if (!best.denominator ||
		    (u64)f.numerator * best.denominator <
		    (u64)best.numerator * f.denominator)
			best = f;
	}
	if (!best.denominator)
		return false;
	*tpf = best;
	return true;
}

/*
 * The host refused the alt we need (-ENOSPC: its periodic schedule is
 * full). Try the smaller alts, largest first, at a longer frame interval
 * that fits each, and keep the first one the host accepts.
 */
static int isocam_alt_fallback(struct isocam_dev *dev, int refused)
{
	struct device *d = &dev->intf->dev;
	u32 limit = dev->alt_bytes[refused];

	for (;;) {
		struct v4l2_fract tpf = dev->timeperframe;
		u32 best_bytes = 0;
		int best = -1, i, ret;

		for (i = 1; i < dev->num_alts; i++) {
			if (dev->alt_bytes[i] < limit &&
			    dev->alt_bytes[i] > best_bytes) {
				best = i;
				best_bytes = dev->alt_bytes[i];
			}
		}
		if (best < 0)
			break;
		limit = best_bytes;
		if (!isocam_interval_for_alt(dev, best_bytes, &tpf))
			continue;
		ret = isocam_set_alt(dev, best);
		dev->stats.enospc_fallbacks++;
		if (ret == -ENOSPC)
			continue;
		if (ret)
			return ret;
		dev_warn(d, "host refused bandwidth for alt %d (%u bytes/uframe); streaming on alt %d (%u bytes/uframe) at %u/%u s per frame instead of %u/%u\n",
			 refused, dev->alt_bytes[refused], best, best_bytes,
			 tpf.numerator, tpf.denominator,
			 dev->timeperframe.numerator,
			 dev->timeperframe.denominator);
		dev->timeperframe = tpf;
		return best;
	}
	dev_err(d, "host refused bandwidth for alt %d and every smaller alt that could carry %ux%u\n",
		refused, dev->pix.width, dev->pix.height);
	return -ENOSPC;
}

/* ---- counters ---- */

static void isocam_asm_stats_add(struct isocam_asm_stats *t,
				 const struct isocam_asm_stats *s)
{
	t->packets += s->packets;
	t->empty_packets += s->empty_packets;
	t->bad_packets += s->bad_packets;
	t->bytes += s->bytes;
	t->frames += s->frames;
	t->error_frames += s->error_frames;
	t->dropped_frames += s->dropped_frames;
	t->err_bit += s->err_bit;
	t->overflows += s->overflows;
	t->short_frames += s->short_frames;
	t->out_of_sync += s->out_of_sync;
	t->bus_errors += s->bus_errors;
}

/* The assembler's counters since probe; caller holds dev->slock. */
void isocam_asm_totals(struct isocam_dev *dev, struct isocam_asm_stats *t)
{
	*t = dev->asm_past;
	isocam_asm_stats_add(t, &dev->assembler.stats);
}

/* ---- start / stop; called with dev->lock held ---- */

void isocam_return_buffers(struct isocam_dev *dev, enum vb2_buffer_state st)
{
	struct isocam_buffer *buf, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&dev->slock, flags);
	list_splice_init(&dev->queued, &list);
	spin_unlock_irqrestore(&dev->slock, flags);

	list_for_each_entry_safe(buf, tmp, &list, list) {
		list_del(&buf->list);
		vb2_buffer_done(&buf->vb.vb2_buf, st);
	}
}

/* Make the sensor's active format and interval match ours. */
int isocam_sensor_setup(struct isocam_dev *dev)
{
	struct v4l2_subdev_format fmt = {
		.which = V4L2_SUBDEV_FORMAT_ACTIVE,
		.format = {
			.code = dev->fi->mbus_code,
			.width = dev->pix.width,
			.height = dev->pix.height,
			.field = V4L2_FIELD_NONE,
		},
	};
	struct v4l2_subdev_frame_interval fi = {
		.interval = dev->timeperframe,
	};
	int ret;

	ret = v4l2_subdev_call_state_active(dev->sd, pad, set_fmt, &fmt);
	if (ret)
		return ret;
	if (fmt.format.code != dev->fi->mbus_code ||
	    fmt.format.width != dev->pix.width ||
	    fmt.format.height != dev->pix.height) {
		dev_err(&dev->intf->dev, "sensor gave %ux%u code 0x%04x for %ux%u code 0x%04x\n",
			fmt.format.width, fmt.format.height, fmt.format.code,
			dev->pix.width, dev->pix.height, dev->fi->mbus_code);
		return -EIO;
	}
	ret = v4l2_subdev_call(dev->sd, video, s_frame_interval, &fi);
	if (ret && ret != -ENOIOCTLCMD)
		return ret;
	return 0;
}

int isocam_stream_start(struct isocam_dev *dev)
{
	struct device *d = &dev->intf->dev;
	unsigned long flags;
	unsigned int i;
	int alt, ret;

	if (dev->disconnected)
		return -ENODEV;

	alt = isocam_pick_alt(dev->alt_bytes, dev->num_alts,
			      dev->pix.sizeimage, dev->timeperframe.numerator,
			      dev->timeperframe.denominator);
	if (alt <= 0) {
		dev_err(d, "%ux%u at %u/%u s per frame needs more than the largest alt carries\n",
			dev->pix.width, dev->pix.height,
			dev->timeperframe.numerator,
			dev->timeperframe.denominator);
		return -ENOSPC;
	}
	ret = isocam_set_alt(dev, alt);
	if (ret == -ENOSPC)
		ret = isocam_alt_fallback(dev, alt);
	else if (!ret)
		ret = alt;
	if (ret < 0) {
		/* The fallback has said why it gave up. */
		if (ret != -ENOSPC)
			dev_err(d, "cannot select alt %d: %d\n", alt, ret);
		return ret;
	}
	alt = ret;

	ret = isocam_sensor_setup(dev);
	if (ret) {
		dev_err(d, "cannot configure the sensor: %d\n", ret);
		goto err_alt;
	}

	dev->alt = alt;
	dev->packet_bytes = dev->alt_bytes[alt];
	ret = isocam_alloc_urbs(dev);
	if (ret)
		goto err_alt;

	spin_lock_irqsave(&dev->slock, flags);
	dev->sequence = 0;
	/* isocam_asm_init() zeroes the counters: keep them. */
	isocam_asm_stats_add(&dev->asm_past, &dev->assembler.stats);
	isocam_asm_init(&dev->assembler, &isocam_asm_ops, dev,
			dev->pix.sizeimage);
	dev->stats.streams++;
	spin_unlock_irqrestore(&dev->slock, flags);

	dev->streaming = true;
	for (i = 0; i < dev->num_urbs; i++) {
		ret = usb_submit_urb(dev->urbs[i], GFP_KERNEL);
		if (ret) {
			dev_err(d, "cannot submit URB %u: %d\n", i, ret);
			goto err_urbs;
		}
	}

	ret = v4l2_subdev_call(dev->sd, video, s_stream, 1);
	if (ret) {
		dev_err(d, "sensor did not start streaming: %d\n", ret);
		goto err_urbs;
	}
	dev_dbg(d, "streaming %ux%u %p4cc at %u/%u s, alt %d (%u bytes), %u URBs x %u packets\n",
		dev->pix.width, dev->pix.height, &dev->pix.pixelformat,
		dev->timeperframe.numerator, dev->timeperframe.denominator,
		alt, dev->packet_bytes, dev->num_urbs, dev->num_packets);
	return 0;

err_urbs:
	for (i = 0; i < dev->num_urbs; i++)
		usb_kill_urb(dev->urbs[i]);
	dev->streaming = false;
	/* vb2 wants the buffers of a failed start back as QUEUED. */
	dev->error_state = VB2_BUF_STATE_QUEUED;
	isocam_asm_flush(&dev->assembler);
	dev->error_state = VB2_BUF_STATE_ERROR;
	isocam_free_urbs(dev);
err_alt:
	dev->alt = 0;
	dev->packet_bytes = 0;
	isocam_set_alt(dev, 0);
	return ret;
}

/* Idempotent: stop_streaming after disconnect finds nothing to do. */
void isocam_stream_stop(struct isocam_dev *dev)
{
	unsigned long flags;
	unsigned int i;

	if (dev->streaming) {
		if (dev->sd)
			v4l2_subdev_call(dev->sd, video, s_stream, 0);
		for (i = 0; i < dev->num_urbs; i++)
			usb_kill_urb(dev->urbs[i]);
		dev->streaming = false;

		spin_lock_irqsave(&dev->slock, flags);
		isocam_asm_flush(&dev->assembler);
		dev->alt = 0;
		dev->packet_bytes = 0;
		spin_unlock_irqrestore(&dev->slock, flags);

		isocam_free_urbs(dev);
		if (!dev->disconnected)
			isocam_set_alt(dev, 0);
	}
	isocam_return_buffers(dev, VB2_BUF_STATE_ERROR);
}
