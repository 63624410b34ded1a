/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe.h - the loader: open the skeleton, set the load-time options, load,
 * attach, destroy. Everything else reads the maps through collect.h.
 */
#ifndef __FP_PROBE_H
#define __FP_PROBE_H

#include <stdbool.h>
#include <linux/types.h>

#include "fabprobe.h"

struct fabprobe_bpf;

struct probe_opts {
	__u16 roce_port;
	__u16 vxlan_port;
	__u32 flow_entries; /* flow table size, entries */
	bool replay;	    /* take clock and path from replay_frame() */
};

#define PROBE_OPTS_DEFAULT                                                                         \
	{                                                                                          \
		.roce_port = FP_ROCE_PORT_DEFAULT, .vxlan_port = FP_VXLAN_PORT_DEFAULT,            \
		.flow_entries = FP_FLOWS_DEFAULT,                                                  \
	}

struct probe {
	struct fabprobe_bpf *skel;
	int ncpus;
	__u32 flow_entries;
	bool replay;
};

/* Open, configure and load; errors are reported on stderr. */
int probe_load(struct probe *p, const struct probe_opts *opts);
void probe_destroy(struct probe *p);

/*
 * Run one captured frame through the XDP program (BPF_PROG_TEST_RUN).
 * caplen bytes are present; wire_len is the frame's length on the wire.
 * Returns 0, or a negative errno when the kernel refused the frame.
 */
int probe_run_frame(struct probe *p, const void *frame, __u32 caplen, __u32 wire_len, __u64 ts_ns,
		    __u32 path_id);

#endif /* __FP_PROBE_H */
