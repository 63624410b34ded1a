// SPDX-License-Identifier: GPL-2.0
/* other_xdp.bpf.c - another tool's XDP program, for the coexistence test. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int other_tool(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
