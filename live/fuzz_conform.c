/* SPDX-License-Identifier: GPL-2.0 */
/* vmafuzz-twin: fuzz_mm (its seeds, dictionary and mutator) */
/*
 * fuzz_conform: a coverage-guided target whose every input, a fuzz_mm
 * program, runs in the model and for real on this machine's kernel, as
 * vmafuzz conform runs it (conform_run.h): every process of the program in
 * a real process, compared after every operation. Any difference is a
 * crash (AS_BACKENDS_DIFFER): the report names the operation, prints the
 * program as text with that step marked, and both views side by side.
 *
 * Each input's p0 is a fresh process forked by a small server
 * (server.h, out/conform-server next to the fuzzer's folder, or
 * $VMAFUZZ_CONFORM_SERVER), and its model a fresh model: nothing of one
 * input reaches the next. Programs the kernel cannot run (fail_at, a
 * thread other than t0, config bits, uprobe, the reverted fork policy), and
 * those with map_limit (too slow for real, too_slow() says why), are
 * refused before anything runs and not kept (-1); one whose hint mapping
 * the model would move is compared up to there. A line at exit says how
 * many inputs ran, how many operations were compared, what was refused.
 *
 * For tests only, VMAFUZZ_CONFORM_SELFTEST=flip-wf|flip-child-wf|
 * flip-child-pgoff|flip-child-data makes the model's view wrong on purpose,
 * as conform's --selftest-* switches do, so that a crash must follow.
 */
#include "conform_ops.h"
#include "conform_probe.h"
#include "conform_run.h"
#include "fuzz/targets/exec.h"
#include "fuzz/targets/mm_run.h"
#include "fuzz/targets/target.h"
#include "live_backend.h"
#include "runtime/check.h"
#include "server.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NAME "fuzz_conform's input"

/* What the inputs were, for the line at exit. */
struct tally {
	uint64_t inputs, ran, ops, partway, refused;
	char why[8][96]; /* the reasons for refusing, and how often */
	uint64_t nwhy[8];
	unsigned used;
};

static struct {
	bool ready;
	struct conform_opts o;
	int capture, saved_stdout; /* what conform prints of a difference */
	struct tally t;
} fc = {.capture = -1, .saved_stdout = -1};

/* One run's difference, for the report. */
struct report {
	const struct prog *p;
	unsigned step;
};

static void count_refusal(const char *why)
{
	const char *s = strstr(why, "): ");
	unsigned i;

	s = s ? s + 3 : why;
	for (i = 0; i < fc.t.used && strncmp(fc.t.why[i], s, sizeof(fc.t.why[i]) - 1); i++)
		;
	if (i == fc.t.used && fc.t.used < 8) {
		size_t n = strlen(s) < sizeof(fc.t.why[0]) ? strlen(s) : sizeof(fc.t.why[0]) - 1;

		memcpy(fc.t.why[fc.t.used], s, n);
		fc.t.why[fc.t.used++][n] = 0;
	}
	fc.t.nwhy[i < 8 ? i : 7]++;
}

static void print_tally(void)
{
	fprintf(stderr,
		"fuzz_conform: %" PRIu64 " inputs: %" PRIu64
		" ran in the model and for real (%" PRIu64 " operations compared; %" PRIu64
		" up to a hint the model would move), %" PRIu64 " refused\n",
		fc.t.inputs, fc.t.ran, fc.t.ops, fc.t.partway, fc.t.refused);
	for (unsigned i = 0; i < fc.t.used; i++)
		fprintf(stderr, "fuzz_conform:   refused %" PRIu64 ": %s\n", fc.t.nwhy[i],
			fc.t.why[i]);
}

/* ---- setting up ----------------------------------------------------------- */

/* Setup failed: not the input's fault, so no crash; the engine stops. */
static _Noreturn void unusable(const char *fmt, const char *arg)
{
	fprintf(stderr, "fuzz_conform: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	fflush(NULL);
	_exit(2); /* not exit(): libFuzzer would take it for a crash of the input */
}

static void selftest(void)
{
	static const struct {
		const char *name;
		size_t off;
	} flips[] = {
	    {"flip-wf", offsetof(struct conform_opts, flip_wf)},
	    {"flip-child-wf", offsetof(struct conform_opts, flip_child)},
	    {"flip-child-pgoff", offsetof(struct conform_opts, flip_pgoff)},
	    {"flip-child-data", offsetof(struct conform_opts, flip_data)},
	};
	const char *v = getenv("VMAFUZZ_CONFORM_SELFTEST");

	if (!v || !*v)
		return;
	for (unsigned i = 0; i < sizeof(flips) / sizeof(flips[0]); i++)
		if (!strcmp(v, flips[i].name)) {
			*(bool *)((char *)&fc.o + flips[i].off) = true;
			fprintf(stderr,
				"fuzz_conform: VMAFUZZ_CONFORM_SELFTEST=%s: the model's view is "
				"wrong on purpose (a test)\n",
				v);
			return;
		}
	unusable("VMAFUZZ_CONFORM_SELFTEST takes flip-wf, flip-child-wf, flip-child-pgoff or "
		 "flip-child-data, not '%s'",
		 v);
}

/* out/conform-server beside this binary's folder, or $VMAFUZZ_CONFORM_SERVER. */
static void server_path(char *buf, size_t len)
{
	const char *env = getenv("VMAFUZZ_CONFORM_SERVER");
	char self[PATH_MAX];
	ssize_t k;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0)
		unusable("cannot read /proc/self/exe: %s", strerror(errno));
	self[k] = 0;
	snprintf(buf, len, "%s/../conform-server", dirname(self));
}

/*
 * This process, the server and so every real process on one CPU, the one
 * this runs on now: they take turns (a request, its reply), so nothing runs
 * less in parallel, and a copy-on-write fault or an unmap in a real process
 * then has no other CPU's TLB to flush (an interrupt to it, costly in a
 * virtual machine). Pinned, conform ran clearly faster over a grown fuzz_mm
 * corpus (docs/results/fidelity.md).
 */
static void one_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void setup(void)
{
	char path[PATH_MAX], err[PATH_MAX + 256];
	int zero;

	selftest();
	one_cpu();
	server_path(path, sizeof(path));
	if (conform_zygote_start(path, err, sizeof(err)))
		unusable("%s (make fuzz_conform builds it; VMAFUZZ_CONFORM_SERVER names another)",
			 err);
	as_live_spawn_with(conform_zygote_spawn);
	zero = conform_probe_zero_page();
	if (zero < 0)
		unusable("%s", "this kernel cannot run programs here (said above)");
	fc.o.no_zero_page = !zero; /* the model does as this kernel does */
	fc.o.kver = conform_probe_kver();
	fc.o.commit_limited = conform_probe_commit_limited();
	fc.o.rollup_last = true; /* (why: fidelity.md, fuzz_conform) */
	fc.capture = memfd_create("fuzz_conform-report", MFD_CLOEXEC);
	fc.saved_stdout = dup(STDOUT_FILENO);
	if (fc.capture < 0 || fc.saved_stdout < 0)
		unusable("cannot keep conform's output: %s", strerror(errno));
	atexit(print_tally);
	fc.ready = true;
}

/* ---- one input ------------------------------------------------------------ */

/* conform prints a difference on stdout: into fc.capture while it runs. */
static void capture(bool on)
{
	fflush(stdout);
	if (on && (ftruncate(fc.capture, 0) || lseek(fc.capture, 0, SEEK_SET)))
		return;
	dup2(on ? fc.capture : fc.saved_stdout, STDOUT_FILENO);
}

static void print_captured(FILE *out)
{
	char buf[4096];
	off_t at = 0;
	ssize_t n;

	while ((n = pread(fc.capture, buf, sizeof(buf), at)) > 0) {
		fwrite(buf, 1, (size_t)n, out);
		at += n;
	}
}

static void report_context(FILE *out, void *arg)
{
	const struct report *r = arg;

	fprintf(out, "--- program (fuzz_mm, under fuzz_conform), step %u of %u ---\n", r->step,
		r->p->nops);
	prog_print(out, &mm_desc, r->p, (int)r->step);
	fprintf(out, "--- step %u in the model and on this kernel ---\n", r->step);
	print_captured(out);
	fprintf(out, "--- again: out/vmafuzz conform FILE (the program: out/vmafuzz print "
		     "--target fuzz_mm FILE) ---\n");
}

/* The finding in one line that names an ERROR: with --jobs, libFuzzer's
 * -fork copies such lines of a worker's log into its own, and deletes the
 * worker's log with the rest of the report. */
static void error_line(const char *what, const char *text)
{
	fprintf(stderr, "==%d== ERROR: vmafuzz: fuzz_conform: %s%s\n", (int)getpid(), what, text);
}

/* The report kept in the folder vmafuzz fuzz names (VMAFUZZ_REPORTS), as
 * under --jobs the worker's log goes with the worker: written whole under
 * another name and renamed. Its path in @path, or "" when there is none. */
static void keep_report(const char *msg, struct report *r, char *path, size_t len)
{
	const char *dir = getenv("VMAFUZZ_REPORTS");
	char tmp[PATH_MAX];
	FILE *f;
	bool ok;

	path[0] = '\0';
	if (!dir || !*dir)
		return;
	snprintf(path, len, "%s/fuzz_conform-%d-%ld.txt", dir, (int)getpid(), (long)time(NULL));
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	if (!(f = fopen(tmp, "w"))) {
		path[0] = '\0';
		return;
	}
	fprintf(f, "vmafuzz: invariant %s failed: %s\n", check_name(CK_AS_BACKENDS_DIFFER), msg);
	report_context(f, r);
	ok = !ferror(f) && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) || !ok || rename(tmp, path)) {
		unlink(tmp);
		path[0] = '\0';
	}
}

static _Noreturn void differ(const struct prog *p, unsigned step)
{
	struct report r = {p, step};
	struct utsname u;
	char text[160], msg[512], line[256], path[PATH_MAX];

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(text, sizeof(text), "?");
	if (step < p->nops)
		conform_op_text(&mm_desc, &p->ops[step], text, sizeof(text));
	snprintf(msg, sizeof(msg),
		 "fuzz_conform: operation %u (%s) differs between the model and this kernel "
		 "(Linux %s)",
		 step, text, u.release);
	keep_report(msg, &r, path, sizeof(path));
	snprintf(line, sizeof(line), "operation %u (%s) differs", step, text);
	if (path[0])
		fprintf(stderr, "==%d== ERROR: vmafuzz: fuzz_conform: %s (report: %s)\n",
			(int)getpid(), line, path);
	else
		error_line(line, "");
	check_set_context(report_context, &r);
	check_fail(CK_AS_BACKENDS_DIFFER, "%s", msg);
	abort(); /* (check_fail returns only in collect mode) */
}

/*
 * Why @p, which conform could run, is not run here, or NULL. map_limit
 * fills a real process up to vm.max_map_count (65530 VMAs by default: tens
 * of thousands of mprotects), and each fork and exit of it then copies or
 * frees them all: the few programs with map_limit took much of conform's
 * time over a grown fuzz_mm corpus (docs/results/fidelity.md).
 * vmafuzz conform runs them (tests/conform.sh, --random).
 */
static const char *too_slow(const struct prog_desc *d, const struct prog *p)
{
	for (unsigned i = 0; i < p->nops; i++) {
		struct mm_call c;

		conform_op_call(d, &p->ops[i], &c);
		if (c.code == MMF_OP_MAP_LIMIT)
			return "map_limit: too slow for real here (vmafuzz conform runs it)";
	}
	return NULL;
}

static int fuzz_conform_one(const uint8_t *data, size_t size)
{
	const struct prog_desc *d = &mm_desc;
	static struct prog p;
	enum conform_outcome r;
	const char *slow = NULL;
	char why[512];
	unsigned nops;

	if (!fc.ready)
		setup();
	fc.t.inputs++;
	prog_decode(d, data, size, &p);
	if (!p.nops)
		return -1; /* nothing to compare */
	if (conform_prog_refuses(d, &p, false, why, sizeof(why)) || (slow = too_slow(d, &p))) {
		fc.t.refused++;
		count_refusal(slow ? slow : why);
		return -1; /* not kept: its mutations would be refused too */
	}
	capture(true);
	why[0] = '\0';
	r = conform_run(d, &p, NAME, &fc.o, NULL, NULL, &nops, why, sizeof(why));
	capture(false);
	exec_between_programs();
	fc.t.ran++;
	fc.t.ops += nops;
	fc.t.partway += r == CONFORM_SKIPPED;
	if (r == CONFORM_DIFFER)
		differ(&p, nops);
	if (r == CONFORM_FAILED) {
		fprintf(stderr, "--- the program ---\n");
		prog_print(stderr, d, &p, -1);
		fprintf(stderr, "vmafuzz: fuzz_conform: the real side failed (said above)\n");
		error_line("the real side failed: ", why[0] ? why : "(said in its log)");
		abort();
	}
	return 0;
}

const struct fuzz_target fuzz_conform_target = {
    .name = "fuzz_conform",
    .summary = "fuzz_mm's programs on t0 in the model and for real on this kernel, every "
	       "process a real one, compared after every operation",
    .desc = &mm_desc,
    .run = fuzz_conform_one,
};
