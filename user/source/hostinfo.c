// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <glob.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "util/buf.h"
#include "source/hostinfo.h"

extern char **environ;

/* Run a command (no shell: interface names go in as plain arguments), copy its output. */
static void run(FILE *out, const char *const argv[])
{
	posix_spawn_file_actions_t fa;
	char buf[4096];
	int pipefd[2], status;
	pid_t pid;
	ssize_t n;

	fprintf(out, "$");
	for (int i = 0; argv[i]; i++)
		fprintf(out, " %s", argv[i]);
	fprintf(out, "\n");
	fflush(out);
	if (pipe(pipefd)) {
		fprintf(out, "(cannot run: no pipe)\n\n");
		return;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ)) {
		fprintf(out, "(%s is not installed)\n\n", argv[0]);
		pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	while ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, out);
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	fputc('\n', out);
}

static void sysctl(FILE *out, const char *name)
{
	char path[256], value[256] = "(absent)";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(value, sizeof(value), f))
			snprintf(value, sizeof(value), "(unreadable)");
		fclose(f);
		value[strcspn(value, "\n")] = '\0';
	}
	fprintf(out, "%s = %s\n", name, value);
}

static void counter_add(struct counter_set *c, const char *name, unsigned long long v)
{
	if (buf_grow((void **)&c->names, &c->cap, c->n + 1, sizeof(*c->names)))
		return;
	c->values = realloc(c->values, c->cap * sizeof(*c->values));
	if (!c->values)
		return;
	c->names[c->n] = strdup(name);
	c->values[c->n++] = v;
}

/* RDMA hardware counters of every port, when an RDMA device exists. */
static void read_rdma(struct counter_set *c)
{
	glob_t g;

	if (glob("/sys/class/infiniband/*/ports/*/hw_counters/*", 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		unsigned long long v;
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1)
			counter_add(c, g.gl_pathv[i] + strlen("/sys/class/infiniband/"), v);
		fclose(f);
	}
	globfree(&g);
}

static bool is_pause_counter(const char *name)
{
	char low[128];
	size_t i;

	for (i = 0; name[i] && i < sizeof(low) - 1; i++)
		low[i] = tolower((unsigned char)name[i]);
	low[i] = '\0';
	return strstr(low, "pause") || strstr(low, "pfc") || strstr(low, "prio");
}

/* Per-priority PFC/pause counters from `ethtool -S`. */
static void read_pause(struct counter_set *c, const char *ifname)
{
	const char *argv[] = {"ethtool", "-S", ifname, NULL};
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	run(f, argv);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], full[192];
		unsigned long long v;

		if (sscanf(line, " %127[^:]: %llu", name, &v) != 2 || !is_pause_counter(name))
			continue;
		snprintf(full, sizeof(full), "%s/%s", ifname, name);
		counter_add(c, full, v);
	}
	free(buf);
}

static void read_counters(struct hostinfo *h, struct counter_set *c)
{
	read_rdma(c);
	for (int i = 0; i < h->n_ifaces; i++)
		if (h->ifaces[i].interface)
			read_pause(c, h->ifaces[i].name);
}

void hostinfo_begin(struct hostinfo *h, const struct obs_point *ifaces, int n)
{
	static const char *const sysctls[] = {
	    "net.ipv4.fib_multipath_hash_policy",
	    "net.ipv4.fib_multipath_hash_fields",
	    "net.ipv6.fib_multipath_hash_policy",
	    "net.ipv6.fib_multipath_hash_fields",
	    "net.ipv4.tcp_ecn",
	    "net.ipv4.ip_forward",
	    "net.ipv6.conf.all.forwarding",
	};
	struct utsname u;
	FILE *out;

	memset(h, 0, sizeof(*h));
	h->ifaces = ifaces;
	h->n_ifaces = n;
	out = open_memstream(&h->static_text, &h->static_len);
	if (!out)
		return;
	if (!uname(&u))
		fprintf(out, "kernel: %s %s %s %s\n\n", u.sysname, u.release, u.version, u.machine);
	fprintf(out, "== sysctls\n");
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++)
		sysctl(out, sysctls[i]);
	fprintf(out, "\n");
	for (int i = 0; i < n; i++) {
		const char *name = ifaces[i].name;
		const char *link[] = {"ip", "-d", "-s", "link", "show", "dev", name, NULL};
		const char *drv[] = {"ethtool", "-i", name, NULL};
		const char *offload[] = {"ethtool", "-k", name, NULL};
		const char *qdisc[] = {"tc", "-s", "qdisc", "show", "dev", name, NULL};

		if (!ifaces[i].interface)
			continue;
		fprintf(out, "== interface %s%s\n", name, ifaces[i].uplink ? " (uplink)" : "");
		run(out, link);
		run(out, drv);
		run(out, offload);
		run(out, qdisc);
	}
	fclose(out);
	read_counters(h, &h->start);
}

void hostinfo_end(struct hostinfo *h)
{
	read_counters(h, &h->end);
}

void hostinfo_text(FILE *out, const struct hostinfo *h)
{
	if (h->static_text)
		fwrite(h->static_text, 1, h->static_len, out);
	fprintf(out, "== RDMA and PFC/pause counters: start, end, difference\n");
	if (!h->end.n)
		fprintf(out, "(none: no RDMA device in /sys/class/infiniband and no pause/PFC "
			     "counters in ethtool -S)\n");
	for (size_t i = 0; i < h->end.n; i++) {
		unsigned long long start = 0;

		for (size_t j = 0; j < h->start.n; j++)
			if (!strcmp(h->start.names[j], h->end.names[i]))
				start = h->start.values[j];
		fprintf(out, "%-60s %15llu %15llu %+15lld\n", h->end.names[i], start,
			h->end.values[i], (long long)(h->end.values[i] - start));
	}
}

static void counters_free(struct counter_set *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	free(c->values);
}

void hostinfo_free(struct hostinfo *h)
{
	counters_free(&h->start);
	counters_free(&h->end);
	free(h->static_text);
	memset(h, 0, sizeof(*h));
}
