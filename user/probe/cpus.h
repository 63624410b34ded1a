/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpus.h - the CPUs this process may run on, taken in turn from the
 * caller's, and a thread pinned to one: where replay's workers run
 * (runpool.c).
 */
#ifndef __FP_CPUS_H
#define __FP_CPUS_H
#include <sched.h>
#include <stdbool.h>

/*
 * The CPUs this process may run on (taskset, a cgroup's cpuset): their
 * number, 0 when unknown. The calling thread's, as they were before
 * cpus_stay() kept it on one.
 */
int cpus_allowed(cpu_set_t *set);

/*
 * Fill cpu[0..n) with those CPUs taken in turn from the one after the CPU
 * the caller is on, -1 each when they are unknown. Starting there, and not
 * at the first CPU, spreads the workers of processes run side by side (a
 * script replaying many captures at once) as the scheduler spread them.
 */
void cpus_in_turn(int *cpu, int n);

/*
 * Pin the calling thread to cpu (-1, or a CPU it cannot be pinned to: it
 * runs where it is put) and name it fp-run/id (top -H, /proc/PID/task);
 * -v says where it runs.
 */
void cpus_pin_self(int cpu, int id);

/*
 * Keep the calling thread on the CPU it is on; false if it cannot be, or
 * already is. cpus_unpin(), on the same thread, gives it back its CPUs.
 */
bool cpus_stay(void);
void cpus_unpin(void);
#endif /* __FP_CPUS_H */
