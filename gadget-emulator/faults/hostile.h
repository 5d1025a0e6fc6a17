/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Hostile device behaviours (--hostile=NAME[,NAME...]): a camera that
 * lies in a fixed way, every time, so the driver can be hardened against
 * each lie on its own. Unlike fault.h (rare, rate-driven slips) a
 * hostile mode applies to every opportunity once it is active.
 *
 * Arming: active from start, or dormant until hostile_arm() (SIGUSR2 in
 * isocam-emu), so a host can enumerate and stream normally first.
 * Descriptor modes are read only at enumeration, so they apply from
 * start either way.
 *
 * One instance per emulated camera. Its modes never change after
 * hostile_new(); the armed flag is atomic, so session threads and the
 * signal-handling thread need no lock for hostile_on(). The i2c-garbage
 * generator is the one mutable part: callers hold the camera lock (the
 * bridge is always called under it).
 */
#ifndef ISOCAM_EMU_HOSTILE_H
#define ISOCAM_EMU_HOSTILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum hostile_mode {
	/* isochronous replies (RET_SUBMIT of iso IN URBs) */
	HOSTILE_ISO_OFFSET_WILD,
	HOSTILE_ISO_ACTUAL_OVER,
	HOSTILE_ISO_LEN_OVER,
	HOSTILE_ISO_NP_ZERO,
	HOSTILE_ISO_NP_MORE,
	HOSTILE_ISO_PKT_STATUS,
	HOSTILE_ISO_URB_STATUS,
	HOSTILE_ISO_LATE,
	HOSTILE_ISO_NEVER,
	HOSTILE_UNLINK_NEVER,
	/* bulk replies (RET_SUBMIT of bulk IN URBs, --transport=bulk) */
	HOSTILE_BULK_URB_STATUS,
	/* payload headers */
	HOSTILE_PH_LEN0,
	HOSTILE_PH_LEN1,
	HOSTILE_PH_LEN_OVER,
	HOSTILE_FID_STUCK,
	HOSTILE_FID_FLIP,
	HOSTILE_EOF_NEVER,
	HOSTILE_EOF_ALWAYS,
	HOSTILE_FRAME_10X,
	HOSTILE_PH_ERR,
	/* descriptors */
	HOSTILE_DESC_NO_ISO,
	HOSTILE_DESC_MAXP_ZERO,
	HOSTILE_DESC_MAXP_HUGE,
	HOSTILE_DESC_BULK,
	HOSTILE_DESC_OUT,
	HOSTILE_DESC_NO_ALT0,
	HOSTILE_DESC_TRUNCATED,
	HOSTILE_DESC_100_ALTS,
	HOSTILE_DESC_DUP_ALTS,
	/* control requests */
	HOSTILE_CTRL_STALL,
	HOSTILE_CTRL_SHORT,
	HOSTILE_CTRL_LONG,
	HOSTILE_CTRL_NEVER,
	HOSTILE_CTRL_NEVER_UNLINK,
	HOSTILE_STD_NEVER,
	HOSTILE_STD_NEVER_UNLINK,
	HOSTILE_VENDOR_WEDGE,
	HOSTILE_I2C_NAK_STREAM,
	HOSTILE_I2C_GARBAGE,
	HOSTILE_MODE_COUNT
};

enum hostile_group {
	HOSTILE_GROUP_ISO,
	HOSTILE_GROUP_BULK,
	HOSTILE_GROUP_PAYLOAD,
	HOSTILE_GROUP_DESC,
	HOSTILE_GROUP_CTRL,
};

/* The lies' values, where a mode needs one. */
#define HOSTILE_ISO_WILD_OFFSET		0x7fff0000u	/* + packet index */
#define HOSTILE_ISO_ACTUAL_EXTRA	4096u
/* one transaction more than a high-bandwidth endpoint's 3 x 1024 */
#define HOSTILE_ISO_LEN_OVER_LEN	(4u * 1024u)
#define HOSTILE_ISO_EXTRA_PACKETS	8u	/* iso-np-more */
#define HOSTILE_ISO_LATE_NS		2000000000ull
#define HOSTILE_NEVER_NS		UINT64_MAX
#define HOSTILE_FRAME_FACTOR		10u
#define HOSTILE_PH_LEN_OVER_LEN		0xffu
#define HOSTILE_DESC_ALTS		100u	/* desc-100-alts: alts 0..99 */
#define HOSTILE_DESC_TRUNCATE		4u	/* bytes cut off the config */
#define HOSTILE_CTRL_LONG_EXTRA		16u	/* ctrl-long: past wLength */
#define HOSTILE_HELD_MAX		1024u	/* unanswered control URBs */

struct hostile;

/*
 * Parse NAME[,NAME...] (empty items are skipped; "" and NULL give no
 * modes). armed: active from start (else dormant until hostile_arm()).
 * seed drives i2c-garbage. NULL and a message listing every valid name
 * in err on an unknown name.
 */
struct hostile *hostile_new(const char *spec, bool armed, unsigned int seed,
			    char *err, size_t errlen);
void hostile_free(struct hostile *h);

/* Mode m is asked for and active now. h may be NULL (never). */
bool hostile_on(const struct hostile *h, enum hostile_mode m);
/* Any mode asked for at all. */
bool hostile_any(const struct hostile *h);
/* Any descriptor mode asked for (active whether armed or not). */
bool hostile_any_desc(const struct hostile *h);
/* The first mode of group g asked for, or HOSTILE_MODE_COUNT. */
enum hostile_mode hostile_first_of(const struct hostile *h,
				   enum hostile_group g);
bool hostile_armed(const struct hostile *h);
/* Arm a dormant instance; true only for the call that armed it. */
bool hostile_arm(struct hostile *h);
/*
 * vendor-wedge: the firmware hangs (vendor requests go unanswered) from
 * arming until the host resets the device, which the bridge sees as the
 * SET_CONFIGURATION that restores its configuration after the reset
 * (hostile_note_configured()). h may be NULL (never wedged).
 */
bool hostile_wedged(const struct hostile *h);
void hostile_note_configured(struct hostile *h);
/* The modes asked for, comma-separated, for log lines. */
const char *hostile_list(const struct hostile *h);
/*
 * A camera's startup line on what it will lie about, and from when
 * ("hostile LIST active", or dormant until SIGUSR2), into buf; false
 * when no mode is set.
 */
bool hostile_describe(const struct hostile *h, char *buf, size_t len);

const char *hostile_mode_name(enum hostile_mode m);
enum hostile_group hostile_mode_group(enum hostile_mode m);
/* --help: every mode, one line each, grouped, indented by indent. */
void hostile_usage(FILE *f, int indent);

/* --- payload headers (video_stream.c) --- */

/* Payload bytes a frame of sizeimage bytes carries. */
size_t hostile_frame_len(const struct hostile *h, size_t sizeimage);
/*
 * Rewrite one packet with data (header at pkt[0], len bytes); nth counts
 * the stream's data packets. Returns the packet's new length (<= len).
 * Only the payload header (its first ISOCAM_PH_LEN_FULL bytes) is read
 * or written: the data may be elsewhere, sent straight from the frame.
 */
size_t hostile_payload(const struct hostile *h, uint8_t *pkt, size_t len,
		       uint64_t nth);

/* --- control requests (bridge.c) --- */

/*
 * A vendor request's reply of ret bytes (or a negative STALL, passed
 * through) in data, which has room for len bytes: the length to send.
 */
int hostile_ctrl_reply(const struct hostile *h, uint8_t bmRequestType,
		       uint16_t wLength, uint8_t *data, size_t len, int ret);
/* An i2c write of len bytes to addr is NAKed (i2c-nak-stream). */
bool hostile_i2c_nak(const struct hostile *h, uint16_t addr,
		     const uint8_t *buf, size_t len);
/* An i2c read of len bytes just succeeded into buf (i2c-garbage). */
void hostile_i2c_read(struct hostile *h, uint8_t *buf, size_t len);

#endif /* ISOCAM_EMU_HOSTILE_H */
