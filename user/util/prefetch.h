/* SPDX-License-Identifier: GPL-2.0 */
/* prefetch.h - memory asked for ahead of its reads. */
#ifndef __FP_PREFETCH_H
#define __FP_PREFETCH_H

#include <stddef.h>

/*
 * Every cache line of the len bytes at p: len / 64 of them, or one more
 * across a boundary. always_inline: GCC finds a function of nothing but
 * prefetches pure, and drops its calls.
 */
static inline __attribute__((always_inline)) void prefetch_lines(const void *p, size_t len)
{
	const char *c = p;

	for (size_t off = 0; off < len; off += 64)
		__builtin_prefetch(c + off);
	__builtin_prefetch(c + len - 1);
}

#endif /* __FP_PREFETCH_H */
