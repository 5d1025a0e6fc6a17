// SPDX-License-Identifier: GPL-2.0
/*
 * isocam: a USB reset, whoever asks for it (usbreset, the USB core after
 * an error, this driver for a bridge that stopped answering), keeps the
 * video node, the format and the controls; a running stream pauses for
 * it and goes on after it, the sensor's registers written again as it
 * starts (isocam_stream_resume()). Without these the USB core would
 * unbind the driver around the reset: the node gone, every handle ended.
 */
#include <linux/usb.h>

#include "isocam.h"

int isocam_pre_reset(struct usb_interface *intf)
{
	struct isocam_dev *dev = usb_get_intfdata(intf);

	if (!dev)
		return 0;
	/* Held until post_reset: no ioctl meets the device mid-reset. */
	mutex_lock(&dev->lock);
	dev->resume_stream = isocam_stream_pause(dev);
	return 0;
}

int isocam_post_reset(struct usb_interface *intf)
{
	struct isocam_dev *dev = usb_get_intfdata(intf);

	if (!dev)
		return 0;
	/* A bridge that had stopped answering gets its chance again. */
	WRITE_ONCE(dev->ctrl_dead, false);
	clear_bit(ISOCAM_BRIDGE_RESET_PENDING, &dev->flags);
	if (dev->resume_stream)
		isocam_stream_resume(dev, "a USB reset");
	dev->resume_stream = false;
	mutex_unlock(&dev->lock);
	return 0;
}
