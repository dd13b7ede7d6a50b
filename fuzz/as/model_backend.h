/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's backend (model_backend.c) from inside: the process table that the
 * model-only targets (fuzz_fork's fork_every and RCU walks, fuzz_rollup's
 * prologue) and conform's model-side questions reach into. Everyone else
 * goes through struct as_backend.
 */
#ifndef VMAFUZZ_MODEL_BACKEND_H
#define VMAFUZZ_MODEL_BACKEND_H

#include "as_backend.h"
#include "mm/types.h"

struct mmf_state {
	struct mm *mm[MMF_MAX_PROCS];
	struct file *files[MMF_FILES];
	struct uffd_ctx *fd[MMF_MAX_PROCS][MMF_FDS]; /* open userfaultfds */
};

/* Process p0 of a fresh model (as_model.open) forbids the zero page, or
 * not (mm_forbids_zeropage, mm/types.h); the processes it forks inherit it. */
void as_model_forbid_zeropage(void *as, bool on);
/* Process p0 behaves as kernel version @kver (src/mm/kver.h), and so do the
 * processes it forks. */
void as_model_set_kver(void *as, unsigned kver);
/* How many userfaultfds process @proc has open (0: no such process). */
int as_model_open_fds(void *as, unsigned proc);

/* The model's files of a fresh model hold zeros until written, as new
 * memfds do, rather than their MMF_FILE_DATA (vmafuzz conform maps them as
 * memfds). */
void as_model_files_hold_zeros(void *as);

/* The process's mm with a reference held (mmget), or NULL; and its release. */
struct mm *mmf_get(struct mmf_state *s, unsigned p);
void mmf_put(struct mmf_state *s, struct mm *mm);
/* The fd table of process @child, new from a fork of @parent's mm: a copy
 * of the parent's (one more file reference on each context). */
void mmf_copy_fds(struct mmf_state *s, struct mm *parent, unsigned child);
/* Resolve a range spec against @mm's VMAs and gaps inside the window, under
 * the mmap read lock (what the program saw when it computed its arguments). */
void mmf_resolve(struct mm *mm, const struct range_spec *spec, uint64_t *start, uint64_t *len);

#endif
