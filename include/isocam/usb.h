/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * isocam USB contract: IDs, interface layout and the bridge's vendor
 * control requests. Shared verbatim by isocam.ko and isocam-emu.
 *
 * Only <linux/types.h> types are used so the header compiles in the
 * kernel, in userspace and in host tests alike.
 */
#ifndef ISOCAM_USB_H
#define ISOCAM_USB_H

#include <linux/types.h>

#include <isocam/payload.h>

/*
 * pid.codes (0x1209) reserves PIDs 0x0001..0x0010 for testing; isocam is
 * an emulated test device, so it takes one of them. Never ship hardware
 * with these IDs.
 */
#define ISOCAM_USB_VID			0x1209
#define ISOCAM_USB_PID			0x0007
#define ISOCAM_USB_BCD_DEVICE		0x0100

#define ISOCAM_USB_MANUFACTURER		"isocam project"
#define ISOCAM_USB_PRODUCT		"isocam IC1280 USB camera"

/* One configuration, one vendor-specific video interface. */
#define ISOCAM_USB_CONFIG_VALUE		1
#define ISOCAM_USB_MAX_POWER_MA		200
#define ISOCAM_USB_IFACE_NUM		0
#define ISOCAM_USB_IFACE_CLASS		0xff	/* vendor specific */
#define ISOCAM_USB_IFACE_SUBCLASS	0x01	/* isocam video */
#define ISOCAM_USB_IFACE_PROTOCOL	0x01

/*
 * Alt 0 has no endpoint (zero bandwidth). Alt 1..N each carry one
 * isochronous IN endpoint, bInterval 1 (every microframe, high speed),
 * with growing wMaxPacketSize. The encoded value uses bits 12:11 for the
 * additional transactions per microframe (USB 2.0 high bandwidth).
 */
#define ISOCAM_USB_ISO_EP_ADDR		0x81
#define ISOCAM_USB_ISO_EP_INTERVAL	1
#define ISOCAM_USB_NUM_ALTS		8	/* including alt 0 */

#define ISOCAM_USB_MAXP(mult, size)	((((mult) - 1) << 11) | (size))
#define ISOCAM_USB_MAXP_SIZE(wmaxp)	((wmaxp) & 0x7ff)
#define ISOCAM_USB_MAXP_MULT(wmaxp)	((((wmaxp) >> 11) & 0x3) + 1)

/* Bytes per microframe an encoded wMaxPacketSize allows. */
static inline unsigned int isocam_usb_maxp_bytes(unsigned int wmaxp)
{
	return ISOCAM_USB_MAXP_SIZE(wmaxp) * ISOCAM_USB_MAXP_MULT(wmaxp);
}

#define ISOCAM_USB_MAXP_BYTES(wmaxp)	isocam_usb_maxp_bytes(wmaxp)

/*
 * Encoded wMaxPacketSize of alt 0..7 (alt 0 is a placeholder: no
 * endpoint). The driver must read the real descriptors; this table is
 * what the emulator advertises.
 */
#define ISOCAM_USB_ALT_WMAXP_INIT {			\
	0,						\
	ISOCAM_USB_MAXP(1, 128),			\
	ISOCAM_USB_MAXP(1, 256),			\
	ISOCAM_USB_MAXP(1, 512),			\
	ISOCAM_USB_MAXP(1, 768),			\
	ISOCAM_USB_MAXP(1, 1024),			\
	ISOCAM_USB_MAXP(2, 1024),			\
	ISOCAM_USB_MAXP(3, 1024),			\
}

/* High speed: 8000 microframes per second. */
#define ISOCAM_USB_MICROFRAMES_PER_SEC	8000

/*
 * Bulk transport personality (isocam-emu --transport=bulk), as UVC bulk
 * cameras do it. The video interface then has alt 0 only, carrying one
 * bulk IN endpoint (ISOCAM_USB_BULK_EP_ADDR, wMaxPacketSize
 * ISOCAM_USB_BULK_MAXP, high speed); SET_INTERFACE(0) is the only alt
 * change and the endpoint exists whenever the device is configured.
 *
 * Each completed bulk IN transfer (URB) carries ONE payload transfer: the
 * payload header of <isocam/payload.h> (always ISOCAM_PH_LEN_FULL bytes,
 * PTS and SCR present) followed by frame data. Its length is at most
 * min(transfer_buffer_length, ISOCAM_USB_BULK_MAX_PAYLOAD). A frame is a
 * run of payload transfers with one FID; every transfer but the frame's
 * last is as long as the URB allows, the last has EOF set and may be
 * shorter. A frame never shares a transfer with the next one. PTS is the
 * frame's start of exposure (the same in all its transfers), SCR the send
 * time, both in the 1 MHz sensor clock, as for iso.
 *
 * A payload transfer whose length is a multiple of wMaxPacketSize would
 * end with a zero-length packet on a real bus; the host must take the
 * URB's actual_length as the transfer's end and not wait for a ZLP.
 * The device never completes a bulk URB empty: while no frame data is
 * buffered (sensor in standby, or between frames) URBs stay queued.
 * The host should submit URBs of ISOCAM_USB_BULK_MAX_PAYLOAD bytes;
 * shorter ones (down to ISOCAM_USB_BULK_MIN_URB) work, each transfer
 * then carrying less, and the device refuses smaller ones.
 *
 * A stream stops (the frame in progress is discarded, never ended with
 * EOF) when the sensor leaves streaming mode, at SET_INTERFACE(0) and at
 * CLEAR_FEATURE(ENDPOINT_HALT) on the bulk endpoint (what UVC hosts send
 * at stream off); it restarts with the next frame captured, FID 0.
 */
#define ISOCAM_USB_BULK_EP_ADDR		ISOCAM_USB_ISO_EP_ADDR	/* 0x81 */
#define ISOCAM_USB_BULK_MAXP		512
/* the same endpoint at full speed (a gadget on a full-speed UDC) */
#define ISOCAM_USB_BULK_MAXP_FS		64
#define ISOCAM_USB_BULK_MAX_PAYLOAD	65536	/* header included */
/* the smallest URB that carries a header and one byte of data */
#define ISOCAM_USB_BULK_MIN_URB		(ISOCAM_PH_LEN_FULL + 1)

/*
 * Vendor control requests. All use bmRequestType
 * USB_TYPE_VENDOR | USB_RECIP_INTERFACE, wIndex = ISOCAM_USB_IFACE_NUM.
 *
 * I2C_WRITE (OUT): wValue = 7-bit i2c address, data = bytes to write
 *   (0 bytes is an address probe, as i2cdetect's quick write).
 * I2C_READ (IN): wValue = 7-bit i2c address, wLength = bytes to read.
 *   The sensor keeps a register pointer set by the first two bytes of a
 *   write, so a register read is I2C_WRITE(addr16) then I2C_READ(n).
 * Both STALL the control pipe when the transfer fails on the i2c bus;
 * GET_STATUS then tells why (last_i2c_result).
 * GET_STATUS (IN): wValue = 0, returns struct isocam_bridge_status.
 * BRIDGE_READ (IN): wValue = bridge register, wLength = 1: its value.
 * BRIDGE_WRITE (OUT): wValue = bridge register, 1 data byte. Both STALL
 *   for an unknown register, a read-only one written or a value out of
 *   range. Firmware 1.0 has neither (it STALLs them): no JPEG encoder.
 */
#define ISOCAM_REQ_I2C_WRITE		0x01
#define ISOCAM_REQ_I2C_READ		0x02
#define ISOCAM_REQ_GET_STATUS		0x03
#define ISOCAM_REQ_BRIDGE_READ		0x04
#define ISOCAM_REQ_BRIDGE_WRITE		0x05

/*
 * Bridge registers. CODEC and JPEG_QUALITY take effect from the next frame
 * captured. The JPEG encoder takes the sensor's YUYV: with another sensor
 * format it sends error frames (ERR set, no payload). A JPEG frame is
 * baseline JFIF, YCbCr 4:2:2, whole, in the usual FID/EOF framing, never
 * longer than ISOCAM_JPEG_MAX_FRAME(): an encoding that would be goes out
 * as an error frame.
 */
#define ISOCAM_BREG_CAPS		0x00	/* read only */
#define ISOCAM_BCAP_JPEG		0x01	/* has the JPEG encoder */
#define ISOCAM_BREG_CODEC		0x01
#define ISOCAM_CODEC_RAW		0x00	/* the sensor's frames as they are */
#define ISOCAM_CODEC_JPEG		0x01	/* its YUYV, JPEG-encoded */
#define ISOCAM_BREG_JPEG_QUALITY	0x02
#define ISOCAM_JPEG_QUALITY_MIN		1
#define ISOCAM_JPEG_QUALITY_MAX		100
#define ISOCAM_JPEG_QUALITY_DEFAULT	85

/* The largest JPEG frame at w x h: the buffer a host must provide. */
#define ISOCAM_JPEG_MAX_FRAME(w, h)	((w) * (h) / 4 + 32768)

#define ISOCAM_I2C_MAX_XFER		64	/* bytes per request */
#define ISOCAM_I2C_ADDR_MASK		0x7f

/* last_i2c_result */
#define ISOCAM_I2C_OK			0x00
#define ISOCAM_I2C_NAK_ADDR		0x01	/* nobody at that address */
#define ISOCAM_I2C_NAK_DATA		0x02	/* device refused a byte */
#define ISOCAM_I2C_TIMEOUT		0x03	/* clock stretched too long */
#define ISOCAM_I2C_BAD_REQUEST		0x04	/* malformed vendor request */

#define ISOCAM_BRIDGE_FW_MAJOR		1
#define ISOCAM_BRIDGE_FW_MINOR		1	/* 1.1: bridge registers */

/*
 * Reply to ISOCAM_REQ_GET_STATUS, little endian, 16 bytes. Every field is
 * naturally aligned, so the layout has no padding without packing.
 */
struct isocam_bridge_status {
	__u8 fw_major;
	__u8 fw_minor;
	__u8 last_i2c_result;
	__u8 alt_setting;	/* currently selected alt of the video iface */
	__le32 frames_sent;	/* complete frames sent since power-up */
	__le32 i2c_transfers;	/* i2c requests handled since power-up */
	__le32 reserved;
};

#define ISOCAM_BRIDGE_STATUS_LEN	16

#endif /* ISOCAM_USB_H */
