/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Fault injection (--fault=...): a hostile camera on request, so the
 * driver can be hardened. Each fault fires with a rate "1/N" (every Nth
 * opportunity, deterministic from a per-instance seed) or at a count
 * ("after:N" opportunities). One instance per emulated camera.
 */
#ifndef ISOCAM_EMU_FAULT_H
#define ISOCAM_EMU_FAULT_H

#include <stdbool.h>
#include <stddef.h>

enum fault_kind {
	FAULT_DROP_PACKET,	/* packet: sent as zero-length instead */
	FAULT_CORRUPT_HEADER,	/* packet: garbage bHeaderLength / bits */
	FAULT_ERR_BIT,		/* packet: ISOCAM_PH_ERR set */
	FAULT_SHORT_FRAME,	/* frame: EOF early, frame cut short */
	FAULT_LONG_FRAME,	/* frame: extra payload past sizeimage */
	FAULT_I2C_NAK,		/* control: i2c transfer NAKed */
	FAULT_CTRL_STALL,	/* control: any vendor request STALLs */
	FAULT_VANISH,		/* stream: drop the connection (unplug) */
	FAULT_KIND_COUNT
};

struct fault;

/*
 * Parse a comma-separated spec, e.g. "drop=1/50,err=1/200,vanish=after:300".
 * Names: drop, corrupt, err, short, long, nak, stall, vanish. Returns NULL
 * and writes a message to err on a bad spec; an empty spec is valid.
 */
struct fault *fault_new(const char *spec, unsigned int seed, char *err,
			size_t errlen);
void fault_free(struct fault *f);

/* One opportunity for fault k: true when it fires now. f may be NULL. */
bool fault_hit(struct fault *f, enum fault_kind k);

/* The spec's names, for --help. */
const char *fault_kind_name(enum fault_kind k);

#endif /* ISOCAM_EMU_FAULT_H */
