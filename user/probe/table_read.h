/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table_read.h - a BPF hash table's entries as the kernel gives them,
 * walked into buffers kept between reads, and fed as they come to a
 * reader on another thread (collect.c widens them into records while the
 * walk goes on).
 */
#ifndef __FP_TABLE_READ_H
#define __FP_TABLE_READ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "fabprobe.h"

/* Keys per batch call (and per run fed): large enough that one hash bucket always fits. */
#define TABLE_BATCH 4096

enum read_mode {
	READ_AUTO,  /* batch, falling back to per-key iteration */
	READ_BATCH, /* batch only */
	READ_ITER,  /* per-key iteration only */
};

/*
 * The entries a walk has given so far, for a reader on another thread:
 * the walk publishes each batch; the buffers move (grow) only while the
 * reader is not reading them.
 */
struct table_feed {
	pthread_mutex_t lock;
	pthread_cond_t moved; /* more entries, the walk's end, or the reader done */
	size_t n;	      /* entries published */
	bool busy;	      /* the reader is reading entries */
	bool ended;	      /* the walk is over (err is set) */
};

/*
 * One table's walk: keys of key_size bytes (flow_key4 or flow_key) and
 * values, n of them. At most fp_flows4's and fp_flows6's entries: 272 and
 * 320 bytes each.
 */
struct table_read {
	int fd;
	size_t key_size;
	enum read_mode mode;
	void *keys;
	size_t keys_cap, keys_init;
	struct flow_counters *values;
	size_t values_cap, values_init;
	size_t n;
	int err;
	struct table_feed *feed; /* NULL: no reader while it is walked */
};

/* Walk t's table into its buffers (t->n entries, t->err), feeding t->feed if set. */
void table_read(struct table_read *t);

void table_feed_init(struct table_feed *f);
void table_feed_destroy(struct table_feed *f);

/*
 * The reader's side: fn(ctx, keys, values, n) on each run of entries the
 * walk publishes, in order, from *done on, until the walk has ended or fn
 * fails (its error is returned). *done: the entries fn has had.
 */
int table_feed_take(struct table_read *t, size_t *done,
		    int (*fn)(void *ctx, const void *keys, const struct flow_counters *values,
			      size_t n),
		    void *ctx);

#endif /* __FP_TABLE_READ_H */
