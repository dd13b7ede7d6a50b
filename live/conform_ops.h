/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which operations of a fuzz_mm program the running kernel can run, and as
 * which system calls: what vmafuzz conform and vmafuzz repro both take a
 * program's operations to. conform runs every operation but uprobe and
 * fork with the reverted anon_vma policy, on every process, on t0, without
 * fail_at or config bits (no_zero_page aside: the kernel decides it); a
 * reproducer only anonymous mmap (private or shared; fixed, noreplace or
 * hint; populated, locked or a stack), munmap, mremap, mprotect, madvise,
 * mlock (and mlock2), munlock, mlockall, munlockall, touch and fork, on p0.
 * The compared window is fuzz_mm's, with the 255 pages a mapping that
 * starts in it can reach past its top.
 *
 * Nothing here runs the model (conform_model.h is its half of a step).
 */
#ifndef VMAFUZZ_CONFORM_OPS_H
#define VMAFUZZ_CONFORM_OPS_H

#include "fuzz/prog/mm_ops.h"
#include "ksys.h"

#include <stdio.h>

#define CONFORM_LO MMF_WINDOW_LO
#define CONFORM_HI (MMF_WINDOW_HI + (256ull << MMF_PAGE_SHIFT))
#define CONFORM_TOUCH_MAX_PAGES 256 /* the model's MM_TOUCH_MAX_PAGES */
/* Why other operations do not run in a reproducer. */
#define CONFORM_REPRO_ONLY                                                                         \
	"only mmap, munmap, mremap, mprotect, madvise, mlock, munlock, mlockall, munlockall, "     \
	"touch and fork run in a reproducer"

/* The call an operation makes: its code and its arguments by name. */
void conform_op_call(const struct prog_desc *d, const struct prog_op *op, struct mm_call *c);
/* The operation as the program text shows it, in @buf. */
const char *conform_op_text(const struct prog_desc *d, const struct prog_op *op, char *buf,
			    size_t len);
/* Why the resolved call cannot run for real whatever the state, or NULL
 * (the live backend's refusal). */
const char *conform_call_refuses(const struct mm_call *c);
/* Why the operation cannot run for real whatever the state, or NULL; with
 * @repro, in a C reproducer (one process, anonymous memory, no
 * userfaultfd). */
const char *conform_op_refuses(const struct prog_desc *d, const struct prog_op *op, bool repro);
/* Why @p cannot run for real ("operation 3 (t1: touch ...): only thread t0
 * runs for real", in @buf), or NULL. */
const char *conform_prog_refuses(const struct prog_desc *d, const struct prog *p, bool repro,
				 char *buf, size_t len);

/* The system call of a resolved call, with the kernel's values. */
void conform_kcall(const struct mm_call *c, struct kcall *k);

/* An address as a page of the window, as the program's @ ranges count. */
uint64_t conform_pg(uint64_t addr);
/* A result: "-ENOMEM", "0x200000010000 (@0x10)" or a number. */
void conform_print_result(FILE *out, int64_t r);
/* The resolved call in the kernel's terms: "mprotect(0x... @0x14, 0x4000 (4
 * pages), PROT_READ)". Its prot and flags are C expressions. */
void conform_print_call(FILE *out, const struct mm_call *c);
/* prot, mmap flags and advice (kernel values) as C expressions:
 * "PROT_READ|PROT_WRITE", "MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED", "MADV_DONTNEED". */
void conform_print_prot(FILE *out, int prot);
void conform_print_mmap_flags(FILE *out, int flags);
void conform_print_advice(FILE *out, int advice);
/* mremap's and mlockall's flags: "MREMAP_MAYMOVE|MREMAP_FIXED", "MCL_CURRENT". */
void conform_print_mremap_flags(FILE *out, int flags);
void conform_print_mcl_flags(FILE *out, int flags);

#endif
