/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The USB/IP server: N emulated cameras with bus ids 1-1..1-N. A client
 * connection either lists the devices or imports one camera; an imported
 * camera then runs a session (one thread per connection) that answers
 * control URBs at once and completes isochronous IN URBs in real time,
 * on a per-session bus clock of 125 us microframes (or, with the bulk
 * transport, bulk IN URBs as frame data comes).
 */
#ifndef ISOCAM_EMU_USBIP_SERVER_H
#define ISOCAM_EMU_USBIP_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "camera.h"

#define USBIP_SERVER_MAX_CAMERAS	32
#define USBIP_SERVER_DEFAULT_PORT	3240
#define USBIP_SERVER_DEFAULT_BIND	"127.0.0.1"
#define USBIP_DEFAULT_LATE_TOLERANCE_MS	1000
/*
 * What a hostile client may hold (usbip_session.h for the URB side).
 * Each connection is a thread; at most max_clients at once (default:
 * this, or the camera count + 8 if more, so that every camera can be
 * imported and still be listed). Any more are accepted and closed at once.
 */
#define USBIP_SERVER_DEFAULT_MAX_CLIENTS	16
/* a new connection must send its whole request within this */
#define USBIP_DEFAULT_REQUEST_TIMEOUT_MS	10000
/* an importer that sends no URB within this is dropped (camera freed) */
#define USBIP_DEFAULT_FIRST_URB_TIMEOUT_MS	30000
/* 1 s of bus time: iso URBs queued per session */
#define USBIP_DEFAULT_MAX_QUEUED_UFRAMES	8000
/* a timeout that never fires */
#define USBIP_TIMEOUT_NEVER		0xffffffffu

struct usbip_server_config {
	const char *bind;	/* address to listen on */
	uint16_t port;
	unsigned int count;	/* cameras, 1..USBIP_SERVER_MAX_CAMERAS */
	/* every camera's; camera i seeds its faults with camera.seed + i */
	struct camera_config camera;
	/* host lateness absorbed by pausing the bus clock (usbip_session.h) */
	unsigned int late_tolerance_ms;
	/* the limits above; 0 for each takes its default */
	unsigned int max_clients;
	unsigned int request_timeout_ms;	/* or USBIP_TIMEOUT_NEVER */
	unsigned int first_urb_timeout_ms;	/* or USBIP_TIMEOUT_NEVER */
	uint32_t max_queued_uframes;
	/* test seam for fuzzers: no real-time pacing (usbip_session.h) */
	bool no_pacing;
	/* benchmark seam: packets copied, not sent from the frame buffer */
	bool copy_packets;
};

struct usbip_server;

/* Creates the cameras (not yet listening). NULL with a logged reason. */
struct usbip_server *usbip_server_new(const struct usbip_server_config *cfg);
void usbip_server_free(struct usbip_server *s);

/* Bind and listen; -1 with a logged reason. The fd is for poll(). */
int usbip_server_listen(struct usbip_server *s);
int usbip_server_listen_fd(const struct usbip_server *s);

/* Accept one pending connection and serve it on its own thread. */
void usbip_server_accept(struct usbip_server *s);

/*
 * Serve one connected socket to its end on the calling thread (the
 * accept threads use it; tests call it over a socketpair). Takes
 * ownership of fd.
 */
void usbip_server_serve_fd(struct usbip_server *s, int fd, const char *peer);

/*
 * Arm every camera's dormant hostile modes, logging "camN: hostile LIST
 * armed" for each; returns how many were armed (0: none dormant).
 */
unsigned int usbip_server_arm_hostile(struct usbip_server *s);

/* Log one status line per camera: frames, MB/s since last call, client. */
void usbip_server_status(struct usbip_server *s);

/* End every session (no more replies), join their threads. */
void usbip_server_stop(struct usbip_server *s);

#endif /* ISOCAM_EMU_USBIP_SERVER_H */
