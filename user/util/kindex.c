// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/kindex.h"

static inline __u64 mix(__u64 h, __u64 w, __u64 m)
{
	h = (h ^ w) * m;
	return h ^ h >> 32;
}

/*
 * Two independent lanes, so that each multiply waits for half as many
 * others: a 96-byte flow key is six rounds deep, not twelve.
 */
__u64 kindex_hash(const void *p, size_t len, __u64 seed)
{
	const unsigned char *b = p;
	__u64 h = seed ^ 0x9E3779B97F4A7C15ULL, g = seed ^ 0xC2B2AE3D27D4EB4FULL, w, v;

	for (; len >= 16; len -= 16, b += 16) {
		memcpy(&w, b, 8);
		memcpy(&v, b + 8, 8);
		h = mix(h, w, 0xFF51AFD7ED558CCDULL);
		g = mix(g, v, 0xC4CEB9FE1A85EC53ULL);
	}
	if (len >= 8) {
		memcpy(&w, b, 8);
		h = mix(h, w, 0xFF51AFD7ED558CCDULL);
		len -= 8;
		b += 8;
	}
	if (len) {
		w = 0;
		memcpy(&w, b, len);
		g = mix(g, w, 0xC4CEB9FE1A85EC53ULL);
	}
	return mix(h, g >> 29 ^ g << 35, 0xFF51AFD7ED558CCDULL);
}

int kindex_reset(struct kindex *x, size_t n)
{
	size_t size = 16;

	while (size < 2 * n)
		size *= 2;
	if (size != x->size) {
		free(x->slot);
		x->slot = calloc(size, sizeof(*x->slot));
		x->size = x->slot ? size : 0;
		return x->slot ? 0 : -ENOMEM;
	}
	memset(x->slot, 0, size * sizeof(*x->slot));
	return 0;
}

__u32 *kindex_slot(struct kindex *x, const void *key, size_t klen, const void *records,
		   size_t stride)
{
	return kindex_slot_hashed(x, kindex_hash(key, klen, 0), key, klen, records, stride);
}

/* The entry of key, or the empty one where its probe ends. */
static struct kindex_ent *probe(const struct kindex *x, __u64 h, const void *key, size_t klen,
				const void *records, size_t stride)
{
	size_t mask = x->size - 1, s = h & mask;
	__u32 tag = h >> 32;

	for (;; s = (s + 1) & mask) {
		struct kindex_ent *e = &x->slot[s];

		if (!e->id ||
		    (e->tag == tag &&
		     !memcmp((const char *)records + (size_t)(e->id - 1) * stride, key, klen)))
			return e;
	}
}

__u32 *kindex_slot_hashed(struct kindex *x, __u64 h, const void *key, size_t klen,
			  const void *records, size_t stride)
{
	struct kindex_ent *e = probe(x, h, key, klen, records, stride);

	if (!e->id)
		e->tag = h >> 32; /* for the record the caller may store here */
	return &e->id;
}

__u32 kindex_find(const struct kindex *x, const void *key, size_t klen, const void *records,
		  size_t stride)
{
	return kindex_find_hashed(x, kindex_hash(key, klen, 0), key, klen, records, stride);
}

__u32 kindex_find_hashed(const struct kindex *x, __u64 h, const void *key, size_t klen,
			 const void *records, size_t stride)
{
	return x->size ? probe(x, h, key, klen, records, stride)->id : 0;
}

void kindex_free(struct kindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->size = 0;
}
