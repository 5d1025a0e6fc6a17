// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: the bulk personality (include/isocam/usb.h,
 * "Bulk transport personality"), as isocam-emu --transport=bulk sends it.
 *
 * The interface has alt 0 alone, with one bulk IN endpoint. Each bulk URB
 * that completes carries one payload transfer: a payload header, then
 * frame data; its actual_length is the transfer's end (no ZLP is waited
 * for). So a completed URB is one "packet" for the core frame assembler,
 * fed exactly as an isochronous packet is. The order of a start and a
 * stop, the anchor and the watchdog are the stream engine's
 * (isocam-video.c).
 *
 * Timestamps: isocam_clock pairs each SCR's source clock with the host
 * time its payload arrived; it never reads the SCR's SOF counter, so bulk,
 * which has no bus schedule, feeds it the same way. A bulk transfer
 * arrives whole when its URB completes: the completion time is its
 * arrival.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/usb.h>

#include <isocam/usb.h>

#include "isocam_bulk_xfer.h"
#include "isocam.h"

/*
 * Bulk URBs that fail go back at once, not at the bus's pace as iso URBs
 * do: a device that fails every one would keep the completion path busy.
 * After this many failures in a row none goes back, and the watchdog
 * ends the stream (isocam_watchdog()): an unplug looks the same until
 * the hub reports it (every URB in flight fails, -EPROTO), and then the
 * application must see the device gone, not an I/O error.
 */
#define ISOCAM_BULK_MAX_ERRORS	16

/*
 * The drain a bulk stop allows: see isocam_bulk_drain_ms(). Bulk URBs
 * complete only with frame data, and the sensor is in standby by then.
 */
#define ISOCAM_BULK_DRAIN_MS	100

/*
 * bulk_urbs URBs of ISOCAM_USB_BULK_MAX_PAYLOAD (64 KiB), one payload
 * transfer each. The bridge buffers one frame and drops the next frame
 * captured while that one still drains, and it sends only into URBs it
 * holds; so what is queued at the device should take a whole frame at
 * once, whatever a resubmission waits for. 32 (2 MiB) hold a 640x480 YUYV
 * frame three times over and most of a 1280x960 one; 64 is also the most
 * isocam-emu queues.
 */
static unsigned int bulk_urbs = 32;
module_param_cb(bulk_urbs, &isocam_urbs_param_ops, &bulk_urbs, 0644);
MODULE_PARM_DESC(bulk_urbs, "bulk URBs of 64 KiB in flight (2-64, default 32)");

/*
 * The interface is alt 0 alone, with endpoints: it must be the bulk
 * personality, and every field of its one endpoint must say so.
 */
int isocam_bulk_parse(struct isocam_dev *dev)
{
	struct usb_interface *intf = dev->intf;
	struct device *d = &intf->dev;
	const struct usb_endpoint_descriptor *ep;
	struct usb_host_interface *alt;
	const char *why;

	alt = usb_altnum_to_altsetting(intf, 0);
	if (!alt || intf->num_altsetting != 1) {
		dev_err(d, "interface %u: the bulk personality has alt 0 alone, found %u alt settings; refusing it\n",
			dev->ifnum, intf->num_altsetting);
		return -ENODEV;
	}
	if (dev->udev->speed != USB_SPEED_HIGH) {
		dev_err(d, "bulk personality needs a high-speed link (512-byte bulk packets), got %s\n",
			usb_speed_string(dev->udev->speed));
		return -ENODEV;
	}
	if (alt->desc.bNumEndpoints != 1) {
		dev_err(d, "interface %u alt 0 has %u endpoints, not the one bulk IN endpoint of the bulk personality; refusing it\n",
			dev->ifnum, alt->desc.bNumEndpoints);
		return -ENODEV;
	}
	ep = &alt->endpoint[0].desc;
	why = isocam_bulk_xfer_ep_problem(ep->bEndpointAddress,
					  ep->bmAttributes,
					  le16_to_cpu(ep->wMaxPacketSize));
	if (why) {
		dev_err(d, "interface %u alt 0: endpoint 0x%02x (bmAttributes 0x%02x, wMaxPacketSize 0x%04x) %s; refusing it\n",
			dev->ifnum, ep->bEndpointAddress, ep->bmAttributes,
			le16_to_cpu(ep->wMaxPacketSize), why);
		return -ENODEV;
	}

	dev->tp = &isocam_bulk_transport;
	dev->ep_num = usb_endpoint_num(ep);
	dev->num_alts = 1;
	dev->alt_bytes[0] = 0;
	dev_dbg(d, "bulk IN endpoint 0x%02x, %u-byte packets\n",
		ep->bEndpointAddress, usb_endpoint_maxp(ep));
	return 0;
}

/* Undo whatever the host controller (or the remote, over USB/IP) wrote. */
static void isocam_bulk_urb_reset(struct isocam_dev *dev, struct urb *urb)
{
	urb->transfer_buffer_length = isocam_urb_bytes(dev);
	urb->actual_length = 0;
	urb->number_of_packets = 0;
}

/* Feed a completed URB's payload transfer to the assembler. */
static void isocam_bulk_transfer(struct isocam_dev *dev, struct urb *urb)
{
	bool irqs_off = irqs_disabled();
	u32 size = isocam_urb_bytes(dev);
	u32 actual = urb->actual_length;
	u64 now = ktime_get_ns();
	u32 bad = 0, len;

	/* Its arrival: the SCR sample's host time and the first stamp. */
	dev->pkt_ts = now;
	/* What was submitted is ours to know; only actual_length is read. */
	switch (isocam_bulk_xfer_check(actual, size, size, &len)) {
	case ISOCAM_BULK_XFER_OK:
		isocam_asm_packet(&dev->assembler, urb->transfer_buffer, len);
		break;
	case ISOCAM_BULK_XFER_EMPTY:
		/* Never sent by the contract's device; counted, harmless. */
		isocam_asm_packet(&dev->assembler, NULL, 0);
		break;
	case ISOCAM_BULK_XFER_BAD:
		bad = 1;
		dev_warn_ratelimited(&dev->intf->dev, "bulk URB completed with actual_length %u of %u submitted; dropped\n",
				     actual, size);
		isocam_asm_packet_error(&dev->assembler);
		break;
	}
	isocam_urb_account(dev, now, irqs_off, bad, 0, 0);
}

static void isocam_bulk_complete(struct urb *urb)
{
	struct isocam_dev *dev = urb->context;

	if (isocam_urb_gone(urb->status))
		return;
	switch (urb->status) {
	case 0:
		dev->bulk_errors = 0;
		isocam_bulk_transfer(dev, urb);
		break;
	case -EPIPE:
		/* Halted: nothing comes until STREAMOFF's CLEAR_FEATURE. */
		isocam_urb_error(dev, urb->status);
		isocam_count(dev, &dev->stats.bulk_halts);
		if (isocam_stream_fail(dev))
			dev_err(&dev->intf->dev, "stream stopped: bulk endpoint %u is halted (-EPIPE); STREAMOFF to recover\n",
				dev->ep_num);
		return;
	default:
		isocam_urb_error(dev, urb->status);
		if (++dev->bulk_errors >= ISOCAM_BULK_MAX_ERRORS) {
			/* None goes back, the others in flight included. */
			WRITE_ONCE(dev->urbs_live, false);
			WRITE_ONCE(dev->bulk_last_error, urb->status);
			return;
		}
		break;
	}
	isocam_urb_resubmit(dev, urb);
}

/* An allocated URB with its buffer: make it a bulk IN URB of ours. */
static void isocam_bulk_init_urb(struct isocam_dev *dev, struct urb *urb)
{
	urb->pipe = usb_rcvbulkpipe(dev->udev, dev->ep_num);
	urb->transfer_flags = URB_NO_TRANSFER_DMA_MAP;
	urb->complete = isocam_bulk_complete;
	isocam_bulk_urb_reset(dev, urb);
}

/*
 * Stream off, as UVC hosts tell a bulk camera: CLEAR_FEATURE(ENDPOINT_HALT)
 * on its endpoint. The device drops the frame in progress and starts the
 * next stream afresh; the host's data toggle is reset too. No URB may be
 * in flight.
 */
static void isocam_bulk_idle(struct isocam_dev *dev)
{
	int ret;

	if (isocam_std_msg_allowed(dev))
		return;
	ret = usb_clear_halt(dev->udev,
			     usb_rcvbulkpipe(dev->udev, dev->ep_num));
	ret = isocam_std_msg_done(dev, "CLEAR_FEATURE(ENDPOINT_HALT)", ret);
	if (ret)
		dev_err(&dev->intf->dev, "stream off: CLEAR_FEATURE(ENDPOINT_HALT) on bulk endpoint %u failed: %d\n",
			dev->ep_num, ret);
}

static unsigned int isocam_bulk_urb_count(void)
{
	return bulk_urbs;
}

/* No isochronous packets: each URB is one payload transfer. */
static unsigned int isocam_bulk_urb_packets(void)
{
	return 0;
}

/*
 * Bulk URBs come back only with frame data, and every caller has put the
 * sensor in standby first: what the device still holds stays queued, so
 * killing is the rule here, as in uvcvideo. The drain is short: it lets
 * completions already on their way arrive (over USB/IP they precede the
 * reply to the sensor's MODE_SELECT write on the same connection), and
 * the kill then finds the URBs idle at the device, not completing.
 */
static unsigned int isocam_bulk_drain_ms(const struct isocam_dev *dev)
{
	return ISOCAM_BULK_DRAIN_MS;
}

/* Bulk reserves nothing; the link's raw speed is the limit. */
static bool isocam_bulk_stream_fits(struct isocam_dev *dev, u32 sizeimage,
				    const struct v4l2_fract *tpf)
{
	return isocam_bulk_xfer_fits(sizeimage, tpf->numerator,
				     tpf->denominator);
}

static u32 isocam_bulk_packet_bytes(const struct isocam_dev *dev, int alt)
{
	return ISOCAM_USB_BULK_MAX_PAYLOAD;
}

/* Bulk: no alt to choose, so no bandwidth to fall back from. */
static int isocam_bulk_start(struct isocam_dev *dev)
{
	struct device *d = &dev->intf->dev;
	struct v4l2_fract tpf = dev->timeperframe;
	int ret;

	if (!isocam_bulk_xfer_fits(dev->pix.sizeimage, tpf.numerator,
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

static void isocam_bulk_describe(struct isocam_dev *dev, char *buf, size_t len)
{
	snprintf(buf, len, "bulk endpoint %u", dev->ep_num);
}

static void isocam_bulk_log_status(struct isocam_dev *dev)
{
	v4l2_info(&dev->v4l2_dev, "streaming: %s, bulk endpoint %u, %u URBs of %u bytes\n",
		  dev->streaming ? "yes" : "no", dev->ep_num,
		  dev->num_urbs, dev->packet_bytes);
}

const struct isocam_transport isocam_bulk_transport = {
	.name = "bulk",
	.urb_count = isocam_bulk_urb_count,
	.urb_packets = isocam_bulk_urb_packets,
	.init_urb = isocam_bulk_init_urb,
	.reset_urb = isocam_bulk_urb_reset,
	.drain_ms = isocam_bulk_drain_ms,
	.fits = isocam_bulk_stream_fits,
	.packet_bytes = isocam_bulk_packet_bytes,
	.start = isocam_bulk_start,
	.idle = isocam_bulk_idle,
	.describe = isocam_bulk_describe,
	.log_status = isocam_bulk_log_status,
};
