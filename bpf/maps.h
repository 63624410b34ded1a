/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* maps.h - the maps the probe writes and userspace reads. */
#ifndef __FP_MAPS_H
#define __FP_MAPS_H

#include "fabprobe.h"

/* Global counters: one per-CPU slot holding every counter, one lookup a frame. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_totals);
} fp_totals SEC(".maps");

/*
 * Flow tables, one entry a flow for all CPUs (counters added atomically,
 * core.h, and the request-PSN state, struct psn_track). A flow whose
 * addresses are all IPv4 takes the compact key (fp_flows4, --flows); one
 * with an IPv6 address the whole key (fp_flows6, --flows6). Userspace sets
 * both sizes before load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_FLOWS_DEFAULT);
	__type(key, struct flow_key4);
	__type(value, struct flow_counters);
} fp_flows4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_FLOWS_DEFAULT / 4);
	__type(key, struct flow_key);
	__type(value, struct flow_counters);
} fp_flows6 SEC(".maps");

/*
 * The slot table in front of fp_flows4 (fabprobe.h): one bucket an entry,
 * mapped by userspace, which sizes it before load (slot_buckets in core.h;
 * one unused bucket when --flows is too small for it).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fp_slot_bucket);
} fp_slots SEC(".maps");

/* Packet samples for capture; sized by userspace, tiny when sampling is off. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} fp_samples SEC(".maps");

#endif /* __FP_MAPS_H */
