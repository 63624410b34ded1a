// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/collect.h"
#include "probe/samples.h"
#include "source/live.h"
#include "util/log.h"
#include "util/stop.h"

enum iface_state {
	IFACE_UP,
	IFACE_DOWN,
	IFACE_GONE,
};

struct live_source {
	struct source base;
	struct live_opts o;
	struct probe probe;
	struct obs_point points[LIVE_MAX_IFACES];
	enum iface_state state[LIVE_MAX_IFACES];
	unsigned int hooks[LIVE_MAX_IFACES]; /* per interface: XDP ingress may fall back to tcx */
	bool attached[LIVE_MAX_IFACES];	     /* its links are open (on points[].id) */
	__u32 refused[LIVE_MAX_IFACES];	     /* the ifindex whose XDP hook was taken, once said */
	bool fallback;			     /* some interface's XDP hook was taken */
	int n_points;
	const char *hook_desc;
	__u64 started_ns;
	char event[256];
	unsigned int event_seq;
	int events_now; /* events said in this check_ifaces() */
	bool all_gone;	/* every interface watched disappeared: the run is over */
};

#define LIVE(s) ((struct live_source *)(s))

void live_opts_init(struct live_opts *o)
{
	struct probe_opts defaults = PROBE_OPTS_DEFAULT;

	memset(o, 0, sizeof(*o));
	o->popts = defaults;
	o->hooks = PROBE_HOOK_XDP | PROBE_HOOK_TC_OUT;
	o->xdp_mode = PROBE_XDP_AUTO;
}

int live_add_ifaces(const char *opt, const char *arg, char (*list)[IF_NAMESIZE], int *n)
{
	const char *p = arg;
	int added = 0;

	while (*p) {
		size_t len = strcspn(p, ",");
		bool dup = false;

		if (len >= IF_NAMESIZE) {
			fp_err("%s: '%.*s' is longer than an interface name can be", opt, (int)len,
			       p);
			return -EINVAL;
		}
		for (int i = 0; i < *n && len; i++)
			dup |= strlen(list[i]) == len && !strncmp(list[i], p, len);
		if (len && !dup) {
			if (*n >= LIVE_MAX_IFACES) {
				fp_err("%s: at most %d interfaces", opt, LIVE_MAX_IFACES);
				return -EINVAL;
			}
			memcpy(list[*n], p, len);
			list[(*n)++][len] = '\0';
		}
		added += len > 0;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!added) {
		fp_err("%s: no interface named", opt);
		return -EINVAL;
	}
	return 0;
}

int live_parse_hook(const char *arg, unsigned int *hooks)
{
	if (!strcmp(arg, "xdp"))
		*hooks = PROBE_HOOK_XDP;
	else if (!strcmp(arg, "tc"))
		*hooks = PROBE_HOOK_TC_IN | PROBE_HOOK_TC_OUT;
	else if (!strcmp(arg, "both"))
		*hooks = PROBE_HOOK_XDP | PROBE_HOOK_TC_OUT;
	else {
		fp_err("--hook: '%s' is not xdp, tc or both", arg);
		return -EINVAL;
	}
	return 0;
}

int live_parse_xdp_mode(const char *arg, enum probe_xdp_mode *mode)
{
	if (!strcmp(arg, "native"))
		*mode = PROBE_XDP_NATIVE;
	else if (!strcmp(arg, "generic"))
		*mode = PROBE_XDP_GENERIC;
	else {
		fp_err("--xdp-mode: '%s' is not native or generic", arg);
		return -EINVAL;
	}
	return 0;
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

/* The speed the kernel reports for an interface, 0 when it has none (veth, down). */
static double read_speed_bps(const char *ifname)
{
	char path[128];
	long mbps = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &mbps) != 1)
		mbps = -1;
	fclose(f);
	return mbps > 0 ? mbps * 1e6 : 0;
}

/*
 * The hooks for an interface: the asked ones, unless XDP is asked for by
 * default and another program holds the interface's XDP hook: then tcx
 * ingress, which programs share. Returns 0, or -EBUSY when --hook insists.
 * owners gathers "up1 (fp_xdp, id 12)" for the one-line notice.
 */
static int hooks_for(const struct live_opts *o, const char *ifname, unsigned int *hooks,
		     char *owners, size_t len, bool *ours)
{
	char name[32];
	__u32 id;

	*hooks = o->hooks;
	if (!(o->hooks & PROBE_HOOK_XDP))
		return 0;
	id = probe_xdp_owner(ifname, name, sizeof(name));
	if (!id)
		return 0;
	if (o->popts.mirror_drop) {
		fp_err("%s already runs the XDP program '%s' (id %u): --mirror-port-drop drops in "
		       "XDP and fabprobe will not replace it",
		       ifname, name, id);
		return -EBUSY;
	}
	if (o->hooks_given) {
		fp_err("%s already runs the XDP program '%s' (id %u%s); fabprobe will not replace "
		       "it: use --hook tc",
		       ifname, name, id,
		       probe_is_ours(name) ? ", another fabprobe" : ", another tool's");
		return -EBUSY;
	}
	*hooks = (o->hooks & ~PROBE_HOOK_XDP) | PROBE_HOOK_TC_IN;
	*ours &= probe_is_ours(name);
	snprintf(owners + strlen(owners), len - strlen(owners), "%s%s ('%s', id %u)",
		 owners[0] ? ", " : "", ifname, name, id);
	return 0;
}

static int live_start(struct source *s)
{
	struct live_source *l = LIVE(s);
	struct live_opts *o = &l->o;
	int err;

	/* Uplinks are watched whether or not -i names them too. */
	for (int i = 0; i < o->n_uplinks; i++) {
		bool listed = false;

		for (int j = 0; j < o->n_ifaces; j++)
			listed |= !strcmp(o->ifaces[j], o->uplinks[i]);
		if (listed)
			continue;
		if (o->n_ifaces >= LIVE_MAX_IFACES) {
			fp_err("--uplinks: -i and --uplinks name more than %d interfaces",
			       LIVE_MAX_IFACES);
			return -EINVAL;
		}
		memcpy(o->ifaces[o->n_ifaces++], o->uplinks[i], IF_NAMESIZE);
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
	o->popts.hooks = o->hooks;
	{
		char owners[512] = "";
		bool ours = true;

		for (int i = 0; i < o->n_ifaces; i++) {
			err =
			    hooks_for(o, o->ifaces[i], &l->hooks[i], owners, sizeof(owners), &ours);
			if (err)
				return err;
			o->popts.hooks |= l->hooks[i];
		}
		if (owners[0]) {
			l->fallback = true;
			fprintf(stderr,
				"fabprobe: XDP is taken on %s by %s: watching ingress there "
				"with tc instead\n",
				owners, ours ? "another fabprobe" : "another program");
		}
	}
	err = probe_load(&l->probe, &o->popts);
	if (err)
		return err;
	s->probe = &l->probe;
	for (int i = 0; i < o->n_ifaces; i++) {
		struct obs_point *pt = &l->points[i];

		err = probe_attach(&l->probe, o->ifaces[i], l->hooks[i], o->xdp_mode);
		if (err)
			return err;
		pt->id = if_nametoindex(o->ifaces[i]);
		snprintf(pt->name, sizeof(pt->name), "%s", o->ifaces[i]);
		pt->uplink = is_uplink(o, o->ifaces[i]);
		pt->interface = true;
		pt->speed_bps = read_speed_bps(o->ifaces[i]);
		l->attached[i] = true;
		if (probe_iface_up(o->ifaces[i]) <= 0) {
			l->state[i] = IFACE_DOWN;
			fprintf(stderr,
				"fabprobe: interface %s is down: attached, counted once it comes "
				"up\n",
				o->ifaces[i]);
		}
		l->n_points++;
	}
	l->hook_desc = hook_desc(o->hooks);
	l->started_ns = fp_mono_ns();
	/* Scripts wait for this line before they start traffic. */
	fprintf(stderr, "fabprobe: attached to %d interface%s (%s%s)\n", l->n_points,
		l->n_points == 1 ? "" : "s", l->hook_desc,
		l->fallback ? "; tc ingress where XDP is taken" : "");
	return 0;
}

/*
 * One more change to say. Several in one refresh (one interface renamed
 * onto another's name) are said together: the front ends show the last
 * event, and one would hide the others.
 */
static void iface_event(struct live_source *l, const char *fmt, const char *name)
{
	size_t n = l->events_now ? strlen(l->event) : 0;

	if (n && n + 2 < sizeof(l->event))
		n += snprintf(l->event + n, sizeof(l->event) - n, "; ");
	if (n < sizeof(l->event))
		snprintf(l->event + n, sizeof(l->event) - n, fmt, name);
	if (!l->events_now++)
		l->event_seq++;
}

/*
 * The last interface watched is gone: nothing is left to probe, and a live
 * run has no end of its own, so it would wait for ever. Stop as Ctrl-C
 * stops, so that each front end ends as it does then (capture still writes
 * its bundle), with the input marked cut short: exit status 3, and the
 * event is the one line that says why.
 */
static void stop_all_gone(struct live_source *l)
{
	l->all_gone = true;
	iface_event(l, "%s", "none of the interfaces watched is left: fabprobe stops");
	fp_stop_request();
}

/*
 * Interfaces come and go while we run: report each change once and keep
 * probing the others. A link dies with its device, so an interface that
 * comes back (a new ifindex) is attached again. When none is left, stop.
 */
static void check_ifaces(struct live_source *l)
{
	static const char *const news[] = {
	    [IFACE_UP] = "interface %s is up again",
	    [IFACE_DOWN] = "interface %s went down; probing the others goes on",
	    [IFACE_GONE] = "interface %s disappeared; probing the others goes on",
	};

	__u32 now[LIVE_MAX_IFACES];
	bool any_left = false;

	l->events_now = 0;
	/*
	 * First every device that left its name (deleted, renamed, moved to
	 * another namespace): its links close, so that they neither pile up
	 * nor count a device that is not this name's. All before any attach:
	 * a device renamed to another watched name is attached for that name
	 * below, and no later detach by ifindex may close those links.
	 */
	for (int i = 0; i < l->n_points; i++) {
		now[i] = if_nametoindex(l->points[i].name);
		any_left |= now[i] != 0;
		if (l->attached[i] && now[i] != l->points[i].id) {
			probe_detach(&l->probe, l->points[i].id);
			l->attached[i] = false;
		}
	}
	for (int i = 0; i < l->n_points; i++) {
		struct obs_point *pt = &l->points[i];
		__u32 ifindex = now[i];
		enum iface_state state = IFACE_GONE;

		if (ifindex)
			state = probe_iface_up(pt->name) > 0 ? IFACE_UP : IFACE_DOWN;
		if (state == IFACE_UP && !l->attached[i] && l->refused[i] != ifindex) {
			char owners[256] = "";
			bool ours = true;

			/*
			 * What holds its XDP hook may have changed too; a hook whose
			 * program was not loaded cannot be attached without a restart.
			 * A failed attach is retried at the next refresh.
			 */
			if (hooks_for(&l->o, pt->name, &l->hooks[i], owners, sizeof(owners),
				      &ours) ||
			    (l->hooks[i] & ~l->o.popts.hooks)) {
				pt->id = ifindex;
				l->refused[i] = ifindex;
				l->state[i] = state;
				iface_event(l,
					    "interface %s is back but its XDP hook is taken: "
					    "restart fabprobe to watch it through tc",
					    pt->name);
				continue;
			}
			if (probe_attach(&l->probe, pt->name, l->hooks[i], l->o.xdp_mode))
				continue;
			l->attached[i] = true;
			pt->id = ifindex;
			pt->speed_bps = read_speed_bps(pt->name);
			l->state[i] = state;
			iface_event(l, "interface %s is back and attached again", pt->name);
			continue;
		}
		if (state != l->state[i]) {
			l->state[i] = state;
			iface_event(l,
				    state == IFACE_GONE && !any_left ? "interface %s disappeared"
								     : news[state],
				    pt->name);
		}
	}
	if (!any_left && !l->all_gone)
		stop_all_gone(l);
}

static int live_advance(struct source *s, double seconds)
{
	struct live_source *l = LIVE(s);
	__u64 until = fp_mono_ns() + (__u64)(seconds * 1e9);

	if (!l->probe.samples_rb) {
		fp_sleep(seconds);
		return 0;
	}
	while (!fp_stopping && fp_mono_ns() < until) {
		int err = samples_poll(&l->probe, 50);

		if (err) {
			fp_err("sample ring: %s", fp_strerror(err));
			fp_sleep((until - fp_mono_ns()) / 1e9);
			break;
		}
	}
	return 0;
}

static int live_collect(struct source *s, struct snapshot *snap)
{
	struct live_source *l = LIVE(s);

	check_ifaces(l);
	return collect_snapshot(&l->probe, snap);
}

static void live_describe(const struct source *s, struct source_desc *d)
{
	const struct live_source *l = (const struct live_source *)s;
	size_t n;

	memset(d, 0, sizeof(*d));
	d->mode = "live";
	d->points = l->points;
	d->n_points = l->n_points;
	d->every_packet = true;
	d->clock_s = l->started_ns ? (fp_mono_ns() - l->started_ns) / 1e9 : 0;
	n = 0;
	for (int i = 0; i < l->n_points; i++) {
		bool gone = l->state[i] == IFACE_GONE;

		n += snprintf(d->what + n, n < sizeof(d->what) ? sizeof(d->what) - n : 0,
			      "%s%s%s%s", i ? " " : "", l->points[i].name,
			      l->points[i].uplink ? "*" : "", gone ? "(gone)" : "");
	}
	snprintf(d->how, sizeof(d->how), "%s%s", l->hook_desc ?: "",
		 l->fallback ? "; tc ingress where XDP is taken" : "");
	snprintf(d->event, sizeof(d->event), "%s", l->event);
	d->event_seq = l->event_seq;
	d->damaged = l->all_gone;
}

static void live_destroy(struct source *s)
{
	struct live_source *l = LIVE(s);

	probe_destroy(&l->probe);
	free(l);
}

static const struct source_ops live_ops = {
    .start = live_start,
    .advance = live_advance,
    .collect = live_collect,
    .describe = live_describe,
    .destroy = live_destroy,
};

struct source *live_source_new(const struct live_opts *o)
{
	struct live_source *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->base.ops = &live_ops;
	l->o = *o;
	return &l->base;
}
