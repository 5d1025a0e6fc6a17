/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One emulated camera as the USB/IP server sees it: its bus id, its bridge (and
 * so its sensor, video pipe and faults), and who has imported it.
 */
#ifndef ISOCAM_EMU_USBIP_CAMERA_H
#define ISOCAM_EMU_USBIP_CAMERA_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "usbip_proto.h"

struct fault;
struct hostile;

struct emu_camera {
	unsigned int index;		/* 0-based; bus id 1-(index+1) */
	char name[16];			/* "cam0" */
	char busid[USBIP_BUSID_LEN];	/* "1-1" */
	char serial[24];
	struct bridge_config bcfg;	/* for the power-on reset at import */

	/* the session thread and the status reporter both use these */
	pthread_mutex_t lock;
	struct bridge *bridge;
	struct fault *fault;
	/* set up once; its arming is atomic (hostile.h): no lock needed */
	struct hostile *hostile;
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
