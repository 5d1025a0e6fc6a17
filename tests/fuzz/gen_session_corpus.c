// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Writes fuzz_session's seed corpus (tests/fuzz/corpus/fuzz_session/):
 * one file per client story a driver or a hostile client tells, in the
 * input language of fuzz_session.h. `make fuzz-session-corpus` runs it;
 * edit the stories here, not the files.
 *
 *   gen_session_corpus DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isocam/usb.h>
#include <linux/usb/ch9.h>

#include "fuzz_session.h"

struct seed {
	uint8_t b[4096];
	size_t n;
};

static void b8(struct seed *s, unsigned int v)
{
	if (s->n >= sizeof(s->b)) {
		fprintf(stderr, "gen_session_corpus: a seed outgrew %zu bytes\n",
			sizeof(s->b));
		exit(1);
	}
	s->b[s->n++] = (uint8_t)v;
}

static void b16(struct seed *s, unsigned int v)
{
	b8(s, v & 0xff);
	b8(s, v >> 8);
}

static void import(struct seed *s, unsigned int which)
{
	b8(s, FZ_IMPORT);
	b8(s, which);
}

static void ctrl(struct seed *s, unsigned int flags, unsigned int bm,
		 unsigned int req, unsigned int val, unsigned int len)
{
	b8(s, FZ_CTRL);
	b8(s, flags);
	b8(s, bm);
	b8(s, req);
	b16(s, val);
	b16(s, 0);
	b16(s, len);
}

static void iso(struct seed *s, unsigned int flags, unsigned int np,
		unsigned int plen, unsigned int count)
{
	while (count--) {
		b8(s, FZ_ISO);
		b8(s, flags);
		b16(s, np - 1);
		b16(s, plen);
	}
}

static void op(struct seed *s, unsigned int op, unsigned int a,
	       unsigned int b)
{
	b8(s, op);
	b8(s, a);
	b8(s, b);
}

static void emit(const char *dir, const char *name, const struct seed *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const unsigned int vendor_in = USB_DIR_IN | USB_TYPE_VENDOR |
				       USB_RECIP_INTERFACE;
	const char *dir;
	struct seed s;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_session_corpus DIR\n");
		return 2;
	}
	dir = argv[1];

	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	b8(&s, FZ_DEVLIST);
	emit(dir, "devlist", &s);

	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 2);		/* 1-9: ST_NODEV */
	emit(dir, "import_nodev", &s);

	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 3);		/* unterminated bus id */
	emit(dir, "import_malformed", &s);

	/* enumeration as usbcore does it */
	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 0);
	ctrl(&s, 0, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 18);
	ctrl(&s, 0, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 9);
	ctrl(&s, 0, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 255);
	ctrl(&s, 0, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_STRING << 8, 255);
	ctrl(&s, 0, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
	     USB_DT_STRING << 8 | 3, 255);
	ctrl(&s, 0, 0, USB_REQ_SET_CONFIGURATION, 1, 0);
	b8(&s, FZ_SYNC);
	emit(dir, "enumerate", &s);

	/* the sensor's chip id over vendor i2c requests, then the status */
	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 1);
	b8(&s, FZ_SET_CONFIG);
	b8(&s, 1);
	b8(&s, FZ_I2C_WRITE);
	b8(&s, 0);
	b8(&s, 2);
	b16(&s, 0);		/* register pointer 0x0000: CHIP_ID */
	op(&s, FZ_I2C_READ, 0, 2);
	op(&s, FZ_I2C_READ, 0x80 | 0x50, 1);	/* nobody there: NAK */
	ctrl(&s, 0, vendor_in, ISOCAM_REQ_GET_STATUS, 0, 16);
	b8(&s, FZ_SYNC);
	emit(dir, "i2c_chip_id", &s);

	/* a driver streaming: 32-packet URBs at alt 7, unlinks at stop */
	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 0);
	op(&s, FZ_STREAM_ON, 2, 3);	/* GREY 160x120 */
	iso(&s, 0, 32, 3072, 8);
	b8(&s, FZ_SYNC);
	iso(&s, 0, 32, 3072, 4);
	op(&s, FZ_UNLINK, 0, 0);
	op(&s, FZ_UNLINK, 0, 2);
	op(&s, FZ_SET_INTERFACE, 0, 0);
	b8(&s, FZ_SYNC);
	emit(dir, "stream_unlink", &s);

	/*
	 * An unlink of an unlink: it names a seqnum newer than every
	 * submit, as vhci's early unlinks do (usbip_session.h); answered
	 * when the next submit shows that nothing of that seqnum will come.
	 */
	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 0);
	op(&s, FZ_STREAM_ON, 2, 3);
	iso(&s, 0, 8, 3072, 2);
	op(&s, FZ_UNLINK, 0, 0);
	op(&s, FZ_UNLINK, 0, 0);
	b8(&s, FZ_SYNC);
	iso(&s, 0, 8, 3072, 1);
	b8(&s, FZ_SYNC);
	emit(dir, "early_unlink", &s);

	/* full size YUYV with every fault at once and a small queue */
	s = (struct seed){ .n = 0 };
	b8(&s, 7 | FZ_CFG_SMALL_QUEUE | FZ_CFG_VERBOSE);
	import(&s, 0);
	op(&s, FZ_STREAM_ON, 0, 0);
	iso(&s, 0, 32, 3072, 24);
	b8(&s, FZ_SYNC);
	emit(dir, "stream_faults", &s);

	/* back-pressure: more queued than 64 microframes, a control behind */
	s = (struct seed){ .n = 0 };
	b8(&s, FZ_CFG_SMALL_QUEUE);
	import(&s, 0);
	op(&s, FZ_STREAM_ON, 1, 2);	/* RGB565 320x240 */
	iso(&s, 0, 32, 3072, 6);
	ctrl(&s, 0, vendor_in, ISOCAM_REQ_GET_STATUS, 0, 16);
	iso(&s, 0, 32, 3072, 2);
	op(&s, FZ_UNLINK, 0, 1);
	b8(&s, FZ_SYNC);
	emit(dir, "backpressure", &s);

	/* alt changes under a stream, then a lower alt */
	s = (struct seed){ .n = 0 };
	b8(&s, FZ_CFG_STRICT_LATE);
	import(&s, 1);
	op(&s, FZ_STREAM_ON, 0, 3);
	iso(&s, 0, 8, 3072, 4);
	op(&s, FZ_SET_INTERFACE, 0, 0);
	iso(&s, 0, 8, 3072, 1);
	op(&s, FZ_SET_INTERFACE, 3, 0);
	iso(&s, 0, 16, 512, 3);
	b8(&s, FZ_SYNC);
	emit(dir, "alt_changes", &s);

	/* what the session refuses with -EMSGSIZE, then carries on */
	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 0);
	op(&s, FZ_STREAM_ON, 2, 3);
	ctrl(&s, FZ_F_BIG, 0, USB_REQ_SET_CONFIGURATION, 1, 0);
	iso(&s, FZ_F_OVERSIZE, 8, 3072, 1);
	iso(&s, FZ_F_BIG, 1024, 3072, 1);
	iso(&s, FZ_F_OTHER_EP, 4, 512, 1);
	iso(&s, FZ_F_FLIP_DIR, 4, 512, 1);
	ctrl(&s, 0, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 18);
	b8(&s, FZ_SYNC);
	emit(dir, "refusals", &s);

	/* a command for another device: dropped */
	s = (struct seed){ .n = 0 };
	b8(&s, 0);
	import(&s, 0);
	ctrl(&s, 0, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 18);
	ctrl(&s, FZ_F_BAD_DEVID, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
	     USB_DT_DEVICE << 8, 18);
	emit(dir, "bad_devid", &s);

	/* vanish after the first frame, mid-stream */
	s = (struct seed){ .n = 0 };
	b8(&s, 6);
	import(&s, 0);
	op(&s, FZ_STREAM_ON, 2, 3);
	iso(&s, 0, 32, 3072, 30);
	emit(dir, "vanish", &s);
	return 0;
}
