// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * How a camera shows itself in USB/IP's device list and import reply.
 */
#include "usbip_device.h"

#include <stdio.h>
#include <string.h>

#include <isocam/usb.h>

const struct usbip_usb_interface usbip_camera_interfaces[1] = { {
	.bInterfaceClass = ISOCAM_USB_IFACE_CLASS,
	.bInterfaceSubClass = ISOCAM_USB_IFACE_SUBCLASS,
	.bInterfaceProtocol = ISOCAM_USB_IFACE_PROTOCOL,
} };

void usbip_camera_device(const struct usbip_camera *cam,
			     struct usbip_usb_device *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path),
		 "/sys/devices/platform/isocam-emu/usb1/%s", cam->busid);
	snprintf(d->busid, sizeof(d->busid), "%s", cam->busid);
	d->busnum = 1;
	d->devnum = cam->camera.index + 1;
	d->speed = USBIP_SPEED_HIGH;
	d->idVendor = ISOCAM_USB_VID;
	d->idProduct = ISOCAM_USB_PID;
	d->bcdDevice = ISOCAM_USB_BCD_DEVICE;
	d->bConfigurationValue = ISOCAM_USB_CONFIG_VALUE;
	d->bNumConfigurations = 1;
	d->bNumInterfaces = 1;
}
