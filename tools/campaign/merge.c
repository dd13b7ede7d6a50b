/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The corpus merge (merge.h).
 */
#include "merge.h"
#include "engine_cmd.h"
#include "guard.h"
#include "records.h"
#include "status.h"
#include "tools/file_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An input by its size and content hash (FNV-1a, 64 bits). */
struct print {
	uint64_t size, hash;
};

/* The print of file @path; false if it cannot be read whole. */
static bool print_of(const char *path, struct print *p, bool flush)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char buf[65536];
	ssize_t n;

	if (fd < 0)
		return false;
	p->size = 0;
	p->hash = 0xcbf29ce484222325ULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			p->hash = (p->hash ^ buf[i]) * 0x100000001b3ULL;
		p->size += (uint64_t)n;
	}
	if (n == 0 && flush && fsync(fd))
		n = -1;
	close(fd);
	return n == 0;
}

static int cmp_print(const void *a, const void *b)
{
	const struct print *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* The prints of the files of @dir, sorted; their number, -1 on error. */
static long prints_of(const char *dir, struct print **out, bool flush)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*out = realloc(*out, (size_t)cap * sizeof(**out));
			if (!*out)
				abort();
		}
		if (!print_of(path, &(*out)[n], flush)) {
			closedir(d);
			return -1;
		}
		n++;
	}
	closedir(d);
	qsort(*out, (size_t)n, sizeof(**out), cmp_print);
	return n;
}

long merge_outer_count(const char *text, size_t len)
{
	static const char key[] = "MERGE-OUTER: ";
	long n = -1;

	for (const char *p = text; p + sizeof(key) <= text + len; p++) {
		const char *q = p + sizeof(key) - 1;

		if (memcmp(p, key, sizeof(key) - 1) || *q < '0' || *q > '9')
			continue;
		n = strtol(q, (char **)&q, 10);
		if (strncmp(q, " new file", 9))
			n = -1;
	}
	return n;
}

/* Whether every file of @fresh is a whole copy of a file of @corpus, and
 * there are @want of them; flushes them. False with why. */
static bool checked(const char *fresh, const char *corpus, long want, struct merge_result *r)
{
	struct print *have = NULL, *got = NULL;
	long nhave = prints_of(corpus, &have, false);
	long ngot = prints_of(fresh, &got, true);
	bool ok = nhave >= 0 && ngot >= 0;

	if (!ok)
		snprintf(r->why, sizeof(r->why), "cannot read the inputs back");
	else if (ngot != want)
		snprintf(r->why, sizeof(r->why), "libFuzzer said %ld files, %ld are there", want,
			 ngot);
	for (long i = 0; ok && ngot == want && i < ngot; i++)
		if (!bsearch(&got[i], have, (size_t)nhave, sizeof(*have), cmp_print)) {
			snprintf(r->why, sizeof(r->why),
				 "a file it wrote is no whole copy of an input (a full disk?)");
			ok = false;
		}
	free(have);
	free(got);
	return ok && ngot == want && dir_sync(fresh);
}

/* Put @fresh in @corpus's place in one step, and remove the old one. */
static bool swap_in(const char *work, const char *fresh, const char *corpus, struct merge_result *r)
{
	char old[PATH_MAX];

	if (renameat2(AT_FDCWD, fresh, AT_FDCWD, corpus, RENAME_EXCHANGE) == 0) {
		dir_sync(work);
		tree_remove(fresh); /* the old corpus, now */
		return true;
	}
	/* a file system without the exchange: two renames */
	path_fmt(old, sizeof(old), "%s.old-%d", corpus, (int)getpid());
	if (rename(corpus, old) == 0) {
		if (rename(fresh, corpus) == 0) {
			dir_sync(work);
			tree_remove(old);
			return true;
		}
		rename(old, corpus);
	}
	snprintf(r->why, sizeof(r->why), "cannot put it in place: %s", strerror(errno));
	return false;
}

bool corpus_merge(const struct campaign *c, struct merge_result *r)
{
	char fresh[PATH_MAX], corpus[PATH_MAX], log[PATH_MAX], crashes[PATH_MAX];
	struct crash_set before, found;
	struct guard_io io = {.null_in = true, .pass = GUARD_PASS_TERM};
	struct strv cmd = {0};
	long said = -1;
	size_t len;
	char *text;
	pid_t pid;
	int rc;

	memset(r, 0, sizeof(*r));
	path_fmt(fresh, sizeof(fresh), "%s/corpus.merge", c->work);
	path_fmt(corpus, sizeof(corpus), "%s/corpus", c->work);
	path_fmt(log, sizeof(log), "%s/merge.log", c->work);
	path_fmt(crashes, sizeof(crashes), "%s/crashes", c->work);
	r->before = r->after = crash_count(corpus);
	if (r->before <= 0) {
		r->ok = r->before == 0;
		return r->ok;
	}
	tree_remove(fresh);
	if (mkdir(fresh, 0755)) {
		snprintf(r->why, sizeof(r->why), "cannot make its folder: %s", strerror(errno));
		return false;
	}
	/* what the merge's build finds is that build's */
	crash_set_take(crashes, &before);
	if (strcmp(c->merge_build, c->build))
		records_run_line(crashes, c->merge_build, NULL);
	engine_merge(c, fresh, &cmd);
	io.out = log;
	pid = guard_spawn(cmd.v, &io);
	strv_free(&cmd);
	rc = pid < 0 ? 127 : guard_wait(pid);
	crash_count_new(crashes, &before, &found);
	records_name_lines(crashes, c->merge_build, &found);
	crash_set_free(&found);
	crash_set_free(&before);
	text = status_tail(log, 1 << 20, &len);
	if (text)
		said = merge_outer_count(text, len);
	free(text);
	if (rc != 0)
		snprintf(r->why, sizeof(r->why), "libFuzzer's merge ended with status %d", rc);
	else if (said < 0)
		snprintf(r->why, sizeof(r->why), "libFuzzer's merge did not say what it wrote");
	else if (said == 0)
		snprintf(r->why, sizeof(r->why), "the merge kept no input");
	r->ok = rc == 0 && said > 0 && checked(fresh, corpus, said, r) &&
		swap_in(c->work, fresh, corpus, r);
	if (r->ok)
		r->after = said;
	else
		tree_remove(fresh);
	return r->ok;
}
