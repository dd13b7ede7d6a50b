/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash files in engine output folders (crash_collect.h).
 */
#include "crash_collect.h"

#include "crash_target.h"
#include "tools/file_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct file_list {
	struct crash_file *v;
	size_t n, cap;
};

static void list_add(struct file_list *l, const char *path, size_t size)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	l->v[l->n].path = strdup(path);
	if (!l->v[l->n].path)
		abort();
	l->v[l->n].size = size;
	l->v[l->n].target = NULL;
	l->n++;
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool libfuzzer_artifact(const char *name)
{
	return has_prefix(name, "crash-") || has_prefix(name, "leak-") ||
	       has_prefix(name, "timeout-") || has_prefix(name, "oom-");
}

enum pick { PICK_ALL, PICK_ARTIFACTS, PICK_AFL };

static bool picked(const char *name, enum pick pick)
{
	if (name[0] == '.' || !strcmp(name, "README.txt"))
		return false;
	if (pick == PICK_ARTIFACTS)
		return libfuzzer_artifact(name);
	if (pick == PICK_AFL)
		return has_prefix(name, "id:");
	return true;
}

/* Regular files of @dir chosen by @pick; returns how many were added. */
static size_t add_dir(struct file_list *l, const char *dir, enum pick pick)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t added = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;
		char *path;

		if (!picked(e->d_name, pick))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			abort();
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			list_add(l, path, (size_t)st.st_size);
			added++;
		}
		free(path);
	}
	closedir(d);
	return added;
}

/* <dir>/<sub>/crashes/id:* when <dir>/<sub>/crashes is a directory. */
static bool add_afl_crashes(struct file_list *l, const char *dir, const char *sub)
{
	char *crashes;
	bool found;

	if (asprintf(&crashes, "%s%s%s/crashes", dir, sub[0] ? "/" : "", sub) < 0)
		abort();
	found = path_is_dir(crashes);
	if (found)
		add_dir(l, crashes, PICK_AFL);
	free(crashes);
	return found;
}

/* AFL++ output: <dir>/<instance>/crashes/ and <dir>/crashes/ (an instance
 * directory itself). False when @dir has neither. */
static bool add_afl(struct file_list *l, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			found |= add_afl_crashes(l, dir, e->d_name);
	closedir(d);
	found |= add_afl_crashes(l, dir, "");
	return found;
}

/* The crash files in directory @path (trailing slashes ignored). */
static void add_folder(struct file_list *l, const char *path)
{
	char *dir = strdup(path);
	size_t n = strlen(path);

	if (!dir)
		abort();
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = 0;
	if (!add_afl(l, dir) && !add_dir(l, dir, PICK_ARTIFACTS))
		add_dir(l, dir, PICK_ALL);
	free(dir);
}

/* The crash files @path names; false after a message on stderr. */
static bool add_path(struct file_list *l, const char *cmd, const char *path)
{
	struct stat st;
	size_t before = l->n;

	if (stat(path, &st)) {
		fprintf(stderr, "vmafuzz %s: %s: %s\n", cmd, path, strerror(errno));
		return false;
	}
	if (S_ISREG(st.st_mode)) {
		list_add(l, path, (size_t)st.st_size);
		return true;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vmafuzz %s: %s is neither a file nor a directory\n", cmd, path);
		return false;
	}
	add_folder(l, path);
	if (l->n == before)
		fprintf(stderr, "vmafuzz %s: no crash files in %s\n", cmd, path);
	return true;
}

static int cmp_files(const void *a, const void *b)
{
	return strcmp(((const struct crash_file *)a)->path, ((const struct crash_file *)b)->path);
}

/* Each file's target: @t, else its path's; false after a message. */
static bool set_targets(struct file_list *l, const char *cmd, const struct fuzz_target *t)
{
	for (size_t i = 0; i < l->n; i++) {
		l->v[i].target = t ? t : crash_target_of(l->v[i].path);
		if (!l->v[i].target) {
			fprintf(stderr,
				"vmafuzz %s: cannot tell which target %s is for; "
				"use --target (see 'vmafuzz list')\n",
				cmd, l->v[i].path);
			return false;
		}
	}
	return true;
}

int crash_collect(const char *cmd, int npaths, char **paths, const struct fuzz_target *t,
		  struct crash_file **files, size_t *nfiles)
{
	struct file_list l = {NULL, 0, 0};

	for (int i = 0; i < npaths; i++)
		if (!add_path(&l, cmd, paths[i])) {
			crash_files_free(l.v, l.n);
			return 2;
		}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_files);
	if (!set_targets(&l, cmd, t)) {
		crash_files_free(l.v, l.n);
		return 2;
	}
	*files = l.v;
	*nfiles = l.n;
	return 0;
}

void crash_files_free(struct crash_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i].path);
	free(files);
}
