// SPDX-License-Identifier: GPL-2.0
/*
 * nic.c - `fabprobe nic`: what this host's RDMA NICs count over one
 * interval, like `top --once -r`: a session over the NIC-only source
 * (source/nic_source.h), read at the start and after the interval, then
 * rendered as text or as the NIC JSON document. No BPF is loaded.
 */
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/session.h"
#include "render/report_nic.h"
#include "source/nic_source.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: fabprobe nic [-r SECONDS] [--json] [--nic-root DIR] [-i IF,...] [OPTIONS]\n"
	    "\n"
	    "What this host's RDMA NICs count over one interval: each device port's\n"
	    "hardware counters (CNPs sent and handled, ECN marks, sequence errors, ACK\n"
	    "timeouts, RNR NAKs) with rates, PFC per priority from the netdevs' ethtool\n"
	    "statistics, and the RDMA queue pairs with the UDP source port each puts on\n"
	    "the wire and the process that owns it. The NIC alerts (docs/alerts.md) are\n"
	    "raised over the interval. No BPF is loaded; the QPs of other processes are\n"
	    "listed to root (CAP_NET_ADMIN) only. Without an RDMA device it says\n"
	    "\"" NIC_NO_RDMA "\", and still reads the netdevs named with -i.\n"
	    "\n"
	    "Options:\n"
	    "  -r, --interval SECONDS  the interval rates and alerts cover (default 1,\n"
	    "                          0.1 to 3600)\n"
	    "  -j, --json              the JSON document (docs/json.md, NIC) instead of text\n"
	    "      --nic-root DIR      read a recorded tree instead of this host (docs/nic.md;\n"
	    "                          a capture bundle's nic/ directory is one)\n"
	    "  -i, --interfaces IF,... the ethtool statistics of these netdevs too (RDMA or\n"
	    "                          not, a veth works), and only the RDMA ports on them\n"
	    "  -n, --rows N            QP and counter rows in the text (default 50, 0 = all)\n"
	    "      --data-pcp N        the lossless priority the PFC alerts audit (default %d)\n"
	    "      --hash-model M      predict each connected QP's next-tier path: crc32-lo,\n"
	    "                          crc32-hi, crc16-ccitt, xor-fold, toeplitz; the peer's\n"
	    "                          address comes from flows, so nic alone predicts only\n"
	    "                          when --hash-fields leaves dst-ip out\n"
	    "      --hash-fields LIST  the fields hashed (default the 4-tuple)\n"
	    "      --hash-seed N       hash seed (default 0)\n"
	    "      --hash-paths N      next tier's path count (default 4)\n"
	    "  -h, --help              this help\n"
	    "\n"
	    "Ctrl-C before the interval ends reports the time it ran, and says so on stderr.\n"
	    "Exit status: 0 done (Ctrl-C too), 1 failure (an unreadable --nic-root, a missing\n"
	    "interface), 2 usage error, 3 every RDMA port read gone by the end of the interval\n"
	    "(one line names them).\n",
	    NIC_LOSSLESS_PRIO_DEFAULT);
}

struct nic_cmd_opts {
	double interval_s;
	bool json;
	size_t rows;
	char ifaces[LIVE_MAX_IFACES][IF_NAMESIZE];
	int n_ifaces;
	const char *names[LIVE_MAX_IFACES];
	struct nic_opts nic;
};

static int parse(int argc, char **argv, struct nic_cmd_opts *o, struct analysis_opts *ao)
{
	enum { OPT_NIC_ROOT_ = OPT_CMD_FIRST };
	static const struct option long_opts[] = {
	    {"interval", required_argument, NULL, 'r'},
	    {"json", no_argument, NULL, 'j'},
	    {"nic-root", required_argument, NULL, OPT_NIC_ROOT_},
	    {"interfaces", required_argument, NULL, 'i'},
	    {"rows", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {"data-pcp", required_argument, NULL, OPT_DATA_PCP},
	    {"hash-model", required_argument, NULL, OPT_HASH_MODEL},
	    {"hash-fields", required_argument, NULL, OPT_HASH_FIELDS},
	    {"hash-seed", required_argument, NULL, OPT_HASH_SEED},
	    {"hash-paths", required_argument, NULL, OPT_HASH_PATHS},
	    {},
	};
	int opt, err;
	__u32 rows;

	optind = 1;
	while ((opt = opt_getopt(argc, argv, ":r:ji:n:h", long_opts)) != -1) {
		switch (opt) {
		case 'r':
			if (opt_parse_seconds("--interval", optarg, 0.1, 3600, &o->interval_s))
				return FP_EXIT_USAGE;
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_NIC_ROOT_:
			if (!optarg[0]) {
				fp_err("--nic-root: empty directory name");
				return FP_EXIT_USAGE;
			}
			o->nic.root = optarg;
			break;
		case 'i':
			if (live_add_ifaces("--interfaces", optarg, o->ifaces, &o->n_ifaces))
				return FP_EXIT_USAGE;
			break;
		case 'n':
			if (opt_parse_u32("--rows", optarg, 0, 1000000, &rows))
				return FP_EXIT_USAGE;
			o->rows = rows;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			err = opt_parse_analysis(ao, opt, optarg);
			if (err < 0)
				return FP_EXIT_USAGE;
			if (!err)
				return opt_bad("nic", opt, argv);
		}
	}
	if (opt_no_args("nic", argc, argv))
		return FP_EXIT_USAGE;
	for (int i = 0; i < o->n_ifaces; i++)
		o->names[i] = o->ifaces[i];
	o->nic.netdevs = o->names;
	o->nic.n_netdevs = o->n_ifaces;
	o->nic.only_named = o->n_ifaces > 0;
	return 0;
}

/* A recorded tree has a netdev when it has its sysfs entry or its ethtool statistics. */
static bool tree_has(const char *root, const char *netdev)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/class/net/%s", root, netdev);
	if (!stat(path, &st))
		return true;
	snprintf(path, sizeof(path), "%s/ethtool/%s", root, netdev);
	return !stat(path, &st);
}

/* A netdev named with -i that is not there, live or in the tree, is a mistake. */
static int check_ifaces(const struct nic_cmd_opts *o)
{
	for (int i = 0; i < o->n_ifaces; i++) {
		if (!o->nic.root && !if_nametoindex(o->ifaces[i])) {
			fp_err("interface %s does not exist", o->ifaces[i]);
			return -1;
		}
		if (o->nic.root && !tree_has(o->nic.root, o->ifaces[i])) {
			fp_err("interface %s is not in %s (no class/net/%s, no ethtool/%s)",
			       o->ifaces[i], o->nic.root, o->ifaces[i], o->ifaces[i]);
			return -1;
		}
	}
	return 0;
}

static void render(const struct session *ss, const struct nic_cmd_opts *o)
{
	struct report r = report_of(ss);
	const struct nic_state *st = &r.nic->st;

	if (o->json) {
		report_nic_doc(stdout, &r);
		return;
	}
	if (!st->n_ports && !st->n_netdevs) {
		printf("%s\n", st->info[0] ? st->info : NIC_NO_RDMA);
		return;
	}
	printf("fabprobe nic: %s (%s), over the last %.1f s; lossless priority %d\n", ss->desc.what,
	       ss->desc.how, st->interval_s, r.nic->lossless_prio);
	report_alerts_text(stdout, &ss->an);
	report_nic_text(stdout, r.nic, o->rows);
}

int cmd_nic(int argc, char **argv)
{
	struct nic_cmd_opts o = {.interval_s = 1, .rows = 50};
	struct analysis_opts aopts;
	const struct nic_state *st;
	struct session ss;
	struct source *src;
	bool cut;
	int err, rc;

	analysis_opts_default(&aopts);
	err = parse(argc, argv, &o, &aopts);
	if (err)
		return err < 0 ? FP_EXIT_OK : err;
	/* The tree first: the netdevs of -i are looked for in it. */
	if ((o.nic.root && session_nic_check_root(o.nic.root)) || check_ifaces(&o))
		return FP_EXIT_FAIL;
	src = nic_source_new(&o.nic);
	if (!src) {
		fp_err("out of memory");
		return FP_EXIT_FAIL;
	}
	if (session_start(&ss, src, &aopts, false))
		return FP_EXIT_FAIL;
	st = &ss.nic->now.st;
	/* Nothing to read: say so at once rather than after the interval. */
	if (st->n_ports || st->n_netdevs) {
		rc = session_advance(&ss, o.interval_s);
		if (rc < 0) {
			session_stop(&ss);
			return FP_EXIT_FAIL;
		}
	}
	/* A stop that comes after the interval is no stop before its end. */
	cut = fp_stopping;
	/* Stopped before the interval ended (Ctrl-C): the report is of the time it ran, as top's.
	 */
	err = session_refresh(&ss);
	if (!err) {
		render(&ss, &o);
		err = cli_flush_stdout("nic");
	}
	if (!err && cut && (st->n_ports || st->n_netdevs))
		fprintf(stderr,
			"nic: stopped before the end of the interval: the rates cover its first "
			"%.1f s of %.1f\n",
			st->interval_s, o.interval_s);
	/* Every RDMA port read gone by the end: cut short, as a live command's last interface. */
	rc = err ? FP_EXIT_FAIL : ss.desc.damaged ? FP_EXIT_DAMAGED : FP_EXIT_OK;
	session_stop(&ss);
	return rc;
}
