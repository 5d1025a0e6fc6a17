/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one compat header that lets core/ build both inside the kernel
 * modules and in host unit tests and fuzzers. core/ code uses kernel
 * spellings (u8, get_unaligned_le32, ...) and includes only this.
 */
#ifndef ISOCAM_COMPAT_H
#define ISOCAM_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

static inline u16 get_unaligned_le16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] | b[1] << 8);
}

static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

#ifndef min_t
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#endif
#ifndef max_t
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif /* __KERNEL__ */

#endif /* ISOCAM_COMPAT_H */
