// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bridge's video pipe (video_stream.h): a one-frame buffer between
 * the sensor and the isochronous endpoint.
 *
 * Time is the bus time the caller gives, never the wall clock, so the
 * model is deterministic and testable. A stream starts at the first
 * packet call that finds the sensor streaming and a non-zero alt (t0);
 * capture slot N is at t0 + N * period, each later slot one period (as
 * the timing registers say at that moment) after the previous one.
 * Capture renders only when the buffer is free; a busy buffer drops the
 * frame, and its counter is skipped so receivers can see the gap.
 *
 * The bulk transport asks video_stream_poll() whether data waits before
 * it takes a packet (a payload transfer, there) so that its URBs wait
 * rather than complete empty; the packets themselves are the same.
 *
 * Packets: a 12-byte payload header (PTS = start of exposure, the
 * effective exposure before the capture slot; SCR = send time; both in
 * the 1 MHz sensor clock; FID toggling per frame; EOF on
 * the last packet; EOH always) and as much frame data as fits.
 *
 * Fault opportunities (fault.h): per data packet DROP_PACKET (the data
 * is lost, a zero-length packet goes out), CORRUPT_HEADER, ERR_BIT; per
 * frame SHORT_FRAME (EOF after half the frame) and LONG_FRAME (one
 * packet's worth of filler past sizeimage before EOF).
 *
 * Hostile payload modes (hostile.h) rewrite every data packet after the
 * faults, and frame-10x sends filler past sizeimage up to 10x of it.
 *
 * Zero copy: video_stream_packet_iov() describes a packet instead of
 * writing it, so a transport can send the data from the frame buffer.
 * Such a buffer is kept aside until the caller has sent it
 * (video_stream_release()); a capture meanwhile renders into a second
 * one. The model is still the one-frame buffer above: the second one only
 * stands in for the bytes on their way through the socket.
 *
 * With the JPEG codec (the bridge register), a capture is the frame's
 * JPEG (mjpeg.c) instead of its raw pixels. A change of picture or
 * quality makes the encoder encode every scroll position first, right
 * there: the camera freezes for that long and then goes on from the same
 * frame counter (nothing is dropped), as a bridge whose encoder
 * re-primes would. A frame it cannot encode goes out as an error frame.
 */
#include "video_stream.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isocam/payload.h>
#include <isocam/usb.h>

#include "fault.h"
#include "grow.h"
#include "hostile.h"
#include "ic1280_model.h"
#include "mjpeg.h"
#include "scene.h"

/*
 * Frame buffers: packets sent straight from a buffer keep it aside until
 * video_stream_release(), and a capture then renders into the other one.
 * Two are enough: at most one is ever kept aside (a packet whose buffer
 * cannot be kept, because the other one already is, is copied by the
 * caller instead), so a capture always finds one free.
 */
#define FRAME_BUFS	2

struct video_stream {
	struct ic1280 *sensor;
	struct fault *fault;
	const struct hostile *hostile;
	struct scene *scene;
	struct mjpeg *mjpeg;
	uint32_t packet_bytes;
	uint8_t codec;		/* ISOCAM_CODEC_*, from the next capture */
	uint8_t jpeg_quality;
	bool free_run;

	bool running;
	uint32_t stream_id;	/* ic1280_stream_starts() at start */
	uint64_t next_capture_ns;
	uint32_t next_counter;
	uint8_t fid;

	/* the frame buffer: fb[cur] */
	bool busy;
	struct frame_buf {
		uint8_t *p;
		size_t cap;
		bool held;	/* packets not yet sent point into it */
	} fb[FRAME_BUFS];
	unsigned int cur;
	size_t data_len;	/* frame bytes to send (short frame: fewer) */
	size_t total_len;	/* data_len plus long-frame filler */
	size_t sent;
	bool frame_err;		/* every packet of the frame says ERR */
	uint64_t exposure_start_ns;	/* the frame's PTS */

	struct video_stream_stats st;
};

struct video_stream *video_stream_new(struct ic1280 *sensor)
{
	struct video_stream *vs = calloc(1, sizeof(*vs));

	if (!vs)
		return NULL;
	vs->scene = scene_new();
	vs->mjpeg = mjpeg_new();
	if (!vs->scene || !vs->mjpeg) {
		video_stream_free(vs);
		return NULL;
	}
	vs->sensor = sensor;
	vs->codec = ISOCAM_CODEC_RAW;
	vs->jpeg_quality = ISOCAM_JPEG_QUALITY_DEFAULT;
	return vs;
}

void video_stream_free(struct video_stream *vs)
{
	unsigned int i;

	if (!vs)
		return;
	scene_free(vs->scene);
	mjpeg_free(vs->mjpeg);
	for (i = 0; i < FRAME_BUFS; i++)
		free(vs->fb[i].p);
	free(vs);
}

void video_stream_set_free_run(struct video_stream *vs, bool on)
{
	vs->free_run = on;
}

void video_stream_set_codec(struct video_stream *vs, uint8_t codec,
			    uint8_t jpeg_quality)
{
	vs->codec = codec;
	vs->jpeg_quality = jpeg_quality;
}

/* The frame in progress is lost; the next start counts from 0 again. */
static void stream_stop(struct video_stream *vs)
{
	vs->running = false;
	vs->busy = false;
}

void video_stream_set_packet_size(struct video_stream *vs,
				  uint32_t packet_bytes)
{
	vs->packet_bytes = packet_bytes;
	if (!packet_bytes)
		stream_stop(vs);
}

void video_stream_set_fault(struct video_stream *vs, struct fault *f)
{
	vs->fault = f;
}

void video_stream_set_hostile(struct video_stream *vs,
			      const struct hostile *h)
{
	vs->hostile = h;
}

static void stream_start(struct video_stream *vs, uint64_t t_ns)
{
	vs->running = true;
	vs->stream_id = ic1280_stream_starts(vs->sensor);
	vs->next_capture_ns = t_ns;
	vs->next_counter = 0;
	vs->fid = 1;		/* toggled before the first frame: FID 0 */
	vs->busy = false;
}

/* For the cost statistics only: the stream itself runs on bus time. */
static uint64_t cost_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The JPEG of frame `counter` into the buffer: its length, or 0 for an
 * error frame (not YUYV, too big, out of memory).
 */
static size_t capture_jpeg(struct video_stream *vs,
			   const struct scene_params *p)
{
	struct frame_buf *fb = &vs->fb[vs->cur];
	size_t max = ISOCAM_JPEG_MAX_FRAME((size_t)p->width, p->height);
	unsigned long before = mjpeg_encodes(vs->mjpeg), encodes;
	uint64_t t0 = cost_clock_ns(), dt;
	size_t len;

	if (!mjpeg_can_encode(p) || emu_grow(&fb->p, &fb->cap, max) ||
	    mjpeg_prepare(vs->mjpeg, vs->scene, p, vs->jpeg_quality))
		return 0;
	len = mjpeg_frame(vs->mjpeg, vs->scene, p, vs->jpeg_quality,
			  vs->next_counter, fb->p, max);
	dt = cost_clock_ns() - t0;
	encodes = mjpeg_encodes(vs->mjpeg) - before;
	vs->st.jpeg_encodes += encodes;
	if (encodes) {
		if (dt > vs->st.jpeg_freeze_ns_max)
			vs->st.jpeg_freeze_ns_max = dt;
	} else if (len) {
		vs->st.jpeg_frames++;
		vs->st.jpeg_frame_ns_sum += dt;
		if (dt > vs->st.jpeg_frame_ns_max)
			vs->st.jpeg_frame_ns_max = dt;
	}
	return len;
}

/* Render capture slot `counter` into the free buffer. */
static bool capture(struct video_stream *vs, uint64_t when)
{
	struct scene_params p;
	struct frame_buf *fb;
	uint64_t exposure;
	size_t size;

	/* packets still to be sent read the held one: render elsewhere */
	if (vs->fb[vs->cur].held)
		vs->cur = (vs->cur + 1) % FRAME_BUFS;
	fb = &vs->fb[vs->cur];
	ic1280_scene_params(vs->sensor, &p);
	vs->frame_err = false;
	if (vs->codec == ISOCAM_CODEC_JPEG) {
		size = capture_jpeg(vs, &p);
		if (!size) {
			vs->frame_err = true;
			vs->st.error_frames++;
		}
	} else {
		size = scene_frame_size(&p);
		if (!size || emu_grow(&fb->p, &fb->cap, size) ||
		    scene_render(vs->scene, &p, vs->next_counter, fb->p))
			return false;
	}
	vs->busy = true;
	/* Read out from its slot, so exposed for the exposure before it. */
	exposure = (uint64_t)p.exposure * 100000;
	vs->exposure_start_ns = when > exposure ? when - exposure : 0;
	vs->sent = 0;
	vs->data_len = size;
	vs->total_len = hostile_frame_len(vs->hostile, size);
	vs->fid ^= 1;
	if (fault_hit(vs->fault, FAULT_SHORT_FRAME))
		vs->data_len = vs->total_len = size / 2;
	if (fault_hit(vs->fault, FAULT_LONG_FRAME))
		vs->total_len += vs->packet_bytes;
	return true;
}

/* Every capture slot up to t_ns: at most one renders, the rest drop. */
static void run_captures(struct video_stream *vs, uint64_t t_ns)
{
	/* Free-running: the buffer is free, so the next slot is now. */
	if (vs->free_run && !vs->busy && vs->next_capture_ns > t_ns)
		vs->next_capture_ns = t_ns;
	while (vs->next_capture_ns <= t_ns) {
		uint64_t period = ic1280_frame_period_ns(vs->sensor);
		uint64_t n;

		if (!vs->busy) {
			if (!capture(vs, vs->next_capture_ns))
				vs->st.frames_dropped++;
			vs->next_counter++;
			vs->next_capture_ns += period;
			continue;
		}
		/* Busy: all remaining slots drop; count them in one step. */
		n = (t_ns - vs->next_capture_ns) / period + 1;
		vs->st.frames_dropped += n;
		vs->next_counter += (uint32_t)n;
		vs->next_capture_ns += n * period;
	}
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

/* Deterministic garbage, a different kind each time it fires. */
static void corrupt_header(uint8_t *pkt, uint64_t nth)
{
	switch (nth % 4) {
	case 0:
		pkt[ISOCAM_PH_OFF_LEN] = 0;
		break;
	case 1:
		pkt[ISOCAM_PH_OFF_LEN] = 0xff;	/* longer than any packet */
		break;
	case 2:
		pkt[ISOCAM_PH_OFF_LEN] = 1;
		break;
	default:
		pkt[ISOCAM_PH_OFF_INFO] = (pkt[ISOCAM_PH_OFF_INFO] |
					   ISOCAM_PH_RES) & ~ISOCAM_PH_EOH;
		break;
	}
}

bool video_stream_next_frame(const struct video_stream *vs, uint32_t *counter)
{
	if (!vs->running)
		return false;
	*counter = vs->next_counter;
	return true;
}

/*
 * Bring the pipe to bus time t_ns: stop, (re)start and capture as the
 * sensor and the endpoint say. False while it cannot stream.
 */
static bool advance(struct video_stream *vs, uint64_t t_ns)
{
	if (!ic1280_streaming(vs->sensor) || !vs->packet_bytes) {
		if (vs->running)
			stream_stop(vs);
		return false;
	}
	/* A standby/streaming pair between two polls is a new stream too. */
	if (vs->running && vs->stream_id != ic1280_stream_starts(vs->sensor))
		stream_stop(vs);
	if (!vs->running)
		stream_start(vs, t_ns);

	run_captures(vs, t_ns);
	return true;
}

bool video_stream_poll(struct video_stream *vs, uint64_t t_ns,
		       uint64_t *next_ns)
{
	*next_ns = UINT64_MAX;
	if (!advance(vs, t_ns))
		return false;
	if (vs->busy)
		return true;
	*next_ns = vs->next_capture_ns;
	return false;
}

/*
 * Keep the current frame buffer aside for packets sent straight from it,
 * unless the other one is kept already (a capture would have nowhere to
 * render).
 */
static bool hold_frame(struct video_stream *vs)
{
	unsigned int i;

	for (i = 0; i < FRAME_BUFS; i++)
		if (i != vs->cur && vs->fb[i].held)
			return false;
	vs->fb[vs->cur].held = true;
	return true;
}

void video_stream_release(struct video_stream *vs)
{
	unsigned int i;

	for (i = 0; i < FRAME_BUFS; i++)
		vs->fb[i].held = false;
}

/*
 * The next packet, described (p zeroed for a zero-length one): both
 * video_stream_packet() and video_stream_packet_iov(). hold: the caller
 * sends the data later, from where it lies.
 */
static size_t describe(struct video_stream *vs, uint64_t t_ns, size_t maxlen,
		       bool hold, struct video_packet *p)
{
	uint8_t *head = p->head;
	size_t room, n, d, len, at;
	uint8_t info;
	bool last;

	memset(p, 0, sizeof(*p));
	if (!advance(vs, t_ns) || !vs->busy)
		return 0;

	room = maxlen < vs->packet_bytes ? maxlen : vs->packet_bytes;
	if (room <= ISOCAM_PH_LEN_FULL)
		return 0;	/* no room for data: nothing useful to send */
	n = vs->total_len - vs->sent;
	if (n > room - ISOCAM_PH_LEN_FULL)
		n = room - ISOCAM_PH_LEN_FULL;
	last = vs->sent + n == vs->total_len;

	info = ISOCAM_PH_EOH | ISOCAM_PH_PTS | ISOCAM_PH_SCR |
	       (vs->fid ? ISOCAM_PH_FID : 0) | (last ? ISOCAM_PH_EOF : 0);
	head[ISOCAM_PH_OFF_LEN] = ISOCAM_PH_LEN_FULL;
	put32(head + ISOCAM_PH_OFF_PTS,
	      (uint32_t)(vs->exposure_start_ns /
			 (1000000000 / ISOCAM_PH_CLOCK_HZ)));
	put32(head + ISOCAM_PH_OFF_SCR_STC,
	      (uint32_t)(t_ns / (1000000000 / ISOCAM_PH_CLOCK_HZ)));
	/* USB frame number: 1 ms frames, 11 bits. */
	head[ISOCAM_PH_OFF_SCR_SOF] = (uint8_t)(t_ns / 1000000);
	head[ISOCAM_PH_OFF_SCR_SOF + 1] = (uint8_t)((t_ns / 1000000) >> 8 & 0x07);

	/* Frame bytes, then long-frame filler past data_len. */
	d = 0;
	if (vs->sent < vs->data_len) {
		d = vs->data_len - vs->sent;
		if (d > n)
			d = n;
	}
	at = vs->sent;
	vs->sent += n;
	if (last)
		vs->busy = false;

	if (fault_hit(vs->fault, FAULT_DROP_PACKET)) {
		memset(p, 0, sizeof(*p));
		return 0;	/* lost on the wire: the data is gone */
	}
	if (vs->frame_err || fault_hit(vs->fault, FAULT_ERR_BIT))
		head[ISOCAM_PH_OFF_INFO] = info | ISOCAM_PH_ERR;
	else
		head[ISOCAM_PH_OFF_INFO] = info;
	if (fault_hit(vs->fault, FAULT_CORRUPT_HEADER))
		corrupt_header(head, vs->st.packets);

	if (last)
		vs->st.frames_sent++;
	/* hostile.h rewrites only the header, and may cut the packet short */
	len = hostile_payload(vs->hostile, head, ISOCAM_PH_LEN_FULL + n,
			      vs->st.packets);
	vs->st.packets++;
	vs->st.bytes_sent += len;

	p->head_len = len < ISOCAM_PH_LEN_FULL ? len : ISOCAM_PH_LEN_FULL;
	p->data_len = len - p->head_len < d ? len - p->head_len : d;
	p->fill_len = len - p->head_len - p->data_len;
	if (p->data_len) {
		p->data = vs->fb[vs->cur].p + at;
		p->held = hold && hold_frame(vs);
	}
	return len;
}

size_t video_stream_packet_iov(struct video_stream *vs, uint64_t t_ns,
			       size_t maxlen, struct video_packet *p)
{
	return describe(vs, t_ns, maxlen, true, p);
}

size_t video_stream_packet(struct video_stream *vs, uint64_t t_ns,
			   uint8_t *pkt, size_t maxlen)
{
	struct video_packet p;
	size_t len = describe(vs, t_ns, maxlen, false, &p);

	memcpy(pkt, p.head, p.head_len);
	if (p.data_len)
		memcpy(pkt + p.head_len, p.data, p.data_len);
	memset(pkt + p.head_len + p.data_len, VIDEO_STREAM_FILLER, p.fill_len);
	return len;
}

void video_stream_get_stats(const struct video_stream *vs,
			    struct video_stream_stats *st)
{
	*st = vs->st;
}
