// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/recq.h"

int recq_init(struct recq *q, size_t cap)
{
	*q = (struct recq){.buf = malloc(cap), .cap = cap};
	return q->buf ? 0 : -ENOMEM;
}

void recq_free(struct recq *q)
{
	free(q->buf);
	*q = (struct recq){};
}

int recq_push(struct recq *q, __u16 tag, const void *rec, size_t len)
{
	size_t need = RECQ_HDR + len, at;
	__u16 len16 = len;

	if (len > 0xFFFF)
		return -EINVAL;
	if (!q->wrapped) {
		if (q->cap - q->tail >= need) {
			at = q->tail;
		} else if (q->head >= need) {
			/* No room at the end: the data stops here, new records go in front. */
			q->end = q->tail;
			q->wrapped = true;
			at = 0;
		} else {
			return -ENOBUFS;
		}
	} else if (q->head - q->tail >= need) {
		at = q->tail;
	} else {
		return -ENOBUFS;
	}
	memcpy(q->buf + at, &tag, 2);
	memcpy(q->buf + at + 2, &len16, 2);
	memcpy(q->buf + at + RECQ_HDR, rec, len);
	q->tail = at + need;
	q->records++;
	q->bytes += need;
	return 0;
}

const __u8 *recq_peek(const struct recq *q, __u16 *tag, __u16 *len)
{
	const __u8 *p = q->buf + q->head;

	memcpy(tag, p, 2);
	memcpy(len, p + 2, 2);
	return p + RECQ_HDR;
}

void recq_pop(struct recq *q)
{
	__u16 len;

	memcpy(&len, q->buf + q->head + 2, 2);
	q->head += RECQ_HDR + len;
	q->bytes -= RECQ_HDR + len;
	if (--q->records == 0) {
		q->head = q->tail = 0;
		q->wrapped = false;
	} else if (q->wrapped && q->head == q->end) {
		q->head = 0;
		q->wrapped = false;
	}
}
