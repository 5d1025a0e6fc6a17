// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Video replies as gather lists (usbip_reply.h): the RET_SUBMITs built
 * from the frame buffer carry the same bytes as those built by copying,
 * URB after URB of the same stream (frame boundaries, FID, EOF, long
 * frames' filler, every packet fault, short packets and short URBs, bulk
 * transfers), and they reach the socket whole and in order through
 * partial writes, EINTR and more pieces than one sendmsg() takes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <isocam/ic1280_regs.h>
#include <isocam/payload.h>
#include <isocam/usb.h>

#include "fault.h"
#include "ic1280_model.h"
#include "usbip_proto.h"
#include "usbip_reply.h"
#include "usbip_server.h"
#include "video_stream.h"

/* One camera's pipe: a sensor streaming fmt at w x h, and its faults. */
struct pipe {
	struct ic1280 *s;
	struct video_stream *vs;
	struct fault *f;
};

static void reg(struct ic1280 *s, uint16_t r, const uint8_t *v, size_t n)
{
	uint8_t b[6] = { r >> 8, r & 0xff };

	memcpy(b + 2, v, n);
	assert_int_equal(ic1280_i2c_write(s, b, n + 2), 0);
}

static void pipe_open(struct pipe *p, uint8_t fmt, uint16_t w, uint16_t h,
		      uint32_t packet_bytes, bool free_run, const char *faults)
{
	uint8_t size[4] = { w >> 8, w & 0xff, h >> 8, h & 0xff };
	uint8_t on = IC1280_MODE_STREAMING;
	char err[256];

	p->s = ic1280_new(IC1280_CHIP_ID);
	p->vs = video_stream_new(p->s);
	assert_non_null(p->vs);
	p->f = fault_new(faults ? faults : "", 7, err, sizeof(err));
	assert_non_null(p->f);
	video_stream_set_fault(p->vs, p->f);
	video_stream_set_free_run(p->vs, free_run);
	video_stream_set_packet_size(p->vs, packet_bytes);
	reg(p->s, IC1280_REG_OUTPUT_FORMAT, &fmt, 1);
	reg(p->s, IC1280_REG_X_OUTPUT_SIZE_H, size, 4);
	reg(p->s, IC1280_REG_MODE_SELECT, &on, 1);
}

static void pipe_close(struct pipe *p)
{
	video_stream_free(p->vs);
	ic1280_free(p->s);
	fault_free(p->f);
}

/*
 * One iso RET_SUBMIT as the session builds it: header, packets (packet i
 * asks for len(i) bytes), descriptors. Its length.
 */
static size_t build_iso(struct usbip_reply *r, struct pipe *p, uint64_t t,
			uint32_t np, uint32_t (*len)(uint32_t), uint32_t tbl,
			bool copy, uint32_t seqnum)
{
	struct usbip_iso_desc d[64];
	struct usbip_header h;
	uint8_t *desc;
	uint32_t i;
	long n;

	assert_true(np <= 64);
	for (i = 0; i < np; i++)
		d[i] = (struct usbip_iso_desc){ .offset = i * 3072,
						.length = len(i) };
	usbip_reply_reset(r);
	assert_non_null(usbip_reply_own(r, USBIP_HEADER_LEN));
	video_stream_release(p->vs);
	n = usbip_reply_iso_packets(r, p->vs, t, d, np, 3072, tbl, copy);
	assert_true(n >= 0);
	assert_int_equal(r->len, USBIP_HEADER_LEN + (size_t)n);
	desc = usbip_reply_own(r, np * USBIP_ISO_DESC_LEN);
	assert_non_null(desc);
	for (i = 0; i < np; i++)
		usbip_iso_desc_encode(desc + i * USBIP_ISO_DESC_LEN, &d[i]);
	usbip_ret_submit_header(&h, seqnum, 0, (int32_t)n, (int32_t)np);
	usbip_header_encode(usbip_reply_own_at(r, 0), &h);
	return r->len;
}

/* Pieces sent from frame buffers rather than the reply's own bytes. */
static size_t refs(const struct usbip_reply *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->n_pc; i++)
		n += r->pc[i].ext != NULL;
	return n;
}

static uint32_t len_full(uint32_t i)
{
	(void)i;
	return 3072;
}

/* short and odd packet lengths, some too small for any data */
static uint32_t len_mixed(uint32_t i)
{
	static const uint32_t l[] = { 3072, 1000, 12, 13, 2999, 0, 3072, 512 };

	return l[i % 8];
}

/*
 * URB after URB of two identical pipes, copied and referenced: the same
 * wire bytes, the same statistics; returns how many pieces of data the
 * referenced replies sent from frame buffers.
 */
static size_t same_wire(uint8_t fmt, uint16_t w, uint16_t h, bool free_run,
			const char *faults, unsigned int urbs, uint32_t np,
			uint32_t (*len)(uint32_t), uint32_t tbl)
{
	struct usbip_reply ra = { 0 }, rb = { 0 };
	struct video_stream_stats sa, sb;
	struct pipe a, b;
	uint64_t t = 1000000000ull;
	uint8_t *wa = NULL, *wb = NULL;
	size_t pieces = 0;
	unsigned int u;

	pipe_open(&a, fmt, w, h, 3072, free_run, faults);
	pipe_open(&b, fmt, w, h, 3072, free_run, faults);
	for (u = 0; u < urbs; u++) {
		size_t la = build_iso(&ra, &a, t, np, len, tbl, true, u);
		size_t lb = build_iso(&rb, &b, t, np, len, tbl, false, u);

		assert_int_equal(la, lb);
		wa = realloc(wa, la);
		wb = realloc(wb, lb);
		assert_non_null(wa);
		assert_non_null(wb);
		usbip_reply_flatten(&ra, wa);
		usbip_reply_flatten(&rb, wb);
		assert_memory_equal(wa, wb, la);
		pieces += refs(&rb);
		t += np * USBIP_MICROFRAME_NS;
	}
	video_stream_get_stats(a.vs, &sa);
	video_stream_get_stats(b.vs, &sb);
	assert_memory_equal(&sa.frames_sent, &sb.frames_sent,
			    offsetof(struct video_stream_stats, jpeg_encodes));
	assert_true(sa.frames_sent >= 2);
	free(wa);
	free(wb);
	usbip_reply_free(&ra);
	usbip_reply_free(&rb);
	pipe_close(&a);
	pipe_close(&b);
	return pieces;
}

static void test_iso_same_wire(void **state)
{
	(void)state;
	/* real time: frames span URBs, each ends mid-URB */
	assert_true(same_wire(IC1280_FMT_YUYV, 320, 240, false, NULL,
			      8 * 30, 32, len_full, 32 * 3072) >= 28 * 51);
	/* free-running small frames: several end and start in each URB */
	same_wire(IC1280_FMT_GREY, 160, 120, true, NULL, 40, 32, len_full,
		  32 * 3072);
	/* every packet fault and long frames' filler */
	same_wire(IC1280_FMT_GREY, 160, 120, true,
		  "drop=1/7,corrupt=1/5,err=1/3,short=1/3,long=1/2", 60, 32,
		  len_full, 32 * 3072);
	/* short packets, and a URB whose buffer runs out before its packets */
	same_wire(IC1280_FMT_GREY, 160, 120, true, "long=1/2", 60, 24,
		  len_mixed, 20000);
}

/* Bulk: one payload transfer per reply, 64 KiB at most. */
static void test_bulk_same_wire(void **state)
{
	struct usbip_reply ra = { 0 }, rb = { 0 };
	static uint8_t wa[USBIP_HEADER_LEN + ISOCAM_USB_BULK_MAX_PAYLOAD];
	static uint8_t wb[sizeof(wa)];
	struct pipe a, b;
	uint64_t t = 1000000000ull;
	unsigned int i;

	(void)state;
	pipe_open(&a, IC1280_FMT_YUYV, 320, 240, ISOCAM_USB_BULK_MAX_PAYLOAD,
		  true, "long=1/2,err=1/5");
	pipe_open(&b, IC1280_FMT_YUYV, 320, 240, ISOCAM_USB_BULK_MAX_PAYLOAD,
		  true, "long=1/2,err=1/5");
	for (i = 0; i < 40; i++, t += 1000000) {
		size_t room = i % 3 ? ISOCAM_USB_BULK_MAX_PAYLOAD : 5000;
		long na, nb;

		usbip_reply_reset(&ra);
		usbip_reply_reset(&rb);
		assert_non_null(usbip_reply_own(&ra, USBIP_HEADER_LEN));
		assert_non_null(usbip_reply_own(&rb, USBIP_HEADER_LEN));
		memset(usbip_reply_own_at(&ra, 0), 0, USBIP_HEADER_LEN);
		memset(usbip_reply_own_at(&rb, 0), 0, USBIP_HEADER_LEN);
		video_stream_release(b.vs);
		na = usbip_reply_packet(&ra, a.vs, t, room, true);
		nb = usbip_reply_packet(&rb, b.vs, t, room, false);
		assert_int_equal(na, nb);
		assert_true(na > ISOCAM_PH_LEN_FULL);
		assert_int_equal(ra.len, rb.len);
		usbip_reply_flatten(&ra, wa);
		usbip_reply_flatten(&rb, wb);
		assert_memory_equal(wa, wb, ra.len);
	}
	usbip_reply_free(&ra);
	usbip_reply_free(&rb);
	pipe_close(&a);
	pipe_close(&b);
}

/* ---- sending ---- */

/* sendmsg() that takes at most `chunk` bytes, and fails EINTR now and then */
static size_t chunk;
static unsigned int calls;

static ssize_t send_some(int fd, const struct msghdr *msg, int flags)
{
	struct iovec v[8];
	struct msghdr m = { .msg_iov = v };
	size_t left = chunk, i;

	assert_true(msg->msg_iovlen <= IOV_MAX);
	if (++calls % 5 == 0) {
		errno = EINTR;
		return -1;
	}
	for (i = 0; i < msg->msg_iovlen && i < 8 && left; i++) {
		v[i] = msg->msg_iov[i];
		if (v[i].iov_len > left)
			v[i].iov_len = left;
		left -= v[i].iov_len;
		m.msg_iovlen++;
	}
	return sendmsg(fd, &m, flags);
}

struct reader {
	int fd;
	uint8_t *buf;
	size_t want, got;
};

static void *read_all(void *arg)
{
	struct reader *rd = arg;

	while (rd->got < rd->want) {
		ssize_t n = read(rd->fd, rd->buf + rd->got, rd->want - rd->got);

		if (n <= 0)
			break;
		rd->got += (size_t)n;
	}
	return NULL;
}

/* Send r through send_fn and check the peer got exactly its bytes. */
static void send_and_check(struct usbip_reply *r, usbip_reply_sendmsg send_fn)
{
	uint8_t *want = malloc(r->len);
	struct reader rd = { .want = r->len, .buf = malloc(r->len) };
	pthread_t th;
	int sv[2];

	assert_non_null(want);
	assert_non_null(rd.buf);
	usbip_reply_flatten(r, want);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rd.fd = sv[1];
	assert_int_equal(pthread_create(&th, NULL, read_all, &rd), 0);
	assert_int_equal(usbip_reply_send(r, sv[0], send_fn), 0);
	close(sv[0]);
	pthread_join(th, NULL);
	close(sv[1]);
	assert_int_equal(rd.got, r->len);
	assert_memory_equal(rd.buf, want, r->len);
	free(want);
	free(rd.buf);
}

static void test_send_partial(void **state)
{
	static const size_t chunks[] = { 1, 5, 12, 13, 48, 100, 3083, 70000 };
	struct usbip_reply r = { 0 };
	struct pipe p;
	unsigned int i;

	(void)state;
	pipe_open(&p, IC1280_FMT_GREY, 160, 120, 3072, true, "long=1/2");
	for (i = 0; i < sizeof(chunks) / sizeof(*chunks); i++) {
		build_iso(&r, &p, 1000000000ull + i * 4000000ull, 32, len_mixed,
			  32 * 3072, false, i);
		assert_true(refs(&r) > 0);	/* not only own bytes */
		chunk = chunks[i];
		calls = 0;
		send_and_check(&r, send_some);
	}
	/* and the real sendmsg() */
	build_iso(&r, &p, 2000000000ull, 32, len_full, 32 * 3072, false, 9);
	send_and_check(&r, sendmsg);
	usbip_reply_free(&r);
	pipe_close(&p);
}

/* More pieces than one sendmsg() takes (IOV_MAX): sent in turns. */
static void test_send_many_pieces(void **state)
{
	struct usbip_reply r = { 0 };
	uint8_t ext[3] = { 1, 2, 3 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 3 * IOV_MAX; i++) {
		uint8_t *b = usbip_reply_own(&r, 1);

		assert_non_null(b);
		*b = (uint8_t)i;
		assert_int_equal(usbip_reply_ref(&r, ext, sizeof(ext)), 0);
	}
	assert_int_equal(r.n_pc, 6 * IOV_MAX);
	send_and_check(&r, sendmsg);
	chunk = 1000;
	calls = 0;
	send_and_check(&r, send_some);
	usbip_reply_free(&r);
}

static ssize_t send_timeout(int fd, const struct msghdr *msg, int flags)
{
	(void)fd;
	(void)msg;
	(void)flags;
	errno = EAGAIN;
	return -1;
}

/* A send that times out is an error the caller sees (errno EAGAIN). */
static void test_send_timeout(void **state)
{
	struct usbip_reply r = { 0 };

	(void)state;
	assert_non_null(usbip_reply_own(&r, 10));
	assert_int_equal(usbip_reply_send(&r, -1, send_timeout), -1);
	assert_int_equal(errno, EAGAIN);
	usbip_reply_free(&r);
}

/* Own bytes stay contiguous across trims; pieces end where trimmed. */
static void test_trim(void **state)
{
	struct usbip_reply r = { 0 };
	uint8_t ext[100], out[300];
	uint8_t *b;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ext); i++)
		ext[i] = (uint8_t)(200 + i);
	b = usbip_reply_own(&r, 50);
	memset(b, 1, 50);
	assert_int_equal(usbip_reply_ref(&r, ext, sizeof(ext)), 0);
	b = usbip_reply_own(&r, 50);
	memset(b, 2, 50);
	usbip_reply_trim(&r, 120);	/* into the referenced piece */
	assert_int_equal(r.len, 120);
	assert_int_equal(r.n_pc, 2);
	assert_int_equal(r.own_len, 50);
	b = usbip_reply_own(&r, 10);
	memset(b, 3, 10);
	usbip_reply_flatten(&r, out);
	assert_int_equal(r.len, 130);
	assert_int_equal(out[49], 1);
	assert_memory_equal(out + 50, ext, 70);
	assert_int_equal(out[120], 3);
	assert_int_equal(out[129], 3);
	/* own after own: one piece, contiguous; trimmed inside it */
	usbip_reply_reset(&r);
	b = usbip_reply_own(&r, 48);
	memset(b, 4, 48);
	b = usbip_reply_own(&r, 100);
	memset(b, 5, 100);
	assert_int_equal(r.n_pc, 1);
	usbip_reply_trim(&r, 60);
	assert_int_equal(r.own_len, 60);
	b = usbip_reply_own(&r, 1);
	assert_ptr_equal(b, usbip_reply_own_at(&r, 60));
	assert_int_equal(r.n_pc, 1);
	usbip_reply_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iso_same_wire),
		cmocka_unit_test(test_bulk_same_wire),
		cmocka_unit_test(test_send_partial),
		cmocka_unit_test(test_send_many_pieces),
		cmocka_unit_test(test_send_timeout),
		cmocka_unit_test(test_trim),
	};

	return cmocka_run_group_tests_name("emu_reply", tests, NULL, NULL);
}
