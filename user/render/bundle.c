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
 * A scratch file for a member, unnamed, in the bundle's directory (the
 * destination has room for what goes into the bundle, where /tmp may be
 * small or in memory); /tmp's if that filesystem cannot make one.
 */
static FILE *scratch_open(const struct bundle *b)
{
	int fd = open(b->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0)
		return tmpfile();
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

/* The scratch file's len bytes into the bundle, a chunk at a time. */
static int copy_scratch(struct bundle *b, FILE *f, size_t len)
{
	char chunk[64 << 10];
	size_t left = len;

	rewind(f);
	while (left) {
		size_t want = left < sizeof(chunk) ? left : sizeof(chunk);
		size_t got = fread(chunk, 1, want, f);
		int err;

		if (got != want) {
			fp_err("bundle: cannot read back a scratch file: %s",
			       ferror(f) ? strerror(errno) : "short read");
			b->failed = true;
			return -EIO;
		}
		err = write_all(b, chunk, got);
		if (err)
			return err;
		left -= got;
	}
	return 0;
}

int bundle_add_rendered(struct bundle *b, const char *name,
			void (*render)(FILE *out, const void *arg), const void *arg)
{
	FILE *f = scratch_open(b);
	long len;
	int err;

	if (!f) {
		err = -errno;
		fp_err("bundle: cannot make a scratch file for %s: %s", name, strerror(-err));
		return err;
	}
	render(f, arg);
	len = fflush(f) || ferror(f) ? -1 : ftell(f);
	if (len < 0) {
		err = -(errno ?: EIO);
		fp_err("bundle: cannot write %s to a scratch file: %s", name, strerror(-err));
		fclose(f);
		return err;
	}
	err = put_header(b, name, len);
	if (!err)
		err = copy_scratch(b, f, len);
	if (!err)
		err = put_padding(b, len);
	fclose(f);
	return err;
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
