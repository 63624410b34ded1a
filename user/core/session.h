/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - one run of fabprobe over one source: it owns the snapshot,
 * the analysis and the alert log, and moves them one way:
 *
 *   source (advance, collect) -> snapshot -> analysis -> detect -> alert log
 *                                   NIC counters (source.nic) -^
 *
 * NIC counters ride beside any source (core/session_nic.h): the session
 * re-reads them at every refresh, matches the flows to local QPs and adds
 * the NIC alerts to the analysis'.
 * Front ends hold a session and render what it holds; they never know
 * which source feeds it.
 */
#ifndef __FP_SESSION_H
#define __FP_SESSION_H

#include <stdbool.h>

#include "core/alert_log.h"
#include "core/analysis.h"
#include "core/session_nic.h"
#include "probe/collect.h"
#include "probe/samples.h"
#include "source/source.h"

struct session {
	struct source *src;
	struct source_desc desc; /* as of the last refresh */
	struct snapshot snap;
	struct analysis an;
	struct analysis_opts aopts;
	struct alert_log *log;
	struct sample_store samples; /* when started with samples */
	bool quiet;		     /* source events only in desc.event, not on stderr */
	/*
	 * The front end shows no order by bytes (export): refreshes leave
	 * the flows in the source's order, unsorted. The analysis' answers
	 * are the same either way (analysis_before(); sums of rates are of
	 * whole counts), but for which mirror sessions past AN_MAX_PATHS get
	 * a path (docs/design.md).
	 */
	bool unordered;
	int paths_dropped_said; /* uplinks and mirror sessions past the paths, as last said */
	char notice[256];	/* a note on the analysis for the front end, "" none */
	bool ended;		/* a finite source has been read to its end */
	unsigned int event_seq; /* of the last event printed */
	__u64 refreshes;
	/*
	 * FABPROBE_TEST_ANALYSIS_FAIL=N (a test hook): every analysis after
	 * the Nth fails as out of memory. -1: none fails.
	 */
	long analyses_ok;
	__u64 analyses;
	struct session_nic *nic; /* NIC counters beside the flows (src->nic), or NULL */
	/*
	 * NIC counters alone (the "nic" source), every RDMA port read gone at
	 * the last read: the input is cut short (desc.damaged, its event the
	 * ports' nic.info), as a live source is when its last interface goes.
	 */
	bool nic_gone;
	unsigned int nic_gone_seq;	 /* the event's: one more each time they go */
	char nic_gone_info[NIC_MSG_LEN]; /* nic.info of the read that found them gone */
	/*
	 * Called each time session_advance_by() is handed control back short
	 * of its seconds (a recording read as fast as it runs, every quarter
	 * second of wall time): a front end's progress. NULL: none.
	 */
	void (*reading)(const struct session *ss, void *arg);
	void *reading_arg;
};

/*
 * Start src (load, attach, open) and take ownership of it; with samples,
 * drain the probe's sample ring into ss->samples (the probe options must
 * have asked for sampling). Errors are reported; negative errno.
 */
int session_start(struct session *ss, struct source *src, const struct analysis_opts *ao,
		  bool samples);
/*
 * Let seconds of the source's time pass (a live source waits, a recording
 * runs its frames). 0; 1 once the input has ended; negative errno. Returns
 * early when told to stop (util/stop.h).
 */
int session_advance(struct session *ss, double seconds);
/*
 * The same, but a recording read as fast as it runs, which hands control
 * back every quarter second of wall time (progress, Ctrl-C), is advanced
 * again until the seconds have passed in its own time: a front end that
 * refreshes once each interval of the source's time (capture's series,
 * top --plain's tables) refreshes on the interval, not at a wall budget.
 * Returns early when told to stop.
 */
int session_advance_by(struct session *ss, double seconds);
/* After a pause: a recording played at a pace goes on from where it stands. */
void session_resume(struct session *ss);
/* Collect, sort by bytes (unless unordered), analyse, note alerts: the new picture. */
int session_refresh(struct session *ss);
/*
 * Only its first half: the flows read and sorted, no interval analysed
 * and nothing noted. For a last read before session_whole(), which
 * analyses the whole run: the moments since the last refresh are no
 * interval to raise alerts over.
 */
int session_collect(struct session *ss);
/*
 * No frame will run after the next refresh (a capture's duration reached,
 * a stop; session_advance() says it at a recording's end): the reads from
 * then on free no slot of the flow table for new flows that cannot come,
 * so the flows the table holds stay in the end's picture.
 */
void session_last_refresh(struct session *ss);
/*
 * An analysis of the whole run so far in one interval (a bundle's
 * findings); its alerts are noted in the log as the latest.
 */
int session_whole(struct session *ss, struct analysis *whole);
/*
 * The whole run's analysis in the place of the last refresh's, once its
 * alerts are logged: a recording's final picture, or a bundle's (at a
 * million flows an analysis is 630 MB: one, not two). After a refresh.
 */
int session_conclude(struct session *ss);
/*
 * A recording read as fast as it runs may hold a silent stretch of its
 * time: frames of a device without a clock beside ones with, captures
 * taken months apart and merged. The first SESSION_SILENCE_AS_USUAL_S seconds
 * of one are refreshed as usual, every interval_s: a pause that short is
 * the traffic's own (a stall), and a series shows it second by second.
 * The whole intervals of it that remain pass in one advance and one
 * refresh, which this returns the length of (0: advance as usual), as
 * of the last refresh. A jump
 * of years then costs what a minute does, and the empty refreshes it
 * holds are one.
 */
#define SESSION_SILENCE_AS_USUAL_S 60
double session_silence_s(const struct session *ss, double interval_s);
/* The source's time since it started, seconds. */
double session_clock_s(const struct session *ss);
void session_stop(struct session *ss);

#endif /* __FP_SESSION_H */
