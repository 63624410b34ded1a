// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * clock.bpf.c - the loader's clock probe (user/probe/clock.c). One run
 * reads the kernel's tick count and CLOCK_MONOTONIC together, which no
 * userspace call can: the loader watches the count step to learn the
 * tick's length and phase, and the probe's live programs then read only
 * the tick count, which the verifier inlines (core.h, live_clock()).
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "fabprobe.h"

SEC("syscall")
int fp_clock(struct fp_clock_sample *s)
{
	s->jiffies = bpf_jiffies64();
	s->mono_ns = bpf_ktime_get_ns();
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
