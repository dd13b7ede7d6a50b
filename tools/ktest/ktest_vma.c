/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kfuzz_vma program written as a test for the tree's tools/testing/vma
 * program (ktest_vma.h). The recorder is an address-space backend over the
 * model: each call the kernel's VMA code would run goes to the model, and
 * the call kfuzz_vma makes (kernel/vma/kvma_backend.c's kv_call) is written
 * with the model's answer and the model's VMAs after it expected.
 */
#include "ktest_vma.h"

#include "fuzz/as/as_diff.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/as/vma_stub_refusal.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/mm_run.h"
#include "ktest_text.h"
#include "mm/kver.h"
#include "runtime/check.h"

#include "ktest_text_gen.h" /* generated: scripts/c-strings.sh, out/gen/ */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define KV_MAXV 4096

static struct kv {
	FILE *body; /* the function's statements */
	char *buf;
	size_t len;
	const struct prog_op *step; /* the step under way */
	unsigned stepno;
	bool commented;		 /* its comment written */
	struct ktest_refusal no; /* why it cannot be a test */
	unsigned kver;
	struct as_vma vmas[KV_MAXV];
} R;

#define refuse(...) ktest_refuse(&R.no, __VA_ARGS__)

/* "N: <the step as text>", the step's comment */
static void step_text(char *buf, size_t len)
{
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);

	if (f) {
		prog_print_op(f, &mm_seq_desc, R.step);
		fclose(f);
	}
	snprintf(buf, len, "%u: %s", R.stepno, t ? t : "?");
	free(t);
}

static void comment_step(const char *note)
{
	char text[256];

	if (R.commented || !R.step)
		return;
	R.commented = true;
	step_text(text, sizeof(text));
	/* (text that would end the comment is broken up) */
	for (char *p = text; (p = strstr(p, "*/"));)
		p[1] = ' ';
	fprintf(R.body, "\n\t/* %s%s%s */\n", text, note ? " -- " : "", note ? note : "");
}

/* Bits as "NAME | NAME | 0x..", after @names (value, name; 0-terminated). */
struct bit_name {
	unsigned long v;
	const char *name;
};

static void put_bits(FILE *out, unsigned long v, const struct bit_name *names)
{
	bool first = true;

	for (const struct bit_name *b = names; b->name; b++) {
		if ((v & b->v) != b->v)
			continue;
		fprintf(out, "%s%s", first ? "" : " | ", b->name);
		v &= ~b->v;
		first = false;
	}
	if (v || first)
		fprintf(out, "%s%#lx", first ? "" : " | ", v);
}

static const struct bit_name prot_names[] = {
    {0x1, "KVMA_PROT_READ"}, {0x2, "KVMA_PROT_WRITE"}, {0x4, "KVMA_PROT_EXEC"}, {0, NULL}};
static const struct bit_name map_names[] = {{0x100000, "KVMA_MAP_FIXED_NOREPLACE"},
					    {0x10, "KVMA_MAP_FIXED"},
					    {0x01, "KVMA_MAP_SHARED"},
					    {0x02, "KVMA_MAP_PRIVATE"},
					    {0x20, "KVMA_MAP_ANONYMOUS"},
					    {0, NULL}};

static const char *advice_name(int advice)
{
	switch (advice) {
	case 4:
		return "KVMA_MADV_DONTNEED";
	case 10:
		return "KVMA_MADV_DONTFORK";
	case 11:
		return "KVMA_MADV_DOFORK";
	case 18:
		return "KVMA_MADV_WIPEONFORK";
	case 19:
		return "KVMA_MADV_KEEPONFORK";
	}
	return NULL;
}

/* A result as C: an address in hex, 0, or -ENAME. */
static void put_result(FILE *out, int64_t r)
{
	const char *name = r < 0 && r > -4096 ? strerrorname_np((int)-r) : NULL;

	if (name)
		fprintf(out, "-%s", name);
	else if (r < 0)
		fprintf(out, "%" PRId64, r);
	else
		fprintf(out, "%#" PRIx64, (uint64_t)r);
}

/* ---- the recording backend: the model, with the kernel's calls written */

/* What kfuzz_vma runs on neither side (as as_pair does with its primary's
 * refusals): the stubs' limits, and what the model refuses. */
static const char *kv_refuses(void *as, const struct mm_call *c)
{
	const char *why = vma_stub_refusal(c);

	if (!why && as_model.refuses)
		why = as_model.refuses(as, c);
	return why;
}

static void kv_expect_vmas(void *as)
{
	char err[256];
	int n = as_model.vmas(as, 0, 0, UINT64_MAX, false, R.vmas, KV_MAXV, err, sizeof(err));

	if (n < 0) {
		refuse("the model cannot show p0's VMAs at step %u: %s", R.stepno, err);
		return;
	}
	if (n == 0) {
		fprintf(R.body, "\tASSERT_TRUE(vmafuzz_vmas_are(&k->mm, NULL, 0));\n");
		return;
	}
	fprintf(R.body, "\tASSERT_TRUE(vmafuzz_vmas_are(&k->mm, (const struct vmafuzz_vma[]){\n");
	for (int i = 0; i < n; i++)
		fprintf(R.body, "\t\t{%#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 "},\n",
			R.vmas[i].start, R.vmas[i].end, (uint64_t)(R.vmas[i].flags & AS_DIFF_FLAGS),
			R.vmas[i].pgoff);
	fprintf(R.body, "\t}, %d));\n", n);
}

static void kv_call(void *as, struct mm_call *c)
{
	FILE *o = R.body;
	const char *adv;

	if (kv_refuses(as, c)) {
		comment_step("not run: kfuzz_vma leaves it out");
		c->result = -ENOSYS;
		return;
	}
	if (R.step && R.step->fail_at)
		refuse("step %u carries fail_at: the tree's test program cannot fail an "
		       "allocation, and fail_at counted kfuzz_vma's allocations, not the model's",
		       R.stepno);
	as_model.call(as, c);
	if (R.no.refused)
		return;
	comment_step(NULL);
	fprintf(o, "\tASSERT_EQ(");
	switch (c->code) {
	case MMF_OP_MMAP:
		fprintf(o, "kvma_mmap(k, %#" PRIx64 ", %#" PRIx64 ", ", c->start, c->len);
		put_bits(o, (unsigned long)mmf_prot(c->a.prot), prot_names);
		fprintf(o, ",\n\t\t\t    ");
		put_bits(o, (unsigned long)mmf_mmap_flags(&c->a), map_names);
		fprintf(o, ")");
		break;
	case MMF_OP_MUNMAP:
		fprintf(o, "kvma_munmap(k, %#" PRIx64 ", %#" PRIx64 ")", c->start, c->len);
		break;
	case MMF_OP_MPROTECT:
		fprintf(o, "kvma_mprotect(k, %#" PRIx64 ", %#" PRIx64 ", ", c->start, c->len);
		put_bits(o, (unsigned long)mmf_prot(c->a.prot), prot_names);
		fprintf(o, ")");
		break;
	case MMF_OP_MADVISE:
		adv = advice_name(mmf_advice(c->a.advice));
		fprintf(o, "kvma_madvise(k, %#" PRIx64 ", %#" PRIx64 ", ", c->start, c->len);
		if (adv)
			fprintf(o, "%s)", adv);
		else
			fprintf(o, "%d)", mmf_advice(c->a.advice));
		break;
	default:
		/* vma_stub_refusal lets no other call through */
		refuse("step %u: a call kfuzz_vma does not make (code %u)", R.stepno, c->code);
		return;
	}
	/* (the calls return int64_t or int: the expected value as the same) */
	fprintf(o, ", (%s)", c->code == MMF_OP_MMAP ? "int64_t" : "int");
	put_result(o, c->result);
	fprintf(o, ");\n");
	kv_expect_vmas(as);
}

static const struct as_backend *recorder(void)
{
	static struct as_backend b;

	b = as_model;
	b.name = "ktest-vma";
	b.refuses = kv_refuses;
	b.call = kv_call;
	return &b;
}

static void kv_configure(struct mm_exec *m, uint8_t config)
{
	(void)config;
	m->kver = R.kver;
	as_model_set_kver(m->as, R.kver);
}

static void kv_op(void *state, const struct prog_op *op)
{
	struct mm_exec *m = state;

	R.step = op;
	R.stepno = (unsigned)(op - m->ops) + 1;
	R.commented = false;
	mm_exec_op(m, op);
	/* (a step of another process never reaches the backend's call) */
	comment_step("not run: kfuzz_vma leaves it out");
	R.step = NULL;
}

/* The layout's callers file, as text. */
static const char *callers_text(const char *layout)
{
	if (!strcmp(layout, "vma-merge-api"))
		return repro_text_kvma_callers_merge_api_c;
	if (!strcmp(layout, "vma-mmap-region"))
		return repro_text_kvma_callers_mmap_region_c;
	return NULL;
}

/* Each -DKVMA_HAVE_<name> of the build's KVMA_DEFS as a #define. */
static void put_haves(FILE *out, const char *defs)
{
	for (const char *p = defs; (p = strstr(p, "-DKVMA_HAVE_"));) {
		size_t n = strcspn(p + 2, " \t\n");

		fprintf(out, "#define %.*s\n", (int)n, p + 2);
		p += 2 + n;
	}
}

bool ktest_vma_write(FILE *out, const uint8_t *data, size_t size, const char *name,
		     const char *comment, const char *tree_name, const struct ktest_vma_tree *tree,
		     char *why, size_t whylen)
{
	const struct mm_target t = {
	    .desc = &mm_seq_desc,
	    .backend = recorder(),
	    .fork_code = MMF_OP_FORK,
	    .op_fn = kv_op,
	    .configure = kv_configure,
	};
	const char *callers = callers_text(tree->layout);
	char *text = NULL;
	unsigned v;

	if (!callers) {
		snprintf(why, whylen, "no callers of mm/vma.c for the layout '%s'", tree->layout);
		return false;
	}
	memset(&R, 0, sizeof(R));
	R.kver = kver_known(kver_parse(tree->release, &v) ? v : KVER_NEWEST);
	if (!ktest_begin_recording(&R.body, &R.buf, &R.len, why, whylen))
		return false;
	if (mm_run_program(&t, data, size) < 0)
		refuse("kfuzz_vma refuses the program as a whole (a fork with the reverted "
		       "anon_vma policy)");
	if (!ktest_end_recording(&R.no, R.body, &R.buf, "the kernel's code", why, whylen))
		return false;
	text = ktest_program_text(&mm_seq_desc, data, size);
	ktest_put_head(out, name, "VMA", "kfuzz_vma", tree_name, comment,
		       "fuzz_mm's operations on one thread", text);
	fprintf(out,
		" *\n"
		" * The system calls run as kfuzz_vma runs them: through vmafuzz's callers\n"
		" * of mm/vma.c (written after mm/mmap.c, mm/mprotect.c and mm/madvise.c,\n"
		" * without pages, page tables or locks; layout %s), copied below\n"
		" * with the address space they run on. Each ASSERT holds what vmafuzz's\n"
		" * model answered; vmafuzz_vmas_are() runs mt_validate and compares every\n"
		" * VMA (start, end, flags, page offset) and map_count after each step.\n"
		" * To run it, in tools/testing/vma's vma.c (main.c where the tests are in\n"
		" * tests/): paste the first part below above the #include of the tree's\n"
		" * mm/ files (it fills the stubs' gaps that mm/vma.c needs, and counts\n"
		" * its VM_WARN_ONs), the rest above main(); call %s() from\n"
		" * main() as the other tests are called, and\n"
		" * make -C tools/testing/vma && tools/testing/vma/vma\n"
		" */\n",
		tree->layout, name);
	fprintf(out, "\n" KTEST_VMA_PART1 "\n");
	fprintf(out, "/* the stubs' gaps in this tree (vmafuzz: kernel/vma/shim/kvma_shim.h) */\n");
	put_haves(out, tree->defs);
	fprintf(out, "/* a shared anonymous mapping gets a file of its own, as in kfuzz_vma (the\n"
		     " * stubs' shmem_zero_setup gives none, and mm/vma.c compares files) */\n"
		     "static int vmafuzz_shmem_zero_setup(struct vm_area_struct *vma);\n"
		     "#define shmem_zero_setup vmafuzz_shmem_zero_setup\n");
	fputs(repro_text_kvma_shim_h, out);
	fprintf(out, "\n" KTEST_VMA_PART2 "\n");
	fprintf(out,
		"/* the VMA flags compared: what a live kernel's smaps and the model both\n"
		" * show (VM_READ, _WRITE, _EXEC, _MAYSHARE, _DONTCOPY, _WIPEONFORK,\n"
		" * _ACCOUNT, _LOCKED, _LOCKONFAULT) */\n"
		"#define VMAFUZZ_FLAGS %#llxul\n\n",
		(unsigned long long)AS_DIFF_FLAGS);
	fprintf(out, "/* the test's support (vmafuzz: tools/ktest/ktest_vma_env.h) */\n");
	fputs(repro_text_ktest_vma_env_h, out);
	fprintf(out, "\n/* ---- the address space (vmafuzz: kernel/vma/kvma_space.c) */\n");
	fputs(repro_text_kvma_space_c, out);
	fprintf(out, "\n/* ---- the callers of mm/vma.c (vmafuzz: kernel/vma/%s) */\n",
		!strcmp(tree->layout, "vma-merge-api") ? "kvma_callers_merge_api.c"
						       : "kvma_callers_mmap_region.c");
	fputs(callers, out);
	fprintf(out, "\nstatic bool %s(void)\n{\n", name);
	fprintf(out,
		"\tstruct kvma_mm *k = kvma_create(%#llx, %#llx);\n\n\tASSERT_TRUE(k != NULL);\n"
		"\tvmafuzz_mm = k;\n\tvmafuzz_warnings = 0;\n",
		(unsigned long long)MMF_WINDOW_LO, (unsigned long long)MMF_WINDOW_HI);
	fwrite(R.buf, 1, R.len, out);
	fprintf(out, "\n\tvmafuzz_mm = NULL;\n\tkvma_destroy(k);\n\treturn true;\n}\n");
	free(R.buf);
	free(text);
	return true;
}
