/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The USB/IP wire protocol (Documentation/usb/usbip_protocol.rst) as pure
 * functions over byte buffers: no sockets, no allocation. Everything on
 * the wire is big endian. Decoders validate every length and count and
 * return an error for malformed input; they never read past the buffer.
 */
#ifndef ISOCAM_EMU_USBIP_PROTO_H
#define ISOCAM_EMU_USBIP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USBIP_VERSION			0x0111
/* one microframe of bus time (high speed) */
#define USBIP_MICROFRAME_NS		125000ull

/* Connection setup ("op") messages. */
#define USBIP_OP_REQ_DEVLIST		0x8005
#define USBIP_OP_REP_DEVLIST		0x0005
#define USBIP_OP_REQ_IMPORT		0x8003
#define USBIP_OP_REP_IMPORT		0x0003
/*
 * op_common.status, as usbipd sends it (tools/usb/usbip/libsrc/
 * usbip_common.h ST_*); usbip attach prints the matching text, e.g.
 * "Attach Request for 1-9 failed - Device not found".
 */
#define USBIP_OP_STATUS_OK		0	/* ST_OK */
#define USBIP_OP_STATUS_ERROR		1	/* ST_NA: "Request Failed" */
#define USBIP_OP_STATUS_DEV_BUSY	2	/* "Device busy (exported)" */
#define USBIP_OP_STATUS_DEV_ERR		3	/* "Device in error state" */
#define USBIP_OP_STATUS_NODEV		4	/* "Device not found" */

#define USBIP_OP_COMMON_LEN		8
#define USBIP_BUSID_LEN			32
#define USBIP_PATH_LEN			256
#define USBIP_DEVICE_LEN		312	/* struct usbip_usb_device */
#define USBIP_INTERFACE_LEN		4
#define USBIP_IMPORT_REQ_LEN		(USBIP_OP_COMMON_LEN + USBIP_BUSID_LEN)
#define USBIP_IMPORT_REP_LEN		(USBIP_OP_COMMON_LEN + USBIP_DEVICE_LEN)

/* URB traffic after a successful import. */
#define USBIP_CMD_SUBMIT		1
#define USBIP_CMD_UNLINK		2
#define USBIP_RET_SUBMIT		3
#define USBIP_RET_UNLINK		4
#define USBIP_DIR_OUT			0
#define USBIP_DIR_IN			1
#define USBIP_HEADER_LEN		48
#define USBIP_ISO_DESC_LEN		16

/* enum usb_device_speed: what vhci expects in devlist/import. */
#define USBIP_SPEED_HIGH		3

/*
 * Limits the decoder enforces. The kernel's stub refuses more than 1024
 * iso packets per URB; the transfer limit is far above anything a camera
 * URB needs (1024 packets x 3072 bytes) and keeps a hostile length from
 * making us allocate gigabytes.
 */
#define USBIP_MAX_ISO_PACKETS		1024
#define USBIP_MAX_TRANSFER		(4u << 20)
#define USBIP_MAX_EP			15

struct usbip_op_common {
	uint16_t version;
	uint16_t code;
	uint32_t status;
};

struct usbip_usb_device {
	char path[USBIP_PATH_LEN];
	char busid[USBIP_BUSID_LEN];
	uint32_t busnum, devnum, speed;
	uint16_t idVendor, idProduct, bcdDevice;
	uint8_t bDeviceClass, bDeviceSubClass, bDeviceProtocol;
	uint8_t bConfigurationValue, bNumConfigurations, bNumInterfaces;
};

struct usbip_usb_interface {
	uint8_t bInterfaceClass, bInterfaceSubClass, bInterfaceProtocol;
};

struct usbip_header {
	uint32_t command;
	uint32_t seqnum;
	uint32_t devid;
	uint32_t direction;
	uint32_t ep;
	union {
		struct {
			uint32_t transfer_flags;
			int32_t transfer_buffer_length;
			int32_t start_frame;
			int32_t number_of_packets;
			int32_t interval;
			uint8_t setup[8];
		} cmd_submit;
		struct {
			int32_t status;
			int32_t actual_length;
			int32_t start_frame;
			int32_t number_of_packets;
			int32_t error_count;
		} ret_submit;
		struct {
			uint32_t seqnum;
		} cmd_unlink;
		struct {
			int32_t status;
		} ret_unlink;
	} u;
};

struct usbip_iso_desc {
	uint32_t offset;
	uint32_t length;
	uint32_t actual_length;
	int32_t status;
};

/* --- op messages --- */
void usbip_op_common_encode(uint8_t out[USBIP_OP_COMMON_LEN],
			    const struct usbip_op_common *op);
/* -1 on a wrong version. */
int usbip_op_common_decode(const uint8_t *buf, size_t len,
			   struct usbip_op_common *op);

void usbip_device_encode(uint8_t out[USBIP_DEVICE_LEN],
			 const struct usbip_usb_device *d);
/* -1 when path or busid are not NUL terminated. */
int usbip_device_decode(const uint8_t *buf, size_t len,
			struct usbip_usb_device *d);

/*
 * OP_REP_DEVLIST for n devices, each followed by its interfaces
 * (ifaces[i] has devs[i].bNumInterfaces entries). Returns the bytes
 * written, or -1 when out is too small.
 */
long usbip_devlist_reply_encode(uint8_t *out, size_t outlen,
				const struct usbip_usb_device *devs,
				const struct usbip_usb_interface *const *ifaces,
				unsigned int n);
size_t usbip_devlist_reply_len(const struct usbip_usb_device *devs,
			       unsigned int n);

/* OP_REQ_IMPORT: the busid, checked to be NUL terminated. */
void usbip_import_req_encode(uint8_t out[USBIP_IMPORT_REQ_LEN],
			     const char *busid);
int usbip_import_req_decode(const uint8_t *buf, size_t len,
			    char busid[USBIP_BUSID_LEN]);

/*
 * OP_REP_IMPORT: d is NULL for a refusal (status 1, 8 bytes). Returns
 * the bytes written.
 */
size_t usbip_import_rep_encode(uint8_t out[USBIP_IMPORT_REP_LEN],
			       const struct usbip_usb_device *d);
/* A refusal with status (one of USBIP_OP_STATUS_*, not OK). */
size_t usbip_import_rep_refuse(uint8_t out[USBIP_IMPORT_REP_LEN],
			       uint32_t status);

/* --- URB traffic --- */
void usbip_header_encode(uint8_t out[USBIP_HEADER_LEN],
			 const struct usbip_header *h);
/*
 * Decodes and checks the command-independent fields: command 1..4,
 * direction 0/1, ep 0..15. -1 otherwise.
 */
int usbip_header_decode(const uint8_t *buf, size_t len,
			struct usbip_header *h);

void usbip_iso_desc_encode(uint8_t out[USBIP_ISO_DESC_LEN],
			   const struct usbip_iso_desc *d);
void usbip_iso_desc_decode(const uint8_t in[USBIP_ISO_DESC_LEN],
			   struct usbip_iso_desc *d);

/*
 * A whole client command as it arrived: the header, the OUT data (if
 * any) and the raw iso packet descriptors, all pointing into the input
 * buffer.
 */
struct usbip_cmd {
	struct usbip_header hdr;
	bool iso;			/* the endpoint is isochronous */
	const uint8_t *data;		/* OUT data, data_len bytes */
	uint32_t data_len;
	const uint8_t *iso_descs;	/* num_iso * USBIP_ISO_DESC_LEN bytes */
	uint32_t num_iso;
};

#define USBIP_PARSE_NEED_MORE	0
#define USBIP_PARSE_ERROR	(-1)

/*
 * Parse one client command (CMD_SUBMIT or CMD_UNLINK) from the start of
 * buf. iso_ep_mask bit n says that endpoint n (both directions) is
 * isochronous, which decides whether descriptors follow a CMD_SUBMIT
 * (vhci sends them for every iso URB, and never otherwise).
 *
 * Returns the bytes the command occupies (> 0) when buf holds all of it,
 * USBIP_PARSE_NEED_MORE when it holds only a valid prefix (*need, if not
 * NULL, says how many bytes in total to wait for once the header is in),
 * or USBIP_PARSE_ERROR for malformed input; err (may be NULL) then gets
 * a one-line reason.
 *
 * Checks: known command, sane direction/ep; for CMD_SUBMIT a transfer
 * length in [0, USBIP_MAX_TRANSFER]; for iso 1..USBIP_MAX_ISO_PACKETS
 * packets, each within the transfer buffer; for non-iso no packets;
 * ep 0 must be control, so it carries a setup packet whose direction
 * matches.
 */
long usbip_parse_cmd(const uint8_t *buf, size_t len, uint32_t iso_ep_mask,
		     struct usbip_cmd *cmd, size_t *need, char *err,
		     size_t errlen);

/* Descriptor i (< cmd->num_iso) of a parsed command. */
void usbip_cmd_iso_desc(const struct usbip_cmd *cmd, uint32_t i,
			struct usbip_iso_desc *d);

/* Fill in a RET_SUBMIT / RET_UNLINK header answering seqnum. */
void usbip_ret_submit_header(struct usbip_header *h, uint32_t seqnum,
			     int32_t status, int32_t actual_length,
			     int32_t number_of_packets);
void usbip_ret_unlink_header(struct usbip_header *h, uint32_t seqnum,
			     int32_t status);

/*
 * Parse one server reply (RET_SUBMIT or RET_UNLINK), as vhci would: for
 * RET_SUBMIT the reply carries in_len bytes of data (the caller knows
 * whether the URB was IN; pass the data length it expects vhci to read,
 * i.e. actual_length for IN and 0 for OUT) and, when iso, exactly
 * number_of_packets descriptors whose actual_lengths add up to
 * actual_length. Used by tests and tools that play the client.
 */
struct usbip_ret {
	struct usbip_header hdr;
	const uint8_t *data;
	uint32_t data_len;
	const uint8_t *iso_descs;
	uint32_t num_iso;
};
long usbip_parse_ret(const uint8_t *buf, size_t len, bool in, bool iso,
		     uint32_t max_packets, struct usbip_ret *ret, char *err,
		     size_t errlen);

#endif /* ISOCAM_EMU_USBIP_PROTO_H */
