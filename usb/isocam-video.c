// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: the stream engine, the same for every
 * transport. A transport (isocam-iso.c, isocam-bulk.c; struct
 * isocam_transport), chosen at probe from the descriptors, says how many
 * URBs of what size stay in flight, how a completed one is fed to the
 * core frame assembler and reset, how a stream picks its bandwidth and
 * how the device is told the stream is off. The engine owns the rest: the
 * order of a start (select, sensor, URBs, as gspca does: nothing arrives
 * before the sensor runs), the anchor, the stop (stop resubmitting, a
 * bounded drain, then kill), the watchdog, and the vb2 buffers the
 * assembler borrows through the ops below.
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

#include "isocam_bulk_xfer.h"
#include "isocam_iso_packet.h"
#include "isocam.h"

/* Out-of-range values are refused (-EINVAL), at load and through sysfs. */
static int isocam_param_urbs(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 2, ISOCAM_MAX_URBS);
}

/* For each transport's count of URBs in flight. */
const struct kernel_param_ops isocam_urbs_param_ops = {
	.set = isocam_param_urbs,
	.get = param_get_uint,
};

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
	dev->tp->reset_urb(dev, urb);
	usb_anchor_urb(urb, &dev->anchor);
	ret = usb_submit_urb(urb, GFP_ATOMIC);
	if (!ret)
		return;
	usb_unanchor_urb(urb);
	/*
	 * Killed, the device going, its endpoints disabled by the USB core
	 * (an unbind or a reset: -ENOENT) or the device suspended: stop and
	 * disconnect handle it.
	 */
	if (ret == -EPERM || ret == -ENODEV || ret == -ESHUTDOWN ||
	    ret == -ENOENT || ret == -EHOSTUNREACH)
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
	const struct isocam_transport *tp = dev->tp;
	unsigned int n = clamp(tp->urb_count(), 2U,
			       (unsigned int)ISOCAM_MAX_URBS);
	/* Isochronous packets an URB; 0 for bulk, whose URB is one. */
	unsigned int np = min_t(unsigned int, tp->urb_packets(),
				ISOCAM_MAX_PACKETS);
	unsigned int size;
	unsigned int i;

	dev->num_packets = max(np, 1U);
	size = isocam_urb_bytes(dev);
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
		tp->init_urb(dev, urb);
	}
	return 0;

nomem:
	dev_err(&dev->intf->dev, "cannot allocate %u %s URBs of %u bytes\n", n,
		tp->name, size);
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
 * Stop resubmitting and let the URBs in flight come back by themselves
 * for the transport's drain time, then kill what is left. Killing is what
 * hurts: over USB/IP it waits for the device to acknowledge the unlink,
 * and killing a URB that is completing at that moment races inside
 * vhci_hcd (a use-after-free in vhci_urb_dequeue).
 */
static void isocam_urbs_stop(struct isocam_dev *dev, bool drain)
{
	unsigned int drain_ms = dev->tp->drain_ms(dev);

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
	return dev->tp->fits(dev, sizeimage, tpf);
}

/* Tell the device the stream is off (the transport's way); not unplugged. */
static void isocam_stream_idle(struct isocam_dev *dev)
{
	if (dev->disconnected)
		return;
	dev->tp->idle(dev);
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
 * Stream on one alt at interval tpf: select it (if the transport has
 * alts), set up and start the sensor, then submit the URBs (gspca's
 * order: nothing arrives before the sensor runs). -ENOSPC, quietly, when
 * the host refuses the bandwidth. Bulk has alt 0 only: alt is 0.
 */
int isocam_stream_try(struct isocam_dev *dev, int alt,
		      const struct v4l2_fract *tpf)
{
	struct device *d = &dev->intf->dev;
	unsigned long flags;
	int ret;

	if (dev->tp->select) {
		ret = dev->tp->select(dev, alt);
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
	dev->packet_bytes = dev->tp->packet_bytes(dev, alt);
	ret = isocam_alloc_urbs(dev);
	if (ret)
		goto err_alt;

	if (!dev->resuming)
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

int isocam_stream_start(struct isocam_dev *dev)
{
	if (dev->disconnected)
		return -ENODEV;
	return dev->tp->start(dev);
}

/* The stream's URBs and sensor stopped; its queued buffers kept. */
static void isocam_stream_halt(struct isocam_dev *dev)
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
}

/* Idempotent: stop_streaming after disconnect finds nothing to do. */
void isocam_stream_stop(struct isocam_dev *dev)
{
	/* A stream paused for a sleep and stopped meanwhile stays stopped. */
	dev->resume_stream = false;
	isocam_stream_halt(dev);
	isocam_return_buffers(dev, VB2_BUF_STATE_ERROR);
}

/*
 * A pause for a USB reset (or a sleep): the stream stops as for
 * STREAMOFF, but the application's buffers stay queued. True if a stream
 * was running.
 */
bool isocam_stream_pause(struct isocam_dev *dev)
{
	if (!dev->streaming)
		return false;
	isocam_stream_halt(dev);
	dev->paused_ns = ktime_get_ns();
	return true;
}

/*
 * The paused stream goes on, its sequence numbers skipping the frames the
 * pause cost (the sensor would have captured them), so an application
 * sees the gap. One that cannot start again ends for the application.
 */
int isocam_stream_resume(struct isocam_dev *dev, const char *after)
{
	struct v4l2_fract tpf = dev->stream_tpf;
	u64 gap_ns = ktime_get_ns() - dev->paused_ns;
	int ret;

	if (tpf.numerator && tpf.denominator)
		dev->sequence += div64_u64(gap_ns * tpf.denominator,
					   (u64)NSEC_PER_SEC * tpf.numerator);
	dev->resuming = true;
	ret = isocam_stream_start(dev);
	dev->resuming = false;
	if (ret) {
		if (isocam_stream_fail(dev))
			dev_err(&dev->intf->dev, "stream stopped: it did not start again after %s: %d; STREAMOFF to recover\n",
				after, ret);
		isocam_return_buffers(dev, VB2_BUF_STATE_ERROR);
		return ret;
	}
	dev_dbg(&dev->intf->dev, "stream resumed after %s, %llu ms later\n",
		after, div_u64(gap_ns, NSEC_PER_MSEC));
	return 0;
}
