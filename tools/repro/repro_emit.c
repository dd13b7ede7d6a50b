/* SPDX-License-Identifier: GPL-2.0 */
/* Writing a C reproducer (repro_emit.h). */
#include "repro_emit.h"
#include "live/conform_ops.h"
#include "repro_text.h" /* generated: scripts/c-strings.sh, out/gen/ */

#include <inttypes.h>
#include <string.h>

/* @s as a C string literal. */
static void put_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if ((unsigned char)*s < ' ')
			fprintf(out, "\\%03o", (unsigned char)*s);
		else if (*s == '?' && s[1] == '?')
			fputs("?\"\"", out); /* no trigraph */
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* The program as a comment: " *   " before each line, no comment end. */
static void put_comment_text(FILE *out, const char *text)
{
	fputs(" *   ", out);
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			fputs(p[1] ? "\n *   " : "\n", out);
			continue;
		}
		fputc(*p, out);
		if (*p == '*' && p[1] == '/')
			fputc(' ', out);
	}
}

static void put_vm_flags(FILE *out, uint64_t flags)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {{KVM_READ, "KVM_READ"},
		     {KVM_WRITE, "KVM_WRITE"},
		     {KVM_EXEC, "KVM_EXEC"},
		     {KVM_SHARED, "KVM_SHARED"},
		     {KVM_MAYREAD, "KVM_MAYREAD"},
		     {KVM_MAYWRITE, "KVM_MAYWRITE"},
		     {KVM_MAYEXEC, "KVM_MAYEXEC"},
		     {KVM_MAYSHARE, "KVM_MAYSHARE"},
		     {KVM_GROWSDOWN, "KVM_GROWSDOWN"},
		     {KVM_UFFD_MISSING, "KVM_UFFD_MISSING"},
		     {KVM_UFFD_WP, "KVM_UFFD_WP"},
		     {KVM_LOCKED, "KVM_LOCKED"},
		     {KVM_DONTCOPY, "KVM_DONTCOPY"},
		     {KVM_LOCKONFAULT, "KVM_LOCKONFAULT"},
		     {KVM_ACCOUNT, "KVM_ACCOUNT"},
		     {KVM_WIPEONFORK, "KVM_WIPEONFORK"},
		     {KVM_UFFD_MINOR, "KVM_UFFD_MINOR"}};
	bool any = false;

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit) {
			fprintf(out, "%s%s", any ? " | " : "", names[i].name);
			any = true;
		}
	if (!any)
		fputs("0", out);
}

static void put_vmas(FILE *out, const char *name, const struct kvma *v, unsigned n)
{
	char buf[192];

	if (!n)
		return;
	fprintf(out, "static const struct kvma %s[] = {\n", name);
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "\t/* %s */\n", ksys_vma_str(&v[i], CONFORM_LO, buf, sizeof(buf)));
		fprintf(out, "\t/*   %s */\n", ksys_vma_more(&v[i], buf, sizeof(buf)));
		fprintf(out, "\t{0x%" PRIx64 "ull, 0x%" PRIx64 "ull, ", v[i].start, v[i].end);
		put_vm_flags(out, v[i].flags & KVM_COMPARED);
		/* rss, anon, pgoff, pss_kb, pss_dirty_kb, shared and private
		 * clean and dirty */
		fprintf(out,
			", %" PRIu64 ", %" PRIu64 ", 0x%" PRIx64 ", %" PRIu64 ", %" PRIu64
			", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "},\n",
			v[i].rss, v[i].anon, v[i].pgoff, v[i].pss_kb, v[i].pss_dirty_kb,
			v[i].shared_clean, v[i].shared_dirty, v[i].private_clean,
			v[i].private_dirty);
	}
	fputs("};\n", out);
}

static void put_call(FILE *out, const struct kcall *k)
{
	static const char *const codes[] = {"KSYS_MMAP",    "KSYS_MUNMAP",   "KSYS_MPROTECT",
					    "KSYS_MADVISE", "KSYS_TOUCH",    "KSYS_FORK",
					    "KSYS_EXIT",    "KSYS_MREMAP",   "KSYS_MLOCK",
					    "KSYS_MUNLOCK", "KSYS_MLOCKALL", "KSYS_MUNLOCKALL"};

	fprintf(out, "\t {.code = %s",
		k->code >= 0 && k->code <= KSYS_MUNLOCKALL ? codes[k->code] : "-1");
	if (k->code == KSYS_FORK || k->code == KSYS_MUNLOCKALL) {
		fputs("},\n", out);
		return;
	}
	if (k->code == KSYS_MLOCKALL) {
		fputs(", .flags = ", out);
		conform_print_mcl_flags(out, k->flags);
		fputs("},\n", out);
		return;
	}
	fprintf(out, ", .start = 0x%" PRIx64 "ull, .len = 0x%" PRIx64 "ull", k->start, k->len);
	if (k->code == KSYS_MMAP || k->code == KSYS_MPROTECT) {
		fputs(", .prot = ", out);
		conform_print_prot(out, k->prot);
	}
	if (k->code == KSYS_MMAP) {
		fputs(", .flags = ", out);
		conform_print_mmap_flags(out, k->flags);
	}
	if (k->code == KSYS_MADVISE) {
		fputs(", .advice = ", out);
		conform_print_advice(out, k->advice);
	}
	if (k->code == KSYS_TOUCH)
		fprintf(out, ", .write = %d, .touch_max_pages = %" PRIu64, k->write,
			k->touch_max_pages);
	if (k->code == KSYS_MREMAP) {
		fputs(", .flags = ", out);
		conform_print_mremap_flags(out, k->flags);
		fprintf(out, ", .new_addr = 0x%" PRIx64 "ull, .new_len = 0x%" PRIx64 "ull",
			k->new_addr, k->new_len);
	}
	if (k->code == KSYS_MLOCK && k->flags)
		fputs(", .flags = MLOCK_ONFAULT", out);
	fputs("},\n", out);
}

static bool kvmas_same(const struct kvma *a, unsigned na, const struct kvma *b, unsigned nb)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (!ksys_vma_same(&a[i], &b[i]))
			return false;
	return true;
}

bool repro_rec_same(const struct repro_rec *a, const struct repro_rec *b)
{
	return !memcmp(&a->call, &b->call, sizeof(a->call)) && a->result == b->result &&
	       kvmas_same(a->vmas, a->nvmas, b->vmas, b->nvmas) &&
	       kvmas_same(a->child, a->nchild, b->child, b->nchild);
}

/* One recording as a static array @array of steps; names prefixed @pre. */
static void put_steps(FILE *out, const struct repro_rec *steps, unsigned n, const char *pre,
		      const char *array)
{
	char vname[48];

	for (unsigned i = 0; i < n; i++) {
		snprintf(vname, sizeof(vname), "%sstep%u_vmas", pre, i);
		put_vmas(out, vname, steps[i].vmas, steps[i].nvmas);
		snprintf(vname, sizeof(vname), "%sstep%u_child", pre, i);
		put_vmas(out, vname, steps[i].child, steps[i].nchild);
	}
	fprintf(out, "\nstatic const struct repro_step %s[] = {\n", array);
	for (unsigned i = 0; i < n; i++) {
		const struct repro_rec *s = &steps[i];

		fprintf(out, "\t/* step %u */\n\t{", i);
		put_str(out, s->op);
		fputs(",\n\t ", out);
		put_str(out, s->text);
		fputs(",\n", out);
		put_call(out, &s->call);
		if (s->result >= (int64_t)CONFORM_LO)
			fprintf(out, "\t 0x%" PRIx64 ", ", (uint64_t)s->result);
		else
			fprintf(out, "\t %" PRId64 ", ", s->result);
		if (s->nvmas)
			fprintf(out, "%sstep%u_vmas, %u, ", pre, i, s->nvmas);
		else
			fputs("NULL, 0, ", out);
		if (s->nchild)
			fprintf(out, "%sstep%u_child, %u},\n", pre, i, s->nchild);
		else
			fputs("NULL, 0},\n", out);
	}
	if (!n)
		fputs("\t{NULL, NULL, {0}, 0, NULL, 0, NULL, 0},\n", out);
	fputs("};\n", out);
}

static void put_data(FILE *out, const struct repro_rec *const steps[2], unsigned n,
		     const char *name, bool tap)
{
	bool same = true;

	for (unsigned i = 0; i < n && same; i++)
		same = repro_rec_same(&steps[0][i], &steps[1][i]);
	fputs("/* ---- the steps, as the model ran them (vmafuzz repro) ---- */\n\n", out);
	if (same) {
		fputs("/* the same whether the kernel maps the zero page on anonymous read faults "
		      "or not */\n",
		      out);
		put_steps(out, steps[0], n, "", "steps");
		fputs("const struct repro_step *const repro_steps[2] = {steps, steps};\n", out);
	} else {
		fputs("/* a kernel that maps the zero page on a read fault of private anonymous "
		      "memory */\n",
		      out);
		put_steps(out, steps[0], n, "zero_", "steps_zero");
		fputs("\n/* a kernel that allocates a page there (mm_forbids_zeropage) */\n", out);
		put_steps(out, steps[1], n, "nozero_", "steps_nozero");
		fputs("const struct repro_step *const repro_steps[2] = {steps_zero, "
		      "steps_nozero};\n",
		      out);
	}
	fprintf(out, "const unsigned repro_nsteps = %u;\n", n);
	fprintf(out, "const int repro_tap = %d;\n", tap);
	fputs("const char repro_name[] = ", out);
	put_str(out, name);
	fputs(";\n", out);
	fprintf(out, "const uint64_t repro_lo = 0x%" PRIx64 "ull, repro_hi = 0x%" PRIx64 "ull;\n\n",
		(uint64_t)CONFORM_LO, (uint64_t)CONFORM_HI);
}

bool repro_emit(FILE *out, const struct repro_rec *const steps[2], unsigned n, const char *name,
		const char *program, bool tap)
{
	fputs("// SPDX-License-Identifier: GPL-2.0\n/*\n", out);
	fprintf(out,
		" * A reproducer written by `vmafuzz repro%s --c` from %s:\n"
		" * the fuzz_mm program below, run on this machine's kernel. After each\n"
		" * step it checks that /proc/self/smaps shows, in the window from\n"
		" * 0x%" PRIx64 ", what vmafuzz's model of mm showed (start, end, rwx and\n"
		" * p/s, the offset, VmFlags, Rss, Anonymous, Pss, Pss_Dirty and\n"
		" * Shared/Private Clean/Dirty) and that the call returned what the\n"
		" * model's did; a fork's child checks its own smaps.\n *\n"
		" *   cc -o repro this.c && ./repro\n *\n",
		tap ? " --kselftest" : "", name, (uint64_t)CONFORM_LO);
	if (tap)
		fputs(" * Output in kselftest's TAP; exit 0 pass, 1 a step differs, 4 skip (the\n"
		      " * window is not free).\n",
		      out);
	else
		fputs(" * One line per step; on a difference both views and exit 1; 4: skipped\n"
		      " * (the window is not free).\n",
		      out);
	fputs(" * Where a kernel's read fault of private anonymous memory makes a\n"
	      " * difference (the zero page, or a page of its own), the model's views for\n"
	      " * both are below and the reproducer probes which this kernel does.\n",
	      out);
	fputs(" *\n * The program (@ addresses count pages from the window's start):\n *\n", out);
	put_comment_text(out, program);
	fputs(" */\n#define _GNU_SOURCE\n\n", out);
	fputs(repro_text_ksys_h, out);
	fputc('\n', out);
	fputs(repro_text_repro_h, out);
	fputc('\n', out);
	put_data(out, steps, n, name, tap);
	fputs(repro_text_ksys_c, out);
	fputc('\n', out);
	fputs(repro_text_repro_main_c, out);
	fflush(out);
	return !ferror(out);
}
