// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "fabprobe.skel.h"
#include "probe/probe.h"
#include "probe/samples.h"
#include "util/buf.h"
#include "util/log.h"

static int on_sample(void *ctx, void *data, size_t size)
{
	const struct fp_sample *in = data;
	struct sample_store *st = ctx;
	struct sample *out;
	__u32 cap;

	if (size < sizeof(struct fp_sample))
		return 0;
	cap = in->cap_len < FP_SAMPLE_SNAP ? in->cap_len : FP_SAMPLE_SNAP;
	/* Only what was captured is kept: most samples are far shorter than the snap. */
	if (st->n >= SAMPLES_MAX || st->n_bytes + cap > SAMPLES_MAX_BYTES ||
	    buf_grow((void **)&st->s, &st->cap, st->n + 1, sizeof(*st->s)) ||
	    buf_grow((void **)&st->bytes, &st->cap_bytes, st->n_bytes + cap, 1)) {
		st->dropped++;
		return 0;
	}
	out = &st->s[st->n++];
	out->key = in->key;
	out->ts_ns = in->ts_ns;
	out->wire_len = in->wire_len;
	out->cap_len = cap;
	out->off = st->n_bytes;
	memcpy(st->bytes + st->n_bytes, in->data, cap);
	st->n_bytes += cap;
	return 0;
}

int samples_open(struct probe *p, struct sample_store *st)
{
	int fd = bpf_map__fd(p->skel->maps.fp_samples);

	p->samples_rb = ring_buffer__new(fd, on_sample, st, NULL);
	if (!p->samples_rb) {
		int err = -errno;

		fp_err("cannot open the sample ring: %s", fp_strerror(err));
		return err;
	}
	return 0;
}

int samples_poll(struct probe *p, int timeout_ms)
{
	int err;

	if (!p->samples_rb)
		return 0;
	err = timeout_ms ? ring_buffer__poll(p->samples_rb, timeout_ms)
			 : ring_buffer__consume(p->samples_rb);
	return err < 0 && err != -EINTR ? err : 0;
}

void samples_free(struct sample_store *st)
{
	free(st->s);
	free(st->bytes);
	memset(st, 0, sizeof(*st));
}
