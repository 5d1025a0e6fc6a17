/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The URB traffic of one imported camera: CMD_SUBMIT / CMD_UNLINK in,
 * RET_SUBMIT / RET_UNLINK out.
 *
 * Isochronous pacing: vhci hands iso URBs over as fast as the driver
 * submits them, so the session keeps a bus clock. An iso URB of N
 * packets gets the microframes starting at max(bus_next, now), packet i
 * at start + i * 125 us; it completes at start + N * 125 us, which
 * becomes bus_next. At that deadline every packet is filled from the
 * video pipe with the microframe's time, so frames leave at the rate the
 * sensor makes them, whatever the host queues.
 *
 * A host that lets the queue run dry leaves microframes unpolled, and
 * the camera drops frames as real hardware would. Over USB/IP (and under
 * an emulated CPU) the transport adds latency no real bus has, so a gap
 * up to late_tolerance_ms is absorbed instead: the bus clock pauses
 * (bus time = monotonic time - lag) and nothing is lost. 0 gives the
 * strict behaviour.
 */
#ifndef ISOCAM_EMU_USBIP_SESSION_H
#define ISOCAM_EMU_USBIP_SESSION_H

#include <stdbool.h>

struct emu_camera;

/*
 * Run until the client goes away, sends garbage, a vanish fault fires,
 * or stop_fd becomes readable. Does not close fd.
 */
void usbip_session_run(struct emu_camera *cam, int fd, int stop_fd,
		       bool verbose, unsigned int late_tolerance_ms);

#endif /* ISOCAM_EMU_USBIP_SESSION_H */
