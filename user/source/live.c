// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "fabprobe.skel.h"
#include "source/live.h"
#include "probe/samples.h"
#include "util/log.h"
#include "util/options.h"

volatile sig_atomic_t live_exiting;

static void on_signal(int sig)
{
	(void)sig;
	live_exiting = 1;
}

void live_opts_init(struct live_opts *o)
{
	struct probe_opts defaults = PROBE_OPTS_DEFAULT;

	memset(o, 0, sizeof(*o));
	o->popts = defaults;
	o->hooks = PROBE_HOOK_XDP | PROBE_HOOK_TC_OUT;
	o->xdp_mode = PROBE_XDP_AUTO;
}

/* Split a comma-separated interface list in place. */
static int split_ifaces(const char *opt, char *arg, char **out, int *n)
{
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		if (strlen(tok) >= IF_NAMESIZE) {
			fp_err("%s: '%s' is longer than an interface name can be", opt, tok);
			return -EINVAL;
		}
		for (int i = 0; i < *n; i++)
			if (!strcmp(out[i], tok))
				goto next;
		if (*n >= LIVE_MAX_IFACES) {
			fp_err("%s: at most %d interfaces", opt, LIVE_MAX_IFACES);
			return -EINVAL;
		}
		out[(*n)++] = tok;
	next:;
	}
	if (!*n) {
		fp_err("%s: no interface named", opt);
		return -EINVAL;
	}
	return 0;
}

int live_parse_opt(struct live_opts *o, int opt, char *arg)
{
	switch (opt) {
	case 'i':
		return split_ifaces("--interfaces", arg, o->ifaces, &o->n_ifaces) ?: 1;
	case 'U':
		return split_ifaces("--uplinks", arg, o->uplinks, &o->n_uplinks) ?: 1;
	case 'H':
		if (!strcmp(arg, "xdp"))
			o->hooks = PROBE_HOOK_XDP;
		else if (!strcmp(arg, "tc"))
			o->hooks = PROBE_HOOK_TC_IN | PROBE_HOOK_TC_OUT;
		else if (!strcmp(arg, "both"))
			o->hooks = PROBE_HOOK_XDP | PROBE_HOOK_TC_OUT;
		else {
			fp_err("--hook: '%s' is not xdp, tc or both", arg);
			return -EINVAL;
		}
		return 1;
	case 'M':
		if (!strcmp(arg, "native"))
			o->xdp_mode = PROBE_XDP_NATIVE;
		else if (!strcmp(arg, "generic"))
			o->xdp_mode = PROBE_XDP_GENERIC;
		else {
			fp_err("--xdp-mode: '%s' is not native or generic", arg);
			return -EINVAL;
		}
		return 1;
	default:
		return opt_parse_probe(&o->popts, opt, arg);
	}
}

int live_parse_common(const char *cmd, struct live_opts *lo, struct analysis_opts *ao, int opt,
		      char *arg, char **argv)
{
	int err = live_parse_opt(lo, opt, arg);

	if (!err)
		err = opt_parse_analysis(ao, opt, arg);
	if (err < 0)
		return 2;
	return err ? 0 : opt_bad(cmd, opt, argv);
}

static bool is_uplink(const struct live_opts *o, const char *name)
{
	for (int i = 0; i < o->n_uplinks; i++)
		if (!strcmp(o->uplinks[i], name))
			return true;
	return false;
}

static const char *hook_desc(unsigned int hooks)
{
	if (hooks == PROBE_HOOK_XDP)
		return "xdp ingress";
	if (hooks == (PROBE_HOOK_TC_IN | PROBE_HOOK_TC_OUT))
		return "tc ingress+egress";
	return "xdp ingress + tc egress";
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int live_start(struct live *l, struct live_opts *o, const struct analysis_opts *ao)
{
	struct sigaction sa = {.sa_handler = on_signal};
	int err;

	/* Uplinks are watched whether or not -i names them too. */
	for (int i = 0; i < o->n_uplinks; i++) {
		bool listed = false;

		for (int j = 0; j < o->n_ifaces; j++)
			listed |= !strcmp(o->ifaces[j], o->uplinks[i]);
		if (!listed && o->n_ifaces < LIVE_MAX_IFACES)
			o->ifaces[o->n_ifaces++] = o->uplinks[i];
	}
	if (!o->n_ifaces) {
		fp_err("no interface given: use -i IF[,IF...]");
		return -EINVAL;
	}
	/* Check every name before loading anything: one clear line per mistake. */
	for (int i = 0; i < o->n_ifaces; i++) {
		if (!if_nametoindex(o->ifaces[i])) {
			fp_err("interface %s does not exist", o->ifaces[i]);
			return -ENODEV;
		}
	}

	memset(l, 0, sizeof(*l));
	l->aopts = *ao;
	o->popts.hooks = o->hooks;
	err = probe_load(&l->probe, &o->popts);
	if (err)
		return err;
	for (int i = 0; i < o->n_ifaces; i++) {
		err = probe_attach(&l->probe, o->ifaces[i], o->hooks, o->xdp_mode);
		if (err) {
			probe_destroy(&l->probe);
			return err;
		}
		l->names[i].ifindex = if_nametoindex(o->ifaces[i]);
		snprintf(l->names[i].name, FP_NAME_LEN, "%s", o->ifaces[i]);
		l->names[i].uplink = is_uplink(o, o->ifaces[i]);
	}
	l->n_names = o->n_ifaces;
	l->hooks = o->hooks;
	l->xdp_mode = o->xdp_mode;
	l->hook_desc = hook_desc(o->hooks);
	l->ropts.mode = "live";
	l->ropts.ifaces = l->names;
	l->ropts.n_ifaces = l->n_names;
	l->started_ns = mono_ns();
	/* Scripts wait for this line before they start traffic. */
	fprintf(stderr, "fabprobe: attached to %d interface%s (%s)\n", l->n_names,
		l->n_names == 1 ? "" : "s", l->hook_desc);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void live_stop(struct live *l)
{
	ring_buffer__free(l->samples_rb);
	l->samples_rb = NULL;
	analysis_free(&l->an);
	snapshot_free(&l->snap);
	probe_destroy(&l->probe);
}

static void iface_event(struct live *l, const char *fmt, const char *name)
{
	snprintf(l->last_event, sizeof(l->last_event), fmt, name);
	if (!l->quiet)
		fp_err("%s", l->last_event);
}

/*
 * Interfaces come and go while we run: report each change once and keep
 * probing the others. A link dies with its device, so an interface that
 * comes back (a new ifindex) is attached again.
 */
static void check_ifaces(struct live *l)
{
	static const char *const news[] = {
	    [IFACE_UP] = "interface %s is up again",
	    [IFACE_DOWN] = "interface %s went down; probing the others goes on",
	    [IFACE_GONE] = "interface %s disappeared; probing the others goes on",
	};

	for (int i = 0; i < l->n_names; i++) {
		struct iface_name *n = &l->names[i];
		__u32 ifindex = if_nametoindex(n->name);
		enum iface_state state = IFACE_GONE;

		if (ifindex)
			state = probe_iface_up(n->name) > 0 ? IFACE_UP : IFACE_DOWN;
		if (state == IFACE_UP && ifindex != n->ifindex) {
			/* A failed attach is retried at the next refresh. */
			if (probe_attach(&l->probe, n->name, l->hooks, l->xdp_mode))
				continue;
			n->ifindex = ifindex;
			l->if_state[i] = state;
			iface_event(l, "interface %s is back and attached again", n->name);
			continue;
		}
		if (state != l->if_state[i]) {
			l->if_state[i] = state;
			iface_event(l, news[state], n->name);
		}
	}
}

int live_refresh(struct live *l)
{
	int err;

	check_ifaces(l);
	err = collect_snapshot(&l->probe, &l->snap);

	if (err)
		return err;
	snapshot_sort_by_bytes(&l->snap);
	/* Before a previous refresh exists, rates are over the time since attach. */
	err = analysis_update(&l->an, &l->snap, &l->ropts, &l->aopts, live_uptime_s(l));
	if (err)
		fp_err("analysis failed: %s", fp_strerror(err));
	return err;
}

bool live_sleep(double seconds)
{
	__u64 until = mono_ns() + (__u64)(seconds * 1e9);

	while (!live_exiting) {
		__u64 now = mono_ns();
		struct timespec ts = {0, 50000000};

		if (now >= until)
			break;
		if (until - now < 50000000ULL)
			ts.tv_nsec = until - now;
		nanosleep(&ts, NULL);
	}
	return !live_exiting;
}

int live_collect_samples(struct live *l, struct sample_store *st)
{
	int fd = bpf_map__fd(l->probe.skel->maps.fp_samples);

	l->samples_rb = ring_buffer__new(fd, samples_on_ring, st, NULL);
	if (!l->samples_rb) {
		int err = -errno;

		fp_err("cannot open the sample ring: %s", fp_strerror(err));
		return err;
	}
	return 0;
}

bool live_wait(struct live *l, double seconds)
{
	__u64 until = mono_ns() + (__u64)(seconds * 1e9);

	if (!l->samples_rb)
		return live_sleep(seconds);
	while (!live_exiting && mono_ns() < until) {
		int err = ring_buffer__poll(l->samples_rb, 50);

		if (err < 0 && err != -EINTR) {
			fp_err("sample ring: %s", fp_strerror(err));
			return live_sleep((until - mono_ns()) / 1e9);
		}
	}
	return !live_exiting;
}

double live_uptime_s(const struct live *l)
{
	return (mono_ns() - l->started_ns) / 1e9;
}
