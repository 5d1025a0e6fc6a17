// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Hostile device behaviours (hostile.h): the names, the per-camera
 * state, and the helpers that decide or rewrite what goes on the wire.
 * The callers keep only a hook each; what a lie looks like is here.
 *
 * What vhci-hcd (Linux 6.1) does with the iso lies decides their shape:
 * it checks that the descriptors' actual_lengths add up to the header's
 * actual_length and that this fits the buffer (else it gives the URB back
 * with -EPROTO and detaches the device), clamps a number_of_packets above
 * the submitted one to 0, and then, unless actual_length equals
 * transfer_buffer_length, moves each packet from its packed position to
 * transfer_buffer + offset without checking either (usbip_pad_iso). A
 * lying offset or actual_length in a packed reply would make vhci itself
 * write outside the buffer before the driver ever saw the URB, so those
 * two modes send the whole buffer, each packet already at its offset:
 * vhci then moves nothing and the lie reaches the driver.
 */
#include "hostile.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <isocam/ic1280_regs.h>
#include <isocam/payload.h>
#include <linux/usb/ch9.h>

#define LIST_MAX	1024	/* every name, comma-separated */

struct hostile {
	uint64_t modes;		/* bit per mode; fixed after hostile_new() */
	atomic_bool armed;
	atomic_bool configured;	/* vendor-wedge: since arming */
	uint64_t rng;		/* i2c-garbage; under the camera lock */
	char list[LIST_MAX];
};

static const struct {
	const char *name;
	enum hostile_group group;
	const char *help;
} modes[HOSTILE_MODE_COUNT] = {
	[HOSTILE_ISO_OFFSET_WILD] = { "iso-offset-wild", HOSTILE_GROUP_ISO,
		"packet offsets 0x7fff0000+i, outside the buffer (1)" },
	[HOSTILE_ISO_ACTUAL_OVER] = { "iso-actual-over", HOSTILE_GROUP_ISO,
		"packets claim length+4096 while the buffer lasts (1)" },
	[HOSTILE_ISO_LEN_OVER] = { "iso-len-over", HOSTILE_GROUP_ISO,
		"packet length fields 4096, above the 3x1024 maximum" },
	[HOSTILE_ISO_NP_ZERO] = { "iso-np-zero", HOSTILE_GROUP_ISO,
		"number_of_packets 0: the data, no descriptors" },
	[HOSTILE_ISO_NP_MORE] = { "iso-np-more", HOSTILE_GROUP_ISO,
		"number_of_packets asked+8, 8 more descriptors (2)" },
	[HOSTILE_ISO_PKT_STATUS] = { "iso-pkt-status", HOSTILE_GROUP_ISO,
		"every packet status -EPROTO, actual_length 0, no data" },
	[HOSTILE_ISO_URB_STATUS] = { "iso-urb-status", HOSTILE_GROUP_ISO,
		"URB status -EPROTO, no data" },
	[HOSTILE_ISO_LATE] = { "iso-late", HOSTILE_GROUP_ISO,
		"every iso reply 2 s after its deadline" },
	[HOSTILE_ISO_NEVER] = { "iso-never", HOSTILE_GROUP_ISO,
		"iso URBs never answered (unlinks are)" },
	[HOSTILE_UNLINK_NEVER] = { "unlink-never", HOSTILE_GROUP_ISO,
		"CMD_UNLINK never answered, its URB never completed" },
	[HOSTILE_BULK_URB_STATUS] = { "bulk-urb-status", HOSTILE_GROUP_BULK,
		"URB status -EPROTO, no data (the frame data is used up)" },
	[HOSTILE_PH_LEN0] = { "ph-len0", HOSTILE_GROUP_PAYLOAD,
		"bHeaderLength 0" },
	[HOSTILE_PH_LEN1] = { "ph-len1", HOSTILE_GROUP_PAYLOAD,
		"1-byte packets: bHeaderLength 1 and nothing else" },
	[HOSTILE_PH_LEN_OVER] = { "ph-len-over", HOSTILE_GROUP_PAYLOAD,
		"bHeaderLength 255 in a 12-byte packet" },
	[HOSTILE_FID_STUCK] = { "fid-stuck", HOSTILE_GROUP_PAYLOAD,
		"FID never toggles (always 0)" },
	[HOSTILE_FID_FLIP] = { "fid-flip", HOSTILE_GROUP_PAYLOAD,
		"FID toggles on every packet" },
	[HOSTILE_EOF_NEVER] = { "eof-never", HOSTILE_GROUP_PAYLOAD,
		"EOF never set" },
	[HOSTILE_EOF_ALWAYS] = { "eof-always", HOSTILE_GROUP_PAYLOAD,
		"EOF on every packet" },
	[HOSTILE_FRAME_10X] = { "frame-10x", HOSTILE_GROUP_PAYLOAD,
		"each frame carries 10 x sizeimage of payload" },
	[HOSTILE_PH_ERR] = { "ph-err", HOSTILE_GROUP_PAYLOAD,
		"ERR bit on every packet" },
	[HOSTILE_DESC_NO_ISO] = { "desc-no-iso", HOSTILE_GROUP_DESC,
		"no alt has an endpoint (bNumEndpoints 0)" },
	[HOSTILE_DESC_MAXP_ZERO] = { "desc-maxp-zero", HOSTILE_GROUP_DESC,
		"wMaxPacketSize 0 on every iso endpoint" },
	[HOSTILE_DESC_MAXP_HUGE] = { "desc-maxp-huge", HOSTILE_GROUP_DESC,
		"wMaxPacketSize 0x1fff (2047 bytes, mult bits 3)" },
	[HOSTILE_DESC_BULK] = { "desc-bulk", HOSTILE_GROUP_DESC,
		"bulk endpoints instead of iso" },
	[HOSTILE_DESC_OUT] = { "desc-out", HOSTILE_GROUP_DESC,
		"OUT endpoints (0x01) instead of IN" },
	[HOSTILE_DESC_NO_ALT0] = { "desc-no-alt0", HOSTILE_GROUP_DESC,
		"no alt 0: the first interface descriptor is alt 1" },
	[HOSTILE_DESC_TRUNCATED] = { "desc-truncated", HOSTILE_GROUP_DESC,
		"4 bytes less sent than wTotalLength (mid-endpoint)" },
	[HOSTILE_DESC_100_ALTS] = { "desc-100-alts", HOSTILE_GROUP_DESC,
		"alts 0..99, all accepted (8..99 stream as alt 7)" },
	[HOSTILE_DESC_DUP_ALTS] = { "desc-dup-alts", HOSTILE_GROUP_DESC,
		"the last two interface descriptors both say alt 6" },
	[HOSTILE_CTRL_STALL] = { "ctrl-stall", HOSTILE_GROUP_CTRL,
		"every vendor request STALLs" },
	[HOSTILE_CTRL_SHORT] = { "ctrl-short", HOSTILE_GROUP_CTRL,
		"vendor IN replies carry at most wLength/2 bytes" },
	[HOSTILE_CTRL_LONG] = { "ctrl-long", HOSTILE_GROUP_CTRL,
		"vendor IN replies carry wLength+16 bytes (3)" },
	[HOSTILE_CTRL_NEVER] = { "ctrl-never", HOSTILE_GROUP_CTRL,
		"vendor requests never answered (unlinks are)" },
	[HOSTILE_CTRL_NEVER_UNLINK] = { "ctrl-never-unlink", HOSTILE_GROUP_CTRL,
		"vendor requests and their unlinks never answered" },
	[HOSTILE_STD_NEVER] = { "std-never", HOSTILE_GROUP_CTRL,
		"SET_INTERFACE, CLEAR_FEATURE unanswered (unlinks are)" },
	[HOSTILE_STD_NEVER_UNLINK] = { "std-never-unlink", HOSTILE_GROUP_CTRL,
		"SET_INTERFACE, CLEAR_FEATURE, their unlinks unanswered" },
	[HOSTILE_VENDOR_WEDGE] = { "vendor-wedge", HOSTILE_GROUP_CTRL,
		"vendor requests unanswered (unlinks are) until a reset" },
	[HOSTILE_I2C_NAK_STREAM] = { "i2c-nak-stream", HOSTILE_GROUP_CTRL,
		"the i2c write of MODE_SELECT = streaming is NAKed" },
	[HOSTILE_I2C_GARBAGE] = { "i2c-garbage", HOSTILE_GROUP_CTRL,
		"i2c reads return pseudo-random bytes (from --seed)" },
};

static const char *const group_titles[] = {
	[HOSTILE_GROUP_ISO] =
		"isochronous replies (RET_SUBMIT of iso IN URBs):",
	[HOSTILE_GROUP_BULK] =
		"bulk replies (RET_SUBMIT of bulk IN URBs; --transport=bulk only):",
	[HOSTILE_GROUP_PAYLOAD] =
		"payload headers (every packet with data):",
	[HOSTILE_GROUP_DESC] =
		"descriptors (GET_DESCRIPTOR(CONFIG); active from start, armed or not):",
	[HOSTILE_GROUP_CTRL] =
		"control requests (vendor requests only; standard ones answer):",
};

/* what vhci-hcd does with these lies (see the top of this file) */
static const char *const notes[] = {
	"(1) the reply fills the whole buffer, each packet at its offset: vhci",
	"    moves no packet itself, so the lie reaches the driver",
	"(2) vhci takes a count above the one submitted as 0 and reads no",
	"    descriptors: the rest desyncs the connection, the device detaches",
	"(3) vhci fails a reply longer than the buffer with -EPROTO and",
	"    detaches the device",
};

static uint64_t bit(enum hostile_mode m)
{
	return 1ull << m;
}

const char *hostile_mode_name(enum hostile_mode m)
{
	return (unsigned int)m < HOSTILE_MODE_COUNT ? modes[m].name : "?";
}

enum hostile_group hostile_mode_group(enum hostile_mode m)
{
	return (unsigned int)m < HOSTILE_MODE_COUNT ? modes[m].group :
	       HOSTILE_GROUP_ISO;
}

void hostile_usage(FILE *f, int indent)
{
	unsigned int g, m;

	for (g = 0; g < sizeof(group_titles) / sizeof(group_titles[0]); g++) {
		fprintf(f, "%*s%s\n", indent, "", group_titles[g]);
		for (m = 0; m < HOSTILE_MODE_COUNT; m++)
			if (modes[m].group == g)
				fprintf(f, "%*s  %-18s %s\n", indent, "",
					modes[m].name, modes[m].help);
	}
	for (m = 0; m < sizeof(notes) / sizeof(notes[0]); m++)
		fprintf(f, "%*s%s\n", indent, "", notes[m]);
}

static void valid_names(char *out, size_t outlen)
{
	size_t pos = 0;
	unsigned int m;

	out[0] = 0;
	for (m = 0; m < HOSTILE_MODE_COUNT && pos < outlen; m++) {
		int n = snprintf(out + pos, outlen - pos, "%s%s", m ? ", " : "",
				 modes[m].name);

		if (n < 0)
			break;
		pos += (size_t)n;
	}
}

static int add_mode(struct hostile *h, const char *item, size_t len,
		    char *err, size_t errlen)
{
	char names[LIST_MAX];
	size_t used = strlen(h->list);
	unsigned int m;

	for (m = 0; m < HOSTILE_MODE_COUNT; m++)
		if (strlen(modes[m].name) == len &&
		    !memcmp(modes[m].name, item, len))
			break;
	if (m == HOSTILE_MODE_COUNT) {
		valid_names(names, sizeof(names));
		snprintf(err, errlen, "unknown hostile mode '%.*s'; valid modes: %s",
			 (int)len, item, names);
		return -1;
	}
	if (h->modes & bit(m))
		return 0;	/* named twice: once is enough */
	h->modes |= bit(m);
	snprintf(h->list + used, sizeof(h->list) - used, "%s%s",
		 used ? "," : "", modes[m].name);
	return 0;
}

struct hostile *hostile_new(const char *spec, bool armed, unsigned int seed,
			    char *err, size_t errlen)
{
	struct hostile *h = calloc(1, sizeof(*h));
	const char *p;
	size_t len;

	if (!h) {
		snprintf(err, errlen, "hostile: out of memory");
		return NULL;
	}
	atomic_init(&h->armed, armed);
	/* any non-zero state: xorshift64 must not start at 0 */
	h->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 17 | seed);
	for (p = spec ? spec : ""; *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (len && add_mode(h, p, len, err, errlen) < 0) {
			free(h);
			return NULL;
		}
	}
	return h;
}

void hostile_free(struct hostile *h)
{
	free(h);
}

bool hostile_on(const struct hostile *h, enum hostile_mode m)
{
	if (!h || (unsigned int)m >= HOSTILE_MODE_COUNT || !(h->modes & bit(m)))
		return false;
	return modes[m].group == HOSTILE_GROUP_DESC ||
	       atomic_load_explicit(&h->armed, memory_order_acquire);
}

bool hostile_any(const struct hostile *h)
{
	return h && h->modes;
}

bool hostile_any_desc(const struct hostile *h)
{
	return hostile_first_of(h, HOSTILE_GROUP_DESC) != HOSTILE_MODE_COUNT;
}

enum hostile_mode hostile_first_of(const struct hostile *h,
				   enum hostile_group g)
{
	unsigned int m;

	for (m = 0; h && m < HOSTILE_MODE_COUNT; m++)
		if ((h->modes & bit(m)) && modes[m].group == g)
			return (enum hostile_mode)m;
	return HOSTILE_MODE_COUNT;
}

bool hostile_armed(const struct hostile *h)
{
	return h && atomic_load_explicit(&h->armed, memory_order_acquire);
}

bool hostile_arm(struct hostile *h)
{
	if (!hostile_any(h))
		return false;
	if (atomic_exchange_explicit(&h->armed, true, memory_order_acq_rel))
		return false;
	atomic_store_explicit(&h->configured, false, memory_order_release);
	return true;
}

bool hostile_wedged(const struct hostile *h)
{
	return hostile_on(h, HOSTILE_VENDOR_WEDGE) &&
	       !atomic_load_explicit(&h->configured, memory_order_acquire);
}

void hostile_note_configured(struct hostile *h)
{
	if (h && hostile_armed(h))
		atomic_store_explicit(&h->configured, true,
				      memory_order_release);
}

const char *hostile_list(const struct hostile *h)
{
	return h ? h->list : "";
}

bool hostile_describe(const struct hostile *h, char *buf, size_t len)
{
	if (!hostile_any(h))
		return false;
	if (hostile_armed(h))
		snprintf(buf, len, "hostile %s active", h->list);
	else
		snprintf(buf, len, "hostile %s dormant until SIGUSR2%s", h->list,
			 hostile_any_desc(h) ?
			 " (its descriptor modes apply from start)" : "");
	return true;
}

/* --- payload headers --- */

size_t hostile_frame_len(const struct hostile *h, size_t sizeimage)
{
	return hostile_on(h, HOSTILE_FRAME_10X) ?
	       sizeimage * HOSTILE_FRAME_FACTOR : sizeimage;
}

size_t hostile_payload(const struct hostile *h, uint8_t *pkt, size_t len,
		       uint64_t nth)
{
	uint8_t *info = &pkt[ISOCAM_PH_OFF_INFO];

	if (len < ISOCAM_PH_LEN_MIN)
		return len;
	if (hostile_on(h, HOSTILE_FID_STUCK))
		*info &= (uint8_t)~ISOCAM_PH_FID;
	if (hostile_on(h, HOSTILE_FID_FLIP))
		*info = (uint8_t)((*info & ~ISOCAM_PH_FID) |
				  (nth & 1 ? ISOCAM_PH_FID : 0));
	if (hostile_on(h, HOSTILE_EOF_NEVER))
		*info &= (uint8_t)~ISOCAM_PH_EOF;
	if (hostile_on(h, HOSTILE_EOF_ALWAYS))
		*info |= ISOCAM_PH_EOF;
	if (hostile_on(h, HOSTILE_PH_ERR))
		*info |= ISOCAM_PH_ERR;
	if (hostile_on(h, HOSTILE_PH_LEN0))
		pkt[ISOCAM_PH_OFF_LEN] = 0;
	if (hostile_on(h, HOSTILE_PH_LEN_OVER)) {
		pkt[ISOCAM_PH_OFF_LEN] = HOSTILE_PH_LEN_OVER_LEN;
		if (len > ISOCAM_PH_LEN_FULL)
			len = ISOCAM_PH_LEN_FULL;
	}
	if (hostile_on(h, HOSTILE_PH_LEN1)) {
		pkt[ISOCAM_PH_OFF_LEN] = 1;
		len = 1;
	}
	return len;
}

/* --- control requests --- */

int hostile_ctrl_reply(const struct hostile *h, uint8_t bmRequestType,
		       uint16_t wLength, uint8_t *data, size_t len, int ret)
{
	size_t want;

	if (ret < 0 || !(bmRequestType & USB_DIR_IN) ||
	    (bmRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR)
		return ret;
	if (hostile_on(h, HOSTILE_CTRL_SHORT) && ret > wLength / 2)
		ret = wLength / 2;
	if (hostile_on(h, HOSTILE_CTRL_LONG)) {
		want = (size_t)wLength + HOSTILE_CTRL_LONG_EXTRA;
		if (want > len)
			want = len;
		if (want > (size_t)ret) {
			memset(data + ret, 0xa5, want - (size_t)ret);
			ret = (int)want;
		}
	}
	return ret;
}

bool hostile_i2c_nak(const struct hostile *h, uint16_t addr,
		     const uint8_t *buf, size_t len)
{
	uint16_t reg;

	if (!hostile_on(h, HOSTILE_I2C_NAK_STREAM) || addr != IC1280_I2C_ADDR ||
	    len < 3)
		return false;
	/* a 16-bit big-endian pointer, then data with auto-increment */
	reg = (uint16_t)(buf[0] << 8 | buf[1]);
	if (reg > IC1280_REG_MODE_SELECT ||
	    (size_t)(IC1280_REG_MODE_SELECT - reg) >= len - 2)
		return false;
	return buf[2 + (IC1280_REG_MODE_SELECT - reg)] == IC1280_MODE_STREAMING;
}

void hostile_i2c_read(struct hostile *h, uint8_t *buf, size_t len)
{
	size_t i;

	if (!hostile_on(h, HOSTILE_I2C_GARBAGE))
		return;
	for (i = 0; i < len; i++) {
		/* xorshift64: cheap, and the same bytes for the same seed */
		h->rng ^= h->rng << 13;
		h->rng ^= h->rng >> 7;
		h->rng ^= h->rng << 17;
		buf[i] = (uint8_t)(h->rng >> 32);
	}
}
