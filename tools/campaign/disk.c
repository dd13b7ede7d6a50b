/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run on a disk that fills up (disk.h).
 */
#include "disk.h"
#include "tools/file_util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Below this, the disk has no room to speak of. */
#define DISK_ROOM (64u << 10)

void disk_watch_start(struct disk_watch *w, const char *corpus, const struct crash_set *before)
{
	memset(w, 0, sizeof(*w));
	w->corpus = corpus;
	w->before = before;
	/* files' times come from the coarse clock */
	clock_gettime(CLOCK_REALTIME_COARSE, &w->room_at);
}

/* The new files of the corpus, each with its stat, to @fn; how many @fn
 * counted. */
static long each_new(const struct disk_watch *w,
		     bool (*fn)(const struct disk_watch *w, const char *path,
				const struct stat *st))
{
	struct crash_set fresh;
	long n = 0;

	crash_count_new(w->corpus, w->before, &fresh);
	for (int i = 0; i < fresh.n; i++) {
		char path[PATH_MAX];
		struct stat st;

		path_fmt(path, sizeof(path), "%s/%s", w->corpus, fresh.names[i]);
		if (!stat(path, &st) && fn(w, path, &st))
			n++;
	}
	crash_set_free(&fresh);
	return n;
}

static bool is_empty(const struct disk_watch *w, const char *path, const struct stat *st)
{
	(void)w;
	(void)path;
	return st->st_size == 0;
}

bool disk_watch_full(struct disk_watch *w, int write_errno)
{
	struct statvfs vfs;

	if (w->full)
		return true;
	if (file_error_full(write_errno)) {
		w->full = true;
		w->why = write_errno;
		return true;
	}
	if (statvfs(w->corpus, &vfs))
		return false;
	if ((unsigned long long)vfs.f_bavail * vfs.f_frsize >= DISK_ROOM) {
		clock_gettime(CLOCK_REALTIME_COARSE, &w->room_at);
		return false;
	}
	/* next to no room: full once a new input came out empty */
	if (vfs.f_bavail == 0 && each_new(w, is_empty) > 0) {
		w->full = true;
		w->why = ENOSPC;
	}
	return w->full;
}

static bool not_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

static bool drop(const struct disk_watch *w, const char *path, const struct stat *st)
{
	bool cut = st->st_size == 0 ||
		   (st->st_size > st->st_blksize && not_before(&st->st_mtim, &w->room_at));

	return cut && unlink(path) == 0;
}

long disk_drop_cut(const struct disk_watch *w)
{
	long n = each_new(w, drop);

	if (n)
		dir_sync(w->corpus);
	return n;
}
