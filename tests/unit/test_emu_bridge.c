// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bridge chip: descriptors, ep0 standard requests, the vendor i2c
 * requests against the real ic1280 model, the bridge's own registers,
 * STALL/NAK behaviour, faults and the -v register-write log line other
 * tests rely on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/usb/ch9.h>

#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>

#include "bridge.h"
#include "fault.h"
#include "ic1280_model.h"
#include "usb_descriptors.h"

#define VENDOR_OUT (USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_INTERFACE)
#define VENDOR_IN (USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_INTERFACE)

static struct bridge *mk(uint16_t chip, struct fault *f, bool verbose)
{
	struct bridge_config cfg = {
		.name = "cam0", .serial = "ISOCAM0001", .chip_id = chip,
		.fault = f, .verbose = verbose,
	};
	struct bridge *b = bridge_new(&cfg);

	assert_non_null(b);
	return b;
}

static int ctrl(struct bridge *b, uint8_t bm, uint8_t req, uint16_t val,
		uint16_t idx, uint16_t len, uint8_t *data)
{
	struct usb_setup s = { bm, req, val, idx, len };

	return bridge_control(b, &s, data, len);
}

static int i2c_write(struct bridge *b, uint8_t addr, const uint8_t *d,
		     uint16_t n)
{
	uint8_t buf[64];

	memcpy(buf, d, n);
	return ctrl(b, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE, addr, 0, n, buf);
}

static struct isocam_bridge_status get_status(struct bridge *b)
{
	struct isocam_bridge_status st;

	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, 0,
			      sizeof(st), (uint8_t *)&st), 16);
	return st;
}

static void test_device_descriptor(void **state)
{
	struct bridge *b = mk(IC1280_CHIP_ID, NULL, false);
	uint8_t d[64];

	(void)state;
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 64, d), 18);
	assert_int_equal(d[1], USB_DT_DEVICE);
	assert_int_equal(d[2] | d[3] << 8, 0x0200);
	assert_int_equal(d[7], 64);
	assert_int_equal(d[8] | d[9] << 8, ISOCAM_USB_VID);
	assert_int_equal(d[10] | d[11] << 8, ISOCAM_USB_PID);
	assert_int_equal(d[12] | d[13] << 8, ISOCAM_USB_BCD_DEVICE);
	assert_int_equal(d[17], 1);
	/* a short read, as the host's first 8-byte GET_DESCRIPTOR */
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 8, d), 8);
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE_QUALIFIER << 8, 0, 10, d), 10);
	assert_int_equal(d[1], USB_DT_DEVICE_QUALIFIER);
	/* no BOS on a 2.00 device */
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_BOS << 8, 0, 5, d), BRIDGE_STALL);
	bridge_free(b);
}

static void test_config_descriptor(void **state)
{
	static const uint16_t wmaxp[ISOCAM_USB_NUM_ALTS] =
		ISOCAM_USB_ALT_WMAXP_INIT;
	struct bridge *b = mk(IC1280_CHIP_ID, NULL, false);
	uint8_t d[512];
	int n, pos, alts = 0, eps = 0, cur_alt = -1;

	(void)state;
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_CONFIG << 8, 0, 9, d), 9);
	n = d[2] | d[3] << 8;
	assert_int_equal(n, 9 + 8 * 9 + 7 * 7);
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_CONFIG << 8, 0, sizeof(d), d), n);
	assert_int_equal(d[4], 1);
	assert_int_equal(d[5], ISOCAM_USB_CONFIG_VALUE);
	assert_int_equal(d[8], ISOCAM_USB_MAX_POWER_MA / 2);
	for (pos = 9; pos < n; pos += d[pos]) {
		assert_true(d[pos] >= 2);
		if (d[pos + 1] == USB_DT_INTERFACE) {
			cur_alt = d[pos + 3];
			assert_int_equal(cur_alt, alts);
			assert_int_equal(d[pos + 2], ISOCAM_USB_IFACE_NUM);
			assert_int_equal(d[pos + 4], cur_alt ? 1 : 0);
			assert_int_equal(d[pos + 5], ISOCAM_USB_IFACE_CLASS);
			alts++;
		} else {
			assert_int_equal(d[pos + 1], USB_DT_ENDPOINT);
			assert_true(cur_alt > 0);
			assert_int_equal(d[pos + 2], ISOCAM_USB_ISO_EP_ADDR);
			assert_int_equal(d[pos + 3] & 3, USB_ENDPOINT_XFER_ISOC);
			assert_int_equal(d[pos + 4] | d[pos + 5] << 8,
					 wmaxp[cur_alt]);
			assert_int_equal(d[pos + 6], ISOCAM_USB_ISO_EP_INTERVAL);
			eps++;
		}
	}
	assert_int_equal(pos, n);
	assert_int_equal(alts, ISOCAM_USB_NUM_ALTS);
	assert_int_equal(eps, ISOCAM_USB_NUM_ALTS - 1);
	assert_int_equal(usb_alt_packet_bytes(7), 3 * 1024);
	assert_int_equal(usb_alt_packet_bytes(0), 0);
	bridge_free(b);
}

/*
 * --transport=bulk: alt 0 alone, with one bulk IN endpoint of the
 * contract's address and packet size; no iso alt to select, and the
 * endpoint exists (halt, status) while configured.
 */
static void test_bulk_descriptors(void **state)
{
	struct bridge_config cfg = {
		.name = "cam0", .serial = "ISOCAM0001",
		.chip_id = IC1280_CHIP_ID, .transport = USB_TRANSPORT_BULK,
	};
	struct bridge *b = bridge_new(&cfg);
	uint8_t d[512];
	int n;

	(void)state;
	assert_non_null(b);
	assert_int_equal(bridge_transport(b), USB_TRANSPORT_BULK);
	n = ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0,
		 sizeof(d), d);
	assert_int_equal(n, 9 + 9 + 7);
	assert_int_equal(d[2] | d[3] << 8, n);	/* wTotalLength */
	assert_int_equal(d[4], 1);
	/* the interface: alt 0, one endpoint */
	assert_int_equal(d[9], USB_DESC_IFACE_LEN);
	assert_int_equal(d[10], USB_DT_INTERFACE);
	assert_int_equal(d[11], ISOCAM_USB_IFACE_NUM);
	assert_int_equal(d[12], 0);
	assert_int_equal(d[13], 1);
	assert_int_equal(d[14], ISOCAM_USB_IFACE_CLASS);
	/* the endpoint: bulk IN, 512 bytes */
	assert_int_equal(d[18], USB_DESC_EP_LEN);
	assert_int_equal(d[19], USB_DT_ENDPOINT);
	assert_int_equal(d[20], ISOCAM_USB_BULK_EP_ADDR);
	assert_int_equal(d[20], 0x81);
	assert_int_equal(d[21] & USB_ENDPOINT_XFERTYPE_MASK,
			 USB_ENDPOINT_XFER_BULK);
	assert_int_equal(d[22] | d[23] << 8, ISOCAM_USB_BULK_MAXP);
	assert_int_equal(ISOCAM_USB_BULK_MAXP, 512);

	/* the endpoint exists only once configured */
	assert_int_equal(bridge_bulk_payload_max(b), 0);
	assert_int_equal(ctrl(b, USB_DIR_IN | USB_RECIP_ENDPOINT,
			      USB_REQ_GET_STATUS, 0, 0x81, 2, d), BRIDGE_STALL);
	assert_int_equal(ctrl(b, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, d), 0);
	assert_int_equal(bridge_bulk_payload_max(b), ISOCAM_USB_BULK_MAX_PAYLOAD);
	assert_int_equal(bridge_packet_bytes(b), 0);	/* no iso alt */
	/* alt 0 is the only one */
	assert_int_equal(ctrl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      1, 0, 0, d), BRIDGE_STALL);
	assert_int_equal(ctrl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      0, 0, 0, d), 0);
	assert_int_equal(bridge_bulk_payload_max(b), ISOCAM_USB_BULK_MAX_PAYLOAD);
	/* halt and status at alt 0 */
	assert_int_equal(ctrl(b, USB_RECIP_ENDPOINT, USB_REQ_SET_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, d), 0);
	assert_true(bridge_ep_halted(b));
	assert_int_equal(ctrl(b, USB_DIR_IN | USB_RECIP_ENDPOINT,
			      USB_REQ_GET_STATUS, 0, 0x81, 2, d), 2);
	assert_int_equal(d[0], 1);
	assert_int_equal(ctrl(b, USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, d), 0);
	assert_false(bridge_ep_halted(b));
	/* deconfigured: gone again */
	assert_int_equal(ctrl(b, 0, USB_REQ_SET_CONFIGURATION, 0, 0, 0, d), 0);
	assert_int_equal(bridge_bulk_payload_max(b), 0);
	bridge_free(b);

	/* and the default is iso, as before */
	b = mk(IC1280_CHIP_ID, NULL, false);
	assert_int_equal(bridge_transport(b), USB_TRANSPORT_ISO);
	assert_int_equal(ctrl(b, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, d), 0);
	assert_int_equal(bridge_bulk_payload_max(b), 0);
	bridge_free(b);
}

static void test_strings(void **state)
{
	struct bridge *b = mk(IC1280_CHIP_ID, NULL, false);
	uint8_t d[255];
	const char *want = ISOCAM_USB_PRODUCT;
	size_t i;
	int n;

	(void)state;
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_STRING << 8, 0, 255, d), 4);
	assert_int_equal(d[2] | d[3] << 8, 0x0409);
	n = ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
		 USB_DT_STRING << 8 | USB_STR_PRODUCT, 0x0409, 255, d);
	assert_int_equal(n, 2 + 2 * (int)strlen(want));
	for (i = 0; i < strlen(want); i++)
		assert_int_equal(d[2 + 2 * i], want[i]);
	n = ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
		 USB_DT_STRING << 8 | USB_STR_SERIAL, 0x0409, 255, d);
	assert_int_equal(n, 2 + 2 * 10);
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_STRING << 8 | 9, 0x0409, 255, d),
			 BRIDGE_STALL);
	bridge_free(b);
}

static void test_config_and_alts(void **state)
{
	struct bridge *b = mk(IC1280_CHIP_ID, NULL, false);
	uint8_t d[4];

	(void)state;
	/* interface requests need a configuration */
	assert_int_equal(ctrl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      1, 0, 0, d), BRIDGE_STALL);
	assert_int_equal(ctrl(b, 0, USB_REQ_SET_CONFIGURATION, 2, 0, 0, d),
			 BRIDGE_STALL);
	assert_int_equal(ctrl(b, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, d), 0);
	assert_true(bridge_configured(b));
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_CONFIGURATION, 0, 0,
			      1, d), 1);
	assert_int_equal(d[0], 1);
	assert_int_equal(ctrl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      7, 0, 0, d), 0);
	assert_int_equal(bridge_alt(b), 7);
	assert_int_equal(bridge_packet_bytes(b), 3072);
	assert_int_equal(ctrl(b, USB_DIR_IN | USB_RECIP_INTERFACE,
			      USB_REQ_GET_INTERFACE, 0, 0, 1, d), 1);
	assert_int_equal(d[0], 7);
	assert_int_equal(ctrl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      8, 0, 0, d), BRIDGE_STALL);
	assert_int_equal(ctrl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      1, 1, 0, d), BRIDGE_STALL);	/* no iface 1 */
	/* endpoint halt and status */
	assert_int_equal(ctrl(b, USB_RECIP_ENDPOINT, USB_REQ_SET_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, d), 0);
	assert_int_equal(ctrl(b, USB_DIR_IN | USB_RECIP_ENDPOINT,
			      USB_REQ_GET_STATUS, 0, 0x81, 2, d), 2);
	assert_int_equal(d[0], 1);
	assert_int_equal(ctrl(b, USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, d), 0);
	assert_int_equal(ctrl(b, USB_DIR_IN | USB_RECIP_ENDPOINT,
			      USB_REQ_GET_STATUS, 0, 0x81, 2, d), 2);
	assert_int_equal(d[0], 0);
	assert_int_equal(ctrl(b, USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			      USB_ENDPOINT_HALT, 0x82, 0, d), BRIDGE_STALL);
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_STATUS, 0, 0, 2, d), 2);
	/* alt 0 has no endpoint */
	assert_int_equal(ctrl(b, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			      0, 0, 0, d), 0);
	assert_int_equal(bridge_packet_bytes(b), 0);
	assert_int_equal(ctrl(b, USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			      USB_ENDPOINT_HALT, 0x81, 0, d), BRIDGE_STALL);
	/* class requests are not ours */
	assert_int_equal(ctrl(b, USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
			      1, 0, 0, 2, d), BRIDGE_STALL);
	bridge_free(b);
}

static uint16_t read_chip_id(struct bridge *b)
{
	static const uint8_t ptr[2] = { 0x00, 0x00 };
	uint8_t id[2];

	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, ptr, 2), 2);
	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_I2C_READ,
			      IC1280_I2C_ADDR, 0, 2, id), 2);
	return (uint16_t)(id[0] << 8 | id[1]);
}

static void test_i2c(void **state)
{
	struct bridge *b = mk(IC1280_CHIP_ID, NULL, false);
	static const uint8_t bright[3] = { 0x50, 0x00, 0x20 };
	struct isocam_bridge_status st;
	uint8_t d[65];

	(void)state;
	assert_int_equal(read_chip_id(b), IC1280_CHIP_ID);
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, bright, 3), 3);
	assert_int_equal(ic1280_reg_get(bridge_sensor(b), IC1280_REG_BRIGHTNESS),
			 0x20);
	/* probe: a zero-length write */
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, bright, 0), 0);
	st = get_status(b);
	assert_int_equal(st.fw_major, ISOCAM_BRIDGE_FW_MAJOR);
	assert_int_equal(st.fw_minor, ISOCAM_BRIDGE_FW_MINOR);
	assert_int_equal(st.last_i2c_result, ISOCAM_I2C_OK);
	assert_int_equal(st.i2c_transfers, 4);	/* little endian on x86 */

	/* nobody at 0x50: STALL, and GET_STATUS says why */
	assert_int_equal(i2c_write(b, 0x50, bright, 3), BRIDGE_STALL);
	assert_int_equal(get_status(b).last_i2c_result, ISOCAM_I2C_NAK_ADDR);
	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_I2C_READ, 0x50, 0, 1, d),
			 BRIDGE_STALL);
	/* the sensor NAKs a lone address byte */
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, bright, 1), BRIDGE_STALL);
	assert_int_equal(get_status(b).last_i2c_result, ISOCAM_I2C_NAK_DATA);
	/* malformed: too long, 10-bit address, zero-length read */
	memset(d, 0, sizeof(d));
	assert_int_equal(ctrl(b, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE,
			      IC1280_I2C_ADDR, 0, 65, d), BRIDGE_STALL);
	assert_int_equal(get_status(b).last_i2c_result, ISOCAM_I2C_BAD_REQUEST);
	assert_int_equal(ctrl(b, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE, 0x13c, 0, 0,
			      d), BRIDGE_STALL);
	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_I2C_READ,
			      IC1280_I2C_ADDR, 0, 0, d), BRIDGE_STALL);
	/* wrong recipient or wIndex */
	assert_int_equal(ctrl(b, USB_DIR_IN | USB_TYPE_VENDOR,
			      ISOCAM_REQ_GET_STATUS, 0, 0, 16, d), BRIDGE_STALL);
	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_GET_STATUS, 0, 1, 16, d),
			 BRIDGE_STALL);
	assert_int_equal(ctrl(b, VENDOR_IN, 0x77, 0, 0, 1, d), BRIDGE_STALL);
	/* still working afterwards */
	assert_int_equal(read_chip_id(b), IC1280_CHIP_ID);
	assert_int_equal(get_status(b).last_i2c_result, ISOCAM_I2C_OK);
	bridge_free(b);
}

static int breg(struct bridge *b, bool in, uint16_t reg, uint8_t *v)
{
	return ctrl(b, in ? VENDOR_IN : VENDOR_OUT,
		    in ? ISOCAM_REQ_BRIDGE_READ : ISOCAM_REQ_BRIDGE_WRITE,
		    reg, 0, 1, v);
}

/* Caps, codec and JPEG quality: read back as written, anything else STALLs. */
static void test_bridge_registers(void **state)
{
	struct bridge *b = mk(IC1280_CHIP_ID, NULL, false);
	uint8_t v;

	(void)state;
	assert_int_equal(breg(b, true, ISOCAM_BREG_CAPS, &v), 1);
	assert_int_equal(v, ISOCAM_BCAP_JPEG);
	assert_int_equal(breg(b, true, ISOCAM_BREG_CODEC, &v), 1);
	assert_int_equal(v, ISOCAM_CODEC_RAW);
	assert_int_equal(breg(b, true, ISOCAM_BREG_JPEG_QUALITY, &v), 1);
	assert_int_equal(v, ISOCAM_JPEG_QUALITY_DEFAULT);

	v = ISOCAM_CODEC_JPEG;
	assert_int_equal(breg(b, false, ISOCAM_BREG_CODEC, &v), 1);
	v = 40;
	assert_int_equal(breg(b, false, ISOCAM_BREG_JPEG_QUALITY, &v), 1);
	assert_int_equal(breg(b, true, ISOCAM_BREG_CODEC, &v), 1);
	assert_int_equal(v, ISOCAM_CODEC_JPEG);
	assert_int_equal(breg(b, true, ISOCAM_BREG_JPEG_QUALITY, &v), 1);
	assert_int_equal(v, 40);

	/* Out of range, read only, unknown: STALL, nothing changes. */
	v = 2;
	assert_int_equal(breg(b, false, ISOCAM_BREG_CODEC, &v), BRIDGE_STALL);
	v = 0;
	assert_int_equal(breg(b, false, ISOCAM_BREG_JPEG_QUALITY, &v),
			 BRIDGE_STALL);
	v = 101;
	assert_int_equal(breg(b, false, ISOCAM_BREG_JPEG_QUALITY, &v),
			 BRIDGE_STALL);
	v = 0;
	assert_int_equal(breg(b, false, ISOCAM_BREG_CAPS, &v), BRIDGE_STALL);
	assert_int_equal(breg(b, true, 0x03, &v), BRIDGE_STALL);
	assert_int_equal(breg(b, false, 0x1ff, &v), BRIDGE_STALL);
	assert_int_equal(breg(b, true, ISOCAM_BREG_JPEG_QUALITY, &v), 1);
	assert_int_equal(v, 40);
	/* Wrong direction or length. */
	assert_int_equal(ctrl(b, VENDOR_OUT, ISOCAM_REQ_BRIDGE_READ,
			      ISOCAM_BREG_CODEC, 0, 1, &v), BRIDGE_STALL);
	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_BRIDGE_WRITE,
			      ISOCAM_BREG_CODEC, 0, 1, &v), BRIDGE_STALL);
	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_BRIDGE_READ,
			      ISOCAM_BREG_CODEC, 0, 0, &v), BRIDGE_STALL);
	assert_int_equal(ctrl(b, VENDOR_IN, ISOCAM_REQ_BRIDGE_READ,
			      ISOCAM_BREG_CODEC, 0, 2, &v), BRIDGE_STALL);
	bridge_free(b);
}

static void test_fake_chip_id(void **state)
{
	struct bridge *b = mk(0xbeef, NULL, false);

	(void)state;
	assert_int_equal(read_chip_id(b), 0xbeef);
	bridge_free(b);
}

static void test_faults(void **state)
{
	char err[128];
	struct fault *f = fault_new("stall=after:1,nak=after:2", 1, err,
				    sizeof(err));
	struct bridge *b = mk(IC1280_CHIP_ID, f, false);
	static const uint8_t ptr[2] = { 0, 0 };
	uint8_t d[18];

	(void)state;
	/* stall opportunities: every vendor request; the 2nd stalls */
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, ptr, 2), 2);
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, ptr, 2), BRIDGE_STALL);
	/* standard requests are unaffected */
	assert_int_equal(ctrl(b, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			      USB_DT_DEVICE << 8, 0, 18, d), 18);
	/* nak opportunities: i2c transfers; the 3rd is NAKed */
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, ptr, 2), 2);
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, ptr, 2), BRIDGE_STALL);
	assert_int_equal(get_status(b).last_i2c_result, ISOCAM_I2C_NAK_DATA);
	assert_int_equal(read_chip_id(b), IC1280_CHIP_ID);
	bridge_free(b);
	fault_free(f);
}

static void test_verbose_log(void **state)
{
	struct bridge *b = mk(IC1280_CHIP_ID, NULL, true);
	static const uint8_t w[4] = { 0x50, 0x00, 0x20, 0x81 };
	char buf[4096];
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	(void)state;
	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	assert_int_equal(i2c_write(b, IC1280_I2C_ADDR, w, 4), 4);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
	assert_non_null(strstr(buf, "cam0: i2c 0x3c write reg 0x5000 = 0x20"));
	assert_non_null(strstr(buf, "cam0: i2c 0x3c write reg 0x5001 = 0x81"));
	bridge_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_descriptor),
		cmocka_unit_test(test_config_descriptor),
		cmocka_unit_test(test_bulk_descriptors),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_config_and_alts),
		cmocka_unit_test(test_i2c),
		cmocka_unit_test(test_bridge_registers),
		cmocka_unit_test(test_fake_chip_id),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_verbose_log),
	};

	return cmocka_run_group_tests_name("emu_bridge", tests, NULL, NULL);
}
