// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabprobe.skel.h"
#include "log.h"
#include "probe.h"

/* The kernel's XDP verdict for "pass" (enum xdp_action). */
#define FP_XDP_PASS 2

static int check_privileges(void)
{
	if (geteuid() != 0) {
		fp_err("must run as root (or with CAP_BPF and CAP_NET_ADMIN) to load BPF programs");
		return -EPERM;
	}
	return 0;
}

int probe_load(struct probe *p, const struct probe_opts *opts)
{
	struct fabprobe_bpf *skel;
	int err;

	err = check_privileges();
	if (err)
		return err;
	fp_setup_libbpf_log();

	skel = fabprobe_bpf__open();
	if (!skel) {
		err = -errno;
		fp_err("cannot open the BPF object: %s", fp_strerror(err));
		return err;
	}
	skel->rodata->roce_port = opts->roce_port;
	skel->rodata->vxlan_port = opts->vxlan_port;
	skel->rodata->replay_mode = opts->replay;

	err = bpf_map__set_max_entries(skel->maps.fp_flows, opts->flow_entries);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.fp_psn, opts->flow_entries);
	if (err) {
		fp_err("cannot size the flow table to %u entries: %s", opts->flow_entries,
		       fp_strerror(err));
		goto fail;
	}
	/* tcx links need the attach type at load time (BPF_TCX_INGRESS/EGRESS). */
	bpf_program__set_expected_attach_type(skel->progs.fp_tc_ingress, 46);
	bpf_program__set_expected_attach_type(skel->progs.fp_tc_egress, 47);

	err = fabprobe_bpf__load(skel);
	if (err) {
		fp_err("cannot load the BPF programs: %s (run with -v for the verifier log)",
		       fp_strerror(err));
		goto fail;
	}
	p->skel = skel;
	p->ncpus = libbpf_num_possible_cpus();
	p->flow_entries = opts->flow_entries;
	p->replay = opts->replay;
	if (p->ncpus < 0) {
		err = p->ncpus;
		fp_err("cannot count the possible CPUs: %s", fp_strerror(err));
		probe_destroy(p);
		return err;
	}
	return 0;
fail:
	fabprobe_bpf__destroy(skel);
	return err;
}

void probe_destroy(struct probe *p)
{
	fabprobe_bpf__destroy(p->skel);
	p->skel = NULL;
}

int probe_run_frame(struct probe *p, const void *frame, __u32 caplen, __u32 wire_len, __u64 ts_ns,
		    __u32 path_id)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = frame, .data_size_in = caplen,
		    .repeat = 1);
	int err;

	p->skel->bss->replay_now_ns = ts_ns;
	p->skel->bss->replay_ifindex = path_id;
	p->skel->bss->replay_wire_len = wire_len;
	err = bpf_prog_test_run_opts(bpf_program__fd(p->skel->progs.fp_xdp), &topts);
	if (err)
		return -errno;
	/* An observer: anything but XDP_PASS is a bug that would drop traffic. */
	if (topts.retval != FP_XDP_PASS)
		return -EPROTO;
	return 0;
}
