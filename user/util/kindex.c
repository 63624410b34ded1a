// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/kindex.h"

__u64 kindex_hash(const void *p, size_t len, __u64 seed)
{
	const unsigned char *b = p;
	__u64 h = seed ^ 0x9E3779B97F4A7C15ULL, w;

	for (; len >= 8; len -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, b, len);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
	}
	return h;
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
	size_t mask = x->size - 1, s = kindex_hash(key, klen, 0) & mask;

	while (x->slot[s] &&
	       memcmp((const char *)records + (size_t)(x->slot[s] - 1) * stride, key, klen))
		s = (s + 1) & mask;
	return &x->slot[s];
}

void kindex_free(struct kindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->size = 0;
}
