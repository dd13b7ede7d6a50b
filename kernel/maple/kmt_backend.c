/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tree_kernel: the tree seam (fuzz/tree/tree_backend.h) over the kernel's own
 * lib/maple_tree.c, reached through kernel/maple/kmt.h (kmt_unit.c). Built only
 * by kernel/maple/maple.mk, from a kernel tree given at build time.
 *
 * Where the kernel's semantics and the seam's differ, this file maps them
 * (docs/kernel.md):
 *  - store rejects first > last and reserved entries other than
 *    XA_ZERO_ENTRY with -EINVAL before the tree sees them (the kernel would
 *    take any reserved value it is handed by mas_store_gfp, and warns on
 *    first > last);
 *  - store writes as the VMA tree does: an entry with mas_preallocate +
 *    mas_store_prealloc (one failed allocation: -ENOMEM, tree unchanged), a
 *    NULL with mas_store_gfp, like erase (mas_erase): their GFP_NOWAIT
 *    attempt falls back to GFP_KERNEL (mas_nomem), so one failed
 *    allocation is retried and the write succeeds. Only a -ENOMEM result
 *    promises an unchanged tree;
 *  - gap and alloc: every search reaches the kernel, whatever its
 *    arguments; a window smaller than @size is -EBUSY here, -EINVAL for
 *    the kernel (mas_empty_area checks max - min < size - 1 first); a window
 *    of one index, which 6.1's mas_empty_area refuses (-EINVAL), is
 *    answered by mas_walk at that index;
 *  - insert, alloc and alloc_cyclic refuse NULL and reserved entries
 *    before the kernel sees them; alloc_cyclic keeps the tree's
 *    MT_FLAGS_ALLOC_WRAPPED in the caller's *wrapped between calls, and
 *    is NULL in a tree without mtree_alloc_cyclic (probe.sh); alloc is
 *    NULL where mtree_alloc_range still searches with mas_alloc (before
 *    6.5: its own window, [min, max - size], and argument checks);
 *  - fork and fork_exit are dup_mmap's and exit_mmap's tree steps, with
 *    the kernel's calls in their order (kmt_fork, kmt_fork_exit);
 *  - a tree without __mt_dup (before 6.8; kernel/maple/probe.sh) has no
 *    dup, fork or fork_exit here: the members are NULL;
 *  - bulk appends past the expected count leave preallocated mode
 *    (kmt_bulk_append);
 *  - the normal API's calls are the kernel's mtree_*; dup_locked is NULL
 *    without mtree_dup, and walk_by has no range walks without
 *    mas_find_range (probe.sh);
 *  - dump prints with mt_dump(mt_dump_hex): @print is not used.
 */
#include "kmt_backend.h"

#include "kmt.h"
#include "runtime/alloc.h"
#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool reserved(const void *entry)
{
	return ((uintptr_t)entry & 3) == 2 && entry != kmt_zero();
}

static void *tk_create(void)
{
	return kmt_create();
}

static void tk_clear(void *t)
{
	kmt_clear(t);
}

static void tk_release(void *t)
{
	kmt_release(t);
}

static int tk_store(void *t, uint64_t first, uint64_t last, void *entry)
{
	if (first > last || reserved(entry))
		return -EINVAL;
	return kmt_store(t, first, last, entry);
}

static int tk_store_path(void *t, uint64_t first, uint64_t last, void *entry,
			 enum tree_write_path how)
{
	static const int path[TREE_WRITE_NR] = {
	    [TREE_WRITE_PREALLOC] = KMT_WRITE_PREALLOC,
	    [TREE_WRITE_GFP] = KMT_WRITE_GFP,
	    [TREE_WRITE_NOWAIT] = KMT_WRITE_NOWAIT,
	    [TREE_WRITE_LOCKED] = KMT_WRITE_LOCKED,
	};

	if (first > last || reserved(entry) || (unsigned)how >= TREE_WRITE_NR)
		return -EINVAL;
	return kmt_store_path(t, first, last, entry, path[how]);
}

/* The normal API refuses reserved entries with a warning: -EINVAL here
 * first (XA_ZERO_ENTRY included), and NULL, which it would store. */
static bool not_storable(const void *entry)
{
	return !entry || ((uintptr_t)entry & 3) == 2;
}

static int tk_insert(void *t, uint64_t first, uint64_t last, void *entry)
{
	if (not_storable(entry))
		return -EINVAL;
	return kmt_insert(t, first, last, entry);
}

/* The kernel's -EINVAL for a window smaller than @size (mas_empty_area
 * checks max - min < size - 1) is the seam's -EBUSY. */
static int tk_window_busy(int ret, uint64_t lo, uint64_t hi, uint64_t size)
{
	if (ret == -EINVAL && size && lo <= hi && hi - lo < size - 1)
		return -EBUSY;
	return ret;
}

#ifndef KMT_ALLOC_OLD
static int tk_alloc(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, void *entry,
		    uint64_t *start)
{
	if (not_storable(entry))
		return -EINVAL;
	return tk_window_busy(kmt_alloc(t, lo, hi, size, highest, entry, start), lo, hi, size);
}
#define TK_ALLOC(fn) fn
#else
/* mtree_alloc_range searches with mas_alloc (before 6.5; probe.sh) */
#define TK_ALLOC(fn) NULL
#endif

#ifdef KMT_HAVE_ALLOC_CYCLIC
static int tk_alloc_cyclic(void *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next,
			   bool *wrapped, uint64_t *start)
{
	if (not_storable(entry))
		return -EINVAL;
	return kmt_alloc_cyclic(t, lo, hi, entry, next, wrapped, start);
}
#define TK_CYCLIC(fn) fn
#else
#define TK_CYCLIC(fn) NULL /* no mtree_alloc_cyclic in this tree */
#endif

static void *tk_next(void *t, uint64_t index, uint64_t max, struct tree_range *r)
{
	uint64_t first, last;
	void *e = kmt_next(t, index, max, &first, &last);

	if (e && r)
		*r = (struct tree_range){first, last};
	return e;
}

static void *tk_prev(void *t, uint64_t index, uint64_t min, struct tree_range *r)
{
	uint64_t first, last;
	void *e = kmt_prev(t, index, min, &first, &last);

	if (e && r)
		*r = (struct tree_range){first, last};
	return e;
}

static int tk_erase(void *t, uint64_t index, void **old)
{
	return kmt_erase(t, index, old);
}

static void *tk_load(void *t, uint64_t index, struct tree_range *r)
{
	uint64_t first, last;
	void *e = kmt_load(t, index, &first, &last);

	if (r)
		*r = (struct tree_range){first, last};
	return e;
}

static void *tk_find(void *t, uint64_t from, uint64_t max, struct tree_range *r)
{
	uint64_t first, last;
	void *e = kmt_find(t, from, max, &first, &last);

	if (e && r)
		*r = (struct tree_range){first, last};
	return e;
}

static void *tk_find_prev(void *t, uint64_t from, uint64_t min, struct tree_range *r)
{
	uint64_t first, last;
	void *e = kmt_find_prev(t, from, min, &first, &last);

	if (e && r)
		*r = (struct tree_range){first, last};
	return e;
}

static int tk_gap(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, uint64_t *start)
{
	uint64_t first, last;
	int ret;

	ret = tk_window_busy(kmt_gap(t, lo, hi, size, highest, start), lo, hi, size);
	/*
	 * A window of one index (size 1, then): trees whose
	 * mas_empty_area(_rev) wants min < max (6.1) refuse it. Its answer
	 * is whether that index is empty, which mas_walk tells.
	 */
	if (ret == -EINVAL && lo == hi && size == 1) {
		if (kmt_load(t, lo, &first, &last))
			return -EBUSY;
		*start = lo;
		return 0;
	}
	return ret;
}

struct tk_visit {
	tree_visit_fn visit;
	void *arg;
};

static bool tk_visit_one(void *arg, uint64_t first, uint64_t last, void *entry)
{
	struct tk_visit *v = arg;
	struct tree_range r = {first, last};

	return v->visit(v->arg, &r, entry);
}

static void tk_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	struct tk_visit v = {visit, arg};

	kmt_walk(t, from, to, false, tk_visit_one, &v);
}

static void tk_rcu_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	struct tk_visit v = {visit, arg};

	kmt_walk(t, from, to, true, tk_visit_one, &v);
}

#ifdef KMT_HAVE_DUP
static int tk_dup(void *src, void *dst)
{
	return kmt_dup(src, dst);
}

/* The seam's fork callbacks under kmt.h's plain types. */
static int tk_fork_entry(void *arg, uint64_t first, uint64_t last, void *entry, void **child)
{
	const struct tree_fork_ops *ops = arg;
	struct tree_range r = {first, last};

	switch (ops->entry(ops->arg, &r, entry, child)) {
	case TREE_FORK_COPY:
		return KMT_FORK_COPY;
	case TREE_FORK_DROP:
		return KMT_FORK_DROP;
	default:
		return KMT_FORK_FAIL;
	}
}

static bool tk_fork_copied(void *arg, uint64_t first, uint64_t last, void *child)
{
	const struct tree_fork_ops *ops = arg;
	struct tree_range r = {first, last};

	return ops->copied(ops->arg, &r, child);
}

static int tk_fork(void *src, void *dst, const struct tree_fork_ops *ops)
{
	struct kmt_fork_ops k = {tk_fork_entry, tk_fork_copied, (void *)ops};

	return kmt_fork(src, dst, &k);
}

static void tk_fork_exit(void *t, tree_visit_fn visit, void *arg)
{
	struct tk_visit v = {visit, arg};

	kmt_fork_exit(t, tk_visit_one, &v);
}

#define TK_DUP(fn) fn
#else
#define TK_DUP(fn) NULL /* no __mt_dup in this tree: neither dup nor fork */
#endif

#ifdef KMT_HAVE_BULK
struct tk_bulk {
	struct kmt_bulk *b;
	bool any;
	uint64_t tail;
};

static int tk_bulk_begin(void *t, uint64_t expected, void **bulk)
{
	struct tk_bulk *tb = model_alloc(AK_OTHER, sizeof(*tb));
	int ret;

	if (!tb)
		return -ENOMEM;
	ret = kmt_bulk_begin(t, expected, &tb->b);
	if (ret) {
		model_free(AK_OTHER, tb);
		return ret;
	}
	*bulk = tb;
	return 0;
}

static int tk_bulk_append(void *bulk, uint64_t first, uint64_t last, void *entry)
{
	struct tk_bulk *tb = bulk;
	int ret;

	if (!entry || reserved(entry) || first > last)
		return -EINVAL;
	if (tb->any && (tb->tail == TREE_MAX || first <= tb->tail))
		return -EINVAL;
	ret = kmt_bulk_append(tb->b, first, last, entry);
	if (!ret) {
		tb->any = true;
		tb->tail = last;
	}
	return ret;
}

static void tk_bulk_end(void *bulk)
{
	struct tk_bulk *tb = bulk;

	kmt_bulk_end(tb->b);
	model_free(AK_OTHER, tb);
}

#define TK_BULK(fn) fn
#else
#define TK_BULK(fn) NULL
#endif

static void *tk_lookup(void *t, uint64_t index)
{
	return kmt_lookup(t, index);
}

static void *tk_erase_locked(void *t, uint64_t index)
{
	return kmt_erase_locked(t, index);
}

static void tk_destroy_locked(void *t)
{
	kmt_destroy_locked(t);
}

#ifdef KMT_HAVE_MTREE_DUP
static int tk_dup_locked(void *src, void *dst)
{
	return kmt_dup_locked(src, dst);
}
#define TK_MTREE_DUP(fn) fn
#else
#define TK_MTREE_DUP(fn) NULL /* no mtree_dup in this tree */
#endif

static void tk_walk_by(void *t, uint64_t from, uint64_t to, enum tree_walk_way how,
		       tree_visit_fn visit, void *arg)
{
	static const int way[TREE_WALK_NR] = {
	    [TREE_WALK_PAUSED] = KMT_WALK_PAUSED,
	    [TREE_WALK_PAUSED_REV] = KMT_WALK_PAUSED_REV,
	    [TREE_WALK_FIND] = KMT_WALK_FIND,
	    [TREE_WALK_RANGES] = KMT_WALK_RANGES,
	    [TREE_WALK_RANGES_REV] = KMT_WALK_RANGES_REV,
	};
	struct tk_visit v = {visit, arg};

	if ((unsigned)how < TREE_WALK_NR)
		kmt_walk_by(t, from, to, way[how], tk_visit_one, &v);
}

#define TK_WALK_ENTRIES                                                                            \
	((1u << TREE_WALK_PAUSED) | (1u << TREE_WALK_PAUSED_REV) | (1u << TREE_WALK_FIND))
#ifdef KMT_HAVE_FIND_RANGE
#define TK_WALK_WAYS (TK_WALK_ENTRIES | (1u << TREE_WALK_RANGES) | (1u << TREE_WALK_RANGES_REV))
#else
#define TK_WALK_WAYS TK_WALK_ENTRIES /* no mas_find_range in this tree */
#endif

static bool tk_validate(void *t)
{
	return kmt_validate(t) == 0;
}

static void tk_put(void *arg, uint64_t w)
{
	tree_picture_put(arg, w);
}

static void tk_picture(void *t, struct tree_picture *p)
{
	kmt_picture(t, tk_put, p);
}

/*
 * Sort @n addresses (@tmp: room for @n more), least significant byte
 * first. Its loops run as often whatever the addresses: qsort's calls of a
 * comparison followed their order, that is where malloc had put the nodes,
 * which depends on the programs run before in the process (AFL++ saw
 * those edges vary on the same input; tests/stable.sh).
 */
static void sort_addrs(uintptr_t *a, uintptr_t *tmp, uint64_t n)
{
	for (unsigned shift = 0; shift < 8 * sizeof(*a); shift += 8) {
		uint64_t pos[257] = {0};

		for (uint64_t i = 0; i < n; i++)
			pos[((a[i] >> shift) & 0xff) + 1]++;
		for (unsigned b = 1; b < 257; b++)
			pos[b] += pos[b - 1];
		for (uint64_t i = 0; i < n; i++)
			tmp[pos[(a[i] >> shift) & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
}

static bool tk_check_dup(void *src, void *dup)
{
	struct tree_picture a = {0}, b = {0};
	uint64_t ns = kmt_nodes(src, NULL, 0), nd = kmt_nodes(dup, NULL, 0);
	uintptr_t *addrs;
	bool ok = true;

	tk_picture(src, &a);
	tk_picture(dup, &b);
	if (!tree_picture_equal(&a, &b))
		ok = check_fail(
		    CK_MT_DUP_MISMATCH,
		    "the kernel tree's duplicate differs from its source (%zu words, %zu)", a.n,
		    b.n);
	tree_picture_free(&a);
	tree_picture_free(&b);
	if (!ok || !ns)
		return ok;
	/* node for node, and no node shared */
	addrs = malloc(2 * (ns + nd) * sizeof(*addrs));
	if (!addrs)
		return ok;
	kmt_nodes(src, addrs, ns);
	kmt_nodes(dup, addrs + ns, nd);
	sort_addrs(addrs, addrs + ns + nd, ns + nd);
	for (uint64_t i = 1; i < ns + nd; i++)
		if (addrs[i] == addrs[i - 1]) {
			ok = check_fail(
			    CK_MT_DUP_MISMATCH,
			    "node %#" PRIxPTR " is in both the source and the duplicate", addrs[i]);
			break;
		}
	free(addrs);
	return ok;
}

static uint64_t tk_nodes(void *t)
{
	return kmt_nodes(t, NULL, 0);
}

static bool tk_check_live(uint64_t reachable)
{
	struct kmt_live l;

	kmt_live(&l);
	if (l.shim >= 0 && (uint64_t)l.shim != l.live)
		return check_fail(CK_MEM_LIVE_MISMATCH,
				  "%" PRIu64 " kernel maple nodes alive by the hooks, %" PRId64
				  " by the shim's cache",
				  l.live, l.shim);
	if (l.live != reachable + l.pending)
		return check_fail(CK_MEM_LIVE_MISMATCH,
				  "%" PRIu64 " kernel maple nodes alive, %" PRIu64
				  " reachable, %" PRIu64 " waiting for RCU",
				  l.live, reachable, l.pending);
	return true;
}

static void tk_dump(FILE *out, void *t, void (*print)(FILE *out, const void *entry))
{
	(void)print;
	kmt_dump(out, t);
}

const struct tree_backend tree_kernel = {
    .retries = true, /* mas_store_gfp and mas_erase retry with GFP_KERNEL */
    .name = "kernel",
    .zero = (void *)(uintptr_t)((257 << 2) | 2), /* XA_ZERO_ENTRY, checked in the smoke test */
    .create = tk_create,
    .clear = tk_clear,
    .release = tk_release,
    .store = tk_store,
    .store_path = tk_store_path,
    .insert = tk_insert,
    .alloc = TK_ALLOC(tk_alloc),
    .alloc_cyclic = TK_CYCLIC(tk_alloc_cyclic),
    .next = tk_next,
    .prev = tk_prev,
    .erase = tk_erase,
    .load = tk_load,
    .find = tk_find,
    .find_prev = tk_find_prev,
    .gap = tk_gap,
    .walk = tk_walk,
    .rcu_walk = tk_rcu_walk,
    .dup = TK_DUP(tk_dup),
    .fork = TK_DUP(tk_fork),
    .fork_exit = TK_DUP(tk_fork_exit),
    .bulk_begin = TK_BULK(tk_bulk_begin),
    .bulk_append = TK_BULK(tk_bulk_append),
    .bulk_end = TK_BULK(tk_bulk_end),
    .lookup = tk_lookup,
    .erase_locked = tk_erase_locked,
    .destroy_locked = tk_destroy_locked,
    .dup_locked = TK_MTREE_DUP(tk_dup_locked),
    .walk_by = tk_walk_by,
    .walk_ways = TK_WALK_WAYS,
    .validate = tk_validate,
    .check_dup = tk_check_dup,
    .picture = tk_picture,
    .nodes = tk_nodes,
    .check_live = tk_check_live,
    .dump = tk_dump,
};
