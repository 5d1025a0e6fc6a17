// SPDX-License-Identifier: GPL-2.0
/* isocam USB bridge driver: skeleton */
#include <linux/module.h>
#include <linux/usb.h>
#include <isocam/usb.h>

static const struct usb_device_id isocam_id_table[] = {
	{ USB_DEVICE_INTERFACE_CLASS(ISOCAM_USB_VID, ISOCAM_USB_PID,
				     ISOCAM_USB_IFACE_CLASS) },
	{ }
};
MODULE_DEVICE_TABLE(usb, isocam_id_table);

static int isocam_probe(struct usb_interface *intf,
			const struct usb_device_id *id)
{
	return -ENODEV;
}

static void isocam_disconnect(struct usb_interface *intf)
{
}

static struct usb_driver isocam_driver = {
	.name = "isocam",
	.probe = isocam_probe,
	.disconnect = isocam_disconnect,
	.id_table = isocam_id_table,
};
module_usb_driver(isocam_driver);

MODULE_DESCRIPTION("isocam USB camera bridge");
MODULE_LICENSE("GPL");
