/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live.h - the live source: the probe attached to this host's interfaces
 * (XDP and tcx links), the kernel feeding it. Interfaces that go down,
 * come back or disappear are reported once each and re-attached; when
 * the last of them is gone the run stops, the input cut short. Where
 * another program (another fabprobe, e.g. the exporter) holds an
 * interface's XDP hook and --hook was not given, that interface's
 * ingress is watched through tcx instead, which several programs share.
 */
#ifndef __FP_LIVE_H
#define __FP_LIVE_H

#include <net/if.h>

#include "probe/probe.h"
#include "source/source.h"

#define LIVE_MAX_IFACES SOURCE_MAX_POINTS

struct live_opts {
	char ifaces[LIVE_MAX_IFACES][IF_NAMESIZE];
	int n_ifaces;
	char uplinks[LIVE_MAX_IFACES][IF_NAMESIZE];
	int n_uplinks;
	unsigned int hooks; /* enum probe_hooks */
	bool hooks_given;   /* --hook: what was asked for is what is attached */
	enum probe_xdp_mode xdp_mode;
	struct probe_opts popts;
};

void live_opts_init(struct live_opts *o);
/* "eth2,eth3" into a list (copied: argv stays as it was); -EINVAL with one line. */
int live_add_ifaces(const char *opt, const char *arg, char (*list)[IF_NAMESIZE], int *n);
/* "xdp", "tc", "both"; "native", "generic". */
int live_parse_hook(const char *arg, unsigned int *hooks);
int live_parse_xdp_mode(const char *arg, enum probe_xdp_mode *mode);

/* A live source for these options (not started yet); NULL when out of memory. */
struct source *live_source_new(const struct live_opts *o);

#endif /* __FP_LIVE_H */
