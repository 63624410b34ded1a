// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "util/log.h"

bool fp_verbose;
static FILE *log_out;

void fp_log_to(FILE *out)
{
	log_out = out;
}

static void vlog(const char *fmt, va_list ap)
{
	FILE *out = log_out ? log_out : stderr;

	/*
	 * stderr is unbuffered: each call below is a write of its own, and
	 * replay's workers log at once ("fabprobe: fabprobe: fp-run/1 ...").
	 * The stream's lock keeps a line whole.
	 */
	flockfile(out);
	fputs("fabprobe: ", out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	funlockfile(out);
}

void fp_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void fp_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!fp_verbose)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Without -v libbpf stays quiet: our own message names what failed. */
	if (!fp_verbose)
		return 0;
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

void fp_setup_libbpf_log(void)
{
	libbpf_set_print(libbpf_print);
}

const char *fp_strerror(int err)
{
	static __thread char buf[128];

	if (err < 0)
		err = -err;
	if (libbpf_strerror(err, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "%s", strerror(err));
	return buf;
}
