// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Fault injection. Deterministic on purpose: a test that saw a driver
 * bug with --fault=drop=1/50 --seed=7 sees it again on the next run.
 * A rate "1/N" fires on exactly one opportunity in every N, the phase
 * within the N chosen from the seed; "after:N" lets N opportunities pass
 * and fires once, on the next one.
 */
#include "fault.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fault_mode { FAULT_OFF, FAULT_RATE, FAULT_AFTER };

struct fault_rule {
	enum fault_mode mode;
	uint64_t n;
	uint64_t phase;
	uint64_t count;		/* opportunities seen */
};

struct fault {
	struct fault_rule rule[FAULT_KIND_COUNT];
};

static const char *const kind_names[FAULT_KIND_COUNT] = {
	[FAULT_DROP_PACKET] = "drop",
	[FAULT_CORRUPT_HEADER] = "corrupt",
	[FAULT_ERR_BIT] = "err",
	[FAULT_SHORT_FRAME] = "short",
	[FAULT_LONG_FRAME] = "long",
	[FAULT_I2C_NAK] = "nak",
	[FAULT_CTRL_STALL] = "stall",
	[FAULT_VANISH] = "vanish",
};

const char *fault_kind_name(enum fault_kind k)
{
	return (unsigned int)k < FAULT_KIND_COUNT ? kind_names[k] : "?";
}

/* splitmix64: a well-mixed phase from (seed, kind) */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int parse_u64(const char *s, size_t len, uint64_t *v)
{
	char buf[24], *end;
	unsigned long long x;

	if (len == 0 || len >= sizeof(buf) || s[0] == '-' || s[0] == '+')
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_item(struct fault *f, const char *item, size_t len,
		      unsigned int seed, char *err, size_t errlen)
{
	const char *eq = memchr(item, '=', len);
	const char *val;
	size_t name_len, val_len;
	struct fault_rule *r = NULL;
	unsigned int k;

	if (!eq) {
		snprintf(err, errlen, "fault '%.*s': expected NAME=1/N or NAME=after:N",
			 (int)len, item);
		return -1;
	}
	name_len = (size_t)(eq - item);
	for (k = 0; k < FAULT_KIND_COUNT; k++) {
		if (strlen(kind_names[k]) == name_len &&
		    !memcmp(kind_names[k], item, name_len)) {
			r = &f->rule[k];
			break;
		}
	}
	if (!r) {
		snprintf(err, errlen,
			 "fault '%.*s': unknown kind (drop, corrupt, err, short, long, nak, stall, vanish)",
			 (int)name_len, item);
		return -1;
	}
	val = eq + 1;
	val_len = len - name_len - 1;
	if (val_len > 2 && !memcmp(val, "1/", 2)) {
		if (parse_u64(val + 2, val_len - 2, &r->n) < 0 || r->n == 0)
			goto bad;
		r->mode = FAULT_RATE;
		r->phase = mix((uint64_t)seed << 8 | k) % r->n;
	} else if (val_len > 6 && !memcmp(val, "after:", 6)) {
		if (parse_u64(val + 6, val_len - 6, &r->n) < 0)
			goto bad;
		r->mode = FAULT_AFTER;
	} else {
		goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen,
		 "fault '%.*s': value must be 1/N (N >= 1) or after:N",
		 (int)len, item);
	return -1;
}

struct fault *fault_new(const char *spec, unsigned int seed, char *err,
			size_t errlen)
{
	struct fault *f = calloc(1, sizeof(*f));
	const char *p = spec ? spec : "";

	if (!f) {
		snprintf(err, errlen, "fault: out of memory");
		return NULL;
	}
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len && parse_item(f, p, len, seed, err, errlen) < 0) {
			free(f);
			return NULL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return f;
}

void fault_free(struct fault *f)
{
	free(f);
}

bool fault_hit(struct fault *f, enum fault_kind k)
{
	struct fault_rule *r;
	uint64_t c;

	if (!f || (unsigned int)k >= FAULT_KIND_COUNT)
		return false;
	r = &f->rule[k];
	if (r->mode == FAULT_OFF)
		return false;
	c = r->count++;
	if (r->mode == FAULT_RATE)
		return (c + r->phase) % r->n == r->n - 1;
	return c == r->n;
}
