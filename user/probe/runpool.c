// SPDX-License-Identifier: GPL-2.0
/*
 * runpool.c - worker threads that run recorded frames through the probe,
 * a flow's frames always on the same worker (see runpool.h).
 *
 * One lock guards the queues; it is taken once per batch of frames. The
 * kernel runs each BPF_PROG_TEST_RUN on the calling thread's CPU
 * (migration off), so the per-CPU maps take workers as they take CPUs.
 * Preemption stays on: on a fully preemptible kernel (preempt=full) a
 * worker could be preempted inside the program by another on the same CPU.
 * The program keeps nothing per CPU across that but fp_totals' plain
 * increments; a new flow's first value is on the stack (bpf/core.h).
 *
 * Each worker is pinned to a CPU of the process's affinity, in turn from
 * the one after the reader's (cpus_in_turn()). The kernel's LRU hash keeps
 * free elements in per-CPU lists, so which flow a full table evicts
 * depends on the CPU an insert runs on: pinned, one worker evicts the same
 * flows each time a recording is run. A worker that cannot be pinned runs
 * unpinned (said under -v).
 *
 * The submitter packs each worker's frames into fp_replay's batches
 * (probe.h) straight in the memory it hands that worker, in their order,
 * and closes a batch when the next frame does not fit or the pool drains:
 * one BPF_PROG_TEST_RUN for up to FP_BATCH_MAX_FRAMES frames. A frame no
 * batch takes (too long, or too short) runs alone, after the batch before
 * it. So a frame is copied once in userspace, by the thread that read it,
 * and a worker only runs what it is handed (BENCHMARKS.md, part 9, has
 * the profile of who does what).
 *
 * A pool may load the program itself (runpool_new_loading()): the first
 * worker runs probe_load(), which is mostly the verifier (about 50 ms of
 * one CPU), while the submitter goes on reading. Until the program is
 * loaded the submitter is not held to BATCHES_WORKER batches a worker: it
 * takes new ones until READAHEAD_BYTES of frames wait, then waits itself;
 * and it queues frames one by one, for the worker to pack, since the size
 * of a batch the kernel lays out is known only then. Batches beyond
 * BATCHES_WORKER are freed as their frames run.
 *
 * Between frames, after a batch was queued, the submitter may move
 * buckets of shards between workers (rebalance(), balance.h). A batch
 * carries what it waits for (after[]): the batches of other workers that
 * hold the last frames of the buckets moved to its worker before it was
 * queued. Those were queued earlier, and a worker runs its queue in order,
 * so the batch queued first of those not yet run can always run: no wait
 * closes a circle.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe/balance.h"
#include "probe/cpus.h"
#include "probe/runpool.h"
#include "util/log.h"
#include "util/stop.h"

_Static_assert(RUNPOOL_MAX_THREADS <= 256, "a bucket's worker is a __u8 (balance.h)");

#define BATCH_FRAMES   1024
#define BATCH_BYTES    (256 * 1024)
#define BATCHES_WORKER 4
/* Frames queued (bytes, with their jobs) while the program loads, at most. */
#define READAHEAD_BYTES (32u << 20)

/*
 * One run of a worker: len bytes at off, either a sealed fp_replay batch
 * (probe_batch_seal()) or one frame behind its struct fp_replay_meta.
 */
struct job {
	__u64 tag; /* the frame's, or the batch's first frame's */
	__u32 off;
	__u32 len;
	bool sealed;
};

struct batch {
	struct batch *next;
	int n;
	size_t used;
	/* Run only once worker i has run its first after[i] batches (moved buckets). */
	__u64 after[RUNPOOL_MAX_THREADS];
	struct job jobs[BATCH_FRAMES];
	__u8 bytes[BATCH_BYTES];
};

/* Results of runs: refusals counted, the first error and its frame's tag kept. */
struct tally {
	__u64 refused;
	int err;
	__u64 err_tag;
};

struct runner {
	int fd;		 /* probe_run_fd()'s program */
	__u64 batch_tag; /* the tag of the batch's first frame */
	struct probe_batch batch;
};

struct worker {
	struct runpool *rp;
	pthread_t thread;
	struct runner run;		  /* with a program file of this worker's own */
	pthread_cond_t work;		  /* a batch queued for this worker, or quit */
	struct batch *queue, *queue_tail; /* full batches, oldest first */
	struct batch *free;		  /* empty batches */
	struct batch *filling;		  /* the submitter's, not yet queued */
	struct probe_batch pack;	  /* the submitter's, open inside filling (pack.buf) */
	__u64 pack_tag;			  /* its first frame's */
	int batches;			  /* allocated: queued, free, filling or running */
	bool running;			  /* a batch taken off the queue */
	bool held;			  /* its next batch waits for another worker's */
	int cpu;			  /* the CPU it is pinned to; -1: none */
	__u64 queued;			  /* batches queued so far; the filling one is queued + 1 */
	__u64 done;			  /* batches run so far (under the lock) */
	clockid_t clock;		  /* its CPU time's */
	__u64 cpu_seen;			  /* its CPU time at the last look */
	__u64 after[RUNPOOL_MAX_THREADS]; /* what its batches queued from now wait for */
};

struct runpool {
	struct probe *probe;
	/* Bytes of an fp_replay batch the submitter packs (atomic); 0: it packs none. */
	__u32 pack_cap;
	int n;
	pthread_mutex_t lock;
	pthread_cond_t idle; /* a batch done (the submitter waits for one) */
	bool quit;
	struct tally t; /* every run's, workers' merged under the lock */
	/* runpool_new_loading(): what the first worker loads the program with. */
	bool load;
	struct probe_opts load_opts;
	bool loaded;  /* no program to wait for (set under the lock, read atomically) */
	int load_err; /* probe_load()'s result; after a failure no frame runs */
	size_t ahead; /* bytes of frames queued before the program was loaded */
	/* The submitter's: which worker runs a frame, by its shard (balance.h). */
	struct balance bal;
	bool look;	   /* a batch was queued: time to look at the load */
	bool stays;	   /* the submitter is kept on its CPU (cpus_stay()) */
	__u64 reader_seen; /* the submitter's CPU time at the last look */
	struct worker w[];
};

int runpool_cpus(void)
{
	cpu_set_t set;

	return cpus_allowed(&set);
}

int runpool_default_threads(void)
{
	long n = runpool_cpus() ?: sysconf(_SC_NPROCESSORS_ONLN);

	/* The reader shares a CPU with a worker; balance.h evens their load. */
	if (n < 1)
		return 1;
	return n > RUNPOOL_MAX_THREADS ? RUNPOOL_MAX_THREADS : (int)n;
}

int runpool_threads(const struct runpool *rp)
{
	return rp->n;
}

/* One run's result: count a refusal, keep the first error and its frame's tag. */
static void tally(struct tally *t, int e, __u64 tag)
{
	if (e == -EINVAL)
		t->refused++;
	else if (e && !t->err) {
		t->err = e;
		t->err_tag = tag;
	}
}

static void runner_init(struct runner *r, const struct probe *p, int fd)
{
	r->fd = fd;
	probe_batch_reset(&r->batch, p);
}

/*
 * A batch's run, by its first frame's tag: a batch the kernel will not run
 * is a bug here, not frames to skip.
 */
static void tally_batch(struct tally *t, int e, __u64 tag)
{
	tally(t, e == -EINVAL ? -EPROTO : e, tag);
}

/* Run the frames batched so far. */
static void runner_flush(struct runner *r, const struct probe *p, struct tally *t)
{
	if (r->batch.frames)
		tally_batch(t, probe_batch_run(p, r->fd, &r->batch), r->batch_tag);
}

/* One frame (behind its struct fp_replay_meta m), after those before it. */
static void runner_frame(struct runner *r, const struct probe *p, const struct fp_replay_meta *m,
			 __u32 caplen, __u64 tag, struct tally *t)
{
	const void *frame = m + 1;

	if (!probe_batch_add(&r->batch, frame, caplen, m)) {
		runner_flush(r, p, t);
		if (!probe_batch_add(&r->batch, frame, caplen, m)) {
			tally(t, probe_run_prepared(p, r->fd, m, sizeof(*m) + caplen), tag);
			return;
		}
	}
	if (r->batch.frames == 1)
		r->batch_tag = tag;
}

/*
 * One job, after those before it: a sealed batch runs as it is, after the
 * frames the runner holds; a frame joins the runner's batch.
 */
static void runner_job(struct runner *r, const struct probe *p, const struct batch *b,
		       const struct job *j, struct tally *t)
{
	const void *at = b->bytes + j->off;

	if (!j->sealed) {
		runner_frame(r, p, at, j->len - sizeof(struct fp_replay_meta), j->tag, t);
		return;
	}
	runner_flush(r, p, t);
	tally_batch(t, probe_batch_run_sealed(p, r->fd, at, j->len), j->tag);
}

/* Give each worker its own file of the loaded program and a runner. */
static int open_runners(struct runpool *rp)
{
	for (int i = 0; i < rp->n; i++) {
		struct worker *w = &rp->w[i];
		int fd = probe_run_fd(rp->probe);

		if (fd < 0)
			return fd;
		runner_init(&w->run, rp->probe, fd);
	}
	return 0;
}

/* The first worker of a loading pool: load the program, then let every worker run. */
static void load_program(struct runpool *rp)
{
	int err = probe_load(rp->probe, &rp->load_opts);

	pthread_mutex_lock(&rp->lock);
	if (!err) {
		err = open_runners(rp);
		if (err)
			fp_err("cannot start the replay threads: %s", fp_strerror(err));
	}
	rp->load_err = err;
	if (!err)
		__atomic_store_n(&rp->pack_cap, probe_batch_cap(rp->probe), __ATOMIC_RELEASE);
	__atomic_store_n(&rp->loaded, true, __ATOMIC_RELEASE);
	for (int i = 0; i < rp->n; i++)
		pthread_cond_signal(&rp->w[i].work);
	pthread_cond_broadcast(&rp->idle);
	pthread_mutex_unlock(&rp->lock);
}

/*
 * A batch whose frames have run: back to the free list, or, when the
 * worker holds more than its standing batches (read-ahead) and one is
 * free for the submitter already, to be freed by the caller outside the
 * lock. Under the lock.
 */
static struct batch *put_batch(struct worker *w, struct batch *b)
{
	b->n = 0;
	b->used = 0;
	if (w->batches > BATCHES_WORKER && w->free) {
		w->batches--;
		return b;
	}
	b->next = w->free;
	w->free = b;
	return NULL;
}

/* Every batch b waits for has run. Under the lock. */
static bool batch_ready(const struct runpool *rp, const struct batch *b)
{
	for (int i = 0; i < rp->n; i++)
		if (rp->w[i].done < b->after[i])
			return false;
	return true;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct runpool *rp = w->rp;

	cpus_pin_self(w->cpu, (int)(w - rp->w));
	if (rp->load && w == rp->w)
		load_program(rp);
	pthread_mutex_lock(&rp->lock);
	for (;;) {
		struct batch *b, *spare;
		struct tally t = {};
		bool run;

		while ((!w->queue || !rp->loaded) && !rp->quit)
			pthread_cond_wait(&w->work, &rp->lock);
		b = w->queue;
		if (!b)
			break;
		/* Frames of a moved bucket run after the old worker has run those before. */
		while (!batch_ready(rp, b)) {
			w->held = true;
			pthread_cond_wait(&w->work, &rp->lock);
		}
		w->held = false;
		w->queue = b->next;
		if (!w->queue)
			w->queue_tail = NULL;
		w->running = true;
		/* Without a program (it failed to load) the frames go with the pool, unrun. */
		run = rp->loaded && !rp->load_err;
		pthread_mutex_unlock(&rp->lock);

		/* After a failure the rest is not run: the source stops on it. */
		for (int i = 0;
		     run && i < b->n && !t.err && !__atomic_load_n(&rp->t.err, __ATOMIC_RELAXED);
		     i++)
			runner_job(&w->run, rp->probe, b, &b->jobs[i], &t);
		if (run)
			runner_flush(&w->run, rp->probe, &t);

		pthread_mutex_lock(&rp->lock);
		rp->t.refused += t.refused;
		if (t.err && !rp->t.err) {
			rp->t.err_tag = t.err_tag;
			__atomic_store_n(&rp->t.err, t.err, __ATOMIC_RELAXED);
		}
		spare = put_batch(w, b);
		w->running = false;
		w->done++;
		for (int i = 0; i < rp->n; i++)
			if (rp->w[i].held)
				pthread_cond_signal(&rp->w[i].work);
		pthread_cond_signal(&rp->idle);
		if (spare) {
			pthread_mutex_unlock(&rp->lock);
			free(spare);
			pthread_mutex_lock(&rp->lock);
		}
	}
	pthread_mutex_unlock(&rp->lock);
	return NULL;
}

/* Close the worker's open fp_replay batch, if any: a job of the batch it is in. */
static void seal_pack(struct worker *w)
{
	struct batch *b = w->filling;
	__u32 len, at;

	if (!w->pack.buf)
		return;
	if (w->pack.frames) {
		at = probe_batch_seal(&w->pack, &len);
		b->jobs[b->n++] = (struct job){.tag = w->pack_tag,
					       .off = (__u32)(w->pack.buf - b->bytes) + at,
					       .len = len,
					       .sealed = true};
	} else {
		b->used -= w->pack.cap; /* opened for a frame that did not fit */
	}
	w->pack.buf = NULL;
}

/* Hand the submitter's batch to its worker. */
static void queue_batch(struct runpool *rp, struct worker *w)
{
	struct batch *b = w->filling;

	seal_pack(w);
	if (!b || !b->n)
		return;
	w->filling = NULL;
	memcpy(b->after, w->after, (size_t)rp->n * sizeof(b->after[0]));
	pthread_mutex_lock(&rp->lock);
	if (!rp->loaded)
		rp->ahead += b->used + (size_t)b->n * sizeof(b->jobs[0]);
	w->queued++;
	b->next = NULL;
	if (w->queue_tail)
		w->queue_tail->next = b;
	else
		w->queue = b;
	w->queue_tail = b;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&rp->lock);
}

/*
 * An empty batch for the submitter: a free one, a new one while the
 * program loads and the read-ahead has room, else the next the worker
 * frees. NULL when out of memory.
 */
static struct batch *take_batch(struct runpool *rp, struct worker *w)
{
	struct batch *b;

	if (w->filling)
		return w->filling;
	pthread_mutex_lock(&rp->lock);
	while (!w->free) {
		if (!rp->loaded && rp->ahead < READAHEAD_BYTES) {
			w->batches++;
			pthread_mutex_unlock(&rp->lock);
			b = calloc(1, sizeof(*b));
			if (!b) {
				pthread_mutex_lock(&rp->lock);
				w->batches--;
				pthread_mutex_unlock(&rp->lock);
				return NULL;
			}
			w->filling = b;
			return b;
		}
		pthread_cond_wait(&rp->idle, &rp->lock);
	}
	b = w->free;
	w->free = b->next;
	pthread_mutex_unlock(&rp->lock);
	b->next = NULL;
	w->filling = b;
	return b;
}

/*
 * Even the workers' load (balance.h): each worker's spare time since the
 * last look, from the CPU time of its thread and of the reader's when it
 * shares the reader's CPU; a moved bucket's frames wait for those of it
 * queued before. The submitter's, between frames.
 */
static void rebalance(struct runpool *rp)
{
	__u64 now = fp_mono_ns(), reader = fp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	double spare[RUNPOOL_MAX_THREADS], used[RUNPOOL_MAX_THREADS];
	__u64 after[RUNPOOL_MAX_THREADS];
	int here = sched_getcpu(), lo;

	rp->look = false;
	if (!balance_due(&rp->bal, now, runpool_loaded(rp)))
		return;
	for (int i = 0; i < rp->n; i++) {
		struct worker *w = &rp->w[i];
		__u64 t = fp_clock_ns(w->clock);

		used[i] = (double)(t - w->cpu_seen);
		spare[i] = (double)(now - rp->bal.window) - used[i];
		if (w->cpu == here)
			spare[i] -= (double)(reader - rp->reader_seen);
		w->cpu_seen = t;
	}
	rp->reader_seen = reader;
	lo = balance_look(&rp->bal, now, spare, used, after);
	for (int x = 0; lo >= 0 && x < rp->n; x++) {
		/* A frame in the batch x is filling: queue it, so the wait ends. */
		if (after[x] > rp->w[x].queued)
			queue_batch(rp, &rp->w[x]);
		if (after[x] > rp->w[lo].after[x])
			rp->w[lo].after[x] = after[x];
	}
}

/*
 * The submitter's batch for worker w, with room for one more job of len
 * bytes: the one it fills, or (that one queued) the next free one.
 */
static struct batch *batch_with_room(struct runpool *rp, struct worker *w, __u32 len)
{
	struct batch *b = take_batch(rp, w);

	if (b && (b->n == BATCH_FRAMES || b->used + len > BATCH_BYTES)) {
		queue_batch(rp, w);
		rp->look = true;
		b = take_batch(rp, w);
	}
	return b;
}

/*
 * Pack the frame into w's open fp_replay batch, or a new one: 1; 0 if no
 * batch takes it; -ENOMEM.
 */
static int pack_frame(struct runpool *rp, struct worker *w, const void *frame, __u32 caplen,
		      const struct fp_replay_meta *m, __u64 tag)
{
	__u32 cap = __atomic_load_n(&rp->pack_cap, __ATOMIC_ACQUIRE);
	struct batch *b;

	if (w->pack.buf && probe_batch_add(&w->pack, frame, caplen, m))
		return 1;
	seal_pack(w);
	if (!cap || caplen < FP_BATCH_MIN_CAP)
		return 0;
	b = batch_with_room(rp, w, cap);
	if (!b)
		return -ENOMEM;
	probe_batch_place(&w->pack, b->bytes + b->used, cap);
	b->used += cap;
	w->pack_tag = tag;
	return probe_batch_add(&w->pack, frame, caplen, m);
}

int runpool_submit(struct runpool *rp, __u32 shard, const void *frame, __u32 caplen, __u32 wire_len,
		   __u64 ts_ns, __u32 path_id, __u64 tag)
{
	struct fp_replay_meta meta = {.ts_ns = ts_ns, .path_id = path_id, .wire_len = wire_len};
	__u32 len = sizeof(meta) + caplen;
	struct worker *w;
	struct batch *b;
	int packed;

	if (caplen > PROBE_FRAME_MAX) {
		/* The kernel would refuse it too; it never reaches a batch. */
		pthread_mutex_lock(&rp->lock);
		rp->t.refused++;
		pthread_mutex_unlock(&rp->lock);
		return 0;
	}
	/* After a batch is queued, not inside: a bucket moves between its frames. */
	if (rp->look)
		rebalance(rp);
	w = &rp->w[balance_worker(&rp->bal, shard)];
	packed = pack_frame(rp, w, frame, caplen, &meta, tag);
	if (!packed) {
		/* After the batch before it (sealed), as probe_run_prepared() takes it. */
		seal_pack(w);
		b = batch_with_room(rp, w, (len + 7) & ~7U);
		if (!b)
			return -ENOMEM;
		memcpy(b->bytes + b->used, &meta, sizeof(meta));
		memcpy(b->bytes + b->used + sizeof(meta), frame, caplen);
		b->jobs[b->n++] = (struct job){.tag = tag, .off = (__u32)b->used, .len = len};
		b->used += (len + 7) & ~7U;
	} else if (packed < 0) {
		return packed;
	}
	balance_sent(&rp->bal, shard, (int)(w - rp->w), w->queued + 1); /* the one it fills */
	/* Written under the lock by a worker; a stale 0 only delays the stop by a frame. */
	return __atomic_load_n(&rp->t.err, __ATOMIC_RELAXED);
}

int runpool_drain(struct runpool *rp)
{
	int err;

	for (int i = 0; i < rp->n; i++)
		queue_batch(rp, &rp->w[i]);
	pthread_mutex_lock(&rp->lock);
	for (int i = 0; i < rp->n; i++)
		while (rp->w[i].queue || rp->w[i].running)
			pthread_cond_wait(&rp->idle, &rp->lock);
	err = rp->t.err;
	pthread_mutex_unlock(&rp->lock);
	return err;
}

__u64 runpool_refused(struct runpool *rp)
{
	__u64 n;

	pthread_mutex_lock(&rp->lock);
	n = rp->t.refused;
	pthread_mutex_unlock(&rp->lock);
	return n;
}

bool runpool_failed(struct runpool *rp, int *err, __u64 *tag)
{
	bool failed;

	pthread_mutex_lock(&rp->lock);
	failed = rp->t.err != 0;
	*err = rp->t.err;
	*tag = rp->t.err_tag;
	pthread_mutex_unlock(&rp->lock);
	return failed;
}

static void free_batches(struct batch *b)
{
	while (b) {
		struct batch *next = b->next;

		free(b);
		b = next;
	}
}

static void stop_workers(struct runpool *rp, int started)
{
	pthread_mutex_lock(&rp->lock);
	rp->quit = true;
	for (int i = 0; i < rp->n; i++)
		pthread_cond_signal(&rp->w[i].work);
	pthread_mutex_unlock(&rp->lock);
	for (int i = 0; i < started; i++)
		pthread_join(rp->w[i].thread, NULL);
	for (int i = 0; i < rp->n; i++) {
		if (rp->w[i].run.fd > 0)
			close(rp->w[i].run.fd);
		free_batches(rp->w[i].queue);
		free_batches(rp->w[i].free);
		free_batches(rp->w[i].filling);
	}
	for (int i = 0; i < rp->n; i++)
		pthread_cond_destroy(&rp->w[i].work);
	pthread_cond_destroy(&rp->idle);
	pthread_mutex_destroy(&rp->lock);
}

/* A pool over p, loaded already, or (load) to be loaded with it by its first worker. */
static struct runpool *pool_new(struct probe *p, const struct probe_opts *load, int threads)
{
	int n = threads > 0 ? threads : runpool_default_threads(), err = 0, started = 0;
	int cpus[RUNPOOL_MAX_THREADS];
	struct runpool *rp;

	if (n > RUNPOOL_MAX_THREADS)
		n = RUNPOOL_MAX_THREADS;
	rp = calloc(1, sizeof(*rp) + (size_t)n * sizeof(rp->w[0]));
	if (!rp)
		return NULL;
	rp->probe = p;
	rp->n = n;
	balance_init(&rp->bal, n);
	rp->load = load != NULL;
	if (load)
		rp->load_opts = *load;
	cpus_in_turn(cpus, n);
	/* The balance counts the submitter's time against the worker on its CPU. */
	rp->stays = n > 1 && cpus_stay();
	for (int i = 0; i < n; i++)
		rp->w[i].cpu = cpus[i];
	pthread_mutex_init(&rp->lock, NULL);
	pthread_cond_init(&rp->idle, NULL);
	for (int i = 0; i < n; i++) {
		struct worker *w = &rp->w[i];

		pthread_cond_init(&w->work, NULL);
		w->rp = rp;
		for (int b = 0; b < BATCHES_WORKER && !err; b++) {
			struct batch *nb = calloc(1, sizeof(*nb));

			if (!nb) {
				err = ENOMEM;
				break;
			}
			nb->next = w->free;
			w->free = nb;
			w->batches++;
		}
	}
	if (!err && !load) {
		err = -open_runners(rp);
		rp->pack_cap = probe_batch_cap(p);
		rp->loaded = true;
	}
	for (int i = 0; i < n && !err; i++) {
		err = pthread_create(&rp->w[i].thread, NULL, worker_main, &rp->w[i]);
		if (!err)
			started++;
		if (!err && pthread_getcpuclockid(rp->w[i].thread, &rp->w[i].clock))
			rp->w[i].clock = CLOCK_MONOTONIC; /* no CPU time: never judged idle */
	}
	if (err) {
		stop_workers(rp, started);
		if (rp->stays)
			cpus_unpin();
		free(rp);
		errno = err;
		return NULL;
	}
	return rp;
}

struct runpool *runpool_new(struct probe *p, int threads)
{
	return pool_new(p, NULL, threads);
}

struct runpool *runpool_new_loading(struct probe *p, const struct probe_opts *o, int threads)
{
	return pool_new(p, o, threads);
}

bool runpool_loaded(const struct runpool *rp)
{
	return __atomic_load_n(&rp->loaded, __ATOMIC_ACQUIRE);
}

int runpool_wait_loaded(struct runpool *rp)
{
	int err;

	pthread_mutex_lock(&rp->lock);
	while (!rp->loaded)
		pthread_cond_wait(&rp->idle, &rp->lock);
	err = rp->load_err;
	pthread_mutex_unlock(&rp->lock);
	return err;
}

void runpool_free(struct runpool *rp)
{
	if (!rp)
		return;
	runpool_drain(rp);
	if (rp->n > 1)
		fp_dbg("replay: %d buckets of flows moved between workers to even their load",
		       rp->bal.moves);
	stop_workers(rp, rp->n);
	if (rp->stays)
		cpus_unpin();
	free(rp);
}
