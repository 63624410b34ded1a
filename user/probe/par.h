/* SPDX-License-Identifier: GPL-2.0 */
/*
 * par.h - a refresh's loops split across the CPUs this process may run
 * on: the calling thread takes the first part, a kept thread of the
 * pool each of the others (par.c; threads of the loop's own where the
 * pool is taken, as by a loop inside a part). Parts are contiguous and in
 * order, so what each part gathers joins in the order one loop had.
 */
#ifndef __FP_PAR_H
#define __FP_PAR_H
#include <stddef.h>

/* Parts at most: a refresh streams memory, which two or three CPUs fill. */
#define PAR_MAX 4

/*
 * Call fn(ctx, part, lo, hi) once for each part of [0, n), parts of at
 * least min items, as many as CPUs (PAR_MAX at most); returns how many
 * parts there were (1 when n < 2 * min, or on one CPU). A part whose
 * thread cannot be made runs on the calling thread, after its own.
 */
int par_for(size_t n, size_t min, void (*fn)(void *ctx, int part, size_t lo, size_t hi), void *ctx);

/* How many parts par_for(n, min, ...) makes now. */
int par_parts(size_t n, size_t min);

/*
 * par_for() in exactly parts parts (1 to PAR_MAX), for a caller whose
 * parts must start where it chooses: n items, each its own part.
 */
void par_run(int parts, size_t n, void (*fn)(void *ctx, int part, size_t lo, size_t hi), void *ctx);

/*
 * What the parts gathered, joined: part k's n[k] items of size bytes,
 * written in items from first[k] on, moved down in part order to follow
 * one another from items[0]. Returns how many there are in all.
 */
size_t par_gather(void *items, size_t size, const size_t first[PAR_MAX], const size_t n[PAR_MAX]);

/*
 * Tests: split every loop into this many parts (1 to PAR_MAX), whatever
 * the CPUs, so a machine of any size checks the parts against one loop;
 * 0, as many as CPUs again.
 */
void par_set_parts(int parts);

#endif /* __FP_PAR_H */
