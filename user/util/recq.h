/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recq.h - a bounded first-in first-out queue of variable-length records
 * in one allocation, each tagged with a 16-bit number. A record is stored
 * whole, never split across the end of the buffer, so a reader gets one
 * pointer to copy from.
 */
#ifndef __FP_RECQ_H
#define __FP_RECQ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define RECQ_HDR 4 /* tag and length stored before each record */

struct recq {
	__u8 *buf;
	size_t cap;
	size_t head, tail, end; /* data is [head, tail), or [head, end) then [0, tail) */
	size_t bytes;		/* stored, headers included */
	size_t records;
	bool wrapped;
};

/* A queue of cap bytes (headers included). 0 or -ENOMEM. */
int recq_init(struct recq *q, size_t cap);
void recq_free(struct recq *q);

/* Append a record of len bytes (at most 65535): 0, or -ENOBUFS when it does not fit. */
int recq_push(struct recq *q, __u16 tag, const void *rec, size_t len);
/* The oldest record; the queue must not be empty. */
const __u8 *recq_peek(const struct recq *q, __u16 *tag, __u16 *len);
/* Drop the oldest record. */
void recq_pop(struct recq *q);

#endif /* __FP_RECQ_H */
