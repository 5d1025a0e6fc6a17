/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A USB/IP client playing vhci against an in-process isocam-emu server,
 * over a socketpair, for the unit tests, the fuzzers and the benches.
 * Nothing here asserts: every call returns what happened, so cmocka
 * tests, libFuzzer targets and benches each judge it their own way.
 */
#ifndef ISOCAM_TEST_USBIP_CLIENT_H
#define ISOCAM_TEST_USBIP_CLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "usbip_proto.h"

struct usbip_server;

struct usbip_client {
	struct usbip_server *srv;
	pthread_t thread;	/* usbip_server_serve_fd() on server_fd */
	int fd;			/* the client's end */
	int server_fd;
	const char *peer;	/* what the server logs the client as */
	uint32_t seq;		/* the next seqnum */
	uint32_t devid;		/* busnum << 16 | devnum, from the import */
	struct usbip_usb_device dev;	/* the import reply's device */
};

/* Connect to srv: a socketpair and a thread serving it. 0 or -errno. */
int usbip_client_connect(struct usbip_client *c, struct usbip_server *srv,
			 const char *peer);
/* Close the client's end and wait for the server to end the session. */
void usbip_client_hangup(struct usbip_client *c);

/* Send all of buf; 0 or -1 (the server closed). */
int usbip_client_send(struct usbip_client *c, const void *buf, size_t len);
/*
 * Exactly len bytes, each read within ms (-1: no limit); -1 on EOF or
 * silence, 0 when all came. usbip_fd_recv() reads any socket so.
 */
int usbip_client_recv(struct usbip_client *c, void *buf, size_t len, int ms);
int usbip_fd_recv(int fd, void *buf, size_t len, int ms);
/* Nothing arrives within ms. */
bool usbip_client_silent(struct usbip_client *c, int ms);

/*
 * OP_REQ_IMPORT busid within ms: 0 once imported (c->devid and c->dev
 * set), the refusal's status (usbipd's ST_* codes, > 0), -1 when the
 * reply did not come or did not parse.
 */
int usbip_client_import(struct usbip_client *c, const char *busid, int ms);

/*
 * A control CMD_SUBMIT into buf (room for USBIP_HEADER_LEN + len), with
 * the next seqnum; its length. out: len bytes for an OUT request.
 */
size_t usbip_client_encode_ctrl(struct usbip_client *c, uint8_t *buf,
				uint8_t bm, uint8_t req, uint16_t val,
				uint16_t idx, uint16_t len, const void *out);
/*
 * An iso IN CMD_SUBMIT on ep of np packets of plen bytes (tbl: the
 * transfer buffer's length), URB_ISO_ASAP, into buf (room for
 * USBIP_HEADER_LEN + np * USBIP_ISO_DESC_LEN); its length.
 */
size_t usbip_client_encode_iso(struct usbip_client *c, uint8_t *buf,
			       uint8_t ep, uint32_t np, uint32_t plen,
			       uint32_t tbl);
/* A bulk IN CMD_SUBMIT of len bytes on ep into buf; its length. */
size_t usbip_client_encode_bulk(struct usbip_client *c, uint8_t *buf,
				uint8_t ep, uint32_t len);
/* A CMD_UNLINK of victim into buf (USBIP_HEADER_LEN); its length. */
size_t usbip_client_encode_unlink(struct usbip_client *c, uint8_t *buf,
				  uint32_t victim);

/*
 * Receive one reply into buf (cap bytes) within ms a read and parse it as
 * vhci would (for a RET_SUBMIT: of an IN URB?, of an iso URB of np
 * packets?). The reply's length; -1 when it did not come, -2 when it does
 * not fit cap, -3 when vhci would reject it (the reason in err).
 */
long usbip_client_recv_ret(struct usbip_client *c, bool in, bool iso,
			   uint32_t np, struct usbip_ret *ret, uint8_t *buf,
			   size_t cap, int ms, char *err, size_t errlen);

/*
 * A whole control transfer (at most 256 data bytes) within ms: the URB's
 * status if it failed (< 0), else the bytes moved, IN data copied to
 * data. USBIP_CLIENT_BROKEN when the reply did not come or was not the
 * URB's.
 */
#define USBIP_CLIENT_BROKEN	(-1000)
int usbip_client_ctrl(struct usbip_client *c, uint8_t bm, uint8_t req,
		      uint16_t val, uint16_t idx, uint16_t len, void *data,
		      int ms);

#endif /* ISOCAM_TEST_USBIP_CLIENT_H */
