/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sflow.h - the sFlow source: the fabric's switches as the probe. sFlow v5
 * datagrams, from a UDP listener (--sflow [ADDR:]PORT) or a capture of
 * them (replay --sflow), are decoded (sflow_decode.h); every sampled
 * packet header runs through the probe's own XDP program
 * (BPF_PROG_TEST_RUN) with its original length, its time and its agent's
 * output port as the observation point; counts are scaled by each
 * sample's sampling rate at collect time (sflow_ports.h). Counter samples
 * give each port's own load, discards and errors.
 */
#ifndef __FP_SFLOW_H
#define __FP_SFLOW_H

#include <stdbool.h>
#include <sys/socket.h>
#include <linux/types.h>

#include "probe/probe.h"
#include "source/source.h"

#define SFLOW_DEFAULT_BIND   "127.0.0.1"
#define SFLOW_RCVBUF_DEFAULT (32u << 20)

struct sflow_opts {
	const char *listen;   /* "[ADDR:]PORT" to listen on, or NULL */
	const char *capture;  /* or a capture of sFlow datagrams to read */
	__u16 capture_port;   /* the capture's sFlow UDP port (default 6343) */
	const char *port_map; /* --sflow-port-map FILE, or NULL */
	__u32 rcvbuf_bytes;   /* the listener's receive buffer to ask for */
	int threads;	      /* workers running sampled headers (probe/runpool.h); 0: per CPU */
	struct probe_opts popts;
};

void sflow_opts_init(struct sflow_opts *o);

/*
 * "PORT", "ADDR:PORT" or "[IPv6]:PORT" into a socket address (default
 * address 127.0.0.1); -EINVAL with one line naming opt.
 */
int sflow_parse_listen(const char *opt, const char *arg, struct sockaddr_storage *ss,
		       socklen_t *len);

/*
 * Read a port map before anything starts, so that a bad one is a usage
 * error: 0; -EINVAL after one line per bad line; another -errno when it
 * cannot be read (reported).
 */
int sflow_check_port_map(const char *path);

/* An sFlow source (not started yet); NULL when out of memory. */
struct source *sflow_source_new(const struct sflow_opts *o);

#endif /* __FP_SFLOW_H */
