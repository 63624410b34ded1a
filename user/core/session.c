// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/session.h"
#include "probe/probe.h"
#include "util/log.h"
#include "util/stop.h"

/* The source's description, and the NIC state beside it. */
static void describe(struct session *ss)
{
	ss->src->ops->describe(ss->src, &ss->desc);
	ss->desc.nic = ss->nic ? &ss->nic->now.st : NULL;
	if (ss->nic_gone) {
		ss->desc.damaged = true;
		snprintf(ss->desc.event, sizeof(ss->desc.event), "%s", ss->nic_gone_info);
		ss->desc.event_seq = ss->nic_gone_seq; /* the NIC source has no events of its own */
	}
}

/* Scripts wait for this line as for "attached to"; nothing to read is the front end's to say. */
static void announce_nic(const struct nic_state *s)
{
	size_t bad = 0, bad_lines = 0, no_stats = 0;

	if (!s->n_ports && !s->n_netdevs)
		return;
	for (size_t i = 0; i < s->n_ports; i++)
		bad += s->ports[i].hw.unreadable + s->ports[i].pma.unreadable;
	for (size_t i = 0; i < s->n_netdevs; i++) {
		no_stats += s->netdevs[i].error[0] != '\0';
		bad_lines += s->netdevs[i].ethtool.unreadable;
	}
	fprintf(stderr, "fabprobe: reading NIC counters: %zu RDMA port%s, %zu netdev%s%s%s",
		s->n_ports, s->n_ports == 1 ? "" : "s", s->n_netdevs, s->n_netdevs == 1 ? "" : "s",
		s->info[0] ? "; " : "", s->info);
	if (bad)
		fprintf(stderr, "; %zu counter file%s unreadable or not a number, left out", bad,
			bad == 1 ? "" : "s");
	if (bad_lines) /* a recorded tree's ethtool text: the ioctl has no such line */
		fprintf(stderr, "; %zu ethtool line%s not a name and a 64-bit number, left out",
			bad_lines, bad_lines == 1 ? "" : "s");
	/* What --json and the views leave empty, said where a script or a person looks first. */
	for (size_t i = 0; i < s->n_netdevs; i++)
		if (s->netdevs[i].error[0]) {
			fprintf(stderr, "; no statistics of %zu netdev%s (%s: %s)", no_stats,
				no_stats == 1 ? "" : "s", s->netdevs[i].name, s->netdevs[i].error);
			break;
		}
	if (s->qp_error[0])
		fprintf(stderr, "; no QP table (%s)", s->qp_error);
	fputc('\n', stderr);
}

int session_start(struct session *ss, struct source *src, const struct analysis_opts *ao,
		  bool samples)
{
	int err;

	memset(ss, 0, sizeof(*ss));
	ss->aopts = *ao;
	/* A test hook: an analysis that fails for real takes a machine out of memory. */
	ss->analyses_ok = getenv("FABPROBE_TEST_ANALYSIS_FAIL")
			      ? strtol(getenv("FABPROBE_TEST_ANALYSIS_FAIL"), NULL, 10)
			      : -1;
	ss->log = calloc(1, sizeof(*ss->log));
	if (!ss->log) {
		src->ops->destroy(src);
		fp_err("out of memory");
		return -ENOMEM;
	}
	fp_stop_on_signals();
	ss->src = src;
	err = src->ops->start(src);
	if (!err && samples && src->probe) /* a NIC-only source has no packets to sample */
		err = samples_open(src->probe, &ss->samples);
	if (err) {
		session_stop(ss);
		return err;
	}
	if (src->nic) {
		err = session_nic_start(&ss->nic, src->nic, ao);
		if (err) {
			session_stop(ss);
			return err;
		}
		announce_nic(&ss->nic->now.st);
	}
	describe(ss);
	return 0;
}

/* A source's events go to stderr once each, unless the dashboard shows them. */
static void report_event(struct session *ss, unsigned int seq);

/*
 * NIC counters alone, and every RDMA port read since the start gone from
 * st, just read (a driver unloaded, a function reset, an unplug, a
 * recorded tree removed): the input is cut short, exit status 3, as a live
 * source's when its last interface goes; said once, by nic.info, which
 * names them. Back again, the input is whole again. Beside packets, the
 * packets are the input, and nic.info alone says it.
 */
static void note_nic_gone(struct session *ss, const struct nic_state *st)
{
	bool gone = !strcmp(ss->desc.mode, "nic") && st->n_seen && !st->n_ports;

	if (gone)
		snprintf(ss->nic_gone_info, sizeof(ss->nic_gone_info), "%s", st->info);
	if (gone == ss->nic_gone)
		return;
	ss->nic_gone = gone;
	ss->nic_gone_seq += gone;
	describe(ss);
	report_event(ss, ss->desc.event_seq);
}

static void report_event(struct session *ss, unsigned int seq)
{
	if (seq == ss->event_seq)
		return;
	ss->event_seq = seq;
	if (ss->quiet || !ss->desc.event[0])
		return;
	/* On a terminal, over a progress line a front end may have left open. */
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	fp_err("%s", ss->desc.event);
}

int session_advance(struct session *ss, double seconds)
{
	int err = ss->src->ops->advance(ss->src, seconds);

	/* A recording read to its end: every refresh from now on is past its last frame. */
	if (err == 1) {
		ss->ended = true;
		session_last_refresh(ss);
	}
	return err;
}

int session_advance_by(struct session *ss, double seconds)
{
	double target = session_clock_s(ss) + seconds, left = seconds;
	int rc;

	if (!ss->desc.finite)
		return session_advance(ss, seconds);
	/* A recording's clock is whole ns: less than one left is there. */
	while ((rc = session_advance(ss, left + 0.5e-9)) == 0 && !fp_stopping) {
		left = target - session_clock_s(ss);
		if (left < 1e-9)
			break;
		if (ss->reading)
			ss->reading(ss, ss->reading_arg);
	}
	return rc;
}

void session_resume(struct session *ss)
{
	if (ss->src->ops->resume)
		ss->src->ops->resume(ss->src);
}

/*
 * Uplinks or mirror sessions past the paths an analysis holds: in
 * ss->notice, and on stderr once each time more are, unless the front end
 * shows it itself (quiet: the dashboard's header, replay after its report).
 */
static void note_paths_dropped(struct session *ss)
{
	const struct analysis *a = &ss->an;
	int dropped = a->paths_dropped + a->mirror_dropped;

	if (dropped <= ss->paths_dropped_said)
		return;
	ss->paths_dropped_said = dropped;
	if (a->paths_dropped)
		snprintf(ss->notice, sizeof(ss->notice),
			 "%d uplink%s not analysed, from %s on (an analysis holds %d paths, whole "
			 "ECMP groups): their flows count in the totals, on no path%s",
			 a->paths_dropped, a->paths_dropped == 1 ? "" : "s", a->dropped_first,
			 AN_MAX_PATHS, a->mirror_dropped ? "; mirror sessions too" : "");
	else
		snprintf(ss->notice, sizeof(ss->notice),
			 "mirror sessions not analysed (an analysis holds %d paths): their flows "
			 "count in the totals, on no path",
			 AN_MAX_PATHS);
	if (!ss->quiet)
		fp_err("%s", ss->notice);
}

/*
 * What a whole run's rates are over (analysis_update()'s span_s): the
 * time its RoCE traffic was seen, from the first packet of its flows to
 * the last, not the time the run watched nor a recording's first frame
 * to its last, whose idle stretches would thin every rate. But no less
 * than a second (or the run, when shorter), the interval of a live run's
 * series: a burst of a few packets is not rated over its microseconds.
 * With no RoCE flow, the source's time.
 */
#define WHOLE_SPAN_MIN_S 1.0

static double whole_span_s(const struct session *ss)
{
	double floor_s = ss->desc.clock_s < WHOLE_SPAN_MIN_S ? ss->desc.clock_s : WHOLE_SPAN_MIN_S;
	double span_s = snapshot_span_s(&ss->snap);

	if (!ss->snap.n_flows)
		return ss->desc.clock_s;
	return span_s > floor_s ? span_s : floor_s;
}

/* analysis_update() over the session's snapshot, or the test hook's failure. */
static int analyse(struct session *ss, struct analysis *a, double span_s)
{
	if (ss->analyses_ok >= 0 && ss->analyses++ >= (__u64)ss->analyses_ok)
		return -ENOMEM;
	return analysis_update(a, &ss->snap, &ss->desc, &ss->aopts, span_s);
}

int session_collect(struct session *ss)
{
	int err = ss->src->ops->collect(ss->src, &ss->snap);

	if (err)
		return err;
	describe(ss);
	report_event(ss, ss->desc.event_seq);
	if (!ss->unordered)
		snapshot_sort_by_bytes(&ss->snap);
	return 0;
}

int session_refresh(struct session *ss)
{
	int err = session_collect(ss);

	if (err)
		return err;
	/*
	 * Before a previous refresh, rates are over the source's time so far;
	 * a recording read to its end before it (replay) is a whole run.
	 */
	err = analyse(ss, &ss->an, ss->ended ? whole_span_s(ss) : ss->desc.clock_s);
	if (err) {
		fp_err("analysis failed: %s", fp_strerror(err));
		return err;
	}
	note_paths_dropped(ss);
	if (ss->nic) {
		err = session_nic_refresh(ss->nic, &ss->snap, &ss->an);
		if (err)
			return err;
		note_nic_gone(ss, &ss->nic->now.st);
	}
	alert_log_note(ss->log, &ss->an, ss->desc.clock_s);
	ss->refreshes++;
	return 0;
}

void session_last_refresh(struct session *ss)
{
	if (ss->src->probe)
		ss->src->probe->input_ended = true;
}

int session_whole(struct session *ss, struct analysis *whole)
{
	int err = analyse(ss, whole, whole_span_s(ss));

	if (err)
		fp_err("analysis failed: %s", fp_strerror(err));
	if (!err && ss->nic) {
		err = session_nic_whole(ss->nic, &ss->snap, whole);
		if (!err)
			note_nic_gone(ss, &ss->nic->whole.st);
	}
	/*
	 * The run's last word in the log: a recording's last slice may be
	 * silent, and would leave as cleared what the whole of it raises.
	 */
	if (!err)
		alert_log_note(ss->log, whole, ss->desc.clock_s);
	return err;
}

int session_conclude(struct session *ss)
{
	analysis_free(&ss->an);
	return session_whole(ss, &ss->an);
}

double session_silence_s(const struct session *ss, double interval_s)
{
	const struct source_desc *d = &ss->desc;
	double n;

	if (d->silence_to_s <= d->clock_s ||
	    d->clock_s < d->silence_from_s + SESSION_SILENCE_AS_USUAL_S)
		return 0;
	/* Intervals that end before the next frame; a millisecond spares the seconds' rounding. */
	n = floor((d->silence_to_s - d->clock_s - 1e-3) / interval_s);
	return n > 0 ? n * interval_s : 0;
}

double session_clock_s(const struct session *ss)
{
	struct source_desc d;

	ss->src->ops->describe(ss->src, &d);
	return d.clock_s;
}

void session_stop(struct session *ss)
{
	if (ss->src)
		ss->src->ops->destroy(ss->src);
	ss->src = NULL;
	samples_free(&ss->samples);
	session_nic_free(ss->nic);
	ss->nic = NULL;
	analysis_free(&ss->an);
	snapshot_free(&ss->snap);
	free(ss->log);
	ss->log = NULL;
}
