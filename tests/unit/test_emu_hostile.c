// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * --hostile: every mode name parses (and a wrong one is refused with the
 * valid names), arming is once and thread-safe with one log line per
 * camera, and each mode changes what the camera sends in the way its
 * name says. Every behaviour is checked twice: dormant (--hostile-on=
 * signal) the camera sends the honest thing, armed it lies. Iso and
 * control modes go through a whole session over a socketpair, the test
 * playing vhci; payload and descriptor modes through the bridge, plus a
 * session that fetches the lying descriptors as usbcore would.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/usb/ch9.h>

#include <isocam/ic1280_regs.h>
#include <isocam/payload.h>
#include <isocam/usb.h>

#include "bridge.h"
#include "hostile.h"
#include "usbip_client.h"
#include "usbip_hostile.h"
#include "usb_descriptors.h"
#include "usbip_proto.h"
#include "usbip_server.h"
#include "video_stream.h"

#define NP		8		/* packets per iso URB: 1 ms */
#define PKT		3072		/* slots as for alt 7: 3 x 1024 */
#define TBL		(NP * PKT)
/*
 * The sessions stream on alt 5: 1024 bytes a microframe fill a third of
 * each slot, so a packed reply and one laid out at the offsets differ.
 */
#define ALT		5
#define ALT_BYTES	1024
#define LONG_NP		64		/* 8 ms of bus time */
#define DEVID		0x10001u	/* bus 1, device 1: camera 1-1 */
#define VENDOR_IN	(USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_INTERFACE)
#define VENDOR_OUT	(USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_INTERFACE)
#define QUIET_MS	300		/* "never answered", as far as a test waits */

/* The names the VM tests use: each must parse, to a mode of its own. */
static const char *const brief_names[] = {
	"iso-offset-wild", "iso-actual-over", "iso-len-over", "iso-np-zero",
	"iso-np-more", "iso-pkt-status", "iso-urb-status", "iso-late",
	"iso-never", "unlink-never", "bulk-urb-status", "ph-len0", "ph-len1", "ph-len-over",
	"fid-stuck", "fid-flip", "eof-never", "eof-always", "frame-10x",
	"ph-err", "desc-no-iso", "desc-maxp-zero", "desc-maxp-huge",
	"desc-bulk", "desc-out", "desc-no-alt0", "desc-truncated",
	"desc-100-alts", "desc-dup-alts", "ctrl-stall", "ctrl-short",
	"ctrl-long", "ctrl-never", "ctrl-never-unlink", "std-never",
	"std-never-unlink", "vendor-wedge", "i2c-nak-stream", "i2c-garbage",
};
#define NAMES	(sizeof(brief_names) / sizeof(brief_names[0]))

/* ------------------------------------------------------------------ */
/* stderr, captured around a call                                      */

struct capture {
	FILE *tmp;
	int saved;
	char text[8192];
};

static void capture_begin(struct capture *cp)
{
	cp->tmp = tmpfile();
	assert_non_null(cp->tmp);
	fflush(stderr);
	cp->saved = dup(2);
	assert_true(cp->saved >= 0);
	assert_true(dup2(fileno(cp->tmp), 2) >= 0);
}

/* Ends the capture; returns how many lines it holds. */
static unsigned int capture_end(struct capture *cp)
{
	unsigned int lines = 0;
	size_t n, i;

	fflush(stderr);
	dup2(cp->saved, 2);
	close(cp->saved);
	rewind(cp->tmp);
	n = fread(cp->text, 1, sizeof(cp->text) - 1, cp->tmp);
	cp->text[n] = 0;
	fclose(cp->tmp);
	for (i = 0; i < n; i++)
		lines += cp->text[i] == '\n';
	return lines;
}

/* ------------------------------------------------------------------ */
/* parsing and arming                                                  */

static void test_every_name(void **state)
{
	char err[1024];
	unsigned int i, k;

	(void)state;
	assert_int_equal(HOSTILE_MODE_COUNT, NAMES);
	for (i = 0; i < NAMES; i++) {
		struct hostile *h = hostile_new(brief_names[i], true, 1, err,
						sizeof(err));

		assert_non_null(h);
		assert_string_equal(hostile_list(h), brief_names[i]);
		for (k = 0; k < HOSTILE_MODE_COUNT; k++)
			assert_int_equal(hostile_on(h, (enum hostile_mode)k),
					 !strcmp(hostile_mode_name((enum hostile_mode)k),
						 brief_names[i]));
		hostile_free(h);
	}
}

static void test_lists(void **state)
{
	char err[256];
	struct hostile *h;

	(void)state;
	h = hostile_new("iso-never,,ph-err,desc-bulk,iso-never", true, 1, err,
			sizeof(err));
	assert_non_null(h);
	assert_string_equal(hostile_list(h), "iso-never,ph-err,desc-bulk");
	assert_true(hostile_on(h, HOSTILE_ISO_NEVER));
	assert_true(hostile_on(h, HOSTILE_PH_ERR));
	assert_true(hostile_on(h, HOSTILE_DESC_BULK));
	assert_false(hostile_on(h, HOSTILE_ISO_LATE));
	hostile_free(h);
	h = hostile_new(NULL, true, 1, err, sizeof(err));
	assert_non_null(h);
	assert_false(hostile_any(h));
	assert_false(hostile_arm(h));	/* nothing to arm, nothing logged */
	hostile_free(h);
	assert_false(hostile_on(NULL, HOSTILE_PH_ERR));
}

static void test_unknown_name(void **state)
{
	struct usbip_server_config cfg = {
		.count = 1, .camera.chip_id = IC1280_CHIP_ID, .camera.seed = 1,
		.camera.hostile_spec = "ph-err,iso-sometimes",
	};
	struct capture cp;
	char err[1200];
	unsigned int i;

	(void)state;
	assert_null(hostile_new("ph-err,iso-sometimes", true, 1, err,
				sizeof(err)));
	assert_non_null(strstr(err, "'iso-sometimes'"));
	for (i = 0; i < NAMES; i++)
		assert_non_null(strstr(err, brief_names[i]));
	assert_null(hostile_new("ph-err=1", true, 1, err, sizeof(err)));
	/* and the server refuses to start with it */
	capture_begin(&cp);
	assert_null(usbip_server_new(&cfg));
	capture_end(&cp);
	assert_non_null(strstr(cp.text, "--hostile: unknown hostile mode 'iso-sometimes'"));
}

/* --help: one line per mode, under its group's title. */
static void test_usage(void **state)
{
	FILE *f = tmpfile();
	char line[256];
	unsigned int seen[NAMES] = { 0 }, i, titles = 0;

	(void)state;
	assert_non_null(f);
	hostile_usage(f, 2);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char name[32];

		assert_true(strlen(line) <= 80);
		if (line[strlen(line) - 2] == ':')
			titles++;
		if (sscanf(line, "    %31s", name) != 1)
			continue;
		for (i = 0; i < NAMES; i++)
			seen[i] += !strcmp(name, brief_names[i]);
	}
	fclose(f);
	assert_int_equal(titles, 5);
	for (i = 0; i < NAMES; i++)
		assert_int_equal(seen[i], 1);
}

static void test_dormant_until_armed(void **state)
{
	char err[256];
	struct hostile *h = hostile_new("ctrl-stall,desc-out", false, 1, err,
					sizeof(err));

	(void)state;
	assert_non_null(h);
	assert_false(hostile_armed(h));
	assert_false(hostile_on(h, HOSTILE_CTRL_STALL));
	/* descriptors are read at enumeration: they cannot wait */
	assert_true(hostile_on(h, HOSTILE_DESC_OUT));
	assert_true(hostile_arm(h));
	assert_true(hostile_on(h, HOSTILE_CTRL_STALL));
	assert_false(hostile_arm(h));	/* once */
	hostile_free(h);
}

static void *arm_thread(void *arg)
{
	return (void *)(uintptr_t)hostile_arm(arg);
}

/* Sessions read the flag while the signal thread arms: exactly one arms. */
static void test_arm_race(void **state)
{
	char err[256];
	unsigned int round, i, won;

	(void)state;
	for (round = 0; round < 20; round++) {
		struct hostile *h = hostile_new("iso-never", false, 1, err,
						sizeof(err));
		pthread_t t[8];

		assert_non_null(h);
		for (i = 0; i < 8; i++)
			assert_int_equal(pthread_create(&t[i], NULL, arm_thread, h), 0);
		for (i = 0, won = 0; i < 8; i++) {
			void *r;

			pthread_join(t[i], &r);
			won += r != NULL;
		}
		assert_int_equal(won, 1);
		assert_true(hostile_on(h, HOSTILE_ISO_NEVER));
		hostile_free(h);
	}
}

static struct usbip_server *server(const char *spec, bool on_signal,
				   unsigned int count, unsigned int seed)
{
	struct usbip_server_config cfg = {
		.count = count, .camera.chip_id = IC1280_CHIP_ID, .camera.seed = seed,
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
		.camera.hostile_spec = spec, .camera.hostile_on_signal = on_signal,
	};
	struct usbip_server *s = usbip_server_new(&cfg);

	assert_non_null(s);
	return s;
}

/* The log lines the VM tests wait for, one per camera and no more. */
static void test_log_lines(void **state)
{
	static const char *const active[] = {
		"cam0: hostile ph-err,iso-late active\n",
		"cam1: hostile ph-err,iso-late active\n",
	};
	struct usbip_server *s;
	struct capture cp;
	char want[96];
	unsigned int i;

	(void)state;
	capture_begin(&cp);
	s = server("iso-never,ctrl-never", true, 3, 1);
	assert_int_equal(capture_end(&cp), 3);
	assert_non_null(strstr(cp.text, "cam2: hostile iso-never,ctrl-never dormant until SIGUSR2"));
	assert_null(strstr(cp.text, "armed"));

	capture_begin(&cp);
	assert_int_equal(usbip_server_arm_hostile(s), 3);
	assert_int_equal(capture_end(&cp), 3);
	for (i = 0; i < 3; i++) {
		snprintf(want, sizeof(want),
			 "cam%u: hostile iso-never,ctrl-never armed\n", i);
		assert_non_null(strstr(cp.text, want));
	}
	capture_begin(&cp);
	assert_int_equal(usbip_server_arm_hostile(s), 0);
	assert_int_equal(capture_end(&cp), 0);
	usbip_server_free(s);

	capture_begin(&cp);
	s = server("ph-err,iso-late", false, 2, 1);
	assert_int_equal(capture_end(&cp), 2);
	for (i = 0; i < 2; i++)
		assert_non_null(strstr(cp.text, active[i]));
	assert_int_equal(usbip_server_arm_hostile(s), 0);
	usbip_server_free(s);
}

/* ------------------------------------------------------------------ */
/* a client playing vhci                                               */

struct reply {
	struct usbip_header h;
	uint8_t data[LONG_NP * PKT];
	uint32_t data_len;
	struct usbip_iso_desc d[USBIP_MAX_ISO_PACKETS + HOSTILE_ISO_EXTRA_PACKETS];
	uint32_t nd;
};

static struct reply rep;	/* one reply at a time */

static void cli_connect(struct usbip_client *c, struct usbip_server *srv)
{
	assert_int_equal(usbip_client_connect(c, srv, "hostile-test"), 0);
}

static void cli_hangup(struct usbip_client *c)
{
	usbip_client_hangup(c);
}

static void xsend(struct usbip_client *c, const void *buf, size_t len)
{
	assert_int_equal(usbip_client_send(c, buf, len), 0);
}

/* Exactly len bytes, each within ms; -1 on EOF or silence. */
static int xrecv(struct usbip_client *c, void *buf, size_t len, int ms)
{
	return usbip_client_recv(c, buf, len, ms);
}

static bool silent(struct usbip_client *c, int ms)
{
	return usbip_client_silent(c, ms);
}

static void cli_import(struct usbip_client *c)
{
	assert_int_equal(usbip_client_import(c, "1-1", 3000), 0);
	assert_int_equal(c->devid, DEVID);
}

static void cli_open(struct usbip_client *c, const char *spec, bool on_signal,
		     unsigned int seed)
{
	cli_connect(c, server(spec, on_signal, 1, seed));
	cli_import(c);
}

static void cli_close(struct usbip_client *c)
{
	struct usbip_server *s = c->srv;

	cli_hangup(c);
	usbip_server_free(s);
}

static uint32_t ctl_submit(struct usbip_client *c, uint8_t bm,
			   uint8_t req, uint16_t val, uint16_t idx,
			   uint16_t len, const void *out)
{
	uint8_t buf[USBIP_HEADER_LEN + 256];
	uint32_t seq = c->seq;

	xsend(c, buf, usbip_client_encode_ctrl(c, buf, bm, req, val, idx, len,
					       out));
	return seq;
}

static size_t iso_encode(struct usbip_client *c, uint32_t np, uint8_t *buf,
			 uint32_t *seq)
{
	*seq = c->seq;
	return usbip_client_encode_iso(c, buf, 1, np, PKT, np * PKT);
}

static size_t unlink_encode(struct usbip_client *c, uint32_t victim,
			    uint8_t *buf, uint32_t *seq)
{
	*seq = c->seq;
	return usbip_client_encode_unlink(c, buf, victim);
}

/* room for an iso URB and an unlink */
static uint8_t cmd_buf[2 * USBIP_HEADER_LEN + LONG_NP * USBIP_ISO_DESC_LEN];

static uint32_t iso_submit(struct usbip_client *c, uint32_t np)
{
	uint32_t seq;

	xsend(c, cmd_buf, iso_encode(c, np, cmd_buf, &seq));
	return seq;
}

static uint32_t unlink_submit(struct usbip_client *c, uint32_t victim)
{
	uint32_t seq;

	xsend(c, cmd_buf, unlink_encode(c, victim, cmd_buf, &seq));
	return seq;
}

/*
 * An iso URB and its unlink in one write, so that the session reads both
 * before the URB is due, however slow this thread is. The unlink's seqnum.
 */
static uint32_t iso_submit_unlinked(struct usbip_client *c, uint32_t np)
{
	uint32_t victim, seq;
	size_t n = iso_encode(c, np, cmd_buf, &victim);

	n += unlink_encode(c, victim, cmd_buf + n, &seq);
	xsend(c, cmd_buf, n);
	return seq;
}

/*
 * One reply, read the way vhci reads it: the header, then for an IN
 * RET_SUBMIT actual_length bytes, then for iso number_of_packets
 * descriptors. -1 when nothing came within ms.
 */
static int get_reply(struct usbip_client *c, bool in, bool iso, struct reply *r,
		     int ms)
{
	uint8_t raw[USBIP_HEADER_LEN];
	int32_t al, np;
	uint32_t i;

	if (xrecv(c, raw, sizeof(raw), ms) < 0)
		return -1;
	assert_int_equal(usbip_header_decode(raw, sizeof(raw), &r->h), 0);
	r->data_len = 0;
	r->nd = 0;
	if (r->h.command != USBIP_RET_SUBMIT)
		return 0;
	al = r->h.u.ret_submit.actual_length;
	np = r->h.u.ret_submit.number_of_packets;
	if (in) {
		assert_true(al >= 0 && (size_t)al <= sizeof(r->data));
		assert_int_equal(xrecv(c, r->data, (size_t)al, 1000), 0);
		r->data_len = (uint32_t)al;
	}
	if (!iso)
		return 0;
	assert_true(np >= 0 && (size_t)np <= sizeof(r->d) / sizeof(r->d[0]));
	for (i = 0; i < (uint32_t)np; i++) {
		uint8_t d[USBIP_ISO_DESC_LEN];

		assert_int_equal(xrecv(c, d, sizeof(d), 1000), 0);
		usbip_iso_desc_decode(d, &r->d[i]);
	}
	r->nd = (uint32_t)np;
	return 0;
}

/* A control transfer: its status, or the bytes it returned into data. */
static int ctl(struct usbip_client *c, uint8_t bm, uint8_t req, uint16_t val,
	       uint16_t idx, uint16_t len, void *data)
{
	uint32_t seq = ctl_submit(c, bm, req, val, idx, len, data);

	assert_int_equal(get_reply(c, bm & USB_DIR_IN, false, &rep, 3000), 0);
	assert_int_equal(rep.h.command, USBIP_RET_SUBMIT);
	assert_int_equal(rep.h.seqnum, seq);
	if (rep.h.u.ret_submit.status)
		return rep.h.u.ret_submit.status;
	if (bm & USB_DIR_IN)
		memcpy(data, rep.data, rep.data_len);
	return rep.h.u.ret_submit.actual_length;
}

static int i2c_write(struct usbip_client *c, uint16_t reg, uint8_t v)
{
	uint8_t w[3] = { reg >> 8, reg & 0xff, v };

	return ctl(c, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE, IC1280_I2C_ADDR, 0,
		   sizeof(w), w);
}

/* Registers reg.. as the driver reads them: pointer write, then a read. */
static int i2c_read(struct usbip_client *c, uint16_t reg, uint8_t *out,
		    uint16_t n)
{
	uint8_t ptr[2] = { reg >> 8, reg & 0xff };

	assert_int_equal(ctl(c, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE,
			     IC1280_I2C_ADDR, 0, 2, ptr), 2);
	return ctl(c, VENDOR_IN, ISOCAM_REQ_I2C_READ, IC1280_I2C_ADDR, 0, n,
		   out);
}

static int bridge_status(struct usbip_client *c, void *st)
{
	return ctl(c, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, ISOCAM_USB_IFACE_NUM,
		   ISOCAM_BRIDGE_STATUS_LEN, st);
}

static int device_descriptor(struct usbip_client *c)
{
	uint8_t d[USB_DESC_DEVICE_LEN];

	return ctl(c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8,
		   0, sizeof(d), d);
}

/* Power-on mode (640x480 YUYV, 30 fps) on alt 5: every packet is full. */
static void start_streaming(struct usbip_client *c)
{
	assert_int_equal(ctl(c, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			     ISOCAM_USB_CONFIG_VALUE, 0, 0, NULL), 0);
	assert_int_equal(i2c_write(c, IC1280_REG_MODE_SELECT,
				   IC1280_MODE_STREAMING), 3);
	assert_int_equal(ctl(c, USB_DIR_OUT | USB_RECIP_INTERFACE,
			     USB_REQ_SET_INTERFACE, ALT, ISOCAM_USB_IFACE_NUM, 0,
			     NULL), 0);
}

static void iso_once(struct usbip_client *c, uint32_t np, int ms)
{
	uint32_t seq = iso_submit(c, np);

	assert_int_equal(get_reply(c, true, true, &rep, ms), 0);
	assert_int_equal(rep.h.command, USBIP_RET_SUBMIT);
	assert_int_equal(rep.h.seqnum, seq);
}

static void arm(struct usbip_client *c)
{
	assert_int_equal(usbip_server_arm_hostile(c->srv), 1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------ */
/* iso replies                                                         */

static uint32_t actual_sum(const struct reply *r)
{
	uint32_t i, sum = 0;

	for (i = 0; i < r->nd; i++)
		sum += r->d[i].actual_length;
	return sum;
}

/* What an honest camera answers, and what vhci accepts as it is. */
static void assert_honest_iso(const struct reply *r)
{
	uint32_t i;

	assert_int_equal(r->h.u.ret_submit.status, 0);
	assert_int_equal(r->h.u.ret_submit.error_count, 0);
	assert_int_equal(r->h.u.ret_submit.number_of_packets, NP);
	assert_int_equal(r->nd, NP);
	for (i = 0; i < NP; i++) {
		assert_int_equal(r->d[i].offset, i * PKT);
		assert_int_equal(r->d[i].length, PKT);
		assert_true(r->d[i].actual_length <= PKT);
		assert_int_equal(r->d[i].status, 0);
	}
	assert_int_equal(actual_sum(r), r->data_len);
	assert_int_equal(r->data_len, NP * ALT_BYTES);	/* packed */
}

/* Each packet at its own offset, the rest of its slot zero. */
static bool slots_unpacked(const struct reply *r)
{
	uint32_t i;

	for (i = 0; i < NP; i++) {
		const uint8_t *slot = r->data + i * PKT;

		if (slot[ISOCAM_PH_OFF_LEN] != ISOCAM_PH_LEN_FULL ||
		    slot[ALT_BYTES] || slot[PKT - 1])
			return false;
	}
	return true;
}

static bool lie_offset_wild(const struct reply *r)
{
	uint32_t i;

	for (i = 0; i < r->nd; i++)
		if (r->d[i].offset != HOSTILE_ISO_WILD_OFFSET + i)
			return false;
	/* unpacked: vhci moves nothing to those offsets itself */
	return r->nd == NP && r->data_len == TBL && actual_sum(r) == TBL &&
	       slots_unpacked(r);
}

static bool lie_actual_over(const struct reply *r)
{
	uint32_t i, over = 0;

	for (i = 0; i < r->nd; i++)
		over += r->d[i].actual_length > r->d[i].length;
	/* as much as the buffer allows, adding up as vhci checks */
	return r->nd == NP && over == TBL / (PKT + HOSTILE_ISO_ACTUAL_EXTRA) &&
	       r->d[0].actual_length == PKT + HOSTILE_ISO_ACTUAL_EXTRA &&
	       r->data_len == TBL && actual_sum(r) == TBL && slots_unpacked(r);
}

static bool lie_len_over(const struct reply *r)
{
	uint32_t i;

	for (i = 0; i < r->nd; i++)
		if (r->d[i].length != 4 * 1024 || r->d[i].offset != i * PKT)
			return false;
	return r->nd == NP && actual_sum(r) == r->data_len;
}

static bool lie_np_zero(const struct reply *r)
{
	return r->h.u.ret_submit.number_of_packets == 0 && r->nd == 0 &&
	       r->data_len > 0;
}

static bool lie_np_more(const struct reply *r)
{
	uint32_t i;

	if (r->nd != NP + 8)
		return false;
	for (i = NP; i < r->nd; i++)
		if (r->d[i].offset < TBL || r->d[i].actual_length)
			return false;
	return actual_sum(r) == r->data_len;
}

static bool lie_pkt_status(const struct reply *r)
{
	uint32_t i;

	for (i = 0; i < r->nd; i++)
		if (r->d[i].status != -EPROTO || r->d[i].actual_length)
			return false;
	return r->nd == NP && r->data_len == 0 &&
	       r->h.u.ret_submit.status == 0 &&
	       r->h.u.ret_submit.error_count == NP;
}

static bool lie_urb_status(const struct reply *r)
{
	return r->h.u.ret_submit.status == -EPROTO && r->data_len == 0 &&
	       r->nd == NP && actual_sum(r) == 0;
}

struct iso_case {
	const char *mode;
	bool (*lie)(const struct reply *r);
};

static const struct iso_case iso_cases[] = {
	{ "iso-offset-wild", lie_offset_wild },
	{ "iso-actual-over", lie_actual_over },
	{ "iso-len-over", lie_len_over },
	{ "iso-np-zero", lie_np_zero },
	{ "iso-np-more", lie_np_more },
	{ "iso-pkt-status", lie_pkt_status },
	{ "iso-urb-status", lie_urb_status },
};

static void run_iso_case(void **state)
{
	const struct iso_case *k = *state;
	struct usbip_client c;

	cli_open(&c, k->mode, true, 1);
	start_streaming(&c);
	iso_once(&c, NP, 3000);
	assert_honest_iso(&rep);
	assert_false(k->lie(&rep));
	arm(&c);
	iso_once(&c, NP, 3000);
	assert_true(k->lie(&rep));
	/* nothing on the wire past what the header announced */
	assert_true(silent(&c, 50));
	cli_close(&c);
}

/* Without --hostile-on=signal the first reply lies already. */
static void test_iso_active_from_start(void **state)
{
	struct usbip_client c;

	(void)state;
	cli_open(&c, "iso-pkt-status", false, 1);
	start_streaming(&c);
	iso_once(&c, NP, 3000);
	assert_true(lie_pkt_status(&rep));
	cli_close(&c);
}

/* ------------------------------------------------------------------ */
/* bulk replies                                                        */

static uint32_t bulk_submit(struct usbip_client *c, uint32_t tbl)
{
	uint8_t buf[USBIP_HEADER_LEN];
	uint32_t seq = c->seq;

	xsend(c, buf, usbip_client_encode_bulk(c, buf,
					       ISOCAM_USB_BULK_EP_ADDR & 0x0f,
					       tbl));
	return seq;
}

static void bulk_once(struct usbip_client *c)
{
	uint32_t seq = bulk_submit(c, ISOCAM_USB_BULK_MAX_PAYLOAD);

	assert_int_equal(get_reply(c, true, false, &rep, 3000), 0);
	assert_int_equal(rep.h.command, USBIP_RET_SUBMIT);
	assert_int_equal(rep.h.seqnum, seq);
}

/*
 * bulk-urb-status: once armed, every bulk URB that data would complete
 * ends -EPROTO with nothing in it, at the pace data comes (the driver's
 * count of failed transfers, then its watchdog, end the stream: EIO).
 */
static void test_bulk_urb_status(void **state)
{
	struct usbip_server_config cfg = {
		.count = 1, .camera.chip_id = IC1280_CHIP_ID, .camera.seed = 1,
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
		.camera.transport = USB_TRANSPORT_BULK,
		.camera.hostile_spec = "bulk-urb-status", .camera.hostile_on_signal = true,
	};
	struct usbip_server *srv = usbip_server_new(&cfg);
	struct usbip_client c;
	int i;

	(void)state;
	assert_non_null(srv);
	cli_connect(&c, srv);
	cli_import(&c);
	assert_int_equal(ctl(&c, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			     ISOCAM_USB_CONFIG_VALUE, 0, 0, NULL), 0);
	assert_int_equal(i2c_write(&c, IC1280_REG_MODE_SELECT,
				   IC1280_MODE_STREAMING), 3);
	bulk_once(&c);
	assert_int_equal(rep.h.u.ret_submit.status, 0);
	assert_true(rep.data_len > ISOCAM_PH_LEN_FULL);
	assert_int_equal(rep.data[ISOCAM_PH_OFF_LEN], ISOCAM_PH_LEN_FULL);
	arm(&c);
	for (i = 0; i < 3; i++) {
		bulk_once(&c);
		assert_int_equal(rep.h.u.ret_submit.status, -EPROTO);
		assert_int_equal(rep.h.u.ret_submit.actual_length, 0);
		assert_int_equal(rep.data_len, 0);
	}
	assert_true(silent(&c, 50));
	cli_close(&c);
}

static void test_iso_late(void **state)
{
	struct usbip_client c;
	uint64_t t0;

	(void)state;
	cli_open(&c, "iso-late", true, 1);
	start_streaming(&c);
	t0 = now_ms();
	iso_once(&c, NP, 3000);
	assert_true(now_ms() - t0 < 1000);
	assert_honest_iso(&rep);
	arm(&c);
	t0 = now_ms();
	iso_once(&c, NP, 5000);
	assert_true(now_ms() - t0 >= HOSTILE_ISO_LATE_NS / 1000000);
	assert_true(now_ms() - t0 < HOSTILE_ISO_LATE_NS / 1000000 + 2000);
	assert_honest_iso(&rep);	/* late, but otherwise honest */
	cli_close(&c);
}

static void test_iso_never(void **state)
{
	struct usbip_client c;
	uint32_t victim, seq;

	(void)state;
	cli_open(&c, "iso-never", true, 1);
	start_streaming(&c);
	iso_once(&c, NP, 3000);
	assert_honest_iso(&rep);
	arm(&c);
	victim = iso_submit(&c, NP);
	assert_true(silent(&c, QUIET_MS));
	/* control still answers, and the unlink is answered normally */
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	seq = unlink_submit(&c, victim);
	assert_int_equal(get_reply(&c, true, true, &rep, 1000), 0);
	assert_int_equal(rep.h.command, USBIP_RET_UNLINK);
	assert_int_equal(rep.h.seqnum, seq);
	assert_int_equal(rep.h.u.ret_unlink.status, -ECONNRESET);
	assert_true(silent(&c, 50));
	cli_close(&c);
}

/* The unlink seq of a pending URB: answered or not, never a RET_SUBMIT. */
static bool unlink_reply(struct usbip_client *c, uint32_t seq)
{
	if (get_reply(c, true, true, &rep, QUIET_MS) < 0)
		return false;
	assert_int_equal(rep.h.command, USBIP_RET_UNLINK);
	assert_int_equal(rep.h.seqnum, seq);
	assert_int_equal(rep.h.u.ret_unlink.status, -ECONNRESET);
	assert_true(silent(c, 50));
	return true;
}

static bool unlink_answered(struct usbip_client *c, uint32_t victim)
{
	return unlink_reply(c, unlink_submit(c, victim));
}

static void test_unlink_never(void **state)
{
	struct usbip_client c;
	uint32_t victim;

	(void)state;
	/* ctrl-never, so that a control URB is pending to be unlinked */
	cli_open(&c, "unlink-never,ctrl-never", true, 1);
	start_streaming(&c);
	assert_true(unlink_reply(&c, iso_submit_unlinked(&c, LONG_NP)));
	arm(&c);
	/* iso: no RET_UNLINK, and no RET_SUBMIT once the URB was due */
	assert_false(unlink_reply(&c, iso_submit_unlinked(&c, LONG_NP)));
	/* control: the same */
	victim = ctl_submit(&c, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, 0,
			    ISOCAM_BRIDGE_STATUS_LEN, NULL);
	assert_false(unlink_answered(&c, victim));
	/* the camera is still there: standard requests and iso answer */
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	iso_once(&c, NP, 3000);
	assert_honest_iso(&rep);
	cli_close(&c);
}

/* ------------------------------------------------------------------ */
/* control requests                                                    */

/*
 * A vendor request left pending while standard requests still answer
 * (so the camera enumerates); whether its unlink is answered.
 */
static void vendor_request_held(const char *mode, bool unlink_answer)
{
	struct isocam_bridge_status st;
	struct usbip_client c;
	uint32_t victim;

	cli_open(&c, mode, true, 1);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	arm(&c);
	victim = ctl_submit(&c, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, 0,
			    ISOCAM_BRIDGE_STATUS_LEN, NULL);
	assert_true(silent(&c, QUIET_MS));
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	assert_int_equal(ctl(&c, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			     ISOCAM_USB_CONFIG_VALUE, 0, 0, NULL), 0);
	assert_int_equal(unlink_answered(&c, victim), unlink_answer);
	cli_close(&c);
}

static void test_ctrl_never(void **state)
{
	(void)state;
	vendor_request_held("ctrl-never", true);
}

static void test_ctrl_never_unlink(void **state)
{
	(void)state;
	vendor_request_held("ctrl-never-unlink", false);
}

/*
 * A wedged bridge: once armed, vendor requests go unanswered (their
 * unlinks are) until the SET_CONFIGURATION that ends a reset; then they
 * are answered again, and stay answered.
 */
static void test_vendor_wedge(void **state)
{
	struct isocam_bridge_status st;
	struct usbip_client c;
	uint32_t victim;

	(void)state;
	cli_open(&c, "vendor-wedge", true, 1);
	assert_int_equal(ctl(&c, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			     ISOCAM_USB_CONFIG_VALUE, 0, 0, NULL), 0);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	arm(&c);
	victim = ctl_submit(&c, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, 0,
			    ISOCAM_BRIDGE_STATUS_LEN, NULL);
	assert_true(silent(&c, QUIET_MS));
	/* enumeration's requests are still answered */
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	assert_int_equal(unlink_answered(&c, victim), true);
	victim = ctl_submit(&c, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, 0,
			    ISOCAM_BRIDGE_STATUS_LEN, NULL);
	assert_true(silent(&c, QUIET_MS));
	assert_int_equal(unlink_answered(&c, victim), true);
	/* the reset's SET_CONFIGURATION: the firmware runs again */
	assert_int_equal(ctl(&c, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			     ISOCAM_USB_CONFIG_VALUE, 0, 0, NULL), 0);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	cli_close(&c);
}

/*
 * SET_INTERFACE and CLEAR_FEATURE(ENDPOINT_HALT) left pending while
 * vendor requests and enumeration still answer; whether their unlinks
 * are answered.
 */
static void stream_std_request_held(const char *mode, bool unlink_answer)
{
	struct isocam_bridge_status st;
	struct usbip_client c;
	uint32_t setif, clear;

	cli_open(&c, mode, true, 1);
	assert_int_equal(ctl(&c, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			     ISOCAM_USB_CONFIG_VALUE, 0, 0, NULL), 0);
	assert_int_equal(ctl(&c, USB_DIR_OUT | USB_RECIP_INTERFACE,
			     USB_REQ_SET_INTERFACE, 0, 0, 0, NULL), 0);
	arm(&c);
	setif = ctl_submit(&c, USB_DIR_OUT | USB_RECIP_INTERFACE,
			   USB_REQ_SET_INTERFACE, 1, 0, 0, NULL);
	assert_true(silent(&c, QUIET_MS));
	clear = ctl_submit(&c, USB_DIR_OUT | USB_RECIP_ENDPOINT,
			   USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT, 0x81, 0,
			   NULL);
	assert_true(silent(&c, QUIET_MS));
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(unlink_answered(&c, setif), unlink_answer);
	assert_int_equal(unlink_answered(&c, clear), unlink_answer);
	cli_close(&c);
}

static void test_std_never(void **state)
{
	(void)state;
	stream_std_request_held("std-never", true);
}

static void test_std_never_unlink(void **state)
{
	(void)state;
	stream_std_request_held("std-never-unlink", false);
}

static void test_ctrl_stall(void **state)
{
	struct isocam_bridge_status st;
	struct usbip_client c;

	(void)state;
	cli_open(&c, "ctrl-stall", true, 1);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(i2c_write(&c, IC1280_REG_OUTPUT_FORMAT,
				   IC1280_FMT_GREY), 3);
	arm(&c);
	assert_int_equal(bridge_status(&c, &st), BRIDGE_STALL);
	assert_int_equal(i2c_write(&c, IC1280_REG_OUTPUT_FORMAT,
				   IC1280_FMT_YUYV), BRIDGE_STALL);
	/* standard requests are not vendor requests */
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	assert_int_equal(ctl(&c, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			     ISOCAM_USB_CONFIG_VALUE, 0, 0, NULL), 0);
	cli_close(&c);
}

static void test_ctrl_short(void **state)
{
	struct isocam_bridge_status st;
	uint8_t id[2];
	struct usbip_client c;

	(void)state;
	cli_open(&c, "ctrl-short", true, 1);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(i2c_read(&c, IC1280_REG_CHIP_ID_H, id, 2), 2);
	arm(&c);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN / 2);
	assert_int_equal(st.fw_major, ISOCAM_BRIDGE_FW_MAJOR);
	assert_int_equal(i2c_read(&c, IC1280_REG_CHIP_ID_H, id, 2), 1);
	assert_int_equal(id[0], IC1280_CHIP_ID >> 8);
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	cli_close(&c);
}

static void test_ctrl_long(void **state)
{
	uint8_t buf[ISOCAM_BRIDGE_STATUS_LEN + HOSTILE_CTRL_LONG_EXTRA];
	struct usbip_client c;

	(void)state;
	cli_open(&c, "ctrl-long", true, 1);
	assert_int_equal(bridge_status(&c, (void *)buf), ISOCAM_BRIDGE_STATUS_LEN);
	arm(&c);
	/* more than wLength, header and bytes on the wire alike */
	assert_int_equal(bridge_status(&c, (void *)buf),
			 ISOCAM_BRIDGE_STATUS_LEN + HOSTILE_CTRL_LONG_EXTRA);
	assert_int_equal(rep.data_len,
			 ISOCAM_BRIDGE_STATUS_LEN + HOSTILE_CTRL_LONG_EXTRA);
	assert_int_equal(buf[0], ISOCAM_BRIDGE_FW_MAJOR);
	assert_true(silent(&c, 50));
	assert_int_equal(device_descriptor(&c), USB_DESC_DEVICE_LEN);
	cli_close(&c);
}

static void test_i2c_nak_stream(void **state)
{
	static const uint8_t wide[4] = { 0x00, 0xff, 0x00,
					 IC1280_MODE_STREAMING };
	struct isocam_bridge_status st;
	struct usbip_client c;

	(void)state;
	cli_open(&c, "i2c-nak-stream", true, 1);
	start_streaming(&c);	/* its streaming write works, unarmed */
	arm(&c);
	assert_int_equal(i2c_write(&c, IC1280_REG_MODE_SELECT,
				   IC1280_MODE_STANDBY), 3);
	assert_int_equal(i2c_write(&c, IC1280_REG_MODE_SELECT,
				   IC1280_MODE_STREAMING), BRIDGE_STALL);
	assert_int_equal(bridge_status(&c, &st), ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(st.last_i2c_result, ISOCAM_I2C_NAK_DATA);
	/* other writes work; the streaming one fails every time */
	assert_int_equal(i2c_write(&c, IC1280_REG_OUTPUT_FORMAT,
				   IC1280_FMT_GREY), 3);
	assert_int_equal(i2c_write(&c, IC1280_REG_MODE_SELECT,
				   IC1280_MODE_STREAMING), BRIDGE_STALL);
	cli_close(&c);

	/* a write that reaches MODE_SELECT by auto-increment counts too */
	{
		char err[128];
		struct hostile *h = hostile_new("i2c-nak-stream", true, 1, err,
						sizeof(err));

		assert_true(hostile_i2c_nak(h, IC1280_I2C_ADDR, wide, 4));
		assert_false(hostile_i2c_nak(h, IC1280_I2C_ADDR, wide, 3));
		assert_false(hostile_i2c_nak(h, IC1280_I2C_ADDR + 1, wide, 4));
		hostile_free(h);
	}
}

/* Eight register bytes from CHIP_ID on, from a fresh camera. */
static void garbage_of(unsigned int seed, bool on_signal, uint8_t out[8])
{
	struct usbip_client c;

	cli_open(&c, "i2c-garbage", on_signal, seed);
	if (on_signal) {
		assert_int_equal(i2c_read(&c, IC1280_REG_CHIP_ID_H, out, 2), 2);
		assert_int_equal(out[0] << 8 | out[1], IC1280_CHIP_ID);
		arm(&c);
	}
	assert_int_equal(i2c_read(&c, IC1280_REG_CHIP_ID_H, out, 8), 8);
	cli_close(&c);
}

static void test_i2c_garbage(void **state)
{
	uint8_t a[8], b[8], other[8];

	(void)state;
	garbage_of(1, true, a);
	assert_false(a[0] == IC1280_CHIP_ID >> 8 &&
		     a[1] == (IC1280_CHIP_ID & 0xff) &&
		     a[2] == IC1280_REVISION);
	garbage_of(1, false, b);
	assert_memory_equal(a, b, 8);	/* the same seed, the same bytes */
	garbage_of(2, false, other);
	assert_memory_not_equal(a, other, 8);
}

/* ------------------------------------------------------------------ */
/* payload headers, through the bridge                                 */

#define GREY_W		160
#define GREY_H		120
#define SIZEIMAGE	(GREY_W * GREY_H)
#define UFRAMES		1200	/* 150 ms: four frames at 30 fps */
#define MAX_PKTS	UFRAMES

struct packets {
	uint8_t data[MAX_PKTS][PKT];
	size_t len[MAX_PKTS];
	size_t n;		/* packets with data */
};

static struct packets pk;

static int bctl(struct bridge *b, uint8_t bm, uint8_t req, uint16_t val,
		uint16_t len, uint8_t *data)
{
	struct usb_setup s = { bm, req, val, ISOCAM_USB_IFACE_NUM, len };

	return bridge_control(b, &s, data, len);
}

static void bridge_reg(struct bridge *b, uint16_t reg, uint16_t v, int n)
{
	uint8_t w[4] = { reg >> 8, reg & 0xff, v >> 8, v & 0xff };

	if (n == 1)
		w[2] = (uint8_t)v;
	assert_int_equal(bctl(b, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE,
			      IC1280_I2C_ADDR, (uint16_t)(2 + n), w), 2 + n);
}

/* 160x120 GREY at 30 fps, alt 7, streaming. */
static struct bridge *grey_bridge(struct hostile *h)
{
	struct bridge_config cfg = {
		.name = "cam0", .serial = "ISOCAM0001",
		.chip_id = IC1280_CHIP_ID, .hostile = h,
	};
	struct bridge *b = bridge_new(&cfg);

	assert_non_null(b);
	assert_int_equal(bctl(b, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			      ISOCAM_USB_CONFIG_VALUE, 0, NULL), 0);
	bridge_reg(b, IC1280_REG_OUTPUT_FORMAT, IC1280_FMT_GREY, 1);
	bridge_reg(b, IC1280_REG_X_OUTPUT_SIZE_H, GREY_W, 2);
	bridge_reg(b, IC1280_REG_Y_OUTPUT_SIZE_H, GREY_H, 2);
	bridge_reg(b, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING, 1);
	assert_int_equal(bctl(b, USB_DIR_OUT | USB_RECIP_INTERFACE,
			      USB_REQ_SET_INTERFACE, ISOCAM_USB_NUM_ALTS - 1, 0,
			      NULL), 0);
	return b;
}

/* UFRAMES microframes of bus time from *t on; keeps the data packets. */
static void poll_packets(struct bridge *b, uint64_t *t, struct packets *p)
{
	unsigned int i;

	p->n = 0;
	for (i = 0; i < UFRAMES; i++, *t += USBIP_MICROFRAME_NS) {
		size_t n = video_stream_packet(bridge_video(b), *t,
					       p->data[p->n], PKT);

		if (n)
			p->len[p->n++] = n;
	}
	assert_true(p->n > 0);
}

static uint8_t info(const struct packets *p, size_t i)
{
	return p->len[i] > ISOCAM_PH_OFF_INFO ? p->data[i][ISOCAM_PH_OFF_INFO] : 0;
}

static bool every_info(const struct packets *p, uint8_t mask, uint8_t want)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if ((info(p, i) & mask) != want)
			return false;
	return true;
}

static bool lie_ph_len0(const struct packets *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->data[i][ISOCAM_PH_OFF_LEN] != 0 || p->len[i] <= 2)
			return false;
	return true;
}

static bool lie_ph_len1(const struct packets *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->len[i] != 1 || p->data[i][ISOCAM_PH_OFF_LEN] != 1)
			return false;
	return true;
}

static bool lie_ph_len_over(const struct packets *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->data[i][ISOCAM_PH_OFF_LEN] <= p->len[i])
			return false;
	return true;
}

static bool lie_fid_stuck(const struct packets *p)
{
	return every_info(p, ISOCAM_PH_FID, 0);
}

static bool lie_fid_flip(const struct packets *p)
{
	size_t i;

	for (i = 1; i < p->n; i++)
		if (!((info(p, i) ^ info(p, i - 1)) & ISOCAM_PH_FID))
			return false;
	return p->n > 1;
}

static bool lie_eof_never(const struct packets *p)
{
	return every_info(p, ISOCAM_PH_EOF, 0);
}

static bool lie_eof_always(const struct packets *p)
{
	return every_info(p, ISOCAM_PH_EOF, ISOCAM_PH_EOF);
}

static bool lie_ph_err(const struct packets *p)
{
	return every_info(p, ISOCAM_PH_ERR, ISOCAM_PH_ERR);
}

/* The first frame that starts after an EOF: 10 x sizeimage of payload. */
static bool lie_frame_10x(const struct packets *p)
{
	size_t i = 0, bytes = 0;

	while (i < p->n && !(info(p, i) & ISOCAM_PH_EOF))
		i++;
	for (i++; i < p->n; i++) {
		bytes += p->len[i] - p->data[i][ISOCAM_PH_OFF_LEN];
		if (info(p, i) & ISOCAM_PH_EOF)
			return bytes == (size_t)SIZEIMAGE * HOSTILE_FRAME_FACTOR;
	}
	return false;
}

struct payload_case {
	const char *mode;
	bool (*lie)(const struct packets *p);
};

static const struct payload_case payload_cases[] = {
	{ "ph-len0", lie_ph_len0 },
	{ "ph-len1", lie_ph_len1 },
	{ "ph-len-over", lie_ph_len_over },
	{ "fid-stuck", lie_fid_stuck },
	{ "fid-flip", lie_fid_flip },
	{ "eof-never", lie_eof_never },
	{ "eof-always", lie_eof_always },
	{ "frame-10x", lie_frame_10x },
	{ "ph-err", lie_ph_err },
};

static void run_payload_case(void **state)
{
	const struct payload_case *k = *state;
	char err[256];
	struct hostile *h = hostile_new(k->mode, false, 1, err, sizeof(err));
	struct bridge *b;
	uint64_t t = 1000000000ull;

	assert_non_null(h);
	b = grey_bridge(h);
	poll_packets(b, &t, &pk);
	assert_false(k->lie(&pk));
	/* honest: full headers, frames of sizeimage */
	assert_int_equal(pk.data[0][ISOCAM_PH_OFF_LEN], ISOCAM_PH_LEN_FULL);
	assert_true(lie_frame_10x(&pk) == false);
	assert_true(hostile_arm(h));
	poll_packets(b, &t, &pk);
	assert_true(k->lie(&pk));
	bridge_free(b);
	hostile_free(h);
}

/* ------------------------------------------------------------------ */
/* descriptors                                                         */

#define MAX_DESCS	128

struct cfg_view {
	unsigned int total, got, num_ifaces;
	unsigned int nif, nep;
	uint8_t ifnum[MAX_DESCS], alt[MAX_DESCS], neps[MAX_DESCS];
	uint8_t ep_addr[MAX_DESCS], ep_attr[MAX_DESCS];
	uint16_t ep_maxp[MAX_DESCS];
	bool cut;		/* a descriptor runs past what was sent */
};

static void view_config(const uint8_t *c, unsigned int got,
			struct cfg_view *v)
{
	unsigned int pos = USB_DESC_CONFIG_HDR_LEN;

	memset(v, 0, sizeof(*v));
	assert_true(got >= USB_DESC_CONFIG_HDR_LEN);
	assert_int_equal(c[1], USB_DT_CONFIG);
	v->got = got;
	v->total = c[2] | c[3] << 8;
	v->num_ifaces = c[4];
	while (pos < got) {
		const uint8_t *d = c + pos;

		if (got - pos < 2 || d[0] < 2 || d[0] > got - pos) {
			v->cut = true;
			break;
		}
		if (d[1] == USB_DT_INTERFACE && v->nif < MAX_DESCS) {
			v->ifnum[v->nif] = d[2];
			v->alt[v->nif] = d[3];
			v->neps[v->nif++] = d[4];
		} else if (d[1] == USB_DT_ENDPOINT && v->nep < MAX_DESCS) {
			v->ep_addr[v->nep] = d[2];
			v->ep_attr[v->nep] = d[3];
			v->ep_maxp[v->nep++] = (uint16_t)(d[4] | d[5] << 8);
		}
		pos += d[0];
	}
}

static bool all_eps(const struct cfg_view *v, int field, unsigned int want)
{
	unsigned int i;

	for (i = 0; i < v->nep; i++) {
		unsigned int got = field == 0 ? v->ep_addr[i] :
				   field == 1 ? (v->ep_attr[i] &
						 USB_ENDPOINT_XFERTYPE_MASK) :
				   v->ep_maxp[i];

		if (got != want)
			return false;
	}
	return v->nep == ISOCAM_USB_NUM_ALTS - 1;
}

static bool lie_no_iso(const struct cfg_view *v)
{
	unsigned int i;

	for (i = 0; i < v->nif; i++)
		if (v->neps[i] || v->ifnum[i] != ISOCAM_USB_IFACE_NUM)
			return false;
	return v->nep == 0 && v->nif == ISOCAM_USB_NUM_ALTS;
}

static bool lie_maxp_zero(const struct cfg_view *v)
{
	return all_eps(v, 2, 0);
}

static bool lie_maxp_huge(const struct cfg_view *v)
{
	return all_eps(v, 2, 0x1fff);
}

static bool lie_bulk(const struct cfg_view *v)
{
	return all_eps(v, 1, USB_ENDPOINT_XFER_BULK);
}

static bool lie_out(const struct cfg_view *v)
{
	return all_eps(v, 0, ISOCAM_USB_ISO_EP_ADDR & ~USB_DIR_IN);
}

static bool lie_no_alt0(const struct cfg_view *v)
{
	unsigned int i;

	for (i = 0; i < v->nif; i++)
		if (v->alt[i] == 0)
			return false;
	return v->nif == ISOCAM_USB_NUM_ALTS - 1 && v->alt[0] == 1;
}

static bool lie_truncated(const struct cfg_view *v)
{
	return v->total > v->got && v->cut &&
	       v->total == USB_DESC_CONFIG_TOTAL_LEN;
}

static bool lie_100_alts(const struct cfg_view *v)
{
	unsigned int i;

	for (i = 0; i < v->nif; i++)
		if (v->alt[i] != i || v->ifnum[i] != ISOCAM_USB_IFACE_NUM)
			return false;
	return v->nif == 100 && v->num_ifaces == 1 && v->nep == 99 &&
	       v->total == v->got;
}

static bool lie_dup_alts(const struct cfg_view *v)
{
	unsigned int i, j;

	for (i = 0; i < v->nif; i++)
		for (j = i + 1; j < v->nif; j++)
			if (v->alt[i] == v->alt[j])
				return true;
	return false;
}

struct desc_case {
	const char *mode;
	bool (*lie)(const struct cfg_view *v);
};

static const struct desc_case desc_cases[] = {
	{ "desc-no-iso", lie_no_iso },
	{ "desc-maxp-zero", lie_maxp_zero },
	{ "desc-maxp-huge", lie_maxp_huge },
	{ "desc-bulk", lie_bulk },
	{ "desc-out", lie_out },
	{ "desc-no-alt0", lie_no_alt0 },
	{ "desc-truncated", lie_truncated },
	{ "desc-100-alts", lie_100_alts },
	{ "desc-dup-alts", lie_dup_alts },
};
#define DESC_CASES	(sizeof(desc_cases) / sizeof(desc_cases[0]))

static void bridge_config_view(struct bridge *b, struct cfg_view *v)
{
	static uint8_t buf[4096];
	int n = bctl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8,
		     sizeof(buf), buf);

	assert_true(n > 0);
	view_config(buf, (unsigned int)n, v);
}

/* Honest without the mode; lying with it, dormant or not. */
static void run_desc_case(void **state)
{
	const struct desc_case *k = *state;
	struct bridge_config cfg = {
		.name = "cam0", .serial = "ISOCAM0001",
		.chip_id = IC1280_CHIP_ID,
	};
	struct cfg_view v;
	struct bridge *b;
	char err[256];

	b = bridge_new(&cfg);
	assert_non_null(b);
	bridge_config_view(b, &v);
	assert_false(k->lie(&v));
	assert_int_equal(v.total, USB_DESC_CONFIG_TOTAL_LEN);
	assert_int_equal(v.got, v.total);
	bridge_free(b);

	cfg.hostile = hostile_new(k->mode, false, 1, err, sizeof(err));
	assert_non_null(cfg.hostile);
	b = bridge_new(&cfg);
	assert_non_null(b);
	bridge_config_view(b, &v);
	assert_true(k->lie(&v));
	bridge_free(b);
	hostile_free(cfg.hostile);
}

/* The alts it advertises are the alts it takes. */
static void test_desc_100_alts_select(void **state)
{
	struct bridge_config cfg = {
		.name = "cam0", .serial = "ISOCAM0001",
		.chip_id = IC1280_CHIP_ID,
	};
	struct bridge *b;
	char err[256];

	(void)state;
	b = grey_bridge(NULL);
	assert_int_equal(bctl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      99, 0, NULL), BRIDGE_STALL);
	bridge_free(b);
	cfg.hostile = hostile_new("desc-100-alts", false, 1, err, sizeof(err));
	b = bridge_new(&cfg);
	assert_non_null(b);
	assert_int_equal(bctl(b, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION,
			      ISOCAM_USB_CONFIG_VALUE, 0, NULL), 0);
	assert_int_equal(bctl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      99, 0, NULL), 0);
	assert_int_equal(bridge_alt(b), 99);
	assert_int_equal(bridge_packet_bytes(b), usb_alt_packet_bytes(7));
	assert_int_equal(bctl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      100, 0, NULL), BRIDGE_STALL);
	bridge_free(b);
	hostile_free(cfg.hostile);
}

/* bNumInterfaces and the interface class of the device list. */
static void devlist_entry(struct usbip_server *s, struct usbip_usb_device *d,
			  uint8_t *iface_class)
{
	struct usbip_op_common op = {
		.version = USBIP_VERSION, .code = USBIP_OP_REQ_DEVLIST,
	};
	uint8_t buf[USBIP_OP_COMMON_LEN + 4 + USBIP_DEVICE_LEN +
		    USBIP_INTERFACE_LEN];
	struct usbip_client c;

	cli_connect(&c, s);
	usbip_op_common_encode(buf, &op);
	xsend(&c, buf, USBIP_OP_COMMON_LEN);
	assert_int_equal(xrecv(&c, buf, sizeof(buf), 3000), 0);
	assert_int_equal(usbip_device_decode(buf + USBIP_OP_COMMON_LEN + 4,
					     USBIP_DEVICE_LEN, d), 0);
	*iface_class = buf[sizeof(buf) - USBIP_INTERFACE_LEN];
	cli_hangup(&c);
}

/*
 * Through a session, as usbcore reads them (the 9-byte header, then
 * wTotalLength): the lie, and the USB/IP device list and import reply
 * agreeing with the configuration on what they carry of it.
 */
static void test_desc_over_usbip(void **state)
{
	static uint8_t buf[4096];
	struct usbip_usb_device d;
	struct cfg_view v;
	unsigned int i;
	uint8_t klass;
	struct usbip_client c;
	int n;

	(void)state;
	for (i = 0; i < DESC_CASES; i++) {
		struct usbip_server *s = server(desc_cases[i].mode, true, 1, 1);

		devlist_entry(s, &d, &klass);
		cli_connect(&c, s);
		cli_import(&c);
		assert_int_equal(ctl(&c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
				     USB_DT_CONFIG << 8, 0,
				     USB_DESC_CONFIG_HDR_LEN, buf),
				 USB_DESC_CONFIG_HDR_LEN);
		n = ctl(&c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			USB_DT_CONFIG << 8, 0, (uint16_t)(buf[2] | buf[3] << 8),
			buf);
		assert_true(n >= USB_DESC_CONFIG_HDR_LEN);
		view_config(buf, (unsigned int)n, &v);
		assert_true(desc_cases[i].lie(&v));
		assert_int_equal(c.dev.bNumInterfaces, v.num_ifaces);
		assert_int_equal(d.bNumInterfaces, v.num_ifaces);
		assert_int_equal(klass, ISOCAM_USB_IFACE_CLASS);
		cli_hangup(&c);
		usbip_server_free(s);
	}
}

/* ------------------------------------------------------------------ */

static void test_held_cap(void **state)
{
	struct hostile_held held = { 0 };
	char err[128];
	struct hostile *h = hostile_new("ctrl-never", true, 1, err, sizeof(err));
	uint32_t i;

	(void)state;
	assert_int_equal(hostile_hold_control(h, &held, USB_TYPE_STANDARD |
					      USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
					      1), 0);
	assert_int_equal(hostile_hold_control(h, &held, USB_TYPE_STANDARD |
					      USB_RECIP_INTERFACE,
					      USB_REQ_SET_INTERFACE, 1), 0);
	for (i = 0; i < HOSTILE_HELD_MAX; i++)
		assert_int_equal(hostile_hold_control(h, &held, VENDOR_IN,
						      ISOCAM_REQ_GET_STATUS, i),
				 1);
	assert_int_equal(hostile_hold_control(h, &held, VENDOR_IN,
					      ISOCAM_REQ_GET_STATUS, i), -1);
	assert_int_equal(hostile_held_unlink(&held, 7), 1);
	assert_int_equal(hostile_held_unlink(&held, 7), -1);
	hostile_held_free(&held);
	hostile_free(h);
}

#define CASE_TEST(table, i, runner) \
	((struct CMUnitTest){ .name = (table)[i].mode, .test_func = (runner), \
			      .initial_state = (void *)&(table)[i] })
#define COUNT(a)	(sizeof(a) / sizeof((a)[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_every_name),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_unknown_name),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_dormant_until_armed),
		cmocka_unit_test(test_arm_race),
		cmocka_unit_test(test_log_lines),
		cmocka_unit_test(test_iso_active_from_start),
		cmocka_unit_test(test_bulk_urb_status),
		cmocka_unit_test(test_iso_late),
		cmocka_unit_test(test_iso_never),
		cmocka_unit_test(test_unlink_never),
		cmocka_unit_test(test_ctrl_never),
		cmocka_unit_test(test_ctrl_never_unlink),
		cmocka_unit_test(test_std_never),
		cmocka_unit_test(test_vendor_wedge),
		cmocka_unit_test(test_std_never_unlink),
		cmocka_unit_test(test_ctrl_stall),
		cmocka_unit_test(test_ctrl_short),
		cmocka_unit_test(test_ctrl_long),
		cmocka_unit_test(test_i2c_nak_stream),
		cmocka_unit_test(test_i2c_garbage),
		cmocka_unit_test(test_desc_100_alts_select),
		cmocka_unit_test(test_desc_over_usbip),
		cmocka_unit_test(test_held_cap),
	};
	struct CMUnitTest tests[COUNT(fixed) + COUNT(iso_cases) +
			       COUNT(payload_cases) + COUNT(desc_cases)];
	size_t n = 0, i;

	for (i = 0; i < COUNT(fixed); i++)
		tests[n++] = fixed[i];
	/* one test per mode, named after it */
	for (i = 0; i < COUNT(iso_cases); i++)
		tests[n++] = CASE_TEST(iso_cases, i, run_iso_case);
	for (i = 0; i < COUNT(payload_cases); i++)
		tests[n++] = CASE_TEST(payload_cases, i, run_payload_case);
	for (i = 0; i < COUNT(desc_cases); i++)
		tests[n++] = CASE_TEST(desc_cases, i, run_desc_case);
	return _cmocka_run_group_tests("emu_hostile", tests, n, NULL, NULL);
}
