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
 *
 * Unlinks: a CMD_UNLINK of a queued URB cancels it (RET_UNLINK
 * -ECONNRESET, no RET_SUBMIT); of one already completed, status 0. vhci
 * can send a URB's CMD_UNLINK before its CMD_SUBMIT: its tx thread sends
 * all pending unlinks after all pending submits, so a URB submitted and
 * killed while that thread is sending unlinks (or blocked in one, as
 * when we stop reading) has its unlink go first. vhci gives back a URB
 * on any RET_UNLINK and drops the whole connection on a later
 * RET_SUBMIT for it, so an unlink naming a seqnum newer than every
 * CMD_SUBMIT seen waits: the CMD_SUBMIT it names is then dropped and the
 * unlink answered -ECONNRESET; one that a newer CMD_SUBMIT overtakes
 * named nothing that will come, and is answered 0. At most 16 wait.
 *
 * Bulk transport (include/isocam/usb.h has the wire rules): a bulk IN URB
 * on the video endpoint waits in a queue until the bridge has frame data,
 * then completes with one payload transfer (RET_SUBMIT, number_of_packets
 * 0). There is no bus clock: the pipe runs on monotonic time and the
 * session wakes at the next capture slot while URBs wait, so frames leave
 * when the sensor makes them, never early and never as empty completions.
 * Unlinks of waiting bulk URBs follow the rules above exactly as for
 * queued iso URBs (-ECONNRESET and no RET_SUBMIT; early unlinks wait for
 * their URB). Waiting URBs end -ESHUTDOWN if the device is deconfigured
 * and -EPIPE once the endpoint is halted (a new one is STALLed then).
 */
#ifndef ISOCAM_EMU_USBIP_SESSION_H
#define ISOCAM_EMU_USBIP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

struct usbip_camera;

/*
 * What a hostile client may make the session hold (a real vhci stays
 * far below every limit):
 *
 * - Iso URBs queued: at most max_queued_uframes microframes of bus time
 *   (the sum of their packets). An URB that does not fit waits in the
 *   socket: the session stops reading (and so handles no command after
 *   it, control ones included) until completions make room. The kernel's
 *   socket buffers then bound what the client can push.
 * - An iso URB of more packets than fit the queue at all is answered
 *   -EMSGSIZE, as is one whose transfer_buffer_length is above
 *   number_of_packets x 3072 (the most a high-speed microframe carries).
 * - Bulk IN URBs waiting for data: at most 64; one more, or one whose
 *   transfer_buffer_length is below ISOCAM_USB_BULK_MIN_URB, is answered
 *   -EMSGSIZE. Refused rather than left unread: a waiting bulk URB may
 *   wait for ever (sensor in standby), and an unlink behind it in the
 *   socket must still be read.
 * - A URB with more than 65535 bytes of OUT data (ep0 is the only
 *   endpoint that takes any, and wLength is 16 bits) is answered
 *   -EMSGSIZE and its data skipped, never buffered.
 * - A command whose devid is not the imported camera's (busnum << 16 |
 *   devnum) ends the session, as the kernel's stub does.
 * - A client that imported but sends no complete command within
 *   first_cmd_timeout_ms is dropped: vhci starts enumerating at once,
 *   so it is holding the camera without using it. After the first
 *   command, no URBs for any time is normal (an idle camera).
 */
struct usbip_session_config {
	bool verbose;
	unsigned int late_tolerance_ms;
	uint32_t max_queued_uframes;	/* >= 1 */
	unsigned int first_cmd_timeout_ms;	/* 0: never */
	/*
	 * Test seam for fuzzers: iso URBs complete as soon as they are
	 * queued instead of at their bus-time deadline (bus time itself
	 * advances as usual), so no input waits on real time.
	 */
	bool no_pacing;
	/*
	 * Copy every packet's data into the reply, as hostile modes need,
	 * instead of sending it from the frame buffer (benchmarks compare).
	 */
	bool copy_packets;
};

/*
 * Run until the client goes away, sends garbage, a vanish fault fires,
 * or stop_fd becomes readable. Does not close fd.
 */
void usbip_session_run(struct usbip_camera *cam, int fd, int stop_fd,
		       const struct usbip_session_config *cfg);

#endif /* ISOCAM_EMU_USBIP_SESSION_H */
