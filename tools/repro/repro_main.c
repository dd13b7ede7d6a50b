/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver of a C reproducer (repro.h): run each step on this kernel and
 * check that /proc/self/smaps shows, in the window, what the model showed
 * after it: start, end, rwx and p/s, the offset, the VmFlags the model has
 * a meaning for, Rss, Anonymous, Pss, Pss_Dirty, Shared/Private
 * Clean/Dirty, and that the call returned what the model's did. A fork's
 * child checks its own smaps, then exits.
 *
 * Plain output: one line per step; on the first difference both views side
 * by side and exit status 1. With repro_tap, kselftest's TAP: "TAP version
 * 13", "1..N" (a step, and a fork's child, are a test each), "ok N ..." or
 * "not ok N ...", diagnostics as "# " lines, the steps after a difference
 * skipped; exit 0 pass, 1 fail, 4 skip (KSFT_SKIP: the window is not free,
 * or no THP switch). Where the model's views differ between a kernel that
 * maps the zero page on anonymous read faults and one that does not, a
 * probe (one page read) picks which.
 */
#include "repro.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPRO_PASS 0
#define REPRO_FAIL 1
#define REPRO_SKIP 4 /* KSFT_SKIP */
#define REPRO_MAX_VMAS 4096

static unsigned repro_test; /* TAP: the last test number printed */
static unsigned repro_passed, repro_skipped;

/* A diagnostic line: "# " before it in TAP. */
static void repro_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void repro_say(const char *fmt, ...)
{
	va_list ap;

	if (repro_tap)
		fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static const char *repro_result_str(int64_t r, char *buf, size_t len)
{
	if (r < 0)
		snprintf(buf, len, "-%" PRId64 " (%s)", -r, strerror((int)-r));
	else if ((uint64_t)r >= repro_lo)
		snprintf(buf, len, "0x%" PRIx64 " (@0x%" PRIx64 ")", (uint64_t)r,
			 ((uint64_t)r - repro_lo) / KSYS_PAGE);
	else
		snprintf(buf, len, "%" PRId64, r);
	return buf;
}

static bool repro_same(const struct kvma *a, unsigned na, const struct kvma *b, unsigned nb)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (!ksys_vma_same(&a[i], &b[i]))
			return false;
	return true;
}

/* Both views side by side, rows joined by start address, '!' where they
 * differ. */
static void repro_views(const struct kvma *a, unsigned na, const struct kvma *b, unsigned nb)
{
	unsigned i = 0, j = 0;
	char s[192], t[192];

	repro_say("  VMAs from 0x%" PRIx64 " (@0x0; @ counts pages):", repro_lo);
	repro_say("    %-50s %s", "model", "kernel");
	while (i < na || j < nb) {
		const struct kvma *x = i < na ? &a[i] : NULL, *y = j < nb ? &b[j] : NULL;

		if (x && y && x->start != y->start) {
			if (x->start < y->start)
				y = NULL;
			else
				x = NULL;
		}
		bool same = x && y && ksys_vma_same(x, y);

		repro_say("  %c %-50s %s", same ? ' ' : '!',
			  x ? ksys_vma_str(x, repro_lo, s, sizeof(s)) : "",
			  y ? ksys_vma_str(y, repro_lo, t, sizeof(t)) : "");
		if (x && y && !same)
			repro_say("      %-48s %s", ksys_vma_more(x, s, sizeof(s)),
				  ksys_vma_more(y, t, sizeof(t)));
		i += x != NULL;
		j += y != NULL;
	}
	if (!na && !nb)
		repro_say("    (no VMAs on either side)");
}

/* This process's VMAs against @want: 1 agree, 0 differ (said under @what,
 * with the step's call and both views), -1 smaps unreadable (said). */
static int repro_check_vmas(const char *what, const struct repro_step *s, const struct kvma *want,
			    unsigned nwant)
{
	static struct kvma got[REPRO_MAX_VMAS];
	char err[256];
	int n = ksys_vmas(0, repro_lo, repro_hi, got, REPRO_MAX_VMAS, NULL, err, sizeof(err));

	if (n < 0) {
		repro_say("%s: %s", what, err);
		return -1;
	}
	if (repro_same(want, nwant, got, (unsigned)n))
		return 1;
	repro_say("%s: the VMAs differ from the model's", what);
	repro_say("  call: %s", s->text);
	repro_views(want, nwant, got, (unsigned)n);
	return 0;
}

/* One test's verdict: plain, "step 3 ok: ..."; TAP, "ok 4 step 3: ...". */
static void repro_verdict(bool ok, unsigned step, const char *what, const char *op)
{
	repro_passed += ok;
	if (repro_tap)
		printf("%sok %u step %u%s: %s\n", ok ? "" : "not ", ++repro_test, step, what, op);
	else
		printf("step %u%s %s: %s\n", step, what, ok ? "agrees" : "differs", op);
	fflush(stdout);
}

/* The step's result against the model's: true when equal, else said. */
static bool repro_check_result(const struct repro_step *s, int64_t r)
{
	char a[96], b[96];

	if (r == s->result)
		return true;
	repro_say("  call: %s", s->text);
	repro_say("  result: model %s, kernel %s   <== differs",
		  repro_result_str(s->result, a, sizeof(a)), repro_result_str(r, b, sizeof(b)));
	return false;
}

/*
 * A fork: the child waits until the parent has checked its own view, then
 * checks its own smaps against the model's child and exits 0 (agrees) or 1.
 * *child_ok: its verdict. Returns the parent's.
 */
static bool repro_fork(unsigned i, const struct repro_step *s, bool *child_ok)
{
	int go[2], st;
	bool ok;
	char b;
	pid_t pid;

	*child_ok = false;
	if (pipe(go)) {
		repro_say("step %u: pipe: %s", i, strerror(errno));
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int r;

		close(go[1]);
		while (read(go[0], &b, 1) < 0 && errno == EINTR)
			;
		r = repro_check_vmas("the child", s, s->child, s->nchild);
		fflush(stdout);
		_exit(r == 1 ? 0 : 1);
	}
	close(go[0]);
	ok = repro_check_result(s, pid < 0 ? -(int64_t)errno : 0);
	if (ok)
		ok = repro_check_vmas("the parent", s, s->vmas, s->nvmas) == 1;
	repro_verdict(ok, i, "", s->op);
	fflush(stdout);
	close(go[1]); /* the child goes on */
	if (pid < 0)
		return ok;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			repro_say("step %u: waitpid: %s", i, strerror(errno));
			return false;
		}
	if (WIFSIGNALED(st))
		repro_say("step %u: the child died of signal %d", i, WTERMSIG(st));
	*child_ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	return ok;
}

/* The whole program is skipped: before the plan, so "1..0 # SKIP". */
static int repro_skip(const char *fmt, const char *arg)
{
	char why[256];

	snprintf(why, sizeof(why), fmt, arg);
	if (repro_tap)
		printf("1..0 # SKIP %s\n", why);
	else
		printf("repro: skipped: %s\n", why);
	return REPRO_SKIP;
}

/* Whether a read fault of fresh private anonymous memory maps the zero page
 * (nothing resident after it): 1 yes, 0 no, -1 could not tell. */
static int repro_zero_page(void)
{
	struct kcall c = {.code = KSYS_MMAP,
			  .prot = PROT_READ | PROT_WRITE,
			  .flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			  .start = repro_lo,
			  .len = KSYS_PAGE,
			  .touch_max_pages = 1};
	struct kvma v[4];
	char err[256];
	int n, res = -1;

	if (ksys_call(&c) != (int64_t)repro_lo)
		return -1;
	c.code = KSYS_TOUCH;
	if (ksys_call(&c) == 0 &&
	    (n = ksys_vmas(0, repro_lo, repro_hi, v, 4, NULL, err, sizeof(err))) == 1)
		res = v[0].rss == 0;
	munmap((void *)(uintptr_t)repro_lo, KSYS_PAGE);
	return res;
}

int main(void)
{
	const struct repro_step *steps = repro_steps[0];
	unsigned ntests = repro_nsteps, failed_at = repro_nsteps;
	struct utsname u;
	int e;

	if (repro_tap)
		printf("TAP version 13\n");
	repro_say("vmafuzz repro of %s: %u steps, on Linux %s", repro_name, repro_nsteps,
		  uname(&u) ? "?" : u.release);
	if ((e = ksys_setup()))
		return repro_skip("setup (one CPU, RLIMIT_STACK, no THP): %s", strerror(e));
	if ((e = ksys_window_free(repro_lo, repro_hi)))
		return repro_skip("the address window is not free here (%s)", strerror(e));
	if (repro_steps[0] != repro_steps[1]) {
		int zero = repro_zero_page();

		if (zero < 0)
			return repro_skip("%s", "could not tell whether this kernel maps the zero "
						"page on a read fault of private anonymous memory");
		steps = repro_steps[!zero];
		repro_say("this kernel %s on a read fault of private anonymous memory: it is "
			  "compared with the model's views for such a kernel",
			  zero ? "maps the zero page" : "allocates a page (no zero page)");
	}
	for (unsigned i = 0; i < repro_nsteps; i++)
		ntests += steps[i].call.code == KSYS_FORK;
	if (repro_tap)
		printf("1..%u\n", ntests);
	for (unsigned i = 0; i < repro_nsteps && failed_at == repro_nsteps; i++) {
		const struct repro_step *s = &steps[i];
		bool ok, child_ok;

		if (s->call.code == KSYS_FORK) {
			ok = repro_fork(i, s, &child_ok);
			repro_verdict(child_ok, i, " (the child)", s->op);
			ok = ok && child_ok;
		} else {
			ksys_drain(); /* as conform does before every call */
			ok = repro_check_result(s, ksys_call(&s->call));
			if (ok)
				ok = repro_check_vmas("the process", s, s->vmas, s->nvmas) == 1;
			repro_verdict(ok, i, "", s->op);
		}
		if (!ok)
			failed_at = i;
	}
	for (unsigned i = failed_at + 1; repro_tap && i < repro_nsteps; i++) {
		for (int k = 0; k <= (steps[i].call.code == KSYS_FORK); k++) {
			printf("ok %u step %u%s: %s # SKIP an earlier step differed\n",
			       ++repro_test, i, k ? " (the child)" : "", steps[i].op);
			repro_skipped++;
		}
	}
	if (repro_tap)
		printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n", repro_passed,
		       ntests - repro_passed - repro_skipped, repro_skipped);
	else if (failed_at < repro_nsteps)
		printf("repro: step %u differs from the model\n", failed_at);
	else
		printf("repro: %u steps agree with the model\n", repro_nsteps);
	return failed_at < repro_nsteps ? REPRO_FAIL : REPRO_PASS;
}
