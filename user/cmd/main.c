// SPDX-License-Identifier: GPL-2.0
/* main.c - `fabprobe COMMAND`: global options, then the subcommand. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/log.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"top", cmd_top, "live flows, paths and alerts (dashboard, --plain, --once)"},
    {"capture", cmd_capture, "watch for a while and write a diagnostic bundle (.tar.gz)"},
    {"export", cmd_export, "serve Prometheus metrics (/metrics); send IPFIX flow records"},
    {"replay", cmd_replay, "run pcap/pcapng captures through the BPF parser and report"},
    {"nic", cmd_nic, "RDMA NIC counters, PFC per priority and QP owners over an interval"},
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: fabprobe [-v] COMMAND [OPTIONS]\n"
		     "\n"
		     "fabprobe: a RoCEv2 fabric probe and troubleshooter (XDP/tc eBPF).\n"
		     "\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n"
		     "Global options:\n"
		     "  -v, --verbose   libbpf and debug messages on stderr\n"
		     "  -V, --version   print the version\n"
		     "  -h, --help      this help; 'fabprobe COMMAND --help' for a command\n"
		     "\n"
		     "Exit status: 0 done, 1 failure, 2 usage error, 3 a capture was cut short,\n"
		     "or every interface watched is gone (with NIC counters alone, every RDMA\n"
		     "port read): the report covers what was read.\n");
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			fp_verbose = true;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("fabprobe %s\n", FABPROBE_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fp_err("unknown option '%s'; see 'fabprobe --help'", argv[i]);
			return 2;
		}
	}
	if (i >= argc) {
		char names[128] = "";

		for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 c ? ", " : "", commands[c].name);
		fp_err("no command given: one of %s; see 'fabprobe --help'", names);
		return 2;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].run(argc - i, argv + i);
	fp_err("unknown command '%s'; see 'fabprobe --help'", argv[i]);
	return 2;
}
