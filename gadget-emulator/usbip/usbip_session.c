// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * One imported camera's URB loop. Single threaded per session: replies
 * are written by the same thread that reads commands, so RET_SUBMITs and
 * RET_UNLINKs can never interleave on the socket.
 *
 * Video replies (iso and bulk) go out with sendmsg() straight from the
 * frame buffer (usbip_reply.h); the buffer is released to the pipe only
 * when the next reply is built, since each send completes before that.
 * With hostile modes the data is copied, as they rewrite it in place.
 */
#include "usbip_session.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <isocam/usb.h>
#include <linux/usb/ch9.h>

#include "bridge.h"
#include "fault.h"
#include "grow.h"
#include "hostile.h"
#include "clock.h"
#include "log.h"
#include "usb_descriptors.h"
#include "usbip_camera.h"
#include "usbip_device.h"
#include "usbip_hostile.h"
#include "usbip_proto.h"
#include "usbip_reply.h"
#include "video_stream.h"

#define ISO_EP		(ISOCAM_USB_ISO_EP_ADDR & 0x0f)
#define BULK_EP		(ISOCAM_USB_BULK_EP_ADDR & 0x0f)
#define RX_INITIAL	(64 * 1024)
/* per-command bounds (usbip_session.h says why these two) */
#define MAX_OUT_DATA	65535u
#define MAX_UFRAME_BYTES	3072u
/* unlinks kept for a URB not yet submitted (usbip_session.h) */
#define EARLY_UNLINK_MAX	16u
/* bulk IN URBs waiting for data at once (usbip_session.h) */
#define BULK_QUEUE_MAX		64u
/*
 * Payload transfers a fault or hostile mode may lose in a row before the
 * session looks at its socket again (it then goes on at once): bounds the
 * work of one pass when every transfer is lost and frames free-run.
 */
#define BULK_LOST_MAX		64u

struct iso_urb {
	struct iso_urb *next;
	uint32_t seqnum;
	uint32_t tbl;			/* transfer_buffer_length */
	uint32_t np;
	uint64_t start_ns;		/* bus time of packet 0 */
	uint64_t end_ns;		/* bus time: start + np microframes */
	uint64_t deadline_ns;		/* wall time (monotonic) of the end */
	struct {
		uint32_t offset, length;
	} pkt[];
};

/* A bulk IN URB waiting for frame data: one payload transfer. */
struct bulk_urb {
	struct bulk_urb *next;
	uint32_t seqnum;
	uint32_t tbl;			/* transfer_buffer_length */
};

struct session {
	struct usbip_camera *cam;
	const struct usbip_session_config *cfg;
	int fd;
	bool verbose;
	uint32_t devid;			/* the imported camera's */

	uint8_t *rx;
	size_t rx_len, rx_cap;
	uint8_t *tx;			/* control replies */
	size_t tx_cap;
	/*
	 * Video replies, sent from the frame buffer (copy: hostile.h may
	 * rewrite the data in place, so it is copied as it used to be).
	 */
	struct usbip_reply reply;
	bool copy;

	struct iso_urb *head, *tail;	/* in deadline order */
	bool bulk;			/* the camera's transport is bulk */
	struct bulk_urb *bulk_head;	/* in submission order */
	unsigned int n_bulk;
	uint32_t queued_uframes;	/* packets of head..tail */
	bool rx_blocked;		/* an iso URB in rx waits for room */
	size_t skip;			/* bytes of a refused command to drop */
	bool got_cmd;			/* a whole command came since import */
	uint64_t bus_next_ns;		/* bus time; 0: no stream yet */
	/* bus time = monotonic time - lag; lag grows when lateness is absorbed */
	uint64_t lag_ns;
	uint64_t late_tolerance_ns;
	/*
	 * When the bytes being parsed reached our socket (kernel receive
	 * timestamp, CLOCK_MONOTONIC). A URB counts from its arrival, not
	 * from when this thread got round to it: a session thread that was
	 * descheduled must not look like a late host and lose frames.
	 */
	uint64_t rx_arrival_ns;
	uint64_t frames_seen;		/* for the vanish fault */
	bool vanish;
	struct hostile_held held;	/* control URBs left unanswered */
	/* the newest CMD_SUBMIT's seqnum, and CMD_UNLINKs that came first */
	uint32_t last_submit;
	bool any_submit;
	struct early_unlink {
		uint32_t seqnum;	/* the CMD_UNLINK's own */
		uint32_t victim;	/* the URB it names */
	} early[EARLY_UNLINK_MAX];
	unsigned int n_early;
	/* an iso reply's descriptors, as hostile.h may rewrite them */
	struct usbip_iso_desc iso_d[USBIP_MAX_ISO_PACKETS +
				    HOSTILE_ISO_EXTRA_PACKETS];
};

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p = emu_reserve(*buf, cap, need ? need : 1, 1, RX_INITIAL);

	if (!p)
		return -1;
	*buf = p;
	return 0;
}

/* The send timeout (usbip_server.c) ran out or the socket broke: -1. */
static int send_failed(struct session *ss)
{
	emu_log("%s: client %s: send failed: %s; closing connection",
		ss->cam->camera.name, ss->cam->client,
		errno == EAGAIN ? "client stopped reading" : strerror(errno));
	return -1;
}

/* Write all of buf; a client that stops reading for 10 s is dropped. */
static int send_all(struct session *ss, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = send(ss->fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return send_failed(ss);
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Send the video reply built in ss->reply, as send_all() would. */
static int send_reply(struct session *ss)
{
	if (usbip_reply_send(&ss->reply, ss->fd, sendmsg) < 0)
		return send_failed(ss);
	return 0;
}

static int send_header_only(struct session *ss, const struct usbip_header *h)
{
	uint8_t buf[USBIP_HEADER_LEN];

	usbip_header_encode(buf, h);
	return send_all(ss, buf, sizeof(buf));
}

static int reply_status(struct session *ss, uint32_t seqnum, int32_t status)
{
	struct usbip_header h;

	usbip_ret_submit_header(&h, seqnum, status, 0, 0);
	return send_header_only(ss, &h);
}

static int handle_control(struct session *ss, const struct usbip_cmd *cmd)
{
	struct usb_setup s;
	struct usbip_header h;
	bool in = cmd->hdr.direction == USBIP_DIR_IN;
	int ret;

	usb_setup_decode(cmd->hdr.u.cmd_submit.setup, &s);
	ret = hostile_hold_control(ss->cam->camera.hostile, &ss->held,
				   s.bmRequestType, s.bRequest,
				   cmd->hdr.seqnum);
	if (ret < 0)
		emu_log("%s: hostile: %u control URBs left unanswered already; closing connection",
			ss->cam->camera.name, HOSTILE_HELD_MAX);
	else if (ret && ss->verbose)
		emu_log("%s: hostile: control URB seqnum %u left unanswered",
			ss->cam->camera.name, cmd->hdr.seqnum);
	if (ret)
		return ret < 0 ? -1 : 0;	/* held: no reply until unlinked */
	/* room past wLength for a hostile ctrl-long reply */
	if (grow(&ss->tx, &ss->tx_cap, USBIP_HEADER_LEN + s.wLength +
		 HOSTILE_CTRL_LONG_EXTRA) < 0) {
		emu_log("%s: out of memory for a control reply", ss->cam->camera.name);
		return -1;
	}
	pthread_mutex_lock(&ss->cam->lock);
	if (in)
		ret = bridge_control(ss->cam->camera.bridge, &s,
				     ss->tx + USBIP_HEADER_LEN,
				     s.wLength + HOSTILE_CTRL_LONG_EXTRA);
	else
		ret = bridge_control(ss->cam->camera.bridge, &s,
				     (uint8_t *)cmd->data,
				     cmd->data_len < s.wLength ? cmd->data_len :
				     s.wLength);
	pthread_mutex_unlock(&ss->cam->lock);

	/*
	 * A new alt setting with nothing queued starts a new stream: the
	 * bus clock restarts at the first URB rather than counting the pause
	 * as the host being late.
	 */
	if (ret >= 0 && !ss->head && s.bRequest == USB_REQ_SET_INTERFACE &&
	    (s.bmRequestType & USB_TYPE_MASK) == USB_TYPE_STANDARD) {
		ss->bus_next_ns = 0;
		ss->lag_ns = 0;
	}
	if (ret < 0)
		return reply_status(ss, cmd->hdr.seqnum, BRIDGE_STALL);
	usbip_ret_submit_header(&h, cmd->hdr.seqnum, 0, ret, 0);
	usbip_header_encode(ss->tx, &h);
	/* vhci reads data only for IN; for OUT actual_length is a count */
	return send_all(ss, ss->tx, USBIP_HEADER_LEN + (in ? (size_t)ret : 0));
}

static int queue_iso(struct session *ss, const struct usbip_cmd *cmd)
{
	struct iso_urb *u;
	uint64_t now = ss->rx_arrival_ns ? ss->rx_arrival_ns : emu_now_ns();
	uint32_t i;

	u = malloc(sizeof(*u) + cmd->num_iso * sizeof(u->pkt[0]));
	if (!u) {
		emu_log("%s: out of memory queuing an iso URB", ss->cam->camera.name);
		return -1;
	}
	u->next = NULL;
	u->seqnum = cmd->hdr.seqnum;
	u->tbl = (uint32_t)cmd->hdr.u.cmd_submit.transfer_buffer_length;
	u->np = cmd->num_iso;
	for (i = 0; i < u->np; i++) {
		struct usbip_iso_desc d;

		usbip_cmd_iso_desc(cmd, i, &d);
		u->pkt[i].offset = d.offset;
		u->pkt[i].length = d.length;
	}
	now -= ss->lag_ns;	/* in bus time */
	u->start_ns = now;
	if (ss->bus_next_ns && now <= ss->bus_next_ns) {
		u->start_ns = ss->bus_next_ns;
	} else if (ss->bus_next_ns) {
		/* the bus ran dry: no URB covered [bus_next, now) */
		uint64_t gap = now - ss->bus_next_ns;
		bool absorb = gap <= ss->late_tolerance_ns;

		pthread_mutex_lock(&ss->cam->lock);
		ss->cam->host_late++;
		if (gap > ss->cam->host_late_max_ns)
			ss->cam->host_late_max_ns = gap;
		if (absorb)
			ss->cam->host_late_absorbed++;
		pthread_mutex_unlock(&ss->cam->lock);
		if (absorb) {
			/*
			 * Within the tolerance the gap is taken as transport
			 * latency a real bus would not have: the bus clock
			 * pauses instead of skipping microframes.
			 */
			ss->lag_ns += gap;
			u->start_ns = ss->bus_next_ns;
		}
		if (ss->verbose)
			emu_log("%s: host late by %.1f ms: %s", ss->cam->camera.name,
				(double)gap / 1e6, absorb ?
				"absorbed (bus clock paused)" :
				"those microframes were never polled");
	}
	u->end_ns = u->start_ns + u->np * USBIP_MICROFRAME_NS;
	u->deadline_ns = hostile_iso_deadline(ss->cam->camera.hostile,
					      ss->cfg->no_pacing ? 0 :
					      u->end_ns + ss->lag_ns);
	ss->bus_next_ns = u->end_ns;
	ss->queued_uframes += u->np;
	if (ss->tail)
		ss->tail->next = u;
	else
		ss->head = u;
	ss->tail = u;
	return 0;
}

/* vanish: one opportunity per frame sent, e.g. after:300 frames */
static int check_vanish(struct session *ss,
			const struct video_stream_stats *st)
{
	while (ss->frames_seen < st->frames_sent) {
		ss->frames_seen++;
		if (fault_hit(ss->cam->camera.fault, FAULT_VANISH)) {
			emu_log("%s: fault: vanishing after %llu frames (dropping the connection)",
				ss->cam->camera.name,
				(unsigned long long)ss->frames_seen);
			ss->vanish = true;
			return -1;
		}
	}
	return 0;
}

/* Fill and send the oldest iso URB; its deadline has come. */
static int complete_iso(struct session *ss)
{
	struct iso_urb *u = ss->head;
	struct usbip_camera *cam = ss->cam;
	struct usbip_reply *rp = &ss->reply;
	struct video_stream_stats st;
	struct hostile_iso_reply r;
	struct video_stream *vs;
	struct usbip_header h;
	uint8_t *desc;
	uint32_t i;
	long pos;
	int ret;

	ss->head = u->next;
	if (!ss->head)
		ss->tail = NULL;
	ss->queued_uframes -= u->np;

	for (i = 0; i < u->np; i++)
		ss->iso_d[i] = (struct usbip_iso_desc){
			.offset = u->pkt[i].offset,
			.length = u->pkt[i].length,
		};
	usbip_reply_reset(rp);
	pos = usbip_reply_own(rp, USBIP_HEADER_LEN) ? 0 : -1;

	pthread_mutex_lock(&cam->lock);
	vs = bridge_video(cam->camera.bridge);
	/* the last reply has been sent: its frame buffer is free again */
	video_stream_release(vs);
	if (!pos)
		pos = usbip_reply_iso_packets(rp, vs, u->start_ns, ss->iso_d,
					      u->np,
					      bridge_packet_bytes(cam->camera.bridge),
					      u->tbl, ss->copy);
	video_stream_get_stats(vs, &st);
	pthread_mutex_unlock(&cam->lock);

	r = (struct hostile_iso_reply){
		.data_len = (uint32_t)pos, .tbl = u->tbl,
		.d = ss->iso_d, .np = u->np,
	};
	/*
	 * hostile.h rewrites the copied data in place, and may unpack it to
	 * the URB's layout: room for tbl. Sent from the frame buffer, there
	 * are no hostile modes, and hostile_iso_reply() would change nothing.
	 */
	if (pos >= 0 && ss->copy) {
		if (usbip_reply_own(rp, u->tbl - r.data_len)) {
			r.data = usbip_reply_own_at(rp, USBIP_HEADER_LEN);
			hostile_iso_reply(cam->camera.hostile, &r);
			usbip_reply_trim(rp, USBIP_HEADER_LEN + r.data_len);
		} else {
			pos = -1;
		}
	}
	desc = pos < 0 ? NULL :
	       usbip_reply_own(rp, (size_t)r.np * USBIP_ISO_DESC_LEN);
	if (!desc) {
		emu_log("%s: out of memory for an iso reply", cam->camera.name);
		free(u);
		return -1;
	}
	/* the descriptors follow the data */
	for (i = 0; i < r.np; i++)
		usbip_iso_desc_encode(desc + (size_t)i * USBIP_ISO_DESC_LEN,
				      &r.d[i]);
	usbip_ret_submit_header(&h, u->seqnum, r.status, (int32_t)r.data_len,
				(int32_t)r.np);
	h.u.ret_submit.error_count = r.error_count;
	usbip_header_encode(usbip_reply_own_at(rp, 0), &h);
	ret = send_reply(ss);
	free(u);
	return ret < 0 ? -1 : check_vanish(ss, &st);
}

/*
 * Queue a bulk IN URB; it completes once frame data is there. One too
 * small for a header and a byte of data, or past the queue's bound, is
 * refused -EMSGSIZE (usbip_session.h).
 */
static int queue_bulk(struct session *ss, const struct usbip_cmd *cmd)
{
	uint32_t tbl = (uint32_t)cmd->hdr.u.cmd_submit.transfer_buffer_length;
	struct bulk_urb *u, **pp;
	char why[96] = "";

	if (tbl < ISOCAM_USB_BULK_MIN_URB)
		snprintf(why, sizeof(why),
			 "transfer_buffer_length %u below the %u a payload transfer needs",
			 tbl, ISOCAM_USB_BULK_MIN_URB);
	else if (ss->n_bulk >= BULK_QUEUE_MAX)
		snprintf(why, sizeof(why), "%u bulk URBs wait already",
			 ss->n_bulk);
	if (why[0]) {
		emu_log("%s: client %s: bulk URB seqnum %u refused (-EMSGSIZE): %s",
			ss->cam->camera.name, ss->cam->client, cmd->hdr.seqnum, why);
		return reply_status(ss, cmd->hdr.seqnum, -EMSGSIZE);
	}
	u = malloc(sizeof(*u));
	if (!u) {
		emu_log("%s: out of memory queuing a bulk URB", ss->cam->camera.name);
		return -1;
	}
	*u = (struct bulk_urb){ .seqnum = cmd->hdr.seqnum, .tbl = tbl };
	for (pp = &ss->bulk_head; *pp; pp = &(*pp)->next)
		;
	*pp = u;
	ss->n_bulk++;
	return 0;
}

/*
 * Take the oldest bulk URB off the queue and answer it: the header goes
 * into ss->reply's first bytes, the transfer (len bytes) already follows.
 */
static int send_bulk(struct session *ss, int32_t status, size_t len)
{
	struct bulk_urb *u = ss->bulk_head;
	struct usbip_header h;
	int ret;

	ss->bulk_head = u->next;
	ss->n_bulk--;
	usbip_ret_submit_header(&h, u->seqnum, status, (int32_t)len, 0);
	usbip_reply_trim(&ss->reply, USBIP_HEADER_LEN + len);
	usbip_header_encode(usbip_reply_own_at(&ss->reply, 0), &h);
	ret = send_reply(ss);
	free(u);
	return ret;
}

/*
 * Complete the queued bulk URBs that frame data is ready for, one payload
 * transfer each, at the current monotonic time: bulk has no schedule, so
 * data goes as soon as the bridge has it. When it has none, the URBs wait
 * and *wake becomes the next capture slot (if that is sooner). Without
 * the endpoint (deconfigured) they end -ESHUTDOWN; halted, -EPIPE;
 * hostile bulk-urb-status, -EPROTO with no data.
 */
static int service_bulk(struct session *ss, uint64_t *wake)
{
	struct usbip_camera *cam = ss->cam;
	unsigned int lost = 0;

	while (ss->bulk_head) {
		uint32_t room = ss->bulk_head->tbl;
		struct video_stream_stats st;
		struct video_stream *vs;
		uint64_t now = emu_now_ns(), next;
		int32_t status = 0;
		uint32_t max;
		long n = 0;

		usbip_reply_reset(&ss->reply);
		if (!usbip_reply_own(&ss->reply, USBIP_HEADER_LEN)) {
			emu_log("%s: out of memory for a bulk reply", cam->camera.name);
			return -1;
		}
		pthread_mutex_lock(&cam->lock);
		vs = bridge_video(cam->camera.bridge);
		/* the last reply has been sent: its frame buffer is free again */
		video_stream_release(vs);
		max = bridge_bulk_payload_max(cam->camera.bridge);
		if (!max) {
			status = -ESHUTDOWN;
		} else if (bridge_ep_halted(cam->camera.bridge)) {
			status = BRIDGE_STALL;
		} else if (!video_stream_poll(vs, now, &next)) {
			pthread_mutex_unlock(&cam->lock);
			if (next < *wake)
				*wake = next;
			return 0;
		} else {
			if (room > max)
				room = max;
			n = usbip_reply_packet(&ss->reply, vs, now, room,
					       ss->copy);
		}
		video_stream_get_stats(vs, &st);
		pthread_mutex_unlock(&cam->lock);
		if (n < 0) {
			emu_log("%s: out of memory for a bulk reply", cam->camera.name);
			return -1;
		}
		if (n > 0 &&
		    hostile_on(cam->camera.hostile, HOSTILE_BULK_URB_STATUS)) {
			/* the transfer's data is used up, none of it sent */
			status = -EPROTO;
			n = 0;
		}
		if (!status && !n) {
			/* lost (fault drop, hostile): the URB takes the next */
			if (++lost < BULK_LOST_MAX)
				continue;
			*wake = now;
			return 0;
		}
		if (status && status != -EPROTO && ss->verbose)
			emu_log("%s: bulk URB seqnum %u ended %d: the endpoint is %s",
				cam->camera.name, ss->bulk_head->seqnum, status,
				status == BRIDGE_STALL ? "halted" : "gone");
		if (send_bulk(ss, status, (size_t)n) < 0 ||
		    check_vanish(ss, &st) < 0)
			return -1;
	}
	return 0;
}

static int send_ret_unlink(struct session *ss, uint32_t seqnum, int32_t status)
{
	struct usbip_header h;

	usbip_ret_unlink_header(&h, seqnum, status);
	return send_header_only(ss, &h);
}

/* seqnums grow by one per command on a vhci (wrapping at 2^32) */
static bool seqnum_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* Take entry i off the early unlinks, keeping their order. */
static struct early_unlink take_early_unlink(struct session *ss,
					     unsigned int i)
{
	struct early_unlink e = ss->early[i];

	memmove(&ss->early[i], &ss->early[i + 1],
		(ss->n_early - i - 1) * sizeof(ss->early[0]));
	ss->n_early--;
	return e;
}

/*
 * A CMD_SUBMIT of seqnum is in (at least its header): answer the early
 * unlinks it settles. One that names it cancels it: RET_UNLINK
 * -ECONNRESET and never a RET_SUBMIT, so 1 (drop the command). One that
 * names an older seqnum named a URB that will never come: status 0, as
 * for a URB already completed. Called again for a command that waited
 * for room, it finds nothing left to do.
 */
static int settle_early_unlinks(struct session *ss, uint32_t seqnum)
{
	bool cancel = false;
	unsigned int i = 0;

	ss->last_submit = seqnum;
	ss->any_submit = true;
	while (i < ss->n_early) {
		struct early_unlink e;

		if (seqnum_after(ss->early[i].victim, seqnum)) {
			i++;
			continue;
		}
		e = take_early_unlink(ss, i);
		if (ss->verbose)
			emu_log("%s: URB seqnum %u %s its early unlink %u",
				ss->cam->camera.name, seqnum, e.victim == seqnum ?
				"came after" : "came instead of the one named by",
				e.seqnum);
		if (send_ret_unlink(ss, e.seqnum,
				    e.victim == seqnum ? -ECONNRESET : 0) < 0)
			return -1;
		cancel = cancel || e.victim == seqnum;
	}
	return cancel;
}

/*
 * An unlink of a URB this session has not seen yet. vhci can send a
 * URB's CMD_UNLINK before its CMD_SUBMIT (usbip_session.h), and gives a
 * URB back on any RET_UNLINK: answered now, the URB would be given back
 * while its CMD_SUBMIT is still on the way, and our later RET_SUBMIT for
 * it would make vhci drop the connection. So the answer waits for the
 * URB. The oldest of a full list is answered as "never ours".
 */
static int keep_early_unlink(struct session *ss, uint32_t seqnum,
			     uint32_t victim)
{
	if (ss->n_early == EARLY_UNLINK_MAX &&
	    send_ret_unlink(ss, take_early_unlink(ss, 0).seqnum, 0) < 0)
		return -1;
	ss->early[ss->n_early++] = (struct early_unlink){ seqnum, victim };
	if (ss->verbose)
		emu_log("%s: unlink seqnum %u came before the URB it names (%u); answered when that comes",
			ss->cam->camera.name, seqnum, victim);
	return 0;
}

static int handle_unlink(struct session *ss, const struct usbip_cmd *cmd)
{
	uint32_t victim = cmd->hdr.u.cmd_unlink.seqnum;
	struct iso_urb **pp, *u;
	struct bulk_urb **bp, *b;
	int32_t status = 0;	/* already completed (or never ours) */
	bool answer = !hostile_on(ss->cam->camera.hostile, HOSTILE_UNLINK_NEVER);
	int held = hostile_held_unlink(&ss->held, victim);

	if (held >= 0) {	/* a control URB hostile.h kept unanswered */
		status = -ECONNRESET;
		answer = answer && held;
	}
	for (pp = &ss->head; held < 0 && (u = *pp); pp = &u->next) {
		if (u->seqnum != victim)
			continue;
		*pp = u->next;
		ss->queued_uframes -= u->np;
		free(u);
		status = -ECONNRESET;
		break;
	}
	/* a waiting bulk URB: the same rules as a queued iso one */
	for (bp = &ss->bulk_head; held < 0 && !status && (b = *bp);
	     bp = &b->next) {
		if (b->seqnum != victim)
			continue;
		*bp = b->next;
		ss->n_bulk--;
		free(b);
		status = -ECONNRESET;
		break;
	}
	if (!status && answer &&
	    (!ss->any_submit || seqnum_after(victim, ss->last_submit)))
		return keep_early_unlink(ss, cmd->hdr.seqnum, victim);
	/* rebuild tail and release bus time no remaining URB holds */
	ss->tail = NULL;
	ss->bus_next_ns = 0;
	for (u = ss->head; u; u = u->next) {
		ss->tail = u;
		ss->bus_next_ns = u->end_ns;
	}
	if (!ss->head)
		ss->lag_ns = 0;	/* a stopped stream restarts on wall time */
	if (ss->verbose)
		emu_log("%s: unlink seqnum %u: %s%s", ss->cam->camera.name,
			cmd->hdr.u.cmd_unlink.seqnum,
			status ? "cancelled" : "already completed",
			answer ? "" : " (hostile: no RET_UNLINK)");
	if (!answer)
		return 0;	/* and the URB it names is gone unanswered */
	return send_ret_unlink(ss, cmd->hdr.seqnum, status);
}

static int handle_submit(struct session *ss, const struct usbip_cmd *cmd)
{
	const struct usbip_header *h = &cmd->hdr;

	if (h->ep == 0)
		return handle_control(ss, cmd);
	if (ss->bulk && h->ep == BULK_EP && h->direction == USBIP_DIR_IN) {
		bool ok, halted;

		pthread_mutex_lock(&ss->cam->lock);
		ok = bridge_bulk_payload_max(ss->cam->camera.bridge) != 0;
		halted = bridge_ep_halted(ss->cam->camera.bridge);
		pthread_mutex_unlock(&ss->cam->lock);
		if (ok && !halted)
			return queue_bulk(ss, cmd);
		if (ok) {
			if (ss->verbose)
				emu_log("%s: bulk URB seqnum %u refused: the endpoint is halted",
					ss->cam->camera.name, h->seqnum);
			return reply_status(ss, h->seqnum, BRIDGE_STALL);
		}
	}
	if (cmd->iso && h->direction == USBIP_DIR_IN) {
		bool ok;

		pthread_mutex_lock(&ss->cam->lock);
		ok = bridge_packet_bytes(ss->cam->camera.bridge) != 0;
		pthread_mutex_unlock(&ss->cam->lock);
		if (ok)
			return queue_iso(ss, cmd);
	}
	/* no such endpoint in the current alt setting */
	if (ss->verbose)
		emu_log("%s: URB seqnum %u to ep %u %s refused (no such endpoint in the current alt)",
			ss->cam->camera.name, h->seqnum, h->ep,
			h->direction == USBIP_DIR_IN ? "IN" : "OUT");
	return reply_status(ss, h->seqnum, BRIDGE_STALL);
}

/*
 * recv() plus the kernel's receive time of the data (SO_TIMESTAMPNS,
 * wall clock), converted to CLOCK_MONOTONIC. Without a timestamp (e.g. a
 * socketpair in tests) the arrival is "now".
 */
static ssize_t recv_stamped(struct session *ss, uint8_t *buf, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm;
	ssize_t n = recvmsg(ss->fd, &msg, MSG_DONTWAIT);
	uint64_t mono = emu_now_ns();

	ss->rx_arrival_ns = mono;
	if (n <= 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		struct timespec ts, real;
		uint64_t at, rnow;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SO_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
		clock_gettime(CLOCK_REALTIME, &real);
		at = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		rnow = (uint64_t)real.tv_sec * 1000000000ull +
		       (uint64_t)real.tv_nsec;
		/* ignore nonsense (clock steps): at most 10 s in the past */
		if (at <= rnow && rnow - at < 10000000000ull)
			ss->rx_arrival_ns = mono - (rnow - at);
	}
	return n;
}

static void consume(struct session *ss, size_t n)
{
	memmove(ss->rx, ss->rx + n, ss->rx_len - n);
	ss->rx_len -= n;
}

/*
 * The bounds of usbip_session.h, checked as soon as a command's header
 * is in, before its body is waited for. 0: go on; 1: skip its bytes
 * (refused and answered, or unlinked before it came); -1: end the session.
 */
static int check_cmd(struct session *ss, const struct usbip_cmd *cmd)
{
	const struct usbip_header *h = &cmd->hdr;
	uint32_t tbl, np;
	int r;
	char why[96];

	if (h->devid != ss->devid) {
		emu_log("%s: client %s sent devid 0x%08x, not the imported camera's 0x%08x; closing connection",
			ss->cam->camera.name, ss->cam->client, h->devid, ss->devid);
		return -1;
	}
	if (h->command != USBIP_CMD_SUBMIT)
		return 0;
	r = settle_early_unlinks(ss, h->seqnum);
	if (r)		/* 1: unlinked before it came, skip it */
		return r < 0 ? -1 : 1;
	/* the parser has checked both are in range and not negative */
	tbl = (uint32_t)h->u.cmd_submit.transfer_buffer_length;
	np = cmd->iso ? (uint32_t)h->u.cmd_submit.number_of_packets : 0;
	if (h->direction == USBIP_DIR_OUT && tbl > MAX_OUT_DATA)
		snprintf(why, sizeof(why), "%u bytes of OUT data (at most %u)",
			 tbl, MAX_OUT_DATA);
	else if (np > ss->cfg->max_queued_uframes)
		snprintf(why, sizeof(why),
			 "%u packets, more than the %u microframes a session queues",
			 np, ss->cfg->max_queued_uframes);
	else if (cmd->iso && tbl > np * MAX_UFRAME_BYTES)
		snprintf(why, sizeof(why),
			 "transfer_buffer_length %u above %u packets x %u bytes",
			 tbl, np, MAX_UFRAME_BYTES);
	else
		return 0;
	emu_log("%s: client %s: URB seqnum %u refused (-EMSGSIZE): %s",
		ss->cam->camera.name, ss->cam->client, h->seqnum, why);
	return reply_status(ss, h->seqnum, -EMSGSIZE) < 0 ? -1 : 1;
}

/* Handle the complete commands in rx, as far as the iso queue has room. */
static int process_rx(struct session *ss)
{
	struct usbip_cmd cmd;
	char err[160];
	size_t need;
	long used;
	int r;

	ss->rx_blocked = false;
	for (;;) {
		if (ss->skip) {
			size_t n = ss->skip < ss->rx_len ? ss->skip : ss->rx_len;

			consume(ss, n);
			ss->skip -= n;
			if (ss->skip)
				return 0;
		}
		/* with bulk no endpoint is iso: no descriptors follow */
		used = usbip_parse_cmd(ss->rx, ss->rx_len,
				       ss->bulk ? 0 : 1u << ISO_EP, &cmd,
				       &need, err, sizeof(err));
		if (used == USBIP_PARSE_ERROR) {
			emu_log("%s: client %s sent a malformed command (%s); closing connection",
				ss->cam->camera.name, ss->cam->client, err);
			return -1;
		}
		if (used == USBIP_PARSE_NEED_MORE && ss->rx_len < USBIP_HEADER_LEN)
			return 0;
		r = check_cmd(ss, &cmd);
		if (r < 0)
			return -1;
		if (r > 0) {
			ss->got_cmd = true;
			ss->skip = need;
			continue;
		}
		if (used == USBIP_PARSE_NEED_MORE) {
			if (grow(&ss->rx, &ss->rx_cap, need) < 0) {
				emu_log("%s: out of memory for a %zu-byte command",
					ss->cam->camera.name, need);
				return -1;
			}
			return 0;
		}
		if (cmd.iso && cmd.hdr.command == USBIP_CMD_SUBMIT &&
		    cmd.hdr.direction == USBIP_DIR_IN &&
		    ss->queued_uframes + cmd.num_iso > ss->cfg->max_queued_uframes) {
			/* back-pressure: left unread until completions make room */
			ss->rx_blocked = true;
			return 0;
		}
		ss->got_cmd = true;
		if (cmd.hdr.command == USBIP_CMD_UNLINK) {
			if (handle_unlink(ss, &cmd) < 0)
				return -1;
		} else if (handle_submit(ss, &cmd) < 0) {
			return -1;
		}
		consume(ss, (size_t)used);
	}
}

/* Read what is there and handle every complete command. */
static int on_readable(struct session *ss)
{
	ssize_t n;

	if (grow(&ss->rx, &ss->rx_cap, ss->rx_len + 4096) < 0) {
		emu_log("%s: out of memory for receiving", ss->cam->camera.name);
		return -1;
	}
	n = recv_stamped(ss, ss->rx + ss->rx_len, ss->rx_cap - ss->rx_len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		emu_log("%s: client %s: receive failed: %s; closing connection",
			ss->cam->camera.name, ss->cam->client, strerror(errno));
		return -1;
	}
	if (n == 0) {
		emu_log("%s: client %s disconnected%s", ss->cam->camera.name,
			ss->cam->client,
			ss->rx_len ? " in the middle of a command" : "");
		return -1;
	}
	ss->rx_len += (size_t)n;
	return process_rx(ss);
}

void usbip_session_run(struct usbip_camera *cam, int fd, int stop_fd,
		       const struct usbip_session_config *cfg)
{
	struct session ss = {
		.cam = cam,
		.cfg = cfg,
		.fd = fd,
		.verbose = cfg->verbose,
		.late_tolerance_ns = cfg->late_tolerance_ms * 1000000ull,
	};
	uint64_t first_cmd_by = emu_now_ns() +
				cfg->first_cmd_timeout_ms * 1000000ull;
	struct video_stream_stats st;
	struct usbip_usb_device d;
	struct bulk_urb *b;
	struct iso_urb *u;

	usbip_camera_device(cam, &d);
	ss.devid = d.busnum << 16 | d.devnum;
	pthread_mutex_lock(&cam->lock);
	video_stream_get_stats(bridge_video(cam->camera.bridge), &st);
	ss.bulk = bridge_transport(cam->camera.bridge) == USB_TRANSPORT_BULK;
	pthread_mutex_unlock(&cam->lock);
	ss.copy = hostile_any(cam->camera.hostile) || cfg->copy_packets;
	ss.frames_seen = st.frames_sent;
	{
		int one = 1;

		/* fails harmlessly on sockets without timestamps */
		setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	}

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = stop_fd, .events = POLLIN },
		};
		struct timespec ts, *tsp = NULL;
		uint64_t now = emu_now_ns(), wake = UINT64_MAX;

		while (ss.head && ss.head->deadline_ns <= now) {
			if (complete_iso(&ss) < 0 ||
			    (ss.rx_blocked && process_rx(&ss) < 0))
				goto out;
		}
		if (ss.head)
			wake = ss.head->deadline_ns;
		if (service_bulk(&ss, &wake) < 0)
			goto out;
		if (!ss.got_cmd && cfg->first_cmd_timeout_ms) {
			if (now >= first_cmd_by) {
				emu_log("%s: client %s imported the camera but sent no URB within %u ms (--first-urb-timeout); closing connection",
					cam->camera.name, cam->client,
					cfg->first_cmd_timeout_ms);
				break;
			}
			if (first_cmd_by < wake)
				wake = first_cmd_by;
		}
		if (wake != UINT64_MAX) {
			if (wake < now)	/* bulk looked at a later clock */
				wake = now;
			ts.tv_sec = (time_t)((wake - now) / 1000000000ull);
			ts.tv_nsec = (long)((wake - now) % 1000000000ull);
			tsp = &ts;
		}
		/*
		 * Back-pressure: an iso URB waits in rx, so read no more. Only
		 * now, after the completions above, is it known whether one does.
		 */
		if (ss.rx_blocked)
			pfd[0].events = 0;
		if (ppoll(pfd, stop_fd >= 0 ? 2 : 1, tsp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			emu_log("%s: poll failed: %s", cam->camera.name,
				strerror(errno));
			break;
		}
		if (stop_fd >= 0 && (pfd[1].revents & POLLIN))
			break;
		if (ss.rx_blocked && (pfd[0].revents & (POLLHUP | POLLERR))) {
			emu_log("%s: client %s hung up", cam->camera.name, cam->client);
			break;
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (on_readable(&ss) < 0)
				break;
		}
	}
out:
	while ((u = ss.head)) {
		ss.head = u->next;
		free(u);
	}
	while ((b = ss.bulk_head)) {
		ss.bulk_head = b->next;
		free(b);
	}
	hostile_held_free(&ss.held);
	free(ss.rx);
	free(ss.tx);
	usbip_reply_free(&ss.reply);
}
