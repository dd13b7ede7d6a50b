/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz corpus merge|min [--afl] [--tmin] [--build DIR] TARGET DIR [MORE...]
 *
 *   merge  adds to DIR the inputs of MORE... that add coverage (libFuzzer
 *          -merge=1 DIR MORE...); DIR keeps what it had.
 *   min    replaces DIR by the smallest set of inputs, from DIR and MORE...,
 *          that covers what they all cover: libFuzzer -merge=1 into a fresh
 *          folder, or with --afl afl-cmin (AFL++'s map), then with --tmin
 *          each input shrunk by afl-tmin. DIR is replaced only when that
 *          worked and left something.
 *
 * The engine build is the target's beside this binary (libfuzzer/, afl/,
 * kernel/libfuzzer/, kernel/afl/) or DIR/TARGET with --build. An input that
 * crashes while the corpus is merged is saved in the folder `crashes/`
 * beside DIR, named in its .builds (crash_build.h): a crash found is never
 * lost. The engine's output goes to DIR's sibling `corpus-<command>.log`.
 */
#include "cmd.h"
#include "file_util.h"
#include "tools/campaign/records.h"
#include "tools/triage/crash_target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_DIRS 64

/* snprintf into a path buffer: false when it did not fit. */
#define PATHF(buf, len, ...) fits(snprintf(buf, len, __VA_ARGS__), len)

static bool fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len;
}

struct corpus_args {
	bool merge, afl, tmin;
	const char *build; /* NULL: beside this binary */
	const struct fuzz_target *t;
	const char *dirs[MAX_DIRS];
	int ndirs;
};

/* Files of @dir that are inputs (no dotfiles, no AFL++ README.txt). */
static long count_inputs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "README.txt"))
			n++;
	closedir(d);
	return n;
}

/* The names in @dir, sorted into a newline-separated string (to diff). */
static char *names_of(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len = 0, cap = 256;
	char *s = malloc(cap);

	if (!s)
		abort();
	s[0] = 0;
	if (!d)
		return s;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		while (len + n + 2 > cap) {
			cap *= 2;
			s = realloc(s, cap);
			if (!s)
				abort();
		}
		memcpy(s + len, e->d_name, n);
		len += n;
		s[len++] = '\n';
		s[len] = 0;
	}
	closedir(d);
	return s;
}

static bool name_in(const char *names, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = names; (p = strstr(p, name)); p += n)
		if ((p == names || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* Name @build in @dir/.builds for every file of @dir not in @before
 * (.builds rewritten whole: records_append). */
static void record_new(const char *dir, const char *before, const char *build)
{
	char *after = names_of(dir), *line, *save = NULL, *lines = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&lines, &len);

	if (!f)
		abort();
	for (line = strtok_r(after, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!name_in(before, line))
			fprintf(f, "%s %s\n", line, build);
	fclose(f);
	if (len)
		records_append(dir, lines);
	free(lines);
	free(after);
}

/* Run @argv with stdout and stderr appended to @log; its exit status, or
 * -1 (with a message) when it could not run or died of a signal. */
static int run_logged(char *const argv[], const char *log)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "vmafuzz corpus: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 127)
		return WEXITSTATUS(st);
	fprintf(stderr, "vmafuzz corpus: %s %s (see %s)\n", argv[0],
		WIFEXITED(st) ? "could not be run" : "died of a signal", log);
	return -1;
}

/* The engine binary of the target: --build DIR, else the one beside this
 * binary, the model's or the kernel's. */
static bool engine_binary(const struct corpus_args *a, char *buf, size_t len)
{
	const char *flavor = a->afl ? "afl" : "libfuzzer";
	char exe[PATH_MAX];

	if (a->build)
		return PATHF(buf, len, "%s/%s", a->build, a->t->name) && access(buf, X_OK) == 0;
	if (!tool_dir(exe, sizeof(exe)))
		return false;
	if (PATHF(buf, len, "%s/%s/%s", exe, flavor, a->t->name) && access(buf, X_OK) == 0)
		return true;
	return PATHF(buf, len, "%s/kernel/%s/%s", exe, flavor, a->t->name) &&
	       access(buf, X_OK) == 0;
}

/* The build name for .builds: kernel/… for a kernel target's binary. */
static const char *build_name(const struct corpus_args *a, const char *bin)
{
	if (a->build)
		return a->afl ? "afl" : "libfuzzer"; /* a guess: the flavor */
	if (strstr(bin, "/kernel/"))
		return a->afl ? "kernel/afl" : "kernel/libfuzzer";
	return a->afl ? "afl" : "libfuzzer";
}

/* @path's parent folder, with @leaf appended, into @buf; false when too long. */
static bool sibling(const char *path, const char *leaf, char *buf, size_t len)
{
	char copy[PATH_MAX];
	size_t n;

	if (!PATHF(copy, sizeof(copy), "%s", path))
		return false;
	n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = 0;
	return PATHF(buf, len, "%s/%s", dirname(copy), leaf);
}

static int parse_args(int argc, char **argv, struct corpus_args *a)
{
	int i = 1;

	memset(a, 0, sizeof(*a));
	if (argc < 2)
		return cmd_usage_error("corpus", "%s", "needs merge or min");
	if (!strcmp(argv[1], "merge"))
		a->merge = true;
	else if (strcmp(argv[1], "min"))
		return cmd_usage_error("corpus", "unknown subcommand '%s' (merge or min)", argv[1]);
	for (i = 2; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--afl")) {
			a->afl = true;
		} else if (!strcmp(argv[i], "--tmin")) {
			a->tmin = true;
		} else if (!strcmp(argv[i], "--build")) {
			if (++i >= argc)
				return cmd_usage_error("corpus", "%s", "--build needs a directory");
			if (!path_is_dir(argv[i]))
				return cmd_usage_error("corpus", "--build %s: not a directory",
						       argv[i]);
			a->build = argv[i];
		} else {
			return cmd_usage_error("corpus", "unknown option '%s'", argv[i]);
		}
	}
	if (a->merge && (a->afl || a->tmin))
		return cmd_usage_error("corpus", "%s",
				       "--afl and --tmin are for min (merge is libFuzzer's)");
	if (a->tmin && !a->afl)
		return cmd_usage_error("corpus", "%s", "--tmin needs --afl (afl-tmin)");
	if (argc - i < 2)
		return cmd_usage_error("corpus", "%s", "needs a target and a directory");
	a->t = cmd_target("corpus", argv[i++]);
	if (!a->t)
		return 2;
	for (; i < argc; i++) {
		if (!path_is_dir(argv[i]))
			return cmd_usage_error("corpus", "%s: not a directory", argv[i]);
		if (a->ndirs == MAX_DIRS)
			return cmd_usage_error("corpus", "%s", "too many directories");
		a->dirs[a->ndirs++] = argv[i];
	}
	if (a->merge && a->ndirs < 2)
		return cmd_usage_error(
		    "corpus", "%s", "merge needs a directory to merge into and one to merge from");
	return 0;
}

/* Move @from's files into @into (afl-cmin takes one input folder). */
static bool gather(const struct corpus_args *a, const char *into, const char *log)
{
	for (int i = 0; i < a->ndirs; i++) {
		char *argv[] = {"sh",
				"-c",
				"cp -n -- \"$0\"/* \"$1\"/ 2>/dev/null; exit 0",
				(char *)a->dirs[i],
				(char *)into,
				NULL};

		if (run_logged(argv, log) != 0)
			return false;
	}
	return true;
}

/* afl-tmin on each file of @dir, in place. */
static bool tmin_all(const char *bin, const char *dir, const char *log)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool ok = true;

	if (!d)
		return false;
	while (ok && (e = readdir(d))) {
		char in[PATH_MAX], out[PATH_MAX + 8];

		if (e->d_name[0] == '.')
			continue;
		if (!PATHF(in, sizeof(in), "%s/%s", dir, e->d_name) ||
		    !PATHF(out, sizeof(out), "%s.tmin", in)) {
			ok = false;
			break;
		}
		char *argv[] = {"afl-tmin", "-i", in, "-o", out, "--", (char *)bin, NULL};

		if (run_logged(argv, log) == 0)
			ok = rename(out, in) == 0;
		else
			unlink(out); /* that input stays as it was */
	}
	closedir(d);
	return ok;
}

/* Whether afl-cmin would refuse @path: it refuses any path (its input,
 * output, target and working folders) whose name starts /tmp or /var/tmp. */
static bool under_tmp(const char *path)
{
	char real[PATH_MAX];
	const char *p = realpath(path, real) ? real : path;

	return !strncmp(p, "/tmp", 4) || !strncmp(p, "/var/tmp", 8);
}

int cmd_corpus(int argc, char **argv)
{
	struct corpus_args a;
	char bin[PATH_MAX], crashes[PATH_MAX], log[PATH_MAX], fresh[PATH_MAX], old[PATH_MAX];
	char artifact[PATH_MAX + 2], *before;
	long had = 0, now;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	if (!engine_binary(&a, bin, sizeof(bin))) {
		fprintf(stderr, "vmafuzz corpus: no %s build of %s at %s (build it: %s)\n",
			a.afl ? "AFL++" : "libFuzzer", a.t->name, bin,
			a.build ? "check --build"
			: a.afl ? "./build.sh fuzz --afl builds it, or make afl"
				: "./build.sh, or ./build.sh kernel for a kernel target");
		return 2;
	}
	if (a.afl) {
		const char *where = under_tmp(bin) ? bin : under_tmp(a.dirs[0]) ? a.dirs[0] : NULL;

		if (where) {
			fprintf(
			    stderr,
			    "vmafuzz corpus min: afl-cmin refuses to work under /tmp or /var/tmp, "
			    "and %s is there: use a folder and a checkout elsewhere, or min "
			    "without "
			    "--afl\n",
			    where);
			return 2;
		}
	}
	for (int i = 0; i < a.ndirs; i++)
		had += count_inputs(a.dirs[i]);
	if (!sibling(a.dirs[0], "crashes", crashes, sizeof(crashes)) ||
	    !sibling(a.dirs[0], a.merge ? "corpus-merge.log" : "corpus-min.log", log,
		     sizeof(log)) ||
	    !PATHF(artifact, sizeof(artifact), "-artifact_prefix=%s/", crashes) ||
	    !PATHF(fresh, sizeof(fresh), "%s.min-%d", a.dirs[0], (int)getpid()) ||
	    !PATHF(old, sizeof(old), "%s.old-%d", a.dirs[0], (int)getpid())) {
		fprintf(stderr, "vmafuzz corpus: %s: path too long\n", a.dirs[0]);
		return 2;
	}
	mkdir(crashes, 0755);
	before = names_of(crashes);

	if (a.merge) {
		long into = count_inputs(a.dirs[0]);
		char *av[MAX_DIRS + 4];
		int n = 0;

		av[n++] = bin;
		av[n++] = "-merge=1";
		av[n++] = artifact;
		for (int i = 0; i < a.ndirs; i++)
			av[n++] = (char *)a.dirs[i];
		av[n] = NULL;
		rc = run_logged(av, log);
		record_new(crashes, before, build_name(&a, bin));
		free(before);
		if (rc != 0) {
			fprintf(stderr, "vmafuzz corpus merge: libFuzzer's merge failed (see %s)\n",
				log);
			return 1;
		}
		now = count_inputs(a.dirs[0]);
		printf("corpus merge %s: %s had %ld inputs, has %ld (%ld added from %ld)\n",
		       a.t->name, a.dirs[0], into, now, now - into, had - into);
		return 0;
	}

	/* min: a fresh folder beside the first, which then replaces it */
	if (mkdir(fresh, 0755)) {
		fprintf(stderr, "vmafuzz corpus min: cannot make %s: %s\n", fresh, strerror(errno));
		free(before);
		return 2;
	}
	if (a.afl) {
		char all[PATH_MAX + 8];
		char *av[] = {"afl-cmin", "-i", all, "-o", fresh, "--", bin, NULL};

		rc = !PATHF(all, sizeof(all), "%s.all-%d", a.dirs[0], (int)getpid()) ||
			     mkdir(all, 0755) || !gather(&a, all, log)
			 ? -1
			 : run_logged(av, log);
		{
			char *rm[] = {"rm", "-rf", all, NULL};

			run_logged(rm, log);
		}
		if (rc == 0 && a.tmin && !tmin_all(bin, fresh, log))
			rc = -1;
	} else {
		char *av[MAX_DIRS + 5];
		int n = 0;

		av[n++] = bin;
		av[n++] = "-merge=1";
		av[n++] = artifact;
		av[n++] = fresh;
		for (int i = 0; i < a.ndirs; i++)
			av[n++] = (char *)a.dirs[i];
		av[n] = NULL;
		rc = run_logged(av, log);
	}
	record_new(crashes, before, build_name(&a, bin));
	free(before);
	now = count_inputs(fresh);
	if (rc != 0 || (now <= 0 && had > 0)) {
		char *rm[] = {"rm", "-rf", fresh, NULL};

		run_logged(rm, log);
		fprintf(stderr, "vmafuzz corpus min: %s failed; %s kept as it was (see %s)\n",
			a.afl ? "afl-cmin" : "libFuzzer's merge", a.dirs[0], log);
		return 1;
	}
	if (rename(a.dirs[0], old) || rename(fresh, a.dirs[0])) {
		fprintf(stderr,
			"vmafuzz corpus min: cannot replace %s: %s (the new set is in %s)\n",
			a.dirs[0], strerror(errno), fresh);
		return 2;
	}
	{
		char *rm[] = {"rm", "-rf", old, NULL};

		run_logged(rm, log);
	}
	printf("corpus min %s: %ld inputs -> %ld in %s (%s%s)\n", a.t->name, had, now, a.dirs[0],
	       a.afl ? "afl-cmin" : "libFuzzer -merge=1", a.tmin ? ", afl-tmin on each" : "");
	return 0;
}
