// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/session.h"
#include "probe/probe.h"
#include "util/log.h"
#include "util/stop.h"

int session_start(struct session *ss, struct source *src, const struct analysis_opts *ao,
		  bool samples)
{
	int err;

	memset(ss, 0, sizeof(*ss));
	ss->aopts = *ao;
	ss->log = calloc(1, sizeof(*ss->log));
	if (!ss->log) {
		src->ops->destroy(src);
		fp_err("out of memory");
		return -ENOMEM;
	}
	fp_stop_on_signals();
	ss->src = src;
	err = src->ops->start(src);
	if (!err && samples)
		err = samples_open(src->probe, &ss->samples);
	if (err) {
		session_stop(ss);
		return err;
	}
	src->ops->describe(src, &ss->desc);
	return 0;
}

/* A source's events go to stderr once each, unless the dashboard shows them. */
static void report_event(struct session *ss, unsigned int seq)
{
	if (seq == ss->event_seq)
		return;
	ss->event_seq = seq;
	if (!ss->quiet && ss->desc.event[0])
		fp_err("%s", ss->desc.event);
}

int session_advance(struct session *ss, double seconds)
{
	int err = ss->src->ops->advance(ss->src, seconds);

	if (err == 1)
		ss->ended = true;
	return err;
}

int session_refresh(struct session *ss)
{
	struct source *src = ss->src;
	unsigned int seq;
	int err;

	err = src->ops->collect(src, &ss->snap);
	if (err)
		return err;
	src->ops->describe(src, &ss->desc);
	seq = ss->desc.event_seq;
	report_event(ss, seq);
	snapshot_sort_by_bytes(&ss->snap);
	/* Before a previous refresh, rates are over the source's time so far. */
	err = analysis_update(&ss->an, &ss->snap, &ss->desc, &ss->aopts, ss->desc.clock_s);
	if (err) {
		fp_err("analysis failed: %s", fp_strerror(err));
		return err;
	}
	alert_log_note(ss->log, &ss->an, ss->desc.clock_s);
	ss->refreshes++;
	return 0;
}

int session_whole(struct session *ss, struct analysis *whole)
{
	int err = analysis_update(whole, &ss->snap, &ss->desc, &ss->aopts, ss->desc.clock_s);

	if (err)
		fp_err("analysis failed: %s", fp_strerror(err));
	return err;
}

double session_clock_s(const struct session *ss)
{
	struct source_desc d;

	ss->src->ops->describe(ss->src, &d);
	return d.clock_s;
}

int session_psn(const struct session *ss, const struct flow_key *k, struct psn_track *out)
{
	if (!ss->src->probe)
		return -ENOENT;
	return collect_psn(ss->src->probe, k, out);
}

void session_stop(struct session *ss)
{
	if (ss->src)
		ss->src->ops->destroy(ss->src);
	ss->src = NULL;
	samples_free(&ss->samples);
	analysis_free(&ss->an);
	snapshot_free(&ss->snap);
	free(ss->log);
	ss->log = NULL;
}
