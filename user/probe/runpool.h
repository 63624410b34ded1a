/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runpool.h - run recorded frames through the probe on every core: worker
 * threads, each fed the frames of the flows sharded to it, in order.
 *
 * The caller names a frame's shard (source/shard.h: a software RSS over
 * the outer headers, as a NIC picks a receive queue); a shard runs on one
 * worker at a time, and moves to another (balance.h) only behind its
 * frames queued before, so a flow's frames reach the BPF program in
 * capture order and its PSN tracking is what one thread would see. The caller's
 * thread packs frames into fp_replay's batches (probe_batch_*), one
 * BPF_PROG_TEST_RUN for many frames, inside per-worker batches of them, so
 * a worker wakes once per batch, not once per frame. A frame counts as
 * probe_run_frame() alone counts it, and runpool_drain() is when the maps
 * hold every frame queued. Workers are pinned to CPUs (runpool.c), so the
 * flows a full table evicts are the same from run to run with one thread.
 */
#ifndef __FP_RUNPOOL_H
#define __FP_RUNPOOL_H

#include <stdbool.h>
#include <linux/types.h>

#include "probe/probe.h"

#define RUNPOOL_MAX_THREADS 64

struct runpool;

/*
 * The default number of workers: one per CPU the process may run on (as
 * nproc counts them). The thread that reads the input shares a CPU with
 * one of them, and buckets of flows move between workers to even their
 * load (balance.h).
 */
int runpool_default_threads(void);
/* The CPUs the process may run on (taskset, a cpuset); 0 when unknown. */
int runpool_cpus(void);

/*
 * A pool of threads workers over p (0: runpool_default_threads()). NULL,
 * with errno set, when the threads cannot be started.
 */
struct runpool *runpool_new(struct probe *p, int threads);
/*
 * The same, but the pool loads the program itself: its first worker runs
 * probe_load(p, o) (mostly the verifier, about 50 ms of one CPU) while
 * the caller goes on reading and queueing frames, up to a read-ahead of
 * 32 MiB, after which runpool_submit() waits for the program. p is the
 * pool's until runpool_wait_loaded() returns; the caller touches it only
 * after that.
 */
struct runpool *runpool_new_loading(struct probe *p, const struct probe_opts *o, int threads);
/* The program is loaded, or failed to: runpool_wait_loaded() will not wait. */
bool runpool_loaded(const struct runpool *rp);
/*
 * Wait until the program is loaded: probe_load()'s result, 0 or a
 * negative errno (it said why on stderr). After a failure the frames
 * queued are dropped, never run, and the pool only serves to be freed.
 */
int runpool_wait_loaded(struct runpool *rp);
int runpool_threads(const struct runpool *rp);

/*
 * Queue one frame of shard (any 32-bit value) to run; as probe_run_frame()
 * takes it. tag comes back from runpool_failed() if this frame fails.
 * Returns 0, or the first error a worker met (then nothing more is queued).
 */
int runpool_submit(struct runpool *rp, __u32 shard, const void *frame, __u32 caplen, __u32 wire_len,
		   __u64 ts_ns, __u32 path_id, __u64 tag);

/*
 * Wait until every frame queued has run: the maps then hold them all.
 * Returns 0 or the first error a worker met.
 */
int runpool_drain(struct runpool *rp);

/* Frames the kernel refused to lay out (-EINVAL), counted, never lost silently. */
__u64 runpool_refused(struct runpool *rp);

/* The first error a worker met and the tag of its frame; false if none. */
bool runpool_failed(struct runpool *rp, int *err, __u64 *tag);

/* Stop the workers (after the frames queued have run) and free the pool. */
void runpool_free(struct runpool *rp);

#endif /* __FP_RUNPOOL_H */
