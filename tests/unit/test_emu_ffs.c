// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isocam-emu --gadget=ffs without a kernel: the FunctionFS descriptor and
 * string blobs parsed back, ep0 SETUPs dispatched to the real bridge over
 * a SOCK_SEQPACKET socketpair standing in for ep0 (one record per read or
 * write, as f_fs has one transfer per call), and the configfs plumbing
 * built in a temporary directory standing in for configfs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>

#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>

#include "bridge.h"
#include "configfs_gadget.h"
#include "ffs_ep0.h"
#include "ffs_gadget.h"
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

/* What applies to a FunctionFS gadget is taken, USB/IP-only lies are not. */
static void test_gadget_config(void **state)
{
	struct ffs_gadget_config cfg = { .chip_id = IC1280_CHIP_ID };

	(void)state;
	assert_int_equal(ffs_gadget_check_config(&cfg), 0);
	cfg.fault_spec = "drop=1/40,nak=1/9,stall=1/7";
	cfg.hostile_spec = "ph-len0,fid-flip,ctrl-stall,i2c-garbage";
	assert_int_equal(ffs_gadget_check_config(&cfg), 0);
	cfg.fault_spec = "drop=1/40,vanish=after:30";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.fault_spec = NULL;
	cfg.hostile_spec = "ph-len0,iso-late";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.hostile_spec = "desc-bulk";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.hostile_spec = "ctrl-never";
	assert_int_equal(ffs_gadget_check_config(&cfg), -1);
	cfg.hostile_spec = "ctrl-short,";
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
	};

	return cmocka_run_group_tests_name("emu_ffs", tests, NULL, NULL);
}
