/*
 * Crash files and their buckets (crash.h): finding crash files in engine
 * output folders, replaying one in the sanitized driver as a subprocess with
 * a timeout, and bucketing it by what its stderr says.
 */
#include "crash.h"

#include "cmd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- targets and drivers ------------------------------------------------ */

const struct fuzz_target *target_from_path(const char *path)
{
	for (unsigned i = 0; fuzz_targets[i]; i++) {
		const char *name = fuzz_targets[i]->name, *s = path;
		size_t n = strlen(name);

		while ((s = strstr(s, name))) {
			bool start = s == path || s[-1] == '/';
			bool end = s[n] == '/' || s[n] == 0 || s[n] == '.' || s[n] == '-';

			if (start && end)
				return fuzz_targets[i];
			s += n;
		}
	}
	return NULL;
}

const struct fuzz_target *crash_target_of(const char *path)
{
	size_t n = strlen(path);

	if (n > 4 && !strcmp(path + n - 4, ".txt")) {
		FILE *f = fopen(path, "r");
		char text[4096], name[64];
		size_t got;

		if (f) {
			got = fread(text, 1, sizeof(text) - 1, f);
			fclose(f);
			text[got] = 0;
			if (prog_text_target(text, name, sizeof(name)))
				return fuzz_target_find(name);
		}
	}
	return target_from_path(path);
}

bool replay_driver(const char *dir, const char *target, char *buf, size_t len)
{
	char self[PATH_MAX];
	int n;

	if (dir) {
		n = snprintf(buf, len, "%s/%s", dir, target);
	} else {
		ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (k <= 0) {
			snprintf(buf, len, "replay/%s", target);
			return false;
		}
		self[k] = 0;
		n = snprintf(buf, len, "%s/replay/%s", dirname(self), target);
	}
	if (n < 0 || (size_t)n >= len)
		return false;
	return access(buf, X_OK) == 0;
}

/* ---- bucketing ---------------------------------------------------------- */

static void copy_trunc(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

/* The summary: one line, whitespace collapsed, "==PID==" and "ERROR: "
 * dropped, at most 160 characters. */
static void set_summary(struct crash_result *r, const char *line)
{
	const size_t max = 160;
	const char *stop, *p;
	bool space = false;
	size_t n = 0;

	if (line[0] == '=' && line[1] == '=' && (p = strstr(line + 2, "==")))
		line = p + 2;
	if (!strncmp(line, "ERROR: ", 7))
		line += 7;
	stop = line + strcspn(line, "\n");
	/* AddressSanitizer: ... on address 0x... at pc 0x... bp ... sp ... */
	if (strstr(line, "Sanitizer: ") && (p = strstr(line, " at pc ")) && p < stop)
		stop = p;
	while (line < stop && isspace((unsigned char)*line))
		line++;
	for (; line < stop && n < max; line++) {
		if (isspace((unsigned char)*line)) {
			space = true;
			continue;
		}
		if (space && n + 1 < max)
			r->summary[n++] = ' ';
		space = false;
		r->summary[n++] = *line;
	}
	if (line < stop && n >= 3)
		memcpy(r->summary + n - 3, "...", 3);
	r->summary[n] = 0;
}

/* The source tree component holding a file: "src" for /a/b/src/mm/x.c,
 * "fuzz" for /a/b/fuzz/x.c. The path from that component on goes to *rel.
 * The model's files are src/x.c or src/<subsystem>/..., so a checkout under
 * some other folder called src is not mistaken for the model. */
static bool in_dir(const char *file, const char *dir, const char **rel)
{
	size_t n = strlen(dir);
	const char *best = NULL;

	for (const char *c = file; (c = strstr(c, dir)); c++) {
		const char *after = c + n, *next;

		if ((c != file && c[-1] != '/') || *after != '/')
			continue;
		next = strchr(after + 1, '/');
		if (strcmp(dir, "src") || !next || !strncmp(after, "/runtime/", 9) ||
		    !strncmp(after, "/tree/", 6) || !strncmp(after, "/mm/", 4))
			best = c;
	}
	if (!best)
		return false;
	if (rel)
		*rel = best;
	return true;
}

/* "  #3 0x4f5d3a in func /path/src/x.c:12:5" -> func, file, line. */
static bool parse_frame(const char *line, struct crash_frame *f)
{
	const char *s = line, *in, *fn, *loc, *e;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '#' || !isdigit((unsigned char)s[1]))
		return false;
	in = strstr(s, " in ");
	memset(f, 0, sizeof(*f));
	if (!in)
		return true; /* a frame without a name */
	fn = in + 4;
	e = fn + strcspn(fn, " \n");
	copy_trunc(f->func, sizeof(f->func), fn, (size_t)(e - fn));
	loc = e;
	while (*loc == ' ')
		loc++;
	if (*loc == '(' || !*loc || *loc == '\n')
		return true; /* module+offset only */
	e = loc + strcspn(loc, " \n");
	/* file:line[:col]: the first ':' after the last '/' followed by a digit */
	{
		const char *slash = NULL, *colon = NULL;

		for (const char *p = loc; p < e; p++)
			if (*p == '/')
				slash = p;
		for (const char *p = slash ? slash : loc; p < e; p++)
			if (*p == ':' && isdigit((unsigned char)p[1])) {
				colon = p;
				break;
			}
		if (!colon) {
			copy_trunc(f->file, sizeof(f->file), loc, (size_t)(e - loc));
			return true;
		}
		copy_trunc(f->file, sizeof(f->file), loc, (size_t)(colon - loc));
		f->line = (unsigned)strtoul(colon + 1, NULL, 10);
	}
	return true;
}

static const char *next_line(const char *s, char *line, size_t len)
{
	const char *e;

	if (!*s)
		return NULL;
	e = strchr(s, '\n');
	if (!e)
		e = s + strlen(s);
	copy_trunc(line, len, s, (size_t)(e - s));
	return *e ? e + 1 : e;
}

/* Up to CRASH_FRAMES frames of the first stack after @from, in the model
 * (src/), else in the harness (fuzz/). */
static void pick_frames(const char *from, struct crash_result *r)
{
	struct crash_frame model[CRASH_FRAMES], harness[CRASH_FRAMES];
	unsigned nm = 0, nh = 0;
	bool started = false;
	char line[1024];

	while ((from = next_line(from, line, sizeof(line)))) {
		struct crash_frame f;
		const char *rel;

		if (!parse_frame(line, &f)) {
			if (started)
				break;
			continue;
		}
		started = true;
		if (!f.func[0])
			continue;
		if (in_dir(f.file, "src", &rel) && strcmp(rel, "src/check.c") &&
		    strcmp(rel, "src/runtime/check.c")) {
			if (nm < CRASH_FRAMES) {
				memmove(f.file, rel, strlen(rel) + 1);
				model[nm++] = f;
			}
		} else if (in_dir(f.file, "fuzz", &rel)) {
			if (nh < CRASH_FRAMES) {
				memmove(f.file, rel, strlen(rel) + 1);
				harness[nh++] = f;
			}
		}
	}
	if (nm) {
		memcpy(r->frames, model, nm * sizeof(*model));
		r->nframes = nm;
	} else {
		memcpy(r->frames, harness, nh * sizeof(*harness));
		r->nframes = nh;
	}
}

static void append_frames(struct crash_result *r)
{
	for (unsigned i = 0; i < r->nframes; i++)
		appendf(r->bucket, sizeof(r->bucket), "%s%s", i ? " <- " : " in ",
			r->frames[i].func);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGABRT:
		return "SIGABRT";
	case SIGBUS:
		return "SIGBUS";
	case SIGFPE:
		return "SIGFPE";
	case SIGILL:
		return "SIGILL";
	case SIGKILL:
		return "SIGKILL";
	case SIGTRAP:
		return "SIGTRAP";
	default:
		return NULL;
	}
}

/* "Tool: kind on address ..." -> "Tool: kind". */
static void sanitizer_kind(const char *s, char *buf, size_t len)
{
	const char *colon = strstr(s, ": "), *k, *e;
	static const char *const stops[] = {" on ", " (", ": ", " 0x", NULL};

	if (!colon) {
		copy_trunc(buf, len, s, strlen(s));
		return;
	}
	k = colon + 2;
	e = k + strlen(k);
	for (unsigned i = 0; stops[i]; i++) {
		const char *p = strstr(k, stops[i]);

		if (p && p < e)
			e = p;
	}
	while (e > k && isspace((unsigned char)e[-1]))
		e--;
	copy_trunc(buf, len, s, (size_t)(e - s));
}

/* "path/src/x.c:12:5" -> "src/x.c:12" */
static void short_location(const char *loc, size_t n, char *buf, size_t len)
{
	char tmp[512], *slash, *colon;
	const char *rel;
	unsigned long line;

	copy_trunc(tmp, sizeof(tmp), loc, n);
	slash = strrchr(tmp, '/');
	colon = strchr(slash ? slash : tmp, ':');
	buf[0] = 0;
	if (!colon) {
		appendf(buf, len, "%s", tmp);
		return;
	}
	*colon = 0;
	line = strtoul(colon + 1, NULL, 10);
	if (!in_dir(tmp, "src", &rel) && !in_dir(tmp, "fuzz", &rel))
		rel = slash ? slash + 1 : tmp;
	appendf(buf, len, "%s:%lu", rel, line);
}

void crash_classify(const char *log, int wstatus, bool timed_out, struct crash_result *r)
{
	const char *s = log, *after;
	char line[1024], lastline[1024] = "";

	memset(r, 0, sizeof(*r));
	r->failed = true;
	if (timed_out) {
		snprintf(r->bucket, sizeof(r->bucket), "%s", CRASH_BUCKET_TIMEOUT);
		snprintf(r->summary, sizeof(r->summary), "killed after the timeout");
		return;
	}
	while ((after = next_line(s, line, sizeof(line)))) {
		const char *l = line, *p;

		if (line[0])
			snprintf(lastline, sizeof(lastline), "%s", line);
		if (!strncmp(l, "vmafuzz: invariant ", 19) && strstr(l, " failed")) {
			size_t n = strcspn(l + 19, " :");

			copy_trunc(r->bucket, sizeof(r->bucket), l + 19, n);
			set_summary(r, l);
			pick_frames(after, r); /* only with crash_locate's stacks */
			return;
		}
		if (!strncmp(l, "vmafuzz: model assertion failed at ", 35)) {
			size_t n = strcspn(l + 35, " ");
			char loc[300];

			short_location(l + 35, n, loc, sizeof(loc));
			snprintf(r->bucket, sizeof(r->bucket), "MODEL_ASSERT %s", loc);
			set_summary(r, l);
			pick_frames(after, r);
			return;
		}
		if (l[0] == '=' && l[1] == '=' && (p = strstr(l + 2, "=="))) {
			l = p + 2;
			if (!strncmp(l, "ERROR: ", 7) && strstr(l, "Sanitizer: ")) {
				sanitizer_kind(l + 7, r->bucket, sizeof(r->bucket));
				set_summary(r, line);
				pick_frames(after, r);
				append_frames(r);
				return;
			}
		}
		if ((p = strstr(line, ": runtime error: "))) {
			const char *sum = strstr(after, "SUMMARY: UndefinedBehaviorSanitizer: ");
			char check[128] = "", loc[300];

			short_location(line, (size_t)(p - line), loc, sizeof(loc));
			if (sum) {
				sum += 37;
				copy_trunc(check, sizeof(check), sum, strcspn(sum, " \n"));
			}
			set_summary(r, line);
			pick_frames(after, r);
			if (check[0] && strcmp(check, "undefined-behavior")) {
				snprintf(r->bucket, sizeof(r->bucket),
					 "UndefinedBehaviorSanitizer: %s", check);
				if (r->nframes)
					append_frames(r);
				else
					appendf(r->bucket, sizeof(r->bucket), " at %s", loc);
			} else {
				snprintf(r->bucket, sizeof(r->bucket),
					 "UndefinedBehaviorSanitizer: runtime error at %s", loc);
				append_frames(r);
			}
			return;
		}
		s = after;
	}
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
		r->failed = false;
		snprintf(r->bucket, sizeof(r->bucket), "%s", CRASH_BUCKET_NO_FAIL);
		snprintf(r->summary, sizeof(r->summary), "exit status 0");
		return;
	}
	if (WIFSIGNALED(wstatus)) {
		const char *name = signal_name(WTERMSIG(wstatus));

		if (name)
			snprintf(r->bucket, sizeof(r->bucket), "signal %s", name);
		else
			snprintf(r->bucket, sizeof(r->bucket), "signal %d", WTERMSIG(wstatus));
	} else {
		snprintf(r->bucket, sizeof(r->bucket), "exit status %d", WEXITSTATUS(wstatus));
	}
	set_summary(r, lastline[0] ? lastline : r->bucket);
}

/* ---- running the driver ------------------------------------------------- */

#define LOG_MAX (4u << 20)

/* Prepend @opts to the sanitizer options variable @var: the user's own
 * options come last and win. */
static void env_prepend(const char *var, const char *opts)
{
	const char *old = getenv(var);
	char *v;

	if (asprintf(&v, "%s%s%s", opts, old ? ":" : "", old ? old : "") >= 0)
		setenv(var, v, 1);
}

static void child_env(bool abort_stack)
{
	/* stacks for UBSan reports and the check's name in its SUMMARY line */
	env_prepend("UBSAN_OPTIONS", "print_stacktrace=1:report_error_type=1");
	/* a stack for the abort() after an invariant or assertion report */
	if (abort_stack)
		env_prepend("ASAN_OPTIONS", "handle_abort=1");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool run_driver(const char *driver, const char *file, unsigned timeout, bool abort_stack,
		       struct crash_result *r, char **log_out)
{
	int fds[2], status = 0;
	char *buf, *arg = NULL;
	size_t n = 0, cap = 65536;
	bool timed_out = false;
	double deadline;
	pid_t pid;

	if (pipe(fds)) {
		fprintf(stderr, "vmafuzz: pipe: %s\n", strerror(errno));
		return false;
	}
	if (file[0] == '-' && asprintf(&arg, "./%s", file) < 0)
		abort();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "vmafuzz: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		free(arg);
		return false;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		child_env(abort_stack);
		execl(driver, driver, arg ? arg : file, (char *)NULL);
		fprintf(stderr, "vmafuzz: cannot run %s: %s\n", driver, strerror(errno));
		_exit(127);
	}
	free(arg);
	setpgid(pid, pid); /* both sides, so the kill below cannot miss */
	close(fds[1]);
	buf = malloc(cap + 1);
	if (!buf)
		abort();
	deadline = now() + timeout;
	for (;;) {
		struct pollfd pfd = {fds[0], POLLIN, 0};
		double left = deadline - now();
		int k;

		if (left <= 0) {
			timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		k = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			continue;
		if (n == cap && cap < LOG_MAX) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		{
			char sink[4096];
			ssize_t got = n < cap ? read(fds[0], buf + n, cap - n)
					      : read(fds[0], sink, sizeof(sink));

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			if (n < cap)
				n += (size_t)got;
		}
	}
	close(fds[0]);
	buf[n] = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && strstr(buf, "cannot run")) {
		fputs(buf, stderr);
		free(buf);
		return false;
	}
	crash_classify(buf, status, timed_out, r);
	if (log_out)
		*log_out = buf;
	else
		free(buf);
	return true;
}

bool crash_run(const char *driver, const char *file, unsigned timeout, struct crash_result *r,
	       char **log_out)
{
	return run_driver(driver, file, timeout, false, r, log_out);
}

void crash_locate(const char *driver, const char *file, unsigned timeout, struct crash_result *r)
{
	struct crash_result again;

	if (r->nframes || !r->failed)
		return;
	if (run_driver(driver, file, timeout, true, &again, NULL) &&
	    !strcmp(again.bucket, r->bucket)) {
		r->nframes = again.nframes;
		memcpy(r->frames, again.frames, sizeof(r->frames));
	}
}

/* ---- collecting crash files --------------------------------------------- */

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

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
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

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.txt"))
			continue;
		if (pick == PICK_ARTIFACTS && !libfuzzer_artifact(e->d_name))
			continue;
		if (pick == PICK_AFL && !has_prefix(e->d_name, "id:"))
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

/* AFL++ output: <dir>/<instance>/crashes/ and <dir>/crashes/ (an instance
 * directory itself). False when @dir has neither. */
static bool add_afl(struct file_list *l, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;
	char *sub;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&sub, "%s/%s/crashes", dir, e->d_name) < 0)
			abort();
		if (is_dir(sub)) {
			found = true;
			add_dir(l, sub, PICK_AFL);
		}
		free(sub);
	}
	closedir(d);
	if (asprintf(&sub, "%s/crashes", dir) < 0)
		abort();
	if (is_dir(sub)) {
		found = true;
		add_dir(l, sub, PICK_AFL);
	}
	free(sub);
	return found;
}

static int cmp_files(const void *a, const void *b)
{
	return strcmp(((const struct crash_file *)a)->path, ((const struct crash_file *)b)->path);
}

int crash_collect(const char *cmd, int npaths, char **paths, const struct fuzz_target *t,
		  struct crash_file **files, size_t *nfiles)
{
	struct file_list l = {0};

	for (int i = 0; i < npaths; i++) {
		struct stat st;
		size_t before = l.n;

		if (stat(paths[i], &st)) {
			fprintf(stderr, "vmafuzz %s: %s: %s\n", cmd, paths[i], strerror(errno));
			crash_files_free(l.v, l.n);
			return 2;
		}
		if (S_ISREG(st.st_mode)) {
			list_add(&l, paths[i], (size_t)st.st_size);
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "vmafuzz %s: %s is neither a file nor a directory\n", cmd,
				paths[i]);
			crash_files_free(l.v, l.n);
			return 2;
		}
		{
			char *dir = strdup(paths[i]);
			size_t n = strlen(dir);

			if (!dir)
				abort();
			while (n > 1 && dir[n - 1] == '/')
				dir[--n] = 0;
			if (!add_afl(&l, dir) && !add_dir(&l, dir, PICK_ARTIFACTS))
				add_dir(&l, dir, PICK_ALL);
			free(dir);
		}
		if (l.n == before)
			fprintf(stderr, "vmafuzz %s: no crash files in %s\n", cmd, paths[i]);
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_files);
	for (size_t i = 0; i < l.n; i++) {
		l.v[i].target = t ? t : crash_target_of(l.v[i].path);
		if (!l.v[i].target) {
			fprintf(stderr,
				"vmafuzz %s: cannot tell which target %s is for; "
				"use --target (see 'vmafuzz list')\n",
				cmd, l.v[i].path);
			crash_files_free(l.v, l.n);
			return 2;
		}
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

/* ---- options ------------------------------------------------------------ */

int crash_opt(const char *cmd, int argc, char **argv, int *i, struct crash_opts *o)
{
	const char *a = argv[*i];
	bool target = !strcmp(a, "--target") || !strcmp(a, "-t");

	if (!target && strcmp(a, "--replay") && strcmp(a, "--timeout"))
		return 0;
	if (*i + 1 >= argc) {
		cmd_usage_error(cmd,
				target			 ? "%s needs a target name"
				: !strcmp(a, "--replay") ? "%s needs a directory"
							 : "%s needs a number of seconds",
				a);
		return -1;
	}
	++*i;
	if (target) {
		o->target = cmd_target(cmd, argv[*i]);
		return o->target ? 1 : -1;
	}
	if (!strcmp(a, "--replay")) {
		if (!is_dir(argv[*i])) {
			cmd_usage_error(cmd, "--replay %s: not a directory", argv[*i]);
			return -1;
		}
		o->replay_dir = argv[*i];
		return 1;
	}
	{
		char *end;
		unsigned long v = strtoul(argv[*i], &end, 10);

		if (!isdigit((unsigned char)argv[*i][0]) || *end || v < 1 || v > 3600) {
			cmd_usage_error(cmd, "--timeout '%s' is not 1..3600 seconds", argv[*i]);
			return -1;
		}
		o->timeout = (unsigned)v;
	}
	return 1;
}

bool crash_driver(const char *cmd, const struct crash_opts *o, const struct fuzz_target *t,
		  char *buf, size_t len)
{
	if (replay_driver(o->replay_dir, t->name, buf, len))
		return true;
	fprintf(stderr, "vmafuzz %s: no replay driver %s (%s)\n", cmd, buf,
		o->replay_dir ? "check --replay" : "build it: ./build.sh replay");
	return false;
}

/* ---- small helpers ------------------------------------------------------ */

void crash_slug(const char *bucket, char *buf, size_t len)
{
	size_t n = 0, max = len - 1 < 48 ? len - 1 : 48;
	bool dash = false;

	for (const char *s = bucket; *s && n < max; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c)) {
			if (dash && n && n + 1 < max)
				buf[n++] = '-';
			dash = false;
			buf[n++] = (char)tolower(c);
		} else {
			dash = true;
		}
	}
	if (!n)
		buf[n++] = 'x';
	buf[n] = 0;
}

uint32_t crash_hash32(const uint8_t *data, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}

uint64_t crash_hash64(const uint8_t *data, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	return h;
}

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
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
