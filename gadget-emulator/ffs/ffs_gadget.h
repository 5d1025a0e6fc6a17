/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * isocam-emu --gadget=ffs: the camera (its bridge, sensor, video pipe,
 * faults) as a real Linux USB gadget through FunctionFS, with the bulk
 * personality of include/isocam/usb.h, instead of over USB/IP. One
 * camera: a gadget on one UDC.
 *
 * ffs_gadget_start() does everything (configfs_gadget.h: configfs, the
 * gadget's tree, functionfs; ffs_ep0.h: descriptors and strings; the
 * UDC binding) and serves ep0 and the video endpoint on a thread of its
 * own; ffs_gadget_stop() undoes all of it, leaving nothing behind.
 */
#ifndef ISOCAM_EMU_FFS_GADGET_H
#define ISOCAM_EMU_FFS_GADGET_H

#include "camera.h"

struct ffs_gadget_config {
	const char *udc;	/* NULL: the first in /sys/class/udc */
	/* camera 0's; its transport is always bulk */
	struct camera_config camera;
};

struct ffs_gadget;

/*
 * Whether a spec can run as a gadget at all (no root or kernel needed):
 * faults and hostile modes that exist only over USB/IP are refused.
 * -1 with the reason on stderr.
 */
int ffs_gadget_check_config(const struct ffs_gadget_config *cfg);

/* Set up, bind and serve; NULL with the reason logged (all undone). */
struct ffs_gadget *ffs_gadget_start(const struct ffs_gadget_config *cfg);

/*
 * Test seam: the same camera and serving thread on ep0_fd and video_fd,
 * stand-ins for the FunctionFS files (socketpairs), without configfs,
 * functionfs or a UDC (high speed). Takes both descriptors.
 */
struct ffs_gadget *ffs_gadget_serve_fds(const struct ffs_gadget_config *cfg,
					int ep0_fd, int video_fd);

/* Readable once the serving thread ended by itself (an ep0 failure). */
int ffs_gadget_done_fd(const struct ffs_gadget *g);

/* One status line: state, frames sent and dropped, MB/s since the last. */
void ffs_gadget_status(struct ffs_gadget *g);

/* Arm dormant hostile modes (SIGUSR2): 1 if armed now, else 0. */
unsigned int ffs_gadget_arm_hostile(struct ffs_gadget *g);

/*
 * Stop serving, unbind from the UDC (the host sees an unplug) and undo
 * everything. 0, or -1 when serving had ended with an error.
 */
int ffs_gadget_stop(struct ffs_gadget *g);

#endif /* ISOCAM_EMU_FFS_GADGET_H */
