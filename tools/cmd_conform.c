/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz conform: the model against this machine's real kernel.
 *
 * A fuzz_mm program runs twice: in the model, resolving each operation's
 * range exactly as fuzz_mm does, and for real, each process of the model in
 * a real process of this kernel (conform_run.h says what is compared after
 * every operation). Programs from files, or --random N generated ones
 * (conform_gen.h), whose distribution is printed at the end.
 *
 * Before anything, the kernel is probed: whether it maps the zero page on a
 * read fault of private anonymous memory; the model is told to do the same.
 */
#include "cmd.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/run/replay.h"
#include "live/conform_gen.h"
#include "live/conform_ops.h"
#include "live/conform_probe.h"
#include "live/conform_run.h"
#include "mm/kver.h"
#include "live/live_backend.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct opts {
	struct conform_opts run;
	int model_zero;	      /* --model-zero-page yes|no (1|0), else -1: as the probe says */
	bool mark;	      /* --mark: "vmafuzz: program <id>" on stderr before each */
	int64_t print_random; /* --print-random K: print random program K, run nothing */
};

/* The line a guest's console reader takes a program's id from
 * (live/vm/console.h): a random program is r<seed>.<index>. */
static void mark(const struct opts *o, const char *id)
{
	if (o->mark) {
		fprintf(stderr, "vmafuzz: program %s\n", id);
		fflush(stderr);
	}
}

/* ---- programs from files -------------------------------------------------- */

static int run_files(int n, char **files, const struct opts *o)
{
	const struct fuzz_target *t = &fuzz_mm_target;
	static struct prog p;
	int status = 0;

	for (int i = 0; i < n; i++) {
		char why[512];
		unsigned nops;
		uint8_t *data;
		size_t size;

		mark(o, files[i]);
		data = load_input(t, files[i], &size, stderr);
		if (!data)
			return 2;
		prog_decode(t->desc, data, size, &p);
		free(data);
		switch (conform_run(t->desc, &p, files[i], &o->run, NULL, NULL, &nops, why,
				    sizeof(why))) {
		case CONFORM_AGREE:
			printf("conform: %s: %u operations agree\n", files[i], nops);
			break;
		case CONFORM_SKIPPED:
			printf("conform: %s: skipped: %s\n", files[i], why);
			break;
		case CONFORM_DIFFER:
			status = 1;
			break;
		case CONFORM_FAILED:
			return 2;
		}
		fflush(stdout);
		if (status && !o->run.keep_going)
			break;
	}
	return status;
}

/* ---- random programs ------------------------------------------------------ */

/* Reasons and how often each came up. */
struct reasons {
	char text[16][200];
	uint64_t n[16];
	unsigned used;
};

/* @why without its "operation N (...): " head. */
static void reasons_add(struct reasons *r, const char *why)
{
	const char *s = strstr(why, "): ");
	unsigned i;

	s = s ? s + 3 : why;
	for (i = 0; i < r->used && strncmp(r->text[i], s, sizeof(r->text[i]) - 1); i++)
		;
	if (i == r->used) {
		if (r->used == 16)
			i = 15; /* the rest go with the last */
		else {
			size_t n =
			    strlen(s) < sizeof(r->text[0]) - 1 ? strlen(s) : sizeof(r->text[0]) - 1;

			memcpy(r->text[r->used], s, n);
			r->text[r->used++][n] = 0;
		}
	}
	r->n[i]++;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void print_distribution(const struct conform_tally *t, uint64_t skipped,
			       const struct reasons *why)
{
	printf("distribution of %" PRIu64 " programs, %" PRIu64 " operations:\n", t->programs,
	       t->ops);
	printf("  forks %" PRIu64 ", in %" PRIu64 " programs (%.1f%%); at most %" PRIu64
	       " processes at once\n",
	       t->forks, t->progs_fork, pct(t->progs_fork, t->programs), t->max_procs);
	printf("  operations of forked processes %" PRIu64 " (%.1f%%), in %" PRIu64
	       " programs (%.1f%%); exits %" PRIu64 "\n",
	       t->child_ops, pct(t->child_ops, t->ops), t->progs_child_ops,
	       pct(t->progs_child_ops, t->programs), t->exits);
	printf("  errors (a call that failed) %" PRIu64 " (%.1f%%)\n", t->errors,
	       pct(t->errors, t->ops));
	printf("  file maps %" PRIu64 ", shared anonymous maps %" PRIu64 ", touches %" PRIu64 "\n",
	       t->file_maps, t->shared_anon_maps, t->touches);
	printf("  userfaultfd operations %" PRIu64 " (%.1f%%), map_limit %" PRIu64 "\n",
	       t->uffd_ops, pct(t->uffd_ops, t->ops), t->map_limits);
	printf("  mremaps that succeeded %" PRIu64 " (%" PRIu64 " moved), mlock/munlock/mlockall/"
	       "munlockall that succeeded %" PRIu64 "\n",
	       t->remaps, t->remap_moves, t->locks);
	printf("  maps populated or locked %" PRIu64 ", stacks (MAP_GROWSDOWN) mapped %" PRIu64
	       "\n",
	       t->populating_maps, t->stack_maps);
	if (t->forks_over_limit)
		printf("  forks the commit limit failed in the kernel %" PRIu64
		       " (the model's fork failed with each: it has no commit accounting)\n",
		       t->forks_over_limit);
	printf("  smaps_rollup compared %" PRIu64 " times; not compared %" PRIu64
	       " times (a process holding map_limit's fillers) and %" PRIu64
	       " times (the pages outside the window kept changing while read)\n",
	       t->rollups, t->rollups_filled, t->rollups_unsteady);
	printf("  page data compared: %" PRIu64 " pages present after operations, %" PRIu64
	       " pages read by touches\n",
	       t->pages_compared, t->reads_compared);
	uint64_t refused = 0;

	for (unsigned i = 0; i < t->nrefused; i++)
		refused += t->refused[i].n;
	printf("  operations refused %" PRIu64 " (a random program draws another in their "
	       "place)%s\n",
	       refused, refused ? ", by reason:" : "");
	for (unsigned i = 0; i < t->nrefused; i++)
		printf("    %" PRIu64 " %s\n", t->refused[i].n, t->refused[i].why);
	printf("  skipped programs %" PRIu64 " (%.2f%%)%s\n", skipped,
	       pct(skipped, t->programs + skipped), skipped ? ":" : "");
	for (unsigned i = 0; i < why->used; i++)
		printf("    %" PRIu64 " %s\n", why->n[i], why->text[i]);
}

static int run_random(uint64_t n, uint64_t seed, unsigned nops, const struct opts *o)
{
	const struct prog_desc *d = fuzz_mm_target.desc;
	static struct conform_gen gen;
	static struct prog p;
	static struct reasons skips;
	struct conform_regen regen = {conform_gen_again, &gen};
	struct conform_tally t;
	uint64_t done = 0, ops = 0, skipped = 0, differ = 0;
	char name[64], why[512];

	memset(&t, 0, sizeof(t));
	conform_gen_init(&gen, d, seed);
	while (done < n) {
		unsigned agreed;
		enum conform_outcome r;

		conform_gen_prog(&gen, nops, &p);
		snprintf(name, sizeof(name), "random program %" PRIu64 " (seed %" PRIu64 ")",
			 done + skipped, seed);
		if (o->print_random >= 0) {
			if ((uint64_t)o->print_random > done + skipped) {
				done++; /* (counts programs made: none is run) */
				continue;
			}
			printf("# vmafuzz conform --random: %s, %u operations\n", name, nops);
			prog_print(stdout, d, &p, -1);
			return 0;
		}
		snprintf(why, sizeof(why), "r%" PRIu64 ".%" PRIu64, seed, done + skipped);
		mark(o, why);
		r = conform_run(d, &p, name, &o->run, &regen, &t, &agreed, why, sizeof(why));
		if (r == CONFORM_FAILED) {
			fprintf(stderr, "--- the program that failed to run ---\n");
			prog_print(stderr, d, &p, -1);
			return 2;
		}
		if (r == CONFORM_SKIPPED) {
			if (o->run.verbose)
				printf("conform: %s: skipped: %s\n", name, why);
			reasons_add(&skips, why);
			if (++skipped > n / 10 + 100) {
				fprintf(stderr, "vmafuzz conform: too many skipped programs\n");
				return 2;
			}
			continue;
		}
		done++;
		if (r == CONFORM_DIFFER) {
			differ++;
			/* up to the (first) step that differs: what runs the same again */
			if (!o->run.keep_going)
				p.nops = agreed + 1;
			printf("--- the program up to the step that differs (save it as a seed) "
			       "---\n");
			printf("# vmafuzz conform --random: %s\n", name);
			prog_print(stdout, d, &p, (int)agreed);
			printf("---\n");
			fflush(stdout);
			if (!o->run.keep_going)
				break;
			continue;
		}
		ops += agreed;
		if (o->run.verbose)
			printf("conform: %s: %u operations agree\n", name, agreed);
	}
	print_distribution(&t, skipped, &skips);
	printf("%" PRIu64 " programs, %" PRIu64 " operations agree", done - differ, ops);
	if (differ)
		printf("; %" PRIu64 " of %" PRIu64 " programs differ (%" PRIu64 " operations)",
		       differ, done, t.differ_ops);
	if (skipped)
		printf(" (%" PRIu64 " more skipped)", skipped);
	printf("\n");
	return differ ? 1 : 0;
}

/* ---- the probe ------------------------------------------------------------ */

/* The kernel's command line has the word @w. */
static bool cmdline_has(const char *w)
{
	char buf[4096];
	size_t n, len = strlen(w);
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (char *p = buf; (p = strstr(p, w)); p += len)
		if ((p == buf || p[-1] == ' ') && (!p[len] || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

/* Probe, tell the model, say so. False when the probe failed. */
static bool zero_page(struct opts *o)
{
	int zero = conform_probe_zero_page();

	if (zero < 0)
		return false;
	o->run.no_zero_page = o->model_zero >= 0 ? !o->model_zero : !zero;
	if (!zero)
		fprintf(stderr,
			"vmafuzz conform: note: this kernel allocates a page on a read fault of "
			"private anonymous memory instead of mapping the zero page%s; the model "
			"does the same (mm_forbids_zeropage)%s\n",
			cmdline_has("pvm_no_zero_page=1") ? " (booted with pvm_no_zero_page=1)"
							  : "",
			o->model_zero == 1 ? ", not with --model-zero-page yes" : "");
	else if (o->model_zero == 0)
		fprintf(stderr, "vmafuzz conform: note: this kernel maps the zero page on a read "
				"fault of private anonymous memory; the model does not "
				"(--model-zero-page no)\n");
	return true;
}

/* ---- the command line ----------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *e;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &e, 0);
	return !errno && !*e && *v <= max;
}

/* A flag without a value: true when @a is one. */
static bool flag(const char *a, struct opts *o)
{
	static const struct {
		const char *name;
		size_t off;
	} flags[] = {
	    {"-v", offsetof(struct conform_opts, verbose)},
	    {"--keep-going", offsetof(struct conform_opts, keep_going)},
	    {"--no-rollup", offsetof(struct conform_opts, no_rollup)},
	    {"--selftest-flip-wf", offsetof(struct conform_opts, flip_wf)},
	    {"--selftest-flip-child-wf", offsetof(struct conform_opts, flip_child)},
	    {"--selftest-flip-child-pgoff", offsetof(struct conform_opts, flip_pgoff)},
	    {"--selftest-flip-child-data", offsetof(struct conform_opts, flip_data)},
	};

	for (unsigned i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(a, flags[i].name)) {
			*(bool *)((char *)&o->run + flags[i].off) = true;
			return true;
		}
	return false;
}

/* --random, --seed, --ops and their numbers: 0, or 2 after a message. */
static int number(const char *a, const char *v, uint64_t *nrandom, uint64_t *seed, uint64_t *nops)
{
	uint64_t max = !strcmp(a, "--ops") ? PROG_MAX_OPS : UINT64_MAX, x;

	if (!v)
		return cmd_usage_error("conform", "%s needs a number", a);
	if (!parse_u64(v, max, &x) || (x == 0 && strcmp(a, "--seed")))
		return cmd_usage_error("conform",
				       !strcmp(a, "--ops") ? "--ops takes 1..128, not '%s'"
							   : "not a positive number: '%s'",
				       v);
	*(!strcmp(a, "--random") ? nrandom : !strcmp(a, "--seed") ? seed : nops) = x;
	return 0;
}

int cmd_conform(int argc, char **argv)
{
	struct opts o;
	uint64_t nrandom = 0, seed = 1, nops = 40;
	char **files = argv + 1;
	int nfiles = 0;

	memset(&o, 0, sizeof(o));
	o.model_zero = -1;
	o.print_random = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (flag(a, &o))
			continue;
		if (!strcmp(a, "--mark")) {
			o.mark = o.run.mark = true;
			continue;
		}
		/* a condition of agreement taken away in the real processes
		 * (live/real_proc.c), for a test that shows it matters */
		if (!strcmp(a, "--selftest-no-drain") || !strcmp(a, "--selftest-spread-cpus")) {
			setenv("VMAFUZZ_REAL_SELFTEST", a + strlen("--selftest-"), 1);
			continue;
		}
		if (!strcmp(a, "--print-random")) {
			uint64_t k;

			if (i + 1 >= argc || !parse_u64(argv[i + 1], INT64_MAX, &k))
				return cmd_usage_error("conform",
						       "--print-random takes a program's "
						       "number, not '%s'",
						       i + 1 < argc ? argv[i + 1] : "");
			o.print_random = (int64_t)k;
			i++;
			continue;
		}
		if (!strcmp(a, "--model-version")) {
			unsigned v;

			if (i + 1 >= argc || !kver_parse(argv[i + 1], &v) || kver_known(v) != v)
				return cmd_usage_error("conform",
						       "--model-version takes a version the model "
						       "knows (6.1 to the newest), not '%s'",
						       i + 1 < argc ? argv[i + 1] : "");
			o.run.kver = v;
			i++;
			continue;
		}
		if (!strcmp(a, "--model-zero-page")) {
			if (i + 1 >= argc ||
			    (strcmp(argv[i + 1], "yes") && strcmp(argv[i + 1], "no")))
				return cmd_usage_error("conform", "%s takes yes or no", a);
			o.model_zero = !strcmp(argv[++i], "yes");
		} else if (!strcmp(a, "--random") || !strcmp(a, "--seed") || !strcmp(a, "--ops")) {
			int e = number(a, i + 1 < argc ? argv[++i] : NULL, &nrandom, &seed, &nops);

			if (e)
				return e;
		} else if (a[0] == '-' && a[1]) {
			return cmd_usage_error("conform", "unknown option '%s'", a);
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (nrandom && nfiles)
		return cmd_usage_error("conform", "takes files or --random N, not both (got '%s')",
				       files[0]);
	if (!nrandom && !nfiles)
		return cmd_usage_error("conform", "%s", "needs files or --random N");
	if (o.print_random >= 0 && (!nrandom || (uint64_t)o.print_random >= nrandom))
		return cmd_usage_error("conform", "--print-random K needs --random N with K < N%s",
				       "");
	if (o.print_random >= 0)
		return run_random(nrandom, seed, (unsigned)nops, &o);
	if (!o.run.kver) {
		char v[16];

		o.run.kver = conform_probe_kver();
		kver_print(o.run.kver, v, sizeof(v));
		if (o.mark)
			fprintf(stderr, "vmafuzz: the model follows Linux %s\n", v);
	}
	o.run.commit_limited = conform_probe_commit_limited();
	if (!zero_page(&o))
		return 2;
	return nrandom ? run_random(nrandom, seed, (unsigned)nops, &o)
		       : run_files(nfiles, files, &o);
}
