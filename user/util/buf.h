/* SPDX-License-Identifier: GPL-2.0 */
/* buf.h - growable arrays. */
#ifndef __FP_BUF_H
#define __FP_BUF_H

#include <stddef.h>

/*
 * Make *buf hold at least want elements of elem bytes, doubling *cap
 * (from 64). Returns 0, or -ENOMEM with *buf and *cap unchanged.
 */
int buf_grow(void **buf, size_t *cap, size_t want, size_t elem);
/*
 * The same, for an array whose first *init elements are set: the rest up
 * to want are zeroed and *init becomes want. For state kept by position
 * across calls, whose new positions must start from nothing.
 */
int buf_grow_zeroed(void **buf, size_t *cap, size_t *init, size_t want, size_t elem);

#endif /* __FP_BUF_H */
