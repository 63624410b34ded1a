/* SPDX-License-Identifier: GPL-2.0 */
/*
 * radix.h - a stable sort of 16-byte entries by a 64-bit key, for orders
 * over a million rows: no comparison function, a pass per key byte.
 */
#ifndef __FP_RADIX_H
#define __FP_RADIX_H

#include <stddef.h>
#include <linux/types.h>

struct radix_ent {
	__u64 key;
	__u64 idx; /* what the entry stands for: the sort carries it along */
};

/*
 * LSD radix sort of n entries by key, a byte at a time, stable; a byte
 * every key shares takes no pass. tmp: room for n more. Returns the
 * buffer holding the result (a or tmp).
 */
struct radix_ent *radix_sort(struct radix_ent *a, struct radix_ent *tmp, size_t n);

/* A key whose unsigned order is d's order (d not NaN; -0 and +0 the same). */
__u64 radix_key_of_double(double d);

#endif /* __FP_RADIX_H */
