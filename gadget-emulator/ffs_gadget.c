// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ffs_gadget.h: the camera served through FunctionFS.
 *
 * Design of the video endpoint. Payload transfers are written to the
 * endpoint file with Linux AIO (io_submit on the f_fs file, completions
 * signalled on an eventfd), at most VIDEO_SLOTS at once, each from a
 * buffer of its own, by the one thread that also serves ep0. A blocking
 * write() would not do: once the host stops reading (stream off) a write
 * in flight would block the thread, and its transfer, part of a frame of
 * the stream that ended, would be the first thing the next stream reads.
 * Stream off reaches the camera as the sensor's MODE_SELECT going to
 * standby (an i2c vendor request on ep0; the CLEAR_FEATURE(ENDPOINT_HALT)
 * after it is answered by the UDC and never seen here), so after every
 * ep0 event transfers queued for a stream that is no longer the sensor's
 * current one are cancelled (io_cancel dequeues the USB request), and
 * the next stream starts clean.
 *
 * Pacing is the USB/IP bulk path's: video_stream_poll() on the monotonic
 * clock says when frame data waits, else when the next capture is due;
 * the thread sleeps until then or until a transfer completes.
 */
#include "ffs_gadget.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/usb/ch9.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <isocam/usb.h>

#include "bridge.h"
#include "configfs_gadget.h"
#include "fault.h"
#include "ffs_ep0.h"
#include "hostile.h"
#include "ic1280_model.h"
#include "log.h"
#include "usb_descriptors.h"
#include "video_stream.h"

/* payload transfers queued on the endpoint at once (a ZLP takes one) */
#define VIDEO_SLOTS		6
/* lost transfers (faults) in a row before the loop looks at ep0 again */
#define LOST_MAX		64u
/* how long the stop waits for cancelled transfers to come back */
#define DRAIN_MS		1000

struct video_slot {
	struct iocb cb;
	uint8_t *buf;		/* ISOCAM_USB_BULK_MAX_PAYLOAD bytes */
	bool busy;
	bool cancelled;
	uint32_t stream;	/* the sensor's stream it belongs to */
};

struct ffs_gadget {
	struct ffs_gadget_config cfg;
	char name[16];			/* "cam0", the log prefix */
	char serial[24];
	char udc[64];
	char gadget_name[32];
	char instance[32];

	/* held around the bridge (the main thread reads its statistics) */
	pthread_mutex_t lock;
	struct bridge *bridge;
	struct fault *fault;
	struct hostile *hostile;

	struct configfs_gadget *cg;
	bool configfs_mounted;
	int ep0, ep1;
	aio_context_t aio;
	int aio_fd;			/* eventfd: AIO completions */
	int stop_fd;			/* eventfd: stop serving */
	int done_fd;			/* eventfd: serving ended by itself */
	pthread_t thread;
	bool thread_started;
	bool failed;			/* set by the thread; read after join */

	struct ffs_ep0 e0;
	struct video_slot slot[VIDEO_SLOTS];
	unsigned int in_flight;
	uint16_t maxp;			/* the endpoint's at the bus speed */

	/* under lock: the status line's */
	const char *state;
	uint64_t transfers, zlps, cancelled, ended_by_host, bytes;
	uint64_t status_bytes, status_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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

/* ---- configuration checks ---- */

/* Hostile modes that exist over USB/IP only (iso replies, held URBs). */
static bool hostile_mode_ok(enum hostile_mode m)
{
	enum hostile_group gr = hostile_mode_group(m);

	if (m == HOSTILE_CTRL_NEVER || m == HOSTILE_CTRL_NEVER_UNLINK)
		return false;
	return gr == HOSTILE_GROUP_PAYLOAD || gr == HOSTILE_GROUP_CTRL;
}

int ffs_gadget_check_config(const struct ffs_gadget_config *cfg)
{
	const char *p = cfg->hostile_spec;

	if (cfg->fault_spec && strstr(cfg->fault_spec, "vanish")) {
		fprintf(stderr, "isocam-emu: --fault=vanish drops a USB/IP connection; with --gadget=ffs stop isocam-emu (or unbind its UDC) to unplug the camera\n");
		return -1;
	}
	while (p && *p) {
		size_t n = strcspn(p, ",");
		int m;

		for (m = 0; n && m < HOSTILE_MODE_COUNT; m++) {
			const char *name = hostile_mode_name((enum hostile_mode)m);

			if (strlen(name) != n || strncmp(name, p, n))
				continue;
			if (!hostile_mode_ok((enum hostile_mode)m)) {
				fprintf(stderr, "isocam-emu: --hostile=%s: not with --gadget=ffs (only payload-header and control modes, except ctrl-never and ctrl-never-unlink, apply to a FunctionFS gadget)\n",
					name);
				return -1;
			}
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

/* ---- the video endpoint ---- */

static unsigned int free_slots(const struct ffs_gadget *g)
{
	return VIDEO_SLOTS - g->in_flight;
}

static struct video_slot *take_slot(struct ffs_gadget *g)
{
	unsigned int i;

	for (i = 0; i < VIDEO_SLOTS; i++)
		if (!g->slot[i].busy)
			return &g->slot[i];
	return NULL;
}

/* Queue len bytes of s (0: a zero-length packet) on the endpoint. */
static int submit(struct ffs_gadget *g, struct video_slot *s, size_t len,
		  uint32_t stream)
{
	struct iocb *cbs[1] = { &s->cb };

	memset(&s->cb, 0, sizeof(s->cb));
	s->cb.aio_data = (uint64_t)(s - g->slot);
	s->cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	s->cb.aio_fildes = (uint32_t)g->ep1;
	s->cb.aio_buf = (uint64_t)(uintptr_t)s->buf;
	s->cb.aio_nbytes = len;
	s->cb.aio_flags = IOCB_FLAG_RESFD;
	s->cb.aio_resfd = (uint32_t)g->aio_fd;
	if (sys_io_submit(g->aio, 1, cbs) != 1)
		return -1;
	s->busy = true;
	s->cancelled = false;
	s->stream = stream;
	g->in_flight++;
	return 0;
}

/* Cancel every transfer in flight, or those of a stream that ended. */
static void cancel(struct ffs_gadget *g, bool all)
{
	struct ic1280 *sensor = bridge_sensor(g->bridge);
	unsigned int i, n = 0;
	uint32_t stream;
	bool live;

	if (!g->in_flight)
		return;
	pthread_mutex_lock(&g->lock);
	live = ic1280_streaming(sensor);
	stream = ic1280_stream_starts(sensor);
	pthread_mutex_unlock(&g->lock);
	for (i = 0; i < VIDEO_SLOTS; i++) {
		struct video_slot *s = &g->slot[i];
		struct io_event ev;

		if (!s->busy || s->cancelled ||
		    (!all && live && s->stream == stream))
			continue;
		s->cancelled = true;
		n++;
		/* EINPROGRESS: its completion comes through the ring */
		if (sys_io_cancel(g->aio, &s->cb, &ev) < 0 &&
		    errno != EINPROGRESS && errno != EINVAL && g->cfg.verbose)
			emu_log("%s: ffs: io_cancel: %s", g->name,
				strerror(errno));
	}
	if (n && g->cfg.verbose)
		emu_log("%s: ffs: %s: %u transfer%s in flight cancelled",
			g->name, all ? "stopping" : "stream stopped", n,
			n == 1 ? "" : "s");
}

/* Collect completed transfers, waiting up to wait_ns for at least min. */
static void reap(struct ffs_gadget *g, long min, uint64_t wait_ns)
{
	struct io_event ev[VIDEO_SLOTS];
	struct timespec ts = {
		.tv_sec = (time_t)(wait_ns / 1000000000ull),
		.tv_nsec = (long)(wait_ns % 1000000000ull),
	};
	uint64_t cnt;
	int n, i;

	if (read(g->aio_fd, &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
		emu_log("%s: ffs: reading the AIO eventfd: %s", g->name,
			strerror(errno));
	if (!g->in_flight)
		return;
	n = sys_io_getevents(g->aio, min, VIDEO_SLOTS, ev, &ts);
	if (n < 0) {
		if (errno != EINTR)
			emu_log("%s: ffs: io_getevents: %s", g->name,
				strerror(errno));
		return;
	}
	pthread_mutex_lock(&g->lock);
	for (i = 0; i < n; i++) {
		struct video_slot *s = &g->slot[ev[i].data % VIDEO_SLOTS];
		int64_t res = ev[i].res;

		if (!s->busy)
			continue;
		s->busy = false;
		g->in_flight--;
		if (res >= 0) {
			if (res)
				g->transfers++;
			else
				g->zlps++;
			g->bytes += (uint64_t)res;
		} else if (s->cancelled) {
			g->cancelled++;
		} else if (res == -ESHUTDOWN || res == -ECONNRESET ||
			   res == -ENODEV) {
			/* the endpoint went away: disable, reset, unplug */
			g->ended_by_host++;
		} else {
			emu_log("%s: ffs: a video transfer failed: %s",
				g->name, strerror((int)-res));
		}
	}
	pthread_mutex_unlock(&g->lock);
}

/*
 * Queue the transfers frame data is ready for, as the USB/IP bulk path
 * completes its URBs. *wake: when to look again (the next capture)
 * if nothing waits for a free slot.
 */
static void feed(struct ffs_gadget *g, uint64_t *wake)
{
	struct ic1280 *sensor = bridge_sensor(g->bridge);
	unsigned int lost = 0;

	*wake = UINT64_MAX;
	/* two free: a transfer may need a zero-length packet after it */
	while (g->ep1 >= 0 && g->maxp && free_slots(g) >= 2) {
		struct video_slot *s = take_slot(g);
		struct video_stream *vs;
		uint64_t now = now_ns(), next;
		uint32_t max, stream;
		size_t n;

		pthread_mutex_lock(&g->lock);
		vs = bridge_video(g->bridge);
		max = bridge_bulk_payload_max(g->bridge);
		if (!max || !video_stream_poll(vs, now, &next)) {
			pthread_mutex_unlock(&g->lock);
			if (max && next < *wake)
				*wake = next;
			return;
		}
		n = video_stream_packet(vs, now, s->buf, max);
		stream = ic1280_stream_starts(sensor);
		pthread_mutex_unlock(&g->lock);
		if (!n) {
			/* lost (fault drop, hostile): the next one goes */
			if (++lost < LOST_MAX)
				continue;
			*wake = now;
			return;
		}
		if (submit(g, s, n, stream) < 0)
			goto refused;
		/*
		 * A transfer ends with a short packet: one filling its last
		 * packet needs a zero-length one after it, unless it fills
		 * the host's whole URB (the contract's size, usb.h).
		 */
		if (n % g->maxp == 0 && n < ISOCAM_USB_BULK_MAX_PAYLOAD &&
		    submit(g, take_slot(g), 0, stream) < 0)
			goto refused;
	}
	return;
refused:
	/* EAGAIN: the endpoint was disabled; the DISABLE event follows */
	if (errno != EAGAIN && errno != ESHUTDOWN)
		emu_log("%s: ffs: queuing a video transfer failed: %s", g->name,
			strerror(errno));
	g->maxp = 0;
}

/* ---- ep0 events ---- */

static uint16_t bus_maxp(struct ffs_gadget *g, const char **speed)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), CONFIGFS_UDC_CLASS "/%s/current_speed",
		 g->udc);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	*speed = strcmp(buf, "full-speed") ? "high-speed" : "full-speed";
	return strcmp(buf, "full-speed") ? ISOCAM_USB_BULK_MAXP :
	       ISOCAM_USB_BULK_MAXP_FS;
}

/* A standard request the host made of the UDC, told to the bridge. */
static void tell_bridge(struct ffs_gadget *g, uint8_t bm, uint8_t req,
			uint16_t value)
{
	struct usb_setup s = { .bmRequestType = bm, .bRequest = req,
			       .wValue = value,
			       .wIndex = bm == USB_RECIP_INTERFACE ?
					 ISOCAM_USB_IFACE_NUM : 0 };

	pthread_mutex_lock(&g->lock);
	if (bridge_control(g->bridge, &s, NULL, 0) < 0)
		emu_log("%s: ffs: the bridge refused request 0x%02x", g->name,
			req);
	pthread_mutex_unlock(&g->lock);
}

static void set_state(struct ffs_gadget *g, const char *state)
{
	pthread_mutex_lock(&g->lock);
	g->state = state;
	pthread_mutex_unlock(&g->lock);
}

/* 0: go on; -1: serving ends. */
static int on_ep0(struct ffs_gadget *g)
{
	enum ffs_ep0_result r = ffs_ep0_event(&g->e0, g->ep0);
	const char *speed;
	bool configured;

	switch (r) {
	case FFS_EP0_ERROR:
		return -1;
	case FFS_EP0_BIND:
		emu_log("%s: ffs: bound to UDC %s", g->name, g->udc);
		set_state(g, "bound, not configured");
		break;
	case FFS_EP0_ENABLE:
		/*
		 * SET_CONFIGURATION or SET_INTERFACE(0): composite handled it
		 * and enabled the endpoint; the bridge learns of it the same
		 * way, so its bulk pipe (re)starts as over USB/IP.
		 */
		pthread_mutex_lock(&g->lock);
		configured = bridge_configured(g->bridge);
		pthread_mutex_unlock(&g->lock);
		if (configured)
			tell_bridge(g, USB_RECIP_INTERFACE,
				    USB_REQ_SET_INTERFACE, 0);
		else
			tell_bridge(g, USB_RECIP_DEVICE,
				    USB_REQ_SET_CONFIGURATION,
				    ISOCAM_USB_CONFIG_VALUE);
		g->maxp = bus_maxp(g, &speed);
		emu_log("%s: ffs: configured (%s, bulk endpoint 0x%02x, %u-byte packets)",
			g->name, speed, ISOCAM_USB_BULK_EP_ADDR, g->maxp);
		set_state(g, "configured");
		break;
	case FFS_EP0_DISABLE:
	case FFS_EP0_UNBIND:
		/* f_fs ends the transfers in flight itself (-ESHUTDOWN) */
		g->maxp = 0;
		tell_bridge(g, USB_RECIP_DEVICE, USB_REQ_SET_CONFIGURATION, 0);
		if (r == FFS_EP0_UNBIND)
			emu_log("%s: ffs: unbound from UDC %s", g->name, g->udc);
		set_state(g, r == FFS_EP0_UNBIND ? "unbound" :
			  "bound, not configured");
		break;
	case FFS_EP0_SUSPEND:
		set_state(g, "suspended");
		break;
	case FFS_EP0_RESUME:
		set_state(g, g->maxp ? "configured" : "bound, not configured");
		break;
	default:
		break;
	}
	return 0;
}

static void *serve(void *arg)
{
	struct ffs_gadget *g = arg;
	uint64_t one = 1;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = g->ep0, .events = POLLIN },
			{ .fd = g->aio_fd, .events = POLLIN },
			{ .fd = g->stop_fd, .events = POLLIN },
		};
		struct timespec ts, *tsp = NULL;
		uint64_t wake, now;

		feed(g, &wake);
		now = now_ns();
		if (wake != UINT64_MAX) {
			uint64_t d = wake > now ? wake - now : 0;

			ts.tv_sec = (time_t)(d / 1000000000ull);
			ts.tv_nsec = (long)(d % 1000000000ull);
			tsp = &ts;
		}
		if (ppoll(pfd, 3, tsp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			emu_log("%s: ffs: poll: %s", g->name, strerror(errno));
			g->failed = true;
			break;
		}
		if (pfd[2].revents & POLLIN)
			break;
		if (pfd[1].revents & POLLIN)
			reap(g, 0, 0);
		if (pfd[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (on_ep0(g) < 0) {
				g->failed = true;
				break;
			}
			/* a stream stop shows in the sensor, set over ep0 */
			cancel(g, false);
		}
	}
	cancel(g, true);
	/* cancelled transfers come back at once; give stragglers a second */
	{
		uint64_t until = now_ns() + DRAIN_MS * 1000000ull;

		while (g->in_flight && now_ns() < until)
			reap(g, 1, until - now_ns());
	}
	if (g->failed && write(g->done_fd, &one, sizeof(one)) < 0)
		emu_log("%s: ffs: signalling the end: %s", g->name,
			strerror(errno));
	return NULL;
}

/* ---- setup and teardown ---- */

static void log_hostile(const struct ffs_gadget *g)
{
	if (!hostile_any(g->hostile))
		return;
	if (hostile_armed(g->hostile))
		emu_log("%s: hostile %s active", g->name,
			hostile_list(g->hostile));
	else
		emu_log("%s: hostile %s dormant until SIGUSR2", g->name,
			hostile_list(g->hostile));
}

static int new_model(struct ffs_gadget *g)
{
	struct bridge_config bcfg = {
		.name = g->name,
		.serial = g->serial,
		.chip_id = g->cfg.chip_id,
		.verbose = g->cfg.verbose,
		.free_run = g->cfg.free_run,
		.transport = USB_TRANSPORT_BULK,
	};
	char err[160], herr[1024];

	g->fault = fault_new(g->cfg.fault_spec, g->cfg.seed, err, sizeof(err));
	if (!g->fault) {
		emu_log("--fault: %s", err);
		return -1;
	}
	g->hostile = hostile_new(g->cfg.hostile_spec, !g->cfg.hostile_on_signal,
				 g->cfg.seed, herr, sizeof(herr));
	if (!g->hostile) {
		emu_log("--hostile: %s", herr);
		return -1;
	}
	log_hostile(g);
	bcfg.fault = g->fault;
	bcfg.hostile = g->hostile;
	g->bridge = bridge_new(&bcfg);
	g->e0.bridge = g->bridge;
	return g->bridge ? 0 : -1;
}

/* The device descriptor the bridge would send over USB/IP, for configfs. */
static void spec_from(struct ffs_gadget *g, struct configfs_gadget_spec *s)
{
	const struct usb_descriptors *d = bridge_descriptors(g->bridge);
	const uint8_t *dev = d->device, *cfg = d->config;

	*s = (struct configfs_gadget_spec){
		.name = g->gadget_name,
		.instance = g->instance,
		.bcd_usb = (uint16_t)(dev[2] | dev[3] << 8),
		.device_class = dev[4],
		.device_subclass = dev[5],
		.device_protocol = dev[6],
		.max_packet0 = dev[7],
		.vendor = (uint16_t)(dev[8] | dev[9] << 8),
		.product = (uint16_t)(dev[10] | dev[11] << 8),
		.bcd_device = (uint16_t)(dev[12] | dev[13] << 8),
		.langid = USB_STR_LANGID,
		.manufacturer = ISOCAM_USB_MANUFACTURER,
		.product_name = ISOCAM_USB_PRODUCT,
		.serial = d->serial,
		.config_attributes = cfg[7],
		.max_power_ma = cfg[8] * 2u,	/* 2 mA units */
	};
}

static int write_blob(struct ffs_gadget *g, const uint8_t *b, int len,
		      const char *what)
{
	ssize_t n = write(g->ep0, b, (size_t)len);

	if (n == len)
		return 0;
	emu_log("%s: ffs: writing the %s to ep0 failed: %s (see the kernel log)",
		g->name, what, n < 0 ? strerror(errno) : "short write");
	return -1;
}

static int open_function(struct ffs_gadget *g)
{
	uint8_t desc[FFS_EP0_DESC_LEN], str[FFS_EP0_STRINGS_LEN];
	const char *mnt;
	char path[600], err[512];
	int dlen;

	mnt = configfs_gadget_mount_ffs(g->cg, "/tmp", err, sizeof(err));
	if (!mnt) {
		emu_log("%s: ffs: %s", g->name, err);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/ep0", mnt);
	g->ep0 = open(path, O_RDWR | O_CLOEXEC);
	if (g->ep0 < 0) {
		emu_log("%s: ffs: open %s: %s", g->name, path, strerror(errno));
		return -1;
	}
	dlen = ffs_ep0_descriptors(bridge_descriptors(g->bridge), desc);
	if (dlen < 0) {
		emu_log("%s: ffs: the bridge's descriptors are not the bulk layout",
			g->name);
		return -1;
	}
	if (write_blob(g, desc, dlen, "descriptors") < 0 ||
	    write_blob(g, str, ffs_ep0_strings(str), "strings") < 0)
		return -1;
	/*
	 * Non-blocking: a write to an endpoint that is not enabled fails
	 * with EAGAIN instead of waiting for the next SET_CONFIGURATION.
	 */
	snprintf(path, sizeof(path), "%s/" FFS_EP0_VIDEO_EP_FILE, mnt);
	g->ep1 = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (g->ep1 < 0) {
		emu_log("%s: ffs: open %s: %s", g->name, path, strerror(errno));
		return -1;
	}
	return 0;
}

static int start(struct ffs_gadget *g)
{
	struct configfs_gadget_spec spec;
	char err[512];
	unsigned int i;
	int r;

	if (new_model(g) < 0)
		return -1;
	for (i = 0; i < VIDEO_SLOTS; i++) {
		g->slot[i].buf = malloc(ISOCAM_USB_BULK_MAX_PAYLOAD);
		if (!g->slot[i].buf) {
			emu_log("%s: out of memory", g->name);
			return -1;
		}
	}
	g->aio_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->stop_fd = eventfd(0, EFD_CLOEXEC);
	g->done_fd = eventfd(0, EFD_CLOEXEC);
	if (g->aio_fd < 0 || g->stop_fd < 0 || g->done_fd < 0) {
		emu_log("eventfd: %s", strerror(errno));
		return -1;
	}
	if (sys_io_setup(VIDEO_SLOTS, &g->aio) < 0) {
		emu_log("io_setup: %s", strerror(errno));
		return -1;
	}
	if (!g->udc[0] && configfs_gadget_default_udc(CONFIGFS_UDC_CLASS, g->udc,
					       sizeof(g->udc), err,
					       sizeof(err)) < 0) {
		emu_log("ffs: %s", err);
		return -1;
	}
	if (configfs_gadget_prepare(&g->configfs_mounted, err,
				    sizeof(err)) < 0) {
		emu_log("ffs: %s", err);
		return -1;
	}
	spec_from(g, &spec);
	g->cg = configfs_gadget_create(CONFIGFS_GADGET_ROOT, &spec, err,
				       sizeof(err));
	if (!g->cg) {
		emu_log("ffs: creating the gadget: %s", err);
		return -1;
	}
	if (open_function(g) < 0)
		return -1;
	if (configfs_gadget_bind(g->cg, g->udc, err, sizeof(err)) < 0) {
		emu_log("ffs: %s", err);
		return -1;
	}
	g->state = "bound, not configured";
	g->status_ns = now_ns();
	r = pthread_create(&g->thread, NULL, serve, g);
	if (r) {
		emu_log("ffs: pthread_create: %s", strerror(r));
		return -1;
	}
	g->thread_started = true;
	emu_log("%s: gadget %s (%04x:%04x, bulk) on UDC %s, configfs %s",
		g->name, g->gadget_name, ISOCAM_USB_VID, ISOCAM_USB_PID, g->udc,
		configfs_gadget_dir(g->cg));
	return 0;
}

static void teardown(struct ffs_gadget *g)
{
	uint64_t one = 1;
	unsigned int i;

	if (g->thread_started) {
		if (write(g->stop_fd, &one, sizeof(one)) < 0)
			emu_log("ffs: stopping the serving thread: %s",
				strerror(errno));
		pthread_join(g->thread, NULL);
	}
	/* the host sees the unplug now; what was still queued ends */
	if (g->cg)
		configfs_gadget_unbind(g->cg);
	if (g->aio)
		sys_io_destroy(g->aio);
	if (g->ep1 >= 0)
		close(g->ep1);
	if (g->ep0 >= 0)
		close(g->ep0);
	configfs_gadget_destroy(g->cg);
	configfs_gadget_unprepare(g->configfs_mounted);
	ffs_ep0_release(&g->e0);
	for (i = 0; i < VIDEO_SLOTS; i++)
		free(g->slot[i].buf);
	bridge_free(g->bridge);
	fault_free(g->fault);
	hostile_free(g->hostile);
	if (g->aio_fd >= 0)
		close(g->aio_fd);
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	if (g->done_fd >= 0)
		close(g->done_fd);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

struct ffs_gadget *ffs_gadget_start(const struct ffs_gadget_config *cfg)
{
	struct ffs_gadget *g = calloc(1, sizeof(*g));

	if (!g) {
		emu_log("out of memory");
		return NULL;
	}
	g->cfg = *cfg;
	g->cfg.udc = NULL;	/* kept in g->udc */
	g->ep0 = g->ep1 = g->aio_fd = g->stop_fd = g->done_fd = -1;
	pthread_mutex_init(&g->lock, NULL);
	snprintf(g->name, sizeof(g->name), "cam0");
	/* the first USB/IP camera's serial: the same camera either way */
	snprintf(g->serial, sizeof(g->serial), "ISOCAM0001");
	snprintf(g->gadget_name, sizeof(g->gadget_name), "isocam-%d",
		 (int)getpid());
	snprintf(g->instance, sizeof(g->instance), "isocam%d", (int)getpid());
	g->e0 = (struct ffs_ep0){ .name = g->name, .verbose = cfg->verbose,
				  .lock = &g->lock };
	if (cfg->udc)
		snprintf(g->udc, sizeof(g->udc), "%s", cfg->udc);
	if (start(g) < 0) {
		teardown(g);
		return NULL;
	}
	return g;
}

int ffs_gadget_done_fd(const struct ffs_gadget *g)
{
	return g->done_fd;
}

void ffs_gadget_status(struct ffs_gadget *g)
{
	struct video_stream_stats st;
	uint64_t now = now_ns(), transfers, zlps, cancelled, ended, bytes;
	const char *state;
	double dt, mbs;

	pthread_mutex_lock(&g->lock);
	video_stream_get_stats(bridge_video(g->bridge), &st);
	state = g->state;
	transfers = g->transfers;
	zlps = g->zlps;
	cancelled = g->cancelled;
	ended = g->ended_by_host;
	bytes = g->bytes;
	pthread_mutex_unlock(&g->lock);
	dt = (double)(now - g->status_ns) / 1e9;
	mbs = dt > 0 ? (double)(bytes - g->status_bytes) / dt / 1e6 : 0;
	g->status_bytes = bytes;
	g->status_ns = now;
	emu_log("%s ffs %s: %s, frames sent %llu dropped %llu, %.2f MB/s, transfers %llu done (%llu ZLPs), %llu cancelled at stream stops, %llu ended by the host",
		g->name, g->udc, state ? state : "?",
		(unsigned long long)st.frames_sent,
		(unsigned long long)st.frames_dropped, mbs,
		(unsigned long long)transfers, (unsigned long long)zlps,
		(unsigned long long)cancelled, (unsigned long long)ended);
}

unsigned int ffs_gadget_arm_hostile(struct ffs_gadget *g)
{
	if (!hostile_arm(g->hostile))
		return 0;
	emu_log("%s: hostile %s armed", g->name, hostile_list(g->hostile));
	return 1;
}

int ffs_gadget_stop(struct ffs_gadget *g)
{
	int ret;

	if (!g)
		return 0;
	if (g->thread_started) {
		uint64_t one = 1;

		if (write(g->stop_fd, &one, sizeof(one)) < 0)
			emu_log("ffs: stopping the serving thread: %s",
				strerror(errno));
		pthread_join(g->thread, NULL);
		g->thread_started = false;
	}
	ret = g->failed ? -1 : 0;
	teardown(g);
	return ret;
}
