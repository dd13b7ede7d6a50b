/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation (fuzz/as/expect/expect.h): what the calls asked, against the
 * backend after every step. Quiet on the model over programs that use every
 * kind of mapping, fork, userfaultfd and page data; each check shown firing
 * on a model broken on purpose behind the seam, in ways that leave every
 * structure consistent: an mprotect or a madvise that does nothing, a fork
 * whose copy-on-write shares the page, a wipe-on-fork child that keeps its
 * parent's data, a write that stores something else, a read that returns
 * something else, a dontneed that keeps the data, a registration in the
 * wrong modes or with the wrong context, one that replaces modes the
 * kernel keeps, a fork whose child goes at once, an mremap that loses the
 * data it moves, an mlock that does nothing, a stack that does not grow
 * under a touch that says it reached its pages.
 */
#include "fuzz/as/as_backend.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/targets/mm_run.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- quiet on the model -------------------------------------------------- */

static const char *const quiet[] = {
    /* permissions, fork flags, offsets; holes make mprotect and madvise fail */
    "target fuzz_mm\n"
    "mmap p0 @0x10:8 r,w private f0 fixed\n"
    "mprotect p0 @0x12:2 r\n"
    "madvise p0 @0x14:2 dontfork\n"
    "madvise p0 @0x15:2 wipeonfork\n"
    "munmap p0 @0x17:1\n"
    "mprotect p0 @0x10:9 r,w,x\n"
    "madvise p0 @0x10:9 keeponfork\n"
    "mmap p0 @0x20:4 r shared_file f1 fixed\n"
    "madvise p0 @0x1f:3 wipeonfork\n"
    "mmap p0 @0x30:3 r,w shared f0 fixed\n"
    "mmap p0 @0x40:4 r,w private_file f2 hint\n",
    /* data: private and shared, anonymous and file, copy-on-write after
     * fork, wipe-on-fork, dontcopy, dontneed */
    "target fuzz_mm\n"
    "mmap p0 @0x10:4 r,w private f0 fixed\n"
    "touch p0 @0x10:4 write\n"
    "mmap p0 @0x20:4 r,w shared_file f1 fixed\n"
    "touch p0 @0x20:2 write\n"
    "mmap p0 @0x30:4 r,w private_file f1 fixed\n"
    "touch p0 @0x30:4 read\n"
    "touch p0 @0x31:1 write\n"
    "mmap p0 @0x40:4 r,w shared f0 fixed\n"
    "touch p0 @0x40:4 write\n"
    "madvise p0 @0x12:1 wipeonfork\n"
    "madvise p0 @0x13:1 dontfork\n"
    "fork p0 tree current nodiff\n"
    "touch p1 @0x10:4 read\n"
    "touch p1 @0x10:1 write\n"
    "touch p0 @0x10:2 read\n"
    "touch p1 @0x20:1 write\n"
    "touch p0 @0x20:4 read\n"
    "touch p1 @0x40:1 write\n"
    "touch p0 @0x40:4 read\n"
    "touch p1 @0x30:4 read\n"
    "madvise p0 @0x30:4 dontneed\n"
    "touch p0 @0x30:4 read\n"
    "madvise p1 @0x10:2 dontneed\n"
    "touch p1 @0x10:2 read\n"
    "madvise p0 @0x20:4 dontneed\n"
    "touch p0 @0x20:4 read\n"
    "exit p1\n"
    "touch p0 @0x10:4 read\n",
    /* a private file page sees the file's writes until it is copied */
    "target fuzz_mm\n"
    "mmap p0 @0x10:2 r private_file f3 fixed\n"
    "touch p0 @0x10:2 read\n"
    "mmap p0 @0x10:2 r,w shared_file f3 hint\n"
    "fork p0 append current nodiff\n"
    "mmap p1 @0x50:2 r,w shared_file f3 fixed\n"
    "touch p1 @0x50:2 write\n"
    "touch p0 @0x10:2 read\n",
    /* userfaultfd: modes kept, contexts passed on by fork with the fork
     * event only, handed out in order, closed by release and exit */
    "target fuzz_mm\n"
    "mmap p0 @0x10:8 r,w private f0 fixed\n"
    "uffd_create p0 fork\n"
    "uffd_create p0 nofork\n"
    "uffd_create p0 fork\n"
    "uffd_register p0 @0x10:2 missing,wp h0\n"
    "uffd_register p0 @0x10:2 missing h0\n"
    "uffd_register p0 @0x12:2 wp h1\n"
    "uffd_register p0 @0x14:2 missing h2\n"
    "uffd_register p0 @0x16:1 wp h0\n"
    "fork p0 tree current nodiff\n"
    "uffd_register p0 @0x10:1 wp h3\n"
    "uffd_unregister p0 @0x14:1 h4\n"
    "uffd_unregister p0 @0x10:1 h0\n"
    "uffd_release p0 h2\n"
    "fork p1 append current nodiff\n"
    "exit p0\n"
    "touch p1 @0x10:8 write\n",
    /* failures: an injected one, a hole, a refused advice */
    "target fuzz_mm\n"
    "mmap p0 @0x10:8 r,w private f0 fixed\n"
    "mprotect p0 @0x11:2 r fail_at=1\n"
    "mmap p0 @0x12:2 r shared f0 fixed fail_at=1\n"
    "touch p0 @0x10:8 write fail_at=2\n"
    "mmap p0 @0x20:2 r shared_file f0 fixed\n"
    "madvise p0 @0x16:12 wipeonfork\n"
    "touch p0 @0x16:4 write\n"
    "fork p0 tree current nodiff fail_at=3\n"
    "uffd_create p0 fork fail_at=1\n",
    /* mremap: shrink, grow in place, moves (maymove, fixed, dontunmap)
     * with their data, offsets and registrations (kept with the remap
     * event only), a failure that unmapped the fixed destination */
    "target fuzz_mm\n"
    "mmap p0 @0x10:8 r,w private f0 fixed\n"
    "touch p0 @0x10:8 write\n"
    "mremap p0 @0x10:8 n6 - at_gap k0\n"
    "mremap p0 @0x10:6 n10 - at_gap k0\n"
    "touch p0 @0x10:10 read\n"
    "mmap p0 @0x30:4 r,w shared_file f1 fixed\n"
    "touch p0 @0x30:4 write\n"
    "mremap p0 @0x31:2 n4 maymove,fixed up k64\n"
    "touch p0 @0x71:4 read\n"
    "touch p0 @0x30:4 read\n"
    "mmap p0 @0x80:4 r,w private_file f2 fixed\n"
    "touch p0 @0x80:1 write\n"
    "mremap p0 @0x80:4 n4 maymove,dontunmap up k32\n"
    "touch p0 @0x80:4 read\n"
    "touch p0 @0xa0:4 read\n"
    "uffd_create p0 remap\n"
    "uffd_create p0 nofork\n"
    "mmap p0 @0xc0:4 r,w private f0 fixed\n"
    "uffd_register p0 @0xc0:2 missing h0\n"
    "uffd_register p0 @0xc2:2 wp h1\n"
    "mremap p0 @0xc0:2 n2 maymove,fixed up k16\n"
    "mremap p0 @0xc2:2 n3 maymove,fixed up k16\n"
    "mremap p0 @0xd0:4 n5 maymove,fixed up k1\n"
    "touch p0 @0xd0:6 write\n"
    "fork p0 tree current nodiff\n"
    "mremap p1 @0x10:10 n2 maymove at_gap k1\n",
    /* locks: mlock, mlock2, munlock over holes, mlockall now and later,
     * not inherited; the advices on pages, dontneed refused where locked */
    "target fuzz_mm\n"
    "mmap p0 @0x10:8 r,w private f0 fixed\n"
    "touch p0 @0x10:8 write\n"
    "mlock p0 @0x12:4 lock\n"
    "mlock p0 @0x14:2 onfault\n"
    "madvise p0 @0x10:8 dontneed\n"
    "touch p0 @0x10:8 read\n"
    "madvise p0 @0x10:8 dontneed_locked\n"
    "munlock p0 @0xe:12\n"
    "munlock p0 @0x10:12\n"
    "mmap p0 @0x20:4 r private f0 fixed\n"
    "mlockall p0 current,future\n"
    "mmap p0 @0x30:4 r,w shared f0 fixed\n"
    "fork p0 append current nodiff\n"
    "munlockall p0\n"
    "mmap p0 @0x40:4 r,w,populate,locked private f0 fixed\n"
    "touch p0 @0x40:4 write\n"
    "munlock p0 @0x40:2\n"
    "madvise p0 @0x40:4 free\n"
    "madvise p0 @0x40:4 pageout\n"
    "madvise p0 @0x40:4 cold\n"
    "touch p0 @0x41:1 write\n"
    "madvise p0 @0x40:4 populate_write\n"
    "madvise p0 @0x30:4 free\n"
    "touch p0 @0x40:4 read\n"
    "touch p1 @0x10:8 read\n",
    /* stacks: a touch below grows them (zeros), not into the guard gap of
     * a mapping below, not past RLIMIT_STACK */
    "target fuzz_mm\n"
    "mmap p0 @0x400:4 r,w,growsdown private f0 fixed\n"
    "touch p0 @0x3fc:1 write\n"
    "touch p0 @0x3f0:16 read\n"
    "mmap p0 @0x300:4 r private f0 fixed\n"
    "touch p0 @0x380:1 write\n"
    "touch p0 @0x3e0:1 write\n"
    "mmap p0 @0x2000:4 r,w,growsdown private f0 fixed\n"
    "touch p0 @0x1000:1 read\n"
    "fork p0 tree current nodiff\n"
    "touch p1 @0x3d0:1 write\n"
    /* a write stops at a stack it may not write, below a hole and a stack */
    "mmap p0 @0x60:4 r,w,growsdown private f0 fixed\n"
    "mmap p0 @0x50:4 r,w private f0 fixed\n"
    "mmap p0 @0x51:3 growsdown private f0 fixed\n"
    "touch p0 @0x50:15 write\n",
    /* threads side by side on the same pages */
    "target fuzz_mm\n"
    "mmap p0 @0x10:8 r,w private f0 fixed\n"
    "t1: mprotect p0 @0x10:8 r\n"
    "t2: munmap p0 @0x12:2\n"
    "t3: touch p0 @0x10:8 write\n"
    "t1: fork p0 tree current nodiff\n"
    "t2: exit p0\n"
    "t3: touch p1 @0x10:8 read\n",
};

static bool test_model_quiet(void)
{
	check_set_mode(CHECK_COLLECT);
	check_clear();
	for (unsigned i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		ASSERT_EQ(mm_run_text(&as_model, quiet[i]), 0);
		if (check_total())
			fprintf(stderr, "program %u\n", i);
		ASSERT_EQ(check_total(), 0);
	}
	check_set_mode(CHECK_ABORT);
	return true;
}

/* ---- mremap home ------------------------------------------------------------ */

static uint64_t remap_to[4];
static unsigned nremaps;

static void spy_call(void *as, struct mm_call *c)
{
	if (c->code == MMF_OP_MREMAP && nremaps < 4)
		remap_to[nremaps++] = c->to;
	as_model.call(as, c);
}

/* `home` sends a range back where its page offset puts its first page: an
 * anonymous VMA to the address it was mapped at, a model file's page to
 * its place in the window, so a moved VMA can merge again with neighbours
 * whose offsets continue (the faulted one into the unfaulted one below). */
static bool test_remap_home(void)
{
	struct as_backend spy = as_model;

	spy.call = spy_call;
	nremaps = 0;
	check_set_mode(CHECK_COLLECT);
	check_clear();
	ASSERT_EQ(mm_run_text(&spy, "target fuzz_mm\n"
				    "mmap p0 @0x10:4 r,w private f0 fixed\n"
				    "touch p0 @0x10:4 write\n"
				    "mremap p0 @0x10:4 n4 maymove,fixed up k0x30\n"
				    "mmap p0 @0xc:4 r,w private f0 fixed\n"
				    "mremap p0 @0x41:2 n2 maymove,fixed home k0\n"
				    "mmap p0 @0x80:4 r,w private_file f1 fixed\n"
				    "mremap p0 @0x82:2 n2 maymove,fixed down k0x20\n"
				    "mremap p0 @0x62:2 n2 maymove,fixed home k7\n"),
		  0);
	ASSERT_EQ(check_total(), 0);
	check_set_mode(CHECK_ABORT);
	ASSERT_EQ(nremaps, 4);
	ASSERT_EQ(remap_to[1], MMF_WINDOW_LO + (0x11ull << MMF_PAGE_SHIFT));
	ASSERT_EQ(remap_to[3], MMF_WINDOW_LO + (0x82ull << MMF_PAGE_SHIFT));
	return true;
}

/* ---- the model broken on purpose ------------------------------------------ */

enum breakage {
	LAZY_MPROTECT,	/* does nothing, says 0 */
	LAZY_WIPE,	/* madvise wipeonfork does nothing, says 0 */
	COW_SHARES,	/* a fork leaves private pages writable in both */
	WIPE_KEEPS,	/* a wipe-on-fork child maps its parent's pages */
	WRITE_OTHER,	/* a write stores another value */
	READ_OTHER,	/* a read returns another value */
	LAZY_DONTNEED,	/* keeps the data, says 0 */
	WRONG_MODE,	/* registers write-protect too */
	MODES_REPLACED, /* a registration replaces modes the kernel keeps */
	WRONG_CTX,	/* registers through h0 whatever fd it is given */
	CHILD_GONE,	/* a fork's child exits at once */
	REMAP_LOSES,	/* an mremap that moves drops the pages it moved */
	LAZY_MLOCK,	/* does nothing, says 0 */
	STACK_STUCK,	/* a touch does nothing, says 0 */
	FREE_ANY,	/* madvise free refuses nothing: does nothing, says 0 */
	MLOCK_NOMEM,	/* locks and populates, says -ENOMEM */
};
static enum breakage breakage;

/* The slot of the process a model call made, or MMF_MAX_PROCS. */
static unsigned new_slot(const struct mmf_state *s, const bool *before)
{
	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		if (s->mm[i] && !before[i])
			return i;
	return MMF_MAX_PROCS;
}

static void make_writable(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	(void)mm;
	(void)addr;
	(void)arg;
	if (pte_page(*slot)->anon_vma)
		*slot |= 1;
}

/* After a fork: the broken copy of @child (from @parent). */
static void break_fork(struct mm *parent, struct mm *child)
{
	mmap_write_lock(&parent->lock);
	mmap_write_lock_nested(&child->lock, 1);
	if (breakage == COW_SHARES) {
		for_each_pte(parent, MMF_WINDOW_LO, MMF_WINDOW_HI, make_writable, NULL);
		for_each_pte(child, MMF_WINDOW_LO, MMF_WINDOW_HI, make_writable, NULL);
	} else {
		for (struct vma *v = mm_find_vma(child, 0); v; v = mm_find_vma(child, v->end)) {
			struct vma *pv = mm_vma_at(parent, v->start);

			if ((v->flags & VM_WIPEONFORK) && pv)
				copy_ptes(v, pv);
		}
	}
	mmap_write_unlock(&child->lock);
	mmap_write_unlock(&parent->lock);
}

static void broken_fork(struct mmf_state *s, struct mm_call *c)
{
	bool before[MMF_MAX_PROCS];
	unsigned q;

	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		before[i] = s->mm[i] != NULL;
	as_model.call(s, c);
	q = new_slot(s, before);
	if (c->result || q == MMF_MAX_PROCS)
		return;
	if (breakage == CHILD_GONE) {
		struct mm_call x = {.code = MMF_OP_EXIT};

		x.a.proc = (uint8_t)q;
		x.proc = mmf_get(s, q);
		as_model.call(s, &x);
		mmf_put(s, x.proc);
		return;
	}
	break_fork(c->proc, s->mm[q]);
}

static void broken_call(void *as, struct mm_call *c)
{
	struct mm_call d = *c;

	switch (c->code) {
	case MMF_OP_MPROTECT:
		if (breakage == LAZY_MPROTECT) {
			c->result = 0;
			return;
		}
		break;
	case MMF_OP_MADVISE:
		if ((breakage == LAZY_WIPE && mmf_advice(c->a.advice) == MADV_WIPEONFORK) ||
		    (breakage == LAZY_DONTNEED && mmf_advice(c->a.advice) == MADV_DONTNEED) ||
		    (breakage == FREE_ANY && c->a.advice == MMF_ADV_FREE)) {
			c->result = 0;
			return;
		}
		break;
	case MMF_OP_FORK:
		if (breakage == COW_SHARES || breakage == WIPE_KEEPS || breakage == CHILD_GONE) {
			broken_fork(as, c);
			return;
		}
		break;
	case MMF_OP_MREMAP:
		as_model.call(as, c);
		if (breakage == REMAP_LOSES && c->result >= 0 && c->result != (int64_t)c->start) {
			/* the moved pages dropped: reads find zeros */
			d = (struct mm_call){.code = MMF_OP_MADVISE, .a = c->a};
			d.a.advice = MMF_ADV_DONTNEED;
			d.start = (uint64_t)c->result;
			d.len = c->to_len;
			d.proc = c->proc;
			as_model.call(as, &d);
		}
		return;
	case MMF_OP_MLOCK:
		if (breakage == LAZY_MLOCK) {
			c->result = 0;
			return;
		}
		if (breakage == MLOCK_NOMEM) {
			as_model.call(as, c);
			c->result = -ENOMEM;
			return;
		}
		break;
	case MMF_OP_TOUCH:
		if (breakage == STACK_STUCK) {
			c->result = 0;
			return;
		}
		if (breakage == WRITE_OTHER && c->a.access == 1) {
			d.value++;
			as_model.call(as, &d);
			c->result = d.result;
			return;
		}
		as_model.call(as, c);
		if (breakage == READ_OTHER && c->seen && c->seen[0] != MMF_NOT_SEEN)
			c->seen[0] ^= 1;
		return;
	case MMF_OP_UFFD_REGISTER:
		if (breakage == WRONG_MODE)
			d.a.modes |= 2;
		if (breakage == WRONG_CTX)
			d.a.handle = 0;
		if (breakage == MODES_REPLACED) {
			struct mm_call u = *c;

			u.code = MMF_OP_UFFD_UNREGISTER;
			as_model.call(as, &u);
		}
		as_model.call(as, &d);
		c->result = d.result;
		return;
	}
	as_model.call(as, c);
}

static bool fires(enum breakage how, const char *text, enum check_id id)
{
	static struct as_backend broken;

	broken = as_model;
	broken.name = "broken model";
	broken.call = broken_call;
	breakage = how;
	check_set_mode(CHECK_COLLECT);
	check_clear();
	/* quiet on the model first */
	ASSERT_EQ(mm_run_text(&as_model, text), 0);
	ASSERT_EQ(check_total(), 0);
	ASSERT_EQ(mm_run_text(&broken, text), 0);
	if (check_count(id) < 1)
		fprintf(stderr, "breakage %d: %s did not fire\n", how, check_name(id));
	ASSERT(check_count(id) >= 1);
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

static bool test_lazy_mprotect_fires(void)
{
	return fires(LAZY_MPROTECT,
		     "target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\n"
		     "mprotect p0 @0x12:2 r\n",
		     CK_MM_EXPECTED_STATE);
}

/* Both leave a state the rest of the expectation agrees with: only the
 * answer is wrong. */
static bool test_free_any_fires(void)
{
	return fires(FREE_ANY,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w shared_file f1 fixed\n"
		     "touch p0 @0x10:4 write\nmadvise p0 @0x10:4 free\n",
		     CK_MM_EXPECTED_RESULT) &&
	       fires(FREE_ANY,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w shared f0 fixed\n"
		     "madvise p0 @0x11:2 free\n",
		     CK_MM_EXPECTED_RESULT) &&
	       fires(FREE_ANY,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n"
		     "mlock p0 @0x10:4 lock\nmadvise p0 @0x10:4 free\n",
		     CK_MM_EXPECTED_RESULT);
}

static bool test_mlock_nomem_fires(void)
{
	return fires(MLOCK_NOMEM,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n"
		     "mlock p0 @0x11:2 lock\n",
		     CK_MM_EXPECTED_RESULT);
}

static bool test_lazy_wipe_fires(void)
{
	return fires(LAZY_WIPE,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n"
		     "madvise p0 @0x10:4 wipeonfork\n",
		     CK_MM_EXPECTED_STATE);
}

static bool test_child_gone_fires(void)
{
	return fires(CHILD_GONE,
		     "target fuzz_mm\nmmap p0 @0x10:2 r,w private f0 fixed\n"
		     "fork p0 tree current nodiff\n",
		     CK_MM_EXPECTED_STATE);
}

static bool test_cow_shares_fires(void)
{
	return fires(COW_SHARES,
		     "target fuzz_mm\nmmap p0 @0x10:2 r,w private f0 fixed\n"
		     "touch p0 @0x10:2 write\nfork p0 tree current nodiff\n"
		     "touch p1 @0x10:1 write\n",
		     CK_MM_EXPECTED_DATA);
}

static bool test_wipe_keeps_fires(void)
{
	return fires(WIPE_KEEPS,
		     "target fuzz_mm\nmmap p0 @0x10:2 r,w private f0 fixed\n"
		     "touch p0 @0x10:2 write\nmadvise p0 @0x10:2 wipeonfork\n"
		     "fork p0 tree current nodiff\n",
		     CK_MM_EXPECTED_DATA);
}

static bool test_write_other_fires(void)
{
	return fires(WRITE_OTHER,
		     "target fuzz_mm\nmmap p0 @0x10:2 r,w private f0 fixed\n"
		     "touch p0 @0x10:2 write\n",
		     CK_MM_EXPECTED_DATA);
}

static bool test_read_other_fires(void)
{
	return fires(READ_OTHER,
		     "target fuzz_mm\nmmap p0 @0x10:2 r,w shared_file f1 fixed\n"
		     "touch p0 @0x10:2 read\n",
		     CK_MM_EXPECTED_DATA);
}

static bool test_lazy_dontneed_fires(void)
{
	return fires(LAZY_DONTNEED,
		     "target fuzz_mm\nmmap p0 @0x10:2 r,w private_file f1 fixed\n"
		     "touch p0 @0x10:2 write\nmadvise p0 @0x10:2 dontneed\n",
		     CK_MM_EXPECTED_DATA);
}

static bool test_wrong_mode_fires(void)
{
	return fires(WRONG_MODE,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n"
		     "uffd_create p0 nofork\nuffd_register p0 @0x10:4 missing h0\n",
		     CK_MM_EXPECTED_UFFD);
}

static bool test_modes_replaced_fires(void)
{
	return fires(MODES_REPLACED,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n"
		     "uffd_create p0 nofork\nuffd_register p0 @0x10:4 missing,wp h0\n"
		     "uffd_register p0 @0x10:2 missing h0\n",
		     CK_MM_EXPECTED_UFFD);
}

static bool test_wrong_ctx_fires(void)
{
	return fires(WRONG_CTX,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n"
		     "uffd_create p0 nofork\nuffd_create p0 nofork\n"
		     "uffd_register p0 @0x10:2 missing h0\nuffd_register p0 @0x12:2 missing h1\n",
		     CK_MM_EXPECTED_UFFD);
}

static bool test_remap_loses_fires(void)
{
	return fires(REMAP_LOSES,
		     "target fuzz_mm\nmmap p0 @0x10:2 r,w private f0 fixed\n"
		     "touch p0 @0x10:2 write\nmremap p0 @0x10:2 n2 maymove,fixed up k16\n"
		     "touch p0 @0x20:2 read\n",
		     CK_MM_EXPECTED_DATA);
}

static bool test_lazy_mlock_fires(void)
{
	return fires(LAZY_MLOCK,
		     "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n"
		     "mlock p0 @0x11:2 onfault\n",
		     CK_MM_EXPECTED_STATE);
}

static bool test_stack_stuck_fires(void)
{
	return fires(STACK_STUCK,
		     "target fuzz_mm\nmmap p0 @0x400:2 r,w,growsdown private f0 fixed\n"
		     "touch p0 @0x3fe:1 read\n",
		     CK_MM_EXPECTED_STATE);
}

int main(void)
{
	TEST(test_model_quiet);
	TEST(test_remap_home);
	TEST(test_lazy_mprotect_fires);
	TEST(test_lazy_wipe_fires);
	TEST(test_free_any_fires);
	TEST(test_mlock_nomem_fires);
	TEST(test_child_gone_fires);
	TEST(test_cow_shares_fires);
	TEST(test_wipe_keeps_fires);
	TEST(test_write_other_fires);
	TEST(test_read_other_fires);
	TEST(test_lazy_dontneed_fires);
	TEST(test_wrong_mode_fires);
	TEST(test_modes_replaced_fires);
	TEST(test_wrong_ctx_fires);
	TEST(test_remap_loses_fires);
	TEST(test_lazy_mlock_fires);
	TEST(test_stack_stuck_fires);
	return test_summary();
}
