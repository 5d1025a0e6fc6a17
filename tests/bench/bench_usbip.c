// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_usbip: what isocam-emu's USB/IP path costs per frame. A client
 * thread plays vhci over a socketpair, streaming 640x480 YUYV at 30 fps
 * (the 18.4 MB/s the VM must sustain) for a few seconds; the process's
 * CPU time per frame (server: render, packetize, encode, send; client:
 * receive and parse) is printed against a memcpy of the same bytes
 * measured in the same run. Numbers only, no assertions.
 */
#include <poll.h>
#include <pthread.h>
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

#include "bridge.h"
#include "usbip_proto.h"
#include "usbip_server.h"

#define NP		32
#define PKT		3072
#define IN_FLIGHT	8
#define SECONDS		3
/* busnum 1 << 16 | devnum 1: bus id 1-1, which the session checks */
#define DEVID		0x10001

struct srv_arg {
	struct usbip_server *srv;
	int fd;
};

static void *serve(void *p)
{
	struct srv_arg *a = p;

	usbip_server_serve_fd(a->srv, a->fd, "bench");
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int recv_exact(int fd, uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint32_t seq = 1;

static void ctrl_out(int fd, uint8_t bm, uint8_t req, uint16_t val,
		     const uint8_t *data, uint16_t len)
{
	uint8_t buf[USBIP_HEADER_LEN + 64];
	struct usb_setup s = { bm, req, val, 0, len };
	struct usbip_header h;

	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = seq++;
	h.devid = DEVID;
	h.u.cmd_submit.transfer_buffer_length = len;
	usb_setup_encode(h.u.cmd_submit.setup, &s);
	usbip_header_encode(buf, &h);
	memcpy(buf + USBIP_HEADER_LEN, data, len);
	if (send(fd, buf, USBIP_HEADER_LEN + len, 0) < 0 ||
	    recv_exact(fd, buf, USBIP_HEADER_LEN) < 0) {
		fprintf(stderr, "bench_usbip: control transfer failed\n");
		exit(1);
	}
}

static void submit_iso(int fd)
{
	uint8_t buf[USBIP_HEADER_LEN + NP * USBIP_ISO_DESC_LEN];
	struct usbip_header h;
	uint32_t i;

	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = seq++;
	h.devid = DEVID;
	h.direction = USBIP_DIR_IN;
	h.ep = 1;
	h.u.cmd_submit.transfer_buffer_length = NP * PKT;
	h.u.cmd_submit.number_of_packets = NP;
	usbip_header_encode(buf, &h);
	for (i = 0; i < NP; i++) {
		struct usbip_iso_desc d = { i * PKT, PKT, 0, 0 };

		usbip_iso_desc_encode(buf + USBIP_HEADER_LEN +
				      i * USBIP_ISO_DESC_LEN, &d);
	}
	if (send(fd, buf, sizeof(buf), 0) < 0) {
		fprintf(stderr, "bench_usbip: submit failed\n");
		exit(1);
	}
}

int main(void)
{
	static uint8_t rx[USBIP_HEADER_LEN + NP * PKT + NP * USBIP_ISO_DESC_LEN];
	static const uint8_t on[] = { 0x01, 0x00, IC1280_MODE_STREAMING };
	struct usbip_server_config cfg = {
		.count = 1, .chip_id = IC1280_CHIP_ID, .seed = 1,
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
	};
	uint8_t req[USBIP_IMPORT_REQ_LEN], rep[USBIP_IMPORT_REP_LEN];
	uint64_t bytes = 0;
	double t0, c0, dt, dc, mt, frames, frame_bytes = 640.0 * 480 * 2;
	struct srv_arg a;
	pthread_t th;
	uint8_t *src, *dst;
	int sv[2], i, reps;

	a.srv = usbip_server_new(&cfg);
	if (!a.srv || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	a.fd = sv[1];
	pthread_create(&th, NULL, serve, &a);
	usbip_import_req_encode(req, "1-1");
	if (send(sv[0], req, sizeof(req), 0) < 0 ||
	    recv_exact(sv[0], rep, sizeof(rep)) < 0) {
		fprintf(stderr, "bench_usbip: import failed\n");
		return 1;
	}
	/* power-on mode is 640x480 YUYV at 30 fps */
	ctrl_out(sv[0], 0, USB_REQ_SET_CONFIGURATION, 1, NULL, 0);
	ctrl_out(sv[0], USB_TYPE_VENDOR | USB_RECIP_INTERFACE,
		 ISOCAM_REQ_I2C_WRITE, IC1280_I2C_ADDR, on, sizeof(on));
	ctrl_out(sv[0], USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE, 7, NULL, 0);

	t0 = now_s();
	c0 = cpu_s();
	for (i = 0; i < IN_FLIGHT; i++)
		submit_iso(sv[0]);
	while (now_s() - t0 < SECONDS) {
		struct usbip_header h;

		if (recv_exact(sv[0], rx, USBIP_HEADER_LEN) < 0 ||
		    usbip_header_decode(rx, USBIP_HEADER_LEN, &h) < 0 ||
		    recv_exact(sv[0], rx + USBIP_HEADER_LEN,
			       (size_t)h.u.ret_submit.actual_length +
			       NP * USBIP_ISO_DESC_LEN) < 0) {
			fprintf(stderr, "bench_usbip: stream broke\n");
			return 1;
		}
		bytes += (uint64_t)h.u.ret_submit.actual_length;
		submit_iso(sv[0]);
	}
	dt = now_s() - t0;
	dc = cpu_s() - c0;
	close(sv[0]);
	pthread_join(th, NULL);
	usbip_server_free(a.srv);

	/* reference: memcpy of one frame, same run */
	src = malloc((size_t)frame_bytes);
	dst = malloc((size_t)frame_bytes);
	memset(src, 0x5a, (size_t)frame_bytes);
	reps = 200;
	c0 = now_s();
	for (i = 0; i < reps; i++) {
		src[i] = (uint8_t)i;
		memcpy(dst, src, (size_t)frame_bytes);
	}
	mt = (now_s() - c0) / reps;
	free(src);
	free(dst);

	frames = (double)bytes / frame_bytes;
	printf("bench_usbip: 640x480 YUYV 30 fps over the USB/IP path for %.1f s\n", dt);
	printf("  payload %.2f MB/s (%.1f frames/s)\n", (double)bytes / dt / 1e6,
	       frames / dt);
	printf("  CPU %.1f%% of one core; %.3f ms per frame\n", 100 * dc / dt,
	       frames > 0 ? 1e3 * dc / frames : 0);
	printf("  memcpy of a frame: %.3f ms; path/memcpy ratio %.1f\n",
	       1e3 * mt, frames > 0 && mt > 0 ? dc / frames / mt : 0);
	return 0;
}
