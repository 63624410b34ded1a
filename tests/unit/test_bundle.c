// SPDX-License-Identifier: GPL-2.0
/*
 * render/bundle.c: what goes in comes out of the real tar, byte for byte,
 * members added from memory and rendered through a scratch file alike; the
 * scratch file is in the bundle's directory, and a finished bundle leaves
 * nothing else beside it; an unfinished one, even from a run killed by
 * SIGKILL, leaves nothing at all, and --force replaces a bundle only once
 * the new one is whole.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "render/bundle.h"

/* Longer than a chunk of the copy (64 KiB) and not a whole number of tar blocks. */
#define BIG_LEN (3 * 65536 + 4321)

static unsigned char byte_at(size_t i)
{
	return (unsigned char)(i * 2654435761u >> 13);
}

static void render_big(FILE *out, const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < BIG_LEN; i++)
		fputc(byte_at(i), out);
}

static void render_none(FILE *out, const void *arg)
{
	(void)out;
	(void)arg;
}

static void render_text(FILE *out, const void *arg)
{
	fputs(arg, out);
}

/*
 * Where the file a member renders into lives: its /proc/self/fd link, an
 * unnamed file shown as "DIR/#INODE (deleted)".
 */
static char scratch_dir[4096];

static void render_where(FILE *out, const void *arg)
{
	char link[64], *slash;
	ssize_t n;

	(void)arg;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fileno(out));
	n = readlink(link, scratch_dir, sizeof(scratch_dir) - 1);
	scratch_dir[n > 0 ? n : 0] = '\0';
	slash = strrchr(scratch_dir, '/');
	if (slash)
		*slash = '\0';
	fputs("x", out);
}

/* The whole of a file, its length in *len. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

/* The directory's entries but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_members_round_trip(void **state)
{
	static const char long_name[] =
	    "nic/mlx5_0/ports/1/hw_counters/a_directory_name_long_enough/"
	    "to_need_the_prefix_field/np_ecn_marked_roce_packets";
	char tmpl[] = "/tmp/fp-bundle-XXXXXX", path[256], cmd[512], file[512];
	char *dir = mkdtemp(tmpl);
	unsigned char *got;
	struct bundle b;
	size_t len;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/out.tar.gz", dir);
	assert_int_equal(bundle_open(&b, path, false), 0);
	assert_int_equal(bundle_add_rendered(&b, "big.bin", render_big, NULL), 0);
	assert_int_equal(bundle_add_rendered(&b, "empty.txt", render_none, NULL), 0);
	assert_int_equal(bundle_add_rendered(&b, "text.txt", render_text, "one line\n"), 0);
	/* On the destination's filesystem, not in /tmp's. */
	assert_int_equal(bundle_add_rendered(&b, "where.txt", render_where, NULL), 0);
	assert_string_equal(scratch_dir, dir);
	assert_int_equal(bundle_add(&b, long_name, "42\n", 3), 0);
	/* Nothing under any name until the archive is whole. */
	assert_int_equal(entries(dir), 0);
	assert_int_equal(bundle_commit(&b), 0);
	/* The bundle alone: no partial file, no scratch file left behind. */
	assert_int_equal(entries(dir), 1);

	snprintf(cmd, sizeof(cmd), "tar -xzf %s -C %s", path, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(file, sizeof(file), "%s/big.bin", dir);
	got = slurp(file, &len);
	assert_int_equal(len, BIG_LEN);
	for (size_t i = 0; i < len; i++)
		if (got[i] != byte_at(i))
			fail_msg("big.bin differs at byte %zu", i);
	free(got);
	snprintf(file, sizeof(file), "%s/empty.txt", dir);
	free(slurp(file, &len));
	assert_int_equal(len, 0);
	snprintf(file, sizeof(file), "%s/text.txt", dir);
	got = slurp(file, &len);
	assert_int_equal(len, 9);
	assert_memory_equal(got, "one line\n", 9);
	free(got);
	snprintf(file, sizeof(file), "%s/%s", dir, long_name);
	got = slurp(file, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(got, "42\n", 3);
	free(got);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A bundle without a directory in its name: its scratch files go to the current one. */
static void test_relative_path(void **state)
{
	char tmpl[] = "/tmp/fp-bundle-XXXXXX", cwd[4096], cmd[512];
	char *dir = mkdtemp(tmpl);
	struct bundle b;

	(void)state;
	assert_non_null(dir);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(bundle_open(&b, "out.tar.gz", false), 0);
	assert_int_equal(bundle_add_rendered(&b, "where.txt", render_where, NULL), 0);
	assert_string_equal(scratch_dir, dir);
	assert_int_equal(bundle_commit(&b), 0);
	assert_int_equal(entries("."), 1);
	/* An existing bundle is not overwritten unless asked. */
	assert_int_equal(bundle_open(&b, "out.tar.gz", false), -EEXIST);
	assert_int_equal(system("tar -tzf out.tar.gz | grep -qx where.txt"), 0);
	assert_int_equal(chdir(cwd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A run killed while it writes leaves nothing; one asked to overwrite, the old bundle whole. */
static void test_killed_and_forced(void **state)
{
	char tmpl[] = "/tmp/fp-bundle-XXXXXX", path[256], cmd[512];
	char *dir = mkdtemp(tmpl);
	struct bundle b;
	int status;
	pid_t pid;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/out.tar.gz", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (bundle_open(&b, path, false) || bundle_add(&b, "a.txt", "a\n", 2))
			_exit(1);
		raise(SIGKILL);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(entries(dir), 0);

	assert_int_equal(bundle_open(&b, path, false), 0);
	assert_int_equal(bundle_add(&b, "old.txt", "old\n", 4), 0);
	assert_int_equal(bundle_commit(&b), 0);
	/* Forced, then abandoned: the old bundle stays, alone. */
	assert_int_equal(bundle_open(&b, path, true), 0);
	assert_int_equal(bundle_add(&b, "new.txt", "new\n", 4), 0);
	bundle_abort(&b);
	assert_int_equal(entries(dir), 1);
	snprintf(cmd, sizeof(cmd), "tar -tzf %s | grep -qx old.txt", path);
	assert_int_equal(system(cmd), 0);
	/* Forced and finished: the new one, alone. */
	assert_int_equal(bundle_open(&b, path, true), 0);
	assert_int_equal(bundle_add(&b, "new.txt", "new\n", 4), 0);
	assert_int_equal(bundle_commit(&b), 0);
	assert_int_equal(entries(dir), 1);
	snprintf(cmd, sizeof(cmd), "tar -tzf %s | grep -qx new.txt", path);
	assert_int_equal(system(cmd), 0);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * --force replaces a bundle, not a FIFO or a device; files beside it with
 * names like a working name's (an old PATH.partial, a link planted there)
 * are neither written through nor removed; the old bundle is replaced
 * only once the new one is whole, also with a name too long for
 * PATH.partial; a name too long for the directory fails before the run.
 */
static void test_what_force_replaces(void **state)
{
	char tmpl[] = "/tmp/fp-bundle-XXXXXX", path[256], other[256], victim[256], cmd[512];
	char *dir = mkdtemp(tmpl);
	struct bundle b;
	size_t len;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(bundle_open(&b, path, true), -EINVAL);
	snprintf(other, sizeof(other), "%s/to-fifo", dir);
	assert_int_equal(symlink(path, other), 0);
	assert_int_equal(bundle_open(&b, other, true), -EINVAL);

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(cmd, sizeof(cmd), "printf keep > %s", victim);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/out.tar.gz", dir);
	snprintf(other, sizeof(other), "%s/out.tar.gz.partial", dir);
	assert_int_equal(symlink(victim, other), 0);
	assert_int_equal(bundle_open(&b, path, true), 0);
	assert_int_equal(bundle_add(&b, "a.txt", "a\n", 2), 0);
	assert_int_equal(bundle_commit(&b), 0);
	free(slurp(victim, &len));
	assert_int_equal(len, 4);
	snprintf(cmd, sizeof(cmd), "tar -tzf %s | grep -qx a.txt", path);
	assert_int_equal(system(cmd), 0);
	/* the FIFO and its link, victim and the link to it, the bundle: nothing else */
	assert_int_equal(entries(dir), 5);
	{
		char name[260], longp[600];

		/* 255 bytes: the longest name there is, no room for ".partial" */
		memset(name, 'a', 248);
		memcpy(name + 248, ".tar.gz", 8);
		snprintf(longp, sizeof(longp), "%s/%s", dir, name);
		assert_int_equal(bundle_open(&b, longp, false), 0);
		assert_int_equal(bundle_add(&b, "a.txt", "a\n", 2), 0);
		assert_int_equal(bundle_commit(&b), 0);
		assert_int_equal(bundle_open(&b, longp, true), 0);
		assert_int_equal(bundle_add(&b, "b.txt", "b\n", 2), 0);
		assert_int_equal(bundle_commit(&b), 0);
		assert_int_equal(entries(dir), 6);
		memcpy(name + 248, ".tar.gzz", 9); /* 256 bytes: refused at once */
		snprintf(longp, sizeof(longp), "%s/%s", dir, name);
		assert_int_equal(bundle_open(&b, longp, true), -ENAMETOOLONG);
	}

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_members_round_trip),
	    cmocka_unit_test(test_relative_path),
	    cmocka_unit_test(test_killed_and_forced),
	    cmocka_unit_test(test_what_force_replaces),
	};

	return cmocka_run_group_tests_name("bundle", tests, NULL, NULL);
}
