// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: streaming, isochronous and what the bulk
 * personality (isocam-bulk.c) shares with it.
 *
 * Isochronous: stream start picks the smallest alt setting whose
 * bandwidth carries the current format at the current frame interval
 * (smaller alts at longer intervals when the host refuses bandwidth),
 * starts the sensor, then keeps num_urbs URBs of num_packets packets each
 * in flight. Every packet that passes the checks of core/iso_packet.h
 * goes to the core frame assembler, which lends itself vb2 buffers
 * through the ops below.
 *
 * Bulk: no alt to pick, no bandwidth to reserve; stream start sets up
 * and starts the sensor and keeps bulk_urbs bulk URBs in flight, each
 * completed one a whole payload transfer for the same assembler. The
 * anchor, the stop (stop resubmitting, a bounded drain, then kill), the
 * watchdog and the stream's end for the application are the same.
 *
 * A stream that cannot go on (no URB left in flight, or no frame for
 * stall_ms) is ended for the application: vb2_queue_error() makes DQBUF
 * fail with EIO and poll() report EPOLLERR until STREAMOFF, and one
 * dev_err says why. It never stalls silently.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/usb.h>
#include <media/v4l2-subdev.h>
#include <media/videobuf2-v4l2.h>

#include <isocam/usb.h>

#include "bulk_transfer.h"
#include "iso_packet.h"
#include "isocam.h"

/*
 * Isochronous: 8 URBs x 32 packets. Each URB spans 32 microframes (4 ms
 * of bus time), so completions run 250 times a second, not 8000, and one
 * URB buffer is at most 32 x 3072 bytes = 96 KiB (uvcvideo's size too).
 * 8 in flight keep 32 ms of bus time queued at the host controller
 * (uvcvideo keeps 5 x 32 packets): a completion may be that late before
 * the device has nowhere to put a packet. Over a network with 5 +- 2 ms
 * each way, 8 lost nothing and 4 made the host late (make bench, netem).
 * USB/IP in an emulated guest answers in bursts and needs more: the VM
 * suite loads the driver with 32 (128 ms). Read at each stream start.
 *
 * Bulk: bulk_urbs URBs of ISOCAM_USB_BULK_MAX_PAYLOAD (64 KiB), one
 * payload transfer each. The bridge buffers one frame and drops the next
 * frame captured while that one still drains, and it sends only into URBs
 * it holds; so what is queued at the device should take a whole frame at
 * once, whatever a resubmission waits for. 32 (2 MiB) hold a 640x480 YUYV
 * frame three times over and most of a 1280x960 one; 64 is also the most
 * isocam-emu queues. num_packets does not apply.
 */
/* Out-of-range values are refused (-EINVAL), at load and through sysfs. */
static int isocam_param_urbs(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 2, ISOCAM_MAX_URBS);
}

static int isocam_param_packets(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, ISOCAM_MAX_PACKETS);
}

static const struct kernel_param_ops isocam_urbs_ops = {
	.set = isocam_param_urbs,
	.get = param_get_uint,
};

static const struct kernel_param_ops isocam_packets_ops = {
	.set = isocam_param_packets,
	.get = param_get_uint,
};

static unsigned int num_urbs = 8;
module_param_cb(num_urbs, &isocam_urbs_ops, &num_urbs, 0644);
MODULE_PARM_DESC(num_urbs, "isochronous URBs in flight (2-64, default 8)");

static unsigned int bulk_urbs = 32;
module_param_cb(bulk_urbs, &isocam_urbs_ops, &bulk_urbs, 0644);
MODULE_PARM_DESC(bulk_urbs, "bulk URBs of 64 KiB in flight (2-64, default 32)");

static unsigned int num_packets = 32;
module_param_cb(num_packets, &isocam_packets_ops, &num_packets, 0644);
MODULE_PARM_DESC(num_packets,
		 "packets (microframes) per URB (1-128, default 32)");

static unsigned int stall_ms = 3000;
module_param(stall_ms, uint, 0644);
MODULE_PARM_DESC(stall_ms,
		 "end a stream that delivers no frame for this long (ms; at least 3 frame intervals; default 3000)");

static bool hwtimestamps = true;
module_param(hwtimestamps, bool, 0644);
MODULE_PARM_DESC(hwtimestamps,
		 "stamp buffers with the start of exposure from the camera's clock (default Y; N: the first packet's arrival), taken at stream start");

/*
 * The watchdog counts ticks, not elapsed time: a guest that was frozen
 * for seconds wakes with one late tick, not a stall.
 */
#define ISOCAM_WATCHDOG_MS	250

/*
 * The drain a bulk stop allows: see isocam_urbs_stop(). Bulk URBs
 * complete only with frame data, and the sensor is in standby by then.
 */
#define ISOCAM_BULK_DRAIN_MS	100

/* ---- frame assembler ops: called from URB completion ---- */

static bool isocam_get_buf(void *priv, struct isocam_asm_buf *ab)
{
	struct isocam_dev *dev = priv;
	struct isocam_buffer *buf;
	unsigned long flags;
	u32 seq = dev->sequence++;

	spin_lock_irqsave(&dev->slock, flags);
	buf = list_first_entry_or_null(&dev->queued, struct isocam_buffer,
				       list);
	if (buf)
		list_del(&buf->list);
	spin_unlock_irqrestore(&dev->slock, flags);
	if (!buf)
		return false;

	buf->vb.sequence = seq;
	/* Until the PTS says better: the first packet's arrival. */
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

/*
 * The frame's start of exposure on the host's clock when the camera's
 * clock is known (PTS through isocam_clock), else its first packet's
 * arrival; never before the previous frame's, to the microsecond that
 * userspace sees.
 */
static void isocam_stamp(struct isocam_dev *dev, struct isocam_buffer *buf,
			 bool pts_valid, u32 pts)
{
	u64 ts = buf->vb.vb2_buf.timestamp;

	if (dev->hw_ts && pts_valid)
		isocam_clock_to_host(&dev->clock, pts, &ts);
	if (dev->last_ts && ts < dev->last_ts + NSEC_PER_USEC) {
		ts = dev->last_ts + NSEC_PER_USEC;
		isocam_count(dev, &dev->stats.ts_clamped);
	}
	buf->vb.vb2_buf.timestamp = ts;
	dev->last_ts = ts;
}

static void isocam_buf_done(void *priv, struct isocam_asm_buf *ab,
			    u32 bytesused, bool error, bool pts_valid, u32 pts)
{
	struct isocam_dev *dev = priv;
	struct isocam_buffer *buf = ab->cookie;
	enum vb2_buffer_state state = error ? VB2_BUF_STATE_ERROR :
					      VB2_BUF_STATE_DONE;
	unsigned long flags;

	isocam_stamp(dev, buf, pts_valid, pts);
	buf->vb.field = V4L2_FIELD_NONE;
	vb2_set_plane_payload(&buf->vb.vb2_buf, 0, bytesused);
	spin_lock_irqsave(&dev->slock, flags);
	if (dev->starting) {
		buf->state = state;
		list_add_tail(&buf->list, &dev->held);
	} else {
		vb2_buffer_done(&buf->vb.vb2_buf, state);
	}
	spin_unlock_irqrestore(&dev->slock, flags);
}

/* A packet's SCR: the camera's clock when it left, with its arrival. */
static void isocam_scr(void *priv, u32 stc)
{
	struct isocam_dev *dev = priv;

	if (dev->hw_ts)
		isocam_clock_sample(&dev->clock, stc, dev->pkt_ts);
}

static const struct isocam_asm_ops isocam_asm_ops = {
	.get_buf = isocam_get_buf,
	.buf_done = isocam_buf_done,
	.scr = isocam_scr,
};

/* ---- the stream's end for the application ---- */

/* True for the first caller only, who says why with one dev_err. */
bool isocam_stream_fail(struct isocam_dev *dev)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&dev->slock, flags);
	first = !dev->stream_failed;
	dev->stream_failed = true;
	if (first)
		dev->stats.stream_failures++;
	spin_unlock_irqrestore(&dev->slock, flags);
	if (first) {
		WRITE_ONCE(dev->urbs_live, false);
		vb2_queue_error(&dev->queue);
	}
	return first;
}

static u32 isocam_frames_seen(const struct isocam_asm_stats *s)
{
	return s->frames + s->error_frames + s->dropped_frames;
}

static void isocam_watchdog(struct work_struct *work)
{
	struct isocam_dev *dev = container_of(to_delayed_work(work),
					      struct isocam_dev, watchdog);
	u32 tpf_ms = DIV_ROUND_UP_ULL((u64)dev->stream_tpf.numerator * 1000,
				      dev->stream_tpf.denominator);
	u32 limit_ms = max(READ_ONCE(stall_ms), 3 * tpf_ms);
	struct isocam_asm_stats as;
	unsigned long flags;
	u64 urbs;
	u32 seen;
	int status;

	status = READ_ONCE(dev->bulk_last_error);
	if (status) {
		/*
		 * Bulk URBs kept failing (isocam-bulk.c). An unplug starts
		 * like that: it gets one whole tick to reach disconnect,
		 * whose -ENODEV is the truth for the application.
		 */
		if (!dev->bulk_failed_ticks++)
			goto again;
		if (!READ_ONCE(dev->disconnected) && isocam_stream_fail(dev))
			dev_err(&dev->intf->dev, "stream stopped: %u bulk URBs in a row failed, the last with %d; STREAMOFF to recover\n",
				READ_ONCE(dev->bulk_errors), status);
		return;
	}

	spin_lock_irqsave(&dev->slock, flags);
	as = dev->asm_snap;
	urbs = dev->stats.urbs;
	spin_unlock_irqrestore(&dev->slock, flags);

	seen = isocam_frames_seen(&as);
	if (seen != dev->wd_progress) {
		dev->wd_progress = seen;
		dev->wd_idle = 0;
	} else if (++dev->wd_idle * ISOCAM_WATCHDOG_MS >= limit_ms) {
		if (isocam_stream_fail(dev))
			dev_err(&dev->intf->dev, "stream stopped: no frame for %u ms (URBs completed %llu, packets %llu, bad headers %llu, out of sync %u, bus errors %u); STREAMOFF to recover\n",
				limit_ms, urbs, as.packets, as.bad_packets,
				as.out_of_sync, as.bus_errors);
		return;
	}
again:
	schedule_delayed_work(&dev->watchdog,
			      msecs_to_jiffies(ISOCAM_WATCHDOG_MS));
}

/* ---- URBs ---- */

/*
 * A URB's buffer: its packets back to back, at the alt's packet size
 * (bulk: one "packet" of ISOCAM_USB_BULK_MAX_PAYLOAD).
 */
u32 isocam_urb_bytes(const struct isocam_dev *dev)
{
	return dev->num_packets * dev->packet_bytes;
}

/* Feed a completed URB's packets to the assembler, trusting no field. */
static void isocam_urb_packets(struct isocam_dev *dev, struct urb *urb)
{
	unsigned int np = dev->num_packets, i;
	int count = urb->number_of_packets;
	u32 bad = 0, errors = 0;
	bool irqs_off = irqs_disabled();
	u64 now;

	if (!isocam_iso_count_ok(count, np)) {
		isocam_asm_packet_error(&dev->assembler);
		isocam_count(dev, &dev->stats.bad_urbs);
		dev_warn_ratelimited(&dev->intf->dev, "URB completed with %d packets of %u submitted; dropped\n",
				     count, np);
		return;
	}

	now = ktime_get_ns();
	for (i = 0; i < count; i++) {
		const struct usb_iso_packet_descriptor *ud =
			&urb->iso_frame_desc[i];
		struct isocam_iso_desc d = {
			.offset = ud->offset,
			.length = ud->length,
			.actual_length = ud->actual_length,
			.status = ud->status,
		};
		u32 len;

		/* Packet i arrived (count - 1 - i) uframes ago. */
		dev->pkt_ts = now - (u64)(count - 1 - i) *
				    (NSEC_PER_SEC / ISOCAM_USB_MICROFRAMES_PER_SEC);
		switch (isocam_iso_check(&d, i, dev->packet_bytes,
					 isocam_urb_bytes(dev), &len)) {
		case ISOCAM_ISO_OK:
			isocam_asm_packet(&dev->assembler,
					  (const u8 *)urb->transfer_buffer +
					  d.offset, len);
			break;
		case ISOCAM_ISO_BAD:
			if (!bad++)
				dev_warn_ratelimited(&dev->intf->dev, "URB packet %u: offset %u length %u actual_length %u, submitted %u %u; dropped\n",
						     i, d.offset, d.length,
						     d.actual_length,
						     i * dev->packet_bytes,
						     dev->packet_bytes);
			isocam_asm_packet_error(&dev->assembler);
			break;
		case ISOCAM_ISO_BUS_ERROR:
			errors++;
			isocam_asm_packet_error(&dev->assembler);
			break;
		}
	}

	isocam_urb_account(dev, now, irqs_off, 0, bad, errors);
}

/*
 * A completed URB's data went to the assembler (from start_ns on): count
 * it and publish the assembler's and the clock's counters.
 */
void isocam_urb_account(struct isocam_dev *dev, u64 start_ns, bool irqs_off,
			u32 bad_urbs, u32 bad_descs, u32 packet_errors)
{
	/* The driver's own cost per URB, for make bench. */
	u32 cost = (u32)min_t(u64, ktime_get_ns() - start_ns, U32_MAX);
	unsigned long flags;

	spin_lock_irqsave(&dev->slock, flags);
	dev->stats.urbs++;
	dev->stats.urb_ns += cost;
	dev->stats.urb_ns_max = max(dev->stats.urb_ns_max, cost);
	dev->stats.urbs_irqs_off += irqs_off;
	dev->stats.bad_urbs += bad_urbs;
	dev->stats.bad_descs += bad_descs;
	dev->stats.packet_errors += packet_errors;
	dev->asm_snap = dev->assembler.stats;
	dev->clock_snap = dev->clock.stats;
	spin_unlock_irqrestore(&dev->slock, flags);
}

/* A whole URB is lost to an error status: so is the frame in progress. */
void isocam_urb_error(struct isocam_dev *dev, int status)
{
	isocam_asm_packet_error(&dev->assembler);
	isocam_count(dev, &dev->stats.urb_errors);
	dev_warn_ratelimited(&dev->intf->dev, "URB error %d\n", status);
}

/* Undo whatever the host controller (or the remote, over USB/IP) wrote. */
static void isocam_urb_reset(struct isocam_dev *dev, struct urb *urb)
{
	unsigned int j;

	urb->number_of_packets = dev->num_packets;
	urb->transfer_buffer_length = isocam_urb_bytes(dev);
	urb->interval = 1;	/* microframes, checked at probe */
	urb->actual_length = 0;
	for (j = 0; j < dev->num_packets; j++) {
		urb->iso_frame_desc[j].offset = j * dev->packet_bytes;
		urb->iso_frame_desc[j].length = dev->packet_bytes;
		urb->iso_frame_desc[j].actual_length = 0;
		urb->iso_frame_desc[j].status = 0;
	}
}

static void isocam_urb_complete(struct urb *urb)
{
	struct isocam_dev *dev = urb->context;

	if (isocam_urb_gone(urb->status))
		return;
	switch (urb->status) {
	case 0:
	case -EXDEV:		/* some packets failed: their status tells */
		isocam_urb_packets(dev, urb);
		break;
	default:
		isocam_urb_error(dev, urb->status);
		break;
	}
	isocam_urb_resubmit(dev, urb);
}

/*
 * Put a completed URB of either transport back in flight while the stream
 * is live, reset to what was submitted; when that fails and none is left,
 * end the stream for the application.
 */
void isocam_urb_resubmit(struct isocam_dev *dev, struct urb *urb)
{
	int ret;

	if (!READ_ONCE(dev->urbs_live))
		return;
	if (isocam_is_bulk(dev))
		isocam_bulk_urb_reset(dev, urb);
	else
		isocam_urb_reset(dev, urb);
	usb_anchor_urb(urb, &dev->anchor);
	ret = usb_submit_urb(urb, GFP_ATOMIC);
	if (!ret)
		return;
	usb_unanchor_urb(urb);
	/* Killed, or the device is going: stop and disconnect handle it. */
	if (ret == -EPERM || ret == -ENODEV || ret == -ESHUTDOWN)
		return;

	isocam_count(dev, &dev->stats.resubmit_errors);
	dev_err_ratelimited(&dev->intf->dev, "URB resubmit failed: %d\n", ret);
	if (usb_anchor_empty(&dev->anchor) && isocam_stream_fail(dev))
		dev_err(&dev->intf->dev, "stream stopped: no URB left in flight (the last resubmit failed with %d); STREAMOFF to recover\n",
			ret);
}

static void isocam_free_urbs(struct isocam_dev *dev)
{
	unsigned int size = isocam_urb_bytes(dev);
	unsigned int i;

	for (i = 0; i < dev->num_urbs; i++) {
		struct urb *urb = dev->urbs[i];

		if (!urb)
			continue;
		usb_free_coherent(dev->udev, size, urb->transfer_buffer,
				  urb->transfer_dma);
		usb_free_urb(urb);
		dev->urbs[i] = NULL;
	}
	dev->num_urbs = 0;
}

/* num_urbs URBs of isocam_urb_bytes(); dev->packet_bytes is set. */
static int isocam_alloc_urbs(struct isocam_dev *dev)
{
	bool bulk = isocam_is_bulk(dev);
	unsigned int n = clamp(bulk ? bulk_urbs : num_urbs, 2U,
			       (unsigned int)ISOCAM_MAX_URBS);
	unsigned int np = bulk ? 1 : clamp(num_packets, 1U,
					   (unsigned int)ISOCAM_MAX_PACKETS);
	unsigned int size;
	unsigned int i;

	dev->num_packets = np;
	size = isocam_urb_bytes(dev);
	for (i = 0; i < n; i++) {
		struct urb *urb = usb_alloc_urb(bulk ? 0 : np, GFP_KERNEL);

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
		if (bulk) {
			isocam_bulk_init_urb(dev, urb);
			continue;
		}
		urb->pipe = usb_rcvisocpipe(dev->udev, dev->ep_num);
		urb->transfer_flags = URB_ISO_ASAP | URB_NO_TRANSFER_DMA_MAP;
		urb->complete = isocam_urb_complete;
		isocam_urb_reset(dev, urb);
	}
	return 0;

nomem:
	dev_err(&dev->intf->dev, "cannot allocate %u %s URBs of %u bytes\n", n,
		bulk ? "bulk" : "isochronous", size);
	isocam_free_urbs(dev);
	return -ENOMEM;
}

/* Submit every URB; the first that fails ends it (-ENOSPC: no bandwidth). */
static int isocam_submit_urbs(struct isocam_dev *dev, int alt)
{
	unsigned int i;
	int ret;

	WRITE_ONCE(dev->urbs_live, true);
	for (i = 0; i < dev->num_urbs; i++) {
		/* debugfs: behave as EHCI short of periodic bandwidth does */
		if (dev->sim_enospc_submit && dev->sim_max_alt &&
		    alt > dev->sim_max_alt)
			return -ENOSPC;
		usb_anchor_urb(dev->urbs[i], &dev->anchor);
		/* debugfs: a start that fails with URBs already in flight */
		if (dev->sim_submit_fail_at == i + 1)
			ret = -ENOMEM;
		else
			ret = usb_submit_urb(dev->urbs[i], GFP_KERNEL);
		if (ret) {
			usb_unanchor_urb(dev->urbs[i]);
			if (ret != -ENOSPC)
				dev_err(&dev->intf->dev, "cannot submit URB %u of %u: %d\n",
					i, dev->num_urbs, ret);
			return ret;
		}
	}
	return 0;
}

/*
 * Stop resubmitting and let the URBs in flight come back by themselves,
 * then kill what is left. The URBs cover bus_ms of bus time; twice that
 * and a margin lets a late host (USB/IP in a slow VM) finish too. Killing
 * is the exception then, and it is what hurts: over USB/IP it waits for
 * the device to acknowledge the unlink (forever, if it never does), and
 * killing a URB that is completing at that moment races inside vhci_hcd
 * (a use-after-free in vhci_urb_dequeue).
 *
 * Bulk URBs come back only with frame data, and every caller has put the
 * sensor in standby first: what the device still holds stays queued, so
 * killing is the rule there, as in uvcvideo. The drain is short: it lets
 * completions already on their way arrive (over USB/IP they precede the
 * reply to the sensor's MODE_SELECT write on the same connection), and
 * the kill then finds the URBs idle at the device, not completing.
 */
static void isocam_urbs_stop(struct isocam_dev *dev, bool drain)
{
	unsigned int bus_ms = DIV_ROUND_UP(dev->num_urbs * dev->num_packets,
					   ISOCAM_USB_MICROFRAMES_PER_SEC / 1000);
	unsigned int drain_ms = isocam_is_bulk(dev) ? ISOCAM_BULK_DRAIN_MS :
						      2 * bus_ms + 250;

	WRITE_ONCE(dev->urbs_live, false);
	if (drain && !usb_wait_anchor_empty_timeout(&dev->anchor, drain_ms))
		dev_dbg(&dev->intf->dev, "URBs still in flight %u ms after the stop; killing them\n",
			drain_ms);
	usb_kill_anchored_urbs(&dev->anchor);
}

/* ---- bandwidth ---- */

bool isocam_interval_fits(struct isocam_dev *dev, u32 sizeimage,
			  const struct v4l2_fract *tpf)
{
	/* Bulk reserves nothing; the link's raw speed is the limit. */
	if (isocam_is_bulk(dev))
		return isocam_bulk_fits(sizeimage, tpf->numerator,
					tpf->denominator);
	return isocam_fits_bandwidth(dev->alt_bytes, dev->num_alts, sizeimage,
				     tpf->numerator, tpf->denominator);
}

static int isocam_set_alt(struct isocam_dev *dev, int alt)
{
	int ret;

	/* debugfs sim_max_alt: behave as a host short of bandwidth would. */
	if (alt && dev->sim_max_alt && alt > dev->sim_max_alt)
		return -ENOSPC;
	ret = isocam_std_msg_allowed(dev);
	if (ret)
		return ret;
	ret = usb_set_interface(dev->udev, dev->ifnum, alt);
	return isocam_std_msg_done(dev, "SET_INTERFACE", ret);
}

/*
 * Tell the device the stream is off: alt 0 for isochronous; for bulk, as
 * UVC hosts do, CLEAR_FEATURE(ENDPOINT_HALT) on the endpoint (which also
 * resets the host's data toggle after the kill). Nothing when unplugged.
 */
static void isocam_stream_idle(struct isocam_dev *dev)
{
	if (dev->disconnected)
		return;
	if (isocam_is_bulk(dev))
		isocam_bulk_clear_halt(dev);
	else
		isocam_set_alt(dev, 0);
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
 * After the host refused the alt with *limit bytes per microframe: the
 * largest smaller alt that carries the current format at some sensor
 * interval of at least the user's, and that interval. -1 when none is left.
 */
static int isocam_next_alt(struct isocam_dev *dev, u32 *limit,
			   struct v4l2_fract *tpf)
{
	for (;;) {
		u32 best_bytes = 0;
		int best = -1, i;

		for (i = 1; i < dev->num_alts; i++) {
			if (dev->alt_bytes[i] < *limit &&
			    dev->alt_bytes[i] > best_bytes) {
				best = i;
				best_bytes = dev->alt_bytes[i];
			}
		}
		if (best < 0)
			return -1;
		*limit = best_bytes;
		*tpf = dev->timeperframe;
		if (isocam_interval_for_alt(dev, best_bytes, tpf))
			return best;
	}
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
	t->stopped_frames += s->stopped_frames;
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
	isocam_asm_stats_add(t, &dev->asm_snap);
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
static int isocam_sensor_setup_tpf(struct isocam_dev *dev,
				   const struct v4l2_fract *tpf)
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
		.interval = *tpf,
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
	ret = isocam_subdev_s_frame_interval(dev->sd, &fi);
	if (ret && ret != -ENOIOCTLCMD)
		return ret;
	return 0;
}

int isocam_sensor_setup(struct isocam_dev *dev)
{
	return isocam_sensor_setup_tpf(dev, &dev->timeperframe);
}

void isocam_stream_init(struct isocam_dev *dev)
{
	spin_lock_init(&dev->slock);
	INIT_LIST_HEAD(&dev->queued);
	INIT_LIST_HEAD(&dev->held);
	init_usb_anchor(&dev->anchor);
	INIT_DELAYED_WORK(&dev->watchdog, isocam_watchdog);
	isocam_clock_init(&dev->clock);
}

/* Hand the buffers held during a start to vb2 as state (or their own). */
static void isocam_release_held(struct isocam_dev *dev, bool failed)
{
	struct isocam_buffer *buf, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&dev->slock, flags);
	dev->starting = false;
	list_for_each_entry_safe(buf, tmp, &dev->held, list) {
		list_del(&buf->list);
		vb2_buffer_done(&buf->vb.vb2_buf,
				failed ? VB2_BUF_STATE_QUEUED : buf->state);
	}
	spin_unlock_irqrestore(&dev->slock, flags);
}

/*
 * Stream on one alt at interval tpf: select it, set up and start the
 * sensor, then submit the URBs (gspca's order: nothing arrives before the
 * sensor runs). -ENOSPC, quietly, when the host refuses the bandwidth.
 * Bulk has alt 0 only and nothing to select: alt is 0.
 */
static int isocam_stream_try(struct isocam_dev *dev, int alt,
			     const struct v4l2_fract *tpf)
{
	struct device *d = &dev->intf->dev;
	unsigned long flags;
	int ret;

	if (!isocam_is_bulk(dev)) {
		ret = isocam_set_alt(dev, alt);
		if (ret) {
			/* The interface stays where it was, alt 0. */
			if (ret != -ENOSPC)
				dev_err(d, "cannot select alt %d: %d\n", alt,
					ret);
			return ret;
		}
	}
	ret = isocam_sensor_setup_tpf(dev, tpf);
	if (ret) {
		dev_err(d, "cannot configure the sensor: %d\n", ret);
		goto err_alt;
	}
	ret = isocam_codec_setup(dev);
	if (ret)
		goto err_alt;

	dev->alt = alt;
	dev->packet_bytes = isocam_is_bulk(dev) ? ISOCAM_USB_BULK_MAX_PAYLOAD :
						  dev->alt_bytes[alt];
	ret = isocam_alloc_urbs(dev);
	if (ret)
		goto err_alt;

	dev->sequence = 0;
	dev->stream_tpf = *tpf;
	isocam_clock_reset(&dev->clock);
	dev->last_ts = 0;
	spin_lock_irqsave(&dev->slock, flags);
	dev->hw_ts = READ_ONCE(hwtimestamps);
	/* isocam_asm_init() zeroes the counters: keep them. */
	isocam_asm_stats_add(&dev->asm_past, &dev->assembler.stats);
	isocam_asm_init(&dev->assembler, &isocam_asm_ops, dev,
			dev->pix.sizeimage);
	isocam_asm_set_compressed(&dev->assembler, dev->fi->compressed);
	dev->asm_snap = dev->assembler.stats;
	dev->starting = true;
	dev->stream_failed = false;
	spin_unlock_irqrestore(&dev->slock, flags);
	dev->bulk_errors = 0;
	dev->bulk_last_error = 0;
	dev->bulk_failed_ticks = 0;

	ret = v4l2_subdev_call(dev->sd, video, s_stream, 1);
	if (ret) {
		dev_err(d, "sensor did not start streaming: %d\n", ret);
		goto err_urbs;
	}
	dev->streaming = true;
	ret = isocam_submit_urbs(dev, alt);
	if (ret)
		goto err_sensor;

	isocam_release_held(dev, false);
	dev->wd_progress = 0;
	dev->wd_idle = 0;
	schedule_delayed_work(&dev->watchdog,
			      msecs_to_jiffies(ISOCAM_WATCHDOG_MS));
	return 0;

err_sensor:
	/* Those already in flight come back by themselves: see urbs_stop. */
	v4l2_subdev_call(dev->sd, video, s_stream, 0);
	isocam_urbs_stop(dev, !dev->disconnected);
	dev->streaming = false;
err_urbs:
	isocam_asm_flush(&dev->assembler);
	isocam_release_held(dev, true);
	isocam_free_urbs(dev);
err_alt:
	dev->alt = 0;
	dev->packet_bytes = 0;
	isocam_stream_idle(dev);
	return ret;
}

/* Bulk: no alt to choose, so no bandwidth to fall back from. */
static int isocam_stream_start_bulk(struct isocam_dev *dev)
{
	struct device *d = &dev->intf->dev;
	struct v4l2_fract tpf = dev->timeperframe;
	int ret;

	if (!isocam_bulk_fits(dev->pix.sizeimage, tpf.numerator,
			      tpf.denominator)) {
		dev_err(d, "%ux%u at %u/%u s per frame needs more than high-speed bulk carries\n",
			dev->pix.width, dev->pix.height, tpf.numerator,
			tpf.denominator);
		return -ENOSPC;
	}
	ret = isocam_stream_try(dev, 0, &tpf);
	if (ret)
		return ret;
	isocam_count(dev, &dev->stats.streams);
	dev_dbg(d, "streaming %ux%u %p4cc at %u/%u s, bulk endpoint %u, %u URBs of %u bytes\n",
		dev->pix.width, dev->pix.height, &dev->pix.pixelformat,
		tpf.numerator, tpf.denominator, dev->ep_num, dev->num_urbs,
		dev->packet_bytes);
	return 0;
}

int isocam_stream_start(struct isocam_dev *dev)
{
	struct device *d = &dev->intf->dev;
	struct v4l2_fract tpf = dev->timeperframe;
	int alt, first, ret;
	u32 limit;

	if (dev->disconnected)
		return -ENODEV;
	if (isocam_is_bulk(dev))
		return isocam_stream_start_bulk(dev);

	first = isocam_pick_alt(dev->alt_bytes, dev->num_alts,
				dev->pix.sizeimage, tpf.numerator,
				tpf.denominator);
	if (first <= 0) {
		dev_err(d, "%ux%u at %u/%u s per frame needs more than the largest alt carries\n",
			dev->pix.width, dev->pix.height, tpf.numerator,
			tpf.denominator);
		return -ENOSPC;
	}

	/*
	 * The host may refuse the bandwidth when the alt is selected or, as
	 * EHCI does, when the URBs are submitted: either way try the smaller
	 * alts at the longer intervals that fit them, largest first. The
	 * user's interval stays as set; only this stream runs slower.
	 */
	alt = first;
	limit = dev->alt_bytes[first];
	for (;;) {
		ret = isocam_stream_try(dev, alt, &tpf);
		if (ret != -ENOSPC)
			break;
		isocam_count(dev, &dev->stats.enospc_fallbacks);
		alt = isocam_next_alt(dev, &limit, &tpf);
		if (alt < 0) {
			dev_err(d, "host refused bandwidth for alt %d and every smaller alt that could carry %ux%u\n",
				first, dev->pix.width, dev->pix.height);
			return -ENOSPC;
		}
	}
	if (ret)
		return ret;

	if (alt != first)
		dev_warn(d, "host refused bandwidth for alt %d (%u bytes/uframe); streaming on alt %d (%u bytes/uframe) at %u/%u s per frame instead of %u/%u\n",
			 first, dev->alt_bytes[first], alt, dev->alt_bytes[alt],
			 tpf.numerator, tpf.denominator,
			 dev->timeperframe.numerator,
			 dev->timeperframe.denominator);
	isocam_count(dev, &dev->stats.streams);
	dev_dbg(d, "streaming %ux%u %p4cc at %u/%u s, alt %d (%u bytes), %u URBs x %u packets\n",
		dev->pix.width, dev->pix.height, &dev->pix.pixelformat,
		tpf.numerator, tpf.denominator, alt, dev->packet_bytes,
		dev->num_urbs, dev->num_packets);
	return 0;
}

/* Idempotent: stop_streaming after disconnect finds nothing to do. */
void isocam_stream_stop(struct isocam_dev *dev)
{
	unsigned long flags;

	if (dev->streaming) {
		cancel_delayed_work_sync(&dev->watchdog);
		if (dev->sd)
			v4l2_subdev_call(dev->sd, video, s_stream, 0);
		isocam_urbs_stop(dev, !dev->disconnected);
		dev->streaming = false;

		/* No URB in flight: the assembler is ours alone. */
		isocam_asm_flush(&dev->assembler);
		spin_lock_irqsave(&dev->slock, flags);
		dev->asm_snap = dev->assembler.stats;
		spin_unlock_irqrestore(&dev->slock, flags);

		isocam_free_urbs(dev);
		dev->alt = 0;
		dev->packet_bytes = 0;
		isocam_stream_idle(dev);
	}
	isocam_return_buffers(dev, VB2_BUF_STATE_ERROR);
}
