// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "util/radix.h"

struct radix_ent *radix_sort(struct radix_ent *a, struct radix_ent *tmp, size_t n)
{
	__u64 differ = 0;

	for (size_t i = 1; i < n; i++)
		differ |= a[i].key ^ a[0].key;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = {}, at = 0;
		struct radix_ent *t;

		if (!(differ >> shift & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[a[i].key >> shift & 0xff]++;
		for (int d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[a[i].key >> shift & 0xff]++] = a[i];
		t = a;
		a = tmp;
		tmp = t;
	}
	return a;
}

__u64 radix_key_of_double(double d)
{
	__u64 u;

	d += 0.0; /* -0 is +0 */
	memcpy(&u, &d, sizeof(u));
	/* Negatives: every bit flipped (larger magnitude, smaller); positives: above them. */
	return u >> 63 ? ~u : u | 1ULL << 63;
}
