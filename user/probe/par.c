// SPDX-License-Identifier: GPL-2.0
/* par.c - a loop split across CPUs (see par.h). */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>

#include "probe/cpus.h"
#include "probe/par.h"

struct par_part {
	void (*fn)(void *ctx, int part, size_t lo, size_t hi);
	void *ctx;
	int part;
	size_t lo, hi;
	pthread_t thread;
	bool threaded;
};

static int forced; /* par_set_parts() */

void par_set_parts(int parts)
{
	forced = parts < 0 ? 0 : parts > PAR_MAX ? PAR_MAX : parts;
}

static void *par_run_part(void *arg)
{
	struct par_part *p = arg;

	p->fn(p->ctx, p->part, p->lo, p->hi);
	return NULL;
}

int par_parts(size_t n, size_t min)
{
	cpu_set_t set;
	int cpus = cpus_allowed(&set), parts = forced ? forced : cpus < PAR_MAX ? cpus : PAR_MAX;

	if (min < 1)
		min = 1;
	if ((size_t)parts > n / min)
		parts = (int)(n / min);
	return parts < 1 ? 1 : parts;
}

/*
 * A refresh thread running start(arg) on the CPUs of set (NULL: as the
 * process may): not the caller's CPU alone, as cpus_stay() may keep it
 * on one. false: none made.
 */
static bool par_thread_make(pthread_t *t, void *(*start)(void *), void *arg, const cpu_set_t *set)
{
	pthread_attr_t attr;
	bool attr_ok = !pthread_attr_init(&attr), made;

	if (attr_ok && set)
		pthread_attr_setaffinity_np(&attr, sizeof(*set), set);
	made = !pthread_create(t, attr_ok ? &attr : NULL, start, arg);
	if (attr_ok)
		pthread_attr_destroy(&attr);
	if (made)
		pthread_setname_np(*t, "fp-refresh");
	return made;
}

/*
 * Threads made for one loop and joined after it: where the pool is taken
 * (a loop inside a part, or two threads' refreshes at once).
 */
static void par_run_threads(struct par_part *part, int parts, const cpu_set_t *set)
{
	for (int i = 1; i < parts; i++)
		part[i].threaded = par_thread_make(&part[i].thread, par_run_part, &part[i], set);
	par_run_part(&part[0]);
	for (int i = 1; i < parts; i++) {
		if (part[i].threaded)
			pthread_join(part[i].thread, NULL);
		else
			par_run_part(&part[i]);
	}
}

/*
 * The pool: a thread for each part but the caller's, made at the first
 * loop that needs it and kept, so a refresh's ten or so loops do not
 * each make and join threads (a loop of two parts 0.23x the time on the
 * machine of BENCHMARKS.md, part 28: `userspace par`). One loop at a
 * time uses it.
 */
struct par_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct par_part *job; /* posted by the loop; NULL once run */
	bool made;
	cpu_set_t set; /* its CPUs, as cpus_allowed() gave them */
};

static struct {
	pthread_mutex_t taken;
	struct par_worker w[PAR_MAX - 1];
} pool = {
    .taken = PTHREAD_MUTEX_INITIALIZER,
    /*
     * Each worker's lock and condition made once, here: a post after a
     * failed thread start must not make them again.
     */
    .w = {[0 ... PAR_MAX - 2] = {.lock = PTHREAD_MUTEX_INITIALIZER,
				 .cond = PTHREAD_COND_INITIALIZER}},
};

static void *par_worker_main(void *arg)
{
	struct par_worker *w = arg;

	for (;;) {
		struct par_part *job;

		pthread_mutex_lock(&w->lock);
		while (!w->job)
			pthread_cond_wait(&w->cond, &w->lock);
		job = w->job;
		pthread_mutex_unlock(&w->lock);
		par_run_part(job);
		pthread_mutex_lock(&w->lock);
		w->job = NULL;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

/* Hand job to w, made now if need be, on the CPUs of set; false: no thread. */
static bool par_worker_post(struct par_worker *w, struct par_part *job, const cpu_set_t *set)
{
	if (!w->made) {
		w->made = par_thread_make(&w->thread, par_worker_main, w, set);
		if (!w->made)
			return false;
		if (set)
			w->set = *set;
	} else if (set && !CPU_EQUAL(set, &w->set) &&
		   !pthread_setaffinity_np(w->thread, sizeof(*set), set)) {
		w->set = *set;
	}
	pthread_mutex_lock(&w->lock);
	w->job = job;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return true;
}

static void par_worker_wait(struct par_worker *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->job)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void par_run(int parts, size_t n, void (*fn)(void *ctx, int part, size_t lo, size_t hi), void *ctx)
{
	struct par_part part[PAR_MAX];
	cpu_set_t set;
	bool have_set;

	if (parts > PAR_MAX)
		parts = PAR_MAX;
	if (parts < 2) {
		fn(ctx, 0, 0, n);
		return;
	}
	for (int i = 0; i < parts; i++)
		part[i] = (struct par_part){.fn = fn,
					    .ctx = ctx,
					    .part = i,
					    .lo = n * i / parts,
					    .hi = n * (i + 1) / parts};
	have_set = cpus_allowed(&set) > 0;
	if (pthread_mutex_trylock(&pool.taken)) {
		par_run_threads(part, parts, have_set ? &set : NULL);
		return;
	}
	for (int i = 1; i < parts; i++)
		part[i].threaded =
		    par_worker_post(&pool.w[i - 1], &part[i], have_set ? &set : NULL);
	par_run_part(&part[0]);
	for (int i = 1; i < parts; i++) {
		if (part[i].threaded)
			par_worker_wait(&pool.w[i - 1]);
		else
			par_run_part(&part[i]);
	}
	pthread_mutex_unlock(&pool.taken);
}

int par_for(size_t n, size_t min, void (*fn)(void *ctx, int part, size_t lo, size_t hi), void *ctx)
{
	int parts = par_parts(n, min);

	par_run(parts, n, fn, ctx);
	return parts;
}

size_t par_gather(void *items, size_t size, const size_t first[PAR_MAX], const size_t n[PAR_MAX])
{
	size_t at = 0;

	for (int k = 0; k < PAR_MAX; k++) {
		if (n[k]) /* items may be NULL while nothing was gathered */
			memmove((char *)items + at * size, (char *)items + first[k] * size,
				n[k] * size);
		at += n[k];
	}
	return at;
}
