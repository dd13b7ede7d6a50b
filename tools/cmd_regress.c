/*
 * vmafuzz regress: store a crash (best minimized first) as a text program
 * in corpus/regress/<target>/<bucket-slug>-<hash>.txt, headed by comments
 * naming its bucket, the date and its cause. The build compiles these files
 * and './build.sh test' replays them, so each must pass once its bug is
 * fixed (triage reports such a file as "no longer fails").
 */
#include "cmd.h"
#include "crash.h"
#include "replay.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool has_corpus(const char *root)
{
	char path[PATH_MAX];
	struct stat st;

	return (size_t)snprintf(path, sizeof(path), "%s/corpus", root) < sizeof(path) &&
	       !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The source tree: the current directory, else the one above the directory
 * of this binary (out/vmafuzz -> .). */
static bool find_root(char *buf, size_t len)
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

static bool make_dir(const char *path)
{
	if (!mkdir(path, 0777) || errno == EEXIST)
		return true;
	fprintf(stderr, "vmafuzz regress: cannot create %s: %s\n", path, strerror(errno));
	return false;
}

int cmd_regress(int argc, char **argv)
{
	struct crash_opts o = {NULL, NULL, CRASH_DEFAULT_TIMEOUT};
	const char *in = NULL, *why = NULL, *root_opt = NULL;
	char driver[PATH_MAX], root[PATH_MAX], path[PATH_MAX + 128], tmp[PATH_MAX], slug[64];
	char cause[512], date[16];
	static struct prog p;
	struct crash_result r;
	const struct fuzz_target *t;
	uint8_t *data, *bin;
	size_t size;
	time_t now;
	FILE *f;
	bool ran;

	for (int i = 1; i < argc; i++) {
		int k = crash_opt("regress", argc, argv, &i, &o);

		if (k < 0)
			return 2;
		if (k)
			continue;
		if (!strcmp(argv[i], "--why") || !strcmp(argv[i], "--root")) {
			if (i + 1 >= argc)
				return cmd_usage_error("regress", "%s needs an argument", argv[i]);
			if (argv[i][2] == 'w')
				why = argv[++i];
			else
				root_opt = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cmd_usage_error("regress", "unknown option '%s'", argv[i]);
		} else if (in) {
			return cmd_usage_error("regress", "takes one file, got also '%s'", argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in)
		return cmd_usage_error("regress", "%s", "needs a crash file");
	t = o.target ? o.target : crash_target_of(in);
	if (!t) {
		fprintf(stderr,
			"vmafuzz regress: cannot tell which target %s is for; "
			"use --target (see 'vmafuzz list')\n",
			in);
		return 2;
	}
	if (root_opt) {
		if (!has_corpus(root_opt))
			return cmd_usage_error("regress", "--root %s: no corpus/ directory there",
					       root_opt);
		snprintf(root, sizeof(root), "%s", root_opt);
	} else if (!find_root(root, sizeof(root))) {
		fprintf(stderr, "vmafuzz regress: cannot find the source tree (a directory with "
				"corpus/); use --root\n");
		return 2;
	}
	if (!crash_driver("regress", &o, t, driver, sizeof(driver)))
		return 2;

	/* the program as it will be stored, run as triage runs it */
	data = load_input(t, in, &size, stderr);
	if (!data)
		return 2;
	prog_decode(t->desc, data, size, &p);
	free(data);
	bin = malloc(prog_encoded_size(&p));
	if (!bin)
		abort();
	size = prog_encode(&p, bin);
	if (!crash_write_temp(bin, size, tmp, sizeof(tmp))) {
		free(bin);
		return 2;
	}
	ran = crash_run(driver, tmp, o.timeout, &r, NULL);
	unlink(tmp);
	if (!ran) {
		free(bin);
		return 2;
	}
	if (!r.failed) {
		fprintf(stderr,
			"vmafuzz regress: %s does not fail with %s; store a crash while it still "
			"fails (--replay DIR selects the build that has the bug)\n",
			in, driver);
		free(bin);
		return 1;
	}

	crash_slug(r.bucket, slug, sizeof(slug));
	snprintf(path, sizeof(path), "%s/corpus/regress", root);
	if (!make_dir(path)) {
		free(bin);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/corpus/regress/%s", root, t->name);
	if (!make_dir(path)) {
		free(bin);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/corpus/regress/%s/%s-%08x.txt", root, t->name, slug,
		 (unsigned)crash_hash32(bin, size));
	free(bin);
	if (!access(path, F_OK)) {
		fprintf(stderr, "vmafuzz regress: already stored\n");
		printf("%s\n", path);
		return 0;
	}

	snprintf(cause, sizeof(cause), "%s", why ? why : r.summary);
	for (char *c = cause; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	now = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));

	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "vmafuzz regress: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	fprintf(f, "# bucket: %s\n# date: %s\n# cause: %s\n", r.bucket, date, cause);
	prog_print(f, t->desc, &p, -1);
	if (fclose(f)) {
		fprintf(stderr, "vmafuzz regress: cannot write %s: %s\n", path, strerror(errno));
		unlink(path);
		return 2;
	}
	printf("%s\n", path);
	return 0;
}
