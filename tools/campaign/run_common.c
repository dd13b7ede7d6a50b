/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both runs do to set up (run_common.h).
 */
#include "run_common.h"
#include "tools/file_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool run_folders(const struct campaign *c, char *crashes, size_t len)
{
	char corpus[PATH_MAX];

	path_fmt(corpus, sizeof(corpus), "%s/corpus", c->work);
	path_fmt(crashes, len, "%s/crashes", c->work);
	if (dir_make(corpus) && dir_make(crashes) && dir_make(c->seeds))
		return true;
	fprintf(stderr, "vmafuzz fuzz: cannot make %s/{corpus,crashes} or %s: %s\n", c->work,
		c->seeds, strerror(errno));
	return false;
}

bool run_copy_seeds(const struct campaign *c)
{
	DIR *d = opendir(c->seeds);
	struct dirent *e;
	bool ok = true;

	while (d && ok && (e = readdir(d))) {
		char from[PATH_MAX], to[PATH_MAX];
		struct stat st;
		size_t size;
		char *data;

		if (snprintf(from, sizeof(from), "%s/%s", c->seeds, e->d_name) >=
			(int)sizeof(from) ||
		    snprintf(to, sizeof(to), "%s/corpus/%s", c->work, e->d_name) >=
			(int)sizeof(to) ||
		    stat(from, &st) || !S_ISREG(st.st_mode) || access(to, F_OK) == 0)
			continue;
		data = file_read(from, &size);
		ok = data && file_write_atomic(to, data, size);
		free(data);
	}
	if (d)
		closedir(d);
	return ok;
}

bool run_log(const struct campaign *c, const char *build, bool link, char *log, size_t len)
{
	char dir[PATH_MAX], name[700], at[32], tmp[PATH_MAX], fuzz_log[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(at, sizeof(at), "%Y%m%d-%H%M%S", &tm);
	snprintf(name, sizeof(name), "%s-%s.log", at, build);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '-';
	path_fmt(dir, sizeof(dir), "%s/logs", c->work);
	path_fmt(log, len, "%s/%s", dir, name);
	if (!dir_make(dir)) {
		fprintf(stderr, "vmafuzz fuzz: cannot make %s: %s\n", dir, strerror(errno));
		return false;
	}
	if (!link)
		return true;
	/* fuzz.log: the last run's log, switched in one step */
	path_fmt(fuzz_log, sizeof(fuzz_log), "%s/fuzz.log", c->work);
	path_fmt(tmp, sizeof(tmp), "%s/.fuzz.log.tmp-%d", c->work, (int)getpid());
	path_fmt(dir, sizeof(dir), "logs/%s", name);
	unlink(tmp);
	if (symlink(dir, tmp) || rename(tmp, fuzz_log)) {
		fprintf(stderr, "vmafuzz fuzz: cannot link %s: %s\n", fuzz_log, strerror(errno));
		unlink(tmp);
		return false;
	}
	return true;
}
