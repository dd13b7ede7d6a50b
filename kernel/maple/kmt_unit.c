/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own lib/maple_tree.c, compiled in this translation unit from
 * the kernel tree named at build time (kernel/maple/maple.mk: -I$KSRC/lib and the
 * shim's include paths), and the kmt.h interface over it. The file is
 * included the way tools/testing/shared/maple-shim.c includes it, so the
 * helpers below may use the tree's static functions (node types, pivots,
 * slots) to draw pictures and count nodes.
 *
 * Routing (docs/kernel.md):
 *  - node allocation: every call by which the tree gets or gives back a
 *    node (kmem_cache, bulk, slab sheaves, kfree; kernel/maple/probe.sh finds
 *    which the tree makes) is renamed to a hook here (before the shim's
 *    headers declare them). A hook asks the runtime whether this
 *    allocation fails (alloc_fail_next: the executor's fail_at), blocking or
 *    not, then takes the node from the shim's kmem_cache (its linux.c) with
 *    __GFP_DIRECT_RECLAIM, so the shim's own budget for non-blocking
 *    allocations (mt_set_non_kernel) never fails one: only the runtime
 *    decides. Live nodes are registered.
 *  - RCU: kernel/maple/shim/linux/rcupdate.h maps rcu_read_lock to the runtime's
 *    and call_rcu to kmt_call_rcu, which defers the callback with
 *    call_rcu_free (runtime/sync.h): no threads, frees when no fiber reads.
 *  - assertions: dump_stack() (kernel/maple/shim/kmt_prelude.h) is kmt_bug,
 *    WARN_ON and WARN_ON_ONCE are kmt_warn: both report CK_KMT_BUG.
 *
 * Everything global this object and the shim's linux.o define is renamed
 * at build time (kmt_k_<name>), except the kmt_ names, so nothing clashes
 * with the model's tree (mt_find, mt_validate, mt_dump ...).
 */
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include <stdarg.h>
#include <stdint.h>

/*
 * Every way lib/maple_tree.c gets or gives back a node, renamed to a hook
 * (kernel/maple/probe.sh finds which the tree uses, and stops on one not
 * here): one node, a bulk of nodes, a slab sheaf of them (prefilled,
 * refilled, returned, popped), kfree of a node.
 */
#define kmem_cache_alloc_lru kmt_hook_alloc_lru
#define kmem_cache_alloc_bulk kmt_hook_alloc_bulk
#define kmem_cache_free kmt_hook_free
#define kmem_cache_free_bulk kmt_hook_free_bulk
#define kmem_cache_prefill_sheaf kmt_hook_prefill_sheaf
#define kmem_cache_refill_sheaf kmt_hook_refill_sheaf
#define kmem_cache_return_sheaf kmt_hook_return_sheaf
#define kfree kmt_hook_kfree

#include "maple-shared.h"
#include "kmt_missing.h"

/*
 * The tree's WARN_ON and WARN_ON_ONCE: the tools headers' only print and go
 * on, where a kernel run as syzbot runs it (panic_on_warn) stops. They
 * report as its MT_BUG_ONs do (kmt_warn: CK_KMT_BUG). _ONCE fires every
 * time: its static flag would carry from one program to the next in a
 * process, and the same input would take other edges (tests/stable.sh).
 */
int kmt_warn(int cond, int line, const char *expr);
#undef WARN_ON
#undef WARN_ON_ONCE
#undef WARN
#undef WARN_ONCE
#define WARN_ON(e) kmt_warn(!!(e), __LINE__, #e)
#define WARN_ON_ONCE(e) WARN_ON(e)
#define WARN(e, ...) WARN_ON(e)
#define WARN_ONCE(e, ...) WARN_ON(e)

#include "maple_tree.c"

#undef kmem_cache_alloc_lru
#undef kmem_cache_alloc_bulk
#undef kmem_cache_free
#undef kmem_cache_free_bulk
#undef kmem_cache_prefill_sheaf
#undef kmem_cache_refill_sheaf
#undef kmem_cache_return_sheaf
#undef kfree

/* The shim's allocator (linux.c), under its own names. */
void *kmem_cache_alloc_lru(struct kmem_cache *cachep, struct list_lru *lru, int gfp);
void kmem_cache_free(struct kmem_cache *cachep, void *objp);
void kmem_cache_free_bulk(struct kmem_cache *cachep, size_t size, void **list);
#ifdef KMT_ALLOC_BULK
int kmem_cache_alloc_bulk(struct kmem_cache *cachep, gfp_t gfp, size_t size, void **list);
#endif
#ifdef KMT_ALLOC_SHEAF
struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp, unsigned int size);
int kmem_cache_refill_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf **sheafp,
			    unsigned int size);
void kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf);
#endif

#include "kmt.h"
#include "kmt_known.h"
#include <setjmp.h>

/* linux.c prints allocations when this is set (tools/lib/slab.c has it). */
int kmalloc_verbose;

/* ---- live nodes ----------------------------------------------------------- */

/*
 * The live nodes in one array, in the order they were born (a death moves
 * the last one into the hole), each with a flag for the nodes handed to
 * call_rcu; found by a search from the youngest. A table hashed on the
 * nodes' addresses was quicker, but how far its probes ran depended on
 * where malloc had put the nodes, so on the programs run before in the
 * process: edges AFL++ saw vary on the same input. Here where a node sits,
 * and how far a search runs, follow from the program alone.
 */
struct kmt_slot {
	uintptr_t addr;
	bool queued;
};

static struct kmt_slot *reg;
static size_t reg_cap, reg_n;
static uint64_t live_nodes;
static uint64_t queued_nodes; /* of those, handed to call_rcu */

static struct kmt_slot *reg_find(uintptr_t a)
{
	for (size_t i = reg_n; i > 0; i--)
		if (reg[i - 1].addr == a)
			return &reg[i - 1];
	return NULL;
}

static void reg_insert(uintptr_t a)
{
	if (reg_n == reg_cap) {
		reg_cap = reg_cap ? 2 * reg_cap : 1024;
		reg = realloc(reg, reg_cap * sizeof(*reg));
		MODEL_ASSERT(reg != NULL);
	}
	reg[reg_n].addr = a;
	reg[reg_n].queued = false;
	reg_n++;
}

/* Forget @a; whether it had been handed to call_rcu. */
static bool reg_remove(uintptr_t a)
{
	struct kmt_slot *s = reg_find(a);
	bool queued;

	MODEL_ASSERT(s != NULL);
	queued = s->queued;
	*s = reg[--reg_n];
	if (reg_n == 0) {
		/*
		 * Empty (every input ends so): the array goes, so that the
		 * growth path an input takes does not depend on the inputs
		 * before it.
		 */
		free(reg);
		reg = NULL;
		reg_cap = 0;
	}
	return queued;
}

static void node_born(void *p)
{
	reg_insert((uintptr_t)p);
	live_nodes++;
}

static void node_dies(void *p)
{
	if (reg_remove((uintptr_t)p))
		queued_nodes--;
	live_nodes--;
}

/* ---- allocation hooks ----------------------------------------------------- */

/*
 * Whether the next @n node allocations fail: each object is one allocation
 * for fail_at, and one failing fails the request, as the kernel's bulk and
 * sheaf allocators return nothing then. A __GFP_NOFAIL request (a later
 * tree's mas_erase retries with it) cannot fail in the kernel, so it is no
 * failure point here either: not counted.
 */
static bool kmt_alloc_fails(gfp_t gfp, size_t n)
{
#ifdef __GFP_NOFAIL
	if (gfp & __GFP_NOFAIL)
		return false;
#endif
	for (size_t i = 0; i < n; i++)
		if (alloc_fail_next(AK_MT_NODE))
			return true;
	return false;
}

void *kmt_hook_alloc_lru(struct kmem_cache *cachep, struct list_lru *lru, int gfp)
{
	void *p;

	if (kmt_alloc_fails(gfp, 1))
		return NULL;
	p = kmem_cache_alloc_lru(cachep, lru, gfp | __GFP_DIRECT_RECLAIM);
	if (p)
		node_born(p);
	return p;
}

#ifdef KMT_ALLOC_BULK
int kmt_hook_alloc_bulk(struct kmem_cache *cachep, gfp_t gfp, size_t size, void **list)
{
	int n;

	if (kmt_alloc_fails(gfp, size))
		return 0;
	n = kmem_cache_alloc_bulk(cachep, gfp | __GFP_DIRECT_RECLAIM, size, list);
	for (int i = 0; i < n; i++)
		node_born(list[i]);
	return n;
}
#endif

void kmt_hook_free(struct kmem_cache *cachep, void *objp)
{
	node_dies(objp);
	kmem_cache_free(cachep, objp);
}

void kmt_hook_free_bulk(struct kmem_cache *cachep, size_t size, void **list)
{
	for (size_t i = 0; i < size; i++)
		node_dies(list[i]);
	kmem_cache_free_bulk(cachep, size, list);
}

#ifdef KMT_FREE_KFREE
/* kfree of a node gives it back to its cache, as the kernel's kfree does
 * for any slab object (every kfree of the tree frees a node) */
void kmt_hook_kfree(void *p)
{
	if (p)
		kmt_hook_free(maple_node_cache, p);
}
#endif

#ifdef KMT_RCU_CB
/* kfree_rcu's callback in the shim (maple-shared.h names it; its
 * maple-shim.c, which defines it, is not compiled here) */
void maple_rcu_cb(struct rcu_head *head)
{
	kmt_hook_free(maple_node_cache, container_of(head, struct maple_node, rcu));
}
#endif

#ifdef KMT_ALLOC_SHEAF
/*
 * Slab sheaves: a sheaf's objects are nodes from the moment it is filled
 * (the kernel takes them from the slab then) until they are popped, which
 * allocates nothing, or the sheaf is returned, which frees what is left.
 * fail_at counts the objects a fill asks for.
 */
struct slab_sheaf *kmt_hook_prefill_sheaf(struct kmem_cache *s, gfp_t gfp, unsigned int size)
{
	struct slab_sheaf *sheaf;

	if (kmt_alloc_fails(gfp, size))
		return NULL;
	sheaf = kmem_cache_prefill_sheaf(s, gfp | __GFP_DIRECT_RECLAIM, size);
	for (unsigned int i = 0; sheaf && i < sheaf->size; i++)
		node_born(sheaf->objects[i]);
	return sheaf;
}

void kmt_hook_return_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf)
{
	for (unsigned int i = 0; i < sheaf->size; i++)
		node_dies(sheaf->objects[i]);
	kmem_cache_return_sheaf(s, gfp, sheaf);
}

/*
 * The shim refills in place, or, past the sheaf's capacity, prefills a new
 * one and returns the old, inside linux.c where no hook sees it: the old
 * sheaf's nodes are let go here and the new one's registered.
 */
int kmt_hook_refill_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf **sheafp,
			  unsigned int size)
{
	struct slab_sheaf *old = *sheafp;
	unsigned int had = old->size;
	bool grows = size > old->capacity; /* (old is freed then) */
	int ret;

	if (had >= size)
		return 0;
	if (kmt_alloc_fails(gfp, size - had))
		return -ENOMEM;
	if (grows)
		for (unsigned int i = 0; i < had; i++)
			node_dies(old->objects[i]);
	ret = kmem_cache_refill_sheaf(s, gfp | __GFP_DIRECT_RECLAIM, sheafp, size);
	if (grows) {
		/* the new sheaf, or the old one, kept, when that failed */
		for (unsigned int i = 0; i < (*sheafp)->size; i++)
			node_born((*sheafp)->objects[i]);
	} else {
		for (unsigned int i = had; !ret && i < size; i++)
			node_born(old->objects[i]);
	}
	return ret;
}
#endif

/* ---- RCU ------------------------------------------------------------------ */

unsigned kmt_rcu_walkers;

static void kmt_rcu_run(void *obj)
{
	struct rcu_head *head = obj;

	head->func(head);
}

void kmt_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	struct kmt_slot *s = reg_find((uintptr_t)container_of(head, struct maple_node, rcu));

	if (s && !s->queued) {
		s->queued = true;
		queued_nodes++;
	}
	head->func = func;
	call_rcu_free(AK_OTHER, head, kmt_rcu_run);
}

/* ---- reports -------------------------------------------------------------- */

static FILE *kmt_out;
static uint64_t kmt_nbugs;

int kmt_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(kmt_out ? kmt_out : stderr, fmt, ap);
	va_end(ap);
	return n;
}

void kmt_bug(const char *func, int line)
{
	kmt_nbugs++;
	check_fail(CK_KMT_BUG, "lib/maple_tree.c: assertion in %s (line %d of maple_tree.c)", func,
		   line);
}

int kmt_warn(int cond, int line, const char *expr)
{
	if (!cond)
		return 0;
	kmt_nbugs++;
	check_fail(CK_KMT_BUG, "lib/maple_tree.c: WARN_ON(%s) at line %d of maple_tree.c", expr,
		   line);
	return 1;
}

uint64_t kmt_bugs(void)
{
	return kmt_nbugs;
}

/* ---- trees ---------------------------------------------------------------- */

struct kmt_tree {
	struct maple_tree mt;
};

#define KMT_FLAGS (MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN | MT_FLAGS_USE_RCU)

/*
 * lib/maple_tree.c's node cache, made before main: made by the first tree
 * instead, the first program of a process ran code that no later one ran.
 */
__attribute__((constructor)) static void kmt_init(void)
{
	maple_tree_init();
}

void *kmt_zero(void)
{
	return XA_ZERO_ENTRY;
}

struct kmt_tree *kmt_create(void)
{
	struct kmt_tree *t;

	t = model_alloc(AK_OTHER, sizeof(*t));
	if (!t)
		return NULL;
	mt_init_flags(&t->mt, KMT_FLAGS);
	return t;
}

/*
 * After __mt_destroy: later trees' keeps the attributes (still RCU, still
 * ALLOC_RANGE); 6.1's zeroes the flags, as for a tree never used again
 * (exit_mmap's). Ours lives on, the same kind of tree.
 */
static void kmt_destroyed(struct kmt_tree *t)
{
	if (!(t->mt.ma_flags & MT_FLAGS_ALLOC_RANGE))
		mt_init_flags(&t->mt, KMT_FLAGS);
}

void kmt_clear(struct kmt_tree *t)
{
	__mt_destroy(&t->mt);
	kmt_destroyed(t);
}

void kmt_release(struct kmt_tree *t)
{
	kmt_clear(t);
	model_free(AK_OTHER, t);
}

/*
 * As the VMA tree writes (mm/vma.h): an entry by preallocating, then
 * storing, which cannot fail (vma_iter_prealloc + vma_iter_store); a clear
 * by mas_store_gfp (vma_iter_clear_gfp), whose GFP_NOWAIT attempt falls
 * back to GFP_KERNEL (mas_nomem).
 */
int kmt_store(struct kmt_tree *t, uint64_t first, uint64_t last, void *entry)
{
	MA_STATE(mas, &t->mt, first, last);
	int ret;

	if (!entry)
		return mas_store_gfp(&mas, NULL, GFP_KERNEL);
	ret = mas_preallocate(&mas, entry, GFP_KERNEL);
	if (ret)
		return ret;
	mas_store_prealloc(&mas, entry);
	return 0;
}

int kmt_store_path(struct kmt_tree *t, uint64_t first, uint64_t last, void *entry, int how)
{
	MA_STATE(mas, &t->mt, first, last);
	int ret;

	switch (how) {
	case KMT_WRITE_PREALLOC:
		ret = mas_preallocate(&mas, entry, GFP_KERNEL);
		if (!ret)
			mas_store_prealloc(&mas, entry);
		return ret;
	case KMT_WRITE_GFP:
		return mas_store_gfp(&mas, entry, GFP_KERNEL);
	case KMT_WRITE_NOWAIT:
		/*
		 * Not mas_store_gfp(GFP_NOWAIT): its retry (mas_nomem) would
		 * allocate without blocking under the tree's external lock,
		 * which 7.3 forbids with a WARN_ON_ONCE. A non-blocking
		 * preallocation, then a blocking one if it failed, is allowed
		 * on every tree.
		 */
		ret = mas_preallocate(&mas, entry, GFP_NOWAIT);
		if (ret)
			ret = mas_preallocate(&mas, entry, GFP_KERNEL);
		if (!ret)
			mas_store_prealloc(&mas, entry);
		return ret;
	default:
		if (first == last)
			return mtree_store(&t->mt, first, entry, GFP_KERNEL);
		return mtree_store_range(&t->mt, first, last, entry, GFP_KERNEL);
	}
}

int kmt_insert(struct kmt_tree *t, uint64_t first, uint64_t last, void *entry)
{
	if (first == last)
		return mtree_insert(&t->mt, first, entry, GFP_KERNEL);
	return mtree_insert_range(&t->mt, first, last, entry, GFP_KERNEL);
}

static bool kmt_whole_null_leaf(struct kmt_tree *t);
static int kmt_gap_search(struct maple_tree *mt, uint64_t lo, uint64_t hi, uint64_t size,
			  bool highest, uint64_t *start);

static int kmt_alloc_call(struct kmt_tree *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
			  void *entry, uint64_t *start)
{
	unsigned long at = 0;
	int ret = highest ? mtree_alloc_rrange(&t->mt, &at, entry, size, lo, hi, GFP_KERNEL)
			  : mtree_alloc_range(&t->mt, &at, entry, size, lo, hi, GFP_KERNEL);

	if (!ret)
		*start = at;
	return ret;
}

/*
 * The allocators search as gap does, so the gap findings are sidestepped
 * here as in kmt_gap: on a whole-range NULL leaf (gap_whole_null) the
 * empty tree's search, then an insert where it found room; a reverse
 * search up to ULONG_MAX that says -EBUSY (gap_rev_top_wrap) again up
 * to ULONG_MAX - 1.
 */
int kmt_alloc(struct kmt_tree *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
	      void *entry, uint64_t *start)
{
	struct maple_tree empty;
	uint64_t at;
	int ret;

	if (size && lo <= hi && hi - lo >= size - 1 && kmt_whole_null_leaf(t) &&
	    kmt_known_sidestep(KMT_KNOWN_GAP_WHOLE_NULL)) {
		mt_init_flags(&empty, KMT_FLAGS);
		ret = kmt_gap_search(&empty, lo, hi, size, highest, &at);
		if (!ret)
			ret = mtree_insert_range(&t->mt, at, at + (size - 1), entry, GFP_KERNEL);
		if (!ret)
			*start = at;
		return ret;
	}
	ret = kmt_alloc_call(t, lo, hi, size, highest, entry, start);
	if (ret == -EBUSY && highest && hi == ULONG_MAX && size && lo < hi &&
	    hi - 1 - lo >= size - 1 && kmt_known_sidestep(KMT_KNOWN_GAP_REV_TOP_WRAP))
		ret = kmt_alloc_call(t, lo, hi - 1, size, highest, entry, start);
	return ret;
}

#ifdef KMT_HAVE_ALLOC_CYCLIC
int kmt_alloc_cyclic(struct kmt_tree *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next,
		     bool *wrapped, uint64_t *start)
{
	unsigned long at = 0, nx = *next;
	int ret;

	/*
	 * The flag lives in the tree's flags, which __mt_dup wants equal in
	 * source and destination: held by the caller between calls, so
	 * that the harness's other operations see the tree as it was made.
	 */
	/* gap_whole_null (kmt_alloc): the empty tree the leaf stands for */
	if (kmt_whole_null_leaf(t) && kmt_known_sidestep(KMT_KNOWN_GAP_WHOLE_NULL))
		kmt_clear(t);
	if (*wrapped)
		t->mt.ma_flags |= MT_FLAGS_ALLOC_WRAPPED;
	ret = mtree_alloc_cyclic(&t->mt, &at, entry, lo, hi, &nx, GFP_KERNEL);
	*wrapped = t->mt.ma_flags & MT_FLAGS_ALLOC_WRAPPED;
	t->mt.ma_flags &= ~MT_FLAGS_ALLOC_WRAPPED;
	if (ret >= 0) {
		*start = at;
		*next = nx;
	}
	return ret;
}
#endif

/* mas_next / mas_prev, and mt_next / mt_prev, which must give the same. */
static void *kmt_step(struct kmt_tree *t, uint64_t index, uint64_t bound, bool prev,
		      uint64_t *first, uint64_t *last)
{
	MA_STATE(mas, &t->mt, index, index);
	void *entry, *again;

	rcu_read_lock();
	entry = prev ? mas_prev(&mas, bound) : mas_next(&mas, bound);
	rcu_read_unlock();
	*first = mas.index;
	*last = mas.last;
	again = prev ? mt_prev(&t->mt, index, bound) : mt_next(&t->mt, index, bound);
	/*
	 * Known finding prev_root_min: on a tree whose root holds one entry
	 * over [0, 0] without a node, mas_prev_setup gives that entry to any
	 * index above min, also when min is above 0: the entry ends below
	 * the limit. A fixed kernel gives nothing.
	 */
	if (prev && entry && bound && !xa_is_node(rcu_dereference_raw(t->mt.ma_root)) &&
	    kmt_known_sidestep(KMT_KNOWN_PREV_ROOT_MIN)) {
		entry = again = NULL;
		*first = *last = 0;
	}
	if (again != entry)
		check_fail(CK_MT_WALK, "%s from %#lx to %#lx: mas_%s gives %p, mt_%s %p",
			   prev ? "prev" : "next", (unsigned long)index, (unsigned long)bound,
			   prev ? "prev" : "next", entry, prev ? "prev" : "next", again);
	return entry;
}

void *kmt_next(struct kmt_tree *t, uint64_t index, uint64_t max, uint64_t *first, uint64_t *last)
{
	return kmt_step(t, index, max, false, first, last);
}

void *kmt_prev(struct kmt_tree *t, uint64_t index, uint64_t min, uint64_t *first, uint64_t *last)
{
	return kmt_step(t, index, min, true, first, last);
}

int kmt_erase(struct kmt_tree *t, uint64_t index, void **old)
{
	MA_STATE(mas, &t->mt, index, index);
	void *entry = mas_erase(&mas);

	if (old)
		*old = entry;
	return mas_is_err(&mas) ? xa_err(mas.node) : 0;
}

void *kmt_load(struct kmt_tree *t, uint64_t index, uint64_t *first, uint64_t *last)
{
	MA_STATE(mas, &t->mt, index, index);
	void *entry;

	rcu_read_lock();
	entry = mas_walk(&mas);
	rcu_read_unlock();
	*first = mas.index;
	*last = mas.last;
	return entry;
}

void *kmt_find(struct kmt_tree *t, uint64_t from, uint64_t max, uint64_t *first, uint64_t *last)
{
	MA_STATE(mas, &t->mt, from, from);
	void *entry;

	if (from > max)
		return NULL;
	rcu_read_lock();
	entry = mas_find(&mas, max);
	rcu_read_unlock();
	*first = mas.index;
	*last = mas.last;
	return entry;
}

/*
 * What a reverse find gave, with the known findings of 6.1's mas_find_rev
 * sidestepped (the caller holds the RCU read lock; @from_above: the search
 * started above 0 and has not yet given [0, 0]):
 *  - find_rev_root (kmt_known.h): from an index above 0, on a tree whose
 *    root holds one entry over [0, 0] without a node, the walk finds no
 *    entry and stops (the root is not searchable), so the entry at 0 is
 *    never found. Give it, as a fixed kernel does.
 *  - prev_root_min: mas_find_rev_setup gives the root's entry [0, 0]
 *    whatever the min.
 */
static void *kmt_rev_sidestep(struct kmt_tree *t, void *entry, uint64_t min, bool from_above,
			      uint64_t *first, uint64_t *last)
{
	void *root = rcu_dereference_raw(t->mt.ma_root);

	if (!entry && !min && from_above && root && !xa_is_node(root) &&
	    kmt_known_sidestep(KMT_KNOWN_FIND_REV_ROOT)) {
		entry = root;
		*first = *last = 0;
	}
	if (entry && min && *first < min && !xa_is_node(root) &&
	    kmt_known_sidestep(KMT_KNOWN_PREV_ROOT_MIN)) {
		entry = NULL;
		*first = *last = 0;
	}
	return entry;
}

void *kmt_find_prev(struct kmt_tree *t, uint64_t from, uint64_t min, uint64_t *first,
		    uint64_t *last)
{
	MA_STATE(mas, &t->mt, from, from);
	void *entry;

	if (from < min)
		return NULL;
	rcu_read_lock();
	entry = mas_find_rev(&mas, min);
	*first = mas.index;
	*last = mas.last;
	entry = kmt_rev_sidestep(t, entry, min, from > 0, first, last);
	rcu_read_unlock();
	return entry;
}

/*
 * Known finding gap_whole_null (kmt_known.h): is the tree one leaf holding
 * a single NULL over [0, ULONG_MAX]? Left so by erasing an entry that
 * covered everything; 6.12's gap searches then compute that gap's size as
 * ULONG_MAX - 0 + 1 = 0 and find no room (mas_rev_awalk for any size,
 * mas_anode_descend for a window of the whole range).
 */
static bool kmt_whole_null_leaf(struct kmt_tree *t)
{
	struct maple_enode *root = t->mt.ma_root;
	struct maple_node *node;
	enum maple_type type;

	if (!xa_is_node(root) || !mte_is_leaf(root))
		return false;
	node = mte_to_node(root);
	type = mte_node_type(root);
	return ma_data_end(node, type, ma_pivots(node, type), ULONG_MAX) == 0 &&
	       !ma_slots(node, type)[0];
}

static int kmt_gap_search(struct maple_tree *mt, uint64_t lo, uint64_t hi, uint64_t size,
			  bool highest, uint64_t *start)
{
	MA_STATE(mas, mt, 0, 0);
	int ret;

	rcu_read_lock();
	ret = highest ? mas_empty_area_rev(&mas, lo, hi, size) : mas_empty_area(&mas, lo, hi, size);
	rcu_read_unlock();
	if (!ret)
		*start = mas.index;
	return ret;
}

static int kmt_gap_tree(struct kmt_tree *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
			uint64_t *start)
{
	struct maple_tree empty;
	int ret;

	if (kmt_known_sidestep(KMT_KNOWN_GAP_WHOLE_NULL) && kmt_whole_null_leaf(t)) {
		/* answer as the empty tree it holds would (its own search) */
		mt_init_flags(&empty, KMT_FLAGS);
		return kmt_gap_search(&empty, lo, hi, size, highest, start);
	}
	ret = kmt_gap_search(&t->mt, lo, hi, size, highest, start);
	/*
	 * Known finding gap_rev_top_wrap: up to ULONG_MAX, mas_rev_awalk's
	 * room test `size <= mas->last - min + 1` wraps to 0 for the leaf slot
	 * that starts at 0, so a NULL there is passed over. Only that slot is
	 * affected and, the tree being more than one NULL, it ends below
	 * ULONG_MAX: the same search up to ULONG_MAX - 1 answers what the
	 * first one should have.
	 */
	if (ret == -EBUSY && highest && hi == ULONG_MAX && lo < hi && hi - 1 - lo >= size - 1 &&
	    kmt_known_sidestep(KMT_KNOWN_GAP_REV_TOP_WRAP))
		ret = kmt_gap_search(&t->mt, lo, hi - 1, size, highest, start);
	return ret;
}

int kmt_gap(struct kmt_tree *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
	    uint64_t *start)
{
	int ret = kmt_gap_tree(t, lo, hi, size, highest, start);

	/*
	 * Known finding gap_limits: mas_empty_area(_rev) of trees before
	 * 'Revise limit checks in mas_empty_area{_rev}()' (6.5) check only
	 * min < max, so a size of 0 or a window smaller than the size is
	 * searched for anyway, and the answer lies partly outside the window
	 * (a run of 0 indices at 1, or one that ends above max or starts
	 * below min). A fixed kernel says -EINVAL to both: the kernel's
	 * search still runs, its answer is replaced.
	 */
	if (ret != -EINVAL && (!size || (lo <= hi && hi - lo < size - 1)) &&
	    kmt_known_sidestep(KMT_KNOWN_GAP_LIMITS))
		ret = -EINVAL;
	return ret;
}

/*
 * A fiber's RCU walk (kmt_walk), for kmt_rcu_point: the tree it walks and,
 * with the find_rewalk_empty sidestep on, where to start it again.
 */
static struct kmt_walker {
	struct maple_tree *mt;
	jmp_buf *restart;
	bool had_node; /* the tree had a node since the walk (re)started */
} kmt_walkers[SCHED_MAX_FIBERS];

/*
 * Known finding find_rewalk_empty (kmt_known.h): once a writer has left the
 * tree without a node (empty, or one entry at the root) while a reader's
 * mas_find was inside it, the reader's node is dead and mas_rewalk leaves
 * no node to retry on. The sidestep leaves the kernel's walk at that point
 * and starts a new one after the last entry visited, as a reader that
 * dropped and retook the RCU read lock would.
 */
static bool kmt_tree_has_node(struct maple_tree *mt)
{
	return xa_is_node(rcu_dereference_raw(mt->ma_root));
}

/* Yield to the other fibers; true when the walk is lost (above). */
static bool kmt_walk_yield(struct kmt_walker *w, const char *where)
{
	w->had_node |= kmt_tree_has_node(w->mt);
	sched_point(where);
	return w->restart && w->had_node && !kmt_tree_has_node(w->mt);
}

static void kmt_walk_restart(struct kmt_walker *w, struct ma_state *mas, uint64_t next)
{
	mas_set(mas, next);
	w->had_node = kmt_tree_has_node(w->mt);
}

void kmt_rcu_point(void)
{
	struct kmt_walker *w = &kmt_walkers[sched_self()->id];

	if (!(kmt_rcu_walkers & (1u << sched_self()->id)))
		return;
	if (kmt_walk_yield(w, "kernel maple tree RCU read"))
		longjmp(*w->restart, 1);
}

void kmt_walk(struct kmt_tree *t, uint64_t from, uint64_t to, bool rcu, kmt_visit_fn visit,
	      void *arg)
{
	MA_STATE(mas, &t->mt, from, from);
	struct kmt_walker *w = &kmt_walkers[sched_self()->id];
	unsigned bit = 1u << sched_self()->id;
	volatile uint64_t next = from; /* where a new walk starts */
	volatile bool ended = false;   /* the last entry visited reaches @to */
	jmp_buf restart;
	void *entry;

	if (from > to)
		return;
	if (rcu) {
		rcu_read_lock();
		w->mt = &t->mt;
		w->restart = kmt_known_sidestep(KMT_KNOWN_FIND_REWALK_EMPTY) ? &restart : NULL;
		w->had_node = kmt_tree_has_node(w->mt);
		if (setjmp(restart)) {
			if (ended)
				goto out;
			kmt_walk_restart(w, &mas, next);
		}
		kmt_rcu_walkers |= bit;
	}
	mas_for_each(&mas, entry, to)
	{
		if (rcu)
			kmt_rcu_walkers &= ~bit;
		if (!visit(arg, mas.index, mas.last, entry))
			break;
		if (mas.last >= to)
			ended = true;
		else
			next = mas.last + 1;
		if (rcu) {
			if (kmt_walk_yield(w, "kernel maple tree RCU walk")) {
				if (ended)
					break;
				kmt_walk_restart(w, &mas, next);
			}
			kmt_rcu_walkers |= bit;
		}
	}
out:
	if (rcu) {
		kmt_rcu_walkers &= ~bit;
		*w = (struct kmt_walker){0};
		rcu_read_unlock();
	}
}

/* ---- the normal API and the other walks ----------------------------------- */

/*
 * The calls below that take the tree's lock (mtree_erase, mtree_destroy,
 * mtree_dup) take its spinlock, the shim's mutex, as mtree_store_range
 * does (kmt_store_path): the harness's own lock is held too, so no other
 * fiber ever waits on it.
 */
void *kmt_lookup(struct kmt_tree *t, uint64_t index)
{
	return mtree_load(&t->mt, index);
}

void *kmt_erase_locked(struct kmt_tree *t, uint64_t index)
{
	return mtree_erase(&t->mt, index);
}

void kmt_destroy_locked(struct kmt_tree *t)
{
	mtree_destroy(&t->mt);
	kmt_destroyed(t);
}

#ifdef KMT_HAVE_MTREE_DUP
int kmt_dup_locked(struct kmt_tree *src, struct kmt_tree *dst)
{
	return mtree_dup(&src->mt, &dst->mt, GFP_KERNEL);
}
#endif

/*
 * Known finding prev_root_min (kmt_step) in a backward walk: the root's
 * entry [0, 0], held without a node, given below a min above 0.
 */
static bool kmt_root_below_min(struct kmt_tree *t, void *entry, uint64_t first, uint64_t min)
{
	return entry && min && first < min && !xa_is_node(rcu_dereference_raw(t->mt.ma_root)) &&
	       kmt_known_sidestep(KMT_KNOWN_PREV_ROOT_MIN);
}

/* mt_for_each from @from: the range of an entry from where its search
 * started to the index before the one mt_find moved to. */
static void kmt_walk_find(struct kmt_tree *t, uint64_t from, uint64_t to, kmt_visit_fn visit,
			  void *arg)
{
	unsigned long index = from, start = from;
	void *entry;

	for (entry = mt_find(&t->mt, &index, to); entry;
	     entry = mt_find_after(&t->mt, &index, to)) {
		if (!visit(arg, start, index - 1, entry)) /* (index 0: it ended at ULONG_MAX) */
			return;
		start = index;
	}
}

/* A caller that drops its locks after each entry: mas_pause, then on. */
static void kmt_walk_paused(struct kmt_tree *t, uint64_t from, uint64_t to, bool rev,
			    kmt_visit_fn visit, void *arg)
{
	MA_STATE(mas, &t->mt, rev ? to : from, rev ? to : from);
	uint64_t first = 0, last = 0;
	bool above = to > 0; /* reverse: [0, 0] not given yet */
	bool paused = false;
	void *entry;

	do {
		/*
		 * Known findings paused_rev_top and paused_rev_wrap
		 * (kmt_known.h): 6.1's mas_find_rev from a pause gives up
		 * when the last entry ended at ULONG_MAX (the forward walk's
		 * test), and when it began at 0 goes on from ULONG_MAX. Do
		 * what a fixed kernel's does there: go on from below the
		 * entry, or end.
		 */
		if (rev && paused && !first && kmt_known_sidestep(KMT_KNOWN_PAUSED_REV_WRAP))
			break;
		if (rev && paused && first && last == ULONG_MAX &&
		    kmt_known_sidestep(KMT_KNOWN_PAUSED_REV_TOP))
			mas_set(&mas, first - 1);
		rcu_read_lock();
		entry = rev ? mas_find_rev(&mas, from) : mas_find(&mas, to);
		first = mas.index;
		last = mas.last;
		if (rev)
			entry = kmt_rev_sidestep(t, entry, from, above, &first, &last);
		above = above && !(entry && first == 0);
		mas_pause(&mas);
		paused = true;
		rcu_read_unlock();
	} while (entry && visit(arg, first, last, entry));
}

#ifdef KMT_HAVE_FIND_RANGE
/* Range by range, empty ones too: a NULL entry from an active state is
 * an empty range, from any other the end. */
static void kmt_walk_ranges(struct kmt_tree *t, uint64_t from, uint64_t to, bool rev,
			    kmt_visit_fn visit, void *arg)
{
	MA_STATE(mas, &t->mt, rev ? to : from, rev ? to : from);
	void *entry;

	rcu_read_lock();
	for (;;) {
		entry = rev ? mas_find_range_rev(&mas, from) : mas_find_range(&mas, to);
		if (!entry && !mas_is_active(&mas))
			break;
		/* a first walk that lands in an empty range reaching the
		 * window's far end answers NULL with the state still active
		 * (mas_find_setup's index == max, mas_find_rev_setup's
		 * index < min), where later ones overflow or underflow: for
		 * a caller, the end (an empty last piece, which a check of
		 * the window does not miss) */
		if (!entry && (rev ? mas.index <= from : mas.last >= to))
			break;
		if (rev && kmt_root_below_min(t, entry, mas.index, from))
			break;
		if (!visit(arg, mas.index, mas.last, entry))
			break;
		if (rev ? mas.index <= from : mas.last >= to)
			break;
	}
	rcu_read_unlock();
}
#endif

void kmt_walk_by(struct kmt_tree *t, uint64_t from, uint64_t to, int how, kmt_visit_fn visit,
		 void *arg)
{
	if (from > to)
		return;
	switch (how) {
	case KMT_WALK_PAUSED:
	case KMT_WALK_PAUSED_REV:
		kmt_walk_paused(t, from, to, how == KMT_WALK_PAUSED_REV, visit, arg);
		break;
	case KMT_WALK_FIND:
		kmt_walk_find(t, from, to, visit, arg);
		break;
#ifdef KMT_HAVE_FIND_RANGE
	case KMT_WALK_RANGES:
	case KMT_WALK_RANGES_REV:
		kmt_walk_ranges(t, from, to, how == KMT_WALK_RANGES_REV, visit, arg);
		break;
#endif
	}
}

#ifdef KMT_HAVE_DUP
int kmt_dup(struct kmt_tree *src, struct kmt_tree *dst)
{
	return __mt_dup(&src->mt, &dst->mt, GFP_KERNEL);
}

/* dup_mmap's loop_out on a failure: mark where the copy stopped. */
static void kmt_fork_mark(struct ma_state *mas, void *mpnt, uint64_t first, uint64_t last)
{
	if (!mpnt)
		return;
	mas_set_range(mas, first, last);
	mas_store(mas, XA_ZERO_ENTRY);
}

/*
 * As dup_mmap of 6.12, the VMA's vm_start and vm_end - 1 being the range
 * mas_find reports for the entry (the caller checks every one against its
 * map). vma_iter_bulk_store's result is not looked at, as dup_mmap does
 * not: after __mt_dup the in-place store needs no allocation (the caller
 * checks that none is made).
 */
int kmt_fork(struct kmt_tree *src, struct kmt_tree *dst, const struct kmt_fork_ops *ops)
{
	MA_STATE(mas, &dst->mt, 0, 0); /* VMA_ITERATOR(vmi, mm, 0) */
	uint64_t first = 0, last = 0;
	void *mpnt, *tmp;
	int ret = __mt_dup(&src->mt, &dst->mt, GFP_KERNEL);

	if (ret)
		return ret;
	mt_clear_in_rcu(&dst->mt);
	while ((mpnt = mas_find(&mas, ULONG_MAX)) != NULL) { /* for_each_vma */
		first = mas.index;
		last = mas.last;
		switch (ops->entry(ops->arg, first, last, mpnt, &tmp)) {
		case KMT_FORK_DROP: /* vma_iter_clear_gfp */
			__mas_set_range(&mas, first, last);
			mas_store_gfp(&mas, NULL, GFP_KERNEL);
			if (mas_is_err(&mas)) {
				ret = -ENOMEM;
				goto loop_out;
			}
			continue;
		case KMT_FORK_COPY:
			break;
		default:
			ret = -ENOMEM; /* fail_nomem */
			goto loop_out;
		}
		mas.index = first; /* vma_iter_bulk_store */
		mas.last = last;
		mas_store(&mas, tmp);
		/*
		 * Known finding store_root_restart: an entry over [0, 0] alone
		 * is held by the root, and mas_store_root leaves the iterator
		 * at ma_start, so that the next mas_find walks index 0 again
		 * and returns the entry just stored. Go on from index 1.
		 */
		if (mas_is_start(&mas) && !last && kmt_known_sidestep(KMT_KNOWN_STORE_ROOT_RESTART))
			mas_set(&mas, 1);
		if (!ops->copied(ops->arg, first, last, tmp)) {
			ret = -ENOMEM;
			mpnt = mas_find(&mas, ULONG_MAX); /* vma_next */
			first = mas.index;
			last = mas.last;
			goto loop_out;
		}
	}
loop_out:
	mas_destroy(&mas); /* vma_iter_free */
	if (!ret)
		mt_set_in_rcu(&dst->mt);
	else
		kmt_fork_mark(&mas, mpnt, first, last);
	return ret;
}

/* Walk on from an entry to NULL or the marker (exit_mmap's loops). */
static void *kmt_exit_next(struct ma_state *mas, unsigned long max)
{
	void *next = mas_find(mas, max);

	return xa_is_zero(next) ? NULL : next;
}

void kmt_fork_exit(struct kmt_tree *t, kmt_visit_fn visit, void *arg)
{
	MA_STATE(mas, &t->mt, 0, 0);
	void *vma = mas_find(&mas, ULONG_MAX), *v; /* vma_next */
	uint64_t first = mas.index, last = mas.last;

	if (!vma || xa_is_zero(vma))
		goto destroy; /* dup_mmap failed before copying anything */
	for (v = vma; v; v = kmt_exit_next(&mas, ULONG_MAX - 1)) /* unmap_vmas */
		;
	mt_clear_in_rcu(&t->mt);
	/* vma_iter_set(&vmi, vma->vm_end); a range ending at ULONG_MAX (no
	 * VMA does) would wrap to 0: nothing follows it */
	mas_set(&mas, last == ULONG_MAX ? ULONG_MAX : last + 1);
	v = vma;
	do {
		if (!visit(arg, first, last, v) || last == ULONG_MAX)
			break;
		v = kmt_exit_next(&mas, ULONG_MAX);
		first = mas.index;
		last = mas.last;
	} while (v);
destroy:
	__mt_destroy(&t->mt);
	mt_set_in_rcu(&t->mt);
}
#endif /* KMT_HAVE_DUP */

#ifdef KMT_HAVE_BULK
struct kmt_bulk {
	struct ma_state mas;
	uint64_t expected, appended;
};

int kmt_bulk_begin(struct kmt_tree *t, uint64_t expected, struct kmt_bulk **b)
{
	struct kmt_bulk *k = model_alloc(AK_OTHER, sizeof(*k));
	int ret;

	if (!k)
		return -ENOMEM;
	MA_STATE(mas, &t->mt, 0, 0);

	k->mas = mas;
	k->expected = expected;
	/* as dup_mmap did from 6.4 to 6.7: out of RCU mode while building */
	mt_clear_in_rcu(&t->mt);
	ret = mas_expected_entries(&k->mas, expected);
	if (ret) {
		mt_set_in_rcu(&t->mt);
		model_free(AK_OTHER, k);
		return ret;
	}
	*b = k;
	return 0;
}

int kmt_bulk_append(struct kmt_bulk *k, uint64_t first, uint64_t last, void *entry)
{
	struct ma_state *mas = &k->mas;

	/*
	 * Past the expected count the preallocation may run out, which
	 * mas_store treats as a bug (MAS_WR_BUG_ON): leave preallocated mode
	 * and store as usual (mas_store_gfp uses up and frees what is left).
	 */
	if (k->appended++ >= k->expected)
		mas->mas_flags &= ~MA_STATE_PREALLOC;
	/*
	 * The range as vma_iter_bulk_store set it (dup_mmap of 6.4 to 6.7):
	 * the iterator stays where the last store left it, so a store within
	 * that leaf's range starts from the leaf, not from the root.
	 */
	mas->index = first;
	mas->last = last;
	if (mas->mas_flags & MA_STATE_PREALLOC) {
		mas_store(mas, entry);
		return mas_is_err(mas) ? xa_err(mas->node) : 0;
	}
	return mas_store_gfp(mas, entry, GFP_KERNEL);
}

void kmt_bulk_end(struct kmt_bulk *k)
{
	struct maple_tree *mt = k->mas.tree;

	mas_destroy(&k->mas);
	mt_set_in_rcu(mt);
	model_free(AK_OTHER, k);
}

#endif

uint64_t kmt_validate(struct kmt_tree *t)
{
	uint64_t before = kmt_nbugs;

	rcu_read_lock();
	mt_validate(&t->mt);
	rcu_read_unlock();
	return kmt_nbugs - before;
}

/* ---- pictures and counts -------------------------------------------------- */

#ifdef KMT_META_GAP_TYPED
#define kmt_meta_gap(node, type) ma_meta_gap(node, type)
#else
#define kmt_meta_gap(node, type) ma_meta_gap(node)
#endif

struct kmt_walk_ctx {
	void (*put)(void *arg, uint64_t w);
	void *arg;
	uintptr_t *addrs;
	uint64_t cap, n;
};

/* Pre-order: node type and end, then per slot its pivot, its entry (leaf)
 * or its subtree (internal), and the gaps of an allocation-range node. */
static void walk_node(struct kmt_walk_ctx *c, struct maple_enode *enode, unsigned long min,
		      unsigned long max, unsigned depth)
{
	struct maple_node *node = mte_to_node(enode);
	enum maple_type type = mte_node_type(enode);
	unsigned long *pivots = ma_pivots(node, type);
	void __rcu **slots = ma_slots(node, type);
	unsigned char end, i;
	unsigned long lo = min;

	if (c->addrs && c->n < c->cap)
		c->addrs[c->n] = (uintptr_t)node;
	c->n++;
	if (depth > 64 || ma_is_dense(type) || (!c->put && ma_is_leaf(type)))
		return; /* (a count needs no leaf's slots) */
	end = ma_data_end(node, type, pivots, max);
	if (c->put)
		c->put(c->arg, (uint64_t)type | (uint64_t)end << 8 | (uint64_t)depth << 16);
	for (i = 0; i <= end && i < mt_slots[type]; i++) {
		unsigned long hi = i < end && i < mt_pivots[type] ? pivots[i] : max;
		void *slot = rcu_dereference_protected(slots[i], 1);

		if (c->put)
			c->put(c->arg, hi);
		if (ma_is_leaf(type)) {
			if (c->put)
				c->put(c->arg, (uintptr_t)slot);
		} else if (slot) {
			walk_node(c, slot, lo, hi, depth + 1);
		}
		if (c->put && type == maple_arange_64)
			c->put(c->arg, ma_gaps(node, type)[i]);
		lo = hi + 1;
	}
	if (c->put && type == maple_arange_64)
		c->put(c->arg, kmt_meta_gap(node, type));
}

static void walk_tree(struct kmt_walk_ctx *c, struct kmt_tree *t)
{
	void *root = rcu_dereference_protected(t->mt.ma_root, 1);

	if (c->put) {
		c->put(c->arg, t->mt.ma_flags);
		c->put(c->arg, xa_is_node(root) ? 1 : (uintptr_t)root);
	}
	if (xa_is_node(root))
		walk_node(c, root, 0, mt_node_max(root), 0);
}

void kmt_picture(struct kmt_tree *t, void (*put)(void *arg, uint64_t w), void *arg)
{
	struct kmt_walk_ctx c = {put, arg, NULL, 0, 0};

	walk_tree(&c, t);
}

uint64_t kmt_nodes(struct kmt_tree *t, uintptr_t *addrs, uint64_t cap)
{
	struct kmt_walk_ctx c = {NULL, NULL, addrs, cap, 0};

	walk_tree(&c, t);
	return c.n;
}

/*
 * The nodes waiting for a grace period: those handed to call_rcu and those
 * marked dead. The tree marks a node dead only in the write that frees it
 * or hands it (or the top of its dead subtree, whose callback frees the
 * rest) to call_rcu, so with no node handed over none can be dead and
 * alive: the table is scanned only while callbacks wait (while some fiber
 * reads under RCU), and otherwise a dead node left alive shows as a leak.
 */
void kmt_live(struct kmt_live *l)
{
	l->live = live_nodes;
	l->pending = 0;
	for (size_t i = 0; queued_nodes && i < reg_n; i++)
		if (reg[i].queued || ma_dead_node((struct maple_node *)reg[i].addr))
			l->pending++;
#ifdef KMT_HAVE_NR_ALLOCATED
	l->shim = maple_node_cache ? mt_nr_allocated() : 0;
#else
	l->shim = -1;
#endif
}

void kmt_dump(FILE *out, struct kmt_tree *t)
{
	FILE *saved = kmt_out;

	kmt_out = out;
#ifdef KMT_DUMP_FORMAT
	mt_dump(&t->mt, mt_dump_hex);
#else
	mt_dump(&t->mt); /* (indices in decimal) */
#endif
	kmt_out = saved;
	fflush(out);
}

static unsigned long *corrupt_at, corrupt_was;

bool kmt_test_corrupt(struct kmt_tree *t)
{
	void *root = rcu_dereference_protected(t->mt.ma_root, 1);
	struct maple_enode *enode = root;
	unsigned long *pivots;

	if (!xa_is_node(root))
		return false;
	while (!ma_is_leaf(mte_node_type(enode)))
		enode = rcu_dereference_protected(
		    ma_slots(mte_to_node(enode), mte_node_type(enode))[0], 1);
	pivots = ma_pivots(mte_to_node(enode), mte_node_type(enode));
	if (pivots[1] < 2)
		return false;
	/* pivots must ascend: make the first one pass the second */
	corrupt_at = &pivots[0];
	corrupt_was = pivots[0];
	pivots[0] = pivots[1] + 1;
	return true;
}

void kmt_test_restore(void)
{
	if (corrupt_at)
		*corrupt_at = corrupt_was;
	corrupt_at = NULL;
}

unsigned kmt_leaf_slots(void)
{
	return mt_slots[maple_leaf_64];
}

unsigned kmt_node_size(void)
{
	return sizeof(struct maple_node);
}
