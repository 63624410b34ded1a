// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - `fabprobe replay`: every frame of a capture goes through the
 * probe's own XDP program with BPF_PROG_TEST_RUN, and the report is read
 * from the same maps a live probe fills. There is no parser here: libpcap
 * hands over frames, and only the link-layer framing is adapted.
 */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/analysis.h"
#include "probe/collect.h"
#include "cmd/commands.h"
#include "util/log.h"
#include "util/options.h"
#include "probe/probe.h"
#include "source/pcap.h"
#include "render/report.h"

#define REPLAY_MAX_PATHS 64
/* Ethernet header the adapters prepend to cooked and raw-IP frames. */
#define ETH_HLEN_ 14
#define FRAME_MAX 65536

struct replay_source {
	const char *file;
	pcap_t *pcap;
	int dlt;
	__u32 path_id;
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: fabprobe replay [OPTIONS] FILE\n"
	    "       fabprobe replay [OPTIONS] --path NAME=FILE [--path NAME=FILE ...]\n"
	    "\n"
	    "Run every frame of a pcap/pcapng capture through fabprobe's BPF parser\n"
	    "(BPF_PROG_TEST_RUN, the same XDP program a live probe attaches) and report.\n"
	    "\n"
	    "Options:\n"
	    "  -j, --json             print the JSON report (docs/json.md) instead of a table\n"
	    "  -p, --path NAME=FILE   a capture taken on uplink NAME; repeat for each uplink\n"
	    "                         of one ECMP group (flows report \"path\": NAME)\n"
	    "  -n, --rows N           table rows to print (default 50, 0 = all)\n" OPT_PROBE_HELP
	    "  -h, --help             this help\n" OPT_ANALYSIS_HELP "\n"
	    "Link types: Ethernet, Linux cooked (SLL, SLL2) and raw IP. Needs root (BPF).\n");
}

static int open_source(struct replay_source *src)
{
	char errbuf[PCAP_ERRBUF_SIZE];

	src->pcap =
	    pcap_open_offline_with_tstamp_precision(src->file, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!src->pcap) {
		fp_err("%s: cannot read capture: %s", src->file, errbuf);
		return -EINVAL;
	}
	src->dlt = pcap_datalink(src->pcap);
	switch (src->dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return 0;
	default:
		fp_err("%s: unsupported link type %s (%d); fabprobe reads Ethernet, Linux cooked "
		       "and raw IP captures",
		       src->file, pcap_datalink_val_to_name(src->dlt) ?: "unknown", src->dlt);
		return -ENOTSUP;
	}
}

/*
 * Present a frame as Ethernet, which is what the XDP program sees on a
 * real interface. Only the link header changes; the IP packet is untouched.
 * Returns the Ethernet frame length, or 0 when there is no frame to run.
 */
size_t replay_to_ethernet(int dlt, const __u8 *in, size_t caplen, __u8 *out, size_t out_len)
{
	size_t hdr = 0;
	__u16 proto = 0;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen > out_len)
			return 0;
		memcpy(out, in, caplen);
		return caplen;
	case DLT_LINUX_SLL: /* 16 bytes, protocol at offset 14 */
		if (caplen < 16)
			return 0;
		hdr = 16;
		proto = (__u16)in[14] << 8 | in[15];
		break;
	case DLT_LINUX_SLL2: /* 20 bytes, protocol at offset 0 */
		if (caplen < 20)
			return 0;
		hdr = 20;
		proto = (__u16)in[0] << 8 | in[1];
		break;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (caplen < 1)
			return 0;
		proto = (in[0] >> 4) == 6 ? 0x86DD : 0x0800;
		break;
	default:
		return 0;
	}
	if (caplen - hdr + ETH_HLEN_ > out_len)
		return 0;
	memset(out, 0, 12);
	out[12] = proto >> 8;
	out[13] = proto & 0xff;
	memcpy(out + ETH_HLEN_, in + hdr, caplen - hdr);
	return caplen - hdr + ETH_HLEN_;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct replay_progress {
	bool enabled;
	__u64 next_ns;
	__u64 frames;
};

static void progress(struct replay_progress *pr, const char *file, bool done)
{
	__u64 t;

	if (!pr->enabled)
		return;
	t = now_ns();
	if (!done && t < pr->next_ns)
		return;
	pr->next_ns = t + 500000000ULL;
	fprintf(stderr, "\rreplay: %s: %llu frames%s", file, (unsigned long long)pr->frames,
		done ? "\n" : "");
}

/* Frames the kernel would not run are counted in *skipped, never dropped silently. */
static int run_source(struct probe *p, struct replay_source *src, __u8 *frame, __u64 *skipped,
		      struct replay_progress *pr)
{
	struct pcap_pkthdr *hdr;
	const __u8 *data;
	__u64 index = 0;
	int rc, err;

	while ((rc = pcap_next_ex(src->pcap, &hdr, &data)) == 1) {
		size_t len = replay_to_ethernet(src->dlt, data, hdr->caplen, frame, FRAME_MAX);
		__u32 wire = (__u32)(hdr->len - hdr->caplen + len);
		__u64 ts = (__u64)hdr->ts.tv_sec * 1000000000ULL + hdr->ts.tv_usec;

		index++;
		pr->frames++;
		progress(pr, src->file, false);
		if (len < ETH_HLEN_) {
			(*skipped)++;
			continue;
		}
		err = probe_run_frame(p, frame, len, wire, ts, src->path_id);
		if (err == -EINVAL) {
			/* The kernel refuses frames it cannot lay out (e.g. > 64 KiB). */
			(*skipped)++;
			continue;
		}
		if (err) {
			fp_err("%s: frame %llu: BPF_PROG_TEST_RUN failed: %s", src->file,
			       (unsigned long long)index, fp_strerror(err));
			return err;
		}
	}
	if (rc == PCAP_ERROR) {
		fp_err("%s: corrupt or truncated capture after frame %llu: %s", src->file,
		       (unsigned long long)index, pcap_geterr(src->pcap));
		return -EIO;
	}
	progress(pr, src->file, true);
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option long_opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"path", required_argument, NULL, 'p'},
	    {"rows", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    OPT_PROBE_LONG_OPTS,
	    OPT_ANALYSIS_LONG_OPTS,
	    {},
	};
	struct probe_opts popts = PROBE_OPTS_DEFAULT;
	struct replay_source srcs[REPLAY_MAX_PATHS] = {};
	struct iface_name names[REPLAY_MAX_PATHS] = {};
	struct report_opts ropts = {.mode = "replay", .ifaces = names, .max_flows = 50};
	struct replay_progress pr = {.enabled = isatty(STDERR_FILENO)};
	struct snapshot snap = {};
	struct analysis an = {};
	struct analysis_opts aopts;
	struct probe probe = {};
	bool json = false;
	int n_src = 0, n_paths = 0, opt, err = 0;
	__u8 *frame = NULL;
	__u32 rows;
	char *name, *file;

	popts.replay = true;
	popts.hooks = PROBE_HOOK_XDP;
	analysis_opts_default(&aopts);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jp:n:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'p':
			if (n_src >= REPLAY_MAX_PATHS) {
				fp_err("--path: at most %d captures", REPLAY_MAX_PATHS);
				return 2;
			}
			if (opt_split_pair("--path", optarg, &name, &file))
				return 2;
			snprintf(names[n_paths].name, FP_NAME_LEN, "%s", name);
			names[n_paths].ifindex = n_src + 1;
			names[n_paths].uplink = true;
			srcs[n_src].file = file;
			srcs[n_src].path_id = n_src + 1;
			n_src++;
			n_paths++;
			break;
		case 'n':
			if (opt_parse_u32("--rows", optarg, 0, UINT32_MAX, &rows))
				return 2;
			ropts.max_flows = rows;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			err = opt_parse_probe(&popts, opt, optarg);
			if (!err)
				err = opt_parse_analysis(&aopts, opt, optarg);
			if (err < 0)
				return 2;
			if (!err)
				return opt_bad("replay", opt, argv);
			err = 0;
		}
	}
	for (; optind < argc; optind++) {
		if (n_paths) {
			fp_err("replay: give either FILE or --path NAME=FILE, not both");
			return 2;
		}
		if (n_src) {
			fp_err(
			    "replay: one FILE at a time; use --path NAME=FILE for several uplinks");
			return 2;
		}
		srcs[n_src++].file = argv[optind];
	}
	if (!n_src) {
		fp_err("replay: no capture given; see 'fabprobe replay --help'");
		return 2;
	}
	ropts.n_ifaces = n_paths;

	for (int i = 0; i < n_src; i++) {
		err = open_source(&srcs[i]);
		if (err)
			goto out;
	}
	frame = malloc(FRAME_MAX);
	if (!frame) {
		err = -ENOMEM;
		fp_err("replay: out of memory");
		goto out;
	}
	err = probe_load(&probe, &popts);
	if (err)
		goto out;
	for (int i = 0; i < n_src && !err; i++)
		err = run_source(&probe, &srcs[i], frame, &ropts.skipped_frames, &pr);
	if (err)
		goto out;
	if (ropts.skipped_frames)
		fp_err("replay: %llu frames too short or too long to run were skipped (counted "
		       "in totals.skipped_frames)",
		       (unsigned long long)ropts.skipped_frames);

	err = collect_snapshot(&probe, &snap);
	if (err)
		goto out;
	snapshot_sort_by_bytes(&snap);
	err = analysis_update(&an, &snap, &ropts, &aopts, 0);
	if (err) {
		fp_err("replay: analysis failed: %s", fp_strerror(err));
		goto out;
	}
	if (json)
		report_json(stdout, &snap, &an, &ropts);
	else
		report_text(stdout, &snap, &an, &ropts);
	if (fflush(stdout) == EOF) {
		fp_err("replay: cannot write the report: %s", strerror(errno));
		err = -EIO;
	}
out:
	analysis_free(&an);
	snapshot_free(&snap);
	probe_destroy(&probe);
	free(frame);
	for (int i = 0; i < n_src; i++)
		if (srcs[i].pcap)
			pcap_close(srcs[i].pcap);
	return err ? 1 : 0;
}
