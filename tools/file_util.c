/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files for the commands (file_util.h).
 */
#include "file_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void path_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "vmafuzz: a path too long: %s...\n", buf);
		exit(2);
	}
}

bool path_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool crash_write_temp(const uint8_t *data, size_t size, char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	int fd, n;

	if (!dir || !*dir)
		dir = "/tmp";
	n = snprintf(path, len, "%s/vmafuzz-XXXXXX", dir);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "vmafuzz: TMPDIR is too long\n");
		return false;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "vmafuzz: cannot create %s: %s\n", path, strerror(errno));
		return false;
	}
	if (write(fd, data, size) != (ssize_t)size) {
		fprintf(stderr, "vmafuzz: cannot write %s: %s\n", path, strerror(errno));
		close(fd);
		unlink(path);
		return false;
	}
	close(fd);
	return true;
}

bool crash_write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;

	if (!f || fwrite(data, 1, size, f) != size || (f != stdout && fclose(f))) {
		fprintf(stderr, "vmafuzz: cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	if (f == stdout)
		fflush(stdout);
	return true;
}

/* @path's folder and last component into @dir and @base. */
static bool split_path(const char *path, char *dir, char *base, size_t len)
{
	char a[PATH_MAX], b[PATH_MAX];

	if (snprintf(a, sizeof(a), "%s", path) >= (int)sizeof(a) ||
	    snprintf(b, sizeof(b), "%s", path) >= (int)sizeof(b))
		return false;
	return snprintf(dir, len, "%s", dirname(a)) < (int)len &&
	       snprintf(base, len, "%s", basename(b)) < (int)len;
}

char *file_read(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	*size = 0;
	while (buf) {
		ssize_t n = read(fd, buf + *size, cap - *size - 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (n == 0)
			break;
		*size += (size_t)n;
		if (*size + 1 == cap) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				free(buf);
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	if (buf)
		buf[*size] = 0;
	return buf;
}

bool dir_make(const char *path)
{
	char p[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		return false;
	memcpy(p, path, n + 1);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				return false;
			*s = '/';
		}
	return (!mkdir(p, 0755) || errno == EEXIST) && path_is_dir(p);
}

bool dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = fsync(fd) == 0;
	close(fd);
	return ok;
}

bool file_write_atomic(const char *path, const void *data, size_t size)
{
	char dir[PATH_MAX], base[PATH_MAX], tmp[PATH_MAX];
	const char *p = data;
	size_t done = 0;
	int fd, e;

	if (!split_path(path, dir, base, sizeof(dir)) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp-%d", dir, base, (int)getpid()) >=
		(int)sizeof(tmp)) {
		fprintf(stderr, "vmafuzz: cannot write %s: path too long\n", path);
		return false;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	while (done < size) {
		ssize_t n = write(fd, p + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = ENOSPC; /* (a write that takes nothing: no room) */
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	if (fsync(fd))
		goto fail;
	e = close(fd);
	fd = -1;
	if (e || rename(tmp, path))
		goto fail;
	if (!dir_sync(dir))
		goto fail;
	return true;
fail:
	e = errno;
	fprintf(stderr, "vmafuzz: cannot write %s: %s\n", path, strerror(e));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = e;
	return false;
}

bool file_error_full(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

bool tree_remove(const char *path)
{
	struct stat st;

	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return lstat(path, &st) != 0 && errno == ENOENT;
}

static bool has_corpus(const char *root)
{
	char path[PATH_MAX];

	return (size_t)snprintf(path, sizeof(path), "%s/corpus", root) < sizeof(path) &&
	       path_is_dir(path);
}

bool source_root(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;

	if (has_corpus(".")) {
		snprintf(buf, len, ".");
		return true;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = 0;
	snprintf(buf, len, "%s", dirname(dirname(self)));
	return has_corpus(buf);
}
