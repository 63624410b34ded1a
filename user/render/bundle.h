/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bundle.h - a gzip'ed tar written safely: into an unnamed file in the
 * destination's directory (a fresh .fabprobe-XXXXXX where the filesystem
 * cannot make one), named only when complete, so that a run killed by any signal
 * leaves nothing behind; mode 0600, never over an existing file unless
 * asked.
 */
#ifndef __FP_BUNDLE_H
#define __FP_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <zlib.h>

struct bundle {
	gzFile gz;
	int sync_fd; /* a second handle on the file, to fsync once gzip is done */
	char path[4096];
	char dir[4096];		  /* path's directory, where the archive is written */
	char tmp_path[4096 + 32]; /* DIR/.fabprobe-XXXXXX, the archive's working name */
	bool named; /* the archive is at tmp_path (ours, removed on abort); else an O_TMPFILE */
	bool force;
	bool failed;
};

/* Errors are reported on stderr, naming the path. */
int bundle_open(struct bundle *b, const char *path, bool force);
int bundle_add(struct bundle *b, const char *name, const void *data, size_t len);
/*
 * A member a stdio writer renders, never whole in memory or on disk (a
 * million flows' report.json is 608 MB): rendered once to measure it, its
 * bytes kept while they are at most BUNDLE_KEEP, which is all of most
 * members; a bigger one is rendered a second time, straight into the
 * archive after its header, so its writer must give the same bytes for
 * the same arg (another length is an error and fails the bundle).
 */
#define BUNDLE_KEEP (16u << 20)
int bundle_add_rendered(struct bundle *b, const char *name,
			void (*render)(FILE *out, const void *arg), const void *arg);
/* Finish the archive and move it into place. */
int bundle_commit(struct bundle *b);
/* Drop the unfinished archive. */
void bundle_abort(struct bundle *b);

#endif /* __FP_BUNDLE_H */
