// SPDX-License-Identifier: GPL-2.0
/*
 * table_rids.c - the hash tables' flows' rids past the slots, kept by key
 * from read to read (collect.h, table_rids()).
 */
#include <stdbool.h>
#include <stddef.h>

#include "probe/collect.h"
#include "util/buf.h"
#include "util/kindex.h"

int table_rids(struct snapshot *s, size_t first, __u32 base)
{
	const size_t klen = sizeof(s->trid[0].key), stride = sizeof(s->trid[0]);
	size_t n = s->n_flows - first, fresh = n, free_rid = 0;
	__u64 h[KINDEX_AHEAD];
	bool rebuild;
	int err;

	s->reads++;
	/* What the last read gave out, by key: each rid to one flow at most. */
	for (size_t i = 0; s->trid_index_ok && i < n; i += KINDEX_AHEAD) {
		size_t m = kindex_chunk(i, n);

		for (size_t j = 0; j < m; j++) {
			h[j] = kindex_hash(&s->flows[first + i + j].key, klen, 0);
			kindex_prefetch(&s->trid_index, h[j]);
		}
		for (size_t j = 0; j < m; j++) {
			struct flow_record *r = &s->flows[first + i + j];
			__u32 id = kindex_find_hashed(&s->trid_index, h[j], &r->key, klen, s->trid,
						      stride);

			if (id && s->trid[id - 1].read != s->reads) {
				s->trid[id - 1].read = s->reads;
				r->rid = base + id - 1;
				fresh--;
			}
		}
	}
	err = buf_grow((void **)&s->trid, &s->trid_cap, s->trid_n + fresh, stride);
	rebuild = !s->trid_index_ok || s->trid_index_n + fresh > s->trid_index.size / 2;
	s->trid_index_ok = false;
	if (err)
		return err;
	/*
	 * The flows new to the tables, in the walk's order, until each has
	 * one: a chunk of them at a time, their index slots fetched ahead.
	 */
	for (size_t i = first, left = fresh; left && i < s->n_flows;) {
		struct flow_record *r[KINDEX_AHEAD];
		size_t m = 0;

		for (; m < KINDEX_AHEAD && left && i < s->n_flows; i++) {
			if (s->flows[i].rid != SNAP_NO_RID)
				continue;
			left--;
			r[m] = &s->flows[i];
			if (!rebuild) {
				h[m] = kindex_hash(&r[m]->key, klen, 0);
				kindex_prefetch(&s->trid_index, h[m]);
			}
			m++;
		}
		for (size_t j = 0; j < m; j++) {
			while (free_rid < s->trid_n && s->trid[free_rid].read == s->reads)
				free_rid++;
			if (free_rid == s->trid_n)
				s->trid_n++;
			s->trid[free_rid] = (struct table_rid){.key = r[j]->key, .read = s->reads};
			r[j]->rid = base + free_rid;
			if (!rebuild) {
				__u32 *slot = kindex_slot_hashed(&s->trid_index, h[j], &r[j]->key,
								 klen, s->trid, stride);

				s->trid_index_n += !*slot;
				*slot = free_rid + 1;
			}
		}
	}
	if (rebuild) {
		err = kindex_reset(&s->trid_index, 2 * n);
		for (size_t i = 0; !err && i < n; i += KINDEX_AHEAD) {
			size_t m = kindex_chunk(i, n);

			for (size_t j = 0; j < m; j++) {
				h[j] = kindex_hash(&s->flows[first + i + j].key, klen, 0);
				kindex_prefetch(&s->trid_index, h[j]);
			}
			for (size_t j = 0; j < m; j++) {
				const struct flow_record *r = &s->flows[first + i + j];

				*kindex_slot_hashed(&s->trid_index, h[j], &r->key, klen, s->trid,
						    stride) = r->rid - base + 1;
			}
		}
		s->trid_index_n = err ? 0 : n;
		if (err)
			return err;
	}
	s->trid_index_ok = true;
	return 0;
}
