/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz repro --ktest FILE is tools/ktest/'s (ktest.h).
 *
 * vmafuzz repro --c FILE [-o OUT.c] [--kselftest]: a fuzz_mm program as a
 * standalone C program for a kernel developer's test machine.
 *
 * The program must be one the kernel can run as it is, as vmafuzz conform
 * runs it (conform_ops.h: anonymous mmap, munmap, mprotect, madvise, touch
 * and fork on p0 and t0, no fail_at); else the step that cannot and why,
 * exit 2. It runs in the model here, each range resolved as fuzz_mm does
 * (conform_model.h), twice: as a kernel that maps the zero page on a read
 * fault of private anonymous memory, and as one that allocates a page there
 * (mm_forbids_zeropage). Each step's result and VMAs in the window (and a
 * fork's child's) are recorded; repro_emit.c writes them as the expected
 * data of a program that makes the same system calls and compares
 * /proc/self/smaps after each (tools/repro/repro_main.c).
 *
 * --selftest-flip-wf writes a wrong expectation (every wf of p0's VMAs
 * flipped), for the tests to see a reproducer fail with both views.
 */
#include "cmd.h"
#include "crash_input.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "live/conform_model.h"
#include "live/conform_ops.h"
#include "live/conform_probe.h"
#include "runtime/check.h"
#include "tools/ktest/ktest.h"
#include "tools/repro/repro_emit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REPRO_MAX_VMAS 4096

struct repro_opts {
	const char *file, *out, *kernel;
	bool c, ktest, tap, flip_wf;
};

/* For an invariant failure inside the model: the program and the state. */
struct repro_ctx {
	const struct prog_desc *d;
	const struct prog *p;
	unsigned step;
	void *model;
};

static void repro_context(FILE *out, void *arg)
{
	struct repro_ctx *x = arg;

	fprintf(out, "--- program (fuzz_mm, under vmafuzz repro), step %u of %u ---\n", x->step,
		x->p->nops);
	prog_print(out, x->d, x->p, (int)x->step);
	fprintf(out, "--- state ---\n");
	as_model.dump(out, x->model);
}

/* The model's VMAs of @proc, as smaps shows them, into a new array. */
static bool model_view(void *model, unsigned proc, struct kvma **out, unsigned *n, char *err,
		       size_t errlen)
{
	static struct as_vma v[REPRO_MAX_VMAS];
	int m = conform_model_vmas(model, proc, v, REPRO_MAX_VMAS, err, errlen);

	*out = NULL;
	*n = 0;
	if (m < 0)
		return false;
	if (m && !(*out = calloc((size_t)m, sizeof(**out)))) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (int i = 0; i < m; i++)
		(*out)[i] = (struct kvma){.start = v[i].start,
					  .end = v[i].end,
					  .flags = v[i].flags & KVM_COMPARED,
					  .rss = v[i].rss,
					  .anon = v[i].anon,
					  .pgoff = v[i].pgoff,
					  .pss_kb = v[i].pss_kb,
					  .pss_dirty_kb = v[i].pss_dirty_kb,
					  .shared_clean = v[i].shared_clean,
					  .shared_dirty = v[i].shared_dirty,
					  .private_clean = v[i].private_clean,
					  .private_dirty = v[i].private_dirty};
	*n = (unsigned)m;
	return true;
}

/*
 * Run @p in the model and record each step in @recs. 0, or 2 after a
 * message naming the step that cannot run for real (or what failed).
 */
static int record(const struct prog_desc *d, const struct prog *p, const struct repro_opts *o,
		  bool no_zero_page, struct repro_rec *recs)
{
	struct repro_ctx ctx = {d, p, 0, NULL};
	char why[512], err[256];
	void *model;
	int status = 0;

	if (conform_prog_refuses(d, p, true, why, sizeof(why))) {
		fprintf(stderr, "vmafuzz repro: %s: %s\n", o->file, why);
		return 2;
	}
	model = as_model.open(err, sizeof(err));
	if (!model) {
		fprintf(stderr, "vmafuzz repro: %s: %s\n", o->file, err);
		return 2;
	}
	as_model_forbid_zeropage(model, no_zero_page);
	as_model_set_kver(model, conform_probe_kver());
	ctx.model = model;
	check_set_context(repro_context, &ctx);
	for (unsigned i = 0; i < p->nops && !status; i++) {
		struct repro_rec *r = &recs[i];
		const char *why_skip;
		struct mm_call c;
		FILE *f;

		ctx.step = i;
		conform_model_resolve(model, d, &p->ops[i], &c);
		conform_op_text(d, &p->ops[i], r->op, sizeof(r->op));
		if ((why_skip = conform_model_skip(model, &c))) {
			fprintf(stderr, "vmafuzz repro: %s: operation %u (%s): %s\n", o->file, i,
				r->op, why_skip);
			status = 2;
			break;
		}
		conform_kcall(&c, &r->call);
		f = fmemopen(r->text, sizeof(r->text), "w");
		if (f) {
			conform_print_call(f, &c);
			fclose(f);
		}
		r->text[sizeof(r->text) - 1] = 0;
		if (!conform_model_call(model, &c, i, why, sizeof(why))) {
			fprintf(stderr, "vmafuzz repro: %s: %s\n", o->file, why);
			status = 2;
			break;
		}
		r->result = c.result;
		if (!model_view(model, 0, &r->vmas, &r->nvmas, err, sizeof(err))) {
			fprintf(stderr, "vmafuzz repro: %s: operation %u: %s\n", o->file, i, err);
			status = 2;
			break;
		}
		for (unsigned j = 0; o->flip_wf && j < r->nvmas; j++)
			r->vmas[j].flags ^= KVM_WIPEONFORK;
		if (c.code == MMF_OP_FORK && c.result == 0) {
			unsigned q = conform_model_child(model);

			if (!q || !model_view(model, q, &r->child, &r->nchild, err, sizeof(err))) {
				fprintf(stderr, "vmafuzz repro: %s: operation %u: %s\n", o->file, i,
					q ? err : "the model's fork made no process");
				status = 2;
				break;
			}
			conform_model_end_child(model, q);
		}
	}
	check_set_context(NULL, NULL);
	as_model.close(model);
	return status;
}

static int parse(int argc, char **argv, struct repro_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--c") || !strcmp(a, "--ktest")) {
			if (i + 1 >= argc)
				return cmd_usage_error("repro", "%s needs a program file", a);
			if (o->file)
				return cmd_usage_error("repro", "takes one program, not also '%s'",
						       argv[i + 1]);
			o->c = !strcmp(a, "--c");
			o->ktest = !o->c;
			o->file = argv[++i];
		} else if (!strcmp(a, "--kernel")) {
			if (i + 1 >= argc)
				return cmd_usage_error("repro", "%s needs a kernel build folder",
						       a);
			o->kernel = argv[++i];
		} else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return cmd_usage_error("repro", "%s needs a file name", a);
			o->out = argv[++i];
		} else if (!strcmp(a, "--kselftest")) {
			o->tap = true;
		} else if (!strcmp(a, "--selftest-flip-wf")) {
			o->flip_wf = true;
		} else if (a[0] == '-' && a[1]) {
			return cmd_usage_error("repro", "unknown option '%s'", a);
		} else {
			return cmd_usage_error("repro",
					       "unexpected argument '%s' (the program goes "
					       "after --c or --ktest)",
					       a);
		}
	}
	if (!o->c && !o->ktest)
		return cmd_usage_error("repro", "%s",
				       "needs --c FILE or --ktest FILE (the output is C)");
	if (o->ktest && (o->tap || o->flip_wf))
		return cmd_usage_error("repro", "%s", "--kselftest is for --c, not --ktest");
	if (o->c && o->kernel)
		return cmd_usage_error("repro", "%s", "--kernel is for --ktest, not --c");
	return 0;
}

/* The program's text, for the comment atop the C file. */
static char *program_text(const struct prog_desc *d, const struct prog *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	prog_print(f, d, p, -1);
	fclose(f);
	return buf;
}

int cmd_repro(int argc, char **argv)
{
	const struct fuzz_target *t = &fuzz_mm_target;
	struct repro_opts o = {NULL, NULL, NULL, false, false, false, false};
	static struct prog p;
	static struct repro_rec recs[2][PROG_MAX_OPS];
	const struct repro_rec *const both[2] = {recs[0], recs[1]};
	char *text = NULL;
	uint8_t *data;
	size_t size;
	FILE *out = stdout;
	int status = parse(argc, argv, &o);

	if (status)
		return status;
	if (o.ktest)
		return ktest_repro(o.file, o.out, o.kernel);
	data = crash_input_load("repro", t, o.file, &size, NULL);
	if (!data)
		return 2;
	prog_decode(t->desc, data, size, &p);
	free(data);
	/* as the kernel maps the zero page on anonymous read faults, and not */
	status = record(t->desc, &p, &o, false, recs[0]);
	if (!status)
		status = record(t->desc, &p, &o, true, recs[1]);
	if (!status && !(text = program_text(t->desc, &p))) {
		fprintf(stderr, "vmafuzz repro: out of memory\n");
		status = 2;
	}
	if (!status && o.out && strcmp(o.out, "-") && !(out = fopen(o.out, "w"))) {
		fprintf(stderr, "vmafuzz repro: cannot write %s: %s\n", o.out, strerror(errno));
		status = 2;
	}
	if (!status) {
		if (!repro_emit(out, both, p.nops, o.file, text, o.tap)) {
			fprintf(stderr, "vmafuzz repro: cannot write %s\n",
				o.out ? o.out : "stdout");
			status = 2;
		}
		if (out != stdout && fclose(out)) {
			fprintf(stderr, "vmafuzz repro: cannot write %s: %s\n", o.out,
				strerror(errno));
			status = 2;
		}
		if (status && out != stdout)
			remove(o.out);
	}
	for (unsigned z = 0; z < 2; z++)
		for (unsigned i = 0; i < p.nops; i++) {
			free(recs[z][i].vmas);
			free(recs[z][i].child);
		}
	free(text);
	return status;
}
