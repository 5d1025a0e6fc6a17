// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What one frame costs the emulator, as a ratio to memcpy of the same
 * bytes measured in the same run (the emulator must stay near memcpy
 * cost to keep 640x480 YUYV at 30 fps under qemu TCG):
 *  - scene_render, first scroll cycle (checksum computed) and later
 *    cycles (checksum cached per scroll offset);
 *  - scene_render right after a control change (tables rebuilt);
 *  - draining one frame through video_stream_packet at 3x1024 bytes per
 *    microframe, capture and render included, in the first scroll cycle
 *    and after it (what a long stream costs);
 *  - the same through video_stream_packet_iov, the zero-copy path
 *    isocam-emu sends from (released every 32 packets, as one URB): what
 *    is left is the render and the headers; the kernel's copy into the
 *    socket is bench_usbip's to measure.
 * Numbers only, no assertions. Best of 3 runs, to shrug off noise from
 * other jobs on the machine.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isocam/ic1280_regs.h>

#include "ic1280_model.h"
#include "bench_ref.h"
#include "scene.h"
#include "video_stream.h"

/* Per-frame render time: cold (fresh scene) and warm (same counters). */
static void t_render(const struct scene_params *p, unsigned int n,
		     double *cold, double *warm, double *rebuild,
		     double *geometry)
{
	uint8_t *buf = malloc(scene_frame_size(p));
	struct scene_params q = *p;
	unsigned int r, i;
	double t;

	*cold = *warm = *rebuild = *geometry = 1e9;
	for (r = 0; r < 3; r++) {
		struct scene *sc = scene_new();

		scene_render(sc, p, 0, buf);	/* tables, not per frame */
		t = bench_now();
		for (i = 1; i <= n; i++)
			scene_render(sc, p, i, buf);
		t = (bench_now() - t) / n;
		if (t < *cold)
			*cold = t;
		t = bench_now();
		for (i = 1; i <= n; i++)
			scene_render(sc, p, i, buf);
		t = (bench_now() - t) / n;
		if (t < *warm)
			*warm = t;
		t = bench_now();
		for (i = 1; i <= n / 4; i++) {
			q.brightness = (int8_t)(i & 1 ? 20 : 0);
			scene_render(sc, &q, i, buf);
		}
		t = (bench_now() - t) / (n / 4);
		if (t < *rebuild)
			*rebuild = t;
		q = *p;
		t = bench_now();
		for (i = 1; i <= n / 4; i++) {
			q.flip = i & 1 ? IC1280_FLIP_H : 0;
			scene_render(sc, &q, i, buf);
		}
		t = (bench_now() - t) / (n / 4);
		if (t < *geometry)
			*geometry = t;
		scene_free(sc);
	}
	bench_sink = buf[0];
	free(buf);
}

static void wr(struct ic1280 *s, uint16_t reg, const uint8_t *v, size_t n)
{
	uint8_t b[8] = { reg >> 8, reg & 0xff };

	memcpy(b + 2, v, n);
	ic1280_i2c_write(s, b, n + 2);
}

/*
 * One microframe's packet: copied into pkt, or described (iov) with the
 * pipe's buffers released every 32 packets, as the session does per URB.
 */
static void one_packet(struct video_stream *vs, uint64_t bus, uint8_t *pkt,
		       size_t len, bool iov, unsigned int *n)
{
	struct video_packet p;

	if (!iov) {
		video_stream_packet(vs, bus, pkt, len);
		return;
	}
	if (++*n % 32 == 0)
		video_stream_release(vs);
	video_stream_packet_iov(vs, bus, len, &p);
	pkt[0] ^= p.head[1];
}

/*
 * CPU time per frame sent, with the bus time advancing per microframe,
 * after `skip` frames (320: a whole scroll cycle, so renders are warm).
 */
static double t_stream(uint16_t w, uint16_t h, unsigned int skip,
		       unsigned int frames, bool iov)
{
	uint8_t size[4] = { w >> 8, w & 0xff, h >> 8, h & 0xff };
	uint8_t on = IC1280_MODE_STREAMING;
	uint8_t pkt[3072];
	double best = 1e9;
	unsigned int r;

	for (r = 0; r < 3; r++) {
		struct ic1280 *s = ic1280_new(IC1280_CHIP_ID);
		struct video_stream *vs = video_stream_new(s);
		struct video_stream_stats st;
		uint64_t bus = 1000000000ull;
		unsigned int n = 0;
		double t;

		wr(s, IC1280_REG_X_OUTPUT_SIZE_H, size, 4);
		wr(s, IC1280_REG_MODE_SELECT, &on, 1);
		video_stream_set_packet_size(vs, sizeof(pkt));
		/* the first frame builds the tables: not per-frame cost */
		do {
			one_packet(vs, bus, pkt, sizeof(pkt), iov, &n);
			bus += 125000;
			video_stream_get_stats(vs, &st);
		} while (st.frames_sent < 1 + skip);
		t = bench_now();
		do {
			one_packet(vs, bus, pkt, sizeof(pkt), iov, &n);
			bus += 125000;
			video_stream_get_stats(vs, &st);
		} while (st.frames_sent < 1 + skip + frames);
		t = (bench_now() - t) / frames;
		if (t < best)
			best = t;
		video_stream_free(vs);
		ic1280_free(s);
	}
	bench_sink = pkt[0];
	return best;
}

int main(void)
{
	static const struct { uint16_t w, h; unsigned int n; } sizes[] = {
		{ 640, 480, 320 },	/* 320: one whole scroll cycle */
		{ 1280, 960, 320 },
	};
	unsigned int i;

	printf("%-16s %10s %8s %8s %8s %8s %8s %8s %8s %8s\n", "YUYV frame",
	       "memcpy", "render", "render", "control", "flip", "stream",
	       "stream", "iov", "iov");
	printf("%-16s %10s %8s %8s %8s %8s %8s %8s %8s %8s\n", "", "us", "cold",
	       "warm", "change", "change", "cold", "warm", "cold", "warm");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct scene_params p = scene_params_default(IC1280_FMT_YUYV,
							  sizes[i].w, sizes[i].h);
		double mc, cold, warm, rebuild, geom, st, stw, io, iow;

		mc = bench_memcpy(scene_frame_size(&p), sizes[i].n);
		t_render(&p, sizes[i].n, &cold, &warm, &rebuild, &geom);
		st = t_stream(sizes[i].w, sizes[i].h, 0, 20, false);
		stw = t_stream(sizes[i].w, sizes[i].h, sizes[i].n, 20, false);
		io = t_stream(sizes[i].w, sizes[i].h, 0, 20, true);
		iow = t_stream(sizes[i].w, sizes[i].h, sizes[i].n, 20, true);
		printf("%5ux%-10u %10.1f %7.2fx %7.2fx %7.2fx %7.2fx %7.2fx %7.2fx %7.2fx %7.2fx\n",
		       sizes[i].w, sizes[i].h, mc * 1e6, cold / mc, warm / mc,
		       rebuild / mc, geom / mc, st / mc, stw / mc, io / mc,
		       iow / mc);
	}
	printf("(ratios to memcpy of one frame; render cold = first scroll "
	       "cycle, checksums computed; warm = later cycles; control change "
	       "= brightness toggled every frame (palette rebuilt); flip change "
	       "= hflip toggled every frame (picture redrawn); stream = one frame through "
	       "video_stream_packet, 3072-byte packets, cold in the first scroll "
	       "cycle, warm after it; iov = the same through "
	       "video_stream_packet_iov, data left in the frame buffer for "
	       "sendmsg)\n");
	return 0;
}
