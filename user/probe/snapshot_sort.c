// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot_sort.c - a snapshot's flows in byte order, largest first (ties
 * by key): a radix sort of 16-byte entries, one gather of the records, and
 * each run of equal bytes sorted as it lands.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "probe/collect.h"

static int cmp_bytes_desc(const void *a, const void *b)
{
	const struct flow_record *x = a, *y = b;

	if (x->c.bytes != y->c.bytes)
		return x->c.bytes < y->c.bytes ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* Below this many flows qsort moving whole records is as fast. */
#define SORT_RADIX_MIN 256

/* A record's place in the sort (snapshot.sort_keys): ~bytes, so ascending is largest first. */
struct sort_ent {
	__u64 key;
	__u64 idx;
};

/*
 * LSD radix sort of n entries by key, a byte at a time, stable; a byte
 * every key shares takes no pass. Returns the buffer holding the result.
 */
static struct sort_ent *radix_sort(struct sort_ent *a, struct sort_ent *tmp, size_t n)
{
	__u64 differ = 0;

	for (size_t i = 1; i < n; i++)
		differ |= a[i].key ^ a[0].key;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = {}, at = 0;
		struct sort_ent *t;

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

/* Runs of equal bytes, or parts of one, up to this long are sorted by insertion. */
#define SORT_INSERTION_MAX 8

/*
 * memcmp()'s order of two keys, 8 bytes at a time: the first word that
 * differs decides, read big-endian. Inline, where the tie sort's memcmp
 * through qsort's comparator was most of its cost.
 */
static inline int key_cmp(const struct flow_key *a, const struct flow_key *b)
{
	_Static_assert(sizeof(*a) % 8 == 0, "key_cmp takes the key a word at a time");
	const char *x = (const char *)a, *y = (const char *)b;

	for (size_t off = 0; off < sizeof(*a); off += 8) {
		__u64 u, v;

		memcpy(&u, x + off, 8);
		memcpy(&v, y + off, 8);
		if (u != v)
			return be64toh(u) < be64toh(v) ? -1 : 1;
	}
	return 0;
}

/* Places lo..hi-1 of a run by their records' keys: quicksort, insertion below a few. */
static void sort_places(const struct flow_record *run, __u32 *pos, size_t lo, size_t hi)
{
	while (hi - lo > SORT_INSERTION_MAX) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi - 1;
		const struct flow_key *pivot;
		__u32 t;

		/* The median of three as the pivot, moved to lo. */
		if (key_cmp(&run[pos[mid]].key, &run[pos[lo]].key) < 0) {
			t = pos[mid], pos[mid] = pos[lo], pos[lo] = t;
		}
		if (key_cmp(&run[pos[j]].key, &run[pos[mid]].key) < 0) {
			t = pos[j], pos[j] = pos[mid], pos[mid] = t;
			if (key_cmp(&run[pos[mid]].key, &run[pos[lo]].key) < 0) {
				t = pos[mid], pos[mid] = pos[lo], pos[lo] = t;
			}
		}
		t = pos[mid], pos[mid] = pos[lo], pos[lo] = t;
		pivot = &run[pos[lo]].key;
		/* Hoare's partition around pos[lo]. */
		for (;;) {
			do
				i++;
			while (i < hi && key_cmp(&run[pos[i]].key, pivot) < 0);
			while (key_cmp(&run[pos[j]].key, pivot) > 0)
				j--;
			if (i >= j)
				break;
			t = pos[i], pos[i] = pos[j], pos[j] = t;
		}
		t = pos[lo], pos[lo] = pos[j], pos[j] = t;
		/* The smaller side by recursion, the larger by the loop: log depth. */
		if (j - lo < hi - j - 1) {
			sort_places(run, pos, lo, j);
			lo = j + 1;
		} else {
			sort_places(run, pos, j + 1, hi);
			hi = j;
		}
	}
	for (size_t k = lo + 1; k < hi; k++) {
		__u32 held = pos[k];
		size_t m = k;

		for (; m > lo && key_cmp(&run[pos[m - 1]].key, &run[held].key) > 0; m--)
			pos[m] = pos[m - 1];
		pos[m] = held;
	}
}

/*
 * A run of n records of equal bytes, just gathered (so in the cache), by
 * key. The places are sorted, 4 bytes each, and the records then moved
 * once each, cycle by cycle. pos: room for n places.
 */
static void sort_run(struct flow_record *run, __u32 *pos, size_t n)
{
	for (__u32 k = 0; k < n; k++)
		pos[k] = k;
	sort_places(run, pos, 0, n);
	/* Place k takes the record at pos[k]; a place done points at itself. */
	for (__u32 k = 0; k < n; k++) {
		struct flow_record held;
		__u32 at = k;

		if (pos[k] == k)
			continue;
		held = run[k];
		while (pos[at] != k) {
			__u32 from = pos[at];

			run[at] = run[from];
			pos[at] = at;
			at = from;
		}
		run[at] = held;
		pos[at] = at;
	}
}

/* How many records ahead the gather asks for, and how much of each. */
#define SORT_PREFETCH_AHEAD 8
#define SORT_PREFETCH_LINES 6

/*
 * Largest first, ties by key: what qsort of the records gives, without
 * moving 336-byte records through every comparison. The bytes are radix
 * sorted beside each record's index, the records gathered in that order
 * into the spare buffer (which becomes the snapshot's, the old one the
 * spare), and each run of equal bytes sorted by key as soon as it lands.
 */
void snapshot_sort_by_bytes(struct snapshot *s)
{
	size_t n = s->n_flows, line = 64;
	struct sort_ent *ent, *sorted;
	struct flow_record *out, *in = s->flows;
	__u32 *pos;

	if (n < SORT_RADIX_MIN ||
	    buf_grow((void **)&s->sort_keys, &s->sort_keys_cap, 2 * n, sizeof(*ent)) ||
	    buf_grow((void **)&s->spare, &s->spare_cap, n, sizeof(*s->spare))) {
		if (n > 1) /* qsort(NULL, 0, ...) is undefined */
			qsort(s->flows, n, sizeof(*s->flows), cmp_bytes_desc);
		return;
	}
	ent = s->sort_keys;
	for (size_t i = 0; i < n; i++)
		ent[i] = (struct sort_ent){.key = ~in[i].c.bytes, .idx = i};
	sorted = radix_sort(ent, ent + n, n);
	/* The half of the entries the sort did not end in: the runs' places. */
	pos = (__u32 *)(sorted == ent ? ent + n : ent);
	out = s->spare;
	for (size_t i = 0, run = 0; i < n; i++) {
		if (i + SORT_PREFETCH_AHEAD < n) {
			const char *ahead = (const char *)&in[sorted[i + SORT_PREFETCH_AHEAD].idx];

			for (int l = 0; l < SORT_PREFETCH_LINES; l++)
				__builtin_prefetch(ahead + l * line);
		}
		out[i] = in[sorted[i].idx];
		if (i + 1 < n && sorted[i + 1].key == sorted[i].key)
			continue;
		if (i > run)
			sort_run(&out[run], pos, i + 1 - run);
		run = i + 1;
	}
	if (!s->own_flows) {
		/* The caller's array: the order goes back into it. */
		memcpy(in, out, n * sizeof(*in));
		return;
	}
	s->flows = out;
	s->spare = in;
	n = s->cap;
	s->cap = s->spare_cap;
	s->spare_cap = n;
}
