/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The camera's USB descriptors, built from include/isocam/usb.h: a high
 * speed (bcdUSB 2.00) device with one configuration holding one
 * vendor-specific video interface, alt 0 without endpoints and alts
 * 1..ISOCAM_USB_NUM_ALTS-1 each with one isochronous IN endpoint; or, with
 * a hostile descriptor mode (hostile.h), a configuration that lies. The
 * bulk transport has alt 0 alone, with one bulk IN endpoint (usb.h).
 */
#ifndef ISOCAM_EMU_USB_DESCRIPTORS_H
#define ISOCAM_EMU_USB_DESCRIPTORS_H

#include <stddef.h>
#include <stdint.h>

#include <isocam/usb.h>

#include "hostile.h"

#define USB_DESC_DEVICE_LEN		18
#define USB_DESC_QUALIFIER_LEN		10
#define USB_DESC_CONFIG_HDR_LEN		9
#define USB_DESC_IFACE_LEN		9
#define USB_DESC_EP_LEN			7
/* config + every alt's interface descriptor + one endpoint per alt >= 1 */
#define USB_DESC_CONFIG_TOTAL_LEN \
	(USB_DESC_CONFIG_HDR_LEN + ISOCAM_USB_NUM_ALTS * USB_DESC_IFACE_LEN + \
	 (ISOCAM_USB_NUM_ALTS - 1) * USB_DESC_EP_LEN)
/* bulk: config + alt 0's interface descriptor + its bulk endpoint */
#define USB_DESC_CONFIG_BULK_LEN \
	(USB_DESC_CONFIG_HDR_LEN + USB_DESC_IFACE_LEN + USB_DESC_EP_LEN)
/* room for the largest hostile layout: desc-100-alts */
#define USB_DESC_CONFIG_MAX_LEN \
	(USB_DESC_CONFIG_HDR_LEN + HOSTILE_DESC_ALTS * USB_DESC_IFACE_LEN + \
	 (HOSTILE_DESC_ALTS - 1) * USB_DESC_EP_LEN)
/* at full speed the camera offers only alt 0: iso video needs high speed */
#define USB_DESC_OTHER_SPEED_LEN \
	(USB_DESC_CONFIG_HDR_LEN + USB_DESC_IFACE_LEN)

#define USB_STR_LANGID			0x0409	/* English (US) */
#define USB_STR_MANUFACTURER		1
#define USB_STR_PRODUCT			2
#define USB_STR_SERIAL			3
#define USB_STR_INTERFACE		4
#define USB_STR_INTERFACE_TEXT		"isocam video"
#define USB_SERIAL_MAX			32

/* How the video endpoint moves data: the camera's personality. */
enum usb_transport {
	USB_TRANSPORT_ISO,	/* alts 1..7, isochronous IN (the default) */
	USB_TRANSPORT_BULK,	/* alt 0, one bulk IN endpoint */
};

struct usb_descriptors {
	uint8_t device[USB_DESC_DEVICE_LEN];
	uint8_t qualifier[USB_DESC_QUALIFIER_LEN];
	uint8_t config[USB_DESC_CONFIG_MAX_LEN];
	uint16_t config_len;		/* what GET_DESCRIPTOR sends of it */
	unsigned int num_alts;		/* SET_INTERFACE takes 0..num_alts-1 */
	enum usb_transport transport;
	uint8_t other_speed[USB_DESC_OTHER_SPEED_LEN];
	char serial[USB_SERIAL_MAX];
};

/*
 * serial: the iSerialNumber string, unique per emulated camera. h (may
 * be NULL): its descriptor modes shape the iso configuration descriptor;
 * the bulk layout ignores them (usbip_server refuses the combination).
 */
void usb_descriptors_init(struct usb_descriptors *d, const char *serial,
			  const struct hostile *h, enum usb_transport transport);

/*
 * GET_DESCRIPTOR(type, index, langid): copies up to outlen bytes of the
 * descriptor to out and returns how many, or -1 when there is no such
 * descriptor (the request STALLs).
 */
int usb_descriptors_get(const struct usb_descriptors *d, uint8_t type,
			uint8_t index, uint16_t langid, uint8_t *out,
			size_t outlen);

/* Encoded wMaxPacketSize of an alt (0 for alt 0 or out of range). */
uint16_t usb_alt_wmaxp(unsigned int alt);
/* Bytes per microframe an alt carries (size x mult). */
uint32_t usb_alt_packet_bytes(unsigned int alt);
/*
 * The same for the alts these descriptors offer: desc-100-alts' alts 8..99
 * stream as alt 7 does; other descriptor lies leave the streaming alone.
 * 0 for every alt of the bulk layout: it has no isochronous endpoint.
 */
uint32_t usb_descriptors_alt_bytes(const struct usb_descriptors *d,
				   unsigned int alt);

#endif /* ISOCAM_EMU_USB_DESCRIPTORS_H */
