// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ffs_video.h: the bulk video endpoint through FunctionFS, with the
 * kernel's own AIO (io_submit; completions signalled on an eventfd).
 */
#include "ffs_video.h"

#include <errno.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <isocam/usb.h>

#include "bridge.h"
#include "ic1280_model.h"
#include "clock.h"
#include "log.h"
#include "video_stream.h"

/* lost transfers (faults) in a row before the caller looks at ep0 again */
#define LOST_MAX		64u
/* how long the end waits for cancelled transfers to come back */
#define DRAIN_NS		1000000000ull

struct video_slot {
	struct iocb cb;
	uint8_t *buf;		/* ISOCAM_USB_BULK_MAX_PAYLOAD bytes */
	bool busy;
	bool cancelled;
	uint32_t stream;	/* the sensor's stream it belongs to */
};

struct ffs_video {
	char name[16];
	bool verbose;
	int fd;
	struct bridge *bridge;
	pthread_mutex_t *lock;
	aio_context_t aio;
	int event_fd;
	uint16_t maxp;		/* 0: the endpoint is not enabled */
	struct video_slot slot[FFS_VIDEO_SLOTS];
	unsigned int in_flight;
	struct ffs_video_stats st;
};

/* glibc has no wrappers for the kernel's own AIO */
static int sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return (int)syscall(SYS_io_setup, nr, ctx);
}

static int sys_io_destroy(aio_context_t ctx)
{
	return (int)syscall(SYS_io_destroy, ctx);
}

static int sys_io_submit(aio_context_t ctx, long n, struct iocb **cbs)
{
	return (int)syscall(SYS_io_submit, ctx, n, cbs);
}

static int sys_io_cancel(aio_context_t ctx, struct iocb *cb,
			 struct io_event *ev)
{
	return (int)syscall(SYS_io_cancel, ctx, cb, ev);
}

static int sys_io_getevents(aio_context_t ctx, long min, long max,
			    struct io_event *ev, struct timespec *ts)
{
	return (int)syscall(SYS_io_getevents, ctx, min, max, ev, ts);
}

static void lock(struct ffs_video *v)
{
	if (v->lock)
		pthread_mutex_lock(v->lock);
}

static void unlock(struct ffs_video *v)
{
	if (v->lock)
		pthread_mutex_unlock(v->lock);
}

bool ffs_video_needs_zlp(size_t len, uint16_t maxp)
{
	return maxp && len && len % maxp == 0 &&
	       len < ISOCAM_USB_BULK_MAX_PAYLOAD;
}

struct ffs_video *ffs_video_new(const char *name, bool verbose, int fd,
				struct bridge *b, pthread_mutex_t *lk)
{
	struct ffs_video *v = calloc(1, sizeof(*v));
	unsigned int i;

	if (!v) {
		emu_log("%s: out of memory", name);
		return NULL;
	}
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->verbose = verbose;
	v->fd = fd;
	v->bridge = b;
	v->lock = lk;
	v->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (v->event_fd < 0) {
		emu_log("%s: ffs: eventfd: %s", name, strerror(errno));
		free(v);
		return NULL;
	}
	if (sys_io_setup(FFS_VIDEO_SLOTS, &v->aio) < 0) {
		emu_log("%s: ffs: io_setup: %s", name, strerror(errno));
		v->aio = 0;
		ffs_video_free(v);
		return NULL;
	}
	for (i = 0; i < FFS_VIDEO_SLOTS; i++) {
		v->slot[i].buf = malloc(ISOCAM_USB_BULK_MAX_PAYLOAD);
		if (!v->slot[i].buf) {
			emu_log("%s: out of memory", name);
			ffs_video_free(v);
			return NULL;
		}
	}
	return v;
}

int ffs_video_event_fd(const struct ffs_video *v)
{
	return v->event_fd;
}

unsigned int ffs_video_in_flight(const struct ffs_video *v)
{
	return v->in_flight;
}

void ffs_video_get_stats(const struct ffs_video *v, struct ffs_video_stats *st)
{
	*st = v->st;
}

void ffs_video_enable(struct ffs_video *v, uint16_t maxp)
{
	v->maxp = maxp;
}

static struct video_slot *take_slot(struct ffs_video *v)
{
	unsigned int i;

	for (i = 0; i < FFS_VIDEO_SLOTS; i++)
		if (!v->slot[i].busy)
			return &v->slot[i];
	return NULL;
}

/* Queue len bytes of s (0: a zero-length packet) on the endpoint. */
static int submit(struct ffs_video *v, struct video_slot *s, size_t len,
		  uint32_t stream)
{
	struct iocb *cbs[1] = { &s->cb };

	memset(&s->cb, 0, sizeof(s->cb));
	s->cb.aio_data = (uint64_t)(s - v->slot);
	s->cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	s->cb.aio_fildes = (uint32_t)v->fd;
	s->cb.aio_buf = (uint64_t)(uintptr_t)s->buf;
	s->cb.aio_nbytes = len;
	s->cb.aio_flags = IOCB_FLAG_RESFD;
	s->cb.aio_resfd = (uint32_t)v->event_fd;
	/* busy first: a synchronous completion may be reaped at once */
	s->busy = true;
	s->cancelled = false;
	s->stream = stream;
	v->in_flight++;
	if (sys_io_submit(v->aio, 1, cbs) == 1)
		return 0;
	s->busy = false;
	v->in_flight--;
	return -1;
}

void ffs_video_cancel(struct ffs_video *v, bool all)
{
	struct ic1280 *sensor = bridge_sensor(v->bridge);
	unsigned int i, n = 0;
	uint32_t stream;
	bool live;

	if (!v->in_flight)
		return;
	lock(v);
	live = ic1280_streaming(sensor);
	stream = ic1280_stream_starts(sensor);
	unlock(v);
	for (i = 0; i < FFS_VIDEO_SLOTS; i++) {
		struct video_slot *s = &v->slot[i];
		struct io_event ev;

		if (!s->busy || s->cancelled ||
		    (!all && live && s->stream == stream))
			continue;
		s->cancelled = true;
		n++;
		/*
		 * EINPROGRESS: its completion comes through the ring;
		 * EINVAL: it completed already.
		 */
		if (sys_io_cancel(v->aio, &s->cb, &ev) < 0 &&
		    errno != EINPROGRESS && errno != EINVAL)
			emu_log("%s: ffs: io_cancel: %s", v->name,
				strerror(errno));
	}
	if (n && v->verbose)
		emu_log("%s: ffs: %s: %u video transfer%s in flight cancelled",
			v->name, all ? "stopping" : "stream stopped", n,
			n == 1 ? "" : "s");
}

/* Collect completions, waiting up to wait_ns for at least min. */
static void collect(struct ffs_video *v, long min, uint64_t wait_ns)
{
	struct io_event ev[FFS_VIDEO_SLOTS];
	struct timespec ts = {
		.tv_sec = (time_t)(wait_ns / 1000000000ull),
		.tv_nsec = (long)(wait_ns % 1000000000ull),
	};
	uint64_t cnt;
	int n, i;

	if (read(v->event_fd, &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
		emu_log("%s: ffs: reading the AIO eventfd: %s", v->name,
			strerror(errno));
	if (!v->in_flight)
		return;
	n = sys_io_getevents(v->aio, min, FFS_VIDEO_SLOTS, ev, &ts);
	if (n < 0) {
		if (errno != EINTR)
			emu_log("%s: ffs: io_getevents: %s", v->name,
				strerror(errno));
		return;
	}
	lock(v);
	for (i = 0; i < n; i++) {
		struct video_slot *s = &v->slot[ev[i].data % FFS_VIDEO_SLOTS];
		int64_t res = ev[i].res;

		if (!s->busy)
			continue;
		s->busy = false;
		v->in_flight--;
		if (res >= 0) {
			if (res)
				v->st.transfers++;
			else
				v->st.zlps++;
			v->st.bytes += (uint64_t)res;
		} else if (s->cancelled) {
			v->st.cancelled++;
		} else if (res == -ESHUTDOWN || res == -ECONNRESET ||
			   res == -ENODEV) {
			/* the endpoint went away: disable, reset, unplug */
			v->st.ended_by_host++;
		} else {
			v->st.failed++;
			emu_log("%s: ffs: a video transfer failed: %s",
				v->name, strerror((int)-res));
		}
	}
	unlock(v);
}

void ffs_video_reap(struct ffs_video *v)
{
	collect(v, 0, 0);
}

void ffs_video_feed(struct ffs_video *v, uint64_t *wake)
{
	struct ic1280 *sensor = bridge_sensor(v->bridge);
	unsigned int lost = 0;

	*wake = UINT64_MAX;
	/* two free: a transfer may need a zero-length packet after it */
	while (v->maxp && FFS_VIDEO_SLOTS - v->in_flight >= 2) {
		struct video_slot *s = take_slot(v);
		struct video_stream *vs;
		uint64_t now = emu_now_ns(), next;
		uint32_t max, stream;
		size_t n;

		lock(v);
		vs = bridge_video(v->bridge);
		max = bridge_bulk_payload_max(v->bridge);
		if (!max || !video_stream_poll(vs, now, &next)) {
			unlock(v);
			if (max && next < *wake)
				*wake = next;
			return;
		}
		n = video_stream_packet(vs, now, s->buf, max);
		stream = ic1280_stream_starts(sensor);
		unlock(v);
		if (!n) {
			/* lost (fault drop, hostile): the next one goes */
			if (++lost < LOST_MAX)
				continue;
			*wake = now;
			return;
		}
		if (submit(v, s, n, stream) < 0)
			goto refused;
		if (ffs_video_needs_zlp(n, v->maxp) &&
		    submit(v, take_slot(v), 0, stream) < 0)
			goto refused;
	}
	return;
refused:
	/* EAGAIN: the endpoint was disabled; the DISABLE event follows */
	if (errno != EAGAIN && errno != ESHUTDOWN)
		emu_log("%s: ffs: queuing a video transfer failed: %s", v->name,
			strerror(errno));
	v->maxp = 0;
}

void ffs_video_free(struct ffs_video *v)
{
	uint64_t until = emu_now_ns() + DRAIN_NS;
	unsigned int i;

	if (!v)
		return;
	if (v->aio) {
		ffs_video_cancel(v, true);
		/* cancelled transfers come back at once; stragglers get a second */
		while (v->in_flight && emu_now_ns() < until)
			collect(v, 1, until - emu_now_ns());
		if (v->in_flight)
			emu_log("%s: ffs: %u video transfers still in flight at the end",
				v->name, v->in_flight);
		sys_io_destroy(v->aio);
	}
	for (i = 0; i < FFS_VIDEO_SLOTS; i++)
		free(v->slot[i].buf);
	close(v->event_fd);
	free(v);
}
