// SPDX-License-Identifier: GPL-2.0
/*
 * ipfix_emit - feed synthetic RoCE flows through fabprobe's IPFIX exporter
 * (user/render/ipfix.c) to a UDP or TCP collector, or into an IPFIX file,
 * and write what was sent as ground truth for the collectors' view.
 *
 * Flow i is deterministic (see make_flow): IPv4 or IPv6, bare or VXLAN,
 * every counter a different function of i, a path name of a chosen
 * length. --intervals K splits each flow into K delta records (active
 * timeouts, then an idle timeout) whose sums are the flow's totals.
 * --truth writes those totals in the field names of fabprobe's JSON
 * report (docs/json.md flows[]), so one checker compares a collector's
 * records with either this tool or `fabprobe replay --json`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "render/ipfix.h"
#include "util/log.h"

struct emit_opts {
	unsigned long count;
	unsigned int v6_every;	    /* flow i is IPv6 when i % v6_every == v6_every - 1 */
	unsigned int sampled_every; /* ... sFlow-fed */
	unsigned int mirror_every;  /* ... mirror-fed */
	unsigned int intervals;
	int path_len; /* -1: "upN" */
	unsigned int tick_us;
	unsigned int linger_ms;
	unsigned int timeout_ms;
	__u64 start_ms; /* flow 0's start, UNIX ms */
	const char *truth;
	const char *stats;
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: ipfix_emit (--udp HOST:PORT | --tcp HOST:PORT | --file PATH) [OPTIONS]\n"
	    "       ipfix_emit --elements-xml [--pen N]\n"
	    "\n"
	    "Send N synthetic RoCE flows through fabprobe's IPFIX exporter.\n"
	    "\n"
	    "  -n, --count N           flows (default 10)\n"
	    "      --v6-every K        every K-th flow is IPv6 (default 2, 0: none)\n"
	    "      --sampled-every K   every K-th flow is sFlow-fed (default 0: none)\n"
	    "      --mirror-every K    every K-th flow carries a mirror session (default 0)\n"
	    "      --intervals K       delta records per flow (default 1)\n"
	    "      --path-len N        path names of N bytes, 0: empty (default: up0..up3)\n"
	    "      --start-ms MS       UNIX ms of flow 0's start (default 1781665958000)\n"
	    "      --mtu BYTES         maximum message size (default %u)\n"
	    "      --pen N             enterprise number (default %u)\n"
	    "      --domain N          observation domain ID (default 0)\n"
	    "      --budget N          messages per tick (default 8)\n"
	    "      --tick-us US        pause between ticks (default 200)\n"
	    "      --queue-bytes N     exporter queue (default %u)\n"
	    "      --refresh-ms MS     UDP template refresh (default %u)\n"
	    "      --refresh-msgs N    UDP template refresh every N messages (default off)\n"
	    "      --no-type-records   no RFC 5610 element descriptions\n"
	    "      --linger-ms MS      close: time to send the rest (default 2000)\n"
	    "      --timeout-ms MS     give up sending after this long (default 30000)\n"
	    "      --truth FILE        write the flows' totals as JSON (docs/json.md names)\n"
	    "      --stats FILE        write the exporter's final counters as JSON\n"
	    "      --elements-xml      print the enterprise elements (libfixbuf XML) and exit\n",
	    IPFIX_MAX_MSG_DEFAULT, IPFIX_PEN_DEFAULT, IPFIX_QUEUE_BYTES_DEFAULT,
	    IPFIX_REFRESH_MS_DEFAULT);
}

static int parse_ul(const char *opt, const char *arg, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *out > max) {
		fprintf(stderr, "ipfix_emit: %s: '%s' is not a number up to %lu\n", opt, arg, max);
		return -EINVAL;
	}
	return 0;
}

/* The path name of flow i: "upN", or exactly len bytes ("" when 0). */
static void path_name(char *buf, size_t size, unsigned long i, int len)
{
	size_t n;

	if (len < 0) {
		snprintf(buf, size, "up%lu", i % 4);
		return;
	}
	snprintf(buf, size, "path-%lu-", i);
	for (n = strlen(buf); n < (size_t)len; n++)
		buf[n] = 'a' + n % 26;
	buf[len] = 0;
}

/* Flow i's totals: every field a different function of i, so a swap shows. */
static void make_flow(struct ipfix_flow *f, char *path, size_t path_size, unsigned long i,
		      const struct emit_opts *o)
{
	__u32 n = i + 1;

	memset(f, 0, sizeof(*f));
	if (o->v6_every && i % o->v6_every == o->v6_every - 1) {
		f->flags |= IPFIX_FLOW_IPV6;
		inet_pton(AF_INET6, "fd00::1:0:0", f->src);
		inet_pton(AF_INET6, "fd00::2:0:0", f->dst);
		memcpy(f->src + 12, &(__u32){htonl(n)}, 4);
		memcpy(f->dst + 12, &(__u32){htonl(n * 7)}, 4);
	} else {
		memcpy(f->src, &(__u32){htonl(0x0A000000 + n)}, 4); /* 10.0.0.0 + n */
		memcpy(f->dst, &(__u32){htonl(0x0A800000 + n * 7 % 0x7FFFFF)}, 4); /* 10.128/9 */
	}
	if (o->sampled_every && i % o->sampled_every == o->sampled_every - 1) {
		f->flags |= IPFIX_FLOW_SAMPLED;
		f->sampling_rate = 1000 + i % 3;
		f->samples = 1 + i % 50;
	}
	if (o->mirror_every && i % o->mirror_every == o->mirror_every - 1) {
		f->flags |= IPFIX_FLOW_MIRROR;
		f->mirror_session = 1 + i % 1023;
	}
	if (i % 3 == 0) {
		f->flags |= IPFIX_FLOW_VXLAN;
		f->vni = 5000 + i % 100;
	}
	f->sport = 49152 + i % 16384;
	f->dport = 4791;
	f->protocol = 17;
	f->tos = 26 << 2;
	f->direction = i % 2;
	if (f->direction)
		f->egress_ifindex = 3 + i % 4;
	else
		f->ingress_ifindex = 2 + i % 4;
	f->dest_qp = (0x100 + i * 13) & 0xFFFFFF;
	f->opcode_classes = (i % 4 == 0 ? IPFIX_OPC_SEND : IPFIX_OPC_WRITE) | IPFIX_OPC_READ_REQ;
	f->packets = 1000 + i * 3;
	f->octets = f->packets * 1078 + i;
	f->ce = i % 7;
	f->ect1 = i % 3;
	f->not_ect = i % 5;
	f->ect0 = f->packets - f->ce - f->ect1 - f->not_ect;
	f->cnp = i % 11;
	f->acks = i % 13;
	f->naks = i % 4;
	f->rnr_naks = i % 2;
	f->retransmits = f->flags & IPFIX_FLOW_SAMPLED ? 0 : i % 9;
	f->psn_gaps = f->flags & IPFIX_FLOW_SAMPLED ? 0 : i % 6;
	f->start_ms = o->start_ms + i;
	f->end_ms = f->start_ms + 1000 + i % 1000;
	path_name(path, path_size, i, o->path_len);
	f->path = path;
}

/* Part k of K of a total: equal shares, the remainder in the last. */
static __u64 share(__u64 total, unsigned int k, unsigned int parts)
{
	return k + 1 < parts ? total / parts : total - (total / parts) * (parts - 1);
}

/* Record k of K of flow f: its share of every counter and of the time span. */
static void make_record(struct ipfix_flow *r, const struct ipfix_flow *f, unsigned int k,
			unsigned int parts)
{
	__u64 span = f->end_ms - f->start_ms;

	*r = *f;
	r->packets = share(f->packets, k, parts);
	r->octets = share(f->octets, k, parts);
	r->not_ect = share(f->not_ect, k, parts);
	r->ect0 = share(f->ect0, k, parts);
	r->ect1 = share(f->ect1, k, parts);
	r->ce = share(f->ce, k, parts);
	r->cnp = share(f->cnp, k, parts);
	r->acks = share(f->acks, k, parts);
	r->naks = share(f->naks, k, parts);
	r->rnr_naks = share(f->rnr_naks, k, parts);
	r->retransmits = share(f->retransmits, k, parts);
	r->psn_gaps = share(f->psn_gaps, k, parts);
	r->samples = share(f->samples, k, parts);
	r->start_ms = f->start_ms + span * k / parts;
	r->end_ms = k + 1 < parts ? f->start_ms + span * (k + 1) / parts - 1 : f->end_ms;
	r->end_reason = k + 1 < parts ? IPFIX_END_ACTIVE_TIMEOUT : IPFIX_END_IDLE_TIMEOUT;
}

static void json_flow(FILE *out, const struct ipfix_flow *f, bool last)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af = f->flags & IPFIX_FLOW_IPV6 ? AF_INET6 : AF_INET;
	bool sampled = f->flags & IPFIX_FLOW_SAMPLED;

	inet_ntop(af, f->src, src, sizeof(src));
	inet_ntop(af, f->dst, dst, sizeof(dst));
	fprintf(out,
		"  {\"src\": \"%s\", \"dst\": \"%s\", \"sport\": %u, \"dport\": %u, "
		"\"dest_qp\": %u, \"packets\": %llu, \"bytes\": %llu, "
		"\"ecn\": {\"not_ect\": %llu, \"ect0\": %llu, \"ect1\": %llu, \"ce\": %llu}, "
		"\"cnp\": %llu, \"acks\": %llu, \"naks\": %llu, \"rnr_naks\": %llu, ",
		src, dst, f->sport, f->dport, f->dest_qp, (unsigned long long)f->packets,
		(unsigned long long)f->octets, (unsigned long long)f->not_ect,
		(unsigned long long)f->ect0, (unsigned long long)f->ect1, (unsigned long long)f->ce,
		(unsigned long long)f->cnp, (unsigned long long)f->acks,
		(unsigned long long)f->naks, (unsigned long long)f->rnr_naks);
	if (sampled)
		fprintf(out, "\"retransmits\": null, \"psn_gaps\": null, ");
	else
		fprintf(out, "\"retransmits\": %llu, \"psn_gaps\": %llu, ",
			(unsigned long long)f->retransmits, (unsigned long long)f->psn_gaps);
	if (f->flags & IPFIX_FLOW_VXLAN)
		fprintf(out, "\"vni\": %u, ", f->vni);
	else
		fprintf(out, "\"vni\": null, ");
	fprintf(out,
		"\"dscp\": %u, \"dir\": \"%s\", \"ifindex\": %u, \"opcode_classes\": %u, "
		"\"first_seen_ms\": %llu, \"last_seen_ms\": %llu, \"path\": \"%s\"",
		f->tos >> 2, f->direction ? "egress" : "ingress",
		f->direction ? f->egress_ifindex : f->ingress_ifindex, f->opcode_classes,
		(unsigned long long)f->start_ms, (unsigned long long)f->end_ms, f->path);
	if (sampled)
		fprintf(out, ", \"sampling_rate\": %u, \"samples\": %llu", f->sampling_rate,
			(unsigned long long)f->samples);
	if (f->flags & IPFIX_FLOW_MIRROR)
		fprintf(out, ", \"mirror_session\": %u", f->mirror_session);
	fprintf(out, "}%s\n", last ? "" : ",");
}

static int write_stats(const char *path, const struct ipfix_stats *s, __u32 max_msg)
{
	FILE *out = fopen(path, "w");

	if (!out) {
		fprintf(stderr, "ipfix_emit: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	fprintf(out,
		"{\"messages_sent\": %llu, \"bytes_sent\": %llu, \"records_sent\": %llu, "
		"\"templates_sent\": %llu, \"send_errors\": %llu, \"records_lost\": %llu, "
		"\"records_dropped\": %llu, \"strings_truncated\": %llu, \"would_block\": %llu, "
		"\"connects\": %llu, \"sequence\": %u, \"max_msg_bytes\": %u}\n",
		(unsigned long long)s->messages_sent, (unsigned long long)s->bytes_sent,
		(unsigned long long)s->records_sent, (unsigned long long)s->templates_sent,
		(unsigned long long)s->send_errors, (unsigned long long)s->records_lost,
		(unsigned long long)s->records_dropped, (unsigned long long)s->strings_truncated,
		(unsigned long long)s->would_block, (unsigned long long)s->connects, s->sequence,
		max_msg);
	return fclose(out) ? -EIO : 0;
}

static void pause_us(unsigned int us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000L};

	if (us)
		nanosleep(&ts, NULL);
}

enum {
	OPT_UDP = 256,
	OPT_TCP,
	OPT_FILE,
	OPT_V6,
	OPT_SAMPLED,
	OPT_MIRROR,
	OPT_INTERVALS,
	OPT_PATH_LEN,
	OPT_START,
	OPT_MTU,
	OPT_PEN,
	OPT_DOMAIN,
	OPT_BUDGET,
	OPT_TICK,
	OPT_QUEUE,
	OPT_REFRESH_MS,
	OPT_REFRESH_MSGS,
	OPT_NO_TYPES,
	OPT_LINGER,
	OPT_TIMEOUT,
	OPT_TRUTH,
	OPT_STATS,
	OPT_XML,
};

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
	    {"count", required_argument, NULL, 'n'},
	    {"udp", required_argument, NULL, OPT_UDP},
	    {"tcp", required_argument, NULL, OPT_TCP},
	    {"file", required_argument, NULL, OPT_FILE},
	    {"v6-every", required_argument, NULL, OPT_V6},
	    {"sampled-every", required_argument, NULL, OPT_SAMPLED},
	    {"mirror-every", required_argument, NULL, OPT_MIRROR},
	    {"intervals", required_argument, NULL, OPT_INTERVALS},
	    {"path-len", required_argument, NULL, OPT_PATH_LEN},
	    {"start-ms", required_argument, NULL, OPT_START},
	    {"mtu", required_argument, NULL, OPT_MTU},
	    {"pen", required_argument, NULL, OPT_PEN},
	    {"domain", required_argument, NULL, OPT_DOMAIN},
	    {"budget", required_argument, NULL, OPT_BUDGET},
	    {"tick-us", required_argument, NULL, OPT_TICK},
	    {"queue-bytes", required_argument, NULL, OPT_QUEUE},
	    {"refresh-ms", required_argument, NULL, OPT_REFRESH_MS},
	    {"refresh-msgs", required_argument, NULL, OPT_REFRESH_MSGS},
	    {"no-type-records", no_argument, NULL, OPT_NO_TYPES},
	    {"linger-ms", required_argument, NULL, OPT_LINGER},
	    {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
	    {"truth", required_argument, NULL, OPT_TRUTH},
	    {"stats", required_argument, NULL, OPT_STATS},
	    {"elements-xml", no_argument, NULL, OPT_XML},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	struct emit_opts o = {.count = 10,
			      .v6_every = 2,
			      .intervals = 1,
			      .path_len = -1,
			      .tick_us = 200,
			      .linger_ms = 2000,
			      .timeout_ms = 30000,
			      .start_ms = 1781665958000ULL};
	struct ipfix_config cfg;
	struct ipfix_exporter *x;
	struct ipfix_stats st;
	const char *file = NULL;
	bool xml = false;
	FILE *truth = NULL;
	char path[70000];
	unsigned long v;
	__u64 deadline;
	int opt, err, left, rc = 0;

	ipfix_config_init(&cfg);
	cfg.budget_msgs = 8;
	while ((opt = getopt_long(argc, argv, "n:h", long_opts, NULL)) != -1) {
		err = 0;
		switch (opt) {
		case 'n':
			err = parse_ul("--count", optarg, 100000000, &o.count);
			break;
		case OPT_UDP:
		case OPT_TCP:
			cfg.transport = opt == OPT_UDP ? IPFIX_UDP : IPFIX_TCP;
			cfg.collector = optarg;
			break;
		case OPT_FILE:
			cfg.transport = IPFIX_FILE;
			file = optarg;
			break;
		case OPT_V6:
			err = parse_ul("--v6-every", optarg, 1000000, &v);
			o.v6_every = v;
			break;
		case OPT_SAMPLED:
			err = parse_ul("--sampled-every", optarg, 1000000, &v);
			o.sampled_every = v;
			break;
		case OPT_MIRROR:
			err = parse_ul("--mirror-every", optarg, 1000000, &v);
			o.mirror_every = v;
			break;
		case OPT_INTERVALS:
			err = parse_ul("--intervals", optarg, 1000, &v);
			o.intervals = v ? v : 1;
			break;
		case OPT_PATH_LEN:
			err = parse_ul("--path-len", optarg, 65535, &v);
			o.path_len = v;
			break;
		case OPT_START:
			err = parse_ul("--start-ms", optarg, ~0UL, &v);
			o.start_ms = v;
			break;
		case OPT_MTU:
			err = parse_ul("--mtu", optarg, 65535, &v);
			cfg.max_msg_bytes = v;
			break;
		case OPT_PEN:
			err = parse_ul("--pen", optarg, 0xFFFFFFFF, &v);
			cfg.pen = v;
			break;
		case OPT_DOMAIN:
			err = parse_ul("--domain", optarg, 0xFFFFFFFF, &v);
			cfg.domain_id = v;
			break;
		case OPT_BUDGET:
			err = parse_ul("--budget", optarg, 1000000, &v);
			cfg.budget_msgs = v;
			break;
		case OPT_TICK:
			err = parse_ul("--tick-us", optarg, 10000000, &v);
			o.tick_us = v;
			break;
		case OPT_QUEUE:
			err = parse_ul("--queue-bytes", optarg, 0xFFFFFFFF, &v);
			cfg.queue_bytes = v;
			break;
		case OPT_REFRESH_MS:
			err = parse_ul("--refresh-ms", optarg, 0xFFFFFFFF, &v);
			cfg.template_refresh_ms = v;
			break;
		case OPT_REFRESH_MSGS:
			err = parse_ul("--refresh-msgs", optarg, 0xFFFFFFFF, &v);
			cfg.template_refresh_msgs = v;
			break;
		case OPT_NO_TYPES:
			cfg.no_type_records = true;
			break;
		case OPT_LINGER:
			err = parse_ul("--linger-ms", optarg, 3600000, &v);
			o.linger_ms = v;
			break;
		case OPT_TIMEOUT:
			err = parse_ul("--timeout-ms", optarg, 86400000, &v);
			o.timeout_ms = v;
			break;
		case OPT_TRUTH:
			o.truth = optarg;
			break;
		case OPT_STATS:
			o.stats = optarg;
			break;
		case OPT_XML:
			xml = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (err)
			return 2;
	}
	if (xml)
		return ipfix_write_elements_xml(stdout, cfg.pen) ? 1 : 0;
	if (optind < argc || (!cfg.collector && !file)) {
		usage(stderr);
		return 2;
	}
	if (file) {
		cfg.fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (cfg.fd < 0) {
			fprintf(stderr, "ipfix_emit: %s: %s\n", file, strerror(errno));
			return 1;
		}
	}
	if (o.truth) {
		truth = fopen(o.truth, "w");
		if (!truth) {
			fprintf(stderr, "ipfix_emit: %s: %s\n", o.truth, strerror(errno));
			return 1;
		}
		fprintf(truth, "{\"flows\": [\n");
	}
	if (ipfix_open(&x, &cfg))
		return 1;
	deadline = ipfix_now_ms() + o.timeout_ms;
	for (unsigned long i = 0; i < o.count && ipfix_now_ms() < deadline; i++) {
		struct ipfix_flow f, r;

		make_flow(&f, path, sizeof(path), i, &o);
		for (unsigned int k = 0; k < o.intervals; k++) {
			make_record(&r, &f, k, o.intervals);
			/* A full queue: keep the record and let the exporter catch up. */
			while (ipfix_add(x, &r) == -ENOBUFS && ipfix_now_ms() < deadline) {
				ipfix_tick(x, ipfix_now_ms());
				pause_us(o.tick_us);
			}
		}
		if (truth)
			json_flow(truth, &f, i + 1 == o.count);
		/* Like a probe: records come in while the exporter sends at its pace. */
		if (i % 64 == 63) {
			ipfix_tick(x, ipfix_now_ms());
			pause_us(o.tick_us);
		}
	}
	while (!ipfix_idle(x) && ipfix_now_ms() < deadline) {
		ipfix_tick(x, ipfix_now_ms());
		pause_us(o.tick_us);
	}
	left = ipfix_close(x, o.linger_ms, &st);
	if (truth) {
		fprintf(truth, "]}\n");
		if (fclose(truth))
			rc = 1;
	}
	if (file && close(cfg.fd))
		rc = 1;
	if (o.stats && write_stats(o.stats, &st, cfg.max_msg_bytes))
		rc = 1;
	fprintf(stderr,
		"ipfix_emit: %llu messages, %llu bytes, %llu records sent, %llu templates, "
		"%llu send errors, %llu records lost, %llu dropped, %d unsent\n",
		(unsigned long long)st.messages_sent, (unsigned long long)st.bytes_sent,
		(unsigned long long)st.records_sent, (unsigned long long)st.templates_sent,
		(unsigned long long)st.send_errors, (unsigned long long)st.records_lost,
		(unsigned long long)st.records_dropped, left);
	return rc;
}
