// SPDX-License-Identifier: GPL-2.0
/* export.c - placeholder until the Prometheus exporter lands. */
#include "commands.h"
#include "log.h"

int cmd_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fp_err("export: not built yet");
	return 1;
}
