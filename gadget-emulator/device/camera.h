/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One emulated camera, whatever serves it: its names, its faults and
 * hostile modes, and the bridge (with the sensor and the video pipe)
 * they act on, built from one config. A transport (usbip/, ffs/) owns
 * cameras and adds only what its bus needs.
 */
#ifndef ISOCAM_EMU_CAMERA_H
#define ISOCAM_EMU_CAMERA_H

#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "usb_descriptors.h"

struct fault;
struct hostile;

/* What every transport's camera is made of (the command line's). */
struct camera_config {
	uint16_t chip_id;	/* what the sensor's CHIP_ID reads */
	const char *fault_spec;	/* fault.h syntax; NULL or "" for none */
	unsigned int seed;	/* fault and hostile seed; camera i adds i */
	/* hostile.h modes, NAME[,NAME...]; NULL or "" for none */
	const char *hostile_spec;
	/* dormant until camera_arm_hostile() (SIGUSR2) */
	bool hostile_on_signal;
	bool verbose;		/* log every i2c write and request */
	bool free_run;		/* bridge.h */
	/*
	 * The video endpoint: iso (default) or bulk. Hostile descriptor
	 * modes lie about the iso layout: refused with bulk.
	 */
	enum usb_transport transport;
};

struct camera {
	unsigned int index;	/* 0-based */
	char name[16];		/* "cam0": every log line's prefix */
	char serial[24];	/* "ISOCAM0001": iSerialNumber */
	struct fault *fault;
	struct hostile *hostile;	/* its arming is atomic (hostile.h) */
	struct bridge *bridge;
	struct bridge_config bcfg;	/* for camera_power_up() */
};

/*
 * Build camera index from cfg: parse its faults and hostile modes (and
 * log what it will lie about), power up its bridge. -1 with the reason
 * logged, cam left for camera_destroy().
 */
int camera_init(struct camera *cam, const struct camera_config *cfg,
		unsigned int index);
void camera_destroy(struct camera *cam);

/*
 * A replug: a fresh bridge, as after power-on; the faults and hostile
 * modes go on. -1 (the old bridge kept) when out of memory.
 */
int camera_power_up(struct camera *cam);

/* Arm dormant hostile modes, logging them: true if armed now. */
bool camera_arm_hostile(struct camera *cam);

#endif /* ISOCAM_EMU_CAMERA_H */
