/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A YUV4MPEG2 stream, the uncompressed video ffmpeg (-f yuv4mpegpipe)
 * and GStreamer (y4menc) write: its header (size, rate, chroma layout)
 * and its frames as 8-bit planes, from a file (which can be read again
 * from the start) or a pipe. The first room of a user's own picture as
 * the camera's source.
 */
#ifndef ISOCAM_EMU_Y4M_H
#define ISOCAM_EMU_Y4M_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define Y4M_MAX_DIM	8192	/* wider or taller streams are refused */

enum y4m_chroma {
	Y4M_420,	/* 420jpeg, 420paldv, 420mpeg2, 420: 2x2 subsampled */
	Y4M_422,	/* horizontally subsampled */
	Y4M_444,
	Y4M_MONO,	/* luma only */
};

struct y4m_info {
	uint32_t width, height;
	uint32_t fps_num, fps_den;	/* frames per second: num / den */
	enum y4m_chroma chroma;
};

struct y4m;

/*
 * Read the stream header from path ("-": standard input). NULL and the
 * reason in err for a file that is not 8-bit progressive YUV4MPEG2.
 */
struct y4m *y4m_open(const char *path, char *err, size_t errlen);
/* The same from fd, which it takes (closed by y4m_close()). */
struct y4m *y4m_open_fd(int fd, char *err, size_t errlen);
void y4m_close(struct y4m *y);

const struct y4m_info *y4m_info(const struct y4m *y);
/* Bytes of one frame: the Y plane, then Cb and Cr (none for mono). */
size_t y4m_frame_size(const struct y4m_info *i);

/*
 * The next frame into buf (y4m_frame_size() bytes): 1, 0 at the end of
 * the stream (a frame cut short is an error, not an end), -1 with the
 * reason in err.
 */
int y4m_read(struct y4m *y, uint8_t *buf, char *err, size_t errlen);
/* Back to the first frame, for a file played in a loop: 0, or -1 (a pipe). */
int y4m_rewind(struct y4m *y);

#endif /* ISOCAM_EMU_Y4M_H */
