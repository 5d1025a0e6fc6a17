// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isocam-emu --gadget=ffs without a kernel: the FunctionFS descriptor and
 * string blobs parsed back, ep0 SETUPs dispatched to the real bridge over
 * a SOCK_SEQPACKET socketpair standing in for ep0 (one record per read or
 * write, as f_fs has one transfer per call), the video endpoint's AIO
 * writes into another one standing in for the bulk endpoint (there they
 * complete at once), and the configfs plumbing built in a temporary
 * directory standing in for configfs.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>

#include <isocam/ic1280_regs.h>
#include <isocam/payload.h>
#include <isocam/usb.h>

#include "bridge.h"
#include "configfs_gadget.h"
#include "ffs_ep0.h"
#include "ffs_gadget.h"
#include "ffs_video.h"
#include "usb_descriptors.h"

#define VENDOR_OUT (USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_INTERFACE)
#define VENDOR_IN (USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_INTERFACE)

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* ---- the blobs ---- */

/* One speed's set at p: the bulk interface and its endpoint. */
static const uint8_t *check_set(const uint8_t *p, uint16_t maxp)
{
	assert_int_equal(p[0], USB_DT_INTERFACE_SIZE);
	assert_int_equal(p[1], USB_DT_INTERFACE);
	assert_int_equal(p[2], ISOCAM_USB_IFACE_NUM);
	assert_int_equal(p[3], 0);		/* alt 0 only */
	assert_int_equal(p[4], 1);		/* one endpoint */
	assert_int_equal(p[5], ISOCAM_USB_IFACE_CLASS);
	assert_int_equal(p[6], ISOCAM_USB_IFACE_SUBCLASS);
	assert_int_equal(p[7], ISOCAM_USB_IFACE_PROTOCOL);
	assert_int_equal(p[8], 1);		/* the strings blob's first */
	p += USB_DT_INTERFACE_SIZE;
	assert_int_equal(p[0], USB_DT_ENDPOINT_SIZE);
	assert_int_equal(p[1], USB_DT_ENDPOINT);
	assert_int_equal(p[2], ISOCAM_USB_BULK_EP_ADDR);
	assert_int_equal(p[3], USB_ENDPOINT_XFER_BULK);
	assert_int_equal(le16(p + 4), maxp);
	assert_int_equal(p[6], 0);
	return p + USB_DT_ENDPOINT_SIZE;
}

static void test_descriptors_blob(void **state)
{
	struct usb_descriptors d;
	uint8_t blob[FFS_EP0_DESC_LEN];
	const uint8_t *p;
	int len;

	(void)state;
	usb_descriptors_init(&d, "ISOCAM0001", NULL, USB_TRANSPORT_BULK);
	memset(blob, 0xee, sizeof(blob));
	len = ffs_ep0_descriptors(&d, blob);
	assert_int_equal(len, FFS_EP0_DESC_LEN);
	assert_int_equal(le32(blob), FUNCTIONFS_DESCRIPTORS_MAGIC_V2);
	assert_int_equal(le32(blob + 4), len);
	/* device-recipient requests reach the bridge, addresses are ours */
	assert_int_equal(le32(blob + 8),
			 FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC |
			 FUNCTIONFS_ALL_CTRL_RECIP | FUNCTIONFS_VIRTUAL_ADDR);
	assert_int_equal(le32(blob + 12), 2);	/* fs_count */
	assert_int_equal(le32(blob + 16), 2);	/* hs_count */
	p = check_set(blob + 20, ISOCAM_USB_BULK_MAXP_FS);
	p = check_set(p, ISOCAM_USB_BULK_MAXP);
	assert_ptr_equal(p, blob + len);
	/* high speed: the bytes USB/IP sends, but for the string index */
	p = blob + 20 + USB_DT_INTERFACE_SIZE + USB_DT_ENDPOINT_SIZE;
	assert_memory_equal(p, d.config + USB_DESC_CONFIG_HDR_LEN, 8);
	assert_memory_equal(p + USB_DT_INTERFACE_SIZE,
			    d.config + USB_DESC_CONFIG_HDR_LEN +
			    USB_DESC_IFACE_LEN, USB_DT_ENDPOINT_SIZE);
}

static void test_descriptors_iso_refused(void **state)
{
	struct usb_descriptors d;
	uint8_t blob[FFS_EP0_DESC_LEN];

	(void)state;
	usb_descriptors_init(&d, "ISOCAM0001", NULL, USB_TRANSPORT_ISO);
	assert_int_equal(ffs_ep0_descriptors(&d, blob), -1);
}

static void test_strings_blob(void **state)
{
	uint8_t blob[FFS_EP0_STRINGS_LEN];
	int len;

	(void)state;
	len = ffs_ep0_strings(blob);
	assert_int_equal(len, FFS_EP0_STRINGS_LEN);
	assert_int_equal(le32(blob), FUNCTIONFS_STRINGS_MAGIC);
	assert_int_equal(le32(blob + 4), len);
	assert_int_equal(le32(blob + 8), 1);	/* str_count */
	assert_int_equal(le32(blob + 12), 1);	/* lang_count */
	assert_int_equal(le16(blob + 16), 0x0409);
	assert_string_equal((const char *)blob + 18, USB_STR_INTERFACE_TEXT);
	assert_int_equal(18 + strlen(USB_STR_INTERFACE_TEXT) + 1, len);
}

/* ---- ep0 over a socketpair ---- */

struct ep0_fixture {
	struct bridge *b;
	struct ffs_ep0 e;
	int sv[2];		/* [0]: the emulator's ep0, [1]: the test's */
};

static int ep0_setup(void **state)
{
	struct bridge_config cfg = {
		.name = "cam0", .serial = "ISOCAM0001",
		.chip_id = IC1280_CHIP_ID, .transport = USB_TRANSPORT_BULK,
	};
	struct ep0_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->b = bridge_new(&cfg);
	assert_non_null(f->b);
	f->e = (struct ffs_ep0){ .name = "cam0", .bridge = f->b };
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, f->sv), 0);
	*state = f;
	return 0;
}

static int ep0_teardown(void **state)
{
	struct ep0_fixture *f = *state;

	close(f->sv[0]);
	close(f->sv[1]);
	ffs_ep0_release(&f->e);
	bridge_free(f->b);
	free(f);
	return 0;
}

/* The host's SETUP, as f_fs hands it to ep0 (wIndex already remapped). */
static void send_setup(struct ep0_fixture *f, uint8_t bm, uint8_t req,
		       uint16_t value, uint16_t index, uint16_t length)
{
	struct usb_functionfs_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = FUNCTIONFS_SETUP;
	ev.u.setup.bRequestType = bm;
	ev.u.setup.bRequest = req;
	ev.u.setup.wValue = htole16(value);
	ev.u.setup.wIndex = htole16(index);
	ev.u.setup.wLength = htole16(length);
	assert_int_equal(write(f->sv[1], &ev, sizeof(ev)), sizeof(ev));
}

/* What the emulator wrote back on ep0: -1 when nothing. */
static ssize_t reply(struct ep0_fixture *f, uint8_t *buf, size_t len)
{
	return recv(f->sv[1], buf, len, MSG_DONTWAIT);
}

static void test_ep0_vendor_in(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t buf[64];

	send_setup(f, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, ISOCAM_USB_IFACE_NUM,
		   ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_ANSWERED);
	assert_int_equal(reply(f, buf, sizeof(buf)), ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(buf[0], ISOCAM_BRIDGE_FW_MAJOR);
	assert_int_equal(buf[1], ISOCAM_BRIDGE_FW_MINOR);
	assert_int_equal(buf[2], ISOCAM_I2C_OK);
}

/* An OUT request's data reaches the bridge: the sensor's register pointer. */
static void test_ep0_vendor_out_then_in(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t reg[2] = { IC1280_REG_CHIP_ID_H >> 8,
			   IC1280_REG_CHIP_ID_H & 0xff };
	uint8_t buf[64];

	send_setup(f, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE, IC1280_I2C_ADDR,
		   ISOCAM_USB_IFACE_NUM, sizeof(reg));
	/* the data stage follows the SETUP */
	assert_int_equal(write(f->sv[1], reg, sizeof(reg)), sizeof(reg));
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_ANSWERED);
	assert_int_equal(reply(f, buf, sizeof(buf)), -1);	/* nothing back */

	send_setup(f, VENDOR_IN, ISOCAM_REQ_I2C_READ, IC1280_I2C_ADDR,
		   ISOCAM_USB_IFACE_NUM, 2);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_ANSWERED);
	assert_int_equal(reply(f, buf, sizeof(buf)), 2);
	assert_int_equal(buf[0] << 8 | buf[1], IC1280_CHIP_ID);
	assert_int_equal(f->e.setups, 2);
	assert_int_equal(f->e.stalls, 0);
}

/* An unknown IN request: STALLed by a read, so nothing is written back. */
static void test_ep0_unknown_in_stalls(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t buf[64];

	send_setup(f, VENDOR_IN, 0x7f, 0, ISOCAM_USB_IFACE_NUM, 4);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_STALLED);
	assert_int_equal(reply(f, buf, sizeof(buf)), -1);
	assert_int_equal(f->e.stalls, 1);
	/* the bridge knows why, as over USB/IP */
	send_setup(f, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, ISOCAM_USB_IFACE_NUM,
		   ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_ANSWERED);
	assert_int_equal(reply(f, buf, sizeof(buf)), ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(buf[2], ISOCAM_I2C_BAD_REQUEST);
}

/*
 * OUT without data: acknowledged by a read of nothing (no record back),
 * STALLed by a write of nothing (a zero-length record): an i2c address
 * probe of the sensor, then of an address nobody answers.
 */
static void test_ep0_out_no_data(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t buf[64];

	send_setup(f, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE, IC1280_I2C_ADDR,
		   ISOCAM_USB_IFACE_NUM, 0);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_ANSWERED);
	assert_int_equal(reply(f, buf, sizeof(buf)), -1);

	send_setup(f, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE, 0x50,
		   ISOCAM_USB_IFACE_NUM, 0);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_STALLED);
	assert_int_equal(reply(f, buf, sizeof(buf)), 0);
	assert_int_equal(f->e.stalls, 1);
}

/*
 * A device-recipient vendor request (FUNCTIONFS_ALL_CTRL_RECIP forwards
 * it) goes to the bridge, which STALLs it as it does over USB/IP.
 */
static void test_ep0_device_recipient(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t buf[64];

	send_setup(f, USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
		   ISOCAM_REQ_GET_STATUS, 0, 0, ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_STALLED);
	assert_int_equal(reply(f, buf, sizeof(buf)), -1);
}

static void test_ep0_events(void **state)
{
	static const struct {
		unsigned int type;
		enum ffs_ep0_result r;
	} map[] = {
		{ FUNCTIONFS_BIND, FFS_EP0_BIND },
		{ FUNCTIONFS_ENABLE, FFS_EP0_ENABLE },
		{ FUNCTIONFS_DISABLE, FFS_EP0_DISABLE },
		{ FUNCTIONFS_SUSPEND, FFS_EP0_SUSPEND },
		{ FUNCTIONFS_RESUME, FFS_EP0_RESUME },
		{ FUNCTIONFS_UNBIND, FFS_EP0_UNBIND },
	};
	struct ep0_fixture *f = *state;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct usb_functionfs_event ev = { .type = (__u8)map[i].type };

		assert_int_equal(write(f->sv[1], &ev, sizeof(ev)), sizeof(ev));
		assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), map[i].r);
	}
	/* a torn event is an error, not a guess */
	assert_int_equal(write(f->sv[1], "abc", 3), 3);
	assert_int_equal(ffs_ep0_event(&f->e, f->sv[0]), FFS_EP0_ERROR);
}

/* ---- configfs plumbing in a temporary tree ---- */

static char *slurp(const char *dir, const char *rel)
{
	static char buf[256];
	char path[1024];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fp = fopen(path, "r");
	if (!fp)
		fail_msg("%s: missing", path);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = 0;
	return buf;
}

static const struct configfs_gadget_spec spec = {
	.name = "isocam-42",
	.instance = "isocam42",
	.bcd_usb = 0x0200,
	.max_packet0 = 64,
	.vendor = ISOCAM_USB_VID,
	.product = ISOCAM_USB_PID,
	.bcd_device = ISOCAM_USB_BCD_DEVICE,
	.langid = 0x0409,
	.manufacturer = ISOCAM_USB_MANUFACTURER,
	.product_name = ISOCAM_USB_PRODUCT,
	.serial = "ISOCAM0001",
	.config_attributes = 0x80,
	.max_power_ma = ISOCAM_USB_MAX_POWER_MA,
};

static void test_configfs_tree(void **state)
{
	char root[] = "/tmp/isocam-configfs-test.XXXXXX", err[512];
	char dir[256], link[1024], target[1024];
	struct configfs_gadget *g;
	struct stat st;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(root));
	g = configfs_gadget_create(root, &spec, err, sizeof(err));
	if (!g)
		fail_msg("configfs_gadget_create: %s", err);
	snprintf(dir, sizeof(dir), "%s/isocam-42", root);
	assert_string_equal(configfs_gadget_dir(g), dir);
	assert_string_equal(slurp(dir, "idVendor"), "0x1209");
	assert_string_equal(slurp(dir, "idProduct"), "0x0007");
	assert_string_equal(slurp(dir, "bcdDevice"), "0x0100");
	assert_string_equal(slurp(dir, "bcdUSB"), "0x0200");
	assert_string_equal(slurp(dir, "bDeviceClass"), "0x0000");
	assert_string_equal(slurp(dir, "bMaxPacketSize0"), "0x0040");
	assert_string_equal(slurp(dir, "strings/0x409/manufacturer"),
			    ISOCAM_USB_MANUFACTURER);
	assert_string_equal(slurp(dir, "strings/0x409/product"),
			    ISOCAM_USB_PRODUCT);
	assert_string_equal(slurp(dir, "strings/0x409/serialnumber"),
			    "ISOCAM0001");
	assert_string_equal(slurp(dir, "configs/c.1/MaxPower"), "200");
	assert_string_equal(slurp(dir, "configs/c.1/bmAttributes"), "0x80");
	snprintf(target, sizeof(target), "%s/functions/ffs.isocam42", dir);
	assert_int_equal(stat(target, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(link, sizeof(link), "%s/configs/c.1/ffs.isocam42", dir);
	n = readlink(link, err, sizeof(err) - 1);
	assert_true(n > 0);
	err[n] = 0;
	assert_string_equal(err, target);

	if (configfs_gadget_bind(g, "dummy_udc.0", err, sizeof(err)) < 0)
		fail_msg("bind: %s", err);
	assert_string_equal(slurp(dir, "UDC"), "dummy_udc.0");

	/* everything goes, the root stays as it was */
	configfs_gadget_destroy(g);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(rmdir(root), 0);
}

/* A failure halfway leaves nothing of ours, and what was there alone. */
static void test_configfs_failure_undone(void **state)
{
	char root[] = "/tmp/isocam-configfs-test.XXXXXX", err[512];
	char path[1024];
	struct configfs_gadget_spec bad = spec;
	struct configfs_gadget *g;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* the gadget is there already: refused, and kept */
	snprintf(path, sizeof(path), "%s/isocam-42", root);
	assert_int_equal(mkdir(path, 0755), 0);
	g = configfs_gadget_create(root, &spec, err, sizeof(err));
	assert_null(g);
	assert_non_null(strstr(err, "isocam-42"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(rmdir(path), 0);

	/* the function's directory cannot be made: all before it undone */
	bad.instance = "no/such";
	g = configfs_gadget_create(root, &bad, err, sizeof(err));
	assert_null(g);
	assert_non_null(strstr(err, "ffs.no/such"));
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(rmdir(root), 0);
}

static void test_default_udc(void **state)
{
	char dir[] = "/tmp/isocam-udc-test.XXXXXX", path[1024], err[256];
	char udc[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(configfs_gadget_default_udc(dir, udc, sizeof(udc),
						     err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--udc"));
	snprintf(path, sizeof(path), "%s/dummy_udc.1", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dummy_udc.0", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(configfs_gadget_default_udc(dir, udc, sizeof(udc),
						     err, sizeof(err)), 0);
	assert_string_equal(udc, "dummy_udc.0");
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/dummy_udc.1", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(configfs_gadget_default_udc(dir, udc, sizeof(udc),
						     err, sizeof(err)), -1);
}

/* ---- the video endpoint over a socketpair ---- */

static void test_video_needs_zlp(void **state)
{
	(void)state;
	assert_false(ffs_video_needs_zlp(24696, ISOCAM_USB_BULK_MAXP));
	assert_true(ffs_video_needs_zlp(1024, ISOCAM_USB_BULK_MAXP));
	assert_true(ffs_video_needs_zlp(512, ISOCAM_USB_BULK_MAXP));
	/* fills the host's whole URB: that ends the transfer */
	assert_false(ffs_video_needs_zlp(ISOCAM_USB_BULK_MAX_PAYLOAD,
					 ISOCAM_USB_BULK_MAXP));
	assert_true(ffs_video_needs_zlp(128, ISOCAM_USB_BULK_MAXP_FS));
	assert_false(ffs_video_needs_zlp(0, ISOCAM_USB_BULK_MAXP));
	assert_false(ffs_video_needs_zlp(512, 0));
}

#define VIDEO_MAX_RECORDS	256

/* What the host side read: one record per transfer (0 bytes: a ZLP). */
struct video_reader {
	int fd;
	pthread_mutex_t lock;
	size_t len[VIDEO_MAX_RECORDS];
	uint8_t head[VIDEO_MAX_RECORDS][ISOCAM_PH_LEN_FULL];
	unsigned int n, frames;
	bool done;
};

static void *read_records(void *arg)
{
	struct video_reader *r = arg;
	static uint8_t buf[ISOCAM_USB_BULK_MAX_PAYLOAD + 1];

	for (;;) {
		ssize_t n = recv(r->fd, buf, sizeof(buf), 0);

		if (n < 0)
			break;
		pthread_mutex_lock(&r->lock);
		if (!n && r->done) {	/* the shutdown, not a ZLP */
			pthread_mutex_unlock(&r->lock);
			break;
		}
		if (r->n < VIDEO_MAX_RECORDS) {
			r->len[r->n] = (size_t)n;
			memcpy(r->head[r->n], buf, n < ISOCAM_PH_LEN_FULL ?
			       (size_t)n : ISOCAM_PH_LEN_FULL);
			r->n++;
			if (n >= ISOCAM_PH_LEN_FULL &&
			    (buf[ISOCAM_PH_OFF_INFO] & ISOCAM_PH_EOF))
				r->frames++;
		}
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

static unsigned int reader_frames(struct video_reader *r)
{
	unsigned int n;

	pthread_mutex_lock(&r->lock);
	n = r->frames;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void sensor_mode(struct bridge *b, uint8_t mode)
{
	uint8_t w[3] = { IC1280_REG_MODE_SELECT >> 8,
			 IC1280_REG_MODE_SELECT & 0xff, mode };
	struct usb_setup s = { VENDOR_OUT, ISOCAM_REQ_I2C_WRITE,
			       IC1280_I2C_ADDR, ISOCAM_USB_IFACE_NUM, 3 };

	assert_int_equal(bridge_control(b, &s, w, sizeof(w)), 3);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Feed and reap for up to limit_ms, or until the reader has frames. */
static void pump(struct ffs_video *v, struct video_reader *r,
		 unsigned int frames, unsigned int limit_ms)
{
	uint64_t until = mono_ns() + limit_ms * 1000000ull;

	while (reader_frames(r) < frames && mono_ns() < until) {
		uint64_t wake, now;
		struct timespec ts = { 0, 2000000 };

		ffs_video_feed(v, &wake);
		ffs_video_reap(v);
		now = mono_ns();
		if (wake > now && wake - now < 2000000)
			ts.tv_nsec = (long)(wake - now);
		nanosleep(&ts, NULL);
	}
	ffs_video_reap(v);
}

/*
 * Frames from the real pipe as runs of payload transfers, each starting
 * with its header; every transfer but a frame's last as long as the
 * contract's URB; a ZLP after exactly those that need one (a 4-byte
 * endpoint here, so that the frames' last transfers do); nothing queued
 * once the sensor is in standby, nor while the endpoint is disabled.
 */
static void test_video_frames(void **state)
{
	struct bridge_config cfg = {
		.name = "cam0", .serial = "ISOCAM0001",
		.chip_id = IC1280_CHIP_ID, .transport = USB_TRANSPORT_BULK,
	};
	struct usb_setup conf = { 0, USB_REQ_SET_CONFIGURATION,
				  ISOCAM_USB_CONFIG_VALUE, 0, 0 };
	struct video_reader r = { .n = 0 };
	struct ffs_video_stats st;
	struct ffs_video *v;
	struct bridge *b;
	pthread_t th;
	int sv[2];
	unsigned int i, frames = 0, zlps = 0, data = 0;
	size_t frame_len = 0, first_frame_len = 0;
	uint64_t wake;
	int fid = -1;

	(void)state;
	b = bridge_new(&cfg);
	assert_non_null(b);
	assert_int_equal(bridge_control(b, &conf, NULL, 0), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	r.fd = sv[1];
	pthread_mutex_init(&r.lock, NULL);
	assert_int_equal(pthread_create(&th, NULL, read_records, &r), 0);
	v = ffs_video_new("cam0", false, sv[0], b, NULL);
	assert_non_null(v);

	/* not enabled, or in standby: nothing goes */
	ffs_video_feed(v, &wake);
	assert_int_equal(ffs_video_in_flight(v), 0);
	ffs_video_enable(v, 4);
	ffs_video_feed(v, &wake);
	assert_int_equal(wake, UINT64_MAX);
	assert_int_equal(ffs_video_in_flight(v), 0);

	sensor_mode(b, IC1280_MODE_STREAMING);
	pump(v, &r, 3, 5000);
	assert_true(reader_frames(&r) >= 3);

	/* stream off: nothing more is queued */
	sensor_mode(b, IC1280_MODE_STANDBY);
	ffs_video_cancel(v, false);
	pump(v, &r, UINT32_MAX, 100);
	ffs_video_feed(v, &wake);
	assert_int_equal(wake, UINT64_MAX);
	assert_int_equal(ffs_video_in_flight(v), 0);

	pthread_mutex_lock(&r.lock);
	r.done = true;
	pthread_mutex_unlock(&r.lock);
	shutdown(sv[0], SHUT_WR);	/* the reader ends */
	pthread_join(th, NULL);
	ffs_video_get_stats(v, &st);
	ffs_video_free(v);

	for (i = 0; i < r.n; i++) {
		const uint8_t *h = r.head[i];
		bool eof;

		if (!r.len[i]) {
			/* a ZLP only right after a transfer that needs one */
			assert_true(i > 0);
			assert_true(ffs_video_needs_zlp(r.len[i - 1], 4));
			zlps++;
			continue;
		}
		data++;
		if (i + 1 < r.n && ffs_video_needs_zlp(r.len[i], 4))
			assert_int_equal(r.len[i + 1], 0);
		assert_true(r.len[i] > ISOCAM_PH_LEN_FULL);
		assert_true(r.len[i] <= ISOCAM_USB_BULK_MAX_PAYLOAD);
		assert_int_equal(h[ISOCAM_PH_OFF_LEN], ISOCAM_PH_LEN_FULL);
		assert_true(h[ISOCAM_PH_OFF_INFO] & ISOCAM_PH_EOH);
		eof = h[ISOCAM_PH_OFF_INFO] & ISOCAM_PH_EOF;
		if (fid < 0)
			fid = h[ISOCAM_PH_OFF_INFO] & ISOCAM_PH_FID;
		/* one FID a frame */
		assert_int_equal(h[ISOCAM_PH_OFF_INFO] & ISOCAM_PH_FID, fid);
		if (!eof)
			assert_int_equal(r.len[i], ISOCAM_USB_BULK_MAX_PAYLOAD);
		frame_len += r.len[i] - ISOCAM_PH_LEN_FULL;
		if (eof) {
			if (!first_frame_len)
				first_frame_len = frame_len;
			assert_int_equal(frame_len, first_frame_len);
			frame_len = 0;
			frames++;
			fid ^= ISOCAM_PH_FID;
		}
	}
	assert_true(frames >= 3);
	assert_true(zlps >= 1);		/* 614412 - 9 x 65536: 24588 = 4 x 6147 */
	assert_int_equal(st.transfers, data);
	assert_int_equal(st.zlps, zlps);
	assert_int_equal(st.failed, 0);
	close(sv[0]);
	close(sv[1]);
	pthread_mutex_destroy(&r.lock);
	bridge_free(b);
}

/* ---- the serving thread, on socketpairs for ep0 and the endpoint ---- */

static void send_event(int fd, unsigned int type)
{
	struct usb_functionfs_event ev = { .type = (__u8)type };

	assert_int_equal(write(fd, &ev, sizeof(ev)), sizeof(ev));
}

/* An i2c write of MODE_SELECT as the host's SETUP and its data stage. */
static void host_mode(int fd, uint8_t mode)
{
	uint8_t w[3] = { IC1280_REG_MODE_SELECT >> 8,
			 IC1280_REG_MODE_SELECT & 0xff, mode };
	struct usb_functionfs_event ev = { .type = FUNCTIONFS_SETUP };

	ev.u.setup.bRequestType = VENDOR_OUT;
	ev.u.setup.bRequest = ISOCAM_REQ_I2C_WRITE;
	ev.u.setup.wValue = htole16(IC1280_I2C_ADDR);
	ev.u.setup.wIndex = htole16(ISOCAM_USB_IFACE_NUM);
	ev.u.setup.wLength = htole16(sizeof(w));
	assert_int_equal(write(fd, &ev, sizeof(ev)), sizeof(ev));
	assert_int_equal(write(fd, w, sizeof(w)), sizeof(w));
}

/* Frames (EOF transfers) read from the endpoint within limit_ms. */
static unsigned int host_frames(int fd, unsigned int want,
				unsigned int limit_ms)
{
	static uint8_t buf[ISOCAM_USB_BULK_MAX_PAYLOAD];
	unsigned int frames = 0;
	struct timeval tv = { 0, 100000 };
	uint64_t until = mono_ns() + limit_ms * 1000000ull;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (frames < want && mono_ns() < until) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < ISOCAM_PH_LEN_FULL)
			continue;	/* timeout, ZLP */
		assert_int_equal(buf[ISOCAM_PH_OFF_LEN], ISOCAM_PH_LEN_FULL);
		if (buf[ISOCAM_PH_OFF_INFO] & ISOCAM_PH_EOF)
			frames++;
	}
	return frames;
}

/*
 * The gadget's serving thread end to end: ENABLE configures the bridge,
 * a vendor IN request is answered, MODE_SELECT streaming over ep0 makes
 * frames flow on the endpoint, standby stops them, DISABLE too.
 */
static void test_gadget_serve(void **state)
{
	struct ffs_gadget_config cfg = { .camera.chip_id = IC1280_CHIP_ID };
	struct ffs_gadget *g;
	int e0[2], vid[2];
	uint8_t buf[64];
	struct timeval tv = { 2, 0 };

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, e0), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, vid), 0);
	g = ffs_gadget_serve_fds(&cfg, e0[0], vid[0]);
	assert_non_null(g);
	setsockopt(e0[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	send_event(e0[1], FUNCTIONFS_BIND);
	send_event(e0[1], FUNCTIONFS_ENABLE);
	{
		struct usb_functionfs_event ev = { .type = FUNCTIONFS_SETUP };

		ev.u.setup.bRequestType = VENDOR_IN;
		ev.u.setup.bRequest = ISOCAM_REQ_GET_STATUS;
		ev.u.setup.wIndex = htole16(ISOCAM_USB_IFACE_NUM);
		ev.u.setup.wLength = htole16(ISOCAM_BRIDGE_STATUS_LEN);
		assert_int_equal(write(e0[1], &ev, sizeof(ev)), sizeof(ev));
	}
	assert_int_equal(recv(e0[1], buf, sizeof(buf), 0),
			 ISOCAM_BRIDGE_STATUS_LEN);
	assert_int_equal(buf[0], ISOCAM_BRIDGE_FW_MAJOR);

	host_mode(e0[1], IC1280_MODE_STREAMING);
	assert_int_equal(host_frames(vid[1], 3, 5000), 3);
	host_mode(e0[1], IC1280_MODE_STANDBY);
	host_frames(vid[1], UINT32_MAX, 300);	/* what was on its way */
	assert_int_equal(host_frames(vid[1], 1, 300), 0);

	/* streaming again, then the endpoint goes: nothing more */
	host_mode(e0[1], IC1280_MODE_STREAMING);
	assert_int_equal(host_frames(vid[1], 2, 5000), 2);
	send_event(e0[1], FUNCTIONFS_DISABLE);
	host_frames(vid[1], UINT32_MAX, 300);
	assert_int_equal(host_frames(vid[1], 1, 300), 0);

	ffs_gadget_status(g);
	assert_int_equal(ffs_gadget_stop(g), 0);
	close(e0[1]);
	close(vid[1]);
}

/* What applies to a FunctionFS gadget is taken, USB/IP-only lies are not. */
static void test_gadget_config(void **state)
{
	struct ffs_gadget_config cfg = { .camera.chip_id = IC1280_CHIP_ID };

	(void)state;
	assert_int_equal(ffs_gadget_check_config(&cfg), 0);
	cfg.camera.fault_spec = "drop=1/40,nak=1/9,stall=1/7";
	cfg.camera.hostile_spec = "ph-len0,fid-flip,ctrl-stall,i2c-garbage";
	assert_int_equal(ffs_gadget_check_config(&cfg), 0);
	cfg.camera.fault_spec = "drop=1/40,vanish=after:30";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.camera.fault_spec = NULL;
	cfg.camera.hostile_spec = "ph-len0,iso-late";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.camera.hostile_spec = "desc-bulk";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.camera.hostile_spec = "ctrl-never";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.camera.hostile_spec = "ctrl-short,";
	assert_int_equal(ffs_gadget_check_config(&cfg), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptors_blob),
		cmocka_unit_test(test_descriptors_iso_refused),
		cmocka_unit_test(test_strings_blob),
		cmocka_unit_test_setup_teardown(test_ep0_vendor_in, ep0_setup,
						ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_vendor_out_then_in,
						ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_unknown_in_stalls,
						ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_out_no_data,
						ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_device_recipient,
						ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_events, ep0_setup,
						ep0_teardown),
		cmocka_unit_test(test_configfs_tree),
		cmocka_unit_test(test_configfs_failure_undone),
		cmocka_unit_test(test_default_udc),
		cmocka_unit_test(test_gadget_config),
		cmocka_unit_test(test_video_needs_zlp),
		cmocka_unit_test(test_video_frames),
		cmocka_unit_test(test_gadget_serve),
	};

	return cmocka_run_group_tests_name("emu_ffs", tests, NULL, NULL);
}
