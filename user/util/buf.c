// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "util/buf.h"

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
	return 0;
}
