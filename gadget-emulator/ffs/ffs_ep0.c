// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * FunctionFS ep0 (ffs_ep0.h): the blobs, and SETUPs handed to the bridge.
 */
#include "ffs_ep0.h"

#include <endian.h>
#include <errno.h>
#include <linux/usb/ch9.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isocam/usb.h>

#include "bridge.h"
#include "grow.h"
#include "hostile.h"
#include "log.h"

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/*
 * One speed's set: the interface and endpoint descriptors as they follow
 * the configuration header in d->config, the endpoint's packets maxp.
 */
static uint8_t *put_set(uint8_t *p, const struct usb_descriptors *d,
			uint16_t maxp)
{
	const uint8_t *src = d->config + USB_DESC_CONFIG_HDR_LEN;
	size_t len = USB_DESC_IFACE_LEN + USB_DESC_EP_LEN;

	memcpy(p, src, len);
	/* f_fs numbers strings from our blob: the interface's is its first */
	p[8] = 1;
	p[USB_DESC_IFACE_LEN + 4] = (uint8_t)maxp;
	p[USB_DESC_IFACE_LEN + 5] = (uint8_t)(maxp >> 8);
	return p + len;
}

int ffs_ep0_descriptors(const struct usb_descriptors *d,
			uint8_t out[FFS_EP0_DESC_LEN])
{
	const uint8_t *ep = d->config + USB_DESC_CONFIG_HDR_LEN +
			    USB_DESC_IFACE_LEN;
	uint8_t *p = out;

	/* the bulk layout, as usb_descriptors.c builds it, or nothing */
	if (d->transport != USB_TRANSPORT_BULK ||
	    d->config_len != USB_DESC_CONFIG_BULK_LEN ||
	    ep[1] != USB_DT_ENDPOINT ||
	    (ep[3] & USB_ENDPOINT_XFERTYPE_MASK) != USB_ENDPOINT_XFER_BULK)
		return -1;
	put_le32(p, FUNCTIONFS_DESCRIPTORS_MAGIC_V2);
	put_le32(p + 4, FFS_EP0_DESC_LEN);
	put_le32(p + 8, FFS_EP0_FLAGS);
	put_le32(p + 12, FFS_EP0_DESCS_PER_SPEED);	/* fs_count */
	put_le32(p + 16, FFS_EP0_DESCS_PER_SPEED);	/* hs_count */
	p = put_set(p + 20, d, ISOCAM_USB_BULK_MAXP_FS);
	p = put_set(p, d, ISOCAM_USB_BULK_MAXP);
	return (int)(p - out);
}

int ffs_ep0_strings(uint8_t out[FFS_EP0_STRINGS_LEN])
{
	put_le32(out, FUNCTIONFS_STRINGS_MAGIC);
	put_le32(out + 4, FFS_EP0_STRINGS_LEN);
	put_le32(out + 8, 1);		/* str_count */
	put_le32(out + 12, 1);		/* lang_count */
	out[16] = USB_STR_LANGID & 0xff;
	out[17] = USB_STR_LANGID >> 8;
	memcpy(out + 18, USB_STR_INTERFACE_TEXT, sizeof(USB_STR_INTERFACE_TEXT));
	return FFS_EP0_STRINGS_LEN;
}

const char *ffs_ep0_event_name(unsigned int type)
{
	static const char *const names[] = {
		[FUNCTIONFS_BIND] = "BIND",
		[FUNCTIONFS_UNBIND] = "UNBIND",
		[FUNCTIONFS_ENABLE] = "ENABLE",
		[FUNCTIONFS_DISABLE] = "DISABLE",
		[FUNCTIONFS_SETUP] = "SETUP",
		[FUNCTIONFS_SUSPEND] = "SUSPEND",
		[FUNCTIONFS_RESUME] = "RESUME",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ?
	       names[type] : "unknown";
}

void ffs_ep0_release(struct ffs_ep0 *e)
{
	free(e->buf);
	e->buf = NULL;
	e->cap = 0;
}

static int call_bridge(struct ffs_ep0 *e, const struct usb_setup *s,
		       size_t len)
{
	int ret;

	if (e->lock)
		pthread_mutex_lock(e->lock);
	ret = bridge_control(e->bridge, s, e->buf, len);
	if (e->lock)
		pthread_mutex_unlock(e->lock);
	return ret;
}

/*
 * The end of a SETUP's exchange on ep0 failed. EL2HLT is f_fs saying it
 * STALLed as asked; EIDRM, that the host gave up on the request (a newer
 * SETUP or a reset came first): neither is an error.
 */
static enum ffs_ep0_result io_failed(struct ffs_ep0 *e, const char *what,
				     const struct usb_setup *s)
{
	if (errno == EIDRM) {
		if (e->verbose)
			emu_log("%s: ffs: SETUP 0x%02x 0x%02x cancelled by the host before its %s",
				e->name, s->bmRequestType, s->bRequest, what);
		return FFS_EP0_CANCELLED;
	}
	emu_log("%s: ffs: ep0 %s for SETUP bmRequestType 0x%02x bRequest 0x%02x failed: %s",
		e->name, what, s->bmRequestType, s->bRequest, strerror(errno));
	/* the UDC went away under us: the next event says so */
	return errno == ESHUTDOWN || errno == ENODEV || errno == EINTR ?
	       FFS_EP0_CANCELLED : FFS_EP0_ERROR;
}

enum ffs_ep0_result ffs_ep0_setup(struct ffs_ep0 *e, int fd,
				  const struct usb_ctrlrequest *req)
{
	struct usb_setup s = {
		.bmRequestType = req->bRequestType,
		.bRequest = req->bRequest,
		.wValue = le16toh(req->wValue),
		.wIndex = le16toh(req->wIndex),
		.wLength = le16toh(req->wLength),
	};
	bool in = s.bmRequestType & USB_DIR_IN;
	uint8_t dummy = 0;
	ssize_t n = 0;
	int ret;

	e->setups++;
	/* room past wLength for a hostile ctrl-long reply (f_fs cuts it) */
	if (emu_grow(&e->buf, &e->cap, (size_t)s.wLength +
		     HOSTILE_CTRL_LONG_EXTRA) < 0) {
		emu_log("%s: ffs: out of memory for a control transfer", e->name);
		return FFS_EP0_ERROR;
	}
	if (in) {
		ret = call_bridge(e, &s, (size_t)s.wLength +
				  HOSTILE_CTRL_LONG_EXTRA);
		if (ret >= 0) {
			if (write(fd, e->buf, (size_t)ret) < 0)
				return io_failed(e, "IN data", &s);
			return FFS_EP0_ANSWERED;
		}
		e->stalls++;
		/* the opposite direction: f_fs STALLs and fails with EL2HLT */
		if (read(fd, &dummy, 0) < 0 && errno != EL2HLT)
			return io_failed(e, "STALL", &s);
		return FFS_EP0_STALLED;
	}
	/*
	 * OUT with data: f_fs completes the status stage as soon as the data
	 * is read, so a request the bridge refuses only for what its data
	 * says can no longer be STALLed (a limit of FunctionFS, not of the
	 * camera). The bridge has recorded why (GET_STATUS).
	 */
	if (s.wLength) {
		n = read(fd, e->buf, s.wLength);
		if (n < 0)
			return io_failed(e, "OUT data", &s);
	}
	ret = call_bridge(e, &s, (size_t)n);
	if (s.wLength) {
		if (ret >= 0)
			return FFS_EP0_ANSWERED;
		e->late_stalls++;
		emu_log("%s: ffs: bridge refused OUT request 0x%02x after its data stage; FunctionFS cannot STALL it any more, the host sees it acknowledged",
			e->name, s.bRequest);
		return FFS_EP0_LATE_STALL;
	}
	if (ret >= 0) {
		/* no data: read() of nothing is the status stage */
		if (read(fd, &dummy, 0) < 0)
			return io_failed(e, "status stage", &s);
		return FFS_EP0_ANSWERED;
	}
	e->stalls++;
	if (write(fd, &dummy, 0) < 0 && errno != EL2HLT)
		return io_failed(e, "STALL", &s);
	return FFS_EP0_STALLED;
}

enum ffs_ep0_result ffs_ep0_event(struct ffs_ep0 *e, int fd)
{
	struct usb_functionfs_event ev;
	ssize_t n = read(fd, &ev, sizeof(ev));

	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return FFS_EP0_NONE;
		/* a SETUP superseded by a newer event; that read cleared it */
		if (errno == EIDRM)
			return FFS_EP0_CANCELLED;
		emu_log("%s: ffs: reading ep0 events failed: %s", e->name,
			strerror(errno));
		return FFS_EP0_ERROR;
	}
	if (n != (ssize_t)sizeof(ev)) {
		emu_log("%s: ffs: ep0 gave %zd bytes, not a %zu-byte event",
			e->name, n, sizeof(ev));
		return FFS_EP0_ERROR;
	}
	if (e->verbose && ev.type != FUNCTIONFS_SETUP)
		emu_log("%s: ffs: %s", e->name, ffs_ep0_event_name(ev.type));
	switch (ev.type) {
	case FUNCTIONFS_BIND:
		return FFS_EP0_BIND;
	case FUNCTIONFS_UNBIND:
		return FFS_EP0_UNBIND;
	case FUNCTIONFS_ENABLE:
		return FFS_EP0_ENABLE;
	case FUNCTIONFS_DISABLE:
		return FFS_EP0_DISABLE;
	case FUNCTIONFS_SUSPEND:
		return FFS_EP0_SUSPEND;
	case FUNCTIONFS_RESUME:
		return FFS_EP0_RESUME;
	case FUNCTIONFS_SETUP:
		return ffs_ep0_setup(e, fd, &ev.u.setup);
	default:
		emu_log("%s: ffs: unknown ep0 event %u ignored", e->name,
			ev.type);
		return FFS_EP0_NONE;
	}
}
