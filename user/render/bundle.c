// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "render/bundle.h"
#include "util/buf.h"
#include "util/log.h"

#define TAR_BLOCK 512

/* POSIX ustar header (IEEE Std 1003.1, pax "ustar Interchange Format"). */
struct ustar_header {
	char name[100];
	char mode[8];
	char uid[8];
	char gid[8];
	char size[12];
	char mtime[12];
	char chksum[8];
	char typeflag;
	char linkname[100];
	char magic[6];
	char version[2];
	char uname[32];
	char gname[32];
	char devmajor[8];
	char devminor[8];
	char prefix[155];
	char pad[12];
};

/* The directory a path names a file in: "." for a bare name, "/" for "/x". */
static void dir_of(char *dir, size_t size, const char *path)
{
	char *slash;

	snprintf(dir, size, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
}

/*
 * A fresh working name in the bundle's directory, DIR/.fabprobe-XXXXXX:
 * short whatever the bundle's name, and never one that is there already
 * (each use creates it exclusively), so no other file is ever touched.
 */
static void tmp_name(struct bundle *b)
{
	snprintf(b->tmp_path, sizeof(b->tmp_path), "%s/.fabprobe-XXXXXX", b->dir);
}

/*
 * The file the archive is written into: unnamed (O_TMPFILE) in the
 * bundle's directory, so that a run killed by any signal leaves nothing
 * behind; where that filesystem cannot make one, a working name made
 * exclusively (mkostemp: a link planted in a directory others write to is
 * never written through).
 */
static int open_target(struct bundle *b)
{
	int fd = open(b->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	/* EISDIR: a kernel without O_TMPFILE; EOPNOTSUPP: a filesystem without it. */
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		tmp_name(b);
		fd = mkostemp(b->tmp_path, O_CLOEXEC);
		b->named = fd >= 0;
	}
	if (fd < 0) {
		int err = -errno;

		/* The name asked for: a working name of ours would only puzzle. */
		fp_err("cannot create %s: %s", b->path, strerror(-err));
		return err;
	}
	return fd;
}

int bundle_open(struct bundle *b, const char *path, bool force)
{
	struct stat st;
	bool exists;
	int fd;

	memset(b, 0, sizeof(*b));
	b->sync_fd = -1;
	b->force = force;
	if (snprintf(b->path, sizeof(b->path), "%s", path) >= (int)sizeof(b->path)) {
		fp_err("%s: path too long", path);
		return -ENAMETOOLONG;
	}
	/* What is there already, found before a run of minutes, not at its end. */
	exists = !lstat(path, &st);
	if (!exists && errno != ENOENT) {
		fp_err("cannot create %s: %s", path, strerror(errno)); /* a name too long, ... */
		return -errno;
	}
	if (exists && S_ISLNK(st.st_mode) && stat(path, &st))
		st.st_mode = S_IFLNK; /* a dangling link: a name taken all the same */
	if (exists && S_ISDIR(st.st_mode)) {
		fp_err("%s is a directory; name the bundle's file (FILE.tar.gz)", path);
		return -EISDIR;
	}
	/* --force replaces a bundle, never a device, a FIFO or a socket (-o /dev/null). */
	if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		fp_err("%s is not a regular file; name the bundle's file (FILE.tar.gz)", path);
		return -EINVAL;
	}
	if (exists && !force) {
		fp_err("%s exists; use --force to overwrite it", path);
		return -EEXIST;
	}
	dir_of(b->dir, sizeof(b->dir), path);
	fd = open_target(b);
	if (fd < 0)
		return fd;
	b->sync_fd = dup(fd);
	b->gz = gzdopen(fd, "wb6");
	if (!b->gz || b->sync_fd < 0) {
		if (!b->gz)
			close(fd);
		bundle_abort(b);
		fp_err("cannot start gzip stream in %s", b->path);
		return -ENOMEM;
	}
	return 0;
}

static int write_all(struct bundle *b, const void *data, size_t len)
{
	while (len) {
		unsigned int chunk = len > (1U << 30) ? 1U << 30 : len;
		int n = gzwrite(b->gz, data, chunk);

		if (n <= 0) {
			int zerr;
			const char *msg = gzerror(b->gz, &zerr);

			fp_err("cannot write %s: %s", b->path,
			       zerr == Z_ERRNO ? strerror(errno) : msg);
			b->failed = true;
			return -EIO;
		}
		data = (const char *)data + n;
		len -= n;
	}
	return 0;
}

/*
 * A name longer than the 100 bytes of ustar's name field goes into prefix
 * and name, split at a '/' (prefix at most 155 bytes): the NIC tree's
 * counter paths can be that long.
 */
static int split_name(struct ustar_header *h, const char *name)
{
	size_t len = strlen(name);

	if (len <= sizeof(h->name)) {
		memcpy(h->name, name, len);
		return 0;
	}
	for (size_t cut = len - 1; cut > 0; cut--) {
		if (name[cut] != '/')
			continue;
		if (len - cut - 1 > sizeof(h->name) || !(len - cut - 1))
			break;
		if (cut > sizeof(h->prefix))
			continue;
		memcpy(h->prefix, name, cut);
		memcpy(h->name, name + cut + 1, len - cut - 1);
		return 0;
	}
	fp_err("bundle: '%s' is too long for a tar member name", name);
	return -ENAMETOOLONG;
}

/* A member's header, for len bytes of data. */
static int put_header(struct bundle *b, const char *name, size_t len)
{
	struct ustar_header h;
	unsigned int sum = 0;
	int err;

	if (b->failed)
		return -EIO;
	memset(&h, 0, sizeof(h));
	err = split_name(&h, name);
	if (err)
		return err;
	snprintf(h.mode, sizeof(h.mode), "%07o", 0600);
	snprintf(h.uid, sizeof(h.uid), "%07o", 0);
	snprintf(h.gid, sizeof(h.gid), "%07o", 0);
	snprintf(h.size, sizeof(h.size), "%011llo", (unsigned long long)len);
	snprintf(h.mtime, sizeof(h.mtime), "%011llo", (unsigned long long)time(NULL));
	h.typeflag = '0';
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	snprintf(h.uname, sizeof(h.uname), "root");
	snprintf(h.gname, sizeof(h.gname), "root");
	/* The checksum is computed with its own field as spaces. */
	memset(h.chksum, ' ', sizeof(h.chksum));
	for (size_t i = 0; i < sizeof(h); i++)
		sum += ((unsigned char *)&h)[i];
	snprintf(h.chksum, sizeof(h.chksum), "%06o", sum);
	return write_all(b, &h, sizeof(h));
}

/* A member's data ends on a block. */
static int put_padding(struct bundle *b, size_t len)
{
	static const char zeros[TAR_BLOCK];

	return len % TAR_BLOCK ? write_all(b, zeros, TAR_BLOCK - len % TAR_BLOCK) : 0;
}

int bundle_add(struct bundle *b, const char *name, const void *data, size_t len)
{
	int err = put_header(b, name, len);

	if (!err)
		err = write_all(b, data, len);
	if (!err)
		err = put_padding(b, len);
	return err;
}

/*
 * A member rendered twice when it is big (bundle.h). A tar header gives
 * its member's length before the data: the first pass only measures,
 * keeping the bytes while they are at most BUNDLE_KEEP; a bigger member
 * is rendered again, after its header, into the gzip stream. The second
 * render costs about what writing the member to a file and reading it
 * back would, without needing the room for it on disk.
 */
#define RENDER_BUF (64u << 10) /* stdio's buffer for a pass: fewer, bigger writes */

struct pass {
	struct bundle *b; /* the second pass's archive; NULL for the first */
	char *keep;	  /* the first pass's bytes, while they fit */
	size_t len, cap;  /* bytes rendered; keep's size */
	size_t want;	  /* the second pass: the length the header gave */
	bool over;	  /* the first pass: more than BUNDLE_KEEP, none kept */
};

static ssize_t pass_write(void *cookie, const char *data, size_t n)
{
	struct pass *p = cookie;
	size_t at = p->len;

	p->len += n;
	if (p->b) {
		/* Past the header's length, nothing: the tar would lose its framing. */
		if (at >= p->want || p->b->failed)
			return n;
		return write_all(p->b, data, n < p->want - at ? n : p->want - at) ? -1 : (ssize_t)n;
	}
	if (p->over)
		return n;
	if (p->len > BUNDLE_KEEP) {
		free(p->keep);
		p->keep = NULL;
		p->over = true;
		return n;
	}
	if (buf_grow((void **)&p->keep, &p->cap, p->len, 1)) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(p->keep + at, data, n);
	return n;
}

/* One pass of render into p; 0 or -errno. */
static int render_pass(struct pass *p, void (*render)(FILE *out, const void *arg), const void *arg)
{
	static const cookie_io_functions_t io = {.write = pass_write};
	FILE *f = fopencookie(p, "w", io);
	int err;

	if (!f)
		return -(errno ?: ENOMEM);
	setvbuf(f, NULL, _IOFBF, RENDER_BUF);
	render(f, arg);
	err = ferror(f) ? -(errno ?: EIO) : 0;
	if (fclose(f) && !err)
		err = -(errno ?: EIO);
	return err;
}

int bundle_add_rendered(struct bundle *b, const char *name,
			void (*render)(FILE *out, const void *arg), const void *arg)
{
	struct pass first = {0}, second = {.b = b};
	int err = render_pass(&first, render, arg);

	if (err) {
		fp_err("bundle: cannot render %s: %s", name, strerror(-err));
		free(first.keep);
		return err;
	}
	if (!first.over) {
		err = bundle_add(b, name, first.keep, first.len);
		free(first.keep);
		return err;
	}
	second.want = first.len;
	err = put_header(b, name, first.len);
	if (err)
		return err;
	err = render_pass(&second, render, arg);
	if (b->failed)
		return -EIO; /* write_all said why */
	if (!err && second.len != first.len) {
		fp_err("bundle: %s rendered %zu bytes, then %zu: its tar header would be wrong",
		       name, first.len, second.len);
		err = -EIO;
	} else if (err) {
		fp_err("bundle: cannot render %s: %s", name, strerror(-err));
	}
	if (err) {
		b->failed = true;
		return err;
	}
	return put_padding(b, first.len);
}

/*
 * The unnamed file under name: through its /proc/self/fd link, which any
 * user may follow, else by its descriptor (AT_EMPTY_PATH, which needs
 * CAP_DAC_READ_SEARCH) where /proc is not mounted.
 */
static int link_unnamed(int fd, const char *name)
{
	char proc[64];
	int err;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
		return 0;
	err = -errno;
	if (err != -ENOENT || !access(proc, F_OK))
		return err; /* not for want of /proc */
	return linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) ? -errno : 0;
}

/* The unnamed archive under a fresh working name, for the rename over the old bundle. */
static int link_tmp(struct bundle *b)
{
	for (int tries = 0; tries < 100; tries++) {
		char *x;
		__u64 r;
		int err;

		tmp_name(b);
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = ((__u64)getpid() << 32 | (__u64)time(NULL)) + tries;
		x = b->tmp_path + strlen(b->tmp_path) - 6;
		for (int i = 0; i < 6; i++, r /= 36)
			x[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[r % 36];
		err = link_unnamed(b->sync_fd, b->tmp_path);
		if (err != -EEXIST)
			return err;
	}
	return -EEXIST;
}

/*
 * The finished archive under its name. link() refuses an existing name:
 * no silent overwrite without --force; with it, the archive is renamed
 * over the old file, which stays whole until then.
 */
static int publish(struct bundle *b)
{
	int err;

	if (!b->named && !b->force)
		return link_unnamed(b->sync_fd, b->path);
	if (!b->named) {
		err = link_tmp(b);
		if (err)
			return err;
		b->named = true; /* an abort removes it */
	}
	if (b->force)
		return rename(b->tmp_path, b->path) ? -errno : 0;
	err = link(b->tmp_path, b->path) ? -errno : 0;
	if (!err)
		unlink(b->tmp_path);
	return err;
}

int bundle_commit(struct bundle *b)
{
	static const char end[2 * TAR_BLOCK];
	int err = write_all(b, end, sizeof(end)), zerr;

	zerr = gzclose(b->gz);
	b->gz = NULL;
	if (!err && zerr != Z_OK) {
		fp_err("cannot finish %s: %s", b->path,
		       zerr == Z_ERRNO ? strerror(errno) : "gzip error");
		err = -EIO;
	}
	/* Delayed write errors (a full disk) surface here, before the name appears. */
	if (!err && fsync(b->sync_fd)) {
		fp_err("cannot finish %s: %s", b->path, strerror(errno));
		err = -EIO;
	}
	if (!err) {
		err = publish(b);
		if (err)
			fp_err("cannot create %s: %s", b->path, strerror(-err));
	}
	if (err)
		bundle_abort(b);
	else
		close(b->sync_fd);
	b->sync_fd = -1;
	return err;
}

void bundle_abort(struct bundle *b)
{
	if (b->gz)
		gzclose(b->gz);
	b->gz = NULL;
	if (b->sync_fd >= 0)
		close(b->sync_fd);
	b->sync_fd = -1;
	/* An unnamed file goes with its last descriptor. */
	if (b->named)
		unlink(b->tmp_path);
	b->named = false;
}
