// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ffs_gadget.h: the camera served through FunctionFS. One thread serves
 * ep0 (ffs_ep0.h) and the video endpoint (ffs_video.h, which says why it
 * writes with AIO and cancels at stream stops), sleeping in ppoll until
 * an ep0 event, a completed transfer or the next capture is due.
 */
#include "ffs_gadget.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/usb/ch9.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <isocam/usb.h>

#include "bridge.h"
#include "camera.h"
#include "configfs_gadget.h"
#include "ffs_ep0.h"
#include "ffs_video.h"
#include "hostile.h"
#include "clock.h"
#include "log.h"
#include "usb_descriptors.h"
#include "video_stream.h"

struct ffs_gadget {
	struct ffs_gadget_config cfg;
	char udc[64];
	char gadget_name[32];
	char instance[32];

	/* held around the camera's bridge (the main thread reads it) */
	pthread_mutex_t lock;
	struct camera camera;		/* camera 0: name "cam0" */

	struct configfs_gadget *cg;
	bool configfs_mounted;
	int ep0, ep1;
	int stop_fd;			/* eventfd: stop serving */
	int done_fd;			/* eventfd: serving ended by itself */
	pthread_t thread;
	bool thread_started;
	bool failed;			/* set by the thread; read after join */

	struct ffs_ep0 e0;
	struct ffs_video *video;
	bool enabled;

	const char *state;		/* under lock: the status line's */
	uint64_t status_bytes, status_ns;
};

/* ---- configuration checks ---- */

/* Hostile modes that exist over USB/IP only (iso replies, held URBs). */
static bool hostile_mode_ok(enum hostile_mode m)
{
	enum hostile_group gr = hostile_mode_group(m);

	if (m == HOSTILE_CTRL_NEVER || m == HOSTILE_CTRL_NEVER_UNLINK ||
	    m == HOSTILE_STD_NEVER || m == HOSTILE_STD_NEVER_UNLINK ||
	    m == HOSTILE_VENDOR_WEDGE)
		return false;
	return gr == HOSTILE_GROUP_PAYLOAD || gr == HOSTILE_GROUP_CTRL;
}

int ffs_gadget_check_config(const struct ffs_gadget_config *cfg)
{
	const char *p = cfg->camera.hostile_spec;

	if (cfg->camera.fault_spec && strstr(cfg->camera.fault_spec, "vanish")) {
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
				fprintf(stderr, "isocam-emu: --hostile=%s: not with --gadget=ffs (only payload-header and control modes, except the never modes and vendor-wedge, apply to a FunctionFS gadget)\n",
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
	if (bridge_control(g->camera.bridge, &s, NULL, 0) < 0)
		emu_log("%s: ffs: the bridge refused request 0x%02x", g->camera.name,
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
	uint16_t maxp;

	switch (r) {
	case FFS_EP0_ERROR:
		return -1;
	case FFS_EP0_BIND:
		emu_log("%s: ffs: bound to UDC %s", g->camera.name, g->udc);
		set_state(g, "bound, not configured");
		break;
	case FFS_EP0_ENABLE:
		/*
		 * SET_CONFIGURATION or SET_INTERFACE(0): composite handled it
		 * and enabled the endpoint; the bridge learns of it the same
		 * way, so its bulk pipe (re)starts as over USB/IP.
		 */
		pthread_mutex_lock(&g->lock);
		configured = bridge_configured(g->camera.bridge);
		pthread_mutex_unlock(&g->lock);
		if (configured)
			tell_bridge(g, USB_RECIP_INTERFACE,
				    USB_REQ_SET_INTERFACE, 0);
		else
			tell_bridge(g, USB_RECIP_DEVICE,
				    USB_REQ_SET_CONFIGURATION,
				    ISOCAM_USB_CONFIG_VALUE);
		maxp = bus_maxp(g, &speed);
		ffs_video_enable(g->video, maxp);
		g->enabled = true;
		emu_log("%s: ffs: configured (%s, bulk endpoint 0x%02x, %u-byte packets)",
			g->camera.name, speed, ISOCAM_USB_BULK_EP_ADDR, maxp);
		set_state(g, "configured");
		break;
	case FFS_EP0_DISABLE:
	case FFS_EP0_UNBIND:
		/* f_fs ends the transfers in flight itself (-ESHUTDOWN) */
		ffs_video_enable(g->video, 0);
		g->enabled = false;
		tell_bridge(g, USB_RECIP_DEVICE, USB_REQ_SET_CONFIGURATION, 0);
		if (r == FFS_EP0_UNBIND)
			emu_log("%s: ffs: unbound from UDC %s", g->camera.name, g->udc);
		set_state(g, r == FFS_EP0_UNBIND ? "unbound" :
			  "bound, not configured");
		break;
	case FFS_EP0_SUSPEND:
		emu_log("%s: ffs: suspended by the host", g->camera.name);
		set_state(g, "suspended");
		break;
	case FFS_EP0_RESUME:
		emu_log("%s: ffs: resumed by the host", g->camera.name);
		set_state(g, g->enabled ? "configured" : "bound, not configured");
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
			{ .fd = ffs_video_event_fd(g->video), .events = POLLIN },
			{ .fd = g->stop_fd, .events = POLLIN },
		};
		struct timespec ts, *tsp = NULL;
		uint64_t wake, now;

		ffs_video_feed(g->video, &wake);
		now = emu_now_ns();
		if (wake != UINT64_MAX) {
			uint64_t d = wake > now ? wake - now : 0;

			ts.tv_sec = (time_t)(d / 1000000000ull);
			ts.tv_nsec = (long)(d % 1000000000ull);
			tsp = &ts;
		}
		if (ppoll(pfd, 3, tsp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			emu_log("%s: ffs: poll: %s", g->camera.name, strerror(errno));
			g->failed = true;
			break;
		}
		if (pfd[2].revents & POLLIN)
			break;
		if (pfd[1].revents & POLLIN)
			ffs_video_reap(g->video);
		if (pfd[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (on_ep0(g) < 0) {
				g->failed = true;
				break;
			}
			/* a stream stop shows in the sensor, set over ep0 */
			ffs_video_cancel(g->video, false);
		}
	}
	/* ffs_video_free() collects them, after the UDC is unbound */
	ffs_video_cancel(g->video, true);
	if (g->failed && write(g->done_fd, &one, sizeof(one)) < 0)
		emu_log("%s: ffs: signalling the end: %s", g->camera.name,
			strerror(errno));
	return NULL;
}

/* ---- setup and teardown ---- */

/* The camera, always bulk: a gadget has no iso personality here. */
static int new_model(struct ffs_gadget *g)
{
	struct camera_config cc = g->cfg.camera;

	cc.transport = USB_TRANSPORT_BULK;
	if (camera_init(&g->camera, &cc, 0) < 0)
		return -1;
	g->e0.bridge = g->camera.bridge;
	return 0;
}

/* The device descriptor the bridge would send over USB/IP, for configfs. */
static void spec_from(struct ffs_gadget *g, struct configfs_gadget_spec *s)
{
	const struct usb_descriptors *d = bridge_descriptors(g->camera.bridge);
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
		g->camera.name, what, n < 0 ? strerror(errno) : "short write");
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
		emu_log("%s: ffs: %s", g->camera.name, err);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/ep0", mnt);
	g->ep0 = open(path, O_RDWR | O_CLOEXEC);
	if (g->ep0 < 0) {
		emu_log("%s: ffs: open %s: %s", g->camera.name, path, strerror(errno));
		return -1;
	}
	dlen = ffs_ep0_descriptors(bridge_descriptors(g->camera.bridge), desc);
	if (dlen < 0) {
		emu_log("%s: ffs: the bridge's descriptors are not the bulk layout",
			g->camera.name);
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
		emu_log("%s: ffs: open %s: %s", g->camera.name, path, strerror(errno));
		return -1;
	}
	g->video = ffs_video_new(g->camera.name, g->cfg.camera.verbose, g->ep1, g->camera.bridge,
				 &g->lock);
	return g->video ? 0 : -1;
}

/* The camera and the thread's eventfds. */
static int start_model(struct ffs_gadget *g)
{
	if (new_model(g) < 0)
		return -1;
	g->stop_fd = eventfd(0, EFD_CLOEXEC);
	g->done_fd = eventfd(0, EFD_CLOEXEC);
	if (g->stop_fd < 0 || g->done_fd < 0) {
		emu_log("eventfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int start_thread(struct ffs_gadget *g)
{
	int r;

	g->state = "bound, not configured";
	g->status_ns = emu_now_ns();
	r = pthread_create(&g->thread, NULL, serve, g);
	if (r) {
		emu_log("ffs: pthread_create: %s", strerror(r));
		return -1;
	}
	g->thread_started = true;
	return 0;
}

static int start(struct ffs_gadget *g)
{
	struct configfs_gadget_spec spec;
	char err[512];

	if (start_model(g) < 0)
		return -1;
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
	if (start_thread(g) < 0)
		return -1;
	emu_log("%s: gadget %s (%04x:%04x, bulk) on UDC %s, configfs %s",
		g->camera.name, g->gadget_name, ISOCAM_USB_VID, ISOCAM_USB_PID, g->udc,
		configfs_gadget_dir(g->cg));
	return 0;
}

static void teardown(struct ffs_gadget *g)
{
	uint64_t one = 1;

	if (g->thread_started) {
		if (write(g->stop_fd, &one, sizeof(one)) < 0)
			emu_log("ffs: stopping the serving thread: %s",
				strerror(errno));
		pthread_join(g->thread, NULL);
	}
	/* the host sees the unplug now; what was still queued ends */
	if (g->cg)
		configfs_gadget_unbind(g->cg);
	ffs_video_free(g->video);
	if (g->ep1 >= 0)
		close(g->ep1);
	if (g->ep0 >= 0)
		close(g->ep0);
	configfs_gadget_destroy(g->cg);
	configfs_gadget_unprepare(g->configfs_mounted);
	ffs_ep0_release(&g->e0);
	camera_destroy(&g->camera);
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	if (g->done_fd >= 0)
		close(g->done_fd);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static struct ffs_gadget *alloc_gadget(const struct ffs_gadget_config *cfg)
{
	struct ffs_gadget *g = calloc(1, sizeof(*g));

	if (!g) {
		emu_log("out of memory");
		return NULL;
	}
	g->cfg = *cfg;
	g->cfg.udc = NULL;	/* kept in g->udc */
	g->ep0 = g->ep1 = g->stop_fd = g->done_fd = -1;
	pthread_mutex_init(&g->lock, NULL);
	snprintf(g->gadget_name, sizeof(g->gadget_name), "isocam-%d",
		 (int)getpid());
	snprintf(g->instance, sizeof(g->instance), "isocam%d", (int)getpid());
	/* camera_init() fills the name in before anything logs */
	g->e0 = (struct ffs_ep0){ .name = g->camera.name,
				  .verbose = cfg->camera.verbose,
				  .lock = &g->lock };
	if (cfg->udc)
		snprintf(g->udc, sizeof(g->udc), "%s", cfg->udc);
	return g;
}

struct ffs_gadget *ffs_gadget_start(const struct ffs_gadget_config *cfg)
{
	struct ffs_gadget *g = alloc_gadget(cfg);

	if (g && start(g) < 0) {
		teardown(g);
		return NULL;
	}
	return g;
}

struct ffs_gadget *ffs_gadget_serve_fds(const struct ffs_gadget_config *cfg,
					int ep0_fd, int video_fd)
{
	struct ffs_gadget *g = alloc_gadget(cfg);

	if (!g) {
		close(ep0_fd);
		close(video_fd);
		return NULL;
	}
	g->ep0 = ep0_fd;
	g->ep1 = video_fd;
	if (start_model(g) < 0)
		goto fail;
	g->video = ffs_video_new(g->camera.name, cfg->camera.verbose, g->ep1, g->camera.bridge,
				 &g->lock);
	if (!g->video || start_thread(g) < 0)
		goto fail;
	return g;
fail:
	teardown(g);
	return NULL;
}

int ffs_gadget_done_fd(const struct ffs_gadget *g)
{
	return g->done_fd;
}

void ffs_gadget_status(struct ffs_gadget *g)
{
	struct video_stream_stats st;
	struct ffs_video_stats vst;
	uint64_t now = emu_now_ns();
	const char *state;
	double dt, mbs;

	pthread_mutex_lock(&g->lock);
	video_stream_get_stats(bridge_video(g->camera.bridge), &st);
	ffs_video_get_stats(g->video, &vst);
	state = g->state;
	pthread_mutex_unlock(&g->lock);
	dt = (double)(now - g->status_ns) / 1e9;
	mbs = dt > 0 ? (double)(vst.bytes - g->status_bytes) / dt / 1e6 : 0;
	g->status_bytes = vst.bytes;
	g->status_ns = now;
	emu_log("%s ffs %s: %s, frames sent %llu dropped %llu, %.2f MB/s, transfers %llu done (%llu ZLPs), %llu cancelled at stream stops, %llu ended by the host, %llu failed",
		g->camera.name, g->udc, state ? state : "?",
		(unsigned long long)st.frames_sent,
		(unsigned long long)st.frames_dropped, mbs,
		(unsigned long long)vst.transfers, (unsigned long long)vst.zlps,
		(unsigned long long)vst.cancelled,
		(unsigned long long)vst.ended_by_host,
		(unsigned long long)vst.failed);
}

unsigned int ffs_gadget_arm_hostile(struct ffs_gadget *g)
{
	return camera_arm_hostile(&g->camera) ? 1 : 0;
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
