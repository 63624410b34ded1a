/* SPDX-License-Identifier: GPL-2.0 */
/*
 * balance.h - which replay worker runs a bucket of flows, and buckets moved
 * between workers to even their load without running a flow's frames out
 * of order (runpool.c does the moving; this decides it).
 *
 * A frame's shard (a hash of its flow) picks one of BALANCE_BUCKETS
 * buckets, and a bucket one worker. Each BALANCE_NS the pool gives each
 * worker's spare time over the window: the window less the CPU time the
 * worker used, less the reader's too if the worker shares the reader's
 * CPU. Buckets then move from the worker with the least spare to the one
 * with the most, as much of the first's work (its buckets' frames in the
 * window) as halves the difference,
 * when that is more than BALANCE_SLACK of the window: equal shares are
 * unequal work when a worker shares the reader's CPU, or when frames run
 * alone. A moved bucket's next frames must wait until the worker its last
 * frame went to has run the batch that frame is in; the window after a
 * move is not judged (the wait is in it).
 */
#ifndef __FP_BALANCE_H
#define __FP_BALANCE_H
#include <stdbool.h>
#include <linux/types.h>

#define BALANCE_BUCKETS 256
#define BALANCE_NS	(10 * 1000 * 1000ULL)
#define BALANCE_SLACK	0.05

struct balance {
	int n;			       /* workers */
	__u8 owner[BALANCE_BUCKETS];   /* each bucket's worker */
	__u8 last_w[BALANCE_BUCKETS];  /* the worker its last frame went to */
	__u64 last[BALANCE_BUCKETS];   /* and that worker's batch it is in (1 the first; 0 none) */
	__u32 frames[BALANCE_BUCKETS]; /* frames sent since the last look */
	__u64 window;		       /* when the load was last looked at, ns */
	bool calm;		       /* buckets moved then: this window is not judged */
	bool test;		       /* FABPROBE_TEST_REBALANCE: move half, every look */
	int moves;		       /* buckets moved, for -v */
};

void balance_init(struct balance *b, int n);

static inline int balance_worker(const struct balance *b, __u32 shard)
{
	return b->owner[shard % BALANCE_BUCKETS];
}

/* A frame of shard went into the batch-th batch of worker w (counting from 1). */
static inline void balance_sent(struct balance *b, __u32 shard, int w, __u64 batch)
{
	b->last_w[shard % BALANCE_BUCKETS] = (__u8)w;
	b->last[shard % BALANCE_BUCKETS] = batch;
	b->frames[shard % BALANCE_BUCKETS]++;
}

/*
 * Time to look at the load at now (ns): a window is over, and the program
 * is loaded (before, the workers run nothing to measure).
 */
bool balance_due(const struct balance *b, __u64 now, bool loaded);

/*
 * Look at the window that ends at now: spare[i] and used[i] are worker
 * i's spare and CPU time in it, ns. Returns the worker buckets moved to,
 * or -1; then after[x] is the batch of worker x the moved buckets' next
 * frames wait for (0: none), for every x.
 */
int balance_look(struct balance *b, __u64 now, const double *spare, const double *used,
		 __u64 *after);
#endif /* __FP_BALANCE_H */
