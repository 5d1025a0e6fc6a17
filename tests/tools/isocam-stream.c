// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isocam-stream: stream from a V4L2 capture node and say how the stream
 * ended, for tests that feed the driver a hostile device. A driver may
 * deliver frames, flag them V4L2_BUF_FLAG_ERROR, or end the stream with a
 * DQBUF error; what it must never do is go silent. So this waits for each
 * buffer with a timeout and reports a stall as its own outcome.
 *
 *   isocam-stream [-n FRAMES] [-t TIMEOUT_MS] [-b BUFFERS] [-r RETRIES]
 *                 [-l LATE_MS] [-T FILE] [-e CID] DEVICE
 *
 * -r retries a failed STREAMON on the same file handle, with the same
 * buffers, as an application would: a failed start must leave the queue
 * as it found it. -l makes a late consumer on purpose: each buffer is
 * held LATE_MS before it is queued again, so the driver runs out of
 * buffers and must drop frames, visibly; the buffers still queued at the
 * end are dequeued too, so missing counts every drop but the last.
 *
 * Prints one line:
 *   bufs=B frames=N good=G error=E gaps=S missing=M end=REASON [errno=NAME]
 *   ts_bad=B ts_lag_us=L ts_worst_us=W streamon_ns=O streamon_us=S first_us=F
 * B is the buffer count REQBUFS gave (BUFFERS asked for). REASON is count (FRAMES buffers dequeued), dqbuf (DQBUF failed: errno),
 * pollerr (poll reported an error, DQBUF then failed), streamon (STREAMON
 * failed) or stall (no buffer and no error for TIMEOUT_MS). gaps counts
 * jumps in the buffers' sequence numbers, missing the numbers skipped.
 * Timestamps: ts_bad counts buffers not flagged monotonic and start of
 * exposure, stamped no later than the one before, or stamped after the
 * DQBUF that returned them; ts_lag_us is the mean time from stamp to
 * DQBUF, ts_worst_us the worst difference between two consecutive
 * stamps and their sequence numbers' distance in frame intervals (G_PARM):
 * numbers for a test to log, not to judge by. -T writes one line per
 * buffer to FILE as it is dequeued, "sequence stamp_ns dqbuf_ns
 * bytesused", for benchmarks and for tests that watch a stream live.
 * -e subscribes to the control CID's change events and writes each to
 * the -T file as it comes, "E stamp_ns id value" (the event's own
 * CLOCK_MONOTONIC stamp): when another process changed the control.
 * Last come STREAMON's timing: streamon_ns, when it was called
 * (CLOCK_MONOTONIC, to compare with the -T stamps), streamon_us, how long
 * it took, and first_us, from its return to the first DQBUF's (0: none).
 * Exit status: 0 for count, dqbuf, pollerr and streamon, 3 for stall, 1
 * for a setup failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#define MAX_BUFFERS	16

struct stamps {
	FILE *log;		/* -T */
	uint64_t interval_ns;	/* G_PARM's; 0 if unknown */
	bool have;
	uint64_t last_ns;
	uint32_t last_seq;
	unsigned long n, bad;
	double lag_ns;		/* sum of DQBUF time - stamp */
	uint64_t worst_ns;
};

struct outcome {
	bool events;		/* -e */
	unsigned int bufs;
	/* STREAMON's call and return, the first DQBUF's return (0: none) */
	uint64_t on_ns, on_end_ns, first_dq_ns;
	unsigned long frames, good, error, gaps, missing;
	const char *end;
	int err;
	struct stamps ts;
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r;
}

static void usage(void)
{
	fprintf(stderr, "usage: isocam-stream [-n FRAMES] [-t TIMEOUT_MS] [-b BUFFERS] [-r RETRIES] [-l LATE_MS] [-T FILE] [-e CID] DEVICE\n");
	exit(1);
}

static void print_outcome(const struct outcome *o)
{
	printf("bufs=%u frames=%lu good=%lu error=%lu gaps=%lu missing=%lu end=%s",
	       o->bufs, o->frames, o->good, o->error, o->gaps, o->missing, o->end);
	if (o->err)
		printf(" errno=%s", strerrorname_np(o->err));
	printf(" ts_bad=%lu ts_lag_us=%.0f ts_worst_us=%.0f", o->ts.bad,
	       o->ts.n ? o->ts.lag_ns / o->ts.n / 1e3 : 0.0,
	       (double)o->ts.worst_ns / 1e3);
	printf(" streamon_ns=%llu streamon_us=%llu first_us=%llu\n",
	       (unsigned long long)o->on_ns,
	       (unsigned long long)(o->on_end_ns - o->on_ns) / 1000,
	       (unsigned long long)(o->first_dq_ns ?
				    (o->first_dq_ns - o->on_end_ns) / 1000 : 0));
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Judge a buffer's timestamp, just dequeued at dq_ns. */
static void check_stamp(struct stamps *st, const struct v4l2_buffer *b,
			uint64_t dq_ns)
{
	uint64_t ns = (uint64_t)b->timestamp.tv_sec * 1000000000ull +
		      (uint64_t)b->timestamp.tv_usec * 1000ull;

	if ((b->flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) !=
	    V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC ||
	    (b->flags & V4L2_BUF_FLAG_TSTAMP_SRC_MASK) !=
	    V4L2_BUF_FLAG_TSTAMP_SRC_SOE || ns > dq_ns ||
	    (st->have && ns <= st->last_ns))
		st->bad++;
	if (st->have && ns > st->last_ns && st->interval_ns) {
		uint64_t want = (uint32_t)(b->sequence - st->last_seq) *
				st->interval_ns;
		uint64_t d = ns - st->last_ns;
		uint64_t dev = d > want ? d - want : want - d;

		if (dev > st->worst_ns)
			st->worst_ns = dev;
	}
	if (ns <= dq_ns)
		st->lag_ns += (double)(dq_ns - ns);
	if (st->log)
		fprintf(st->log, "%u %llu %llu %u\n", b->sequence,
			(unsigned long long)ns, (unsigned long long)dq_ns,
			b->bytesused);
	st->n++;
	st->have = true;
	st->last_ns = ns;
	st->last_seq = b->sequence;
}

struct seq_state {
	bool have;
	uint32_t last;
};

/* One pending control event, logged (-e). */
static void dequeue_event(int fd, struct outcome *o)
{
	struct v4l2_event ev;

	memset(&ev, 0, sizeof(ev));
	if (xioctl(fd, VIDIOC_DQEVENT, &ev) < 0 || ev.type != V4L2_EVENT_CTRL ||
	    !o->ts.log)
		return;
	fprintf(o->ts.log, "E %llu %u %d\n",
		(unsigned long long)ev.timestamp.tv_sec * 1000000000ull +
			(unsigned long long)ev.timestamp.tv_nsec,
		ev.id, ev.u.ctrl.value);
}

/* Wait for one buffer and dequeue it into b; 0, or -1 with o->end set. */
static int dequeue(int fd, int timeout_ms, struct v4l2_buffer *b,
		   struct seq_state *seq, struct outcome *o)
{
	for (;;) {
		struct pollfd p = {
			.fd = fd,
			.events = POLLIN | (o->events ? POLLPRI : 0),
		};
		int r = poll(&p, 1, timeout_ms);
		uint64_t dq_ns;

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			o->end = "stall";
			return -1;
		}
		if (p.revents & POLLPRI) {
			dequeue_event(fd, o);
			if (!(p.revents & (POLLIN | POLLERR)))
				continue;
		}
		memset(b, 0, sizeof(*b));
		b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		b->memory = V4L2_MEMORY_MMAP;
		if (xioctl(fd, VIDIOC_DQBUF, b) < 0) {
			o->err = errno;
			o->end = (p.revents & POLLERR) ? "pollerr" : "dqbuf";
			return -1;
		}
		dq_ns = mono_ns();
		check_stamp(&o->ts, b, dq_ns);
		if (!o->first_dq_ns)
			o->first_dq_ns = dq_ns;
		break;
	}
	if (seq->have && b->sequence != seq->last + 1) {
		o->gaps++;
		o->missing += (uint32_t)(b->sequence - seq->last - 1);
	}
	seq->have = true;
	seq->last = b->sequence;
	return 0;
}

/*
 * Dequeue and requeue until count, an error or a stall. A late consumer
 * (late_ms) then also dequeues the nbufs - 1 buffers still queued: each
 * is filled by the next frame the driver could deliver, so its sequence
 * number accounts for every frame dropped until STREAMOFF but the last.
 */
static void capture(int fd, unsigned long want, int timeout_ms, int late_ms,
		    unsigned int nbufs, struct outcome *o)
{
	struct seq_state seq = { 0 };
	struct v4l2_buffer b;
	unsigned int queued = nbufs;

	while (o->frames < want) {
		if (dequeue(fd, timeout_ms, &b, &seq, o) < 0)
			return;
		queued--;
		o->frames++;
		if (b.flags & V4L2_BUF_FLAG_ERROR)
			o->error++;
		else
			o->good++;
		if (o->frames == want)
			break;
		if (late_ms) {
			struct timespec ts = {
				.tv_sec = late_ms / 1000,
				.tv_nsec = (late_ms % 1000) * 1000000L,
			};

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		}
		if (xioctl(fd, VIDIOC_QBUF, &b) < 0) {
			o->err = errno;
			o->end = "qbuf";
			return;
		}
		queued++;
	}
	o->end = "count";
	while (late_ms && queued-- > 0)
		if (dequeue(fd, timeout_ms, &b, &seq, o) < 0)
			return;
}

int main(int argc, char **argv)
{
	unsigned long want = 30;
	int timeout_ms = 10000, nbufs = 4, retries = 0, late_ms = 0, opt, fd;
	int type, ret;
	struct v4l2_requestbuffers rb = { 0 };
	struct v4l2_streamparm parm = { 0 };
	struct v4l2_event_subscription sub = { 0 };
	struct outcome o = { 0 };
	unsigned int i;

	while ((opt = getopt(argc, argv, "n:t:b:r:l:T:e:")) != -1) {
		switch (opt) {
		case 'n':
			want = strtoul(optarg, NULL, 0);
			break;
		case 't':
			timeout_ms = atoi(optarg);
			break;
		case 'b':
			nbufs = atoi(optarg);
			break;
		case 'r':
			retries = atoi(optarg);
			break;
		case 'l':
			late_ms = atoi(optarg);
			break;
		case 'T':
			o.ts.log = fopen(optarg, "w");
			if (!o.ts.log) {
				fprintf(stderr, "isocam-stream: %s: %s\n", optarg,
					strerror(errno));
				return 1;
			}
			/* A line per buffer as it comes, for a watcher. */
			setvbuf(o.ts.log, NULL, _IOLBF, 0);
			break;
		case 'e':
			sub.type = V4L2_EVENT_CTRL;
			sub.id = (uint32_t)strtoul(optarg, NULL, 0);
			o.events = true;
			break;
		default:
			usage();
		}
	}
	if (optind + 1 != argc || nbufs < 1 || nbufs > MAX_BUFFERS ||
	    timeout_ms <= 0 || late_ms < 0)
		usage();

	fd = open(argv[optind], O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "isocam-stream: open %s: %s\n", argv[optind],
			strerror(errno));
		return 1;
	}
	if (o.events && xioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &sub) < 0) {
		fprintf(stderr, "isocam-stream: SUBSCRIBE_EVENT control 0x%x: %s\n",
			sub.id, strerror(errno));
		return 1;
	}
	parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (!xioctl(fd, VIDIOC_G_PARM, &parm) &&
	    parm.parm.capture.timeperframe.denominator)
		o.ts.interval_ns = (uint64_t)parm.parm.capture.timeperframe.numerator *
				   1000000000ull /
				   parm.parm.capture.timeperframe.denominator;
	rb.count = (uint32_t)nbufs;
	rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	rb.memory = V4L2_MEMORY_MMAP;
	if (xioctl(fd, VIDIOC_REQBUFS, &rb) < 0 || !rb.count) {
		fprintf(stderr, "isocam-stream: REQBUFS: %s\n", strerror(errno));
		return 1;
	}
	if (rb.count > MAX_BUFFERS) {
		fprintf(stderr, "isocam-stream: REQBUFS gave %u buffers, more than %d\n",
			rb.count, MAX_BUFFERS);
		return 1;
	}
	o.bufs = rb.count;
	for (i = 0; i < rb.count; i++) {
		struct v4l2_buffer b = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
			.index = i,
		};

		if (xioctl(fd, VIDIOC_QUERYBUF, &b) < 0 ||
		    mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd,
			 b.m.offset) == MAP_FAILED ||
		    xioctl(fd, VIDIOC_QBUF, &b) < 0) {
			fprintf(stderr, "isocam-stream: buffer %u: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	o.on_ns = mono_ns();
	while ((ret = xioctl(fd, VIDIOC_STREAMON, &type)) < 0 && retries-- > 0)
		o.on_ns = mono_ns();
	o.on_end_ns = mono_ns();
	if (ret < 0) {
		o.err = errno;
		o.end = "streamon";
	} else {
		capture(fd, want, timeout_ms, late_ms, rb.count, &o);
	}
	print_outcome(&o);
	fflush(stdout);
	/* STREAMOFF and close are part of what is tested: time them out too. */
	xioctl(fd, VIDIOC_STREAMOFF, &type);
	close(fd);
	if (o.ts.log && fclose(o.ts.log)) {
		fprintf(stderr, "isocam-stream: writing -T: %s\n", strerror(errno));
		return 1;
	}
	return strcmp(o.end, "stall") ? 0 : 3;
}
