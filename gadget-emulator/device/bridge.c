// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bridge's control endpoint. Requests are validated the way a
 * careful device firmware does it: anything unexpected STALLs, and the
 * vendor i2c requests record why in last_i2c_result. The bridge's own
 * registers (codec, JPEG quality) go to the video pipe as written.
 */
#include "bridge.h"

#include <linux/usb/ch9.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>

#include "fault.h"
#include "hostile.h"
#include "i2c_bus.h"
#include "ic1280_model.h"
#include "log.h"
#include "video_stream.h"

struct bridge {
	char name[32];
	bool verbose;
	struct fault *fault;
	struct hostile *hostile;
	struct usb_descriptors desc;
	struct i2c_bus bus;
	struct ic1280 *sensor;
	struct video_stream *video;

	uint8_t config;		/* 0: addressed, 1: configured */
	uint8_t alt;
	bool ep_halted;
	uint8_t last_i2c_result;
	uint32_t i2c_transfers;
	uint8_t codec;		/* ISOCAM_BREG_CODEC */
	uint8_t jpeg_quality;	/* ISOCAM_BREG_JPEG_QUALITY */
};

void usb_setup_decode(const uint8_t raw[8], struct usb_setup *s)
{
	s->bmRequestType = raw[0];
	s->bRequest = raw[1];
	s->wValue = (uint16_t)(raw[2] | raw[3] << 8);
	s->wIndex = (uint16_t)(raw[4] | raw[5] << 8);
	s->wLength = (uint16_t)(raw[6] | raw[7] << 8);
}

void usb_setup_encode(uint8_t raw[8], const struct usb_setup *s)
{
	raw[0] = s->bmRequestType;
	raw[1] = s->bRequest;
	raw[2] = (uint8_t)s->wValue;
	raw[3] = (uint8_t)(s->wValue >> 8);
	raw[4] = (uint8_t)s->wIndex;
	raw[5] = (uint8_t)(s->wIndex >> 8);
	raw[6] = (uint8_t)s->wLength;
	raw[7] = (uint8_t)(s->wLength >> 8);
}

static int sensor_write(void *dev, const uint8_t *buf, size_t len)
{
	return ic1280_i2c_write(dev, buf, len);
}

static int sensor_read(void *dev, uint8_t *buf, size_t len)
{
	return ic1280_i2c_read(dev, buf, len);
}

static const struct i2c_dev_ops sensor_ops = {
	.write = sensor_write,
	.read = sensor_read,
};

struct bridge *bridge_new(const struct bridge_config *cfg)
{
	struct bridge *b = calloc(1, sizeof(*b));

	if (!b)
		goto oom;
	snprintf(b->name, sizeof(b->name), "%s", cfg->name);
	b->verbose = cfg->verbose;
	b->fault = cfg->fault;
	b->hostile = cfg->hostile;
	usb_descriptors_init(&b->desc, cfg->serial, cfg->hostile,
			     cfg->transport);
	i2c_bus_init(&b->bus);
	b->sensor = ic1280_new(cfg->chip_id);
	if (!b->sensor)
		goto oom;
	b->video = video_stream_new(b->sensor);
	if (!b->video)
		goto oom;
	b->codec = ISOCAM_CODEC_RAW;
	b->jpeg_quality = ISOCAM_JPEG_QUALITY_DEFAULT;
	video_stream_set_codec(b->video, b->codec, b->jpeg_quality);
	video_stream_set_fault(b->video, cfg->fault);
	video_stream_set_hostile(b->video, cfg->hostile);
	video_stream_set_free_run(b->video, cfg->free_run);
	i2c_bus_attach(&b->bus, IC1280_I2C_ADDR, &sensor_ops, b->sensor);
	return b;
oom:
	emu_log("%s: out of memory creating the bridge", cfg->name);
	bridge_free(b);
	return NULL;
}

void bridge_free(struct bridge *b)
{
	if (!b)
		return;
	video_stream_free(b->video);
	ic1280_free(b->sensor);
	free(b);
}

unsigned int bridge_alt(const struct bridge *b)
{
	return b->alt;
}

uint32_t bridge_packet_bytes(const struct bridge *b)
{
	return usb_descriptors_alt_bytes(&b->desc, b->alt);
}

bool bridge_configured(const struct bridge *b)
{
	return b->config != 0;
}

enum usb_transport bridge_transport(const struct bridge *b)
{
	return b->desc.transport;
}

uint32_t bridge_bulk_payload_max(const struct bridge *b)
{
	return b->desc.transport == USB_TRANSPORT_BULK && b->config ?
	       ISOCAM_USB_BULK_MAX_PAYLOAD : 0;
}

bool bridge_ep_halted(const struct bridge *b)
{
	return b->ep_halted;
}

static uint8_t video_ep_addr(const struct bridge *b)
{
	return b->desc.transport == USB_TRANSPORT_BULK ?
	       ISOCAM_USB_BULK_EP_ADDR : ISOCAM_USB_ISO_EP_ADDR;
}

/* The video endpoint exists: iso in alts >= 1, bulk once configured. */
static bool video_ep_present(const struct bridge *b)
{
	return b->desc.transport == USB_TRANSPORT_BULK ? b->config != 0 :
	       b->alt != 0;
}

struct video_stream *bridge_video(struct bridge *b)
{
	return b->video;
}

struct ic1280 *bridge_sensor(struct bridge *b)
{
	return b->sensor;
}

const struct usb_descriptors *bridge_descriptors(const struct bridge *b)
{
	return &b->desc;
}

static size_t in_len(const struct usb_setup *s, size_t len)
{
	return s->wLength < len ? s->wLength : len;
}

/*
 * Bulk: the pipe restarts (the frame in progress is lost) and runs while
 * configured, one payload transfer at most the contract's maximum.
 */
static void restart_bulk_pipe(struct bridge *b)
{
	video_stream_set_packet_size(b->video, 0);
	video_stream_set_packet_size(b->video, bridge_bulk_payload_max(b));
}

static void set_alt(struct bridge *b, uint8_t alt)
{
	b->alt = alt;
	b->ep_halted = false;
	if (b->desc.transport == USB_TRANSPORT_BULK) {
		restart_bulk_pipe(b);
		if (b->verbose)
			emu_log("%s: alt setting %u (bulk, payload transfers of at most %u bytes)",
				b->name, alt, bridge_bulk_payload_max(b));
		return;
	}
	video_stream_set_packet_size(b->video, bridge_packet_bytes(b));
	if (b->verbose)
		emu_log("%s: alt setting %u (%u bytes per microframe)",
			b->name, alt, bridge_packet_bytes(b));
}

static int std_request(struct bridge *b, const struct usb_setup *s,
		       uint8_t *data, size_t len)
{
	uint8_t recip = s->bmRequestType & USB_RECIP_MASK;
	bool in = s->bmRequestType & USB_DIR_IN;
	int n;

	switch (s->bRequest) {
	case USB_REQ_GET_DESCRIPTOR:
		if (!in || recip != USB_RECIP_DEVICE)
			return BRIDGE_STALL;
		n = usb_descriptors_get(&b->desc, (uint8_t)(s->wValue >> 8),
					(uint8_t)s->wValue, s->wIndex, data,
					in_len(s, len));
		return n < 0 ? BRIDGE_STALL : n;
	case USB_REQ_SET_ADDRESS:
		/* vhci answers this itself; accept it if it ever comes */
		return recip == USB_RECIP_DEVICE && !in ? 0 : BRIDGE_STALL;
	case USB_REQ_GET_CONFIGURATION:
		if (!in || recip != USB_RECIP_DEVICE || in_len(s, len) < 1)
			return BRIDGE_STALL;
		data[0] = b->config;
		return 1;
	case USB_REQ_SET_CONFIGURATION:
		if (in || recip != USB_RECIP_DEVICE)
			return BRIDGE_STALL;
		if (s->wValue != 0 && s->wValue != ISOCAM_USB_CONFIG_VALUE)
			return BRIDGE_STALL;
		b->config = (uint8_t)s->wValue;
		set_alt(b, 0);	/* a (re)configured interface starts at alt 0 */
		/* the end of a reset: firmware that hung runs again */
		if (hostile_wedged(b->hostile)) {
			emu_log("%s: hostile: configured again (a reset): vendor requests answered again",
				b->name);
		}
		hostile_note_configured(b->hostile);
		return 0;
	case USB_REQ_GET_INTERFACE:
		if (!in || recip != USB_RECIP_INTERFACE || !b->config ||
		    s->wIndex != ISOCAM_USB_IFACE_NUM || in_len(s, len) < 1)
			return BRIDGE_STALL;
		data[0] = b->alt;
		return 1;
	case USB_REQ_SET_INTERFACE:
		if (in || recip != USB_RECIP_INTERFACE || !b->config ||
		    s->wIndex != ISOCAM_USB_IFACE_NUM ||
		    s->wValue >= b->desc.num_alts)
			return BRIDGE_STALL;
		set_alt(b, (uint8_t)s->wValue);
		return 0;
	case USB_REQ_GET_STATUS:
		if (!in || in_len(s, len) < 2)
			return BRIDGE_STALL;
		data[0] = 0;
		data[1] = 0;
		if (recip == USB_RECIP_ENDPOINT) {
			if ((s->wIndex & 0xff) == video_ep_addr(b) &&
			    video_ep_present(b))
				data[0] = b->ep_halted;
			else if ((s->wIndex & 0x7f) != 0)
				return BRIDGE_STALL;
		} else if (recip == USB_RECIP_INTERFACE &&
			   s->wIndex != ISOCAM_USB_IFACE_NUM) {
			return BRIDGE_STALL;
		}
		return 2;
	case USB_REQ_CLEAR_FEATURE:
	case USB_REQ_SET_FEATURE:
		if (in)
			return BRIDGE_STALL;
		if (recip == USB_RECIP_ENDPOINT &&
		    s->wValue == USB_ENDPOINT_HALT) {
			if ((s->wIndex & 0x7f) == 0)
				return 0;
			if ((s->wIndex & 0xff) != video_ep_addr(b) ||
			    !video_ep_present(b))
				return BRIDGE_STALL;
			b->ep_halted = s->bRequest == USB_REQ_SET_FEATURE;
			if (b->verbose)
				emu_log("%s: endpoint 0x%02x halt %s",
					b->name, video_ep_addr(b),
					b->ep_halted ? "set" : "cleared");
			/* a UVC host's stream off on a bulk camera */
			if (!b->ep_halted &&
			    b->desc.transport == USB_TRANSPORT_BULK)
				restart_bulk_pipe(b);
			return 0;
		}
		if (recip == USB_RECIP_DEVICE &&
		    s->wValue == USB_DEVICE_REMOTE_WAKEUP)
			return 0;	/* we never wake the host; harmless */
		return BRIDGE_STALL;
	default:
		return BRIDGE_STALL;
	}
}

static void log_i2c_write(struct bridge *b, uint16_t addr, const uint8_t *buf,
			  size_t len, uint8_t res)
{
	char when[32];
	uint32_t frame;
	size_t i;

	if (res != ISOCAM_I2C_OK) {
		emu_log("%s: i2c 0x%02x write of %zu bytes NAKed (result %u)",
			b->name, addr, len, res);
		return;
	}
	if (len < 3) {
		emu_log("%s: i2c 0x%02x write %zu bytes%s", b->name, addr, len,
			len == 2 ? " (register pointer)" : "");
		return;
	}
	/*
	 * While streaming, say from which frame the write shows, so a test
	 * can measure how soon a control change reaches the picture.
	 */
	if (video_stream_next_frame(b->video, &frame))
		snprintf(when, sizeof(when), " (next frame %u)", frame);
	else
		when[0] = 0;
	/* the ic1280 convention: 16-bit big-endian pointer, auto increment */
	for (i = 2; i < len; i++)
		emu_log("%s: i2c 0x%02x write reg 0x%04x = 0x%02x%s", b->name,
			addr, (unsigned int)(((buf[0] << 8 | buf[1]) + i - 2) & 0xffff),
			buf[i], when);
}

/* BRIDGE_READ and BRIDGE_WRITE: a byte of the bridge's registers. */
static int bridge_register(struct bridge *b, const struct usb_setup *s,
			   bool in, uint8_t *data, size_t len)
{
	uint8_t v;

	if (s->wLength != 1 || len < 1 ||
	    in != (s->bRequest == ISOCAM_REQ_BRIDGE_READ))
		return BRIDGE_STALL;
	if (in) {
		switch (s->wValue) {
		case ISOCAM_BREG_CAPS:
			data[0] = ISOCAM_BCAP_JPEG;
			return 1;
		case ISOCAM_BREG_CODEC:
			data[0] = b->codec;
			return 1;
		case ISOCAM_BREG_JPEG_QUALITY:
			data[0] = b->jpeg_quality;
			return 1;
		default:
			return BRIDGE_STALL;
		}
	}
	v = data[0];
	switch (s->wValue) {
	case ISOCAM_BREG_CODEC:
		if (v != ISOCAM_CODEC_RAW && v != ISOCAM_CODEC_JPEG)
			return BRIDGE_STALL;
		b->codec = v;
		break;
	case ISOCAM_BREG_JPEG_QUALITY:
		if (v < ISOCAM_JPEG_QUALITY_MIN || v > ISOCAM_JPEG_QUALITY_MAX)
			return BRIDGE_STALL;
		b->jpeg_quality = v;
		break;
	default:
		return BRIDGE_STALL;	/* unknown, or CAPS (read only) */
	}
	if (b->verbose)
		emu_log("%s: bridge register 0x%02x = %u", b->name, s->wValue, v);
	video_stream_set_codec(b->video, b->codec, b->jpeg_quality);
	return 1;
}

static int vendor_request(struct bridge *b, const struct usb_setup *s,
			  uint8_t *data, size_t len)
{
	bool in = s->bmRequestType & USB_DIR_IN;
	struct isocam_bridge_status st;
	struct video_stream_stats vst;
	uint8_t res;
	size_t n;

	if ((s->bmRequestType & USB_RECIP_MASK) != USB_RECIP_INTERFACE ||
	    s->wIndex != ISOCAM_USB_IFACE_NUM) {
		b->last_i2c_result = ISOCAM_I2C_BAD_REQUEST;
		return BRIDGE_STALL;
	}
	if (fault_hit(b->fault, FAULT_CTRL_STALL)) {
		emu_log("%s: fault: stalling vendor request 0x%02x", b->name,
			s->bRequest);
		return BRIDGE_STALL;
	}
	if (hostile_on(b->hostile, HOSTILE_CTRL_STALL)) {
		if (b->verbose)
			emu_log("%s: hostile: stalling vendor request 0x%02x",
				b->name, s->bRequest);
		return BRIDGE_STALL;
	}

	switch (s->bRequest) {
	case ISOCAM_REQ_I2C_WRITE:
	case ISOCAM_REQ_I2C_READ:
		if (in != (s->bRequest == ISOCAM_REQ_I2C_READ) ||
		    s->wValue > ISOCAM_I2C_ADDR_MASK ||
		    s->wLength > ISOCAM_I2C_MAX_XFER ||
		    (in && s->wLength == 0) || (!in && len < s->wLength)) {
			b->last_i2c_result = ISOCAM_I2C_BAD_REQUEST;
			if (b->verbose)
				emu_log("%s: malformed i2c request 0x%02x wValue 0x%04x wLength %u",
					b->name, s->bRequest, s->wValue,
					s->wLength);
			return BRIDGE_STALL;
		}
		b->i2c_transfers++;
		n = s->wLength;
		if (fault_hit(b->fault, FAULT_I2C_NAK)) {
			res = ISOCAM_I2C_NAK_DATA;
			emu_log("%s: fault: NAK on i2c 0x%02x %s", b->name,
				s->wValue, in ? "read" : "write");
		} else if (in) {
			res = i2c_bus_read(&b->bus, s->wValue, data,
					   n < len ? n : len);
			if (res == ISOCAM_I2C_OK)
				hostile_i2c_read(b->hostile, data,
						 n < len ? n : len);
		} else if (hostile_i2c_nak(b->hostile, s->wValue, data, n)) {
			res = ISOCAM_I2C_NAK_DATA;
			emu_log("%s: hostile: NAK on the i2c 0x%02x write that starts streaming",
				b->name, s->wValue);
		} else {
			res = i2c_bus_write(&b->bus, s->wValue, data, n);
			if (b->verbose)
				log_i2c_write(b, s->wValue, data, n, res);
		}
		b->last_i2c_result = res;
		if (res != ISOCAM_I2C_OK) {
			if (b->verbose && in)
				emu_log("%s: i2c 0x%02x read of %zu bytes NAKed (result %u)",
					b->name, s->wValue, n, res);
			return BRIDGE_STALL;
		}
		return in ? (int)(n < len ? n : len) : (int)n;
	case ISOCAM_REQ_GET_STATUS:
		if (!in) {
			b->last_i2c_result = ISOCAM_I2C_BAD_REQUEST;
			return BRIDGE_STALL;
		}
		video_stream_get_stats(b->video, &vst);
		memset(&st, 0, sizeof(st));
		st.fw_major = ISOCAM_BRIDGE_FW_MAJOR;
		st.fw_minor = ISOCAM_BRIDGE_FW_MINOR;
		st.last_i2c_result = b->last_i2c_result;
		st.alt_setting = b->alt;
		/* the struct's __le32 fields: store little endian explicitly */
		{
			uint8_t *p = (uint8_t *)&st;
			uint32_t v[2] = { (uint32_t)vst.frames_sent,
					  b->i2c_transfers };
			int i, k;

			for (k = 0; k < 2; k++)
				for (i = 0; i < 4; i++)
					p[4 + 4 * k + i] = (uint8_t)(v[k] >> (8 * i));
		}
		n = in_len(s, len);
		if (n > sizeof(st))
			n = sizeof(st);
		memcpy(data, &st, n);
		return (int)n;
	case ISOCAM_REQ_BRIDGE_READ:
	case ISOCAM_REQ_BRIDGE_WRITE:
		return bridge_register(b, s, in, data, len);
	default:
		b->last_i2c_result = ISOCAM_I2C_BAD_REQUEST;
		return BRIDGE_STALL;
	}
}

int bridge_control(struct bridge *b, const struct usb_setup *s,
		   uint8_t *data, size_t len)
{
	int ret;

	switch (s->bmRequestType & USB_TYPE_MASK) {
	case USB_TYPE_STANDARD:
		ret = std_request(b, s, data, len);
		break;
	case USB_TYPE_VENDOR:
		ret = vendor_request(b, s, data, len);
		ret = hostile_ctrl_reply(b->hostile, s->bmRequestType,
					 s->wLength, data, len, ret);
		break;
	default:
		ret = BRIDGE_STALL;
		break;
	}
	if (ret == BRIDGE_STALL && b->verbose)
		emu_log("%s: STALL bmRequestType 0x%02x bRequest 0x%02x wValue 0x%04x wIndex 0x%04x wLength %u",
			b->name, s->bmRequestType, s->bRequest, s->wValue,
			s->wIndex, s->wLength);
	return ret;
}
