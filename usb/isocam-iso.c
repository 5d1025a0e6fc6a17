// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: the isochronous transport, the camera's own
 * (include/isocam/usb.h): alt 0 idles, alts 1..N each have one
 * isochronous IN endpoint polled every microframe, of growing bandwidth.
 *
 * A stream starts on the smallest alt whose bandwidth carries the current
 * format at the current frame interval, and on smaller alts at longer
 * intervals when the host refuses the bandwidth; num_urbs URBs of
 * num_packets packets each stay in flight, and every packet that passes
 * the checks of core/isocam_iso_packet.h goes to the stream engine's frame
 * assembler (isocam-video.c), which also owns the start and stop order,
 * the anchor and the watchdog.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/usb.h>
#include <media/v4l2-subdev.h>

#include <isocam/usb.h>

#include "isocam_iso_packet.h"
#include "isocam.h"

/*
 * 8 URBs x 32 packets. Each URB spans 32 microframes (4 ms of bus time),
 * so completions run 250 times a second, not 8000, and one URB buffer is
 * at most 32 x 3072 bytes = 96 KiB (uvcvideo's size too). 8 in flight
 * keep 32 ms of bus time queued at the host controller (uvcvideo keeps
 * 5 x 32 packets): a completion may be that late before the device has
 * nowhere to put a packet. Over a network with 5 +- 2 ms each way, 8 lost
 * nothing and 4 made the host late (make bench, netem). USB/IP in an
 * emulated guest answers in bursts and needs more: the VM suite loads the
 * driver with 32 (128 ms). Read at each stream start.
 */
static int isocam_param_packets(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, ISOCAM_MAX_PACKETS);
}

static const struct kernel_param_ops isocam_packets_ops = {
	.set = isocam_param_packets,
	.get = param_get_uint,
};

static unsigned int num_urbs = 8;
module_param_cb(num_urbs, &isocam_urbs_param_ops, &num_urbs, 0644);
MODULE_PARM_DESC(num_urbs, "isochronous URBs in flight (2-64, default 8)");

static unsigned int num_packets = 32;
module_param_cb(num_packets, &isocam_packets_ops, &num_packets, 0644);
MODULE_PARM_DESC(num_packets,
		 "packets (microframes) per URB (1-128, default 32)");

/* ---- descriptors ---- */

/*
 * Read the payload capacity of each alt setting from the descriptors the
 * device really sent. Alts without a usable isochronous IN endpoint carry
 * nothing (0 bytes); the interface is refused when no alt can stream.
 */
int isocam_iso_parse(struct isocam_dev *dev)
{
	struct usb_interface *intf = dev->intf;
	struct device *d = &intf->dev;
	unsigned int num, j, usable = 0;

	dev->tp = &isocam_iso_transport;
	if (dev->udev->speed != USB_SPEED_HIGH) {
		dev_err(d, "needs a high-speed link (isochronous timing is per microframe), got %s\n",
			usb_speed_string(dev->udev->speed));
		return -ENODEV;
	}
	if (intf->num_altsetting > ISOCAM_MAX_ALTS)
		dev_warn(d, "%u alt settings; only alts 0-%u are used\n",
			 intf->num_altsetting, ISOCAM_MAX_ALTS - 1);

	for (num = 0; num < ISOCAM_MAX_ALTS; num++) {
		struct usb_host_interface *alt;

		alt = usb_altnum_to_altsetting(intf, num);
		if (!alt)
			continue;
		dev->num_alts = num + 1;
		/* Alt 0 must carry nothing: it is where the device idles. */
		if (num == 0)
			continue;

		for (j = 0; j < alt->desc.bNumEndpoints; j++) {
			const struct usb_endpoint_descriptor *ep =
				&alt->endpoint[j].desc;
			unsigned int period;
			u32 bytes;

			if (!usb_endpoint_is_isoc_in(ep))
				continue;
			bytes = usb_endpoint_maxp(ep) *
				usb_endpoint_maxp_mult(ep);
			if (!bytes)
				continue;
			/* USB 2.0 5.6.4: 3 transactions of 1024 at most. */
			if (bytes > 3 * 1024) {
				dev_warn(d, "alt %u: iso endpoint %u claims %u bytes per microframe, more than high speed carries; ignored\n",
					 num, usb_endpoint_num(ep), bytes);
				continue;
			}
			/* One packet per microframe: the core's bandwidth math. */
			period = usb_decode_interval(ep, USB_SPEED_HIGH);
			if (period != USEC_PER_SEC / ISOCAM_USB_MICROFRAMES_PER_SEC) {
				dev_warn(d, "alt %u: iso endpoint %u polls every %u us, not every microframe; ignored\n",
					 num, usb_endpoint_num(ep), period);
				continue;
			}
			if (usable && usb_endpoint_num(ep) != dev->ep_num) {
				dev_warn(d, "alt %u: iso endpoint %u differs from %u; ignored\n",
					 num, usb_endpoint_num(ep), dev->ep_num);
				continue;
			}
			dev->ep_num = usb_endpoint_num(ep);
			dev->alt_bytes[num] = bytes;
			usable++;
			break;
		}
	}

	if (!usable) {
		dev_err(d, "interface %u has no alt setting with a usable isochronous IN endpoint; refusing it\n",
			dev->ifnum);
		return -ENODEV;
	}
	/* Without a zero-bandwidth alt the device could never be idle. */
	if (!usb_altnum_to_altsetting(intf, 0)) {
		dev_err(d, "interface %u has no alt setting 0 to idle in; refusing it\n",
			dev->ifnum);
		return -ENODEV;
	}
	for (num = 1; num < dev->num_alts; num++)
		dev_dbg(d, "alt %u: %u bytes per microframe\n", num,
			dev->alt_bytes[num]);
	return 0;
}

/* ---- URBs ---- */

/* Feed a completed URB's packets to the assembler, trusting no field. */
static void isocam_urb_packets(struct isocam_dev *dev, struct urb *urb)
{
	unsigned int np = dev->num_packets, i;
	int count = urb->number_of_packets;
	u32 bad = 0, errors = 0;
	bool irqs_off = irqs_disabled();
	u64 now;

	if (!isocam_iso_packet_count_ok(count, np)) {
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
		struct isocam_iso_packet_desc d = {
			.offset = ud->offset,
			.length = ud->length,
			.actual_length = ud->actual_length,
			.status = ud->status,
		};
		u32 len;

		/* Packet i arrived (count - 1 - i) uframes ago. */
		dev->pkt_ts = now - (u64)(count - 1 - i) *
				    (NSEC_PER_SEC / ISOCAM_USB_MICROFRAMES_PER_SEC);
		switch (isocam_iso_packet_check(&d, i, dev->packet_bytes,
						isocam_urb_bytes(dev), &len)) {
		case ISOCAM_ISO_PACKET_OK:
			isocam_asm_packet(&dev->assembler,
					  (const u8 *)urb->transfer_buffer +
					  d.offset, len);
			break;
		case ISOCAM_ISO_PACKET_BAD:
			if (!bad++)
				dev_warn_ratelimited(&dev->intf->dev, "URB packet %u: offset %u length %u actual_length %u, submitted %u %u; dropped\n",
						     i, d.offset, d.length,
						     d.actual_length,
						     i * dev->packet_bytes,
						     dev->packet_bytes);
			isocam_asm_packet_error(&dev->assembler);
			break;
		case ISOCAM_ISO_PACKET_BUS_ERROR:
			errors++;
			isocam_asm_packet_error(&dev->assembler);
			break;
		}
	}

	isocam_urb_account(dev, now, irqs_off, 0, bad, errors);
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

static unsigned int isocam_iso_urb_count(void)
{
	return num_urbs;
}

static unsigned int isocam_iso_urb_packets(void)
{
	return num_packets;
}

static void isocam_iso_init_urb(struct isocam_dev *dev, struct urb *urb)
{
	urb->pipe = usb_rcvisocpipe(dev->udev, dev->ep_num);
	urb->transfer_flags = URB_ISO_ASAP | URB_NO_TRANSFER_DMA_MAP;
	urb->complete = isocam_urb_complete;
	isocam_urb_reset(dev, urb);
}

/*
 * The URBs cover bus_ms of bus time; twice that and a margin lets a late
 * host (USB/IP in a slow VM) finish them too.
 */
static unsigned int isocam_iso_drain_ms(const struct isocam_dev *dev)
{
	unsigned int bus_ms = DIV_ROUND_UP(dev->num_urbs * dev->num_packets,
					   ISOCAM_USB_MICROFRAMES_PER_SEC / 1000);

	return 2 * bus_ms + 250;
}

/* ---- bandwidth and alt settings ---- */

static bool isocam_iso_fits(struct isocam_dev *dev, u32 sizeimage,
			    const struct v4l2_fract *tpf)
{
	return isocam_fits_bandwidth(dev->alt_bytes, dev->num_alts, sizeimage,
				     tpf->numerator, tpf->denominator);
}

/* SET_INTERFACE alt; the engine's select, and our own way to alt 0. */
static int isocam_iso_select(struct isocam_dev *dev, int alt)
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

static u32 isocam_iso_packet_bytes(const struct isocam_dev *dev, int alt)
{
	return dev->alt_bytes[alt];
}

/* Stream off: back to alt 0, which reserves no bandwidth. */
static void isocam_iso_idle(struct isocam_dev *dev)
{
	isocam_iso_select(dev, 0);
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

/* ---- start ---- */

static int isocam_iso_start(struct isocam_dev *dev)
{
	struct device *d = &dev->intf->dev;
	struct v4l2_fract tpf = dev->timeperframe;
	int alt, first, ret;
	u32 limit;

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

static void isocam_iso_describe(struct isocam_dev *dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u alt settings", dev->num_alts);
}

static void isocam_iso_log_status(struct isocam_dev *dev)
{
	v4l2_info(&dev->v4l2_dev, "streaming: %s, alt %d (%u bytes/uframe), %u URBs x %u packets\n",
		  dev->streaming ? "yes" : "no", dev->alt,
		  dev->packet_bytes, dev->num_urbs, dev->num_packets);
}

const struct isocam_transport isocam_iso_transport = {
	.name = "iso",
	.urb_count = isocam_iso_urb_count,
	.urb_packets = isocam_iso_urb_packets,
	.init_urb = isocam_iso_init_urb,
	.reset_urb = isocam_urb_reset,
	.drain_ms = isocam_iso_drain_ms,
	.fits = isocam_iso_fits,
	.select = isocam_iso_select,
	.packet_bytes = isocam_iso_packet_bytes,
	.start = isocam_iso_start,
	.idle = isocam_iso_idle,
	.describe = isocam_iso_describe,
	.log_status = isocam_iso_log_status,
};
