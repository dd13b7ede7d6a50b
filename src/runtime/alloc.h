/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Typed allocation for every model object.
 *
 * Each allocation names its kind, so the model can count allocations, frees
 * and live objects per kind, and so the memory invariants can compare the
 * objects alive with the objects reachable. A failure injector makes the Nth
 * allocation counted from a point the caller sets return NULL, which is how
 * programs exercise the kernel's -ENOMEM paths at every allocation site.
 *
 * Live objects are kept on one list per kind (an intrusive header in front of
 * each object), so a leak report can name what leaked.
 */
#ifndef VMAFUZZ_ALLOC_H
#define VMAFUZZ_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ALLOC_KINDS(X)                                                                             \
	X(MT_NODE, "tree node")                                                                    \
	X(MM, "mm")                                                                                \
	X(VMA, "vma")                                                                              \
	X(ANON_VMA, "anon_vma")                                                                    \
	X(AVC, "anon_vma_chain")                                                                   \
	X(PAGE, "page")                                                                            \
	X(PGTABLE, "page table")                                                                   \
	X(UFFD_CTX, "userfaultfd ctx")                                                             \
	X(UFFD_FORK_CTX, "userfaultfd fork ctx")                                                   \
	X(FILE, "file")                                                                            \
	X(OTHER, "other")

enum alloc_kind {
#define ALLOC_ENUM(k, name) AK_##k,
	ALLOC_KINDS(ALLOC_ENUM)
#undef ALLOC_ENUM
	    AK_NR
};

struct alloc_stats {
	uint64_t allocs[AK_NR];
	uint64_t frees[AK_NR];
	uint64_t live[AK_NR];
	uint64_t failed[AK_NR]; /* allocations refused by the injector */
};

const char *alloc_kind_name(enum alloc_kind kind);

/* Zeroed object of @size bytes, or NULL when the injector says this one fails. */
void *model_alloc(enum alloc_kind kind, size_t size);
/* Free an object from model_alloc(); @kind must match. NULL is ignored. */
void model_free(enum alloc_kind kind, void *obj);

/*
 * Failure injection: after alloc_fail_arm(n) with n >= 1, the nth allocation
 * from now by the same fiber (sched.h) fails, exactly one. n == 0 disarms.
 * Each fiber arms its own, so an operation's fail_at never hits another
 * fiber's allocation.
 */
void alloc_fail_arm(uint64_t n);
/*
 * The same, and once the nth has failed, each of the 8 allocations after it
 * whose bit in @then is set fails too (bit 0: the next one): a caller that
 * retries a failed allocation (the kernel's maple tree does, once per
 * attempt) can be failed again at any chosen attempt, the others succeeding.
 */
void alloc_fail_arm_then(uint64_t n, uint8_t then);
void alloc_fail_disarm(void);
/*
 * For an allocator the runtime does not own (the kernel's maple tree,
 * kernel/maple/kmt_unit.c): count one allocation attempt of @kind by the running
 * fiber against the armed failure, as model_alloc does, and say whether
 * this one fails (it then counts in alloc_stats()->failed). Nothing is
 * allocated or counted live.
 */
bool alloc_fail_next(enum alloc_kind kind);
/*
 * Step aside from the armed failure: code that runs beside an operation but
 * is not part of it (a second backend shadowing the first, to compare) takes
 * no count and cannot fail between pause and resume, and the operation's
 * countdown and fired state are as before afterwards.
 */
struct alloc_fail_pause {
	uint64_t countdown, since_arm;
	uint8_t then;
	bool fired;
};
void alloc_fail_pause(struct alloc_fail_pause *p);
void alloc_fail_resume(const struct alloc_fail_pause *p);
/* Whether the armed failure has fired since the last arm. */
bool alloc_fail_fired(void);
/* Allocations attempted since the last arm (including the failed one). */
uint64_t alloc_since_arm(void);

const struct alloc_stats *alloc_stats(void);
uint64_t alloc_live(enum alloc_kind kind);
uint64_t alloc_live_total(void);

/*
 * Whether @obj is a live object of @kind, found without reading @obj: for
 * failure reports, which must not read what a broken operation freed.
 * Linear in the live objects of @kind; not for the checks' hot paths.
 */
bool alloc_is_live(enum alloc_kind kind, const void *obj);

/* Visit every live object of @kind (order of allocation). */
void alloc_for_each_live(enum alloc_kind kind, void (*fn)(void *obj, void *arg), void *arg);

/* Free every live object (after a failed program, so the next starts clean)
 * and reset counters and the injector. */
void alloc_reset(void);

#endif
