// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: vendor control requests that a silent device
 * cannot block.
 *
 * usb_control_msg() kills a request that timed out, and usb_kill_urb()
 * waits until the host controller gives the URB back. Over USB/IP that
 * means until the remote acknowledges the unlink: a device that never
 * does blocks probe, every i2c transfer and unplug for good. So a request
 * here is cancelled asynchronously and given ISOCAM_CANCEL_MS to come
 * back; if it does not, it is left in flight (it owns its memory and
 * frees it when it completes, at the latest when the device goes) and the
 * device is marked as not answering: its requests then fail at once.
 * Module exit waits for such leftovers.
 *
 * The standard requests that start and stop a stream (SET_INTERFACE,
 * CLEAR_FEATURE) go through the USB core, which waits 5 s and then for
 * the unlink: isocam_std_msg_done() gives up on a bridge that let one
 * time out, so that STREAMOFF, close and unplug wait once, not each time.
 */
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/cache.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/usb.h>

#include "isocam.h"

#define ISOCAM_CANCEL_MS	1000

struct isocam_ctrl_req {
	struct kref ref;	/* the waiter's and the URB's */
	struct completion done;
	struct urb *urb;
	struct usb_ctrlrequest setup;
	/*
	 * DMA'd into, part of the kmalloc: in cache lines of its own, as the
	 * waiter writes the completion while a reply may be arriving, and a
	 * non-coherent host would lose one or the other.
	 */
	u8 data[] __aligned(ARCH_DMA_MINALIGN);
};

static_assert(offsetof(struct isocam_ctrl_req, data) % ARCH_DMA_MINALIGN == 0);

/* Every request in flight, so that module exit can wait for leftovers. */
static struct usb_anchor isocam_ctrl_inflight;

static void isocam_ctrl_req_release(struct kref *ref)
{
	struct isocam_ctrl_req *req = container_of(ref, struct isocam_ctrl_req,
						   ref);

	usb_free_urb(req->urb);
	kfree(req);
}

static void isocam_ctrl_complete(struct urb *urb)
{
	struct isocam_ctrl_req *req = urb->context;

	complete(&req->done);
	kref_put(&req->ref, isocam_ctrl_req_release);
}

/*
 * A vendor request timed out and its cancel was acknowledged: the bridge's
 * USB side lives, its firmware may have hung. Reset it once (gspca se401's
 * cure; isocam-pm.c keeps the node, the settings and the stream across
 * it). One that times out again after that is given up on.
 */
static void isocam_bridge_hung(struct isocam_dev *dev, u8 request,
			       unsigned int timeout_ms)
{
	struct device *d = &dev->intf->dev;

	/* Not while probing: the node is the sign of a bound driver. */
	if (!video_is_registered(&dev->vdev))
		return;
	/* Requests that time out while the reset is on its way wait for it. */
	if (test_bit(ISOCAM_BRIDGE_RESET_PENDING, &dev->flags))
		return;
	if (!test_and_set_bit(ISOCAM_BRIDGE_RESET_DONE, &dev->flags)) {
		set_bit(ISOCAM_BRIDGE_RESET_PENDING, &dev->flags);
		dev_warn(d, "bridge request 0x%02x timed out after %u ms; resetting the bridge\n",
			 request, timeout_ms);
		usb_queue_reset_device(dev->intf);
		return;
	}
	if (!READ_ONCE(dev->ctrl_dead)) {
		WRITE_ONCE(dev->ctrl_dead, true);
		dev_err(d, "bridge request 0x%02x timed out after %u ms, after a reset too; no more requests until it is plugged again\n",
			request, timeout_ms);
	}
}

int isocam_ctrl_msg(struct isocam_dev *dev, u8 request, bool in, u16 value,
		    void *buf, u16 len, unsigned int timeout_ms)
{
	struct isocam_ctrl_req *req;
	int ret;

	if (READ_ONCE(dev->ctrl_dead))
		return -EIO;
	req = kzalloc(struct_size(req, data, len), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	req->urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!req->urb) {
		kfree(req);
		return -ENOMEM;
	}
	kref_init(&req->ref);
	init_completion(&req->done);
	req->setup.bRequestType = (in ? USB_DIR_IN : USB_DIR_OUT) |
				  USB_TYPE_VENDOR | USB_RECIP_INTERFACE;
	req->setup.bRequest = request;
	req->setup.wValue = cpu_to_le16(value);
	req->setup.wIndex = cpu_to_le16(dev->ifnum);
	req->setup.wLength = cpu_to_le16(len);
	if (!in && len)
		memcpy(req->data, buf, len);
	usb_fill_control_urb(req->urb, dev->udev,
			     in ? usb_rcvctrlpipe(dev->udev, 0) :
				  usb_sndctrlpipe(dev->udev, 0),
			     (u8 *)&req->setup, len ? req->data : NULL, len,
			     isocam_ctrl_complete, req);

	kref_get(&req->ref);
	usb_anchor_urb(req->urb, &isocam_ctrl_inflight);
	ret = usb_submit_urb(req->urb, GFP_KERNEL);
	if (ret) {
		usb_unanchor_urb(req->urb);
		kref_put(&req->ref, isocam_ctrl_req_release);
		goto out;
	}

	if (!wait_for_completion_timeout(&req->done,
					 msecs_to_jiffies(timeout_ms))) {
		usb_unlink_urb(req->urb);
		if (!wait_for_completion_timeout(&req->done,
						 msecs_to_jiffies(ISOCAM_CANCEL_MS))) {
			WRITE_ONCE(dev->ctrl_dead, true);
			dev_err(&dev->intf->dev, "bridge request 0x%02x timed out after %u ms and its cancel was not acknowledged in %u ms; no more requests until it is plugged again\n",
				request, timeout_ms, ISOCAM_CANCEL_MS);
		} else {
			isocam_bridge_hung(dev, request, timeout_ms);
		}
		ret = -ETIMEDOUT;
		goto out;
	}
	ret = req->urb->status;
	if (!ret) {
		/* Never more than asked, whatever the device claims. */
		ret = min_t(int, req->urb->actual_length, len);
		if (in)
			memcpy(buf, req->data, ret);
	}
out:
	kref_put(&req->ref, isocam_ctrl_req_release);
	return ret;
}

/* May a standard request be sent? -EIO for a bridge that stopped answering. */
int isocam_std_msg_allowed(struct isocam_dev *dev)
{
	return READ_ONCE(dev->ctrl_dead) ? -EIO : 0;
}

/* After a standard request the USB core sent for us: ret is its result. */
int isocam_std_msg_done(struct isocam_dev *dev, const char *what, int ret)
{
	if (ret == -ETIMEDOUT) {
		WRITE_ONCE(dev->ctrl_dead, true);
		dev_err(&dev->intf->dev, "%s timed out; no more requests until it is plugged again\n",
			what);
	}
	return ret;
}

void isocam_ctrl_init(void)
{
	init_usb_anchor(&isocam_ctrl_inflight);
}

/* Requests a silent device never answered complete once it is unplugged. */
void isocam_ctrl_exit(void)
{
	usb_kill_anchored_urbs(&isocam_ctrl_inflight);
}
