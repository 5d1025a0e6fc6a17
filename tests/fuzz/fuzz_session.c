// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Stateful libFuzzer target: the whole emulated camera (server, session,
 * bridge, sensor model, packetizer, faults) behind a socketpair, served
 * on a thread, and a client whose messages the input spells out
 * (fuzz_session.h). The server runs with no_pacing, so no input waits on
 * bus time; each input gets a server of its own and frees it.
 *
 * Besides ASan/UBSan, the client checks what a driver relies on: every
 * reply parses as vhci would parse it, each URB is answered once, a
 * RET_UNLINK says -ECONNRESET only for an iso URB still pending (which
 * then gets no RET_SUBMIT), a refused import says nothing more, and at
 * FZ_SYNC every URB sent is answered, the server never silent for
 * SYNC_LIMIT_MS while it owes a reply. An unlink that names a seqnum
 * newer than every submit is owed only once a newer submit comes, or 16
 * more such unlinks (usbip_session.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>
#include <linux/usb/ch9.h>

#include "bridge.h"
#include "fuzz_session.h"
#include "log.h"
#include "usbip_client.h"
#include "usbip_proto.h"
#include "usbip_server.h"

#define CHECK(x) do {							\
	if (!(x)) {							\
		fprintf(stderr, "fuzz_session:%d: %s\n", __LINE__, #x);	\
		abort();						\
	}								\
} while (0)

#define CAMERAS		2
#define SYNC_LIMIT_MS	5000
#define EARLY_MAX	16	/* unlinks the server keeps (usbip_session.c) */
#define MAX_SEND	(8u << 20)	/* bytes one input may have sent */
/* iso packets one input may ask for: 2 s of bus time, ~48 MB at most */
#define MAX_UFRAMES	16000u
#define FLUSH_AT	(64u << 10)

/*
 * Linked instead of log.c: formats every line as the real one does (so
 * a bad format still shows under UBSan) and keeps stderr quiet.
 */
void emu_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
}

static const char *const fault_specs[FZ_CFG_FAULTS + 1] = {
	"", "drop=1/7", "corrupt=1/5,err=1/9", "short=1/2,long=1/3",
	"nak=1/2", "stall=1/3", "vanish=after:1",
	"drop=1/3,nak=1/4,stall=1/5,short=1/3",
};

enum kind { K_CTRL = 1, K_ISO, K_OTHER, K_UNLINK };
enum state { S_PENDING = 1, S_DONE, S_UNLINKED, S_EARLY };

struct urb {
	uint8_t kind, state;
	bool in, iso;		/* as vhci parses the reply */
	uint32_t max_len;	/* ctrl: wLength */
	uint32_t np;		/* iso packets sent */
	uint32_t victim;	/* unlink */
};

enum phase {
	PH_START,	/* nothing sent */
	PH_DEVLIST,	/* the device list is due, then EOF */
	PH_IMPORT,	/* the import reply is due */
	PH_URBS,	/* imported: replies to URBs */
	PH_END,		/* refused or listed: nothing more but EOF */
	PH_OFF,		/* the client said something unpredictable */
};

struct fz {
	const uint8_t *p, *end;		/* the input still to read */
	int fd;
	bool eof, closed;		/* read EOF; cannot send any more */
	uint8_t *out;
	size_t out_len, out_cap, out_off, sent;
	uint8_t *rx;
	size_t rx_len, rx_cap;
	enum phase phase;
	int import_which;
	uint32_t devid, seq;
	struct urb *urbs;		/* by seqnum */
	size_t urbs_cap;
	uint32_t pending;
	uint32_t uframes;		/* iso packets asked for */
	/* the newest submit; unlinks the server keeps for a newer one */
	uint32_t last_submit;
	bool any_submit;
	uint32_t early[EARLY_MAX];
	unsigned int n_early;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;

	if (p && need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	CHECK(p);
	*cap = n;
	return p;
}

/* --- the input --- */

static uint8_t u8(struct fz *f)
{
	return f->p < f->end ? *f->p++ : 0;
}

static uint16_t u16(struct fz *f)
{
	uint16_t lo = u8(f);

	return (uint16_t)(lo | u8(f) << 8);
}

/* n bytes of the input into dst, zeros past its end. */
static void take(struct fz *f, uint8_t *dst, size_t n)
{
	size_t have = (size_t)(f->end - f->p);

	if (have > n)
		have = n;
	if (!n)
		return;
	memcpy(dst, f->p, have);
	memset(dst + have, 0, n - have);
	f->p += have;
}

/* --- what the client sends --- */

static uint8_t *emit(struct fz *f, size_t n)
{
	f->out = grow(f->out, &f->out_cap, f->out_len + n, 1);
	f->out_len += n;
	f->sent += n;
	return f->out + f->out_len - n;
}

static uint8_t *emit_hdr(struct fz *f, const struct usbip_header *h,
			 size_t extra)
{
	uint8_t *p = emit(f, USBIP_HEADER_LEN + extra);

	usbip_header_encode(p, h);
	memset(p + USBIP_HEADER_LEN, 0, extra);
	return p + USBIP_HEADER_LEN;
}

/* An early unlink (seqnum seq) is now owed its RET_UNLINK. */
static void early_due(struct fz *f, uint32_t seq)
{
	f->urbs[seq].state = S_PENDING;
	f->pending++;
}

/*
 * The early unlinks among a session's URBs: one naming a seqnum newer
 * than every submit waits for a newer submit (here, where victims are
 * always older commands, each is then answered 0) or for room.
 */
static bool early_unlink(struct fz *f, uint32_t seq, const struct urb *u)
{
	unsigned int i;

	if (u->kind != K_UNLINK) {
		for (i = 0; i < f->n_early; i++)
			early_due(f, f->early[i]);
		f->n_early = 0;
		f->last_submit = seq;
		f->any_submit = true;
		return false;
	}
	if (f->any_submit && (int32_t)(u->victim - f->last_submit) <= 0)
		return false;
	if (f->n_early == EARLY_MAX) {
		early_due(f, f->early[0]);
		memmove(&f->early[0], &f->early[1],
			(EARLY_MAX - 1) * sizeof(f->early[0]));
		f->n_early--;
	}
	f->early[f->n_early++] = seq;
	return true;
}

/* A new URB's seqnum; the oracle learns what its reply must look like. */
static uint32_t new_urb(struct fz *f, const struct urb *u)
{
	uint32_t seq = f->seq++;

	if (seq >= f->urbs_cap) {
		size_t old = f->urbs_cap;

		f->urbs = grow(f->urbs, &f->urbs_cap, seq + 1, sizeof(*f->urbs));
		memset(f->urbs + old, 0, (f->urbs_cap - old) * sizeof(*f->urbs));
	}
	/* only an imported session answers; before that nothing is due */
	if (f->phase == PH_IMPORT || f->phase == PH_URBS) {
		f->urbs[seq] = *u;
		if (early_unlink(f, seq, u)) {
			f->urbs[seq].state = S_EARLY;
		} else {
			f->urbs[seq].state = S_PENDING;
			f->pending++;
		}
	} else if (f->phase == PH_START) {
		f->phase = PH_OFF;	/* a URB where a request belongs */
	}
	return seq;
}

static struct urb *urb_of(struct fz *f, uint32_t seq)
{
	return seq < f->urbs_cap && f->urbs[seq].kind ? &f->urbs[seq] : NULL;
}

static uint32_t devid_for(const struct fz *f, uint8_t flags)
{
	return flags & FZ_F_BAD_DEVID ? f->devid ^ 0x00030000 : f->devid;
}

static void op_request(struct fz *f, uint16_t code, const char *busid)
{
	struct usbip_op_common op = { USBIP_VERSION, code, 0 };

	if (busid) {
		usbip_import_req_encode(emit(f, USBIP_IMPORT_REQ_LEN), busid);
		if (!*busid)	/* the unterminated one */
			memset(f->out + f->out_len - USBIP_BUSID_LEN, 'x',
			       USBIP_BUSID_LEN);
	} else {
		usbip_op_common_encode(emit(f, USBIP_OP_COMMON_LEN), &op);
	}
}

/* A control URB; data NULL: OUT data from the input. */
static void ctrl(struct fz *f, uint8_t flags, uint8_t bm, uint8_t req,
		 uint16_t val, uint16_t idx, uint16_t wlen, const uint8_t *data)
{
	struct usb_setup s = { bm, req, val, idx, wlen };
	bool in = (bm & USB_DIR_IN) && wlen;	/* usbcore's choice of pipe */
	uint32_t tbl = wlen + (flags & FZ_F_BIG ? 70000u : 0);
	struct urb u = { .kind = K_CTRL, .max_len = wlen };
	struct usbip_header h = { .command = USBIP_CMD_SUBMIT };
	uint8_t *p;

	if (flags & FZ_F_FLIP_DIR)
		in = !in;
	u.in = in;
	h.seqnum = new_urb(f, &u);
	h.devid = devid_for(f, flags);
	h.direction = in ? USBIP_DIR_IN : USBIP_DIR_OUT;
	h.u.cmd_submit.transfer_buffer_length = (int32_t)tbl;
	usb_setup_encode(h.u.cmd_submit.setup, &s);
	p = emit_hdr(f, &h, in ? 0 : tbl);
	if (in)
		return;
	if (data)
		memcpy(p, data, wlen);
	else
		take(f, p, wlen);
}

static void iso(struct fz *f)
{
	uint8_t flags = u8(f);
	uint16_t np_raw = u16(f), plen_raw = u16(f);
	bool big = flags & FZ_F_BIG;
	uint32_t np = 1 + np_raw % (big ? USBIP_MAX_ISO_PACKETS : 64);
	uint32_t plen = big ? plen_raw : plen_raw % 3073u;
	uint64_t tbl = (uint64_t)np * plen;
	struct usbip_header h = { .command = USBIP_CMD_SUBMIT };
	struct urb u = { .iso = !(flags & FZ_F_OTHER_EP) };
	size_t out_len;
	uint8_t *p;
	uint32_t i;

	if (flags & FZ_F_OVERSIZE)
		tbl = (uint64_t)np * 3072 + 1;
	if (f->uframes + np > MAX_UFRAMES)
		return;		/* keep each input quick */
	f->uframes += np;
	u.in = !(flags & FZ_F_FLIP_DIR);
	u.kind = u.iso && u.in ? K_ISO : K_OTHER;
	u.np = u.iso ? np : 0;
	h.seqnum = new_urb(f, &u);
	h.devid = devid_for(f, flags);
	h.direction = u.in ? USBIP_DIR_IN : USBIP_DIR_OUT;
	h.ep = u.iso ? ISOCAM_USB_ISO_EP_ADDR & 0x0f : 2;
	h.u.cmd_submit.transfer_flags = 0x2;	/* URB_ISO_ASAP */
	h.u.cmd_submit.transfer_buffer_length = (int32_t)tbl;
	h.u.cmd_submit.number_of_packets = (int32_t)u.np;
	h.u.cmd_submit.interval = 1;
	/* beyond the decoder's limit the server hangs up on the header */
	out_len = !u.in && tbl <= USBIP_MAX_TRANSFER ? (size_t)tbl : 0;
	p = emit_hdr(f, &h, out_len + (size_t)u.np * USBIP_ISO_DESC_LEN);
	for (i = 0; i < u.np; i++) {
		struct usbip_iso_desc d = { i * plen, plen, 0, 0 };

		if (flags & FZ_F_WILD) {
			d.offset = u16(f);
			d.length = u16(f);
		}
		usbip_iso_desc_encode(p + out_len + (size_t)i * USBIP_ISO_DESC_LEN,
				      &d);
	}
}

static void unlink_urb(struct fz *f)
{
	uint8_t flags = u8(f), back = u8(f);
	struct urb u = { .kind = K_UNLINK };
	struct usbip_header h = { .command = USBIP_CMD_UNLINK };

	u.victim = f->seq > (uint32_t)back + 1 ? f->seq - 1 - back : 0;
	h.seqnum = new_urb(f, &u);
	h.devid = devid_for(f, flags);
	h.u.cmd_unlink.seqnum = u.victim;
	emit_hdr(f, &h, 0);
}

/* The sensor programmed for a format and size, then alt 7: a stream. */
static void stream_on(struct fz *f)
{
	static const uint16_t sizes[IC1280_NUM_SIZES][2] = IC1280_SIZES_INIT;
	uint8_t fmt = u8(f) % (IC1280_FMT_COUNT + 1);
	const uint16_t *wh = sizes[u8(f) % IC1280_NUM_SIZES];
	const uint8_t w_fmt[] = { 0x02, 0x00, fmt };
	const uint8_t w_size[] = { 0x02, 0x02, wh[0] >> 8, wh[0] & 0xff,
				   wh[1] >> 8, wh[1] & 0xff };
	const uint8_t w_fll[] = { 0x03, 0x40, IC1280_FLL_MIN_FULL >> 8,
				  IC1280_FLL_MIN_FULL & 0xff };
	const uint8_t w_on[] = { 0x01, 0x00, IC1280_MODE_STREAMING };
	const uint8_t *w[] = { w_fmt, w_size, w_fll, w_on };
	const uint16_t n[] = { sizeof(w_fmt), sizeof(w_size), sizeof(w_fll),
			       sizeof(w_on) };
	const uint8_t vendor = USB_DIR_OUT | USB_TYPE_VENDOR |
			       USB_RECIP_INTERFACE;
	unsigned int i;

	ctrl(f, 0, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL);
	for (i = 0; i < 4; i++)
		ctrl(f, 0, vendor, ISOCAM_REQ_I2C_WRITE, IC1280_I2C_ADDR, 0,
		     n[i], w[i]);
	ctrl(f, 0, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE, 7, 0, 0, NULL);
}

/* --- what the server answers --- */

static size_t parse_devlist(struct fz *f)
{
	size_t len = USBIP_OP_COMMON_LEN + 4 +
		     CAMERAS * (USBIP_DEVICE_LEN + USBIP_INTERFACE_LEN);
	struct usbip_op_common op;
	struct usbip_usb_device d;

	if (f->rx_len < len)
		return 0;
	CHECK(usbip_op_common_decode(f->rx, f->rx_len, &op) == 0);
	CHECK(op.code == USBIP_OP_REP_DEVLIST && op.status == 0);
	CHECK(f->rx[11] == CAMERAS && !f->rx[8] && !f->rx[9] && !f->rx[10]);
	CHECK(usbip_device_decode(f->rx + 12, USBIP_DEVICE_LEN, &d) == 0);
	CHECK(!strcmp(d.busid, "1-1"));
	f->phase = PH_END;
	return len;
}

static size_t parse_import(struct fz *f)
{
	/* 1-1 and 1-2 are there, 1-9 is not, the last is malformed */
	static const uint32_t want[4] = {
		USBIP_OP_STATUS_OK, USBIP_OP_STATUS_OK, USBIP_OP_STATUS_NODEV,
		USBIP_OP_STATUS_ERROR,
	};
	struct usbip_op_common op;
	struct usbip_usb_device d;

	if (f->rx_len < USBIP_OP_COMMON_LEN)
		return 0;
	CHECK(usbip_op_common_decode(f->rx, f->rx_len, &op) == 0);
	CHECK(op.code == USBIP_OP_REP_IMPORT);
	CHECK(op.status == want[f->import_which]);
	if (op.status) {
		f->phase = PH_END;
		return USBIP_OP_COMMON_LEN;
	}
	if (f->rx_len < USBIP_IMPORT_REP_LEN)
		return 0;
	CHECK(usbip_device_decode(f->rx + USBIP_OP_COMMON_LEN,
				  USBIP_DEVICE_LEN, &d) == 0);
	CHECK((d.busnum << 16 | d.devnum) == f->devid);
	f->phase = PH_URBS;
	return USBIP_IMPORT_REP_LEN;
}

static size_t parse_urb_reply(struct fz *f)
{
	struct usbip_header h;
	struct usbip_ret ret;
	struct urb *u, *v;
	char err[160];
	long n;

	if (f->rx_len < USBIP_HEADER_LEN)
		return 0;
	CHECK(usbip_header_decode(f->rx, f->rx_len, &h) == 0);
	u = urb_of(f, h.seqnum);
	CHECK(u && u->state == S_PENDING);	/* sent, and answered once */
	if (h.command == USBIP_RET_UNLINK) {
		CHECK(u->kind == K_UNLINK);
		v = urb_of(f, u->victim);
		if (h.u.ret_unlink.status == -ECONNRESET) {
			CHECK(v && v->kind == K_ISO && v->state == S_PENDING);
			v->state = S_UNLINKED;
			f->pending--;
		} else {
			CHECK(h.u.ret_unlink.status == 0);
			CHECK(!v || v->state != S_PENDING);
		}
		u->state = S_DONE;
		f->pending--;
		return USBIP_HEADER_LEN;
	}
	CHECK(h.command == USBIP_RET_SUBMIT && u->kind != K_UNLINK);
	n = usbip_parse_ret(f->rx, f->rx_len, u->in, u->iso, u->np, &ret, err,
			    sizeof(err));
	if (n == USBIP_PARSE_ERROR) {
		fprintf(stderr, "fuzz_session: reply vhci would reject: %s\n",
			err);
		abort();
	}
	if (n == USBIP_PARSE_NEED_MORE)
		return 0;
	if (u->kind == K_CTRL)
		CHECK((uint32_t)ret.hdr.u.ret_submit.actual_length <= u->max_len);
	if (u->kind == K_ISO && ret.hdr.u.ret_submit.status == 0)
		CHECK(ret.num_iso == u->np);
	u->state = S_DONE;
	f->pending--;
	return (size_t)n;
}

static void parse_replies(struct fz *f)
{
	size_t used;

	for (;;) {
		switch (f->phase) {
		case PH_DEVLIST:
			used = parse_devlist(f);
			break;
		case PH_IMPORT:
			used = parse_import(f);
			break;
		case PH_URBS:
			used = parse_urb_reply(f);
			break;
		case PH_END:
			CHECK(f->rx_len == 0);	/* nothing after a refusal */
			return;
		default:
			f->rx_len = 0;
			return;
		}
		if (!used)
			return;
		memmove(f->rx, f->rx + used, f->rx_len - used);
		f->rx_len -= used;
	}
}

/* --- the socket --- */

enum pump_until { FLUSHED, SETTLED, EOF_SEEN };

static bool settled(const struct fz *f)
{
	return f->eof || f->phase == PH_START || f->phase == PH_END ||
	       f->phase == PH_OFF || (f->phase == PH_URBS && !f->pending);
}

static void pump(struct fz *f, enum pump_until until)
{
	uint64_t t0 = now_ms();	/* the last time bytes moved */

	for (;;) {
		bool out = !f->closed && f->out_off < f->out_len;
		struct pollfd pfd = {
			.fd = f->fd,
			.events = (short)(POLLIN | (out ? POLLOUT : 0)),
		};
		ssize_t n;

		if (!out && (until == FLUSHED ||
			     (until == SETTLED && settled(f)) || f->eof)) {
			f->out_len = f->out_off = 0;
			return;
		}
		/* the server completes everything at once: liveness */
		CHECK(now_ms() - t0 < SYNC_LIMIT_MS);
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			f->rx = grow(f->rx, &f->rx_cap, f->rx_len + 65536, 1);
			n = recv(f->fd, f->rx + f->rx_len, f->rx_cap - f->rx_len,
				 MSG_DONTWAIT);
			if (n > 0) {
				t0 = now_ms();
				f->rx_len += (size_t)n;
				parse_replies(f);
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				f->eof = f->closed = true;
			}
		}
		if (out && (pfd.revents & POLLOUT)) {
			n = send(f->fd, f->out + f->out_off,
				 f->out_len - f->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n > 0) {
				t0 = now_ms();
				f->out_off += (size_t)n;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				f->closed = true;	/* the server hung up */
			}
		}
	}
}

/* One record of the input. */
static void record(struct fz *f)
{
	static const char *const busids[4] = { "1-1", "1-2", "1-9", "" };
	uint8_t op = u8(f) % FZ_NUM_OPS, a, n, flags, bm, req;
	uint16_t val, idx, wlen;

	switch (op) {
	case FZ_RAW:
		n = u8(f);
		take(f, emit(f, n), n);
		f->phase = PH_OFF;
		break;
	case FZ_DEVLIST:
		f->phase = f->phase == PH_START ? PH_DEVLIST : PH_OFF;
		op_request(f, USBIP_OP_REQ_DEVLIST, NULL);
		break;
	case FZ_IMPORT:
		f->import_which = u8(f) % 4;
		if (f->phase == PH_START) {
			f->phase = PH_IMPORT;
			f->devid = 1u << 16 | (uint32_t)(f->import_which + 1);
		} else {
			f->phase = PH_OFF;
		}
		op_request(f, USBIP_OP_REQ_IMPORT, busids[f->import_which]);
		break;
	case FZ_CTRL:
		flags = u8(f);
		bm = u8(f);
		req = u8(f);
		val = u16(f);
		idx = u16(f);
		wlen = u16(f);
		ctrl(f, flags, bm, req, val, idx, wlen, NULL);
		break;
	case FZ_ISO:
		iso(f);
		break;
	case FZ_UNLINK:
		unlink_urb(f);
		break;
	case FZ_I2C_WRITE:
	case FZ_I2C_READ:
		req = op == FZ_I2C_WRITE ? ISOCAM_REQ_I2C_WRITE :
		      ISOCAM_REQ_I2C_READ;
		a = u8(f);
		n = u8(f) % (ISOCAM_I2C_MAX_XFER + 8);
		ctrl(f, 0, (req == ISOCAM_REQ_I2C_READ ? USB_DIR_IN : 0) |
		     USB_TYPE_VENDOR | USB_RECIP_INTERFACE, req,
		     a & 0x80 ? a & 0x7f : IC1280_I2C_ADDR, 0, n, NULL);
		break;
	case FZ_SET_INTERFACE:
		a = u8(f);
		ctrl(f, 0, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE, a % 10,
		     u8(f) % 3, 0, NULL);
		break;
	case FZ_SET_CONFIG:
		ctrl(f, 0, 0, USB_REQ_SET_CONFIGURATION, u8(f) % 3, 0, 0, NULL);
		break;
	case FZ_STREAM_ON:
		stream_on(f);
		break;
	case FZ_SYNC:
		pump(f, SETTLED);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t cfgb = size ? data[0] : 0;
	struct usbip_server_config cfg = {
		.count = CAMERAS,
		.camera.chip_id = IC1280_CHIP_ID,
		.camera.seed = 1,
		.camera.fault_spec = fault_specs[cfgb & FZ_CFG_FAULTS],
		.late_tolerance_ms = cfgb & FZ_CFG_STRICT_LATE ? 0 :
				     USBIP_DEFAULT_LATE_TOLERANCE_MS,
		.camera.verbose = cfgb & FZ_CFG_VERBOSE,
		.max_queued_uframes = cfgb & FZ_CFG_SMALL_QUEUE ? 64 : 0,
		/* every input ends by closing: no wall-clock timeouts */
		.request_timeout_ms = USBIP_TIMEOUT_NEVER,
		.first_urb_timeout_ms = USBIP_TIMEOUT_NEVER,
		.no_pacing = true,
	};
	struct fz f = { .p = data + (size ? 1 : 0), .end = data + size,
			.seq = 1 };
	struct usbip_server *srv = usbip_server_new(&cfg);
	struct usbip_client c;

	CHECK(srv);
	CHECK(usbip_client_connect(&c, srv, "fuzz") == 0);
	f.fd = c.fd;

	while (f.p < f.end && !f.closed && f.sent < MAX_SEND) {
		record(&f);
		if (f.out_len - f.out_off >= FLUSH_AT)
			pump(&f, FLUSHED);
	}
	pump(&f, FLUSHED);
	shutdown(f.fd, SHUT_WR);
	pump(&f, EOF_SEEN);

	usbip_client_hangup(&c);	/* the server closed its end */
	usbip_server_free(srv);
	free(f.out);
	free(f.rx);
	free(f.urbs);
	return 0;
}
