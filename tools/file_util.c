/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files for the commands (file_util.h).
 */
#include "file_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
