/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kindex.h - an open-addressing index over an array of records whose key
 * sits at offset 0: O(1) lookups for the per-refresh joins (previous
 * snapshot, reverse direction, entropy groups, dashboard history).
 */
#ifndef __FP_KINDEX_H
#define __FP_KINDEX_H

#include <stddef.h>
#include <linux/types.h>

/*
 * A slot holds the record's index + 1 (0: empty) and 32 bits of its key's
 * hash, so that a probe past another key compares the tag, not the record:
 * at a million flows the records are far apart in memory and each one a
 * probe reads costs a cache miss.
 */
struct kindex_ent {
	__u32 tag;
	__u32 id;
};

struct kindex {
	struct kindex_ent *slot;
	size_t size; /* a power of two, at least twice the records */
};

/* Empty the index, sized for n records. Returns 0 or -ENOMEM. */
int kindex_reset(struct kindex *x, size_t n);
/*
 * The slot for key (klen bytes) among records (stride bytes apart, key at
 * offset 0): *slot is the record index + 1, or 0 where key is absent, and
 * is where to store a new record's index + 1 (the slot has the key's tag).
 */
__u32 *kindex_slot(struct kindex *x, const void *key, size_t klen, const void *records,
		   size_t stride);
/* The same, for a key whose kindex_hash(key, klen, 0) the caller has. */
__u32 *kindex_slot_hashed(struct kindex *x, __u64 hash, const void *key, size_t klen,
			  const void *records, size_t stride);
/*
 * Look key up without changing the index (readers may share it): the
 * record index + 1, or 0 where key is absent or the index is empty.
 */
__u32 kindex_find(const struct kindex *x, const void *key, size_t klen, const void *records,
		  size_t stride);
__u32 kindex_find_hashed(const struct kindex *x, __u64 hash, const void *key, size_t klen,
			 const void *records, size_t stride);

/*
 * Ask for the slot of a key of this hash to be fetched into the cache: at
 * a million records every slot is a cache miss, and a loop that hashes a
 * few dozen keys ahead of its lookups waits for them together, not in turn.
 */
static inline void kindex_prefetch(const struct kindex *x, __u64 hash)
{
	if (x->size)
		__builtin_prefetch(&x->slot[hash & (x->size - 1)]);
}

/* Keys a loop hashes and prefetches ahead of its lookups (see kindex_prefetch). */
#define KINDEX_AHEAD 32

/* How many of n items from i on the next such chunk holds. */
static inline size_t kindex_chunk(size_t i, size_t n)
{
	return n - i < KINDEX_AHEAD ? n - i : KINDEX_AHEAD;
}
void kindex_free(struct kindex *x);

/* 64-bit hash of len bytes, sixteen at a time in two lanes. */
__u64 kindex_hash(const void *p, size_t len, __u64 seed);

#endif /* __FP_KINDEX_H */
