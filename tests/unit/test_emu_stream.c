// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bridge's packetizer against a model host that polls one packet
 * per microframe and reassembles frames as a driver would: framing
 * (header, FID, EOF, sizes), content (each frame equals the reference
 * render of its stamp), real-time capture, drops when the host is slow,
 * stopping mid-frame, the JPEG codec, and the fault hooks (through a
 * fault double).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>
#include <isocam/payload.h>
#include <isocam/usb.h>

#include "fault.h"
#include "hostile.h"
#include "ic1280_model.h"
#include "mjpeg.h"
#include "scene.h"
#include "video_stream.h"

#define UFRAME_NS	125000ull
#define PKT_MAX		3072

/* ---- fault double: fires every `every`-th opportunity of a kind ---- */
struct fault {
	unsigned int every[FAULT_KIND_COUNT];
	unsigned int seen[FAULT_KIND_COUNT];
};

bool fault_hit(struct fault *f, enum fault_kind k)
{
	if (!f || !f->every[k])
		return false;
	return ++f->seen[k] % f->every[k] == 0;
}

/* ---- the model host ---- */
#define MAX_FRAMES	64

struct rx_frame {
	uint8_t *data;
	size_t len;
	uint8_t fid;
	bool eof;
	bool err;
	uint32_t pts;
	uint64_t first_t;	/* bus time of its first packet */
	unsigned int npkt;
};

struct host {
	struct ic1280 *s;
	struct video_stream *vs;
	uint64_t t;		/* next microframe's bus time */
	struct rx_frame f[MAX_FRAMES];
	unsigned int n;		/* frames started */
	bool open;		/* f[n-1] still receiving */
	unsigned int bad_headers;
	unsigned int zlp;
};

static void wr8(struct ic1280 *s, uint16_t reg, uint8_t v)
{
	uint8_t b[3] = { reg >> 8, reg & 0xff, v };

	assert_int_equal(ic1280_i2c_write(s, b, 3), 0);
}

static void wr16(struct ic1280 *s, uint16_t reg, uint16_t v)
{
	uint8_t b[4] = { reg >> 8, reg & 0xff, v >> 8, v & 0xff };

	assert_int_equal(ic1280_i2c_write(s, b, 4), 0);
}

static struct host *host_new(uint8_t fmt, uint16_t w, uint16_t h,
			     uint32_t pkt)
{
	struct host *hs = calloc(1, sizeof(*hs));

	assert_non_null(hs);
	hs->s = ic1280_new(IC1280_CHIP_ID);
	hs->vs = video_stream_new(hs->s);
	assert_non_null(hs->vs);
	wr8(hs->s, IC1280_REG_OUTPUT_FORMAT, fmt);
	wr16(hs->s, IC1280_REG_X_OUTPUT_SIZE_H, w);
	wr16(hs->s, IC1280_REG_Y_OUTPUT_SIZE_H, h);
	video_stream_set_packet_size(hs->vs, pkt);
	hs->t = 1000000000ull;	/* bus time does not start at 0 */
	return hs;
}

static void host_free(struct host *hs)
{
	unsigned int i;

	for (i = 0; i < hs->n; i++)
		free(hs->f[i].data);
	video_stream_free(hs->vs);
	ic1280_free(hs->s);
	free(hs);
}

static uint32_t le32(const uint8_t *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/*
 * Append one payload (its header checked by the caller) to the open
 * frame, first starting one at bus time first_t if none is open: every
 * payload of a frame carries the frame's PTS; EOF closes it.
 */
static struct rx_frame *host_append(struct host *hs, const uint8_t *pkt,
				    size_t len, uint64_t first_t)
{
	uint8_t info = pkt[ISOCAM_PH_OFF_INFO];
	struct rx_frame *fr;

	if (!hs->open) {
		assert_true(hs->n < MAX_FRAMES);
		fr = &hs->f[hs->n++];
		memset(fr, 0, sizeof(*fr));
		fr->fid = info & ISOCAM_PH_FID;
		fr->pts = le32(pkt + ISOCAM_PH_OFF_PTS);
		fr->first_t = first_t;
		hs->open = true;
	}
	fr = &hs->f[hs->n - 1];
	assert_int_equal(le32(pkt + ISOCAM_PH_OFF_PTS), fr->pts);
	fr->data = realloc(fr->data, fr->len + len);
	assert_non_null(fr->data);
	memcpy(fr->data + fr->len, pkt + ISOCAM_PH_LEN_FULL,
	       len - ISOCAM_PH_LEN_FULL);
	fr->len += len - ISOCAM_PH_LEN_FULL;
	fr->npkt++;
	fr->err |= !!(info & ISOCAM_PH_ERR);
	if (info & ISOCAM_PH_EOF) {
		fr->eof = true;
		hs->open = false;
	}
	return fr;
}

/* One microframe: poll, check the header, append to the frame. */
static size_t host_poll(struct host *hs, size_t maxlen)
{
	uint8_t pkt[PKT_MAX + 16];
	size_t len;
	uint8_t info, fid;

	memset(pkt, 0x5a, sizeof(pkt));
	len = video_stream_packet(hs->vs, hs->t, pkt, maxlen);
	hs->t += UFRAME_NS;
	assert_true(len <= maxlen);
	if (!len) {
		hs->zlp++;
		return 0;
	}
	if (pkt[0] != ISOCAM_PH_LEN_FULL || len < ISOCAM_PH_LEN_FULL ||
	    !(pkt[1] & ISOCAM_PH_EOH) || (pkt[1] & ISOCAM_PH_RES)) {
		hs->bad_headers++;
		return len;
	}
	info = pkt[1];
	assert_true(info & ISOCAM_PH_PTS);
	assert_true(info & ISOCAM_PH_SCR);
	/* SCR: the sensor clock (1 MHz) when sent. */
	assert_int_equal(le32(pkt + ISOCAM_PH_OFF_SCR_STC),
			 (uint32_t)((hs->t - UFRAME_NS) / 1000));
	fid = info & ISOCAM_PH_FID;
	if (hs->open && hs->f[hs->n - 1].fid != fid)
		hs->open = false;	/* FID toggled without EOF */
	host_append(hs, pkt, len, hs->t - UFRAME_NS);
	return len;
}

static void host_run(struct host *hs, unsigned int uframes, size_t maxlen)
{
	while (uframes--)
		host_poll(hs, maxlen);
}

/* A complete frame equals the reference render of its own stamp. */
static uint32_t check_frame(const struct rx_frame *fr)
{
	struct scene_params p;
	uint32_t counter, sum;
	struct scene *sc = scene_new();
	uint8_t *ref;

	assert_true(fr->eof);
	assert_int_equal(scene_stamp_parse(fr->data, fr->len, &p, &counter,
					   &sum), 0);
	assert_int_equal(fr->len, scene_frame_size(&p));
	assert_int_equal(sum, isocam_stamp_checksum(fr->data + ISOCAM_STAMP_LEN,
					fr->len - ISOCAM_STAMP_LEN));
	ref = malloc(fr->len);
	assert_int_equal(scene_render(sc, &p, counter, ref), 0);
	assert_memory_equal(ref, fr->data, fr->len);
	free(ref);
	scene_free(sc);
	return counter;
}

/*
 * A complete JPEG frame is the emulator's encoding of its own stamp's
 * counter and settings; returns the counter, *quality its quality.
 */
static uint32_t check_jpeg(const struct rx_frame *fr, uint8_t *quality)
{
	const uint8_t *st = mjpeg_stamp(fr->data, fr->len);
	struct scene *sc = scene_new();
	struct mjpeg *m = mjpeg_new();
	struct scene_params p;
	uint32_t counter, sum;
	uint8_t *ref;
	size_t cap;

	assert_true(fr->eof);
	assert_false(fr->err);
	assert_int_equal(mjpeg_frame_len(fr->data, fr->len), fr->len);
	assert_non_null(st);
	assert_int_equal(scene_stamp_parse(st, fr->len, &p, &counter, &sum), 0);
	assert_true(fr->len <= ISOCAM_JPEG_MAX_FRAME((size_t)p.width, p.height));
	cap = ISOCAM_JPEG_MAX_FRAME((size_t)p.width, p.height);
	ref = malloc(cap);
	assert_non_null(ref);
	assert_int_equal(mjpeg_frame(m, sc, &p, p.jpeg_quality, counter, ref,
				     cap), fr->len);
	assert_memory_equal(ref, fr->data, fr->len);
	*quality = p.jpeg_quality;
	free(ref);
	mjpeg_free(m);
	scene_free(sc);
	return counter;
}

/*
 * The JPEG codec: every frame a whole JPEG, exactly the encoder's, at
 * most ISOCAM_JPEG_MAX_FRAME; a quality change shows from the next frame
 * captured, with no frame lost while the encoder re-primes; a format it
 * cannot encode gives error frames.
 */
static void test_jpeg(void **state)
{
	struct host *hs = host_new(IC1280_FMT_YUYV, 320, 240, 3072);
	struct video_stream_stats st;
	unsigned int i, n0;
	uint8_t q;

	(void)state;
	video_stream_set_codec(hs->vs, ISOCAM_CODEC_JPEG, 85);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000 / 30 * 6 + 10, PKT_MAX);
	assert_true(hs->n >= 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(check_jpeg(&hs->f[i], &q), i);
		assert_int_equal(q, 85);
	}
	video_stream_get_stats(hs->vs, &st);
	/* 320 wide scrolls 2 pixels a frame: 8 positions in an MCU column. */
	assert_int_equal(st.jpeg_encodes, 8);
	assert_int_equal(st.frames_dropped, 0);
	/* The first capture encoded all 8 (a freeze); the others rotated. */
	assert_true(st.jpeg_freeze_ns_max > 0);
	assert_int_equal(st.jpeg_frames, hs->n - 1);
	assert_true(st.jpeg_frame_ns_max > 0);
	assert_true(st.jpeg_frame_ns_sum <= st.jpeg_frames * st.jpeg_frame_ns_max);

	video_stream_set_codec(hs->vs, ISOCAM_CODEC_JPEG, 30);
	n0 = hs->n;
	host_run(hs, 8000 / 30 * 3 + 10, PKT_MAX);
	assert_true(hs->n >= n0 + 2);
	assert_int_equal(check_jpeg(&hs->f[n0], &q),
			 check_jpeg(&hs->f[n0 - 1], &q) + 1);
	check_jpeg(&hs->f[n0], &q);
	assert_int_equal(q, 30);
	assert_true(hs->f[n0].len < hs->f[n0 - 1].len);
	video_stream_get_stats(hs->vs, &st);
	assert_int_equal(st.jpeg_encodes, 16);
	assert_int_equal(st.frames_dropped, 0);
	assert_int_equal(st.error_frames, 0);

	/* RGB565 is not for the encoder: error frames, header only. */
	wr8(hs->s, IC1280_REG_OUTPUT_FORMAT, IC1280_FMT_RGB565);
	n0 = hs->n;
	host_run(hs, 8000 / 30 * 3 + 10, PKT_MAX);
	assert_true(hs->n >= n0 + 2);
	assert_true(hs->f[n0 + 1].err);
	assert_true(hs->f[n0 + 1].eof);
	assert_int_equal(hs->f[n0 + 1].len, 0);
	video_stream_get_stats(hs->vs, &st);
	assert_true(st.error_frames >= 2);
	assert_int_equal(hs->bad_headers, 0);
	host_free(hs);
}

static void test_idle_sends_nothing(void **state)
{
	struct host *hs = host_new(IC1280_FMT_GREY, 160, 120, 1024);
	struct video_stream_stats st;

	(void)state;
	host_run(hs, 2000, PKT_MAX);		/* standby */
	assert_int_equal(hs->zlp, 2000);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	video_stream_set_packet_size(hs->vs, 0);	/* alt 0 */
	host_run(hs, 2000, PKT_MAX);
	assert_int_equal(hs->zlp, 4000);
	video_stream_get_stats(hs->vs, &st);
	assert_int_equal(st.packets, 0);
	assert_int_equal(st.frames_sent, 0);
	host_free(hs);
}

static void test_framing_and_content(void **state)
{
	struct host *hs = host_new(IC1280_FMT_YUYV, 320, 240, 3072);
	struct video_stream_stats st;
	uint64_t t0, period = 1000000000ull / 30, exposure;
	size_t frame = 320 * 240 * 2;
	unsigned int i;

	(void)state;
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	t0 = hs->t;
	host_run(hs, 8000 / 30 * 8 + 10, PKT_MAX);	/* ~8 frames */
	assert_true(hs->n >= 8);
	for (i = 0; i < 8; i++) {
		const struct rx_frame *fr = &hs->f[i];

		assert_int_equal(fr->len, frame);
		assert_int_equal(check_frame(fr), i);	/* 0, 1, 2, ... */
		assert_int_equal(fr->fid, i & 1 ? ISOCAM_PH_FID : 0);
		/*
		 * Captured in real time: read out from slot i, the first
		 * packet then; PTS is the start of exposure, the effective
		 * exposure (the stamp's, 100 us units) before the slot.
		 */
		exposure = (uint64_t)(fr->data[30] | fr->data[31] << 8) * 100000;
		assert_true(exposure > 0);
		assert_int_equal(fr->pts,
				 (uint32_t)((t0 + i * period - exposure) / 1000));
		assert_true(fr->first_t >= t0 + i * period);
		assert_true(fr->first_t < t0 + i * period + UFRAME_NS);
		assert_false(fr->err);
	}
	assert_int_equal(hs->bad_headers, 0);
	video_stream_get_stats(hs->vs, &st);
	assert_true(st.frames_sent >= 8);
	assert_int_equal(st.frames_dropped, 0);
	/* Every data packet is full but each frame's last. */
	for (i = 0; i < 8; i++)
		assert_int_equal(hs->f[i].npkt, (frame + 3059) / 3060);
	assert_true(st.bytes_sent >= st.frames_sent * (frame + 12));
	host_free(hs);
}

static void test_packet_limits(void **state)
{
	struct host *hs = host_new(IC1280_FMT_GREY, 160, 120, 1024);
	size_t len;
	unsigned int i;

	(void)state;
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	/* The URB's packet is smaller than the alt's: the URB wins. */
	for (i = 0; i < 10; i++) {
		len = host_poll(hs, 500);
		assert_int_equal(len, 500);
	}
	/* And the alt's size caps a larger URB packet. */
	len = host_poll(hs, PKT_MAX);
	assert_int_equal(len, 1024);
	/* A packet too small for a header and data carries nothing. */
	assert_int_equal(host_poll(hs, 12), 0);
	host_run(hs, 400, PKT_MAX);
	assert_int_equal(check_frame(&hs->f[0]), 0);
	host_free(hs);
}

static void test_frame_rate_follows_fll(void **state)
{
	struct host *hs = host_new(IC1280_FMT_GREY, 160, 120, 3072);
	uint64_t t0, period = 1000000000ull / 60;
	unsigned int i;

	(void)state;
	wr16(hs->s, IC1280_REG_FRAME_LENGTH_H, IC1280_FLL_FOR_FPS(60));
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	t0 = hs->t;
	host_run(hs, 8000 / 60 * 6, PKT_MAX);
	assert_true(hs->n >= 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(check_frame(&hs->f[i]), i);
		assert_true(hs->f[i].first_t >= t0 + i * period);
		assert_true(hs->f[i].first_t < t0 + i * period + UFRAME_NS);
	}
	/* 5 fps */
	wr16(hs->s, IC1280_REG_FRAME_LENGTH_H, IC1280_FLL_FOR_FPS(5));
	i = hs->n;
	host_run(hs, 8000 * 2, PKT_MAX);
	assert_true(hs->n - i >= 9 && hs->n - i <= 11);
	host_free(hs);
}

/*
 * Free-running (the transport benchmark's personality): at 5 fps set, each
 * frame starts in the microframe after the one before it ended, every
 * packet but each frame's last is full, no counter is skipped and every
 * frame is still the reference render of its stamp.
 */
static void test_free_run_fills_every_uframe(void **state)
{
	struct host *hs = host_new(IC1280_FMT_YUYV, 320, 240, 3072);
	size_t payload = 3072 - ISOCAM_PH_LEN_FULL;
	size_t frame = 320 * 240 * 2;
	unsigned int i, per = (unsigned int)((frame + payload - 1) / payload);

	(void)state;
	video_stream_set_free_run(hs->vs, true);
	wr16(hs->s, IC1280_REG_FRAME_LENGTH_H, IC1280_FLL_FOR_FPS(5));
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	/* 0.1 s: 5 fps would give one frame; the bus carries 15 */
	host_run(hs, 800, PKT_MAX);
	assert_int_equal(hs->zlp, 0);
	assert_true(hs->n >= 15);
	for (i = 0; i + 1 < hs->n; i++) {
		assert_int_equal(check_frame(&hs->f[i]), i);
		assert_int_equal(hs->f[i].npkt, per);
		assert_int_equal(hs->f[i + 1].first_t,
				 hs->f[i].first_t + per * UFRAME_NS);
	}
	host_free(hs);
}

/* 640x480 YUYV through 1024-byte packets takes ~76 ms: frames drop. */
static void test_slow_host_drops(void **state)
{
	struct host *hs = host_new(IC1280_FMT_YUYV, 640, 480, 1024);
	struct video_stream_stats st;
	uint32_t prev, c;
	unsigned int i, gaps = 0;

	(void)state;
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000, PKT_MAX);		/* one second */
	video_stream_get_stats(hs->vs, &st);
	assert_true(st.frames_dropped >= 15);
	assert_true(st.frames_sent >= 10);
	prev = check_frame(&hs->f[0]);
	assert_int_equal(prev, 0);
	for (i = 1; i < st.frames_sent; i++) {
		c = check_frame(&hs->f[i]);
		assert_true(c > prev);
		gaps += c - prev - 1;
		prev = c;
	}
	/* Every skipped counter is a counted drop. */
	assert_true(gaps <= st.frames_dropped);
	assert_true(gaps + 2 >= st.frames_dropped);
	host_free(hs);
}

static void test_polling_gap_counts_drops(void **state)
{
	struct host *hs = host_new(IC1280_FMT_GREY, 160, 120, 3072);
	struct video_stream_stats st;
	unsigned int n;

	(void)state;
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 100, PKT_MAX);		/* frame 0 sent */
	assert_int_equal(hs->n, 1);
	hs->t += 1000000000ull;		/* nobody polls for a second */
	host_run(hs, 1000, PKT_MAX);
	video_stream_get_stats(hs->vs, &st);
	/* slot 1 fills the buffer, slots 2..30 find it busy */
	assert_true(st.frames_dropped >= 28 && st.frames_dropped <= 30);
	n = hs->n;
	assert_int_equal(check_frame(&hs->f[1]), 1);
	/* Then frames follow from the current slot on. */
	assert_int_equal(check_frame(&hs->f[2]), 1 + 1 + st.frames_dropped);
	assert_true(n >= 3);
	host_free(hs);
}

static void test_stop_mid_frame(void **state)
{
	struct host *hs = host_new(IC1280_FMT_YUYV, 320, 240, 1024);
	unsigned int i, zlp;

	(void)state;
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 50, PKT_MAX);		/* inside frame 0 */
	assert_int_equal(hs->n, 1);
	assert_false(hs->f[0].eof);

	/* Standby: nothing more of that frame. */
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STANDBY);
	zlp = hs->zlp;
	host_run(hs, 100, PKT_MAX);
	assert_int_equal(hs->zlp, zlp + 100);

	/* Restart: a whole new frame, counter from 0. */
	hs->open = false;
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_int_equal(check_frame(&hs->f[1]), 0);
	assert_int_equal(check_frame(&hs->f[2]), 1);

	/* Alt 0 mid-frame, then the alt back. */
	i = hs->n;
	hs->open = false;
	video_stream_set_packet_size(hs->vs, 0);
	host_run(hs, 10, PKT_MAX);
	video_stream_set_packet_size(hs->vs, 1024);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_int_equal(check_frame(&hs->f[i]), 0);

	/* Standby and streaming again between two polls: a new stream too. */
	i = hs->n;
	host_run(hs, 30, PKT_MAX);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STANDBY);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	hs->open = false;
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_int_equal(check_frame(&hs->f[hs->n - 2]), 0);
	host_free(hs);
}

/*
 * A control change shows in the next captured frame's pixels, the one
 * video_stream_next_frame() names (what isocam-emu -v logs).
 */
static void test_control_in_next_frame(void **state)
{
	struct host *hs = host_new(IC1280_FMT_GREY, 160, 120, 3072);
	struct scene_params p;
	uint32_t next = 99;
	unsigned int i;

	(void)state;
	assert_false(video_stream_next_frame(hs->vs, &next));
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 100, PKT_MAX);		/* frame 0 done */
	assert_true(video_stream_next_frame(hs->vs, &next));
	assert_int_equal(next, 1);
	wr8(hs->s, IC1280_REG_BRIGHTNESS, 40);
	wr8(hs->s, IC1280_REG_FLIP, IC1280_FLIP_H);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	for (i = 0; i < 2; i++) {
		assert_int_equal(check_frame(&hs->f[i]), i);
		assert_int_equal(scene_stamp_parse(hs->f[i].data, hs->f[i].len,
						   &p, NULL, NULL), 0);
		assert_int_equal(p.brightness, i >= next ? 40 : 0);
		assert_int_equal(p.flip, i >= next ? IC1280_FLIP_H : 0);
	}
	host_free(hs);
}

static void test_faults(void **state)
{
	struct fault f;
	struct host *hs;
	size_t frame = 160 * 120;
	unsigned int i;

	(void)state;
	/* Short frames: EOF after half the bytes. */
	memset(&f, 0, sizeof(f));
	f.every[FAULT_SHORT_FRAME] = 1;
	hs = host_new(IC1280_FMT_GREY, 160, 120, 1024);
	video_stream_set_fault(hs->vs, &f);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_true(hs->f[0].eof);
	assert_int_equal(hs->f[0].len, frame / 2);
	host_free(hs);

	/* Long frames: a packet's worth past sizeimage before EOF. */
	memset(&f, 0, sizeof(f));
	f.every[FAULT_LONG_FRAME] = 1;
	hs = host_new(IC1280_FMT_GREY, 160, 120, 1024);
	video_stream_set_fault(hs->vs, &f);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_true(hs->f[0].eof);
	assert_int_equal(hs->f[0].len, frame + 1024);
	host_free(hs);

	/* Error bit on every 3rd packet; data still flows. */
	memset(&f, 0, sizeof(f));
	f.every[FAULT_ERR_BIT] = 3;
	hs = host_new(IC1280_FMT_GREY, 160, 120, 1024);
	video_stream_set_fault(hs->vs, &f);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_true(hs->f[0].err);
	assert_int_equal(hs->f[0].len, frame);
	host_free(hs);

	/* Dropped packets: zero-length on the wire, their data lost. */
	memset(&f, 0, sizeof(f));
	f.every[FAULT_DROP_PACKET] = 4;
	hs = host_new(IC1280_FMT_GREY, 160, 120, 1024);
	video_stream_set_fault(hs->vs, &f);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_true(hs->f[0].len < frame);
	assert_true(hs->f[0].len >= frame / 2);
	host_free(hs);

	/* Corrupt headers: the host sees them, the rest stays well formed. */
	memset(&f, 0, sizeof(f));
	f.every[FAULT_CORRUPT_HEADER] = 2;
	hs = host_new(IC1280_FMT_GREY, 160, 120, 1024);
	video_stream_set_fault(hs->vs, &f);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	host_run(hs, 8000 / 30 * 2, PKT_MAX);
	assert_true(hs->bad_headers >= 10);
	for (i = 0; i < hs->n; i++)
		assert_true(hs->f[i].len < frame + 1024);
	host_free(hs);
}

/*
 * One bulk payload transfer of at most maxlen bytes at bus time t, as the
 * session takes it once video_stream_poll() said data waits: appended to
 * the frame in hs->f[hs->n - 1] (a new one after an EOF). Its length.
 */
static size_t bulk_take(struct host *hs, uint64_t t, size_t maxlen)
{
	static uint8_t xfer[ISOCAM_USB_BULK_MAX_PAYLOAD];
	struct rx_frame *fr;
	uint64_t next;
	size_t len;
	uint8_t info;

	assert_true(maxlen <= sizeof(xfer));
	assert_true(video_stream_poll(hs->vs, t, &next));
	assert_int_equal(next, UINT64_MAX);
	len = video_stream_packet(hs->vs, t, xfer, maxlen);
	assert_true(len > ISOCAM_PH_LEN_FULL && len <= maxlen);
	assert_int_equal(xfer[ISOCAM_PH_OFF_LEN], ISOCAM_PH_LEN_FULL);
	info = xfer[ISOCAM_PH_OFF_INFO];
	assert_int_equal(info & (ISOCAM_PH_EOH | ISOCAM_PH_PTS | ISOCAM_PH_SCR |
				 ISOCAM_PH_ERR | ISOCAM_PH_RES),
			 ISOCAM_PH_EOH | ISOCAM_PH_PTS | ISOCAM_PH_SCR);
	assert_int_equal(le32(xfer + ISOCAM_PH_OFF_SCR_STC), (uint32_t)(t / 1000));
	fr = host_append(hs, xfer, len, t);
	/* one frame: one FID in every transfer */
	assert_int_equal(info & ISOCAM_PH_FID, fr->fid);
	if (!(info & ISOCAM_PH_EOF))
		assert_int_equal(len, maxlen);	/* only a frame's last is short */
	return len;
}

/*
 * The bulk transport's use of the pipe: video_stream_poll() says whether
 * data waits without sending any, and otherwise when the next capture
 * slot is; each packet is one payload transfer as long as the URB allows
 * (up to the contract's maximum), the frame's last one short with EOF.
 */
static void test_bulk_poll(void **state)
{
	struct host *hs = host_new(IC1280_FMT_YUYV, 320, 240,
				   ISOCAM_USB_BULK_MAX_PAYLOAD);
	uint64_t t, t0, next, period = 1000000000ull / 30;
	size_t frame = 320 * 240 * 2;
	size_t per = ISOCAM_USB_BULK_MAX_PAYLOAD - ISOCAM_PH_LEN_FULL;
	struct video_stream_stats st;
	unsigned int i;

	(void)state;
	/* standby: no data and no slot to wait for */
	assert_false(video_stream_poll(hs->vs, hs->t, &next));
	assert_int_equal(next, UINT64_MAX);
	wr8(hs->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	t = t0 = hs->t;
	for (i = 0; i < 4; i++) {
		/* 153600 bytes: two full transfers and a short last one */
		do
			t += 1000;
		while (bulk_take(hs, t, ISOCAM_USB_BULK_MAX_PAYLOAD) ==
		       ISOCAM_USB_BULK_MAX_PAYLOAD);
		assert_false(hs->open);
		assert_int_equal(check_frame(&hs->f[i]), i);
		assert_int_equal(hs->f[i].fid, i & 1 ? ISOCAM_PH_FID : 0);
		assert_int_equal(hs->f[i].npkt, (frame + per - 1) / per);
		/* then nothing until the next slot, which poll names */
		assert_false(video_stream_poll(hs->vs, t, &next));
		assert_int_equal(next, t0 + 1000 + (i + 1) * period);
		assert_false(video_stream_poll(hs->vs, next - 1, &next));
		t = next - 1000;
	}
	video_stream_get_stats(hs->vs, &st);
	assert_int_equal(st.frames_sent, 4);
	assert_int_equal(st.frames_dropped, 0);

	/* a smaller URB: more, smaller transfers of the same frames */
	t = next;
	do
		t += 1000;
	while (bulk_take(hs, t, 4096) == 4096);
	assert_int_equal(check_frame(&hs->f[4]), 4);
	assert_int_equal(hs->f[4].npkt, (frame + 4083) / 4084);
	assert_int_equal(hs->bad_headers, 0);
	host_free(hs);
}

/* ---- zero copy: video_stream_packet_iov() against video_stream_packet() ---- */

/* A packet described but not yet "sent": where its pieces lie. */
struct iov_pkt {
	uint8_t head[ISOCAM_PH_LEN_FULL];
	size_t head_len;
	const uint8_t *data;	/* in the frame buffer (held) or in copy */
	uint8_t copy[PKT_MAX];
	size_t data_len, fill_len;
};

/*
 * Drive two identical pipes for uframes microframes, one copying and one
 * described, the latter "sent" (flattened) only at the end of each URB of
 * urb packets, as the session does: every packet's bytes, every stat and
 * the stream state must match.
 */
static void iov_matches_copy(struct host *a, struct host *b,
			     unsigned int uframes, unsigned int urb,
			     size_t maxlen)
{
	struct iov_pkt *q = calloc(urb, sizeof(*q));
	uint8_t (*want)[PKT_MAX] = calloc(urb, PKT_MAX);
	size_t *want_len = calloc(urb, sizeof(*want_len));
	struct video_stream_stats sa, sb;
	unsigned int i, k, held = 0, data = 0;

	assert_non_null(q);
	assert_non_null(want);
	assert_non_null(want_len);
	for (i = 0; i < uframes; i += urb) {
		for (k = 0; k < urb; k++) {
			struct video_packet p;
			size_t len;

			want_len[k] = video_stream_packet(a->vs, a->t, want[k],
							  maxlen);
			len = video_stream_packet_iov(b->vs, b->t, maxlen, &p);
			a->t += UFRAME_NS;
			b->t += UFRAME_NS;
			assert_int_equal(len, want_len[k]);
			assert_int_equal(len, p.head_len + p.data_len +
					 p.fill_len);
			memcpy(q[k].head, p.head, sizeof(p.head));
			q[k].head_len = p.head_len;
			q[k].data_len = p.data_len;
			q[k].fill_len = p.fill_len;
			q[k].data = p.data;
			if (p.data_len && !p.held) {
				/* not kept aside: copied now, as a caller must */
				memcpy(q[k].copy, p.data, p.data_len);
				q[k].data = q[k].copy;
			}
			held += p.held;
			data += p.data_len > 0;
		}
		/* "sent": the bytes each packet had when it was made */
		for (k = 0; k < urb; k++) {
			uint8_t got[PKT_MAX];

			memcpy(got, q[k].head, q[k].head_len);
			if (q[k].data_len)
				memcpy(got + q[k].head_len, q[k].data,
				       q[k].data_len);
			memset(got + q[k].head_len + q[k].data_len,
			       VIDEO_STREAM_FILLER, q[k].fill_len);
			if (want_len[k])
				assert_memory_equal(got, want[k], want_len[k]);
		}
		video_stream_release(b->vs);
	}
	video_stream_get_stats(a->vs, &sa);
	video_stream_get_stats(b->vs, &sb);
	assert_int_equal(sa.frames_sent, sb.frames_sent);
	assert_int_equal(sa.frames_dropped, sb.frames_dropped);
	assert_int_equal(sa.packets, sb.packets);
	assert_int_equal(sa.bytes_sent, sb.bytes_sent);
	assert_int_equal(sa.error_frames, sb.error_frames);
	assert_true(sa.frames_sent >= 2);
	/* data went out from the frame buffer, uncopied */
	assert_true(held > 0 || !data);
	free(q);
	free(want);
	free(want_len);
}

/* One comparison of the two paths, on two identical pipes. */
struct iov_setup {
	uint8_t fmt;
	uint16_t w, h;
	uint32_t pkt;
	bool free_run;
	bool jpeg;
	struct fault *fa, *fb;	/* identical fault doubles, or NULL */
	const char *hostile;	/* or NULL */
	unsigned int uframes, urb;
};

static void iov_case(const struct iov_setup *c)
{
	struct host *hs[2];
	struct hostile *hh[2] = { NULL, NULL };
	char err[512];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		hs[i] = host_new(c->fmt, c->w, c->h, c->pkt);
		if (c->hostile) {
			hh[i] = hostile_new(c->hostile, true, 1, err,
					    sizeof(err));
			assert_non_null(hh[i]);
			video_stream_set_hostile(hs[i]->vs, hh[i]);
		}
		if (c->jpeg)
			video_stream_set_codec(hs[i]->vs, ISOCAM_CODEC_JPEG, 85);
		video_stream_set_fault(hs[i]->vs, i ? c->fb : c->fa);
		video_stream_set_free_run(hs[i]->vs, c->free_run);
		wr8(hs[i]->s, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING);
	}
	iov_matches_copy(hs[0], hs[1], c->uframes, c->urb, PKT_MAX);
	for (i = 0; i < 2; i++) {
		host_free(hs[i]);
		hostile_free(hh[i]);
	}
}

/*
 * The described packets are the copied ones, byte for byte: frame
 * boundaries inside a URB (free-running small frames end and start
 * several frames in one), FID and EOF, every fault (long frames' filler,
 * short frames, drops, ERR, corrupt headers), the JPEG codec, and the
 * hostile payload modes, which rewrite only headers.
 */
static void test_iov_matches_copy(void **state)
{
	static const char *const hostile[] = {
		"ph-len0", "ph-len1", "ph-len-over", "fid-stuck", "fid-flip",
		"eof-never", "eof-always", "frame-10x", "ph-err",
	};
	struct iov_setup small = {
		IC1280_FMT_GREY, 160, 120, 1024, .free_run = true,
		.uframes = 400, .urb = 16,
	};
	struct iov_setup c;
	struct fault fa, fb;
	unsigned int i, k;

	(void)state;
	/* real time, 32-packet URBs: a frame spans several */
	iov_case(&(struct iov_setup){ IC1280_FMT_YUYV, 320, 240, 3072,
				      .uframes = 8000 / 30 * 4, .urb = 32 });
	/* free-running small frames: several end in each URB */
	iov_case(&(struct iov_setup){ IC1280_FMT_GREY, 160, 120, 3072,
				      .free_run = true, .uframes = 400,
				      .urb = 40 });
	c = small;
	c.urb = 7;
	iov_case(&c);
	for (k = 0; k < FAULT_VANISH; k++) {
		if (k == FAULT_I2C_NAK || k == FAULT_CTRL_STALL)
			continue;
		memset(&fa, 0, sizeof(fa));
		fa.every[k] = 3;
		fb = fa;
		c = small;
		c.fa = &fa;
		c.fb = &fb;
		iov_case(&c);
	}
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		c = small;
		c.hostile = hostile[i];
		iov_case(&c);
	}
	/* JPEG: the buffer holds an encoding */
	iov_case(&(struct iov_setup){ IC1280_FMT_YUYV, 320, 240, 3072,
				      .free_run = true, .jpeg = true,
				      .uframes = 320, .urb = 32 });
}

/*
 * A held buffer is never rendered into: packets described across many
 * frame boundaries before one release still read their own frames.
 */
static void test_iov_held_frames_survive(void **state)
{
	(void)state;
	/* one "URB" of 200 packets: ~28 frames before anything is sent */
	iov_case(&(struct iov_setup){ IC1280_FMT_GREY, 160, 120, 3072,
				      .free_run = true, .uframes = 400,
				      .urb = 200 });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_sends_nothing),
		cmocka_unit_test(test_framing_and_content),
		cmocka_unit_test(test_packet_limits),
		cmocka_unit_test(test_frame_rate_follows_fll),
		cmocka_unit_test(test_free_run_fills_every_uframe),
		cmocka_unit_test(test_slow_host_drops),
		cmocka_unit_test(test_polling_gap_counts_drops),
		cmocka_unit_test(test_stop_mid_frame),
		cmocka_unit_test(test_control_in_next_frame),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_jpeg),
		cmocka_unit_test(test_bulk_poll),
		cmocka_unit_test(test_iov_matches_copy),
		cmocka_unit_test(test_iov_held_frames_survive),
	};

	return cmocka_run_group_tests_name("emu_stream", tests, NULL, NULL);
}
