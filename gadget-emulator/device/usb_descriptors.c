// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Descriptors as byte arrays, laid out once at power-up: GET_DESCRIPTOR
 * then is a bounded copy.
 */
#include "usb_descriptors.h"

#include <linux/usb/ch9.h>
#include <string.h>

static const uint16_t alt_wmaxp[ISOCAM_USB_NUM_ALTS] =
	ISOCAM_USB_ALT_WMAXP_INIT;

uint16_t usb_alt_wmaxp(unsigned int alt)
{
	return alt < ISOCAM_USB_NUM_ALTS ? alt_wmaxp[alt] : 0;
}

uint32_t usb_alt_packet_bytes(unsigned int alt)
{
	uint16_t w = usb_alt_wmaxp(alt);

	return ISOCAM_USB_MAXP_BYTES(w);
}

uint32_t usb_descriptors_alt_bytes(const struct usb_descriptors *d,
				   unsigned int alt)
{
	if (alt >= d->num_alts || d->transport != USB_TRANSPORT_ISO)
		return 0;
	return usb_alt_packet_bytes(alt < ISOCAM_USB_NUM_ALTS ? alt :
				    ISOCAM_USB_NUM_ALTS - 1);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint8_t *put_iface(uint8_t *p, uint8_t alt, uint8_t num_ep)
{
	p[0] = USB_DESC_IFACE_LEN;
	p[1] = USB_DT_INTERFACE;
	p[2] = ISOCAM_USB_IFACE_NUM;
	p[3] = alt;
	p[4] = num_ep;
	p[5] = ISOCAM_USB_IFACE_CLASS;
	p[6] = ISOCAM_USB_IFACE_SUBCLASS;
	p[7] = ISOCAM_USB_IFACE_PROTOCOL;
	p[8] = USB_STR_INTERFACE;
	return p + USB_DESC_IFACE_LEN;
}

static void put_config_hdr(uint8_t *p, uint8_t type, uint16_t total)
{
	p[0] = USB_DESC_CONFIG_HDR_LEN;
	p[1] = type;
	put_le16(p + 2, total);
	p[4] = 1;			/* bNumInterfaces */
	p[5] = ISOCAM_USB_CONFIG_VALUE;
	p[6] = 0;			/* iConfiguration */
	p[7] = USB_CONFIG_ATT_ONE;	/* bus powered, no remote wakeup */
	p[8] = ISOCAM_USB_MAX_POWER_MA / 2;	/* 2 mA units */
}

/* One alt's endpoint, as honest as the descriptor modes let it be. */
static uint8_t *put_endpoint(uint8_t *p, unsigned int alt,
			     const struct hostile *h)
{
	uint16_t wmaxp = alt_wmaxp[alt < ISOCAM_USB_NUM_ALTS ? alt :
				   ISOCAM_USB_NUM_ALTS - 1];

	if (hostile_on(h, HOSTILE_DESC_MAXP_ZERO))
		wmaxp = 0;
	else if (hostile_on(h, HOSTILE_DESC_MAXP_HUGE))
		wmaxp = ISOCAM_USB_MAXP(4, 0x7ff);	/* mult bits 3: reserved */
	p[0] = USB_DESC_EP_LEN;
	p[1] = USB_DT_ENDPOINT;
	p[2] = hostile_on(h, HOSTILE_DESC_OUT) ?
	       ISOCAM_USB_ISO_EP_ADDR & ~USB_DIR_IN : ISOCAM_USB_ISO_EP_ADDR;
	p[3] = hostile_on(h, HOSTILE_DESC_BULK) ? USB_ENDPOINT_XFER_BULK :
	       USB_ENDPOINT_XFER_ISOC | USB_ENDPOINT_SYNC_ASYNC;
	put_le16(p + 4, wmaxp);
	p[6] = ISOCAM_USB_ISO_EP_INTERVAL;
	return p + USB_DESC_EP_LEN;
}

/* Bulk: alt 0 with the bulk IN endpoint; descriptor modes do not apply. */
static uint16_t put_config_bulk(struct usb_descriptors *d)
{
	uint8_t *p = put_iface(d->config + USB_DESC_CONFIG_HDR_LEN, 0, 1);

	p[0] = USB_DESC_EP_LEN;
	p[1] = USB_DT_ENDPOINT;
	p[2] = ISOCAM_USB_BULK_EP_ADDR;
	p[3] = USB_ENDPOINT_XFER_BULK;
	put_le16(p + 4, ISOCAM_USB_BULK_MAXP);
	p[6] = 0;			/* bInterval: no NAK rate limit */
	put_config_hdr(d->config, USB_DT_CONFIG, USB_DESC_CONFIG_BULK_LEN);
	return USB_DESC_CONFIG_BULK_LEN;
}

/*
 * The configuration descriptor; returns the bytes GET_DESCRIPTOR sends
 * (fewer than wTotalLength says with desc-truncated).
 */
static uint16_t put_config(struct usb_descriptors *d, const struct hostile *h)
{
	unsigned int first = hostile_on(h, HOSTILE_DESC_NO_ALT0) ? 1 : 0;
	bool endpoints = !hostile_on(h, HOSTILE_DESC_NO_ISO);
	uint8_t *p = d->config + USB_DESC_CONFIG_HDR_LEN;
	unsigned int alt;
	uint16_t total;

	for (alt = first; alt < d->num_alts; alt++) {
		uint8_t as = (uint8_t)alt;

		/* the last alt says it is the one before it */
		if (hostile_on(h, HOSTILE_DESC_DUP_ALTS) && alt == d->num_alts - 1)
			as--;
		p = put_iface(p, as, alt && endpoints ? 1 : 0);
		if (alt && endpoints)
			p = put_endpoint(p, alt, h);
	}
	total = (uint16_t)(p - d->config);
	put_config_hdr(d->config, USB_DT_CONFIG, total);
	if (hostile_on(h, HOSTILE_DESC_TRUNCATED))
		return total - HOSTILE_DESC_TRUNCATE;	/* mid-descriptor */
	return total;
}

void usb_descriptors_init(struct usb_descriptors *d, const char *serial,
			  const struct hostile *h, enum usb_transport transport)
{
	uint8_t *p;

	memset(d, 0, sizeof(*d));
	p = d->device;
	p[0] = USB_DESC_DEVICE_LEN;
	p[1] = USB_DT_DEVICE;
	put_le16(p + 2, 0x0200);	/* USB 2.0: high speed, no BOS */
	p[4] = 0;			/* class per interface */
	p[5] = 0;
	p[6] = 0;
	p[7] = 64;			/* bMaxPacketSize0 */
	put_le16(p + 8, ISOCAM_USB_VID);
	put_le16(p + 10, ISOCAM_USB_PID);
	put_le16(p + 12, ISOCAM_USB_BCD_DEVICE);
	p[14] = USB_STR_MANUFACTURER;
	p[15] = USB_STR_PRODUCT;
	p[16] = USB_STR_SERIAL;
	p[17] = 1;			/* bNumConfigurations */

	/* the same device at the other (full) speed */
	p = d->qualifier;
	p[0] = USB_DESC_QUALIFIER_LEN;
	p[1] = USB_DT_DEVICE_QUALIFIER;
	put_le16(p + 2, 0x0200);
	p[6] = 64;
	p[7] = 1;

	d->transport = transport;
	if (transport == USB_TRANSPORT_BULK) {
		d->num_alts = 1;
		d->config_len = put_config_bulk(d);
	} else {
		d->num_alts = hostile_on(h, HOSTILE_DESC_100_ALTS) ?
			      HOSTILE_DESC_ALTS : ISOCAM_USB_NUM_ALTS;
		d->config_len = put_config(d, h);
	}

	put_config_hdr(d->other_speed, USB_DT_OTHER_SPEED_CONFIG,
		       USB_DESC_OTHER_SPEED_LEN);
	put_iface(d->other_speed + USB_DESC_CONFIG_HDR_LEN, 0, 0);

	strncpy(d->serial, serial, sizeof(d->serial) - 1);
}

static int copy_out(uint8_t *out, size_t outlen, const uint8_t *src,
		    size_t len)
{
	size_t n = len < outlen ? len : outlen;

	memcpy(out, src, n);
	return (int)n;
}

/* String descriptor: UTF-16LE of an ASCII string. */
static int put_string(uint8_t *out, size_t outlen, const char *s)
{
	uint8_t buf[2 + 2 * 126];
	size_t n = strnlen(s, 126), i;

	buf[0] = (uint8_t)(2 + 2 * n);
	buf[1] = USB_DT_STRING;
	for (i = 0; i < n; i++) {
		buf[2 + 2 * i] = (uint8_t)s[i];
		buf[3 + 2 * i] = 0;
	}
	return copy_out(out, outlen, buf, 2 + 2 * n);
}

int usb_descriptors_get(const struct usb_descriptors *d, uint8_t type,
			uint8_t index, uint16_t langid, uint8_t *out,
			size_t outlen)
{
	static const uint8_t langids[4] = {
		4, USB_DT_STRING, USB_STR_LANGID & 0xff, USB_STR_LANGID >> 8
	};

	switch (type) {
	case USB_DT_DEVICE:
		return index ? -1 : copy_out(out, outlen, d->device,
					     sizeof(d->device));
	case USB_DT_CONFIG:
		return index ? -1 : copy_out(out, outlen, d->config,
					     d->config_len);
	case USB_DT_DEVICE_QUALIFIER:
		return index ? -1 : copy_out(out, outlen, d->qualifier,
					     sizeof(d->qualifier));
	case USB_DT_OTHER_SPEED_CONFIG:
		return index ? -1 : copy_out(out, outlen, d->other_speed,
					     sizeof(d->other_speed));
	case USB_DT_STRING:
		if (index == 0)
			return copy_out(out, outlen, langids, sizeof(langids));
		if (langid != USB_STR_LANGID)
			return -1;
		switch (index) {
		case USB_STR_MANUFACTURER:
			return put_string(out, outlen, ISOCAM_USB_MANUFACTURER);
		case USB_STR_PRODUCT:
			return put_string(out, outlen, ISOCAM_USB_PRODUCT);
		case USB_STR_SERIAL:
			return put_string(out, outlen, d->serial);
		case USB_STR_INTERFACE:
			return put_string(out, outlen, USB_STR_INTERFACE_TEXT);
		default:
			return -1;
		}
	default:
		/* BOS and others: a USB 2.0 device without them STALLs */
		return -1;
	}
}
