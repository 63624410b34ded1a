// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot_sort.c - a snapshot's flows in byte order, largest first (ties
 * by key): a radix sort of 16-byte entries, each run of equal bytes sorted
 * by key, and one gather of the records.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/radix.h"
#include "probe/collect.h"
#include "probe/par.h"

static int cmp_bytes_desc(const void *a, const void *b)
{
	const struct flow_record *x = a, *y = b;

	if (x->c.bytes != y->c.bytes)
		return x->c.bytes < y->c.bytes ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* Below this many flows qsort moving whole records is as fast. */
#define SORT_RADIX_MIN 256

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

/* Entries lo..hi-1 of a run by their records' keys: quicksort, insertion below a few. */
static void sort_places(const struct flow_record *run, struct radix_ent *e, size_t lo, size_t hi)
{
	while (hi - lo > SORT_INSERTION_MAX) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi - 1;
		const struct flow_key *pivot;
		struct radix_ent t;

		/* The median of three as the pivot, moved to lo. */
		if (key_cmp(&run[e[mid].idx].key, &run[e[lo].idx].key) < 0) {
			t = e[mid], e[mid] = e[lo], e[lo] = t;
		}
		if (key_cmp(&run[e[j].idx].key, &run[e[mid].idx].key) < 0) {
			t = e[j], e[j] = e[mid], e[mid] = t;
			if (key_cmp(&run[e[mid].idx].key, &run[e[lo].idx].key) < 0) {
				t = e[mid], e[mid] = e[lo], e[lo] = t;
			}
		}
		t = e[mid], e[mid] = e[lo], e[lo] = t;
		pivot = &run[e[lo].idx].key;
		/* Hoare's partition around e[lo]. */
		for (;;) {
			do
				i++;
			while (i < hi && key_cmp(&run[e[i].idx].key, pivot) < 0);
			while (key_cmp(&run[e[j].idx].key, pivot) > 0)
				j--;
			if (i >= j)
				break;
			t = e[i], e[i] = e[j], e[j] = t;
		}
		t = e[lo], e[lo] = e[j], e[j] = t;
		/* The smaller side by recursion, the larger by the loop: log depth. */
		if (j - lo < hi - j - 1) {
			sort_places(run, e, lo, j);
			lo = j + 1;
		} else {
			sort_places(run, e, j + 1, hi);
			hi = j;
		}
	}
	for (size_t k = lo + 1; k < hi; k++) {
		struct radix_ent held = e[k];
		size_t m = k;

		for (; m > lo && key_cmp(&run[e[m - 1].idx].key, &run[held.idx].key) > 0; m--)
			e[m] = e[m - 1];
		e[m] = held;
	}
}

/* Word w of a key, read so that the order of words is memcmp()'s. */
static inline __u64 key_word(const struct flow_key *k, int w)
{
	__u64 v;

	memcpy(&v, (const char *)k + 8 * w, 8);
	return be64toh(v);
}

#define KEY_WORDS (int)(sizeof(struct flow_key) / 8)
/* A run of ties this long or longer is sorted a key word at a time. */
#define SORT_WORDS_MIN 64

/*
 * Entries e (of records at run[e[].idx]) whose keys agree before word w,
 * by key: radix sorted by word w (held in e[].key), then each group that
 * shares it by the next word. Each record is read once a word, not once
 * a comparison as a quicksort over the records reads it: a run of a
 * million ties is in no cache. tmp: room for n entries.
 */
static void sort_words(const struct flow_record *run, struct radix_ent *e, struct radix_ent *tmp,
		       size_t n, int w)
{
	struct radix_ent *by;

	if (n < SORT_WORDS_MIN || w >= KEY_WORDS) {
		sort_places(run, e, 0, n);
		return;
	}
	for (size_t k = 0; k < n; k++)
		e[k].key = key_word(&run[e[k].idx].key, w);
	by = radix_sort(e, tmp, n);
	if (by != e)
		memcpy(e, by, n * sizeof(*e));
	for (size_t g = 0, h; g < n; g = h) {
		for (h = g + 1; h < n && e[h].key == e[g].key; h++)
			;
		if (h - g > 1)
			sort_words(run, e + g, tmp + g, h - g, w + 1);
	}
}

/* How many records ahead the gather asks for, and how much of each. */
#define SORT_PREFETCH_AHEAD 8
#define SORT_PREFETCH_LINES 6
/* The gather in parts (probe/par.h) of this many records at least. */
#define SORT_PART_MIN 16384

struct gather_job {
	const struct flow_record *in;
	struct flow_record *out;	  /* NULL: the order only (snapshot_order_by_bytes()) */
	struct radix_ent *sorted, *other; /* the sort's entries; room for a run's */
	size_t n;
	/* Part k gathers places bound[k] to bound[k + 1]: each a run's first. */
	size_t bound[PAR_MAX + 1];
};

/*
 * The places of one part (item k of par_run()), each run of equal bytes
 * sorted by key as soon as it lands. A part reads and writes only its
 * own entries: a tie sort rewrites its run's keys.
 */
static void gather_part(void *ctx, int part, size_t k, size_t k_end)
{
	const struct gather_job *j = ctx;
	const struct radix_ent *sorted = j->sorted;
	size_t lo = j->bound[k], hi = j->bound[k_end];

	(void)part;
	for (size_t i = lo, end = lo; i < hi; i++) {
		if (i == end) {
			/* The next run of equal bytes, sorted by key before it is gathered. */
			while (++end < hi && sorted[end].key == sorted[i].key)
				;
			if (end - i > 1)
				sort_words(j->in, j->sorted + i, j->other + i, end - i, 0);
		}
		if (!j->out)
			continue;
		if (i + SORT_PREFETCH_AHEAD < hi) {
			const char *ahead =
			    (const char *)&j->in[sorted[i + SORT_PREFETCH_AHEAD].idx];

			for (int l = 0; l < SORT_PREFETCH_LINES; l++)
				__builtin_prefetch(ahead + l * 64);
		}
		j->out[i] = j->in[sorted[i].idx];
	}
}

/* The gather's parts: n / parts each, each moved on to where a run starts. */
static void gather_bounds(struct gather_job *j, int parts)
{
	j->bound[0] = 0;
	for (int k = 1; k < parts; k++) {
		size_t b = j->n * k / parts;

		if (b < j->bound[k - 1])
			b = j->bound[k - 1];
		while (b > 0 && b < j->n && j->sorted[b].key == j->sorted[b - 1].key)
			b++;
		j->bound[k] = b;
	}
	j->bound[parts] = j->n;
}

/*
 * The records' places by bytes, ties sorted by key, in s->sort_keys (room
 * for 2n); with out, each record also gathered into it in that order, in
 * parts on as many CPUs, each run of equal bytes sorted by key as soon as
 * it lands. NULL: no room for the keys.
 */
static const struct radix_ent *order_by_bytes(struct snapshot *s, struct flow_record *out)
{
	size_t n = s->n_flows;
	struct radix_ent *ent, *sorted;
	const struct flow_record *in = s->flows;

	if (buf_grow((void **)&s->sort_keys, &s->sort_keys_cap, 2 * n + 2, sizeof(*ent)))
		return NULL;
	ent = s->sort_keys;
	/* A record's place in the sort: ~bytes, so ascending is largest first. */
	for (size_t i = 0; i < n; i++)
		ent[i] = (struct radix_ent){.key = ~in[i].c.bytes, .idx = i};
	sorted = radix_sort(ent, ent + n, n);
	{
		/* Room for sorting a run of ties: the half the sort did not end in. */
		struct gather_job j = {.in = in,
				       .out = out,
				       .sorted = sorted,
				       .other = sorted == ent ? ent + n : ent,
				       .n = n};
		int parts = par_parts(n, SORT_PART_MIN);

		gather_bounds(&j, parts);
		par_run(parts, parts, gather_part, &j);
	}
	return sorted;
}

const struct radix_ent *snapshot_order_by_bytes(struct snapshot *s)
{
	return order_by_bytes(s, NULL);
}

/*
 * Largest first, ties by key: what qsort of the records gives, without
 * moving 336-byte records through every comparison: order_by_bytes()
 * gathers them into the spare buffer, which becomes the snapshot's, the
 * old one the spare.
 */
void snapshot_sort_by_bytes(struct snapshot *s)
{
	size_t n = s->n_flows;
	struct flow_record *in = s->flows;

	if (n < SORT_RADIX_MIN ||
	    buf_grow((void **)&s->spare, &s->spare_cap, n, sizeof(*s->spare)) ||
	    !order_by_bytes(s, s->spare)) {
		if (n > 1) /* qsort(NULL, 0, ...) is undefined */
			qsort(s->flows, n, sizeof(*s->flows), cmp_bytes_desc);
		return;
	}
	if (!s->own_flows) {
		/* The caller's array: the order goes back into it. */
		memcpy(in, s->spare, n * sizeof(*in));
		return;
	}
	s->flows = s->spare;
	s->spare = in;
	n = s->cap;
	s->cap = s->spare_cap;
	s->spare_cap = n;
}
