// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>

#include "util/buf.h"

#define HUGE_PAGE (2UL << 20)

/*
 * Ask for huge pages under a large array: at a million flows the arrays
 * kept by rid, the snapshot and the sort's buffer are read out of order,
 * and with 4 KiB pages nearly every such read also misses the TLB. Only a
 * hint: where the kernel has none to give, nothing changes.
 */
static void huge_pages(void *p, size_t len)
{
	uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(HUGE_PAGE - 1);

	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

int buf_grow(void **buf, size_t *cap, size_t want, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	p = realloc(*buf, n * elem);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	huge_pages(p, n * elem);
	return 0;
}

int buf_grow_zeroed(void **buf, size_t *cap, size_t *init, size_t want, size_t elem)
{
	int err = buf_grow(buf, cap, want, elem);

	if (!err && *init < want) {
		memset((char *)*buf + *init * elem, 0, (want - *init) * elem);
		*init = want;
	}
	return err;
}
