/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz triage: replay every crash file in the sanitized driver and group
 * the files in buckets (crash_classify.h says how a run becomes a bucket). Prints a
 * table (bucket, count, smallest reproducer, failure line), or with --json
 * every bucket with all its files, or with --sarif a SARIF 2.1.0 log with
 * one result per bucket. Buckets are sorted by count, then name.
 */
#include "cmd.h"
#include "crash_input.h"
#include "crash_opts.h"
#include "tools/triage/crash_collect.h"
#include "tools/triage/crash_run.h"
#include "tools/triage/json.h"
#include "tools/triage/sarif.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct triaged {
	const struct crash_file *file;
	struct crash_result res;
	char run[PATH_MAX]; /* what the driver runs: the file, or its log's program */
	bool temp;	    /* @run is a temporary file */
};

struct bucket {
	const char *id;
	struct triaged **v; /* sorted by size, then path: v[0] is the smallest */
	size_t n, cap;
};

enum format { FMT_TABLE, FMT_JSON, FMT_SARIF };

static int cmp_triaged(const void *a, const void *b)
{
	const struct triaged *x = *(struct triaged *const *)a, *y = *(struct triaged *const *)b;

	if (x->file->size != y->file->size)
		return x->file->size < y->file->size ? -1 : 1;
	return strcmp(x->file->path, y->file->path);
}

static int cmp_buckets(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* Every bucket met so far, in the order met. */
struct buckets {
	struct bucket *v;
	size_t n, cap;
};

static struct bucket *bucket_of(struct buckets *bs, const char *id)
{
	for (size_t i = 0; i < bs->n; i++)
		if (!strcmp(bs->v[i].id, id))
			return &bs->v[i];
	if (bs->n == bs->cap) {
		bs->cap = bs->cap ? 2 * bs->cap : 16;
		bs->v = realloc(bs->v, bs->cap * sizeof(*bs->v));
		if (!bs->v)
			abort();
	}
	memset(&bs->v[bs->n], 0, sizeof(*bs->v));
	bs->v[bs->n].id = id;
	return &bs->v[bs->n++];
}

static void bucket_add(struct bucket *b, struct triaged *t)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 8;
		b->v = realloc(b->v, b->cap * sizeof(*b->v));
		if (!b->v)
			abort();
	}
	b->v[b->n++] = t;
}

static const char *level_of(const struct bucket *b)
{
	if (!strcmp(b->id, CRASH_BUCKET_NO_FAIL))
		return "note";
	if (!strcmp(b->id, CRASH_BUCKET_TIMEOUT))
		return "warning";
	return "error";
}

static void print_table(const struct bucket *bs, size_t nb, size_t nfiles)
{
	int wb = 6, ws = 19;
	char(*small)[PATH_MAX + 32] = calloc(nb ? nb : 1, sizeof(*small));

	if (!small)
		abort();
	for (size_t i = 0; i < nb; i++) {
		const struct triaged *s = bs[i].v[0];
		int n = snprintf(small[i], sizeof(small[i]), "%s (%zu bytes)", s->file->path,
				 s->file->size);

		if ((int)strlen(bs[i].id) > wb)
			wb = (int)strlen(bs[i].id);
		if (n > ws)
			ws = n;
	}
	printf("%-*s  %5s  %-*s  %s\n", wb, "bucket", "count", ws, "smallest reproducer",
	       "summary");
	for (size_t i = 0; i < nb; i++)
		printf("%-*s  %5zu  %-*s  %s\n", wb, bs[i].id, bs[i].n, ws, small[i],
		       bs[i].v[0]->res.summary);
	printf("%zu file%s in %zu bucket%s\n", nfiles, nfiles == 1 ? "" : "s", nb,
	       nb == 1 ? "" : "s");
	free(small);
}

static void json_frame(FILE *out, const struct crash_frame *f)
{
	fputs("{\"function\": ", out);
	json_string(out, f->func);
	fputs(", \"file\": ", out);
	json_string(out, f->file);
	fprintf(out, ", \"line\": %u}", f->line);
}

static void print_json(const struct bucket *bs, size_t nb)
{
	printf("[");
	for (size_t i = 0; i < nb; i++) {
		const struct triaged *s = bs[i].v[0];

		printf("%s\n  {\"bucket\": ", i ? "," : "");
		json_string(stdout, bs[i].id);
		printf(", \"count\": %zu, \"failing\": %s,\n   \"summary\": ", bs[i].n,
		       s->res.failed ? "true" : "false");
		json_string(stdout, s->res.summary);
		printf(",\n   \"target\": ");
		json_string(stdout, s->file->target->name);
		printf(", \"smallest\": ");
		json_string(stdout, s->file->path);
		printf(",\n   \"frames\": [");
		for (unsigned k = 0; k < s->res.nframes; k++) {
			printf("%s", k ? ", " : "");
			json_frame(stdout, &s->res.frames[k]);
		}
		printf("],\n   \"files\": [");
		for (size_t k = 0; k < bs[i].n; k++) {
			printf("%s\n     {\"path\": ", k ? "," : "");
			json_string(stdout, bs[i].v[k]->file->path);
			printf(", \"size\": %zu}", bs[i].v[k]->file->size);
		}
		printf("]}");
	}
	printf("%s]\n", nb ? "\n" : "");
}

static void print_sarif(const struct bucket *bs, size_t nb, const char *category)
{
	struct sarif_result *r = calloc(nb ? nb : 1, sizeof(*r));

	if (!r)
		abort();
	for (size_t i = 0; i < nb; i++) {
		const struct triaged *s = bs[i].v[0];
		const char **paths = calloc(bs[i].n, sizeof(*paths));

		if (!paths)
			abort();
		for (size_t k = 0; k < bs[i].n; k++)
			paths[k] = bs[i].v[k]->file->path;
		r[i] = (struct sarif_result){bs[i].id,	   s->res.summary, level_of(&bs[i]),
					     &s->res.site, paths,	   bs[i].n};
	}
	sarif_print(stdout, category ? category : "vmafuzz-triage", r, nb);
	for (size_t i = 0; i < nb; i++)
		free((void *)r[i].paths);
	free(r);
}

struct triage_args {
	struct crash_opts o;
	enum format fmt;
	bool verbose;
	const char *category; /* --category: the SARIF run's automation id */
	char **paths;	      /* argc of them at most */
	int npaths;
};

/* --json or --sarif at @opt; false after a usage error. */
static bool take_format(const char *opt, enum format *fmt)
{
	enum format f = opt[2] == 'j' ? FMT_JSON : FMT_SARIF;

	if (*fmt != FMT_TABLE && *fmt != f) {
		cmd_usage_error("triage", "%s", "--json and --sarif exclude each other");
		return false;
	}
	*fmt = f;
	return true;
}

/* False after a usage error. */
static bool parse_args(int argc, char **argv, struct triage_args *a)
{
	for (int i = 1; i < argc; i++) {
		int k = crash_opt("triage", argc, argv, &i, &a->o);

		if (k < 0)
			return false;
		if (k)
			continue;
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--sarif")) {
			if (!take_format(argv[i], &a->fmt))
				return false;
		} else if (!strcmp(argv[i], "-v")) {
			a->verbose = true;
		} else if (!strcmp(argv[i], "--category")) {
			if (++i >= argc || !argv[i][0] || strpbrk(argv[i], "/ \"")) {
				cmd_usage_error(
				    "triage", "%s",
				    "--category needs a name without '/', space or quote");
				return false;
			}
			a->category = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			cmd_usage_error("triage", "unknown option '%s'", argv[i]);
			return false;
		} else {
			a->paths[a->npaths++] = argv[i];
		}
	}
	if (!a->npaths) {
		cmd_usage_error("triage", "%s", "needs crash files or directories");
		return false;
	}
	if (a->category && a->fmt != FMT_SARIF) {
		cmd_usage_error("triage", "%s", "--category is for --sarif");
		return false;
	}
	return true;
}

/* Run every file that holds a program into @tr and its bucket, the others
 * named on stderr (*@refused counts them); false when a driver cannot run. */
static bool run_files(const struct triage_args *a, const struct crash_file *files, size_t n,
		      struct triaged *tr, struct buckets *bs, size_t *refused)
{
	*refused = 0;
	for (size_t i = 0; i < n; i++) {
		char driver[PATH_MAX];

		if (!crash_input_runnable("triage", files[i].target, files[i].path, tr[i].run,
					  sizeof(tr[i].run), &tr[i].temp)) {
			++*refused;
			continue;
		}
		if (!crash_driver("triage", &a->o, files[i].target, files[i].path, driver,
				  sizeof(driver)) ||
		    !crash_run(driver, tr[i].run, a->o.timeout, &tr[i].res, NULL))
			return false;
		tr[i].file = &files[i];
		if (a->verbose)
			fprintf(stderr, "triage: [%zu/%zu] %s: %s\n", i + 1, n, files[i].path,
				tr[i].res.bucket);
		bucket_add(bucket_of(bs, tr[i].res.bucket), &tr[i]);
	}
	return true;
}

/* Each bucket's files smallest first, the buckets largest first. Beyond
 * the table, the frames of where an invariant failed are wanted: one more
 * run of each bucket's smallest file. */
static void sort_buckets(const struct triage_args *a, struct buckets *bs)
{
	for (size_t i = 0; i < bs->n; i++) {
		qsort(bs->v[i].v, bs->v[i].n, sizeof(*bs->v[i].v), cmp_triaged);
		if (a->fmt != FMT_TABLE) {
			struct triaged *s = bs->v[i].v[0];
			char driver[PATH_MAX];

			if (crash_driver("triage", &a->o, s->file->target, s->file->path, driver,
					 sizeof(driver)))
				crash_locate(driver, s->run, a->o.timeout, &s->res);
		}
	}
	if (bs->n)
		qsort(bs->v, bs->n, sizeof(*bs->v), cmp_buckets);
}

static void print_buckets(const struct triage_args *a, const struct buckets *bs, size_t nfiles)
{
	switch (a->fmt) {
	case FMT_TABLE:
		print_table(bs->v, bs->n, nfiles);
		break;
	case FMT_JSON:
		print_json(bs->v, bs->n);
		break;
	case FMT_SARIF:
		print_sarif(bs->v, bs->n, a->category);
		break;
	}
}

int cmd_triage(int argc, char **argv)
{
	struct triage_args a = {.o = {NULL, NULL, CRASH_DEFAULT_TIMEOUT}, .fmt = FMT_TABLE};
	struct crash_file *files = NULL;
	struct buckets bs = {NULL, 0, 0};
	struct triaged *tr = NULL;
	size_t nfiles = 0, refused = 0;
	int rc = 2;

	a.paths = calloc((size_t)argc, sizeof(*a.paths));
	if (!a.paths)
		abort();
	if (!parse_args(argc, argv, &a) ||
	    crash_collect("triage", a.npaths, a.paths, a.o.target, &files, &nfiles))
		goto out;
	tr = calloc(nfiles ? nfiles : 1, sizeof(*tr));
	if (!tr)
		abort();
	if (!run_files(&a, files, nfiles, tr, &bs, &refused))
		goto out;
	sort_buckets(&a, &bs);
	print_buckets(&a, &bs, nfiles - refused);
	rc = 0;
	if (refused) {
		fprintf(stderr, "vmafuzz triage: %zu file%s of %zu hold%s no program it can run\n",
			refused, refused == 1 ? "" : "s", nfiles, refused == 1 ? "s" : "");
		rc = 2;
	}
out:
	for (size_t i = 0; tr && i < nfiles; i++)
		if (tr[i].temp)
			unlink(tr[i].run);
	for (size_t i = 0; i < bs.n; i++)
		free(bs.v[i].v);
	free(bs.v);
	free(tr);
	crash_files_free(files, nfiles);
	free(a.paths);
	return rc;
}
