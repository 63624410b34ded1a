/* SPDX-License-Identifier: GPL-2.0 */
/*
 * samples.h - packets the probe sampled into its ring buffer (the first
 * few of each flow), drained into memory while a source runs. The capture
 * bundle writes those of flows that raised an alert (render/samples_pcapng.h).
 */
#ifndef __FP_SAMPLES_H
#define __FP_SAMPLES_H

#include <stddef.h>
#include <linux/types.h>

#include "fabprobe.h"

/* Per flow and in all; the BPF side enforces them per CPU, this store in total. */
#define SAMPLES_PER_FLOW  8
#define SAMPLES_MAX	  65536
#define SAMPLES_MAX_BYTES (64 << 20) /* of packet bytes kept */

/* One sampled packet; its bytes are in the store's arena, at off. */
struct sample {
	struct flow_key key;
	__u64 ts_ns;
	__u32 wire_len;
	__u32 cap_len;
	size_t off;
};

struct sample_store {
	struct sample *s;
	size_t n, cap;
	__u8 *bytes; /* the packets, cap_len bytes each, back to back */
	size_t n_bytes, cap_bytes;
	__u64 dropped; /* beyond SAMPLES_MAX or SAMPLES_MAX_BYTES */
};

struct probe;

/* Drain p's sample ring into st from now on (p loaded with sampling on). */
int samples_open(struct probe *p, struct sample_store *st);
/* Wait up to timeout_ms for samples (0: take what is there); negative errno. */
int samples_poll(struct probe *p, int timeout_ms);
void samples_free(struct sample_store *st);

#endif /* __FP_SAMPLES_H */
