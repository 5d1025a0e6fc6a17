// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_usbip: what isocam-emu's USB/IP path costs per frame. Client
 * threads play vhci over socketpairs, each streaming 640x480 YUYV at 30
 * fps (the 18.4 MB/s the VM must sustain) from its own camera, 1 and then
 * 16 cameras at once; after a whole scroll cycle (the steady state), the
 * process's CPU time per frame (server: render, packetize, send; client:
 * receive and parse), user space apart from the kernel's socket work, is
 * printed against a memcpy of the same bytes measured in the same run,
 * and whether every camera kept real time. Each count runs twice: with
 * packets copied into the reply (the path hostile modes take, and what
 * isocam-emu did before) and sent from the frame buffer (its default).
 * Numbers only, no assertions.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/ch9.h>

#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>

#include "bench_ref.h"
#include "bridge.h"
#include "usbip_client.h"
#include "usbip_proto.h"
#include "usbip_server.h"

#define NP		32
#define PKT		3072
#define IN_FLIGHT	8
/* a whole scroll cycle at 640x480 (320 frames): then renders are warm */
#define WARM_S		11
#define SECONDS		3
#define MAX_CAMS	16

/* One camera's client: vhci's side of one connection. */
struct client {
	pthread_t th;
	struct usbip_client uc;
	unsigned int cam;	/* bus id 1-(cam + 1) */
	_Atomic bool counting, stop;
	uint64_t bytes;		/* while counting */
	bool failed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process's CPU time: in user space, and in the kernel (sockets). */
static void cpu_s(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int ctrl_out(struct client *c, uint8_t bm, uint8_t req, uint16_t val,
		    const uint8_t *data, uint16_t len)
{
	uint8_t buf[64];

	memcpy(buf, data, len);
	return usbip_client_ctrl(&c->uc, bm, req, val, 0, len, buf, -1) < 0 ?
	       -1 : 0;
}

static int submit_iso(struct client *c)
{
	uint8_t buf[USBIP_HEADER_LEN + NP * USBIP_ISO_DESC_LEN];

	return usbip_client_send(&c->uc, buf,
				 usbip_client_encode_iso(&c->uc, buf, 1, NP,
							 PKT, NP * PKT));
}

/* Import camera c->cam, start 640x480 YUYV at 30 fps, stream until stop. */
static void *client_run(void *p)
{
	static const uint8_t on[] = { 0x01, 0x00, IC1280_MODE_STREAMING };
	struct client *c = p;
	uint8_t *rx = malloc(USBIP_HEADER_LEN + NP * PKT +
			     NP * USBIP_ISO_DESC_LEN);
	char busid[16];
	int i;

	snprintf(busid, sizeof(busid), "1-%u", c->cam + 1);
	/* power-on mode is 640x480 YUYV at 30 fps */
	if (!rx || usbip_client_import(&c->uc, busid, -1) ||
	    ctrl_out(c, 0, USB_REQ_SET_CONFIGURATION, 1, NULL, 0) ||
	    ctrl_out(c, USB_TYPE_VENDOR | USB_RECIP_INTERFACE,
		     ISOCAM_REQ_I2C_WRITE, IC1280_I2C_ADDR, on, sizeof(on)) ||
	    ctrl_out(c, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE, 7, NULL, 0))
		goto fail;
	for (i = 0; i < IN_FLIGHT; i++)
		if (submit_iso(c))
			goto fail;
	while (!c->stop) {
		struct usbip_header h;

		if (usbip_client_recv(&c->uc, rx, USBIP_HEADER_LEN, -1) < 0 ||
		    usbip_header_decode(rx, USBIP_HEADER_LEN, &h) < 0 ||
		    usbip_client_recv(&c->uc, rx + USBIP_HEADER_LEN,
				      (size_t)h.u.ret_submit.actual_length +
				      NP * USBIP_ISO_DESC_LEN, -1) < 0)
			goto fail;
		if (c->counting)
			c->bytes += (uint64_t)h.u.ret_submit.actual_length;
		if (submit_iso(c))
			goto fail;
	}
	free(rx);
	return NULL;
fail:
	c->failed = true;
	free(rx);
	return NULL;
}

/*
 * n cameras streaming at once, each on its own connection: after WARM_S
 * seconds, for SECONDS, frames a second per camera and the CPU the whole
 * path (server and these clients) takes per frame. 0, or -1 if broken.
 */
static int run(unsigned int n, bool copy, double *fps, double *cpu_pct,
	       double *ms_frame, double *user_ms_frame)
{
	struct usbip_server_config cfg = {
		.count = n, .camera.chip_id = IC1280_CHIP_ID, .camera.seed = 1,
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
		.copy_packets = copy,
	};
	static struct client cl[MAX_CAMS];
	struct usbip_server *srv = usbip_server_new(&cfg);
	double t0, u0, s0, u1, s1, dt, dc, frames = 0;
	unsigned int i;
	int ret = 0;

	if (!srv)
		return -1;
	for (i = 0; i < n; i++) {
		memset(&cl[i], 0, sizeof(cl[i]));
		cl[i].cam = i;
		if (usbip_client_connect(&cl[i].uc, srv, "bench") < 0)
			return -1;
		pthread_create(&cl[i].th, NULL, client_run, &cl[i]);
	}
	sleep(WARM_S);
	t0 = now_s();
	cpu_s(&u0, &s0);
	for (i = 0; i < n; i++)
		cl[i].counting = true;
	sleep(SECONDS);
	for (i = 0; i < n; i++)
		cl[i].counting = false;
	dt = now_s() - t0;
	cpu_s(&u1, &s1);
	dc = u1 - u0 + s1 - s0;
	for (i = 0; i < n; i++) {
		cl[i].stop = true;
		/* A resubmit may race this: its send() is MSG_NOSIGNAL. */
		shutdown(cl[i].uc.fd, SHUT_RDWR);
		pthread_join(cl[i].th, NULL);
		usbip_client_hangup(&cl[i].uc);
		frames += (double)cl[i].bytes / (640.0 * 480 * 2);
		if (cl[i].failed && cl[i].bytes == 0)
			ret = -1;
	}
	usbip_server_free(srv);
	*fps = frames / n / dt;
	*cpu_pct = 100 * dc / dt;
	*ms_frame = frames > 0 ? 1e3 * dc / frames : 0;
	*user_ms_frame = frames > 0 ? 1e3 * (u1 - u0) / frames : 0;
	return ret;
}

int main(void)
{
	static const unsigned int counts[] = { 1, MAX_CAMS };
	double frame_bytes = 640.0 * 480 * 2, mt;
	unsigned int k, c;

	/* reference: memcpy of one frame, same run */
	mt = bench_memcpy((size_t)frame_bytes, 200);
	printf("bench_usbip: 640x480 YUYV at 30 fps a camera over the USB/IP path, %d s after %d s of warm-up (one scroll cycle)\n",
	       SECONDS, WARM_S);
	printf("  memcpy of a frame: %.3f ms (reference)\n", 1e3 * mt);
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]) * 2; k++) {
		double fps, cpu, ms, user_ms;
		bool copy = !(k & 1);

		c = counts[k / 2];
		if (run(c, copy, &fps, &cpu, &ms, &user_ms) < 0) {
			fprintf(stderr, "bench_usbip: %u cameras: the stream broke\n",
				c);
			return 1;
		}
		printf("  %2u camera(s), %s: %.1f frames/s each (30 is real time), CPU %.1f%% of one core; a frame %.3f ms, %.1fx memcpy, of which user space (render, packetize, parse) %.3f ms, %.1fx memcpy, the rest in the kernel's sockets\n",
		       c, copy ? "copied    " : "from frame", fps, cpu, ms,
		       mt > 0 ? ms / 1e3 / mt : 0, user_ms,
		       mt > 0 ? user_ms / 1e3 / mt : 0);
	}
	return 0;
}
