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
#include "isocam_kcompat.h"	/* the kernel version's unaligned.h */
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The kernel's names, as the very types of uint8_t ... int64_t. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

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

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

/* The kernel's exact (a * b) / c; the quotient must fit in 64 bits. */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((__uint128_t)a * b / c);
}

#ifndef S64_MAX
#define S64_MAX ((s64)(~0ULL >> 1))
#endif
#ifndef U32_MAX
#define U32_MAX ((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX ((u64)~0ULL)
#endif
/* GNU statement expressions, as the kernel's: each argument read once. */
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d) ({			\
	__typeof__(d) __d = (d);		\
	((n) + __d - 1) / __d;			\
})
#endif
#ifndef min_t
#define min_t(type, a, b) ({			\
	type __a = (a);				\
	type __b = (b);				\
	__a < __b ? __a : __b;			\
})
#endif
#ifndef max_t
#define max_t(type, a, b) ({			\
	type __a = (a);				\
	type __b = (b);				\
	__a > __b ? __a : __b;			\
})
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif /* __KERNEL__ */

#endif /* ISOCAM_COMPAT_H */
