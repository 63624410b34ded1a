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
	struct sample_store *st = ctx;

	if (size < sizeof(struct fp_sample))
		return 0;
	if (st->n >= SAMPLES_MAX ||
	    buf_grow((void **)&st->s, &st->cap, st->n + 1, sizeof(*st->s))) {
		st->dropped++;
		return 0;
	}
	memcpy(&st->s[st->n++], data, sizeof(struct fp_sample));
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
	memset(st, 0, sizeof(*st));
}
