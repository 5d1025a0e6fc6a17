/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The bridge chip: the USB device's control endpoint (standard requests
 * and the vendor i2c requests of include/isocam/usb.h), the i2c bus with
 * the ic1280 on it, and the video pipe whose packet size follows the
 * selected alt setting. One instance per emulated camera.
 */
#ifndef ISOCAM_EMU_BRIDGE_H
#define ISOCAM_EMU_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "usb_descriptors.h"

struct fault;
struct hostile;
struct ic1280;
struct video_stream;
struct bridge;

struct bridge_config {
	const char *name;	/* log prefix, e.g. "cam0" */
	const char *serial;	/* iSerialNumber */
	uint16_t chip_id;	/* what the sensor's CHIP_ID reads */
	struct fault *fault;	/* may be NULL; not owned */
	struct hostile *hostile;	/* may be NULL; not owned */
	bool verbose;		/* log every i2c write and request */
	bool free_run;		/* video_stream_set_free_run() */
	enum usb_transport transport;	/* iso (0, the default) or bulk */
};

/* The 8-byte SETUP packet, decoded (wire order is little endian). */
struct usb_setup {
	uint8_t bmRequestType;
	uint8_t bRequest;
	uint16_t wValue;
	uint16_t wIndex;
	uint16_t wLength;
};

void usb_setup_decode(const uint8_t raw[8], struct usb_setup *s);
void usb_setup_encode(uint8_t raw[8], const struct usb_setup *s);

/* Returned by bridge_control for a request the device STALLs. */
#define BRIDGE_STALL	(-32)	/* -EPIPE, what the host sees */

/* NULL with a message on stderr when out of memory. */
struct bridge *bridge_new(const struct bridge_config *cfg);
void bridge_free(struct bridge *b);

/*
 * One control transfer on ep0. For IN, data has room for len bytes (len
 * >= wLength is not required; at most min(len, wLength) are written,
 * unless hostile ctrl-long fills up to len) and the return is the bytes
 * produced; for OUT, data holds len bytes from the host and the return is
 * len. BRIDGE_STALL when the device STALLs.
 */
int bridge_control(struct bridge *b, const struct usb_setup *s,
		   uint8_t *data, size_t len);

/* Current alt setting of the video interface, and its bytes/microframe. */
unsigned int bridge_alt(const struct bridge *b);
uint32_t bridge_packet_bytes(const struct bridge *b);
/* SET_CONFIGURATION(1) happened and was not undone. */
bool bridge_configured(const struct bridge *b);
enum usb_transport bridge_transport(const struct bridge *b);
/*
 * Bulk: the most one payload transfer carries (ISOCAM_USB_BULK_MAX_PAYLOAD)
 * while the bulk endpoint exists (configured); 0 when it does not, and
 * always 0 for the iso transport.
 */
uint32_t bridge_bulk_payload_max(const struct bridge *b);
/* SET_FEATURE(ENDPOINT_HALT) on the video endpoint, not yet cleared. */
bool bridge_ep_halted(const struct bridge *b);

struct video_stream *bridge_video(struct bridge *b);
struct ic1280 *bridge_sensor(struct bridge *b);
const struct usb_descriptors *bridge_descriptors(const struct bridge *b);

#endif /* ISOCAM_EMU_BRIDGE_H */
