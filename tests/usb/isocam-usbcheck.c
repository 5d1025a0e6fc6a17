// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isocam-usbcheck: talk to an isocam camera from userspace with libusb
 * (no kernel driver bound) and check what it sends. It reads the
 * sensor's chip ID through the bridge's vendor i2c requests, programs a
 * mode, streams with several isochronous transfers in flight, assembles
 * frames with core/isocam_asm (the driver's own logic) and checks
 * every frame's stamp: counters 0, 1, 2, ... each once and in order,
 * size and mode as programmed, checksum right. Exit 0 only if all of
 * that holds.
 */
#include <errno.h>
#include <getopt.h>
#include <libusb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isocam/frame_stamp.h>
#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>

#include "isocam_asm.h"
#include "scene.h"

#define CTRL_TIMEOUT_MS	2000
#define VENDOR_OUT	(LIBUSB_ENDPOINT_OUT | LIBUSB_REQUEST_TYPE_VENDOR | \
			 LIBUSB_RECIPIENT_INTERFACE)
#define VENDOR_IN	(LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR | \
			 LIBUSB_RECIPIENT_INTERFACE)
#define MAX_XFERS	64

struct opts {
	unsigned int frames;
	unsigned int width, height, fps;
	uint8_t format;
	int alt;		/* -1: the largest */
	unsigned int transfers, packets;
	unsigned int timeout_s;
	bool verbose;
};

struct check {
	struct opts o;
	libusb_device_handle *h;
	struct isocam_assembler as;
	uint8_t *frame;
	uint32_t frame_size;
	unsigned int good;
	uint32_t next_counter;
	char error[256];	/* first failure, if any */
	bool done;
	int in_flight;
	uint64_t bytes;
	struct isocam_asm_stats st;
};

static int fail_msg(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail_msg(struct check *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->error[0]) {
		va_start(ap, fmt);
		vsnprintf(c->error, sizeof(c->error), fmt, ap);
		va_end(ap);
	}
	c->done = true;
	return -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int i2c_write(libusb_device_handle *h, const uint8_t *buf, uint16_t n)
{
	int r = libusb_control_transfer(h, VENDOR_OUT, ISOCAM_REQ_I2C_WRITE,
					IC1280_I2C_ADDR, ISOCAM_USB_IFACE_NUM,
					(uint8_t *)buf, n, CTRL_TIMEOUT_MS);

	if (r != n) {
		fprintf(stderr, "isocam-usbcheck: i2c write of %u bytes at register 0x%02x%02x failed: %s\n",
			n, buf[0], buf[1], r < 0 ? libusb_error_name(r) : "short");
		return -1;
	}
	return 0;
}

static int write_reg(libusb_device_handle *h, uint16_t reg, uint8_t v)
{
	uint8_t b[3] = { (uint8_t)(reg >> 8), (uint8_t)reg, v };

	return i2c_write(h, b, 3);
}

static int write_reg16(libusb_device_handle *h, uint16_t reg, uint16_t v)
{
	uint8_t b[4] = { (uint8_t)(reg >> 8), (uint8_t)reg, (uint8_t)(v >> 8),
			 (uint8_t)v };

	return i2c_write(h, b, 4);
}

static int read_chip_id(libusb_device_handle *h, uint16_t *id)
{
	static const uint8_t ptr[2] = { IC1280_REG_CHIP_ID_H >> 8,
					IC1280_REG_CHIP_ID_H & 0xff };
	uint8_t b[2];
	int r;

	if (i2c_write(h, ptr, 2) < 0)
		return -1;
	r = libusb_control_transfer(h, VENDOR_IN, ISOCAM_REQ_I2C_READ,
				    IC1280_I2C_ADDR, ISOCAM_USB_IFACE_NUM, b, 2,
				    CTRL_TIMEOUT_MS);
	if (r != 2) {
		fprintf(stderr, "isocam-usbcheck: i2c read of CHIP_ID failed: %s\n",
			r < 0 ? libusb_error_name(r) : "short");
		return -1;
	}
	*id = (uint16_t)(b[0] << 8 | b[1]);
	return 0;
}

/* Bytes per microframe of each alt, from the real descriptors. */
static int alt_bytes(libusb_device *dev, int alt, int *best_alt)
{
	struct libusb_config_descriptor *cfg;
	const struct libusb_interface *itf;
	int i, best = 0, bytes = -1;

	if (libusb_get_active_config_descriptor(dev, &cfg))
		return -1;
	itf = &cfg->interface[ISOCAM_USB_IFACE_NUM];
	for (i = 0; i < itf->num_altsetting; i++) {
		const struct libusb_interface_descriptor *a = &itf->altsetting[i];
		int b;

		if (a->bNumEndpoints < 1)
			continue;
		b = ISOCAM_USB_MAXP_BYTES(a->endpoint[0].wMaxPacketSize);
		if (b > best) {
			best = b;
			*best_alt = a->bAlternateSetting;
		}
		if (a->bAlternateSetting == alt)
			bytes = b;
	}
	libusb_free_config_descriptor(cfg);
	return alt < 0 ? best : bytes;
}

static bool get_buf(void *priv, struct isocam_asm_buf *b)
{
	struct check *c = priv;

	b->cookie = NULL;
	b->vaddr = c->frame;
	b->size = c->frame_size;
	return true;
}

static void buf_done(void *priv, struct isocam_asm_buf *b, u32 used,
		     bool error, bool pts_valid, u32 pts)
{
	struct check *c = priv;
	struct scene_params p;
	uint32_t counter, sum, want;

	(void)pts_valid;
	(void)pts;
	if (c->done)
		return;
	if (error) {
		fail_msg(c, "frame after counter %u arrived damaged (%u of %u bytes; assembler: %llu bad packets, %u overflows, %u short)",
			 c->next_counter, used, c->frame_size,
			 (unsigned long long)c->as.stats.bad_packets, c->as.stats.overflows,
			 c->as.stats.short_frames);
		return;
	}
	if (scene_stamp_parse(b->vaddr, used, &p, &counter, &sum) < 0) {
		fail_msg(c, "frame %u: no valid stamp", c->good);
		return;
	}
	if (counter != c->next_counter) {
		fail_msg(c, "frame counter %u where %u was expected (%s)",
			 counter, c->next_counter,
			 counter > c->next_counter ? "frames lost" :
			 "duplicate or out of order");
		return;
	}
	if (p.width != c->o.width || p.height != c->o.height ||
	    p.format != c->o.format) {
		fail_msg(c, "frame %u is %ux%u format %u, programmed %ux%u format %u",
			 counter, p.width, p.height, p.format, c->o.width,
			 c->o.height, c->o.format);
		return;
	}
	want = isocam_stamp_checksum(b->vaddr + ISOCAM_STAMP_LEN,
				     used - ISOCAM_STAMP_LEN);
	if (sum != want) {
		fail_msg(c, "frame %u: checksum 0x%08x, the data gives 0x%08x (torn or corrupted)",
			 counter, sum, want);
		return;
	}
	if (c->o.verbose)
		printf("frame %u ok (%u bytes)\n", counter, used);
	c->next_counter++;
	if (++c->good >= c->o.frames)
		c->done = true;
}

static const struct isocam_asm_ops asm_ops = {
	.get_buf = get_buf,
	.buf_done = buf_done,
};

static void LIBUSB_CALL iso_done(struct libusb_transfer *t)
{
	struct check *c = t->user_data;
	int i, r;

	c->in_flight--;
	if (t->status == LIBUSB_TRANSFER_CANCELLED)
		return;
	if (t->status != LIBUSB_TRANSFER_COMPLETED) {
		fail_msg(c, "isochronous transfer failed: status %d", t->status);
		return;
	}
	for (i = 0; i < t->num_iso_packets; i++) {
		struct libusb_iso_packet_descriptor *d = &t->iso_packet_desc[i];

		if (d->status != LIBUSB_TRANSFER_COMPLETED) {
			isocam_asm_packet_error(&c->as);
			continue;
		}
		c->bytes += d->actual_length;
		isocam_asm_packet(&c->as, libusb_get_iso_packet_buffer_simple(t, (unsigned int)i),
				  d->actual_length);
	}
	if (c->done)
		return;
	r = libusb_submit_transfer(t);
	if (r)
		fail_msg(c, "resubmitting a transfer failed: %s", libusb_error_name(r));
	else
		c->in_flight++;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: isocam-usbcheck [OPTION]...\n"
"Check an isocam camera (%04x:%04x) through libusb: read the sensor chip\n"
"ID, stream isochronously and verify every frame's stamp.\n"
"  --frames=N      frames to check (default 300)\n"
"  --size=WxH      frame size (default 320x240)\n"
"  --format=F      yuyv, rgb565 or grey (default yuyv)\n"
"  --fps=N         frame rate (default 30)\n"
"  --alt=N         alt setting (default: the largest)\n"
"  --transfers=N   transfers in flight (default 32, max %d)\n"
"  --packets=N     packets per transfer (default 32)\n"
"  --timeout=S     give up after S seconds (default 120)\n"
"  -v, --verbose   one line per frame\n",
		ISOCAM_USB_VID, ISOCAM_USB_PID, MAX_XFERS);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "frames", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "fps", required_argument, NULL, 'r' },
		{ "alt", required_argument, NULL, 'a' },
		{ "transfers", required_argument, NULL, 't' },
		{ "packets", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'n': o->frames = (unsigned int)atoi(optarg); break;
		case 's':
			if (sscanf(optarg, "%ux%u", &o->width, &o->height) != 2)
				goto bad;
			break;
		case 'f':
			if (!strcmp(optarg, "yuyv"))
				o->format = IC1280_FMT_YUYV;
			else if (!strcmp(optarg, "rgb565"))
				o->format = IC1280_FMT_RGB565;
			else if (!strcmp(optarg, "grey"))
				o->format = IC1280_FMT_GREY;
			else
				goto bad;
			break;
		case 'r': o->fps = (unsigned int)atoi(optarg); break;
		case 'a': o->alt = atoi(optarg); break;
		case 't': o->transfers = (unsigned int)atoi(optarg); break;
		case 'p': o->packets = (unsigned int)atoi(optarg); break;
		case 'T': o->timeout_s = (unsigned int)atoi(optarg); break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		default: goto bad;
		}
	}
	if (o->frames < 1 || o->fps < 5 || o->fps > 60 || !o->transfers ||
	    o->transfers > MAX_XFERS || !o->packets || o->packets > 1024 ||
	    !o->width || !o->height || optind != argc)
		goto bad;
	return 0;
bad:
	usage(stderr);
	return -1;
}

static int program_sensor(struct check *c)
{
	libusb_device_handle *h = c->h;

	/* a full reset first: a known state whatever ran before */
	if (write_reg(h, IC1280_REG_SOFTWARE_RESET, IC1280_SOFTWARE_RESET) ||
	    write_reg(h, IC1280_REG_OUTPUT_FORMAT, c->o.format) ||
	    write_reg16(h, IC1280_REG_X_OUTPUT_SIZE_H, (uint16_t)c->o.width) ||
	    write_reg16(h, IC1280_REG_Y_OUTPUT_SIZE_H, (uint16_t)c->o.height) ||
	    write_reg16(h, IC1280_REG_FRAME_LENGTH_H,
			(uint16_t)IC1280_FLL_FOR_FPS(c->o.fps)))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct check c = {
		.o = { .frames = 300, .width = 320, .height = 240, .fps = 30,
		       .format = IC1280_FMT_YUYV, .alt = -1, .transfers = 32,
		       .packets = 32, .timeout_s = 120 },
	};
	struct libusb_transfer *xfer[MAX_XFERS] = { 0 };
	struct scene_params sp = { 0 };
	libusb_context *ctx = NULL;
	int r, pkt_bytes, alt = 0, ret = 1;
	unsigned int i;
	uint16_t id;
	double t0, dt;

	if (parse_opts(argc, argv, &c.o) < 0)
		return 2;
	r = libusb_init(&ctx);
	if (r) {
		fprintf(stderr, "isocam-usbcheck: libusb_init: %s\n", libusb_error_name(r));
		return 1;
	}
	c.h = libusb_open_device_with_vid_pid(ctx, ISOCAM_USB_VID, ISOCAM_USB_PID);
	if (!c.h) {
		fprintf(stderr, "isocam-usbcheck: no camera %04x:%04x found (attached? permissions?)\n",
			ISOCAM_USB_VID, ISOCAM_USB_PID);
		goto out_exit;
	}
	libusb_set_auto_detach_kernel_driver(c.h, 1);
	r = libusb_claim_interface(c.h, ISOCAM_USB_IFACE_NUM);
	if (r) {
		fprintf(stderr, "isocam-usbcheck: claiming interface %d: %s\n",
			ISOCAM_USB_IFACE_NUM, libusb_error_name(r));
		goto out_close;
	}

	if (read_chip_id(c.h, &id) < 0)
		goto out_release;
	printf("sensor chip id: 0x%04x\n", id);
	if (id != IC1280_CHIP_ID) {
		fprintf(stderr, "isocam-usbcheck: chip id 0x%04x is not an IC1280 (0x%04x)\n",
			id, IC1280_CHIP_ID);
		goto out_release;
	}

	sp.format = c.o.format;
	sp.width = (uint16_t)c.o.width;
	sp.height = (uint16_t)c.o.height;
	c.frame_size = (uint32_t)scene_frame_size(&sp);
	if (!c.frame_size || program_sensor(&c) < 0)
		goto out_release;
	c.frame = malloc(c.frame_size);
	if (!c.frame) {
		fprintf(stderr, "isocam-usbcheck: out of memory\n");
		goto out_release;
	}
	isocam_asm_init(&c.as, &asm_ops, &c, c.frame_size);

	pkt_bytes = alt_bytes(libusb_get_device(c.h), c.o.alt, &alt);
	if (c.o.alt >= 0)
		alt = c.o.alt;
	if (pkt_bytes <= 0) {
		fprintf(stderr, "isocam-usbcheck: alt %d has no isochronous endpoint\n", alt);
		goto out_release;
	}
	r = libusb_set_interface_alt_setting(c.h, ISOCAM_USB_IFACE_NUM, alt);
	if (r) {
		fprintf(stderr, "isocam-usbcheck: SET_INTERFACE alt %d: %s\n", alt,
			libusb_error_name(r));
		goto out_release;
	}
	printf("streaming %ux%u format %u at %u fps, alt %d (%d bytes per microframe), %u x %u-packet transfers\n",
	       c.o.width, c.o.height, c.o.format, c.o.fps, alt, pkt_bytes,
	       c.o.transfers, c.o.packets);
	for (i = 0; i < c.o.transfers; i++) {
		size_t len = (size_t)pkt_bytes * c.o.packets;

		xfer[i] = libusb_alloc_transfer((int)c.o.packets);
		if (!xfer[i]) {
			fprintf(stderr, "isocam-usbcheck: out of memory\n");
			goto out_stop;
		}
		libusb_fill_iso_transfer(xfer[i], c.h, ISOCAM_USB_ISO_EP_ADDR,
					 malloc(len), (int)len, (int)c.o.packets,
					 iso_done, &c, 5000);
		xfer[i]->flags = LIBUSB_TRANSFER_FREE_BUFFER;
		if (!xfer[i]->buffer) {
			fprintf(stderr, "isocam-usbcheck: out of memory\n");
			goto out_stop;
		}
		libusb_set_iso_packet_lengths(xfer[i], (unsigned int)pkt_bytes);
		r = libusb_submit_transfer(xfer[i]);
		if (r) {
			fprintf(stderr, "isocam-usbcheck: submitting transfer %u: %s\n",
				i, libusb_error_name(r));
			goto out_stop;
		}
		c.in_flight++;
	}
	/*
	 * Streaming starts only now, with every transfer queued: the camera
	 * drops frames when the host leaves microframes unpolled (as real
	 * hardware does), and a slow host is slowest while queuing the first
	 * transfers.
	 */
	if (write_reg(c.h, IC1280_REG_MODE_SELECT, IC1280_MODE_STREAMING) < 0)
		goto out_stop;

	t0 = now_s();
	while (!c.done) {
		struct timeval tv = { .tv_sec = 1 };

		r = libusb_handle_events_timeout_completed(ctx, &tv, NULL);
		if (r && r != LIBUSB_ERROR_INTERRUPTED) {
			fail_msg(&c, "libusb event handling: %s", libusb_error_name(r));
			break;
		}
		if (now_s() - t0 > c.o.timeout_s)
			fail_msg(&c, "timed out after %u s with %u good frames",
				 c.o.timeout_s, c.good);
		if (!c.in_flight && !c.done)
			fail_msg(&c, "no transfer left in flight");
	}
	dt = now_s() - t0;

	if (c.error[0]) {
		fprintf(stderr, "isocam-usbcheck: FAIL: %s\n", c.error);
	} else {
		printf("isocam-usbcheck: PASS: %u frames, counters 0..%u each once and in order, every checksum right; %.1f fps, %.2f MB/s\n",
		       c.good, c.good - 1, c.good / dt, (double)c.bytes / dt / 1e6);
		ret = 0;
	}
	printf("assembler: %llu packets (%llu empty, %llu bad), %u good frames, %u error frames\n",
	       (unsigned long long)c.as.stats.packets,
	       (unsigned long long)c.as.stats.empty_packets,
	       (unsigned long long)c.as.stats.bad_packets, c.as.stats.frames,
	       c.as.stats.error_frames);

out_stop:
	for (i = 0; i < c.o.transfers; i++)
		if (xfer[i])
			libusb_cancel_transfer(xfer[i]);
	while (c.in_flight > 0) {
		struct timeval tv = { .tv_sec = 2 };

		if (libusb_handle_events_timeout_completed(ctx, &tv, NULL))
			break;
	}
	for (i = 0; i < c.o.transfers; i++)
		if (xfer[i])
			libusb_free_transfer(xfer[i]);
	write_reg(c.h, IC1280_REG_MODE_SELECT, IC1280_MODE_STANDBY);
	libusb_set_interface_alt_setting(c.h, ISOCAM_USB_IFACE_NUM, 0);
out_release:
	libusb_release_interface(c.h, ISOCAM_USB_IFACE_NUM);
out_close:
	libusb_close(c.h);
out_exit:
	free(c.frame);
	libusb_exit(ctx);
	return ret;
}
