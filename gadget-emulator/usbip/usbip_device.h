/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The usbip_usb_device (and its one interface) a camera advertises, for
 * the device list (usbip_server.c) and the import reply (usbip_session.c).
 */
#ifndef ISOCAM_EMU_USBIP_DEVICE_H
#define ISOCAM_EMU_USBIP_DEVICE_H

#include "usbip_camera.h"
#include "usbip_proto.h"

void usbip_camera_device(const struct usbip_camera *cam,
			     struct usbip_usb_device *d);
extern const struct usbip_usb_interface usbip_camera_interfaces[1];

#endif /* ISOCAM_EMU_USBIP_DEVICE_H */
