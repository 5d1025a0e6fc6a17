// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The USB/IP codec: encode/decode round trips against the byte layout of
 * Documentation/usb/usbip_protocol.rst, and rejection of malformed input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "usbip_proto.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void test_op_common(void **state)
{
	struct usbip_op_common op = { USBIP_VERSION, USBIP_OP_REQ_DEVLIST, 0 };
	struct usbip_op_common back;
	uint8_t buf[USBIP_OP_COMMON_LEN];
	static const uint8_t want[8] = { 0x01, 0x11, 0x80, 0x05, 0, 0, 0, 0 };

	(void)state;
	usbip_op_common_encode(buf, &op);
	assert_memory_equal(buf, want, 8);
	assert_int_equal(usbip_op_common_decode(buf, 8, &back), 0);
	assert_int_equal(back.code, USBIP_OP_REQ_DEVLIST);
	assert_int_equal(usbip_op_common_decode(buf, 7, &back), -1);
	buf[1] = 0x06;	/* version 1.0.6 */
	assert_int_equal(usbip_op_common_decode(buf, 8, &back), -1);
}

static struct usbip_usb_device sample_dev(void)
{
	struct usbip_usb_device d;

	memset(&d, 0, sizeof(d));
	strcpy(d.path, "/sys/devices/platform/isocam-emu/usb1/1-1");
	strcpy(d.busid, "1-1");
	d.busnum = 1;
	d.devnum = 1;
	d.speed = USBIP_SPEED_HIGH;
	d.idVendor = 0x1209;
	d.idProduct = 0x0007;
	d.bcdDevice = 0x0100;
	d.bConfigurationValue = 1;
	d.bNumConfigurations = 1;
	d.bNumInterfaces = 1;
	return d;
}

static void test_devlist_layout(void **state)
{
	struct usbip_usb_device devs[2] = { sample_dev(), sample_dev() };
	struct usbip_usb_interface ifs[1] = { { 0xff, 0x01, 0x01 } };
	const struct usbip_usb_interface *ifp[2] = { ifs, ifs };
	uint8_t buf[1024];
	struct usbip_usb_device back;
	long n;

	(void)state;
	strcpy(devs[1].busid, "1-2");
	devs[1].devnum = 2;
	assert_int_equal(usbip_devlist_reply_len(devs, 2), 12 + 2 * (312 + 4));
	assert_int_equal(usbip_devlist_reply_encode(buf, 100, devs, ifp, 2), -1);
	n = usbip_devlist_reply_encode(buf, sizeof(buf), devs, ifp, 2);
	assert_int_equal(n, 12 + 2 * 316);
	assert_int_equal(be32(buf + 8), 2);
	/* offsets from the protocol document */
	assert_string_equal((char *)buf + 0x10c, "1-1");
	assert_int_equal(be32(buf + 0x134), USBIP_SPEED_HIGH);
	assert_int_equal(buf[0x138], 0x12);
	assert_int_equal(buf[0x139], 0x09);
	assert_int_equal(buf[0x13a], 0x00);
	assert_int_equal(buf[0x13b], 0x07);
	assert_int_equal(buf[0x143], 1);	/* bNumInterfaces */
	assert_int_equal(buf[0x144], 0xff);
	assert_int_equal(buf[0x147], 0);	/* padding */
	/* second device starts at 0xc + 0x138 + 4 */
	assert_int_equal(usbip_device_decode(buf + 0xc + 0x13c, 312, &back), 0);
	assert_string_equal(back.busid, "1-2");
	assert_int_equal(back.devnum, 2);
	assert_int_equal(back.idProduct, 0x0007);
}

static void test_import(void **state)
{
	struct usbip_usb_device d = sample_dev(), back;
	uint8_t req[USBIP_IMPORT_REQ_LEN], rep[USBIP_IMPORT_REP_LEN];
	char busid[USBIP_BUSID_LEN];

	(void)state;
	usbip_import_req_encode(req, "1-3");
	assert_int_equal(req[2], 0x80);
	assert_int_equal(req[3], 0x03);
	assert_int_equal(usbip_import_req_decode(req, sizeof(req), busid), 0);
	assert_string_equal(busid, "1-3");
	assert_int_equal(usbip_import_req_decode(req, sizeof(req) - 1, busid), -1);
	memset(req + 8, 'x', 32);	/* unterminated bus id */
	assert_int_equal(usbip_import_req_decode(req, sizeof(req), busid), -1);

	assert_int_equal(usbip_import_rep_encode(rep, &d), 320);
	assert_int_equal(be32(rep + 4), 0);
	assert_int_equal(usbip_device_decode(rep + 8, 312, &back), 0);
	assert_memory_equal(&back, &d, sizeof(d));
	assert_int_equal(usbip_import_rep_encode(rep, NULL), 8);
	assert_int_equal(be32(rep + 4), USBIP_OP_STATUS_ERROR);
	/* usbipd's codes, as usbip attach decodes them */
	assert_int_equal(usbip_import_rep_refuse(rep, USBIP_OP_STATUS_NODEV), 8);
	assert_int_equal(be32(rep + 4), 4);
	assert_int_equal(rep[2] << 8 | rep[3], USBIP_OP_REP_IMPORT);
	assert_int_equal(usbip_import_rep_refuse(rep, USBIP_OP_STATUS_DEV_BUSY), 8);
	assert_int_equal(be32(rep + 4), 2);

	memset(rep + 8, 'x', 256);	/* unterminated path */
	assert_int_equal(usbip_device_decode(rep + 8, 312, &back), -1);
}

static void test_header_roundtrip(void **state)
{
	struct usbip_header h, back;
	uint8_t buf[USBIP_HEADER_LEN];

	(void)state;
	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = 0x01020304;
	h.devid = 0x00010001;
	h.direction = USBIP_DIR_IN;
	h.ep = 1;
	h.u.cmd_submit.transfer_flags = 0x200;
	h.u.cmd_submit.transfer_buffer_length = 98304;
	h.u.cmd_submit.start_frame = -1;
	h.u.cmd_submit.number_of_packets = 32;
	h.u.cmd_submit.interval = 1;
	memcpy(h.u.cmd_submit.setup, "\x80\x06\x00\x01\x00\x00\x12\x00", 8);
	usbip_header_encode(buf, &h);
	assert_int_equal(be32(buf), 1);
	assert_int_equal(be32(buf + 4), 0x01020304);
	assert_int_equal(be32(buf + 24), 98304);
	assert_int_equal(be32(buf + 32), 32);
	assert_memory_equal(buf + 40, h.u.cmd_submit.setup, 8);
	assert_int_equal(usbip_header_decode(buf, sizeof(buf), &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));

	usbip_ret_submit_header(&h, 7, -32, 0, 0);
	usbip_header_encode(buf, &h);
	assert_int_equal(be32(buf), USBIP_RET_SUBMIT);
	assert_int_equal((int32_t)be32(buf + 20), -32);
	assert_int_equal(be32(buf + 8), 0);	/* devid 0 from the server */
	assert_int_equal(usbip_header_decode(buf, sizeof(buf), &back), 0);
	assert_int_equal(back.u.ret_submit.status, -32);

	usbip_ret_unlink_header(&h, 9, -104);
	usbip_header_encode(buf, &h);
	assert_int_equal(be32(buf), USBIP_RET_UNLINK);
	assert_int_equal((int32_t)be32(buf + 20), -104);
	assert_int_equal(usbip_header_decode(buf, 47, &back), -1);
}

/* Build a CMD_SUBMIT for ep1 IN iso with np packets of plen bytes. */
static size_t make_iso_submit(uint8_t *buf, uint32_t seq, int np, uint32_t plen)
{
	struct usbip_header h;
	int i;

	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = seq;
	h.direction = USBIP_DIR_IN;
	h.ep = 1;
	h.u.cmd_submit.transfer_buffer_length = (int32_t)(np * plen);
	h.u.cmd_submit.number_of_packets = np;
	usbip_header_encode(buf, &h);
	for (i = 0; i < np; i++) {
		struct usbip_iso_desc d = { i * plen, plen, 0, 0 };

		usbip_iso_desc_encode(buf + 48 + 16 * i, &d);
	}
	return 48 + 16 * (size_t)np;
}

static void test_parse_iso_submit(void **state)
{
	uint8_t buf[48 + 16 * 8];
	struct usbip_cmd cmd;
	struct usbip_iso_desc d;
	size_t need, len = make_iso_submit(buf, 5, 8, 3072);
	char err[128];

	(void)state;
	/* every proper prefix needs more */
	assert_int_equal(usbip_parse_cmd(buf, 10, 2, &cmd, &need, err, sizeof(err)),
			 USBIP_PARSE_NEED_MORE);
	assert_int_equal(need, 48);
	assert_int_equal(usbip_parse_cmd(buf, len - 1, 2, &cmd, &need, err,
					 sizeof(err)), USBIP_PARSE_NEED_MORE);
	assert_int_equal(need, len);
	assert_int_equal(usbip_parse_cmd(buf, len, 2, &cmd, &need, err,
					 sizeof(err)), (long)len);
	assert_true(cmd.iso);
	assert_int_equal(cmd.num_iso, 8);
	assert_int_equal(cmd.data_len, 0);
	usbip_cmd_iso_desc(&cmd, 7, &d);
	assert_int_equal(d.offset, 7 * 3072);
	assert_int_equal(d.length, 3072);

	/* a packet outside the buffer */
	d.offset = 8 * 3072 - 100;
	usbip_iso_desc_encode(buf + 48 + 16 * 7, &d);
	assert_int_equal(usbip_parse_cmd(buf, len, 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);
	assert_non_null(strstr(err, "outside"));
	/* offset + length wrapping around 32 bits */
	d.offset = 0xffffff00u;
	d.length = 0x200;
	usbip_iso_desc_encode(buf + 48 + 16 * 7, &d);
	assert_int_equal(usbip_parse_cmd(buf, len, 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);
}

static void test_parse_rejects(void **state)
{
	uint8_t buf[48 + 16 * 2];
	struct usbip_cmd cmd;
	char err[128];

	(void)state;
	make_iso_submit(buf, 1, 2, 100);
	buf[3] = 3;	/* RET_SUBMIT from a client */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);
	buf[3] = 9;	/* unknown command */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);

	make_iso_submit(buf, 1, 2, 100);
	buf[15] = 2;	/* direction 2 */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);

	make_iso_submit(buf, 1, 2, 100);
	buf[19] = 16;	/* ep 16 */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);

	make_iso_submit(buf, 1, 2, 100);
	memset(buf + 32, 0xff, 4);	/* number_of_packets -1 on iso */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);
	memset(buf + 32, 0, 4);
	buf[33] = 0x10;	/* 1M packets */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);

	make_iso_submit(buf, 1, 2, 100);
	buf[24] = 0x80;	/* negative transfer_buffer_length */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);
	buf[24] = 0x7f;	/* 2 GiB */
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 2, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);

	/* packets on an endpoint that is not iso */
	make_iso_submit(buf, 1, 2, 100);
	assert_int_equal(usbip_parse_cmd(buf, sizeof(buf), 0, &cmd, NULL, err,
					 sizeof(err)), USBIP_PARSE_ERROR);
}

static void test_parse_control(void **state)
{
	uint8_t buf[48 + 4];
	struct usbip_header h;
	struct usbip_cmd cmd;
	char err[128];

	(void)state;
	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = 3;
	h.direction = USBIP_DIR_OUT;
	h.u.cmd_submit.transfer_buffer_length = 4;
	/* vendor OUT I2C_WRITE, 4 bytes */
	memcpy(h.u.cmd_submit.setup, "\x41\x01\x3c\x00\x00\x00\x04\x00", 8);
	usbip_header_encode(buf, &h);
	memcpy(buf + 48, "\x50\x00\x20\x30", 4);
	assert_int_equal(usbip_parse_cmd(buf, 51, 2, &cmd, NULL, err, sizeof(err)),
			 USBIP_PARSE_NEED_MORE);
	assert_int_equal(usbip_parse_cmd(buf, 52, 2, &cmd, NULL, err, sizeof(err)),
			 52);
	assert_false(cmd.iso);
	assert_int_equal(cmd.data_len, 4);
	assert_memory_equal(cmd.data, "\x50\x00\x20\x30", 4);

	/* direction disagreeing with bmRequestType */
	h.direction = USBIP_DIR_IN;
	usbip_header_encode(buf, &h);
	assert_int_equal(usbip_parse_cmd(buf, 52, 2, &cmd, NULL, err, sizeof(err)),
			 USBIP_PARSE_ERROR);
	/* zero-length IN request on the OUT pipe, as usbcore sends it */
	memcpy(h.u.cmd_submit.setup, "\x80\x00\x00\x00\x00\x00\x00\x00", 8);
	h.u.cmd_submit.transfer_buffer_length = 0;
	usbip_header_encode(buf, &h);
	assert_int_equal(usbip_parse_cmd(buf, 48, 2, &cmd, NULL, err, sizeof(err)),
			 48);
	memcpy(h.u.cmd_submit.setup, "\x41\x01\x3c\x00\x00\x00\x04\x00", 8);
	h.u.cmd_submit.transfer_buffer_length = 4;
	/* buffer shorter than wLength */
	h.direction = USBIP_DIR_OUT;
	h.u.cmd_submit.transfer_buffer_length = 2;
	usbip_header_encode(buf, &h);
	assert_int_equal(usbip_parse_cmd(buf, 52, 2, &cmd, NULL, err, sizeof(err)),
			 USBIP_PARSE_ERROR);

	/* CMD_UNLINK is just the header */
	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_UNLINK;
	h.seqnum = 10;
	h.u.cmd_unlink.seqnum = 9;
	usbip_header_encode(buf, &h);
	assert_int_equal(usbip_parse_cmd(buf, 48, 2, &cmd, NULL, err, sizeof(err)),
			 48);
	assert_int_equal(cmd.hdr.u.cmd_unlink.seqnum, 9);
}

static void test_parse_ret_iso(void **state)
{
	uint8_t buf[48 + 10 + 32];
	struct usbip_header h;
	struct usbip_iso_desc d0 = { 0, 3072, 6, 0 }, d1 = { 3072, 3072, 4, 0 };
	struct usbip_ret ret;
	char err[128];

	(void)state;
	usbip_ret_submit_header(&h, 5, 0, 10, 2);
	usbip_header_encode(buf, &h);
	memset(buf + 48, 0xaa, 10);
	usbip_iso_desc_encode(buf + 58, &d0);
	usbip_iso_desc_encode(buf + 74, &d1);
	assert_int_equal(usbip_parse_ret(buf, sizeof(buf), true, true, 2, &ret,
					 err, sizeof(err)), (long)sizeof(buf));
	assert_int_equal(ret.num_iso, 2);
	assert_int_equal(ret.data_len, 10);
	/* more packets than the URB had */
	assert_int_equal(usbip_parse_ret(buf, sizeof(buf), true, true, 1, &ret,
					 err, sizeof(err)), USBIP_PARSE_ERROR);
	/* lengths that do not add up, as vhci would refuse */
	d1.actual_length = 5;
	usbip_iso_desc_encode(buf + 74, &d1);
	assert_int_equal(usbip_parse_ret(buf, sizeof(buf), true, true, 2, &ret,
					 err, sizeof(err)), USBIP_PARSE_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_op_common),
		cmocka_unit_test(test_devlist_layout),
		cmocka_unit_test(test_import),
		cmocka_unit_test(test_header_roundtrip),
		cmocka_unit_test(test_parse_iso_submit),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_control),
		cmocka_unit_test(test_parse_ret_iso),
	};

	return cmocka_run_group_tests_name("emu_usbip", tests, NULL, NULL);
}
