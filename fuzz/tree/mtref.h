/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference map: the oracle for a range tree, any backend of the tree
 * seam (tree_backend.h). A plain sorted array of non-empty ranges, with
 * every operation written the obvious way, so that it is easy to believe and
 * slow to run.
 */
#ifndef VMAFUZZ_MTREF_H
#define VMAFUZZ_MTREF_H

#include "tree_backend.h"

#include <stddef.h>

struct mtref_range {
	uint64_t first, last;
	void *entry;
};

struct mtref {
	struct mtref_range *v;
	size_t n, cap;
};

void mtref_init(struct mtref *r);
void mtref_free(struct mtref *r);
/* Append [first, last] -> entry to the array *@v of *@n ranges (room for
 * *@cap, grown as needed): the walks' records of what they visited. */
void mtref_range_push(struct mtref_range **v, size_t *n, size_t *cap, uint64_t first, uint64_t last,
		      void *entry);
/* Empty, keeping the array for the next stores. */
void mtref_clear(struct mtref *r);
/* @dst holds what @src holds (its array kept when large enough). */
void mtref_set(struct mtref *dst, const struct mtref *src);
void mtref_store(struct mtref *r, uint64_t first, uint64_t last, void *entry);
void *mtref_load(const struct mtref *r, uint64_t index);
/* Lowest (highest) empty start in [lo, hi] for @size indices; false if none. */
bool mtref_gap(const struct mtref *r, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
	       uint64_t *start);
void mtref_copy(struct mtref *dst, const struct mtref *src);
/*
 * Compare a tree with the map; on the first difference reports
 * MT_REF_MISMATCH naming it and returns false.
 */
bool mtref_matches(const struct mtref *r, const struct tree_backend *b, void *t);

/* Gap search of the tree against the map's brute force (MT_GAP_SEARCH). */
bool mtref_check_gap(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t lo,
		     uint64_t hi, uint64_t size, bool highest);
/* mt_find and mt_find_prev from @index against the map (MT_WALK). */
bool mtref_check_find(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t index);
/* mt_load_range at @index: the entry and the whole range holding it
 * (MT_REF_MISMATCH). */
bool mtref_check_load(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t index);
/* A cursor from @from visits exactly the map's entries that end at or after
 * @from and start at or before @to, in order (MT_WALK). */
bool mtref_check_walk(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t from,
		      uint64_t to);
/*
 * The answers of the rest of a kernel caller's API (tree_backend.h), worked
 * out on the map (mtref_api.c): each is what the backend must have said.
 */
/* Whether an entry meets [first, last] (insert's -EEXIST). */
bool mtref_any(const struct mtref *r, uint64_t first, uint64_t last);
/* gap's answer: 0 with *start, -EBUSY, or -EINVAL (size 0, lo > hi). */
int mtref_gap_err(const struct mtref *r, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
		  uint64_t *start);
/* alloc_cyclic's answer, *next and *wrapped moved on as the backend must
 * move its own. */
int mtref_alloc_cyclic(const struct mtref *r, uint64_t lo, uint64_t hi, uint64_t *next,
		       bool *wrapped, uint64_t *start);
/* A bounded search: find from @index up to @bound, find_prev from @index
 * down to @bound, next and prev from @index to @bound. */
enum mtref_find { MTREF_FIND, MTREF_FIND_PREV, MTREF_NEXT, MTREF_PREV, MTREF_FIND_NR };
const struct mtref_range *mtref_bounded(const struct mtref *r, enum mtref_find how, uint64_t index,
					uint64_t bound);
/* The backend's bounded search against the map's (MT_WALK). */
bool mtref_check_bounded(const struct mtref *r, const struct tree_backend *b, void *t,
			 enum mtref_find how, uint64_t index, uint64_t bound);
/* The backend's walk_by of [from, to] the way @how against the map
 * (MT_WALK; tree_backend.h says what each way must visit). */
bool mtref_check_walk_by(const struct mtref *r, const struct tree_backend *b, void *t,
			 enum tree_walk_way how, uint64_t from, uint64_t to);
/* The range (entry or empty) of the map that holds @index. */
void *mtref_range_of(const struct mtref *r, uint64_t index, struct tree_range *out);
/* Number of empty ranges, and the k-th of them. */
size_t mtref_gaps(const struct mtref *r);
void mtref_gap_at(const struct mtref *r, size_t k, struct tree_range *out);

#endif
