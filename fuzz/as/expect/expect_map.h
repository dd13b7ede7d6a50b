/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation's pieces (expect.h), shared by the calls' effects
 * (expect.c) and the comparison (expect_check.c): a record says what
 * a run of pages of a process must be; each process's map gives every
 * mapped page its record (by page number: address >> MMF_PAGE_SHIFT); an
 * object is what shared pages map (a model file, or the memory of one
 * shared anonymous mmap) with the data written into it; a context is a
 * userfaultfd. Records are never changed once made: changing pages makes a
 * new record for them, so a fork's child can share its parent's.
 */
#ifndef VMAFUZZ_EXPECT_MAP_H
#define VMAFUZZ_EXPECT_MAP_H

#include "fuzz/as/as_backend.h"
#include "fuzz/tree/mtref.h"

#include <stdbool.h>
#include <stdint.h>

/* What a record leaves unknown (not compared). */
#define EU_MAP 1u  /* everything: the pages may be mapped or not, as anything */
#define EU_ATTR 2u /* permissions and fork flags */
#define EU_UFFD 4u /* the userfaultfd registration */
#define EU_DATA 8u /* what the pages hold */
/* the file offset (private anonymous memory mremap moved: its VMA may keep
 * the old offsets or take the new place's) */
#define EU_PGOFF 16u

/* What the pages hold. */
enum exp_data {
	ED_ZERO,   /* zeros: anonymous memory nobody wrote */
	ED_OBJECT, /* what their object holds at their offset */
	ED_VALUE,  /* page x holds base + (x - origin) */
};

/* The flags a record says (as_vma bits). */
#define EXP_FLAGS                                                                                  \
	(AS_VM_READ | AS_VM_WRITE | AS_VM_EXEC | AS_VM_MAYSHARE | AS_VM_GROWSDOWN | AS_VM_LOCKED | \
	 AS_VM_LOCKONFAULT | AS_VM_DONTCOPY | AS_VM_WIPEONFORK)
#define EXP_LOCK_FLAGS (AS_VM_LOCKED | AS_VM_LOCKONFAULT)
#define EXP_UFFD_FLAGS (AS_VM_UFFD_MISSING | AS_VM_UFFD_WP | AS_VM_UFFD_MINOR)

struct exp_rec {
	uint64_t flags;	 /* EXP_FLAGS and EXP_UFFD_FLAGS bits */
	uint8_t unknown; /* EU_* */
	uint8_t data;	 /* enum exp_data */
	uint32_t ctx;	 /* the userfaultfd context, 0: none */
	uint32_t obj;	 /* the object + 1 its pages map, 0: private anonymous */
	int64_t pgdelta; /* page x has file offset x + pgdelta (in pages) */
	uint64_t base;	 /* ED_VALUE */
	int64_t origin;	 /* ED_VALUE */
};

/* An object's data: what was written into it, by page offset (records with
 * ED_VALUE, or EU_DATA: unknown); other pages hold fill + offset (0: zero). */
struct exp_obj {
	struct mtref data;
	uint64_t fill;
};

/* A userfaultfd context. */
struct exp_ctx {
	uint8_t owner;	  /* the process whose pages it registers, or EXP_NOBODY */
	bool event_fork;  /* forks pass its registrations on */
	bool event_remap; /* mremap's moves keep its registrations */
	uint32_t token;	  /* the backend's name for it, once seen (0: not yet) */
};

/* Every record, object and context of a program's expectation. */
struct exp_store {
	struct exp_rec *rec; /* records, by number - 1 */
	unsigned nrec, caprec;
	struct exp_obj *obj; /* files, then shared anonymous memory */
	unsigned nobj, capobj;
	bool obj_vague;	     /* shared data may have been written anywhere */
	uint64_t objgen;     /* changes when shared data does */
	struct exp_ctx *ctx; /* userfaultfd contexts, by number - 1 */
	unsigned nctx, capctx;
};

/* An fd slot that holds nothing or a context of process @owner (EXP_NOBODY:
 * of no followed process; EXP_ANYONE: of any), which is not known. */
#define EXP_FD_VAGUE(owner) (0x80000000u | (owner))
#define EXP_FD_IS_VAGUE(v) ((v)&0x80000000u)
#define EXP_NOBODY 0xfeu
#define EXP_ANYONE 0xffu

/* The record numbered @n (map entries are numbers, never NULL). */
static inline const struct exp_rec *exp_rec(const struct exp_store *e, const void *n)
{
	return &e->rec[(uintptr_t)n - 1];
}

/* A record like @r, as a map entry. */
void *exp_rec_new(struct exp_store *e, const struct exp_rec *r);
/* Pages [first, last] of @m become @entry (NULL: unmapped). */
void exp_map_set(struct mtref *m, uint64_t first, uint64_t last, void *entry);
/* First range of @m ending at or after page @x (m->n: none). */
size_t exp_map_lower(const struct mtref *m, uint64_t x);

/*
 * Every mapped run of pages of @m in [first, last]: @fn may change a copy of
 * its record (returns true when it did: the run gets the copy). Unmapped
 * pages are passed over.
 */
typedef bool (*exp_edit_fn)(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
			    void *arg);
void exp_map_edit(struct exp_store *e, struct mtref *m, uint64_t first, uint64_t last,
		  exp_edit_fn fn, void *arg);

/* A new object (a file's @fill, or 0); its number + 1. */
uint32_t exp_obj_new(struct exp_store *e, uint64_t fill);
/* What page offset @pgoff of object @obj (+ 1) holds; false: unknown. */
bool exp_obj_value(const struct exp_store *e, uint32_t obj, uint64_t pgoff, uint64_t *value);
/* Offsets [first, last] of object @obj (+ 1) hold what @r says (ED_VALUE,
 * in offsets), or are unknown (@r NULL). */
void exp_obj_set(struct exp_store *e, uint32_t obj, uint64_t first, uint64_t last,
		 const struct exp_rec *r);

/* Shared data may have been written anywhere: none is known any more. */
void exp_obj_vague(struct exp_store *e);

/* A new context; its number. */
uint32_t exp_ctx_new(struct exp_store *e, unsigned owner, bool event_fork, bool event_remap);

/* What page @x of a run with record @r holds; false: unknown. */
bool exp_page_value(const struct exp_store *e, const struct exp_rec *r, uint64_t x,
		    uint64_t *value);

/* A page's value for a report: "0x... (page k of the write by p1 at step 3)". */
const char *as_expect_value_str(uint64_t v, char *buf, size_t len);

void exp_store_free(struct exp_store *e);

#endif
