// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "camera.h"

#include <stdio.h>
#include <string.h>

#include "fault.h"
#include "hostile.h"
#include "log.h"

int camera_init(struct camera *cam, const struct camera_config *cfg,
		unsigned int index)
{
	char err[160], herr[1200], d[1200];

	memset(cam, 0, sizeof(*cam));
	cam->index = index;
	snprintf(cam->name, sizeof(cam->name), "cam%u", index % 100);
	snprintf(cam->serial, sizeof(cam->serial), "ISOCAM%04u",
		 (index + 1) % 10000);
	cam->fault = fault_new(cfg->fault_spec, cfg->seed + index, err,
			       sizeof(err));
	if (!cam->fault) {
		emu_log("--fault: %s", err);
		return -1;
	}
	cam->hostile = hostile_new(cfg->hostile_spec, !cfg->hostile_on_signal,
				   cfg->seed + index, herr, sizeof(herr));
	if (!cam->hostile) {
		emu_log("--hostile: %s", herr);
		return -1;
	}
	/* at startup: what the camera will lie about, and from when */
	if (hostile_describe(cam->hostile, d, sizeof(d)))
		emu_log("%s: %s", cam->name, d);
	if (cfg->transport == USB_TRANSPORT_BULK &&
	    hostile_any_desc(cam->hostile)) {
		emu_log("--hostile: descriptor modes lie about the iso alt settings; they do not go with --transport=bulk");
		return -1;
	}
	cam->bcfg = (struct bridge_config){
		.name = cam->name,
		.serial = cam->serial,
		.chip_id = cfg->chip_id,
		.fault = cam->fault,
		.hostile = cam->hostile,
		.verbose = cfg->verbose,
		.free_run = cfg->free_run,
		.transport = cfg->transport,
	};
	cam->bridge = bridge_new(&cam->bcfg);
	return cam->bridge ? 0 : -1;
}

void camera_destroy(struct camera *cam)
{
	bridge_free(cam->bridge);
	fault_free(cam->fault);
	hostile_free(cam->hostile);
	cam->bridge = NULL;
	cam->fault = NULL;
	cam->hostile = NULL;
}

int camera_power_up(struct camera *cam)
{
	struct bridge *nb = bridge_new(&cam->bcfg);

	if (!nb)
		return -1;
	bridge_free(cam->bridge);
	cam->bridge = nb;
	return 0;
}

bool camera_arm_hostile(struct camera *cam)
{
	if (!hostile_arm(cam->hostile))
		return false;
	emu_log("%s: hostile %s armed", cam->name, hostile_list(cam->hostile));
	return true;
}
