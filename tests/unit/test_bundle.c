// SPDX-License-Identifier: GPL-2.0
/*
 * render/bundle.c: what goes in comes out of the real tar, byte for byte,
 * members added from memory and rendered alike, a small rendered member
 * rendered once and a big one twice, never through a file; a writer that
 * gives another length the second time fails the bundle; a finished
 * bundle leaves nothing else beside it; an unfinished one, even from a run
 * killed by SIGKILL, leaves nothing at all, and --force replaces a bundle
 * only once the new one is whole.
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

/* Past what a first pass keeps, and not a whole number of tar blocks. */
#define BIG_LEN ((size_t)BUNDLE_KEEP + 4321)

static unsigned char byte_at(size_t i)
{
	return (unsigned char)(i * 2654435761u >> 13);
}

static int renders; /* calls of the writers below */

/* *arg bytes of byte_at(). */
static void render_bytes(FILE *out, const void *arg)
{
	size_t len = *(const size_t *)arg;
	unsigned char chunk[4096];

	renders++;
	for (size_t at = 0; at < len;) {
		size_t n = len - at < sizeof(chunk) ? len - at : sizeof(chunk);

		for (size_t i = 0; i < n; i++)
			chunk[i] = byte_at(at + i);
		fwrite(chunk, 1, n, out);
		at += n;
	}
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

/* What a member renders into has no file descriptor: no file beside the bundle, nor in /tmp. */
static int render_fd;

static void render_where(FILE *out, const void *arg)
{
	(void)arg;
	render_fd = fileno(out);
	fputs("x", out);
}

/* A writer that is not repeatable: *arg more bytes at each call. */
static void render_growing(FILE *out, const void *arg)
{
	size_t len = BIG_LEN + renders++ * *(const long *)arg;

	render_bytes(out, &len);
	renders--; /* render_bytes counted it too */
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
	size_t len, kept_len = BUNDLE_KEEP, big_len = BIG_LEN;
	unsigned char *got;
	struct bundle b;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/out.tar.gz", dir);
	assert_int_equal(bundle_open(&b, path, false), 0);
	/* The biggest member a pass keeps, rendered once; one byte more, twice. */
	renders = 0;
	assert_int_equal(bundle_add_rendered(&b, "kept.bin", render_bytes, &kept_len), 0);
	assert_int_equal(renders, 1);
	assert_int_equal(bundle_add_rendered(&b, "big.bin", render_bytes, &big_len), 0);
	assert_int_equal(renders, 3);
	assert_int_equal(bundle_add_rendered(&b, "empty.txt", render_none, NULL), 0);
	assert_int_equal(bundle_add_rendered(&b, "text.txt", render_text, "one line\n"), 0);
	render_fd = 0;
	assert_int_equal(bundle_add_rendered(&b, "where.txt", render_where, NULL), 0);
	assert_int_equal(render_fd, -1);
	assert_int_equal(bundle_add(&b, long_name, "42\n", 3), 0);
	/* Nothing under any name until the archive is whole. */
	assert_int_equal(entries(dir), 0);
	assert_int_equal(bundle_commit(&b), 0);
	/* The bundle alone: no partial file left behind. */
	assert_int_equal(entries(dir), 1);

	snprintf(cmd, sizeof(cmd), "tar -xzf %s -C %s", path, dir);
	assert_int_equal(system(cmd), 0);
	for (int k = 0; k < 2; k++) {
		snprintf(file, sizeof(file), "%s/%s", dir, k ? "big.bin" : "kept.bin");
		got = slurp(file, &len);
		assert_int_equal(len, k ? big_len : kept_len);
		for (size_t i = 0; i < len; i++)
			if (got[i] != byte_at(i))
				fail_msg("%s differs at byte %zu", file, i);
		free(got);
	}
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

/* A bundle without a directory in its name: it is written in the current one. */
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
	assert_int_equal(bundle_add_rendered(&b, "where.txt", render_text, "x"), 0);
	assert_int_equal(bundle_commit(&b), 0);
	assert_int_equal(entries("."), 1);
	/* An existing bundle is not overwritten unless asked. */
	assert_int_equal(bundle_open(&b, "out.tar.gz", false), -EEXIST);
	assert_int_equal(system("tar -tzf out.tar.gz | grep -qx where.txt"), 0);
	assert_int_equal(chdir(cwd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A big member whose writer gives another length the second time, longer
 * or shorter: its header would be wrong, so the member fails, and so does
 * the rest of the bundle, which leaves nothing behind.
 */
static void test_render_not_repeatable(void **state)
{
	char tmpl[] = "/tmp/fp-bundle-XXXXXX", path[256], cmd[512];
	char *dir = mkdtemp(tmpl);
	static const long steps[] = {1, -1, -4321};
	struct bundle b;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/out.tar.gz", dir);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		assert_int_equal(bundle_open(&b, path, false), 0);
		assert_int_equal(bundle_add(&b, "a.txt", "a\n", 2), 0);
		renders = 0;
		assert_int_equal(bundle_add_rendered(&b, "big.bin", render_growing, &steps[i]),
				 -EIO);
		assert_int_equal(renders, 2);
		assert_int_equal(bundle_add(&b, "b.txt", "b\n", 2), -EIO);
		bundle_abort(&b);
		assert_int_equal(entries(dir), 0);
	}
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
	    cmocka_unit_test(test_members_round_trip),	  cmocka_unit_test(test_relative_path),
	    cmocka_unit_test(test_render_not_repeatable), cmocka_unit_test(test_killed_and_forced),
	    cmocka_unit_test(test_what_force_replaces),
	};

	return cmocka_run_group_tests_name("bundle", tests, NULL, NULL);
}
