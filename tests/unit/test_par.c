// SPDX-License-Identifier: GPL-2.0
/* par.c: each part once, on the caller and the pool's threads, nested and from two threads. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "probe/par.h"

enum { N = 1000 };

struct job {
	int hits[N];	    /* how many parts covered each item */
	pid_t tid[PAR_MAX]; /* the thread each part ran on */
	size_t lo[PAR_MAX], hi[PAR_MAX];
	int runs[PAR_MAX];
	int nested;		 /* parts: each part runs a loop of this many parts inside */
	long inner_sum[PAR_MAX]; /* what each part's inner loop summed */
};

struct inner {
	long sum[PAR_MAX];
};

static void inner_part(void *ctx, int part, size_t lo, size_t hi)
{
	struct inner *in = ctx;

	for (size_t i = lo; i < hi; i++)
		in->sum[part] += (long)i;
}

static void part_fn(void *ctx, int part, size_t lo, size_t hi)
{
	struct job *j = ctx;

	j->tid[part] = gettid();
	j->lo[part] = lo;
	j->hi[part] = hi;
	j->runs[part]++;
	for (size_t i = lo; i < hi; i++)
		j->hits[i]++;
	if (j->nested) {
		struct inner in = {};

		par_run(j->nested, 100, inner_part, &in);
		for (int k = 0; k < PAR_MAX; k++)
			j->inner_sum[part] += in.sum[k];
	}
}

/* Every item once, parts contiguous and in order, part 0 on the caller, the others not. */
static void check_job(const struct job *j, int parts)
{
	for (int i = 0; i < N; i++)
		assert_int_equal(j->hits[i], 1);
	for (int k = 0; k < parts; k++) {
		assert_int_equal(j->runs[k], 1);
		assert_int_equal(j->lo[k], k ? j->hi[k - 1] : 0);
	}
	assert_int_equal(j->hi[parts - 1], N);
	assert_int_equal(j->tid[0], gettid());
	for (int k = 1; k < parts; k++)
		assert_int_not_equal(j->tid[k], gettid());
}

/* Each part count, many loops over: the pool's threads run the same parts again and again. */
static void test_every_part_once(void **state)
{
	(void)state;
	for (int parts = 2; parts <= PAR_MAX; parts++) {
		par_set_parts(parts);
		for (int r = 0; r < 50; r++) {
			struct job j = {};

			assert_int_equal(par_for(N, 1, part_fn, &j), parts);
			check_job(&j, parts);
		}
	}
	par_set_parts(0);
}

/* One loop after another runs its parts on the same threads: none is made for each loop. */
static void test_threads_kept(void **state)
{
	struct job a = {}, b = {};

	(void)state;
	par_set_parts(2);
	par_for(N, 1, part_fn, &a);
	par_for(N, 1, part_fn, &b);
	par_set_parts(0);
	check_job(&a, 2);
	check_job(&b, 2);
	assert_int_equal(a.tid[1], b.tid[1]);
}

/* A loop inside a part (the pool taken by the outer loop) still runs every inner part once. */
static void test_nested(void **state)
{
	struct job j = {.nested = 2};

	(void)state;
	par_set_parts(2);
	par_for(N, 1, part_fn, &j);
	par_set_parts(0);
	check_job(&j, 2);
	for (int k = 0; k < 2; k++)
		assert_int_equal(j.inner_sum[k], 99 * 100 / 2);
}

static void *loops(void *arg)
{
	int *bad = arg;

	for (int r = 0; r < 200; r++) {
		struct job j = {};

		par_run(2, N, part_fn, &j);
		for (int i = 0; i < N; i++)
			*bad += j.hits[i] != 1;
	}
	return NULL;
}

/* Two threads' loops at once: one has the pool, the other threads of its own; both whole. */
static void test_two_callers(void **state)
{
	int bad[2] = {};
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, loops, &bad[0]), 0);
	loops(&bad[1]);
	pthread_join(t, NULL);
	assert_int_equal(bad[0], 0);
	assert_int_equal(bad[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_part_once),
	    cmocka_unit_test(test_threads_kept),
	    cmocka_unit_test(test_nested),
	    cmocka_unit_test(test_two_callers),
	};

	return cmocka_run_group_tests_name("par", tests, NULL, NULL);
}
