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

/* Whether @s ends with @suffix. */
static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static bool picked(const char *name, enum pick pick)
{
	/* ClusterFuzzLite keeps each crash's stack beside it as <crash>.summary */
	if (name[0] == '.' || !strcmp(name, "README.txt") || has_suffix(name, ".summary"))
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

static bool is_target_name(const char *name)
{
	for (unsigned i = 0; fuzz_targets[i]; i++)
		if (!strcmp(name, fuzz_targets[i]->name))
			return true;
	for (unsigned i = 0; kernel_targets[i]; i++)
		if (!strcmp(name, kernel_targets[i]->name))
			return true;
	return false;
}

/* The engines' own folder layouts in @dir: AFL++ output, else libFuzzer's
 * artifacts. False when it is neither. */
static bool add_engine_folder(struct file_list *l, const char *dir)
{
	return add_afl(l, dir) || add_dir(l, dir, PICK_ARTIFACTS);
}

/*
 * A target's folder of a batch layout, @dir/<target>/: its crash files, else
 * those of each folder in it, one level down (ClusterFuzzLite's
 * artifacts/<target>/<sanitizer>/), else every file in it. How many.
 */
static size_t add_target_folder(struct file_list *l, const char *dir)
{
	size_t before = l->n;
	struct dirent *e;
	DIR *d;

	if (add_engine_folder(l, dir))
		return l->n - before;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char *sub;

		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&sub, "%s/%s", dir, e->d_name) < 0)
			abort();
		if (path_is_dir(sub) && !add_engine_folder(l, sub))
			add_dir(l, sub, PICK_ALL);
		free(sub);
	}
	if (d)
		closedir(d);
	if (l->n == before)
		add_dir(l, dir, PICK_ALL);
	return l->n - before;
}

/* The folders of @dir named for a target (triage-in/<target>/, the batch
 * layouts of ClusterFuzzLite and OSS-Fuzz), each as add_target_folder
 * reads it; how many files they hold. */
static size_t add_target_folders(struct file_list *l, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d))) {
		char *sub;

		if (!is_target_name(e->d_name))
			continue;
		if (asprintf(&sub, "%s/%s", dir, e->d_name) < 0)
			abort();
		if (path_is_dir(sub))
			n += add_target_folder(l, sub);
		free(sub);
	}
	if (d)
		closedir(d);
	return n;
}

/* The crash files in directory @path (trailing slashes ignored). */
static void add_folder(struct file_list *l, const char *path)
{
	char *dir = strdup(path);
	size_t n = strlen(path);
	bool found;

	if (!dir)
		abort();
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = 0;
	found = add_engine_folder(l, dir);
	if (add_target_folders(l, dir))
		found = true;
	if (!found)
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
