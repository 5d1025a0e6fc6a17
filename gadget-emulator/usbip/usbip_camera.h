/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One emulated camera (camera.h) as the USB/IP server sees it: its bus id,
 * who has imported it, and how late that host's URBs came.
 */
#ifndef ISOCAM_EMU_USBIP_CAMERA_H
#define ISOCAM_EMU_USBIP_CAMERA_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "camera.h"
#include "usbip_proto.h"

struct usbip_camera {
	struct camera camera;		/* name, serial, bridge, faults */
	char busid[USBIP_BUSID_LEN];	/* "1-1" for camera 0 */

	/*
	 * The session thread and the status reporter both use the bridge
	 * under this; the hostile modes' arming is atomic (hostile.h).
	 */
	pthread_mutex_t lock;
	bool in_use;			/* imported by a client */
	bool powered_before;		/* needs a reset before the next import */
	char client[64];
	/*
	 * Iso URBs that arrived after the bus time already queued had run
	 * out: the host left microframes unpolled, so the camera may have
	 * had to drop frames (as real hardware would). Per session.
	 */
	uint64_t host_late;
	uint64_t host_late_max_ns;
	uint64_t host_late_absorbed;	/* within --late-tolerance */

	/* status reporter's own bookkeeping (main thread only) */
	uint64_t status_bytes;
	uint64_t status_ns;
};

#endif /* ISOCAM_EMU_USBIP_CAMERA_H */
