// SPDX-License-Identifier: GPL-2.0
/*
 * sflow_dump - decode the sFlow datagrams of a capture and print what they
 * hold as JSON: datagrams, samples and records by kind, malformed ones by
 * reason, datagrams lost per agent. A test tool (tests/replay/sflow_tshark.py
 * compares it with tshark); the decoding is fabprobe's own
 * (source/udp_payload.c, source/sflow_decode.c, source/sflow_seq.c).
 *
 *   sflow_dump [--port N] [--datagrams] [--write-payloads DIR] CAPTURE
 *
 * --datagrams adds one object per UDP datagram to the port: its frame
 * number and either its error or what it held, in datagram order.
 * --write-payloads writes each such datagram to DIR/frame-N (fuzz seeds).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>

#include "source/sflow_decode.h"
#include "source/sflow_seq.h"
#include "source/udp_payload.h"
#include "util/json.h"

#define MAX_KINDS 64
#define MAX_LIST  512

/* Count per (enterprise, format) tag. */
struct kinds {
	__u32 tag[MAX_KINDS];
	__u64 count[MAX_KINDS];
	int n;
	__u64 overflow;
};

/* What one datagram held, in order, for --datagrams (pointers not kept). */
struct datagram_view {
	struct sflow_datagram hdr;
	__u32 samples[MAX_LIST], flow_records[MAX_LIST], counter_records[MAX_LIST];
	int n_samples, n_flow, n_counter;
	struct sflow_flow_sample flows[MAX_LIST];
	struct sflow_sampled_header headers[MAX_LIST];
	struct sflow_counter_sample counters[MAX_LIST];
	struct sflow_if_counters ifcs[MAX_LIST];
	int n_flows, n_headers, n_counters, n_ifcs;
};

struct dump {
	struct sflow_stats stats;
	struct sflow_seq_track seq;
	struct kinds sample_kinds, flow_kinds, counter_kinds, protocols;
	struct datagram_view view;
	__u64 frames, udp_to_port, not_udp, fragments, ip_malformed, truncated;
};

static void kinds_add(struct kinds *k, __u32 tag)
{
	for (int i = 0; i < k->n; i++) {
		if (k->tag[i] == tag) {
			k->count[i]++;
			return;
		}
	}
	if (k->n == MAX_KINDS) {
		k->overflow++;
		return;
	}
	k->tag[k->n] = tag;
	k->count[k->n++] = 1;
}

static void list_add(__u32 *list, int *n, __u32 v)
{
	if (*n < MAX_LIST)
		list[(*n)++] = v;
}

static void on_datagram(void *ctx, const struct sflow_datagram *d)
{
	struct dump *s = ctx;

	memset(&s->view, 0, sizeof(s->view));
	s->view.hdr = *d;
}

static void on_flow_sample(void *ctx, const struct sflow_flow_sample *fs)
{
	struct dump *s = ctx;
	__u32 tag = SFLOW_TAG(0, fs->expanded ? SFLOW_FLOW_SAMPLE_EXPANDED : SFLOW_FLOW_SAMPLE);

	kinds_add(&s->sample_kinds, tag);
	list_add(s->view.samples, &s->view.n_samples, tag);
	if (s->view.n_flows < MAX_LIST)
		s->view.flows[s->view.n_flows++] = *fs;
}

static void on_counter_sample(void *ctx, const struct sflow_counter_sample *cs)
{
	struct dump *s = ctx;
	__u32 tag =
	    SFLOW_TAG(0, cs->expanded ? SFLOW_COUNTER_SAMPLE_EXPANDED : SFLOW_COUNTER_SAMPLE);

	kinds_add(&s->sample_kinds, tag);
	list_add(s->view.samples, &s->view.n_samples, tag);
	if (s->view.n_counters < MAX_LIST)
		s->view.counters[s->view.n_counters++] = *cs;
}

static void on_other_sample(void *ctx, const struct sflow_datagram *d, const struct sflow_raw *r)
{
	struct dump *s = ctx;

	(void)d;
	kinds_add(&s->sample_kinds, SFLOW_TAG(r->enterprise, r->format));
	list_add(s->view.samples, &s->view.n_samples, SFLOW_TAG(r->enterprise, r->format));
}

static void flow_tag(struct dump *s, __u32 tag)
{
	kinds_add(&s->flow_kinds, tag);
	list_add(s->view.flow_records, &s->view.n_flow, tag);
}

static void counter_tag(struct dump *s, __u32 tag)
{
	kinds_add(&s->counter_kinds, tag);
	list_add(s->view.counter_records, &s->view.n_counter, tag);
}

static void on_sampled_header(void *ctx, const struct sflow_flow_sample *fs,
			      const struct sflow_sampled_header *h)
{
	struct dump *s = ctx;
	volatile __u8 sink = 0;

	(void)fs;
	/* Touch every header byte: a bound gone wrong shows under ASan/valgrind. */
	for (__u32 i = 0; i < h->header_length; i++)
		sink ^= h->header[i];
	flow_tag(s, SFLOW_TAG(0, SFLOW_FLOW_SAMPLED_HEADER));
	kinds_add(&s->protocols, h->protocol);
	if (s->view.n_headers < MAX_LIST)
		s->view.headers[s->view.n_headers++] = *h;
}

static void on_flow_record(void *ctx, const struct sflow_flow_sample *fs, const struct sflow_raw *r)
{
	(void)fs;
	flow_tag(ctx, SFLOW_TAG(r->enterprise, r->format));
}

static void on_if_counters(void *ctx, const struct sflow_counter_sample *cs,
			   const struct sflow_if_counters *c)
{
	struct dump *s = ctx;

	(void)cs;
	counter_tag(s, SFLOW_TAG(0, SFLOW_COUNTER_GENERIC));
	if (s->view.n_ifcs < MAX_LIST)
		s->view.ifcs[s->view.n_ifcs++] = *c;
}

static void on_port_name(void *ctx, const struct sflow_counter_sample *cs,
			 const struct sflow_port_name *n)
{
	(void)cs;
	(void)n;
	counter_tag(ctx, SFLOW_TAG(0, SFLOW_COUNTER_PORT_NAME));
}

static void on_counter_record(void *ctx, const struct sflow_counter_sample *cs,
			      const struct sflow_raw *r)
{
	(void)cs;
	counter_tag(ctx, SFLOW_TAG(r->enterprise, r->format));
}

static const struct sflow_visitor visitor = {
    .datagram = on_datagram,
    .flow_sample = on_flow_sample,
    .sampled_header = on_sampled_header,
    .flow_record = on_flow_record,
    .counter_sample = on_counter_sample,
    .if_counters = on_if_counters,
    .port_name = on_port_name,
    .counter_record = on_counter_record,
    .other_sample = on_other_sample,
};

static void tag_key(char *buf, size_t len, __u32 tag)
{
	snprintf(buf, len, "%u:%u", tag >> 12, tag & 0xFFF);
}

static void json_kinds(struct json *j, const char *key, const struct kinds *k, bool tags)
{
	char name[32];

	json_key(j, key);
	json_obj_begin(j);
	for (int i = 0; i < k->n; i++) {
		if (tags)
			tag_key(name, sizeof(name), k->tag[i]);
		else
			snprintf(name, sizeof(name), "%u", k->tag[i]);
		json_kv_u64(j, name, k->count[i]);
	}
	if (k->overflow)
		json_kv_u64(j, "more", k->overflow);
	json_obj_end(j);
}

static void json_tags(struct json *j, const char *key, const __u32 *list, int n)
{
	char name[32];

	json_key(j, key);
	json_arr_begin(j);
	for (int i = 0; i < n; i++) {
		tag_key(name, sizeof(name), list[i]);
		json_str(j, name);
	}
	json_arr_end(j);
}

static void json_pair(struct json *j, const char *key, __u32 a, __u32 b)
{
	json_key(j, key);
	json_arr_begin(j);
	json_u64(j, a);
	json_u64(j, b);
	json_arr_end(j);
}

static void json_agent(struct json *j, const struct sflow_addr *a)
{
	char text[INET6_ADDRSTRLEN];

	inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->bytes, text, sizeof(text));
	json_kv_str(j, "agent", text);
}

static void json_view(struct json *j, const struct datagram_view *v)
{
	json_agent(j, &v->hdr.agent);
	json_kv_u64(j, "sub_agent_id", v->hdr.sub_agent_id);
	json_kv_u64(j, "sequence", v->hdr.sequence);
	json_kv_u64(j, "uptime_ms", v->hdr.uptime_ms);
	json_kv_u64(j, "sample_count", v->hdr.sample_count);
	json_tags(j, "samples", v->samples, v->n_samples);
	json_tags(j, "flow_records", v->flow_records, v->n_flow);
	json_tags(j, "counter_records", v->counter_records, v->n_counter);
	json_key(j, "flows");
	json_arr_begin(j);
	for (int i = 0; i < v->n_flows; i++) {
		const struct sflow_flow_sample *f = &v->flows[i];

		json_obj_begin(j);
		json_kv_bool(j, "expanded", f->expanded);
		json_kv_u64(j, "sequence", f->sequence);
		json_pair(j, "source", f->source.type, f->source.index);
		json_kv_u64(j, "sampling_rate", f->sampling_rate);
		json_kv_u64(j, "sample_pool", f->sample_pool);
		json_kv_u64(j, "drops", f->drops);
		json_pair(j, "input", f->input.format, f->input.value);
		json_pair(j, "output", f->output.format, f->output.value);
		json_kv_u64(j, "records", f->record_count);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "headers");
	json_arr_begin(j);
	for (int i = 0; i < v->n_headers; i++) {
		const struct sflow_sampled_header *h = &v->headers[i];

		json_obj_begin(j);
		json_kv_u64(j, "protocol", h->protocol);
		json_kv_u64(j, "frame_length", h->frame_length);
		json_kv_u64(j, "stripped", h->stripped);
		json_kv_u64(j, "header_length", h->header_length);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "counters");
	json_arr_begin(j);
	for (int i = 0; i < v->n_counters; i++) {
		const struct sflow_counter_sample *c = &v->counters[i];

		json_obj_begin(j);
		json_kv_bool(j, "expanded", c->expanded);
		json_kv_u64(j, "sequence", c->sequence);
		json_pair(j, "source", c->source.type, c->source.index);
		json_kv_u64(j, "records", c->record_count);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "if_counters");
	json_arr_begin(j);
	for (int i = 0; i < v->n_ifcs; i++) {
		const struct sflow_if_counters *c = &v->ifcs[i];

		json_obj_begin(j);
		json_kv_u64(j, "if_index", c->if_index);
		json_kv_u64(j, "if_speed", c->if_speed);
		json_kv_u64(j, "if_status", c->if_status);
		json_kv_u64(j, "in_octets", c->in_octets);
		json_kv_u64(j, "out_octets", c->out_octets);
		json_kv_u64(j, "in_discards", c->in_discards);
		json_kv_u64(j, "out_discards", c->out_discards);
		json_kv_u64(j, "in_errors", c->in_errors);
		json_kv_u64(j, "out_errors", c->out_errors);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--port N] [--datagrams] [--write-payloads DIR] CAPTURE\n",
		prog);
	return 2;
}

static void write_payload(const char *dir, __u64 frame, const __u8 *data, size_t len)
{
	char path[4096];
	FILE *out;

	snprintf(path, sizeof(path), "%s/frame-%llu", dir, (unsigned long long)frame);
	out = fopen(path, "wb");
	if (!out || fwrite(data, 1, len, out) != len || fclose(out)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"port", required_argument, NULL, 'p'},
					     {"datagrams", no_argument, NULL, 'd'},
					     {"write-payloads", required_argument, NULL, 'w'},
					     {"help", no_argument, NULL, 'h'},
					     {}};
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const char *payload_dir = NULL;
	bool per_datagram = false;
	long port = SFLOW_DEFAULT_PORT;
	const __u8 *frame;
	struct json j;
	struct dump *s;
	pcap_t *p;
	int c, rc;

	while ((c = getopt_long(argc, argv, "p:dw:h", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'p':
			port = strtol(optarg, &end, 10);
			if (*end || port < 1 || port > 65535)
				return usage(argv[0]);
			break;
		case 'd':
			per_datagram = true;
			break;
		case 'w':
			payload_dir = optarg;
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (optind != argc - 1)
		return usage(argv[0]);
	p = pcap_open_offline(argv[optind], errbuf);
	if (!p) {
		fprintf(stderr, "sflow_dump: %s\n", errbuf);
		return 1;
	}
	s = calloc(1, sizeof(*s));
	if (!s || sflow_seq_init(&s->seq, 4096)) {
		fprintf(stderr, "sflow_dump: %s\n", strerror(ENOMEM));
		return 1;
	}
	json_init(&j, stdout);
	json_obj_begin(&j);
	if (per_datagram) {
		json_key(&j, "datagram_list");
		json_arr_begin(&j);
	}
	while ((rc = pcap_next_ex(p, &ph, &frame)) == 1) {
		struct udp_datagram u;
		enum sflow_err err;

		s->frames++;
		switch (udp_payload(pcap_datalink(p), frame, ph->caplen, &u)) {
		case UDP_PAYLOAD_OK:
			break;
		case UDP_PAYLOAD_FRAGMENT:
			s->fragments++;
			continue;
		case UDP_PAYLOAD_MALFORMED:
			s->ip_malformed++;
			continue;
		default:
			s->not_udp++;
			continue;
		}
		if (u.dport != port)
			continue;
		s->udp_to_port++;
		s->truncated += u.truncated || u.fragmented;
		if (payload_dir)
			write_payload(payload_dir, s->frames, u.payload, u.len);
		err = sflow_decode(u.payload, u.len, &visitor, s, &s->stats);
		if (!err)
			sflow_seq_update(&s->seq, &s->view.hdr.agent, s->view.hdr.sub_agent_id,
					 s->view.hdr.sequence);
		if (!per_datagram)
			continue;
		json_obj_begin(&j);
		json_kv_u64(&j, "frame", s->frames);
		json_kv_u64(&j, "length", u.len);
		if (err)
			json_kv_str(&j, "error", sflow_err_name(err));
		else
			json_view(&j, &s->view);
		json_obj_end(&j);
	}
	if (per_datagram)
		json_arr_end(&j);
	if (rc == PCAP_ERROR)
		fprintf(stderr, "sflow_dump: %s\n", pcap_geterr(p));

	json_kv_u64(&j, "frames", s->frames);
	json_kv_u64(&j, "not_udp", s->not_udp);
	json_kv_u64(&j, "ip_fragments", s->fragments);
	json_kv_u64(&j, "ip_malformed", s->ip_malformed);
	json_kv_u64(&j, "udp_to_port", s->udp_to_port);
	json_kv_u64(&j, "udp_truncated", s->truncated);
	json_kv_u64(&j, "datagrams", s->stats.datagrams);
	json_kv_u64(&j, "malformed", s->stats.malformed);
	json_key(&j, "errors");
	json_obj_begin(&j);
	for (int e = 1; e < SFLOW_ERR__COUNT; e++)
		json_kv_u64(&j, sflow_err_name(e), s->stats.errors[e]);
	json_obj_end(&j);
	json_kv_u64(&j, "flow_samples", s->stats.flow_samples);
	json_kv_u64(&j, "flow_samples_expanded", s->stats.flow_samples_expanded);
	json_kv_u64(&j, "counter_samples", s->stats.counter_samples);
	json_kv_u64(&j, "counter_samples_expanded", s->stats.counter_samples_expanded);
	json_kv_u64(&j, "other_samples", s->stats.other_samples);
	json_kv_u64(&j, "sampled_headers", s->stats.sampled_headers);
	json_kv_u64(&j, "if_counters", s->stats.if_counters);
	json_kv_u64(&j, "port_names", s->stats.port_names);
	json_kv_u64(&j, "flow_records_other", s->stats.flow_records_other);
	json_kv_u64(&j, "counter_records_other", s->stats.counter_records_other);
	json_kinds(&j, "samples_by_kind", &s->sample_kinds, true);
	json_kinds(&j, "flow_records_by_kind", &s->flow_kinds, true);
	json_kinds(&j, "counter_records_by_kind", &s->counter_kinds, true);
	json_kinds(&j, "header_protocols", &s->protocols, false);
	json_kv_u64(&j, "agents", s->seq.streams);
	json_kv_u64(&j, "lost_datagrams", s->seq.lost);
	json_kv_u64(&j, "reordered_datagrams", s->seq.reordered);
	json_kv_u64(&j, "duplicate_datagrams", s->seq.duplicates);
	json_kv_u64(&j, "agent_restarts", s->seq.restarts);
	json_obj_end(&j);
	printf("\n");
	sflow_seq_free(&s->seq);
	free(s);
	pcap_close(p);
	return rc == PCAP_ERROR ? 1 : 0;
}
