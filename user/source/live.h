/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live.h - what every live command shares: the interface options, loading
 * and attaching the probe, and stopping cleanly on SIGINT/SIGTERM.
 */
#ifndef __FP_LIVE_H
#define __FP_LIVE_H

#include <signal.h>
#include <stdbool.h>

#include "core/analysis.h"
#include "probe/collect.h"
#include "probe/probe.h"
#include "render/report.h"

#define LIVE_MAX_IFACES 64

struct live_opts {
	char *ifaces[LIVE_MAX_IFACES];
	int n_ifaces;
	char *uplinks[LIVE_MAX_IFACES];
	int n_uplinks;
	unsigned int hooks;
	enum probe_xdp_mode xdp_mode;
	struct probe_opts popts;
};

enum iface_state {
	IFACE_UP,
	IFACE_DOWN,
	IFACE_GONE,
};

/* A running probe and its latest picture: snapshot and analysis. */
struct live {
	struct probe probe;
	struct iface_name names[LIVE_MAX_IFACES];
	enum iface_state if_state[LIVE_MAX_IFACES];
	int n_names;
	unsigned int hooks;
	enum probe_xdp_mode xdp_mode;
	const char *hook_desc;
	char last_event[160]; /* the latest interface event, for the dashboard */
	bool quiet;	      /* events only in last_event, not on stderr (dashboard) */
	__u64 started_ns;
	struct snapshot snap;
	struct analysis an;
	struct analysis_opts aopts;
	struct report_opts ropts;
	struct ring_buffer *samples_rb; /* when sampling (capture) */
};

struct sample_store;

#define LIVE_LONG_OPTS                                                                             \
	{"interfaces", required_argument, NULL, 'i'}, {"uplinks", required_argument, NULL, 'U'},   \
	    {"hook", required_argument, NULL, 'H'}, {"xdp-mode", required_argument, NULL, 'M'},    \
	    OPT_PROBE_LONG_OPTS
#define LIVE_HELP                                                                                  \
	"  -i, --interfaces IF,...  interfaces to attach to\n"                                     \
	"      --uplinks IF,...     the ECMP group (a host's rails, a router's spine ports);\n"    \
	"                           flows seen on them report their \"path\"\n"                    \
	"      --hook xdp|tc|both   xdp: XDP ingress; tc: tcx ingress and egress;\n"               \
	"                           both (default): XDP ingress and tcx egress\n"                  \
	"      --xdp-mode native|generic  XDP mode (default: native, else "                        \
	"generic)\n" OPT_PROBE_HELP

void live_opts_init(struct live_opts *o);
/* Handle one of LIVE_LONG_OPTS: 1 handled, 0 not ours, negative on a bad value. */
int live_parse_opt(struct live_opts *o, int opt, char *arg);
/*
 * The default: branch of a live command's getopt loop: the interface,
 * probe and analysis options, else one line naming the bad option.
 * Returns 0 when handled, 2 (the usage exit code) otherwise.
 */
int live_parse_common(const char *cmd, struct live_opts *lo, struct analysis_opts *ao, int opt,
		      char *arg, char **argv);

/* Validate, load, attach every interface; errors name what failed. */
int live_start(struct live *l, struct live_opts *o, const struct analysis_opts *ao);
void live_stop(struct live *l);
/* Collect, sort by bytes, analyse: l->snap and l->an are the new picture. */
int live_refresh(struct live *l);
/* Sleep up to seconds, waking early on SIGINT/SIGTERM; false once told to exit. */
bool live_sleep(double seconds);
/*
 * Drain the probe's packet samples into st while waiting (live_wait).
 * Needs popts.sample_per_flow set before live_start().
 */
int live_collect_samples(struct live *l, struct sample_store *st);
/* live_sleep, draining the sample ring meanwhile when there is one. */
bool live_wait(struct live *l, double seconds);

/* Seconds since the probe was attached. */
double live_uptime_s(const struct live *l);

/* Set by SIGINT/SIGTERM; front ends poll it. */
extern volatile sig_atomic_t live_exiting;

#endif /* __FP_LIVE_H */
