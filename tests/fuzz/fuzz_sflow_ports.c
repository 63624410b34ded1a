// SPDX-License-Identifier: GPL-2.0
/*
 * The sFlow source's own parsing, without BPF: arbitrary bytes split into a
 * port map (--sflow-port-map text) and a datagram, the datagram decoded
 * with a visitor that does what the source does with ports (rate ids for
 * output ports, counters, port names), then a snapshot of made-up flows
 * scaled. One table lives across inputs, so it fills up as a long-running
 * listener's would. Nothing may crash or read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/sflow_decode.h"
#include "source/sflow_ports.h"
#include "util/log.h"

static struct sflow_ports ports;

static void on_header(void *ctx, const struct sflow_flow_sample *s,
		      const struct sflow_sampled_header *h)
{
	(void)ctx;
	(void)h;
	sflow_ports_rate_id(&ports, &s->datagram->agent, &s->output, s->sampling_rate ?: 1);
}

static void on_counters(void *ctx, const struct sflow_counter_sample *s,
			const struct sflow_if_counters *c)
{
	(void)ctx;
	sflow_ports_counters(&ports, &s->datagram->agent, s->datagram->uptime_ms, c);
}

static void on_name(void *ctx, const struct sflow_counter_sample *s,
		    const struct sflow_port_name *n)
{
	(void)ctx;
	sflow_ports_port_name(&ports, &s->datagram->agent, s->source.index, n->name, n->length);
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	static const struct sflow_visitor v = {
	    .sampled_header = on_header, .if_counters = on_counters, .port_name = on_name};
	struct flow_record recs[4];
	struct snapshot snap = {.flows = recs, .cap = 4};
	size_t split = size ? data[0] % (size + 1) : 0;
	FILE *f;

	if (!ports.ports) {
		if (sflow_ports_init(&ports))
			abort();
		fp_log_to(fopen("/dev/null", "w"));
	}
	f = fmemopen((void *)data, split ? split : 1, "r");
	if (f && split) {
		sflow_ports_read_map(&ports, f, "fuzz");
		fclose(f);
	} else if (f) {
		fclose(f);
	}
	sflow_decode(data + split, size - split, &v, NULL, NULL);
	/* Flows keyed by whatever ids the bytes name, known or not. */
	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 4 && 4 * (i + 1) <= (int)size; i++) {
		memcpy(&recs[i].key.ifindex, data + 4 * i, 4);
		recs[i].key.dest_qp = i % 2;
		recs[i].c.packets = data[4 * i];
		snap.n_flows++;
	}
	sflow_ports_scale(&ports, &snap);
	if (snap.n_flows > 4)
		abort();
	return 0;
}
