// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What an MJPEG frame costs the emulator (mjpeg.c), as ratios to a
 * memcpy of the raw YUYV frame measured in the same run:
 *  - a real JPEG encode (paid once per scroll within an MCU column, and
 *    after a change of picture or quality);
 *  - every other frame: MCUs rotated and the stamp written.
 * Numbers only, no assertions. Best of 3 runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isocam/ic1280_regs.h>

#include "bench_ref.h"
#include "mjpeg.h"
#include "scene.h"

#define QUALITY	85

int main(void)
{
	static const uint16_t sizes[][2] = { { 640, 480 }, { 1280, 960 } };
	unsigned int s;

	printf("MJPEG q%d frame    memcpy   encode    frame    bytes\n", QUALITY);
	printf("                    us (raw)                         \n");
	for (s = 0; s < 2; s++) {
		struct scene_params p = scene_params_default(IC1280_FMT_YUYV,
							     sizes[s][0],
							     sizes[s][1]);
		size_t raw = scene_frame_size(&p), len = 0;
		uint8_t *out = malloc(raw);
		double mc = bench_memcpy(raw, 200), enc = 1e9, frame = 1e9;
		unsigned int r, i, n = 320;

		for (r = 0; r < 3; r++) {
			struct scene *sc = scene_new();
			struct mjpeg *m = mjpeg_new();
			double t = bench_now();

			if (mjpeg_prepare(m, sc, &p, QUALITY))
				return 1;
			t = (bench_now() - t) / mjpeg_encodes(m);
			if (t < enc)
				enc = t;
			t = bench_now();
			for (i = 0; i < n; i++)
				len = mjpeg_frame(m, sc, &p, QUALITY, i, out, raw);
			t = (bench_now() - t) / n;
			if (t < frame)
				frame = t;
			mjpeg_free(m);
			scene_free(sc);
		}
		bench_sink = out[0];
		printf("%5ux%-5u %9.1f %7.1fx %7.2fx %8zu\n", p.width, p.height,
		       mc * 1e6, enc / mc, frame / mc, len);
		free(out);
	}
	printf("(ratios to memcpy of one raw YUYV frame; encode = one real JPEG encode, paid per scroll within an MCU column; frame = any other frame)\n");
	return 0;
}
