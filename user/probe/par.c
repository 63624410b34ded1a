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

void par_run(int parts, size_t n, void (*fn)(void *ctx, int part, size_t lo, size_t hi), void *ctx)
{
	struct par_part part[PAR_MAX];
	pthread_attr_t attr;
	bool attr_ok;
	cpu_set_t set;

	if (parts > PAR_MAX)
		parts = PAR_MAX;
	if (parts < 2) {
		fn(ctx, 0, 0, n);
		return;
	}
	/* Not the caller's CPU alone: cpus_stay() may keep it on one. */
	attr_ok = !pthread_attr_init(&attr);
	if (attr_ok && cpus_allowed(&set))
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	for (int i = 0; i < parts; i++) {
		part[i] = (struct par_part){.fn = fn,
					    .ctx = ctx,
					    .part = i,
					    .lo = n * i / parts,
					    .hi = n * (i + 1) / parts};
		part[i].threaded = i > 0 && !pthread_create(&part[i].thread, attr_ok ? &attr : NULL,
							    par_run_part, &part[i]);
		if (part[i].threaded)
			pthread_setname_np(part[i].thread, "fp-refresh");
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	for (int i = 0; i < parts; i++) {
		if (part[i].threaded)
			pthread_join(part[i].thread, NULL);
		else
			par_run_part(&part[i]);
	}
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
