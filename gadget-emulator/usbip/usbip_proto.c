// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * USB/IP codec. Byte-wise big-endian accessors instead of packed structs
 * so nothing depends on host endianness or alignment, and so each read
 * can be checked against the buffer it comes from.
 */
#include "usbip_proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void usbip_op_common_encode(uint8_t out[USBIP_OP_COMMON_LEN],
			    const struct usbip_op_common *op)
{
	put_be16(out, op->version);
	put_be16(out + 2, op->code);
	put_be32(out + 4, op->status);
}

int usbip_op_common_decode(const uint8_t *buf, size_t len,
			   struct usbip_op_common *op)
{
	if (len < USBIP_OP_COMMON_LEN)
		return -1;
	op->version = get_be16(buf);
	op->code = get_be16(buf + 2);
	op->status = get_be32(buf + 4);
	return op->version == USBIP_VERSION ? 0 : -1;
}

/* Copy a string into a fixed, zero-filled field (always NUL terminated). */
static void put_str(uint8_t *out, size_t field, const char *s)
{
	size_t n = strnlen(s, field - 1);

	memset(out, 0, field);
	memcpy(out, s, n);
}

static int get_str(char *dst, const uint8_t *src, size_t field)
{
	if (!memchr(src, 0, field))
		return -1;
	memcpy(dst, src, field);
	return 0;
}

void usbip_device_encode(uint8_t out[USBIP_DEVICE_LEN],
			 const struct usbip_usb_device *d)
{
	uint8_t *p = out;

	put_str(p, USBIP_PATH_LEN, d->path);
	p += USBIP_PATH_LEN;
	put_str(p, USBIP_BUSID_LEN, d->busid);
	p += USBIP_BUSID_LEN;
	put_be32(p, d->busnum);
	put_be32(p + 4, d->devnum);
	put_be32(p + 8, d->speed);
	put_be16(p + 12, d->idVendor);
	put_be16(p + 14, d->idProduct);
	put_be16(p + 16, d->bcdDevice);
	p[18] = d->bDeviceClass;
	p[19] = d->bDeviceSubClass;
	p[20] = d->bDeviceProtocol;
	p[21] = d->bConfigurationValue;
	p[22] = d->bNumConfigurations;
	p[23] = d->bNumInterfaces;
}

int usbip_device_decode(const uint8_t *buf, size_t len,
			struct usbip_usb_device *d)
{
	const uint8_t *p = buf;

	if (len < USBIP_DEVICE_LEN)
		return -1;
	if (get_str(d->path, p, USBIP_PATH_LEN) < 0)
		return -1;
	p += USBIP_PATH_LEN;
	if (get_str(d->busid, p, USBIP_BUSID_LEN) < 0)
		return -1;
	p += USBIP_BUSID_LEN;
	d->busnum = get_be32(p);
	d->devnum = get_be32(p + 4);
	d->speed = get_be32(p + 8);
	d->idVendor = get_be16(p + 12);
	d->idProduct = get_be16(p + 14);
	d->bcdDevice = get_be16(p + 16);
	d->bDeviceClass = p[18];
	d->bDeviceSubClass = p[19];
	d->bDeviceProtocol = p[20];
	d->bConfigurationValue = p[21];
	d->bNumConfigurations = p[22];
	d->bNumInterfaces = p[23];
	return 0;
}

size_t usbip_devlist_reply_len(const struct usbip_usb_device *devs,
			       unsigned int n)
{
	size_t len = USBIP_OP_COMMON_LEN + 4;
	unsigned int i;

	for (i = 0; i < n; i++)
		len += USBIP_DEVICE_LEN +
		       (size_t)devs[i].bNumInterfaces * USBIP_INTERFACE_LEN;
	return len;
}

long usbip_devlist_reply_encode(uint8_t *out, size_t outlen,
				const struct usbip_usb_device *devs,
				const struct usbip_usb_interface *const *ifaces,
				unsigned int n)
{
	struct usbip_op_common op = {
		.version = USBIP_VERSION,
		.code = USBIP_OP_REP_DEVLIST,
		.status = USBIP_OP_STATUS_OK,
	};
	size_t need = usbip_devlist_reply_len(devs, n);
	uint8_t *p = out;
	unsigned int i, j;

	if (outlen < need)
		return -1;
	usbip_op_common_encode(p, &op);
	put_be32(p + USBIP_OP_COMMON_LEN, n);
	p += USBIP_OP_COMMON_LEN + 4;
	for (i = 0; i < n; i++) {
		usbip_device_encode(p, &devs[i]);
		p += USBIP_DEVICE_LEN;
		for (j = 0; j < devs[i].bNumInterfaces; j++) {
			p[0] = ifaces[i][j].bInterfaceClass;
			p[1] = ifaces[i][j].bInterfaceSubClass;
			p[2] = ifaces[i][j].bInterfaceProtocol;
			p[3] = 0;	/* padding */
			p += USBIP_INTERFACE_LEN;
		}
	}
	return (long)need;
}

void usbip_import_req_encode(uint8_t out[USBIP_IMPORT_REQ_LEN],
			     const char *busid)
{
	struct usbip_op_common op = {
		.version = USBIP_VERSION,
		.code = USBIP_OP_REQ_IMPORT,
	};

	usbip_op_common_encode(out, &op);
	put_str(out + USBIP_OP_COMMON_LEN, USBIP_BUSID_LEN, busid);
}

int usbip_import_req_decode(const uint8_t *buf, size_t len,
			    char busid[USBIP_BUSID_LEN])
{
	struct usbip_op_common op;

	if (len < USBIP_IMPORT_REQ_LEN)
		return -1;
	if (usbip_op_common_decode(buf, len, &op) < 0 ||
	    op.code != USBIP_OP_REQ_IMPORT)
		return -1;
	return get_str(busid, buf + USBIP_OP_COMMON_LEN, USBIP_BUSID_LEN);
}

size_t usbip_import_rep_refuse(uint8_t out[USBIP_IMPORT_REP_LEN],
			       uint32_t status)
{
	struct usbip_op_common op = {
		.version = USBIP_VERSION,
		.code = USBIP_OP_REP_IMPORT,
		.status = status,
	};

	/* as usbipd: a refusal is the op header alone, no device */
	usbip_op_common_encode(out, &op);
	return USBIP_OP_COMMON_LEN;
}

size_t usbip_import_rep_encode(uint8_t out[USBIP_IMPORT_REP_LEN],
			       const struct usbip_usb_device *d)
{
	if (!d)
		return usbip_import_rep_refuse(out, USBIP_OP_STATUS_ERROR);
	usbip_import_rep_refuse(out, USBIP_OP_STATUS_OK);
	usbip_device_encode(out + USBIP_OP_COMMON_LEN, d);
	return USBIP_IMPORT_REP_LEN;
}

void usbip_header_encode(uint8_t out[USBIP_HEADER_LEN],
			 const struct usbip_header *h)
{
	uint8_t *p = out + 20;

	memset(out, 0, USBIP_HEADER_LEN);
	put_be32(out, h->command);
	put_be32(out + 4, h->seqnum);
	put_be32(out + 8, h->devid);
	put_be32(out + 12, h->direction);
	put_be32(out + 16, h->ep);
	switch (h->command) {
	case USBIP_CMD_SUBMIT:
		put_be32(p, h->u.cmd_submit.transfer_flags);
		put_be32(p + 4, (uint32_t)h->u.cmd_submit.transfer_buffer_length);
		put_be32(p + 8, (uint32_t)h->u.cmd_submit.start_frame);
		put_be32(p + 12, (uint32_t)h->u.cmd_submit.number_of_packets);
		put_be32(p + 16, (uint32_t)h->u.cmd_submit.interval);
		/* the setup packet is sent as is (little endian fields) */
		memcpy(p + 20, h->u.cmd_submit.setup, 8);
		break;
	case USBIP_RET_SUBMIT:
		put_be32(p, (uint32_t)h->u.ret_submit.status);
		put_be32(p + 4, (uint32_t)h->u.ret_submit.actual_length);
		put_be32(p + 8, (uint32_t)h->u.ret_submit.start_frame);
		put_be32(p + 12, (uint32_t)h->u.ret_submit.number_of_packets);
		put_be32(p + 16, (uint32_t)h->u.ret_submit.error_count);
		break;
	case USBIP_CMD_UNLINK:
		put_be32(p, h->u.cmd_unlink.seqnum);
		break;
	case USBIP_RET_UNLINK:
		put_be32(p, (uint32_t)h->u.ret_unlink.status);
		break;
	default:
		break;
	}
}

int usbip_header_decode(const uint8_t *buf, size_t len,
			struct usbip_header *h)
{
	const uint8_t *p = buf + 20;

	if (len < USBIP_HEADER_LEN)
		return -1;
	memset(h, 0, sizeof(*h));
	h->command = get_be32(buf);
	h->seqnum = get_be32(buf + 4);
	h->devid = get_be32(buf + 8);
	h->direction = get_be32(buf + 12);
	h->ep = get_be32(buf + 16);
	if (h->direction > USBIP_DIR_IN || h->ep > USBIP_MAX_EP)
		return -1;
	switch (h->command) {
	case USBIP_CMD_SUBMIT:
		h->u.cmd_submit.transfer_flags = get_be32(p);
		h->u.cmd_submit.transfer_buffer_length = (int32_t)get_be32(p + 4);
		h->u.cmd_submit.start_frame = (int32_t)get_be32(p + 8);
		h->u.cmd_submit.number_of_packets = (int32_t)get_be32(p + 12);
		h->u.cmd_submit.interval = (int32_t)get_be32(p + 16);
		memcpy(h->u.cmd_submit.setup, p + 20, 8);
		return 0;
	case USBIP_RET_SUBMIT:
		h->u.ret_submit.status = (int32_t)get_be32(p);
		h->u.ret_submit.actual_length = (int32_t)get_be32(p + 4);
		h->u.ret_submit.start_frame = (int32_t)get_be32(p + 8);
		h->u.ret_submit.number_of_packets = (int32_t)get_be32(p + 12);
		h->u.ret_submit.error_count = (int32_t)get_be32(p + 16);
		return 0;
	case USBIP_CMD_UNLINK:
		h->u.cmd_unlink.seqnum = get_be32(p);
		return 0;
	case USBIP_RET_UNLINK:
		h->u.ret_unlink.status = (int32_t)get_be32(p);
		return 0;
	default:
		return -1;
	}
}

void usbip_iso_desc_encode(uint8_t out[USBIP_ISO_DESC_LEN],
			   const struct usbip_iso_desc *d)
{
	put_be32(out, d->offset);
	put_be32(out + 4, d->length);
	put_be32(out + 8, d->actual_length);
	put_be32(out + 12, (uint32_t)d->status);
}

void usbip_iso_desc_decode(const uint8_t in[USBIP_ISO_DESC_LEN],
			   struct usbip_iso_desc *d)
{
	d->offset = get_be32(in);
	d->length = get_be32(in + 4);
	d->actual_length = get_be32(in + 8);
	d->status = (int32_t)get_be32(in + 12);
}

void usbip_cmd_iso_desc(const struct usbip_cmd *cmd, uint32_t i,
			struct usbip_iso_desc *d)
{
	usbip_iso_desc_decode(cmd->iso_descs + (size_t)i * USBIP_ISO_DESC_LEN,
			      d);
}

long usbip_parse_cmd(const uint8_t *buf, size_t len, uint32_t iso_ep_mask,
		     struct usbip_cmd *cmd, size_t *need, char *err,
		     size_t errlen)
{
	struct usbip_header *h = &cmd->hdr;
	size_t total, data_len = 0, iso_len = 0;
	int32_t tbl, np;
	uint32_t i;

	memset(cmd, 0, sizeof(*cmd));
	if (need)
		*need = USBIP_HEADER_LEN;
	if (len < USBIP_HEADER_LEN)
		return USBIP_PARSE_NEED_MORE;
	if (usbip_header_decode(buf, len, h) < 0) {
		fail(err, errlen, "bad header: command %u direction %u ep %u",
		     h->command, h->direction, h->ep);
		return USBIP_PARSE_ERROR;
	}
	if (h->command == USBIP_CMD_UNLINK) {
		if (need)
			*need = USBIP_HEADER_LEN;
		return USBIP_HEADER_LEN;
	}
	if (h->command != USBIP_CMD_SUBMIT) {
		fail(err, errlen, "command %u is a reply, not a request",
		     h->command);
		return USBIP_PARSE_ERROR;
	}

	tbl = h->u.cmd_submit.transfer_buffer_length;
	np = h->u.cmd_submit.number_of_packets;
	cmd->iso = h->ep != 0 && (iso_ep_mask & (1u << h->ep));
	if (tbl < 0 || (uint32_t)tbl > USBIP_MAX_TRANSFER) {
		fail(err, errlen, "transfer_buffer_length %d out of range", tbl);
		return USBIP_PARSE_ERROR;
	}
	if (cmd->iso) {
		if (np < 1 || np > USBIP_MAX_ISO_PACKETS) {
			fail(err, errlen, "iso number_of_packets %d out of range",
			     np);
			return USBIP_PARSE_ERROR;
		}
		iso_len = (size_t)np * USBIP_ISO_DESC_LEN;
	} else if (np != 0 && np != -1) {
		/* vhci sends 0 for non-iso URBs (-1 from other clients) */
		fail(err, errlen, "number_of_packets %d on a non-iso endpoint",
		     np);
		return USBIP_PARSE_ERROR;
	}
	if (h->ep == 0) {
		uint8_t bm = h->u.cmd_submit.setup[0];
		uint16_t wlength = (uint16_t)(h->u.cmd_submit.setup[6] |
					      h->u.cmd_submit.setup[7] << 8);

		/*
		 * usbcore sends a zero-length request on the OUT pipe
		 * whatever bmRequestType says (there is no data stage).
		 */
		if (wlength && ((bm & 0x80) != 0) !=
		    (h->direction == USBIP_DIR_IN)) {
			fail(err, errlen,
			     "control direction %u disagrees with bmRequestType 0x%02x",
			     h->direction, bm);
			return USBIP_PARSE_ERROR;
		}
		if ((uint32_t)tbl < wlength) {
			fail(err, errlen,
			     "control buffer %d shorter than wLength %u",
			     tbl, wlength);
			return USBIP_PARSE_ERROR;
		}
	}
	if (h->direction == USBIP_DIR_OUT)
		data_len = (size_t)tbl;

	total = USBIP_HEADER_LEN + data_len + iso_len;
	if (need)
		*need = total;
	if (len < total)
		return USBIP_PARSE_NEED_MORE;

	cmd->data = buf + USBIP_HEADER_LEN;
	cmd->data_len = (uint32_t)data_len;
	cmd->iso_descs = iso_len ? buf + USBIP_HEADER_LEN + data_len : NULL;
	cmd->num_iso = cmd->iso ? (uint32_t)np : 0;
	for (i = 0; i < cmd->num_iso; i++) {
		struct usbip_iso_desc d;

		usbip_cmd_iso_desc(cmd, i, &d);
		if (d.offset > (uint32_t)tbl || d.length > (uint32_t)tbl - d.offset) {
			fail(err, errlen,
			     "iso packet %u (offset %u length %u) outside the %d-byte buffer",
			     i, d.offset, d.length, tbl);
			return USBIP_PARSE_ERROR;
		}
	}
	return (long)total;
}

void usbip_ret_submit_header(struct usbip_header *h, uint32_t seqnum,
			     int32_t status, int32_t actual_length,
			     int32_t number_of_packets)
{
	memset(h, 0, sizeof(*h));
	h->command = USBIP_RET_SUBMIT;
	h->seqnum = seqnum;
	h->u.ret_submit.status = status;
	h->u.ret_submit.actual_length = actual_length;
	h->u.ret_submit.number_of_packets = number_of_packets;
}

void usbip_ret_unlink_header(struct usbip_header *h, uint32_t seqnum,
			     int32_t status)
{
	memset(h, 0, sizeof(*h));
	h->command = USBIP_RET_UNLINK;
	h->seqnum = seqnum;
	h->u.ret_unlink.status = status;
}

long usbip_parse_ret(const uint8_t *buf, size_t len, bool in, bool iso,
		     uint32_t max_packets, struct usbip_ret *ret, char *err,
		     size_t errlen)
{
	struct usbip_header *h = &ret->hdr;
	size_t data_len = 0, iso_len = 0, total;
	uint64_t sum = 0;
	int32_t al, np;
	uint32_t i;

	memset(ret, 0, sizeof(*ret));
	if (len < USBIP_HEADER_LEN)
		return USBIP_PARSE_NEED_MORE;
	if (usbip_header_decode(buf, len, h) < 0) {
		fail(err, errlen, "bad header");
		return USBIP_PARSE_ERROR;
	}
	if (h->command == USBIP_RET_UNLINK)
		return USBIP_HEADER_LEN;
	if (h->command != USBIP_RET_SUBMIT) {
		fail(err, errlen, "command %u is not a reply", h->command);
		return USBIP_PARSE_ERROR;
	}
	al = h->u.ret_submit.actual_length;
	np = h->u.ret_submit.number_of_packets;
	if (al < 0 || (uint32_t)al > USBIP_MAX_TRANSFER) {
		fail(err, errlen, "actual_length %d out of range", al);
		return USBIP_PARSE_ERROR;
	}
	if (in)
		data_len = (size_t)al;
	if (iso) {
		if (np < 0 || (uint32_t)np > max_packets) {
			fail(err, errlen, "number_of_packets %d above the %u sent",
			     np, max_packets);
			return USBIP_PARSE_ERROR;
		}
		iso_len = (size_t)np * USBIP_ISO_DESC_LEN;
	}
	total = USBIP_HEADER_LEN + data_len + iso_len;
	if (len < total)
		return USBIP_PARSE_NEED_MORE;
	ret->data = buf + USBIP_HEADER_LEN;
	ret->data_len = (uint32_t)data_len;
	ret->iso_descs = iso_len ? buf + USBIP_HEADER_LEN + data_len : NULL;
	ret->num_iso = iso ? (uint32_t)np : 0;
	for (i = 0; i < ret->num_iso; i++) {
		struct usbip_iso_desc d;

		usbip_iso_desc_decode(ret->iso_descs + (size_t)i * USBIP_ISO_DESC_LEN,
				      &d);
		sum += d.actual_length;
	}
	if (iso && in && sum != (uint64_t)al) {
		fail(err, errlen,
		     "iso actual_lengths add up to %llu, header says %d",
		     (unsigned long long)sum, al);
		return USBIP_PARSE_ERROR;
	}
	return (long)total;
}
