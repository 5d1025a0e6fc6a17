// SPDX-License-Identifier: GPL-2.0
/*
 * isocam: power and reset. A USB reset, whoever asks for it (usbreset,
 * the USB core after an error, this driver for a bridge that stopped
 * answering), and a system sleep keep the video node, the format and the
 * controls; a running stream pauses for them and goes on after, the
 * sensor's registers written again as it starts (isocam_stream_resume()).
 * Without these the USB core would unbind the driver around them: the
 * node gone, every handle ended. A camera nobody has open may
 * autosuspend (isocam-v4l2.c holds it awake while a handle is open).
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

/* Under dev->lock: the stream paused by a reset or a sleep goes on. */
static void isocam_resume_paused(struct isocam_dev *dev, const char *after)
{
	if (dev->resume_stream)
		isocam_stream_resume(dev, after);
	dev->resume_stream = false;
}

/* Stream pauses for whoever stops the device, resumes after. */
static void isocam_pause(struct isocam_dev *dev)
{
	mutex_lock(&dev->lock);
	dev->resume_stream = isocam_stream_pause(dev);
	mutex_unlock(&dev->lock);
}

/*
 * Only a stream paused by a system sleep takes the lock: a runtime resume
 * may come from a transfer made under it (isocam_i2c_xfer()).
 */
static void isocam_unpause(struct isocam_dev *dev, const char *after)
{
	if (!READ_ONCE(dev->resume_stream))
		return;
	mutex_lock(&dev->lock);
	/* (STREAMOFF may have come in between: it forgets the pause) */
	isocam_resume_paused(dev, after);
	mutex_unlock(&dev->lock);
}

/*
 * An autosuspend comes only with no handle open, so nothing streams;
 * a system sleep may come in the middle of a stream.
 */
int isocam_suspend(struct usb_interface *intf, pm_message_t message)
{
	struct isocam_dev *dev = usb_get_intfdata(intf);

	if (dev && !PMSG_IS_AUTO(message))
		isocam_pause(dev);
	return 0;
}

int isocam_resume(struct usb_interface *intf)
{
	struct isocam_dev *dev = usb_get_intfdata(intf);

	if (dev)
		isocam_unpause(dev, "a system sleep");
	return 0;
}

/* The device was reset while asleep: as after a reset, all is written anew. */
int isocam_reset_resume(struct usb_interface *intf)
{
	struct isocam_dev *dev = usb_get_intfdata(intf);

	if (!dev)
		return 0;
	WRITE_ONCE(dev->ctrl_dead, false);
	isocam_unpause(dev, "a system sleep with a reset");
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
	isocam_resume_paused(dev, "a USB reset");
	mutex_unlock(&dev->lock);
	return 0;
}
