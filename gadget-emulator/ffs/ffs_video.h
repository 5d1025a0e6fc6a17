/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The camera's bulk video endpoint over FunctionFS (isocam-emu
 * --gadget=ffs): payload transfers from the bridge's video pipe written
 * to the endpoint's file with Linux AIO, paced as the USB/IP bulk path
 * paces them.
 *
 * Why AIO: once the host stops reading (stream off), a blocking write()
 * in flight would hold the serving thread, and its transfer, a piece of
 * a frame of the stream that ended, would be the next stream's first
 * data. Stream off reaches the camera as the sensor's MODE_SELECT going
 * to standby (an i2c vendor request on ep0; the CLEAR_FEATURE(HALT) that
 * follows is answered by the UDC alone), so after every ep0 event the
 * caller cancels the transfers of a stream that is no longer the
 * sensor's current one (io_cancel dequeues the USB request). At most
 * FFS_VIDEO_SLOTS transfers are queued, each from a buffer of its own.
 *
 * Single-threaded: one thread calls everything here; the bridge is used
 * under the caller's lock, and the counters are read under it too.
 */
#ifndef ISOCAM_EMU_FFS_VIDEO_H
#define ISOCAM_EMU_FFS_VIDEO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct bridge;

/* transfers queued on the endpoint at once (a ZLP takes one) */
#define FFS_VIDEO_SLOTS		6

struct ffs_video_stats {
	uint64_t transfers;	/* completed with data */
	uint64_t zlps;		/* zero-length packets sent */
	uint64_t bytes;
	uint64_t cancelled;	/* at stream stops or at the end */
	uint64_t ended_by_host;	/* ESHUTDOWN, ECONNRESET, ENODEV */
	uint64_t failed;	/* any other error */
};

struct ffs_video;

/*
 * fd: the endpoint's file (non-blocking, so that a write to an endpoint
 * that is not enabled fails with EAGAIN instead of waiting). NULL with
 * a logged reason.
 */
struct ffs_video *ffs_video_new(const char *name, bool verbose, int fd,
				struct bridge *b, pthread_mutex_t *lock);
/* Cancels and collects what is in flight (up to a second), then frees. */
void ffs_video_free(struct ffs_video *v);

/* Readable when transfers completed: call ffs_video_reap(). */
int ffs_video_event_fd(const struct ffs_video *v);

/*
 * The endpoint is enabled with maxp-byte packets (ENABLE), or not (0:
 * DISABLE, UNBIND, a write refused): nothing is queued while it is not.
 */
void ffs_video_enable(struct ffs_video *v, uint16_t maxp);

/*
 * Queue the payload transfers the pipe has data for, now. *wake: the
 * monotonic time to call again (the next capture), UINT64_MAX when only
 * a completion or an ep0 event can change anything.
 */
void ffs_video_feed(struct ffs_video *v, uint64_t *wake);

/* Collect completed transfers (without waiting). */
void ffs_video_reap(struct ffs_video *v);

/* Cancel the transfers of a stream that stopped (see above), or all. */
void ffs_video_cancel(struct ffs_video *v, bool all);

/* Transfers in flight. */
unsigned int ffs_video_in_flight(const struct ffs_video *v);

/* The counters; take the caller's lock around it if another thread reads. */
void ffs_video_get_stats(const struct ffs_video *v, struct ffs_video_stats *st);

/*
 * A transfer of len bytes on an endpoint of maxp-byte packets needs a
 * zero-length packet after it to end on the bus: it fills its last
 * packet and not the host's whole URB (ISOCAM_USB_BULK_MAX_PAYLOAD, the
 * contract's size: a FunctionFS gadget cannot see the host's URBs).
 */
bool ffs_video_needs_zlp(size_t len, uint16_t maxp);

#endif /* ISOCAM_EMU_FFS_VIDEO_H */
