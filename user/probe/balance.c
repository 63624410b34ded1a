// SPDX-License-Identifier: GPL-2.0
/* balance.c - buckets of flows moved between replay workers (see balance.h). */
#include <stdlib.h>
#include <string.h>

#include "probe/balance.h"

void balance_init(struct balance *b, int n)
{
	memset(b, 0, sizeof(*b));
	b->n = n;
	for (int k = 0; k < BALANCE_BUCKETS; k++)
		b->owner[k] = (__u8)(k % n);
	b->calm = true; /* the first window starts at the first look */
	/* A test hook: moves every look, so the order across moves is tested. */
	b->test = getenv("FABPROBE_TEST_REBALANCE") != NULL;
}

bool balance_due(const struct balance *b, __u64 now, bool loaded)
{
	return b->n > 1 && (b->test || (loaded && now - b->window >= BALANCE_NS));
}

/*
 * Move share (0..1) of hi's work, by its buckets' frames in the window, to
 * lo, keeping hi at least one bucket that had frames; the waits into after[].
 */
static void move(struct balance *b, int hi, int lo, double share, __u64 *after)
{
	double load = 0, want;
	int busy = 0;

	for (int k = 0; k < BALANCE_BUCKETS; k++)
		if (b->owner[k] == hi && b->frames[k]) {
			load += b->frames[k];
			busy++;
		}
	want = load * share;
	for (int k = 0; k < BALANCE_BUCKETS && want > 0 && busy > 1; k++) {
		/* A bucket of more than twice what is left would only tip the other way. */
		if (b->owner[k] != hi || !b->frames[k] || b->frames[k] >= 2 * want)
			continue;
		b->owner[k] = (__u8)lo;
		b->moves++;
		want -= b->frames[k];
		busy--;
		/* Its frames so far all ran, or will, before this one on lo. */
		if (b->last_w[k] == lo || !b->last[k])
			continue;
		if (b->last[k] > after[b->last_w[k]])
			after[b->last_w[k]] = b->last[k];
	}
}

int balance_look(struct balance *b, __u64 now, const double *spare, const double *used,
		 __u64 *after)
{
	double span = (double)(now - b->window), share;
	int hi = 0, lo = 0;

	b->window = now;
	memset(after, 0, (size_t)b->n * sizeof(*after));
	if (b->test) {
		hi = (int)(b->moves % b->n);
		lo = (hi + 1) % b->n;
		move(b, hi, lo, 0.5, after);
	} else if (b->calm) {
		b->calm = false;
		lo = -1;
	} else {
		for (int i = 1; i < b->n; i++) {
			if (spare[i] < spare[hi])
				hi = i;
			if (spare[i] > spare[lo])
				lo = i;
		}
		share = used[hi] > 0 ? (spare[lo] - spare[hi]) / 2 / used[hi] : 0;
		if (spare[lo] - spare[hi] < BALANCE_SLACK * span || share <= 0) {
			lo = -1;
		} else {
			move(b, hi, lo, share < 0.5 ? share : 0.5, after);
			b->calm = true;
		}
	}
	memset(b->frames, 0, sizeof(b->frames));
	return lo;
}
