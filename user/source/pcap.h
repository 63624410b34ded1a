/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcap.h - the recording source: pcap/pcapng captures run frame by frame
 * through the probe's own XDP program (BPF_PROG_TEST_RUN), at the pace
 * they were recorded or as fast as they can be read. Several captures of
 * one ECMP group's uplinks (--path NAME=FILE) are merged in time order.
 * A capture cut short is read up to the damage and reported, not refused.
 */
#ifndef __FP_PCAP_H
#define __FP_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "probe/probe.h"
#include "source/source.h"

#define PCAP_MAX_FILES SOURCE_MAX_POINTS

struct pcap_opts {
	struct {
		const char *path;
		char name[FP_NAME_LEN]; /* the uplink it was taken on (--path), or "" */
	} files[PCAP_MAX_FILES];
	int n_files;
	double speed; /* 1: as recorded, 2: twice as fast, 0: as fast as frames run */
	int threads;  /* workers running frames (probe/runpool.h); 0: runpool_default_threads() */
	/*
	 * The caller reads the whole capture in one advance (replay): on two
	 * CPUs or more, start queues frames while the program loads, ahead of
	 * any target.
	 */
	bool read_ahead;
	struct probe_opts popts;
};

void pcap_opts_init(struct pcap_opts *o);
/* A capture source (not started yet); NULL when out of memory. */
struct source *pcap_source_new(const struct pcap_opts *o);

/*
 * Open a capture file for reading, nanosecond timestamps, through a stdio
 * buffer of CAPTURE_IOBUF bytes of its own (*iobuf; "-" is stdin, as
 * libpcap has it, with stdio's own buffer). libpcap reads a frame's header
 * and data with an fread each, and stdio's default buffer (4 KiB) made
 * that a read(2) every 4 KiB. NULL with errbuf set on failure. Close with
 * capture_close().
 */
#define CAPTURE_IOBUF (1u << 20)
struct pcap *capture_open(const char *path, char **iobuf, char *errbuf);
void capture_close(struct pcap *p, char *iobuf);

struct pcap_pkthdr;
/*
 * A frame's time in ns. A classic pcap's seconds are unsigned 32 bits,
 * which libpcap widens as signed: after 2038 they come out negative.
 */
__u64 capture_ts_ns(const struct pcap_pkthdr *h);
/*
 * A capture's start *t0_ns, moved back to ts_ns when that is earlier (a
 * capture whose time steps back): returns how far, which every offset
 * from the start held grows by. 0 when ts_ns is not earlier.
 */
__u64 capture_start_back(__u64 *t0_ns, __u64 ts_ns);
/* Why libpcap stopped reading path after frame index, for the one line said. */
void capture_damage(char *buf, size_t len, const char *path, unsigned long long index,
		    struct pcap *p);

/* Re-frame a captured frame of link type dlt as Ethernet; 0 if impossible. */
size_t replay_to_ethernet(int dlt, const __u8 *in, size_t caplen, __u8 *out, size_t out_len);

#endif /* __FP_PCAP_H */
