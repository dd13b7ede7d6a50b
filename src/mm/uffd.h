/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userfaultfd contexts (after fs/userfaultfd.c): a context is created on an
 * mm, registers ranges of its VMAs in modes (missing, write-protect, minor),
 * which sets the VMAs' VM_UFFD_* flags and their context, unregisters them,
 * and on release clears the flags and context of every VMA it covered.
 *
 * Invariants (userfaultfd family): a VMA has userfaultfd flags exactly when
 * it has a context ("no context implies no flags" is what the early return
 * of the userfaultfd-early-return-dup seed relies on in fork); at rest a
 * context's reference count is one per open fd plus one per fork context;
 * no VMA points to a context that is not open on its mm.
 */
#ifndef VMAFUZZ_UFFD_H
#define VMAFUZZ_UFFD_H

#include "mm/types.h"

#define UFFD_MODE_MISSING 1
#define UFFD_MODE_WP 2
#define UFFD_MODE_MINOR 4

struct uffd_ctx {
	struct mm *mm;
	int files;    /* open fds and fdget()s of calls in flight */
	int refcount; /* the file side (one while any is open) and fork contexts */
	bool released;
	bool event_fork;  /* the UFFD_FEATURE_EVENT_FORK feature */
	bool event_remap; /* UFFD_FEATURE_EVENT_REMAP: it follows its VMAs when mremap moves them */
	unsigned id;
	struct uffd_ctx *next; /* the mm's contexts */
};

/* A new context on @mm (NULL: allocation failed). */
struct uffd_ctx *uffd_create(struct mm *mm, bool event_fork);
/* UFFDIO_REGISTER: the VMAs in the range (holes between them are fine): 0,
 * -EINVAL (no VMA there, unaligned, no mode, VMA type), -EBUSY (another
 * context holds a VMA), -ENOMEM (the context's process has exited, or an
 * allocation failed). */
int uffd_register(struct uffd_ctx *ctx, uint64_t start, uint64_t len, unsigned modes);
/* UFFDIO_UNREGISTER: clears this context's VMAs in the range; -EINVAL when
 * there is no VMA there, or one there is another context's; -ENOMEM when the
 * context's process has exited. */
int uffd_unregister(struct uffd_ctx *ctx, uint64_t start, uint64_t len);
/*
 * Two counts, as in the kernel. File references: one per open fd, one per
 * fdget() of a call in progress; dropping the last is the file's release
 * (userfaultfd_release): every VMA of the context loses its flags and
 * context (this takes the mmap write lock: no caller may hold it), then the
 * file side drops its context reference. Context references: the file
 * side's, and one per fork context; the last frees the context.
 */
void uffd_get(struct uffd_ctx *ctx);
void uffd_put(struct uffd_ctx *ctx);
void uffd_ctx_get(struct uffd_ctx *ctx);
void uffd_ctx_put(struct uffd_ctx *ctx);
/* fork: a context for the child (mmap lock of @mm held), and dropping one
 * that never became a file (a failed fork: no release walk). */
struct uffd_ctx *uffd_create_locked(struct mm *mm, bool event_fork);
void uffd_discard(struct uffd_ctx *ctx);

/* mremap_userfaultfd_prep: @v, just moved by mremap, keeps its context only
 * when the context wants the remap event; else it loses context and flags
 * (write-locked here). */
void uffd_mremap_prep(struct vma *v);

/* The userfaultfd family: @mm's open contexts, and one VMA of @mm (called
 * from the VMA checks' walk). */
bool uffd_validate_ctxs(struct mm *mm);
bool uffd_validate_vma(struct mm *mm, struct vma *v);
/* No fork is in flight: every fork context was completed or released. */
bool uffd_check_no_fork_ctx(void);

#endif
