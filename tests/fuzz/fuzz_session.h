/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The input language of fuzz_session, shared with the program that
 * writes its seeds (gen_session_corpus.c). An input is one config byte,
 * then records until the input ends; a record is an op byte (taken
 * modulo FZ_NUM_OPS) and the fields listed with it. A field cut off by
 * the end of the input reads as zeros, so every input is valid.
 * u16 fields are little endian.
 */
#ifndef ISOCAM_FUZZ_SESSION_H
#define ISOCAM_FUZZ_SESSION_H

/* config byte */
#define FZ_CFG_FAULTS		0x07	/* index into the fuzzer's fault specs */
#define FZ_CFG_SMALL_QUEUE	0x08	/* 64 microframes: back-pressure soon */
#define FZ_CFG_STRICT_LATE	0x10	/* --late-tolerance 0 */
#define FZ_CFG_VERBOSE		0x20

/* flags byte of FZ_CTRL, FZ_ISO and FZ_UNLINK */
#define FZ_F_BAD_DEVID		0x01	/* not the imported camera's devid */
#define FZ_F_FLIP_DIR		0x02	/* direction against bmRequestType; iso: OUT */
#define FZ_F_BIG		0x04	/* ctrl: 70000 bytes more; iso: 16-bit sizes */
#define FZ_F_OVERSIZE		0x08	/* iso: one byte past np x 3072 */
#define FZ_F_OTHER_EP		0x10	/* iso: to ep 2, which is not iso */
#define FZ_F_WILD		0x20	/* iso: offset/length u16 pairs follow */

enum fz_op {
	FZ_RAW,		/* u8 n, n bytes sent as they are */
	FZ_DEVLIST,	/* OP_REQ_DEVLIST */
	FZ_IMPORT,	/* u8 which: 1-1, 1-2, 1-9, an unterminated bus id */
	/*
	 * u8 flags, u8 bmRequestType, u8 bRequest, u16 wValue, u16 wIndex,
	 * u16 wLength, then for OUT the data (wLength bytes)
	 */
	FZ_CTRL,
	/* u8 flags, u16 packets, u16 packet length[, FZ_F_WILD pairs] */
	FZ_ISO,
	FZ_UNLINK,	/* u8 flags, u8 back: the URB sent back+1 commands ago */
	FZ_I2C_WRITE,	/* u8 address (bit 7 clear: the sensor's), u8 n, n bytes */
	FZ_I2C_READ,	/* u8 address, u8 n */
	FZ_SET_INTERFACE,	/* u8 alt, u8 interface */
	FZ_SET_CONFIG,	/* u8 value */
	FZ_STREAM_ON,	/* u8 format, u8 size: program the sensor, alt 7 */
	FZ_SYNC,	/* wait until every URB sent so far is answered */
	FZ_NUM_OPS
};

#endif /* ISOCAM_FUZZ_SESSION_H */
