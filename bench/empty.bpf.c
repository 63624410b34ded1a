// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * empty.bpf.c - the benchmarks' baseline: an XDP program that does nothing
 * but pass the frame. Same section (xdp.frags) as fabprobe's fp_xdp, so the
 * difference between the two is the parse-and-account core alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp.frags")
int bench_empty(struct xdp_md *ctx __attribute__((unused)))
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
