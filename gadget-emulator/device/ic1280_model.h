/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The IC1280 sensor's register file, as an i2c device on the bridge's
 * bus. Register semantics: include/isocam/ic1280_regs.h. One instance
 * per emulated camera; no global state.
 */
#ifndef ISOCAM_EMU_IC1280_MODEL_H
#define ISOCAM_EMU_IC1280_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scene.h"

struct ic1280;

/* chip_id is what CHIP_ID reads back (IC1280_CHIP_ID unless faked). */
struct ic1280 *ic1280_new(uint16_t chip_id);
void ic1280_free(struct ic1280 *s);

/*
 * i2c transfers addressed to the sensor. A write's first two bytes set
 * the register pointer (big endian); further bytes are written with
 * auto-increment. A read returns bytes from the pointer, auto-increment.
 * Return 0 when every byte was acknowledged, -1 on NAK (a write of a
 * lone address byte, or a byte to a read-only register, is NAKed).
 */
int ic1280_i2c_write(struct ic1280 *s, const uint8_t *buf, size_t len);
int ic1280_i2c_read(struct ic1280 *s, uint8_t *buf, size_t len);

/* Direct register access for logs, tests and the debug query. */
uint8_t ic1280_reg_get(const struct ic1280 *s, uint16_t addr);

/* MODE_SELECT is STREAMING. */
bool ic1280_streaming(const struct ic1280 *s);

/*
 * How many times MODE_SELECT went from standby to streaming (a software
 * reset ends a stream too). The packetizer compares it between packets to
 * notice a stop/start that happened while nobody polled for packets.
 */
uint32_t ic1280_stream_starts(const struct ic1280 *s);

/* Frame period in nanoseconds, from the timing registers. */
uint64_t ic1280_frame_period_ns(const struct ic1280 *s);

/* Everything the picture depends on, effective values (AEC/AWB applied). */
void ic1280_scene_params(const struct ic1280 *s, struct scene_params *p);

/*
 * Bumped on every register write that changes the picture, so the
 * renderer can rebuild its tables only when needed.
 */
uint32_t ic1280_generation(const struct ic1280 *s);

#endif /* ISOCAM_EMU_IC1280_MODEL_H */
