/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The bridge's video pipe: frames from the sensor, cut into isochronous
 * packets (or bulk payload transfers, each one "packet" here) with
 * payload headers (include/isocam/payload.h), in real time.
 *
 * Model: a bridge with a one-frame buffer. While the sensor streams, frame
 * N is captured at t0 + N * period. When it is captured and the buffer is
 * free, it is rendered into the buffer and drained into packets, one per
 * microframe, each at most the alt setting's packet size. A frame that is
 * captured while the previous one is still draining is dropped by the
 * bridge (its counter is skipped, so receivers see the gap). Microframes
 * with nothing to send give zero-length packets.
 */
#ifndef ISOCAM_EMU_VIDEO_STREAM_H
#define ISOCAM_EMU_VIDEO_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <isocam/payload.h>

struct ic1280;
struct fault;
struct hostile;

struct video_stream;

struct video_stream *video_stream_new(struct ic1280 *sensor);
void video_stream_free(struct video_stream *vs);

/* The host picked an alt setting; packet_bytes 0 (alt 0) stops the pipe. */
void video_stream_set_packet_size(struct video_stream *vs,
				  uint32_t packet_bytes);

/*
 * The bridge's codec registers (include/isocam/usb.h): ISOCAM_CODEC_RAW
 * or ISOCAM_CODEC_JPEG at jpeg_quality, from the next frame captured.
 */
void video_stream_set_codec(struct video_stream *vs, uint8_t codec,
			    uint8_t jpeg_quality);

/*
 * A test personality for transport benchmarks: capture the next frame as
 * soon as the last one is sent, whatever the sensor's frame timing, so
 * every microframe of the stream is full.
 */
void video_stream_set_free_run(struct video_stream *vs, bool on);

/* Faults to inject (may be NULL). */
void video_stream_set_fault(struct video_stream *vs, struct fault *f);
/* Hostile payload modes (may be NULL). */
void video_stream_set_hostile(struct video_stream *vs,
			      const struct hostile *h);

/*
 * Produce the packet for the microframe at bus time t_ns (monotonic, ns;
 * successive calls have growing t_ns). Writes at most maxlen bytes to pkt
 * and returns the length (0: zero-length packet).
 */
size_t video_stream_packet(struct video_stream *vs, uint64_t t_ns,
			   uint8_t *pkt, size_t maxlen);

/* The bytes of a long frame (and of frame-10x) past sizeimage. */
#define VIDEO_STREAM_FILLER	0xa5

/*
 * One packet as video_stream_packet_iov() describes it, in wire order:
 * head_len bytes of head (the payload header, as faults and hostile
 * modes left it), data_len bytes of frame data at data, then fill_len
 * VIDEO_STREAM_FILLER bytes.
 */
struct video_packet {
	uint8_t head[ISOCAM_PH_LEN_FULL];
	size_t head_len;
	const uint8_t *data;
	size_t data_len;
	size_t fill_len;
	/*
	 * data lies in a frame buffer the pipe leaves untouched until
	 * video_stream_release(), so it can be sent from there. False when
	 * it cannot keep one more buffer aside: data is then good only until
	 * the next call into the pipe, and must be copied before.
	 */
	bool held;
};

/*
 * video_stream_packet() without the copy: the same packet (same stream
 * state, statistics, faults and hostile rewrites), described instead of
 * written out. Returns its length, head_len + data_len + fill_len.
 */
size_t video_stream_packet_iov(struct video_stream *vs, uint64_t t_ns,
			       size_t maxlen, struct video_packet *p);

/*
 * Every packet described so far is sent (or given up): the frame
 * buffers their data lies in may be rendered into again.
 */
void video_stream_release(struct video_stream *vs);

/*
 * For a transport that sends only when it has data (bulk): bring the pipe
 * to bus time t_ns exactly as video_stream_packet() would (start, stop,
 * captures), without sending. True when frame data waits, so the next
 * video_stream_packet() at t_ns carries some (unless a fault drops it).
 * Otherwise *next_ns is the bus time of the next capture slot, or
 * UINT64_MAX while the pipe cannot stream (sensor in standby, no
 * endpoint): only a control request changes that.
 */
bool video_stream_poll(struct video_stream *vs, uint64_t t_ns,
		       uint64_t *next_ns);

/*
 * While the pipe streams: true, and *counter is the frame the next capture
 * will carry (settings written now show from that frame on, unless it is
 * dropped). False while stopped.
 */
bool video_stream_next_frame(const struct video_stream *vs, uint32_t *counter);

struct video_stream_stats {
	uint64_t frames_sent;	/* frames whose EOF packet went out */
	uint64_t frames_dropped;	/* captured but dropped (buffer busy) */
	uint64_t bytes_sent;	/* payload and headers */
	uint64_t packets;
	uint64_t error_frames;	/* sent with ERR: the encoder could not */
	uint64_t jpeg_encodes;	/* real JPEG encodes (the camera froze) */
	/*
	 * What a JPEG capture cost, CLOCK_MONOTONIC (in the TCG guest, guest
	 * time): the worst one that encoded (a freeze), and those that only
	 * rotated an encoding (every frame's cost, to compare with the frame
	 * interval).
	 */
	uint64_t jpeg_freeze_ns_max;
	uint64_t jpeg_frames;
	uint64_t jpeg_frame_ns_sum;
	uint64_t jpeg_frame_ns_max;
};
void video_stream_get_stats(const struct video_stream *vs,
			    struct video_stream_stats *st);

#endif /* ISOCAM_EMU_VIDEO_STREAM_H */
