// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "source/nic_source.h"
#include "probe/runpool.h"
#include "probe/samples.h"
#include "util/format.h"
#include "util/log.h"
#include "util/options.h"
#include "util/stop.h"

void cli_source_init(struct cli_source *cs, const char *cmd, double default_speed)
{
	struct probe_opts defaults = PROBE_OPTS_DEFAULT;

	memset(cs, 0, sizeof(*cs));
	cs->cmd = cmd;
	live_opts_init(&cs->live);
	pcap_opts_init(&cs->pcap);
	sflow_opts_init(&cs->sflow);
	cs->popts = defaults;
	cs->default_speed = default_speed;
}

int opt_parse_probe(struct probe_opts *po, int opt, const char *arg)
{
	switch (opt) {
	case 'F':
		return opt_parse_count("--flows", arg, 1, 1U << 24, &po->flow_entries) ?: 1;
	case OPT_FLOWS6:
		return opt_parse_count("--flows6", arg, 1, 1U << 24, &po->flow6_entries) ?: 1;
	case 'R':
		return opt_parse_port("--roce-port", arg, &po->roce_port) ?: 1;
	case 'X':
		return opt_parse_port("--vxlan-port", arg, &po->vxlan_port) ?: 1;
	default:
		return 0;
	}
}

static int parse_int_into(const char *opt, const char *arg, __u32 min, __u32 max, int *out)
{
	__u32 v;
	int err = opt_parse_u32(opt, arg, min, max, &v);

	if (!err)
		*out = v;
	return err;
}

int cli_check_probe(const struct probe_opts *po)
{
	/* The parser takes the RoCE port first: on one port, VXLAN would never be seen. */
	if (po->roce_port == po->vxlan_port) {
		fp_err("--roce-port and --vxlan-port are both %u; RoCE and VXLAN need ports of "
		       "their own",
		       po->roce_port);
		return -EINVAL;
	}
	return 0;
}

int opt_parse_threads(const char *arg, int *threads)
{
	return parse_int_into("--threads", arg, 1, RUNPOOL_MAX_THREADS, threads) ?: 1;
}

int opt_parse_analysis(struct analysis_opts *ao, int opt, const char *arg)
{
	switch (opt) {
	case OPT_ELEPHANT_RATE:
		return opt_parse_rate("--elephant-rate", arg, &ao->elephant_bps) ?: 1;
	case OPT_DATA_DSCP:
		return parse_int_into("--data-dscp", arg, 0, 63, &ao->data_dscp) ?: 1;
	case OPT_CNP_DSCP:
		return parse_int_into("--cnp-dscp", arg, 0, 63, &ao->cnp_dscp) ?: 1;
	case OPT_DATA_PCP:
		return parse_int_into("--data-pcp", arg, 0, 7, &ao->data_pcp) ?: 1;
	case OPT_CNP_PCP:
		return parse_int_into("--cnp-pcp", arg, 0, 7, &ao->cnp_pcp) ?: 1;
	case OPT_HASH_MODEL:
		if (hash_model_parse(arg, &ao->hash.model)) {
			fp_err(
			    "--hash-model: '%s' is not crc32-lo, crc32-hi, crc16-ccitt, xor-fold "
			    "or toeplitz",
			    arg);
			return -EINVAL;
		}
		ao->predict = true;
		return 1;
	case OPT_HASH_FIELDS:
		if (hash_fields_parse(arg, &ao->hash.fields)) {
			fp_err("--hash-fields: '%s' is not a list of src-ip, dst-ip, sport, dport, "
			       "vni, qp",
			       arg);
			return -EINVAL;
		}
		return 1;
	case OPT_HASH_SEED:
		/* As the evidence prints it, in hex too. */
		if (arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X')) {
			/* Hex digits only (strtoul alone takes a second prefix, a sign, spaces). */
			size_t n = strspn(arg + 2, "0123456789abcdefABCDEF");
			unsigned long long v = n ? strtoull(arg + 2, NULL, 16) : 0;

			if (!n || arg[2 + n] || v > UINT32_MAX) {
				fp_err("--hash-seed: '%s' is not a number from 0 to 0xffffffff",
				       arg);
				return -EINVAL;
			}
			ao->hash.seed = v;
			return 1;
		}
		return opt_parse_u32("--hash-seed", arg, 0, UINT32_MAX, &ao->hash.seed) ?: 1;
	case OPT_HASH_PATHS:
		return opt_parse_u32("--hash-paths", arg, 1, AN_MAX_PATHS, &ao->hash.n_paths) ?: 1;
	case OPT_MIRROR_SESSION:
		return mirror_names_add(&ao->mirror_names, arg) ?: 1;
	default:
		return 0;
	}
}

int cli_add_capture(struct pcap_opts *po, const char *opt, const char *arg, bool named)
{
	struct stat st;
	const char *file = arg;
	char name[FP_NAME_LEN] = "";

	if (po->n_files >= PCAP_MAX_FILES) {
		fp_err("%s: at most %d captures", opt, PCAP_MAX_FILES);
		return -EINVAL;
	}
	if ((named || (strchr(arg, '=') && stat(arg, &st))) &&
	    opt_split_pair(opt, "NAME=FILE", arg, name, sizeof(name), &file))
		return -EINVAL;
	/* Two captures of one name would be one path twice, balanced against itself. */
	for (int i = 0; name[0] && i < po->n_files; i++)
		if (!strcmp(po->files[i].name, name)) {
			fp_err("%s: the name '%s' is given twice; each capture is one path", opt,
			       name);
			return -EINVAL;
		}
	/*
	 * Unnamed captures are one point: two of them, taken at two places,
	 * would count a packet both saw twice, and take the second copy for a
	 * retransmission. Parts of one capture are merged first.
	 */
	for (int i = 0; i < po->n_files; i++)
		if (!name[0] || !po->files[i].name[0]) {
			fp_err("%s: several captures need a name each (NAME=FILE: one path each); "
			       "parts of one capture are one file (mergecap -a -w OUT FILE...)",
			       opt);
			return -EINVAL;
		}
	po->files[po->n_files].path = file;
	snprintf(po->files[po->n_files].name, FP_NAME_LEN, "%s", name);
	po->n_files++;
	return 0;
}

/*
 * A name is one path's: the series, the columns and the alerts' subjects
 * go by it. Names of uplinks are given apart from those of mirror
 * sessions, so each option's own duplicates are refused as it is parsed
 * and the two lists are held against each other here.
 */
int cli_check_path_names(const struct pcap_opts *po, const char *capture_opt,
			 const struct live_opts *lo, const struct mirror_names *m)
{
	for (int i = 0; i < m->n; i++) {
		const char *name = m->v[i].name, *opt = NULL;

		for (int f = 0; !opt && f < po->n_files; f++)
			if (!strcmp(po->files[f].name, name))
				opt = capture_opt;
		for (int u = 0; !opt && lo && u < lo->n_uplinks; u++)
			if (!strcmp(lo->uplinks[u], name))
				opt = "--uplinks";
		if (opt) {
			fp_err("--mirror-session: the name '%s' (session %u) is also given by %s; "
			       "each path needs a name of its own",
			       name, m->v[i].id, opt);
			return -EINVAL;
		}
	}
	return 0;
}

/* --- sFlow input (source/sflow.h) --- */

int opt_parse_sflow(struct sflow_opts *so, int opt, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;

	switch (opt) {
	case OPT_SFLOW:
		if (sflow_parse_listen("--sflow", arg, &ss, &len))
			return -EINVAL;
		so->listen = arg;
		return 1;
	case OPT_SFLOW_PORT_MAP:
		so->port_map = arg;
		return 1;
	case OPT_SFLOW_RCVBUF: {
		__u64 v;

		/* The kernel doubles it, within INT_MAX: 512M is the most it grants. */
		if (opt_parse_bytes("--sflow-rcvbuf", arg, 4096, 1U << 29, &v))
			return -EINVAL;
		so->rcvbuf_bytes = v;
		return 1;
	}
	case OPT_SFLOW_PORT:
		return opt_parse_port("--sflow-port", arg, &so->capture_port) ?: 1;
	default:
		return 0;
	}
}

/* --- end of sFlow input --- */

int cli_parse_source(struct cli_source *cs, int opt, const char *arg)
{
	struct live_opts *lo = &cs->live;

	switch (opt) {
	case 'i':
		cs->live_given = true;
		return live_add_ifaces("--interfaces", arg, lo->ifaces, &lo->n_ifaces) ?: 1;
	case 'U':
		cs->live_given = true;
		return live_add_ifaces("--uplinks", arg, lo->uplinks, &lo->n_uplinks) ?: 1;
	case 'H':
		cs->live_given = true;
		cs->live_only = "--hook";
		lo->hooks_given = true;
		return live_parse_hook(arg, &lo->hooks) ?: 1;
	case 'M':
		cs->live_given = true;
		cs->live_only = "--xdp-mode";
		return live_parse_xdp_mode(arg, &lo->xdp_mode) ?: 1;
	case OPT_PCAP:
		return cli_add_capture(&cs->pcap, "--pcap", arg, false) ?: 1;
	case OPT_MIRROR_PORT_DROP:
		cs->live_given = true;
		cs->live_only = "--mirror-port-drop";
		cs->popts.mirror_drop = true;
		return 1;
	case OPT_PRECISE_CLOCK:
		cs->live_given = true;
		cs->live_only = "--precise-clock";
		cs->popts.precise_clock = true;
		return 1;
	case OPT_SPEED:
		cs->speed_given = true;
		return opt_parse_number("--speed", arg, 0, 1e6, "(times the recorded pace)",
					&cs->pcap.speed)
			   ?: 1;
	case 'T':
		cs->threads_given = true;
		return opt_parse_threads(arg, &cs->pcap.threads);
	default:
		return opt_parse_sflow(&cs->sflow, opt, arg)
			   ?: opt_parse_probe(&cs->popts, opt, arg) ?: cli_parse_nic(cs, opt, arg);
	}
}

int cli_parse_common(struct cli_source *cs, struct analysis_opts *ao, int opt, const char *arg,
		     char **argv)
{
	int err = cli_parse_source(cs, opt, arg);

	if (!err)
		err = opt_parse_analysis(ao, opt, arg);
	if (err > 0 && cli_check_path_names(&cs->pcap, "--pcap", &cs->live, &ao->mirror_names))
		err = -EINVAL;
	if (err < 0)
		return FP_EXIT_USAGE;
	return err ? 0 : opt_bad(cs->cmd, opt, argv);
}

static const struct nic_opts *nic_beside(struct cli_source *cs);
static struct source *nic_only_source(struct cli_source *cs);

struct source *cli_source_new(struct cli_source *cs, bool samples, int *exit_code)
{
	struct probe_opts *po;
	struct source *src;
	bool recording = cs->pcap.n_files > 0, sflow = cs->sflow.listen != NULL;

	*exit_code = FP_EXIT_USAGE;
	if (cli_check_probe(&cs->popts))
		return NULL;
	if (recording + sflow + cs->live_given > 1) {
		if (!cs->live.n_ifaces && !cs->live.n_uplinks && cs->live_only)
			fp_err("%s: %s applies to interfaces (-i, --uplinks), not to %s", cs->cmd,
			       cs->live_only, recording ? "--pcap" : "--sflow");
		else
			fp_err("%s: give one input: interfaces (-i, --uplinks), --pcap or --sflow",
			       cs->cmd);
		return NULL;
	}
	/*
	 * Only an XDP program can drop a frame or run in a mode; with --hook tc
	 * neither flag would do anything. Said before any interface is looked up.
	 */
	if (!(cs->live.hooks & PROBE_HOOK_XDP) &&
	    (cs->popts.mirror_drop || cs->live.xdp_mode != PROBE_XDP_AUTO)) {
		fp_err("%s: %s needs XDP, which --hook tc does not attach (use --hook xdp or both)",
		       cs->cmd, cs->popts.mirror_drop ? "--mirror-port-drop" : "--xdp-mode");
		return NULL;
	}
	if (!sflow && (cs->sflow.port_map || cs->sflow.rcvbuf_bytes != SFLOW_RCVBUF_DEFAULT)) {
		fp_err("%s: --sflow-port-map and --sflow-rcvbuf apply to --sflow only", cs->cmd);
		return NULL;
	}
	if (sflow && cs->sflow.port_map) {
		int err = sflow_check_port_map(cs->sflow.port_map);

		if (err) {
			*exit_code = err == -EINVAL ? FP_EXIT_USAGE : FP_EXIT_FAIL;
			return NULL;
		}
	}
	if (!recording && !sflow && !cs->live.n_ifaces && !cs->live.n_uplinks &&
	    (!cs->nic_given || cs->live_given)) {
		fp_err(
		    "%s: nothing to watch: use -i IF[,IF...], --pcap FILE, --sflow PORT or --nic",
		    cs->cmd);
		return NULL;
	}
	if ((cs->speed_given || cs->threads_given) && !recording) {
		fp_err("%s: --%s applies to --pcap only", cs->cmd,
		       cs->speed_given ? "speed" : "threads");
		return NULL;
	}
	if (!cs->speed_given)
		cs->pcap.speed = cs->default_speed;
	po = recording ? &cs->pcap.popts : sflow ? &cs->sflow.popts : &cs->live.popts;
	/* Every probe option given goes to the source; how it runs frames stays its own. */
	{
		struct probe_opts given = cs->popts;

		given.replay = po->replay;
		given.replay_egress = po->replay_egress;
		given.hooks = po->hooks;
		*po = given;
	}
	if (samples) {
		po->sample_per_flow = SAMPLES_PER_FLOW;
		po->sample_max_per_cpu = SAMPLES_MAX;
	}
	*exit_code = FP_EXIT_FAIL;
	/* The input named is said before what the command does later (binds a --listen port). */
	if (cs->nic_given && cs->nic.root && session_nic_check_root(cs->nic.root))
		return NULL;
	if (!recording && !sflow && !cs->live_given)
		return nic_only_source(cs);
	src = recording ? pcap_source_new(&cs->pcap)
	      : sflow	? sflow_source_new(&cs->sflow)
			: live_source_new(&cs->live);
	if (!src)
		fp_err("out of memory");
	else if (cs->nic_given)
		src->nic = nic_beside(cs);
	return src;
}

/* ---- NIC counters beside the flows -------------------------------------- */

int cli_parse_nic(struct cli_source *cs, int opt, const char *arg)
{
	switch (opt) {
	case OPT_NIC:
		cs->nic_given = true;
		return 1;
	case OPT_NIC_ROOT:
		if (!arg[0]) {
			fp_err("--nic-root: empty directory name");
			return -EINVAL;
		}
		cs->nic_given = true;
		cs->nic.root = arg;
		return 1;
	default:
		return 0;
	}
}

/* The NIC options: the netdevs of -i and --uplinks, when named, and only those. */
static const struct nic_opts *nic_beside(struct cli_source *cs)
{
	struct nic_opts *o = &cs->nic;
	const struct live_opts *lo = &cs->live;

	o->n_netdevs = 0;
	for (int i = 0; i < lo->n_ifaces; i++)
		cs->nic_netdevs[o->n_netdevs++] = lo->ifaces[i];
	for (int i = 0; i < lo->n_uplinks; i++)
		cs->nic_netdevs[o->n_netdevs++] = lo->uplinks[i];
	o->netdevs = cs->nic_netdevs;
	o->only_named = o->n_netdevs > 0;
	o->all_if_none_named = true;
	return o;
}

static struct source *nic_only_source(struct cli_source *cs)
{
	struct source *src = nic_source_new(nic_beside(cs));

	if (!src)
		fp_err("out of memory");
	return src;
}

int cli_nic_check(const struct session *ss, const struct cli_source *cs, const char *cmd,
		  const char *doing, const char *note)
{
	const struct nic_state *st = ss->nic ? &ss->nic->now.st : NULL;
	const char *opt = cs->nic.root ? "--nic-root" : "--nic";
	char where[4200] = "";

	if (!st || !st->info[0])
		return 0;
	if (cs->nic.root)
		snprintf(where, sizeof(where), " in %s", cs->nic.root);
	if (!strcmp(ss->desc.mode, "nic") && !st->n_ports && !st->n_netdevs) {
		fp_err("%s: %s: %s%s: nothing to %s (give -i, --pcap or --sflow to %s packets)",
		       cmd, opt, st->info, where, cmd, cmd);
		return -ENODEV;
	}
	fprintf(stderr, "%s: %s: %s%s; %s %s without RDMA counters%s\n", cmd, opt, st->info, where,
		doing, ss->desc.what, note);
	return 0;
}

const char *cli_no_paths(const struct cli_source *cs)
{
	if (cs->pcap.n_files)
		return "no uplink captures named (--pcap NAME=FILE, one per uplink)";
	if (cs->sflow.listen)
		return "no sFlow samples with an output port";
	if (cs->live_given)
		return "no uplinks given (--uplinks)";
	return "no packets watched (NIC counters only)";
}

void cli_read_progress(const char *cmd, const struct session *ss, __u64 start_ns, bool done)
{
	struct source_desc d;
	char line[512];

	ss->src->ops->describe(ss->src, &d);
	fprintf(stderr, "\r%s: %s\033[K%s", cmd,
		source_progress(&d, (fp_mono_ns() - start_ns) / 1e9,
				fmt_term_cols(STDERR_FILENO) - 3 - (int)strlen(cmd), line,
				sizeof(line)),
		done ? "\n" : "");
}

int cli_flush_stdout(const char *cmd)
{
	errno = 0;
	if (fflush(stdout) != EOF && !ferror(stdout))
		return 0;
	fp_err("%s: cannot write to standard output: %s", cmd,
	       errno ? strerror(errno) : "write error");
	return -EIO;
}
