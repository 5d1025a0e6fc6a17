/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The camera's control endpoint over FunctionFS (isocam-emu --gadget=ffs):
 * the descriptor and string blobs written to ep0 at start, and the ep0
 * events read back, SETUPs answered by the same bridge the USB/IP
 * session uses (bridge.h). Nothing here touches configfs or the video
 * endpoint: it reads and writes one ep0 file descriptor, so tests can
 * hand it a socketpair.
 *
 * FunctionFS conventions (Linux drivers/usb/gadget/function/f_fs.c):
 * after a SETUP event, an IN request is answered by write() of its data
 * and an OUT request by read() of its data (read() of 0 bytes for a
 * request without data: the status stage); the opposite direction
 * STALLs (f_fs then fails that call with EL2HLT). f_fs has already
 * replaced an interface-recipient request's wIndex with the function's
 * own interface number (ISOCAM_USB_IFACE_NUM here), so the bridge's
 * checks hold whatever number the host gave the interface.
 *
 * The bulk personality only: one interface, alt 0, one bulk IN endpoint.
 */
#ifndef ISOCAM_EMU_FFS_EP0_H
#define ISOCAM_EMU_FFS_EP0_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/usb/functionfs.h>

#include "usb_descriptors.h"

struct bridge;

/*
 * FUNCTIONFS_DESCRIPTORS_MAGIC_V2 flags: full- and high-speed sets, and
 * every control request, not only interface and endpoint ones, so that
 * the bridge answers (and STALLs) whatever reaches the function, as it
 * does over USB/IP. Endpoint addresses are the camera's own (virtual).
 */
#define FFS_EP0_FLAGS	(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC | \
			 FUNCTIONFS_ALL_CTRL_RECIP | FUNCTIONFS_VIRTUAL_ADDR)
/* descriptors per speed: the interface and its bulk endpoint */
#define FFS_EP0_DESCS_PER_SPEED	2
/* the blobs' sizes: header, counts, two sets; header, one language */
#define FFS_EP0_DESC_LEN	(12 + 2 * 4 + \
				 2 * (USB_DESC_IFACE_LEN + USB_DESC_EP_LEN))
#define FFS_EP0_STRINGS_LEN	(16 + 2 + sizeof(USB_STR_INTERFACE_TEXT))
/* The endpoint file f_fs creates for the video endpoint (virtual address). */
#define FFS_EP0_VIDEO_EP_FILE	"ep81"

/*
 * The v2 descriptor blob for d (the bulk layout: usb_descriptors_init()
 * with USB_TRANSPORT_BULK), into out (FFS_EP0_DESC_LEN bytes). The
 * interface and endpoint descriptors are those USB/IP sends in the
 * configuration descriptor; at full speed the endpoint's packets are
 * ISOCAM_USB_BULK_MAXP_FS. Returns the length, or -1 when d is not the
 * bulk layout.
 */
int ffs_ep0_descriptors(const struct usb_descriptors *d,
			uint8_t out[FFS_EP0_DESC_LEN]);

/* The strings blob: the interface's string (en-US), the only one. */
int ffs_ep0_strings(uint8_t out[FFS_EP0_STRINGS_LEN]);

/* What one ep0 event was, for the caller's endpoint and stream logic. */
enum ffs_ep0_result {
	FFS_EP0_ERROR = -1,	/* ep0 failed: logged, stop serving */
	FFS_EP0_NONE,		/* nothing to read (EAGAIN, EINTR) */
	FFS_EP0_BIND,
	FFS_EP0_UNBIND,
	FFS_EP0_ENABLE,
	FFS_EP0_DISABLE,
	FFS_EP0_SUSPEND,
	FFS_EP0_RESUME,
	FFS_EP0_ANSWERED,	/* a SETUP the bridge answered */
	FFS_EP0_STALLED,	/* a SETUP the bridge STALLed */
	FFS_EP0_LATE_STALL,	/* an OUT SETUP the bridge refused after its data */
	FFS_EP0_CANCELLED,	/* a SETUP the host gave up on (EIDRM) */
};

struct ffs_ep0 {
	const char *name;	/* log prefix, "cam0" */
	bool verbose;
	struct bridge *bridge;	/* not owned */
	pthread_mutex_t *lock;	/* held around bridge calls; may be NULL */
	uint8_t *buf;		/* a control transfer's data */
	size_t cap;
	uint64_t setups, stalls, late_stalls;
};

/* Read one event from ep0 (fd) and act on it: answer or STALL a SETUP. */
enum ffs_ep0_result ffs_ep0_event(struct ffs_ep0 *e, int fd);

/* Answer one SETUP on fd (the bridge's reply, its STALL, or the OUT data). */
enum ffs_ep0_result ffs_ep0_setup(struct ffs_ep0 *e, int fd,
				  const struct usb_ctrlrequest *req);

void ffs_ep0_release(struct ffs_ep0 *e);

const char *ffs_ep0_event_name(unsigned int type);

#endif /* ISOCAM_EMU_FFS_EP0_H */
