/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz regress: store a crash (best minimized first) as a text program
 * in corpus/regress/<target>/<bucket-slug>-<hash>.txt, headed by comments
 * naming its bucket, the date and its cause. The build compiles these files
 * and './build.sh test' replays them, so each must pass once its bug is
 * fixed (triage reports such a file as "no longer fails").
 */
#include "cmd.h"
#include "crash_input.h"
#include "crash_opts.h"
#include "file_util.h"
#include "tools/triage/crash_name.h"
#include "tools/triage/crash_run.h"
#include "tools/triage/crash_target.h"
#include "tools/triage/crash_machine.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool make_dir(const char *path)
{
	if (!mkdir(path, 0777) || errno == EEXIST)
		return true;
	fprintf(stderr, "vmafuzz regress: cannot create %s: %s\n", path, strerror(errno));
	return false;
}

struct regress_args {
	struct crash_opts o;
	const char *in, *why, *root;
};

/* 0, or the exit status after a usage error. */
static int parse_args(int argc, char **argv, struct regress_args *a)
{
	for (int i = 1; i < argc; i++) {
		int k = crash_opt("regress", argc, argv, &i, &a->o);

		if (k < 0)
			return 2;
		if (k)
			continue;
		if (!strcmp(argv[i], "--why") || !strcmp(argv[i], "--root")) {
			if (i + 1 >= argc)
				return cmd_usage_error("regress", "%s needs an argument", argv[i]);
			if (argv[i][2] == 'w')
				a->why = argv[++i];
			else
				a->root = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cmd_usage_error("regress", "unknown option '%s'", argv[i]);
		} else if (a->in) {
			return cmd_usage_error("regress", "takes one file, got also '%s'", argv[i]);
		} else {
			a->in = argv[i];
		}
	}
	return a->in ? 0 : cmd_usage_error("regress", "%s", "needs a crash file");
}

/* The source tree into @root: --root, else source_root(); 0 or the exit status. */
static int choose_root(const char *root_opt, char *root, size_t len)
{
	if (root_opt) {
		char corpus[PATH_MAX];

		if (snprintf(corpus, sizeof(corpus), "%s/corpus", root_opt) >=
			(int)sizeof(corpus) ||
		    !path_is_dir(corpus))
			return cmd_usage_error("regress", "--root %s: no corpus/ directory there",
					       root_opt);
		snprintf(root, len, "%s", root_opt);
		return 0;
	}
	if (source_root(root, len))
		return 0;
	fprintf(stderr, "vmafuzz regress: cannot find the source tree (a directory with "
			"corpus/); use --root\n");
	return 2;
}

/* The program of @in, as it will be stored, into *@p and run as triage runs
 * it; its canonical bytes into *@bin (caller frees) and *@size. 0 when it
 * fails (bucket in @r), else the exit status. */
static int run_stored_form(const struct fuzz_target *t, const char *in, const char *driver,
			   unsigned timeout, struct prog *p, uint8_t **bin, size_t *size,
			   struct crash_result *r)
{
	uint8_t *data = crash_input_load("regress", t, in, size, NULL);
	char tmp[PATH_MAX];
	bool ran;

	if (!data)
		return 2;
	prog_decode(t->desc, data, *size, p);
	free(data);
	*bin = malloc(prog_encoded_size(p));
	if (!*bin)
		abort();
	*size = prog_encode(p, *bin);
	if (!crash_write_temp(*bin, *size, tmp, sizeof(tmp)))
		return 2;
	ran = crash_run(driver, tmp, timeout, r, NULL);
	unlink(tmp);
	if (!ran)
		return 2;
	if (!r->failed) {
		fprintf(stderr,
			"vmafuzz regress: %s does not fail with %s; store a crash while it still "
			"fails (--replay DIR selects the build that has the bug)\n",
			in, driver);
		return 1;
	}
	return 0;
}

/* <root>/corpus/regress/<target>/<slug>-<hash>.txt into @path, creating the
 * directories; false after a message. */
static bool entry_path(const char *root, const struct fuzz_target *t, const char *bucket,
		       const uint8_t *bin, size_t size, char *path, size_t len)
{
	char slug[64];

	crash_slug(bucket, slug, sizeof(slug));
	snprintf(path, len, "%s/corpus/regress", root);
	if (!make_dir(path))
		return false;
	snprintf(path, len, "%s/corpus/regress/%s", root, t->name);
	if (!make_dir(path))
		return false;
	snprintf(path, len, "%s/corpus/regress/%s/%s-%08x.txt", root, t->name, slug,
		 (unsigned)crash_hash32(bin, size));
	return true;
}

/* The entry: bucket, date and cause as comments, then the program. */
static int write_entry(const char *path, const struct crash_result *r, const char *why,
		       const struct crash_machine *machine, const struct fuzz_target *t,
		       const struct prog *p)
{
	char cause[512], date[16], *text = NULL;
	time_t now = time(NULL);
	size_t len = 0;
	FILE *f;
	bool ok;

	snprintf(cause, sizeof(cause), "%s", why ? why : r->summary);
	for (char *c = cause; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	fprintf(f, "# bucket: %s\n# date: %s\n# cause: %s\n", r->bucket, date, cause);
	crash_machine_print(f, machine);
	prog_print(f, t->desc, p, -1);
	fclose(f);
	/* whole or not at all (its message names the file) */
	ok = file_write_atomic(path, text, len);
	free(text);
	if (!ok)
		return 2;
	printf("%s\n", path);
	return 0;
}

int cmd_regress(int argc, char **argv)
{
	struct regress_args a = {{NULL, NULL, CRASH_DEFAULT_TIMEOUT}, NULL, NULL, NULL};
	char driver[PATH_MAX], root[PATH_MAX], path[PATH_MAX + 128];
	static struct prog p; /* large */
	const struct fuzz_target *t;
	struct crash_result r;
	static struct crash_machine machine;
	uint8_t *bin = NULL;
	size_t size;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	t = a.o.target ? a.o.target : cmd_file_target("regress", a.in);
	if (!t)
		return 2;
	rc = choose_root(a.root, root, sizeof(root));
	if (rc || !crash_driver("regress", &a.o, t, a.in, driver, sizeof(driver)))
		return rc ? rc : 2;
	/* a guest crash's settings, for the run of its stored form and in it */
	if (crash_machine_read(a.in, &machine))
		crash_machine_export(&machine);
	rc = run_stored_form(t, a.in, driver, a.o.timeout, &p, &bin, &size, &r);
	if (!rc && !entry_path(root, t, r.bucket, bin, size, path, sizeof(path)))
		rc = 2;
	free(bin);
	if (rc)
		return rc;
	if (!access(path, F_OK)) {
		fprintf(stderr, "vmafuzz regress: already stored\n");
		printf("%s\n", path);
		return 0;
	}
	return write_entry(path, &r, a.why, &machine, t, &p);
}
