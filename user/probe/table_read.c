// SPDX-License-Identifier: GPL-2.0
/* table_read.c - a BPF hash table walked into buffers, fed to a reader as it goes. */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "probe/table_read.h"
#include "util/buf.h"

void table_feed_init(struct table_feed *f)
{
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->moved, NULL);
	f->n = 0;
	f->busy = f->ended = false;
}

void table_feed_destroy(struct table_feed *f)
{
	pthread_cond_destroy(&f->moved);
	pthread_mutex_destroy(&f->lock);
}

/* The walk's side: t->n entries are in the buffers (ended: and no more). */
static void feed_publish(struct table_read *t, bool ended)
{
	struct table_feed *f = t->feed;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->n = t->n;
	f->ended = ended;
	pthread_cond_broadcast(&f->moved);
	pthread_mutex_unlock(&f->lock);
}

/*
 * Room for TABLE_BATCH more entries past t->n. Zeroed as they grow:
 * tools such as valgrind do not know that BPF_MAP_LOOKUP_BATCH writes them.
 * Buffers that must move wait until the reader is not reading them.
 */
static int table_read_room(struct table_read *t)
{
	size_t want = t->n + TABLE_BATCH;
	bool moves = want > t->keys_cap || want > t->values_cap;
	struct table_feed *f = moves ? t->feed : NULL;
	int err;

	if (f) {
		pthread_mutex_lock(&f->lock);
		while (f->busy)
			pthread_cond_wait(&f->moved, &f->lock);
	}
	err = buf_grow_zeroed(&t->keys, &t->keys_cap, &t->keys_init, want, t->key_size)
		  ?: buf_grow_zeroed((void **)&t->values, &t->values_cap, &t->values_init, want,
				     sizeof(*t->values));
	if (f)
		pthread_mutex_unlock(&f->lock);
	return err;
}

/* bpf_map_lookup_batch, as bcc's libbpf-tools map_helpers do. */
static int table_read_batch(struct table_read *t)
{
	__u64 token[16];
	void *in = NULL;

	for (;;) {
		__u32 count = TABLE_BATCH;
		int err = table_read_room(t);

		if (err)
			return err;
		err = bpf_map_lookup_batch(t->fd, in, token, (char *)t->keys + t->n * t->key_size,
					   &t->values[t->n], &count, NULL);
		if (err && errno != ENOENT)
			return -errno;
		t->n += count;
		if (err)
			return 0; /* ENOENT: the whole map has been read */
		feed_publish(t, false);
		in = token;
	}
}

/*
 * Fallback for kernels without batch ops on this map type. Its entries
 * are fed at its end: published one by one, they would cost a lock each.
 */
static int table_read_iter(struct table_read *t)
{
	struct flow_key last; /* where the walk goes on from: the buffers move as they grow */
	const void *prev = NULL;

	for (;;) {
		void *key;
		int err = table_read_room(t);

		if (err)
			return err;
		key = (char *)t->keys + t->n * t->key_size;
		if (bpf_map_get_next_key(t->fd, prev, key))
			return 0;
		/* A key deleted between the two calls is not counted; the walk goes on. */
		if (bpf_map_lookup_elem(t->fd, key, &t->values[t->n]) == 0)
			t->n++;
		prev = memcpy(&last, key, t->key_size);
	}
}

void table_read(struct table_read *t)
{
	t->n = 0;
	if (t->mode == READ_ITER) {
		t->err = table_read_iter(t);
	} else {
		t->err = table_read_batch(t);
		/* Batch ops refused: at the first call, before any entry is fed. */
		if (t->mode == READ_AUTO && !t->n &&
		    (t->err == -EINVAL || t->err == -ENOTSUP || t->err == -EOPNOTSUPP))
			t->err = table_read_iter(t);
	}
	feed_publish(t, true);
}

int table_feed_take(struct table_read *t, size_t *done,
		    int (*fn)(void *ctx, const void *keys, const struct flow_counters *values,
			      size_t n),
		    void *ctx)
{
	struct table_feed *f = t->feed;
	int err = 0;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		size_t upto;

		while (*done == f->n && !f->ended)
			pthread_cond_wait(&f->moved, &f->lock);
		upto = f->n;
		if (*done == upto)
			break; /* the walk has ended, every entry taken */
		f->busy = true;
		pthread_mutex_unlock(&f->lock);
		err = fn(ctx, (const char *)t->keys + *done * t->key_size, &t->values[*done],
			 upto - *done);
		pthread_mutex_lock(&f->lock);
		f->busy = false;
		pthread_cond_broadcast(&f->moved);
		if (err)
			break;
		*done = upto;
	}
	pthread_mutex_unlock(&f->lock);
	return err;
}
