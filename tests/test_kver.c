/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel versions the model follows (src/mm/kver.h): releases read as
 * uname gives them, refused when they are not versions, clamped to what
 * the model knows; a rule holds from its mainline release on and in the
 * point releases of the branches it was backported to, and nowhere else;
 * the table names every rule. A rule of what smaps shows (lf), or of a
 * page's dirty state that only another process's smaps shows, has no
 * result to differ in, so the model's view itself is asked here.
 */
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "mm/kver.h"
#include "test.h"

#include <errno.h>
#include <string.h>

static bool parses_releases(void)
{
	unsigned v = 0;
	char s[32];

	ASSERT(kver_parse("6.18.44-fc-v1300", &v));
	ASSERT_EQ(v, KVER(6, 18, 44));
	ASSERT(kver_parse("6.12", &v));
	ASSERT_EQ(v, KVER(6, 12, 0));
	ASSERT(kver_parse("7.3.4+deb13-amd64", &v));
	ASSERT_EQ(v, KVER(7, 3, 4));
	ASSERT(!kver_parse("", &v));
	ASSERT(!kver_parse("6", &v));
	ASSERT(!kver_parse("6.", &v));
	ASSERT(!kver_parse("6.x", &v));
	ASSERT(!kver_parse("0.12", &v));
	ASSERT(!kver_parse("6.12.", &v));
	ASSERT(!kver_parse("6.12rc1", &v));
	ASSERT(!kver_parse("6.1234", &v));
	kver_print(KVER(6, 12, 118), s, sizeof(s));
	ASSERT(!strcmp(s, "6.12.118"));
	kver_print(KVER_BRANCH(6, 1), s, sizeof(s));
	ASSERT(!strcmp(s, "6.1"));
	ASSERT_EQ(kver_known(KVER(5, 15, 1)), KVER_OLDEST);
	ASSERT_EQ(kver_known(KVER(9, 0, 0)), KVER_NEWEST);
	ASSERT_EQ(kver_known(KVER(6, 18, 44)), KVER(6, 18, 44));
	return true;
}

static bool rules_by_release_and_backport(void)
{
	/* mainline from 6.16 on only */
	ASSERT(!kver_has(KVER(6, 12, 118), KV_ANON_MERGE_INTO_UNFAULTED));
	ASSERT(!kver_has(KVER(6, 15, 9), KV_ANON_MERGE_INTO_UNFAULTED));
	ASSERT(kver_has(KVER(6, 16, 0), KV_ANON_MERGE_INTO_UNFAULTED));
	ASSERT(kver_has(KVER(9, 0, 0), KV_ANON_MERGE_INTO_UNFAULTED)); /* as the newest */
	/* backported to 6.1.y and 6.12.y, not (yet) in this 6.18.44 */
	ASSERT(kver_has(KVER(6, 12, 118), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(kver_has(KVER_BRANCH(6, 12), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(kver_has(KVER(6, 12, 112), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(!kver_has(KVER(6, 12, 111), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(!kver_has(KVER(6, 1, 190), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(kver_has(KVER(6, 1, 192), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(!kver_has(KVER(6, 6, 200), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(!kver_has(KVER(6, 18, 44), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(kver_has(KVER(7, 3, 4), KV_DONTUNMAP_UNFAULTED_PGOFF));
	/* mremap's rework, and the fixes that came after it */
	ASSERT(!kver_has(KVER(6, 16, 12), KV_MREMAP_MOVES_MANY));
	ASSERT(kver_has(KVER(6, 17, 0), KV_MREMAP_MOVES_MANY));
	ASSERT(!kver_has(KVER(6, 18, 44), KV_MREMAP_MAP_COUNT_SPLITS));
	ASSERT(kver_has(KVER(7, 3, 4), KV_MREMAP_MAP_COUNT_SPLITS));
	ASSERT(!kver_has(KVER(6, 18, 44), KV_DONTUNMAP_LOCKED_SPLIT));
	ASSERT(kver_has(KVER(6, 12, 114), KV_DONTUNMAP_LOCKED_SPLIT));
	ASSERT(!kver_has(KVER(6, 12, 113), KV_DONTUNMAP_NO_SELF_MERGE));
	ASSERT(kver_has(KVER(6, 12, 118), KV_UFFD_COPY_APART));
	ASSERT(!kver_has(KVER(6, 18, 44), KV_UFFD_COPY_APART));
	ASSERT(!kver_has(KVER(6, 1, 192), KV_UFFD_COPY_APART));
	for (unsigned r = 0; r < KV_NRULES; r++)
		ASSERT(kver_rules[r].name && kver_rules[r].change && kver_rules[r].since);
	return true;
}

/* One call of p0 on the model, as the executor makes it. */
static void call(void *as, struct mm_call *c)
{
	if (!as_model.get(as, c)) {
		c->result = -ESRCH;
		return;
	}
	as_model.call(as, c);
	as_model.put(as, c);
}

/* Whether the model's view shows lf on a VMA mlock2(MLOCK_ONFAULT) locked,
 * as version @v; -1 when the calls did not do what they should. */
static int lf_shown(unsigned v)
{
	char err[128];
	void *as = as_model.open(err, sizeof(err));
	struct mm_call c = {
	    .code = MMF_OP_MMAP, .start = MMF_WINDOW_LO, .len = 2ull << MMF_PAGE_SHIFT};
	struct as_vma vmas[4];
	int n, shown = -1;

	if (!as)
		return -1;
	as_model_set_kver(as, v);
	c.a.prot = 3;
	c.a.kind = MMF_PRIVATE_ANON;
	c.a.place = MMF_FIXED;
	call(as, &c);
	if (c.result == (int64_t)MMF_WINDOW_LO) {
		c = (struct mm_call){.code = MMF_OP_MLOCK, .start = MMF_WINDOW_LO, .len = c.len};
		c.a.lock = 1;
		call(as, &c);
		n = as_model.vmas(as, 0, MMF_WINDOW_LO, MMF_WINDOW_HI, false, vmas, 4, err,
				  sizeof(err));
		if (c.result == 0 && n == 1 && (vmas[0].flags & AS_VM_LOCKED))
			shown = (vmas[0].flags & AS_VM_LOCKONFAULT) != 0;
	}
	as_model.close(as);
	return shown;
}

static bool view_rule_smaps_shows_lf(void)
{
	ASSERT_EQ(lf_shown(KVER_BRANCH(6, 1)), 0);
	ASSERT_EQ(lf_shown(KVER(6, 12, 118)), 1);
	ASSERT_EQ(lf_shown(KVER_NEWEST), 1);
	return true;
}

/* One call of process @proc on the model, with range [page, page + n) of
 * the window; its result. */
static int64_t call_at(void *as, uint8_t code, unsigned proc, unsigned page, unsigned n,
		       struct mm_args a)
{
	struct mm_call c = {.code = code, .a = a};

	c.a.proc = (uint8_t)proc;
	c.start = MMF_WINDOW_LO + ((uint64_t)page << MMF_PAGE_SHIFT);
	c.len = (uint64_t)n << MMF_PAGE_SHIFT;
	c.value = MMF_VALUE(proc, 1);
	call(as, &c);
	return c.result;
}

/*
 * version_uffd_wp_resolve_page_prot.txt as version @v: whether p1 maps the
 * shared page dirty after p0 wrote it, following an uffd-wp registration
 * of p0's and its unregistering; -1 when a call did not do what it should.
 */
static int wp_resolved_dirty(unsigned v)
{
	char err[128];
	void *as = as_model.open(err, sizeof(err));
	struct as_vma vmas[4];
	int64_t r = 0;
	int dirty = -1;

	if (!as)
		return -1;
	as_model_set_kver(as, v);
	r |= call_at(as, MMF_OP_MMAP, 0, 0x10, 1,
		     (struct mm_args){.prot = 3, .kind = MMF_SHARED_ANON, .place = MMF_FIXED}) !=
	     (int64_t)(MMF_WINDOW_LO + (0x10ull << MMF_PAGE_SHIFT));
	r |= call_at(as, MMF_OP_TOUCH, 0, 0x10, 1, (struct mm_args){.access = 0});
	r |= call_at(as, MMF_OP_UFFD_CREATE, 0, 0, 0, (struct mm_args){.features = 0});
	r |= call_at(as, MMF_OP_UFFD_REGISTER, 0, 0x10, 1, (struct mm_args){.modes = 2});
	r |= call_at(as, MMF_OP_UFFD_UNREGISTER, 0, 0x10, 1, (struct mm_args){.handle = 0});
	r |= call_at(as, MMF_OP_FORK, 0, 0, 0, (struct mm_args){0});
	r |= call_at(as, MMF_OP_TOUCH, 0, 0x10, 1, (struct mm_args){.access = 1});
	r |= call_at(as, MMF_OP_TOUCH, 1, 0x10, 1, (struct mm_args){.access = 0});
	if (!r &&
	    as_model.vmas(as, 1, MMF_WINDOW_LO, MMF_WINDOW_HI, true, vmas, 4, err, sizeof(err)) ==
		1 &&
	    vmas[0].shared_clean + vmas[0].shared_dirty == 1)
		dirty = (int)vmas[0].shared_dirty;
	as_model.close(as);
	return dirty;
}

static bool view_rule_uffd_wp_resolve_page_prot(void)
{
	ASSERT_EQ(wp_resolved_dirty(KVER(6, 1, 192)), 0);
	ASSERT_EQ(wp_resolved_dirty(KVER(6, 12, 118)), 1);
	ASSERT_EQ(wp_resolved_dirty(KVER_NEWEST), 1);
	return true;
}

int main(void)
{
	TEST(parses_releases);
	TEST(rules_by_release_and_backport);
	TEST(view_rule_smaps_shows_lf);
	TEST(view_rule_uffd_wp_resolve_page_prot);
	return test_summary();
}
