// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Listening socket, connections and the cameras. Each accepted
 * connection gets a thread: a device list is answered and the
 * connection closed; an import claims a camera for the session's
 * lifetime, so a camera is importable again once its client has gone.
 */
#include "usbip_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <isocam/usb.h>

#include "bridge.h"
#include "clock.h"
#include "log.h"
#include "usbip_camera.h"
#include "usbip_device.h"
#include "usbip_proto.h"
#include "usbip_session.h"
#include "video_stream.h"

struct conn {
	struct conn *next;
	struct usbip_server *srv;
	pthread_t thread;
	int fd;
	bool done;
	char peer[64];
};

struct usbip_server {
	struct usbip_server_config cfg;
	char bind[64];
	int listen_fd;
	int stop_fd;		/* eventfd: readable once stopping */
	unsigned int count;
	struct usbip_camera cam[USBIP_SERVER_MAX_CAMERAS];

	pthread_mutex_t conns_lock;
	struct conn *conns;
	unsigned int live;		/* conns not yet done */
	/* refusals past max_clients (accepting thread only) */
	unsigned long refused;
	uint64_t refused_log_ns;
};

struct usbip_server *usbip_server_new(const struct usbip_server_config *cfg)
{
	struct usbip_server *s;
	unsigned int i;

	if (cfg->count < 1 || cfg->count > USBIP_SERVER_MAX_CAMERAS) {
		emu_log("--count %u: must be 1..%u", cfg->count,
			USBIP_SERVER_MAX_CAMERAS);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		emu_log("out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	snprintf(s->bind, sizeof(s->bind), "%s",
		 cfg->bind ? cfg->bind : USBIP_SERVER_DEFAULT_BIND);
	s->cfg.bind = s->bind;
	/* not kept: parsed per camera below */
	s->cfg.camera.fault_spec = NULL;
	s->cfg.camera.hostile_spec = NULL;
	if (!s->cfg.max_clients) {
		s->cfg.max_clients = USBIP_SERVER_DEFAULT_MAX_CLIENTS;
		if (cfg->count + 8 > s->cfg.max_clients)
			s->cfg.max_clients = cfg->count + 8;
	}
	if (!s->cfg.request_timeout_ms)
		s->cfg.request_timeout_ms = USBIP_DEFAULT_REQUEST_TIMEOUT_MS;
	if (!s->cfg.first_urb_timeout_ms)
		s->cfg.first_urb_timeout_ms = USBIP_DEFAULT_FIRST_URB_TIMEOUT_MS;
	if (!s->cfg.max_queued_uframes)
		s->cfg.max_queued_uframes = USBIP_DEFAULT_MAX_QUEUED_UFRAMES;
	s->listen_fd = -1;
	pthread_mutex_init(&s->conns_lock, NULL);
	s->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (s->stop_fd < 0) {
		emu_log("eventfd: %s", strerror(errno));
		free(s);
		return NULL;
	}
	for (i = 0; i < cfg->count; i++) {
		struct usbip_camera *cam = &s->cam[i];

		snprintf(cam->busid, sizeof(cam->busid), "1-%u", i + 1);
		pthread_mutex_init(&cam->lock, NULL);
		s->count = i + 1;
		if (camera_init(&cam->camera, &cfg->camera, i) < 0) {
			usbip_server_free(s);
			return NULL;
		}
		cam->status_ns = emu_now_ns();
	}
	return s;
}

void usbip_server_free(struct usbip_server *s)
{
	unsigned int i;

	if (!s)
		return;
	usbip_server_stop(s);
	for (i = 0; i < s->count; i++) {
		camera_destroy(&s->cam[i].camera);
		pthread_mutex_destroy(&s->cam[i].lock);
	}
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	close(s->stop_fd);
	pthread_mutex_destroy(&s->conns_lock);
	free(s);
}

int usbip_server_listen(struct usbip_server *s)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(s->cfg.port),
	};
	int one = 1;
	int fd;

	if (inet_pton(AF_INET, s->bind, &sa.sin_addr) != 1) {
		emu_log("--bind %s: not an IPv4 address", s->bind);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		emu_log("socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		emu_log("cannot listen on %s:%u: %s%s", s->bind, s->cfg.port,
			strerror(errno),
			errno == EADDRINUSE ?
			" (another isocam-emu or usbipd running? try --port)" : "");
		close(fd);
		return -1;
	}
	if (listen(fd, 16) < 0) {
		emu_log("listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	s->listen_fd = fd;
	if ((ntohl(sa.sin_addr.s_addr) >> 24) != 127)
		emu_log("warning: --bind %s is not loopback, and USB/IP has no authentication: anyone who reaches %s:%u can attach these cameras",
			s->bind, s->bind, s->cfg.port);
	emu_log("listening on %s:%u with %u %s camera%s (bus id%s 1-1%s%s)",
		s->bind, s->cfg.port, s->count,
		s->cfg.camera.transport == USB_TRANSPORT_BULK ? "bulk" : "iso",
		s->count > 1 ? "s" : "",
		s->count > 1 ? "s" : "", s->count > 1 ? "..1-" : "",
		s->count > 1 ? s->cam[s->count - 1].busid + 2 : "");
	return 0;
}

int usbip_server_listen_fd(const struct usbip_server *s)
{
	return s->listen_fd;
}

/*
 * Read exactly len bytes by deadline_ns (monotonic; UINT64_MAX: none):
 * -ETIMEDOUT past it, -1 on EOF, error or stop. The deadline is for the
 * whole request, so a client trickling a byte at a time gains nothing.
 */
static int read_full(struct usbip_server *s, int fd, uint8_t *buf, size_t len,
		     uint64_t deadline_ns)
{
	while (len) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = s->stop_fd, .events = POLLIN },
		};
		uint64_t now = emu_now_ns(), ms;
		ssize_t n;
		int r;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		ms = (deadline_ns - now + 999999) / 1000000;
		r = poll(pfd, 2, deadline_ns == UINT64_MAX ? -1 :
			 ms > 3600000 ? 3600000 : (int)ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue;	/* the deadline check above decides */
		if (r < 0 || (pfd[1].revents & POLLIN))
			return -1;
		n = recv(fd, buf, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void serve_devlist(struct usbip_server *s, int fd, const char *peer)
{
	struct usbip_usb_device devs[USBIP_SERVER_MAX_CAMERAS];
	const struct usbip_usb_interface *ifs[USBIP_SERVER_MAX_CAMERAS];
	uint8_t *buf;
	size_t len;
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		usbip_camera_device(&s->cam[i], &devs[i]);
		ifs[i] = usbip_camera_interfaces;
	}
	len = usbip_devlist_reply_len(devs, s->count);
	buf = malloc(len);
	if (!buf) {
		emu_log("client %s: out of memory for the device list", peer);
		return;
	}
	usbip_devlist_reply_encode(buf, len, devs, ifs, s->count);
	if (write_full(fd, buf, len) < 0)
		emu_log("client %s: could not send the device list", peer);
	else if (s->cfg.camera.verbose)
		emu_log("client %s: sent the device list (%u devices)", peer,
			s->count);
	free(buf);
}

/* NULL with *why and the usbipd status code for the refusal. */
static struct usbip_camera *claim_camera(struct usbip_server *s,
				       const char *busid, const char *peer,
				       const char **why, uint32_t *status)
{
	struct usbip_camera *cam = NULL;
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (!strcmp(s->cam[i].busid, busid))
			cam = &s->cam[i];
	if (!cam) {
		*why = "no such bus id";
		*status = USBIP_OP_STATUS_NODEV;
		return NULL;
	}
	pthread_mutex_lock(&cam->lock);
	if (cam->in_use) {
		pthread_mutex_unlock(&cam->lock);
		*why = "already imported by another client";
		*status = USBIP_OP_STATUS_DEV_BUSY;
		return NULL;
	}
	if (cam->powered_before) {
		/* a re-import is a replug: the camera powers up fresh */
		if (camera_power_up(&cam->camera) < 0) {
			pthread_mutex_unlock(&cam->lock);
			*why = "out of memory";
			*status = USBIP_OP_STATUS_ERROR;
			return NULL;
		}
	}
	cam->in_use = true;
	cam->powered_before = true;
	cam->host_late = 0;
	cam->host_late_max_ns = 0;
	cam->host_late_absorbed = 0;
	snprintf(cam->client, sizeof(cam->client), "%s", peer);
	pthread_mutex_unlock(&cam->lock);
	return cam;
}

static void release_camera(struct usbip_camera *cam)
{
	pthread_mutex_lock(&cam->lock);
	cam->in_use = false;
	pthread_mutex_unlock(&cam->lock);
}

static void serve_import(struct usbip_server *s, int fd, const char *peer,
			 const uint8_t *req, uint64_t deadline_ns)
{
	struct usbip_session_config scfg = {
		.verbose = s->cfg.camera.verbose,
		.late_tolerance_ms = s->cfg.late_tolerance_ms,
		.max_queued_uframes = s->cfg.max_queued_uframes,
		.first_cmd_timeout_ms =
			s->cfg.first_urb_timeout_ms == USBIP_TIMEOUT_NEVER ?
			0 : s->cfg.first_urb_timeout_ms,
		.no_pacing = s->cfg.no_pacing,
		.copy_packets = s->cfg.copy_packets,
	};
	uint8_t rest[USBIP_IMPORT_REQ_LEN];
	uint8_t rep[USBIP_IMPORT_REP_LEN];
	struct usbip_usb_device d;
	char busid[USBIP_BUSID_LEN];
	struct usbip_camera *cam;
	const char *why = NULL;
	uint32_t status;
	size_t n;

	memcpy(rest, req, USBIP_OP_COMMON_LEN);
	if (read_full(s, fd, rest + USBIP_OP_COMMON_LEN, USBIP_BUSID_LEN,
		      deadline_ns) < 0) {
		emu_log("client %s: import request cut short or not whole within %u ms (--request-timeout); closing",
			peer, s->cfg.request_timeout_ms);
		return;
	}
	if (usbip_import_req_decode(rest, sizeof(rest), busid) < 0) {
		emu_log("client %s: malformed import request (bus id not terminated); closing",
			peer);
		n = usbip_import_rep_encode(rep, NULL);
		write_full(fd, rep, n);
		return;
	}
	cam = claim_camera(s, busid, peer, &why, &status);
	if (!cam) {
		emu_log("client %s: import of %s refused: %s (status %u)", peer,
			busid, why, status);
		n = usbip_import_rep_refuse(rep, status);
		write_full(fd, rep, n);
		return;
	}
	usbip_camera_device(cam, &d);
	n = usbip_import_rep_encode(rep, &d);
	if (write_full(fd, rep, n) < 0) {
		emu_log("client %s: could not send the import reply", peer);
		release_camera(cam);
		return;
	}
	emu_log("%s: imported by %s (bus id %s)", cam->camera.name, peer, busid);
	usbip_session_run(cam, fd, s->stop_fd, &scfg);
	release_camera(cam);
	emu_log("%s: session with %s ended; the camera is free again",
		cam->camera.name, peer);
}

void usbip_server_serve_fd(struct usbip_server *s, int fd, const char *peer)
{
	uint8_t req[USBIP_OP_COMMON_LEN];
	struct usbip_op_common op;
	uint64_t deadline = s->cfg.request_timeout_ms == USBIP_TIMEOUT_NEVER ?
			    UINT64_MAX :
			    emu_now_ns() + s->cfg.request_timeout_ms * 1000000ull;
	int r = read_full(s, fd, req, sizeof(req), deadline);

	if (r == -ETIMEDOUT) {
		emu_log("client %s: sent no request within %u ms (--request-timeout); closing", peer,
			s->cfg.request_timeout_ms);
	} else if (r < 0) {
		emu_log("client %s: closed before a request", peer);
	} else if (usbip_op_common_decode(req, sizeof(req), &op) < 0) {
		emu_log("client %s: not a USB/IP %x.%x.%x request (version 0x%04x); closing",
			peer, USBIP_VERSION >> 8, (USBIP_VERSION >> 4) & 0xf,
			USBIP_VERSION & 0xf, op.version);
	} else if (op.code == USBIP_OP_REQ_DEVLIST) {
		serve_devlist(s, fd, peer);
	} else if (op.code == USBIP_OP_REQ_IMPORT) {
		serve_import(s, fd, peer, req, deadline);
	} else {
		emu_log("client %s: unknown request 0x%04x; closing", peer,
			op.code);
	}
	close(fd);
}

static void *conn_thread(void *arg)
{
	struct conn *c = arg;

	usbip_server_serve_fd(c->srv, c->fd, c->peer);
	pthread_mutex_lock(&c->srv->conns_lock);
	c->done = true;
	c->srv->live--;
	pthread_mutex_unlock(&c->srv->conns_lock);
	return NULL;
}

/* Join the threads of connections that have ended. */
static void reap(struct usbip_server *s, bool all)
{
	struct conn **pp, *c;

	pthread_mutex_lock(&s->conns_lock);
	pp = &s->conns;
	while ((c = *pp)) {
		if (!all && !c->done) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		pthread_mutex_unlock(&s->conns_lock);
		pthread_join(c->thread, NULL);
		free(c);
		pthread_mutex_lock(&s->conns_lock);
	}
	pthread_mutex_unlock(&s->conns_lock);
}

/*
 * At max_clients, a further connection is closed at once (usbip attach
 * then reports a failed receive) rather than given a thread. Logged at
 * most once a second, so a connection flood cannot flood the log too.
 */
static bool refuse_over_cap(struct usbip_server *s, int fd, const char *ip,
			    unsigned int port)
{
	uint64_t now = emu_now_ns();
	unsigned int live;
	char more[64];

	pthread_mutex_lock(&s->conns_lock);
	live = s->live;
	pthread_mutex_unlock(&s->conns_lock);
	if (live < s->cfg.max_clients)
		return false;
	close(fd);
	if (s->refused_log_ns && now - s->refused_log_ns < 1000000000ull) {
		s->refused++;	/* counted in the next line logged */
		return true;
	}
	snprintf(more, sizeof(more), " (and %lu more since the last such line)",
		 s->refused);
	emu_log("client %s:%u refused: %u connections open, the --max-clients limit%s",
		ip, port, live, s->refused ? more : "");
	s->refused_log_ns = now;
	s->refused = 0;
	return true;
}

void usbip_server_accept(struct usbip_server *s)
{
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	struct timeval tv = { .tv_sec = 10 };
	struct conn *c;
	char ip[INET_ADDRSTRLEN] = "?";
	int fd, one = 1;

	reap(s, false);
	fd = accept4(s->listen_fd, (struct sockaddr *)&sa, &salen,
		     SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			emu_log("accept: %s", strerror(errno));
		return;
	}
	inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	if (refuse_over_cap(s, fd, ip, ntohs(sa.sin_port)))
		return;
	/* small control replies must not wait for Nagle */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a client that stops reading is dropped rather than hang us */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	c = calloc(1, sizeof(*c));
	if (!c) {
		emu_log("out of memory accepting a connection");
		close(fd);
		return;
	}
	snprintf(c->peer, sizeof(c->peer), "%s:%u", ip, ntohs(sa.sin_port));
	c->srv = s;
	c->fd = fd;
	pthread_mutex_lock(&s->conns_lock);
	if (pthread_create(&c->thread, NULL, conn_thread, c)) {
		pthread_mutex_unlock(&s->conns_lock);
		emu_log("client %s: cannot start a thread; closing", c->peer);
		close(fd);
		free(c);
		return;
	}
	/* under the lock: the thread's own live-- must come after this */
	s->live++;
	c->next = s->conns;
	s->conns = c;
	pthread_mutex_unlock(&s->conns_lock);
}

unsigned int usbip_server_arm_hostile(struct usbip_server *s)
{
	unsigned int i, armed = 0;

	for (i = 0; i < s->count; i++) {
		struct usbip_camera *cam = &s->cam[i];

		if (camera_arm_hostile(&cam->camera))
			armed++;
	}
	return armed;
}

void usbip_server_status(struct usbip_server *s)
{
	uint64_t now = emu_now_ns();
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		struct usbip_camera *cam = &s->cam[i];
		struct video_stream_stats st;
		char client[64], jpeg[160];
		uint64_t late, late_max, absorbed;
		unsigned int alt;
		bool in_use;
		double mbs, dt;

		pthread_mutex_lock(&cam->lock);
		video_stream_get_stats(bridge_video(cam->camera.bridge), &st);
		alt = bridge_alt(cam->camera.bridge);
		in_use = cam->in_use;
		late = cam->host_late;
		late_max = cam->host_late_max_ns;
		absorbed = cam->host_late_absorbed;
		snprintf(client, sizeof(client), "%s", cam->client);
		pthread_mutex_unlock(&cam->lock);

		if (st.bytes_sent < cam->status_bytes)	/* reset at re-import */
			cam->status_bytes = 0;
		dt = (double)(now - cam->status_ns) / 1e9;
		mbs = dt > 0 ? (double)(st.bytes_sent - cam->status_bytes) /
			       dt / 1e6 : 0;
		cam->status_bytes = st.bytes_sent;
		cam->status_ns = now;
		jpeg[0] = 0;
		if (st.jpeg_encodes)
			snprintf(jpeg, sizeof(jpeg), ", jpeg: %llu encodes (worst freeze %.1f ms), %llu frames rotated (mean %.2f ms, worst %.2f ms)",
				 (unsigned long long)st.jpeg_encodes,
				 (double)st.jpeg_freeze_ns_max / 1e6,
				 (unsigned long long)st.jpeg_frames,
				 st.jpeg_frames ? (double)st.jpeg_frame_ns_sum /
					 (double)st.jpeg_frames / 1e6 : 0.0,
				 (double)st.jpeg_frame_ns_max / 1e6);
		emu_log("%s %s: %s%s, alt %u, frames sent %llu dropped %llu, %.2f MB/s, host late %llu times (max %.1f ms, %llu absorbed)%s",
			cam->camera.name, cam->busid, in_use ? "client " : "no client",
			in_use ? client : "", alt,
			(unsigned long long)st.frames_sent,
			(unsigned long long)st.frames_dropped, mbs,
			(unsigned long long)late, (double)late_max / 1e6,
			(unsigned long long)absorbed, jpeg);
	}
}

void usbip_server_stop(struct usbip_server *s)
{
	uint64_t one = 1;

	if (write(s->stop_fd, &one, sizeof(one)) < 0)
		emu_log("cannot signal the sessions to stop: %s",
			strerror(errno));
	reap(s, true);
}
