// SPDX-License-Identifier: GPL-2.0
/* cpus.c - the CPUs replay's workers run on (see cpus.h). */
#include <pthread.h>
#include <stdio.h>

#include "probe/cpus.h"
#include "util/log.h"

/* The CPUs of a thread cpus_stay() keeps on one, from before. */
static __thread cpu_set_t was;
static __thread bool staying;

int cpus_allowed(cpu_set_t *set)
{
	if (staying) {
		*set = was;
		return CPU_COUNT(set);
	}
	return sched_getaffinity(0, sizeof(*set), set) ? 0 : CPU_COUNT(set);
}

void cpus_in_turn(int *cpu, int n)
{
	int cpus[CPU_SETSIZE], ncpus = 0, here = sched_getcpu(), first = 0;
	cpu_set_t set;

	if (cpus_allowed(&set))
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set)) {
				if (c == here)
					first = ncpus + 1;
				cpus[ncpus++] = c;
			}
	for (int i = 0; i < n; i++)
		cpu[i] = ncpus ? cpus[(first + i) % ncpus] : -1;
}

void cpus_pin_self(int cpu, int id)
{
	char name[16];
	cpu_set_t set;
	int err = 0;

	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	snprintf(name, sizeof(name), "fp-run/%d", id);
	pthread_setname_np(pthread_self(), name);
	if (cpu < 0)
		fp_dbg("%s runs unpinned: the process's CPUs are unknown", name);
	else if (err)
		fp_dbg("%s runs unpinned: cannot pin it to CPU %d: %s", name, cpu,
		       fp_strerror(err));
	else
		fp_dbg("%s runs on CPU %d", name, cpu);
}

bool cpus_stay(void)
{
	int here = sched_getcpu();
	cpu_set_t set;

	if (staying || here < 0 || pthread_getaffinity_np(pthread_self(), sizeof(was), &was))
		return false;
	CPU_ZERO(&set);
	CPU_SET(here, &set);
	staying = !pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return staying;
}

void cpus_unpin(void)
{
	if (staying)
		pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	staying = false;
}
