/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's mm/vma.c behind the address-space seam (kvma_backend.h): one
 * process, p0, whose address space is a struct kvma_mm (kvma.h) with the
 * program window as its mmap window. Ranges resolve as the model resolves
 * them (fuzz/as/model_backend.c's resolve_range), over this backend's own VMAs.
 */
#include "kvma_backend.h"

#include "fuzz/as/vma_stub_refusal.h"
#include "fuzz/prog/mm_ops.h"
#include "kernel/maple/kmt.h"
#include "kvma.h"
#include "runtime/check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE (1ull << MMF_PAGE_SHIFT)
#define MAXV 4096

struct kv_state {
	struct kvma_mm *mm;
};

/*
 * Scratch for resolve and vmas, written before it is read within one call:
 * one for the program, not a calloc of 128 KiB per input, which ASan served
 * from mmap and the quarantine gave back with munmap, page by page faulted
 * in again (a sixth of a kfuzz_vma run in the kernel).
 */
static struct kvma_vma kv_scratch[MAXV];

static void *kv_open(char *err, size_t errlen)
{
	struct kv_state *s = calloc(1, sizeof(*s));

	/* (lib/maple_tree.c's node cache is made before main: kmt_unit.c) */
	if (s)
		s->mm = kvma_create(MMF_WINDOW_LO, MMF_WINDOW_HI);
	if (s && s->mm)
		return s;
	free(s);
	if (err)
		snprintf(err, errlen, "the kernel's VMA code cannot make its address space");
	else
		fprintf(stderr, "vma_kernel: cannot make the address space\n");
	return NULL;
}

static void kv_close(void *as)
{
	struct kv_state *s = as;

	kvma_validate(s->mm);
	kvma_destroy(s->mm);
	if (kvma_live())
		check_fail(CK_MEM_LEAK_AT_END,
			   "%llu VMAs of the kernel's VMA code alive at the end",
			   (unsigned long long)kvma_live());
	free(s);
}

static bool kv_get(void *as, struct mm_call *c)
{
	(void)as;
	return c->a.proc % MMF_MAX_PROCS == 0; /* no fork: p0 is the only process */
}

/* The k-th gap (mod their number, at most 64) inside the window. */
static bool nth_gap(const struct kvma_vma *v, int n, unsigned k, uint64_t *first, uint64_t *last)
{
	uint64_t lo[64], hi[64], at = MMF_WINDOW_LO;
	unsigned ng = 0;

	for (int i = 0; ng < 64; i++) {
		const struct kvma_vma *x = i < n ? &v[i] : NULL;
		uint64_t stop = x && x->start < MMF_WINDOW_HI ? x->start : MMF_WINDOW_HI;

		if (x && x->end <= at)
			continue;
		if (stop > at) {
			lo[ng] = at;
			hi[ng++] = stop - 1;
		}
		if (!x || x->end >= MMF_WINDOW_HI)
			break;
		at = x->end;
	}
	if (!ng)
		return false;
	*first = lo[k % ng];
	*last = hi[k % ng];
	return true;
}

/* model_backend.c's resolve_range, over the VMAs of the kernel's tree */
static void kv_resolve(void *as, struct mm_call *c)
{
	struct kv_state *s = as;
	const struct range_spec *rs = &c->a.range;
	int n = kvma_vmas(s->mm, 0, UINT64_MAX, kv_scratch, MAXV);
	uint64_t first = MMF_WINDOW_LO, last = MMF_WINDOW_HI - 1;
	bool found = false;

	switch (rs->mode) {
	case RS_ENTRY:
		if (n > 0) {
			const struct kvma_vma *x = &kv_scratch[rs->k % (unsigned)n];

			first = x->start;
			last = x->end - 1;
			found = true;
		}
		break;
	case RS_GAP:
		found = nth_gap(kv_scratch, n, rs->k, &first, &last);
		break;
	case RS_RAW:
		first = MMF_WINDOW_LO + ((uint64_t)rs->v << MMF_PAGE_SHIFT);
		break;
	case RS_TOP:
		first = MMF_WINDOW_HI - ((uint64_t)(rs->v + 1) << MMF_PAGE_SHIFT);
		break;
	}
	if (!found && (rs->mode == RS_ENTRY || rs->mode == RS_GAP))
		first = MMF_WINDOW_LO + ((uint64_t)rs->k << MMF_PAGE_SHIFT);
	c->start = first + (uint64_t)((int64_t)rs->d * (int64_t)PAGE);
	if (c->start < MMF_WINDOW_LO || c->start >= MMF_WINDOW_HI)
		c->start = first;
	if (rs->len) {
		c->len = (uint64_t)rs->len << MMF_PAGE_SHIFT;
	} else {
		/* to the end of the VMA or gap holding the start */
		uint64_t stop = MMF_WINDOW_HI;

		for (int i = 0; i < n; i++) {
			if (kv_scratch[i].end <= c->start)
				continue;
			stop = kv_scratch[i].start <= c->start
				   ? kv_scratch[i].end
				   : (kv_scratch[i].start < MMF_WINDOW_HI ? kv_scratch[i].start
									  : MMF_WINDOW_HI);
			break;
		}
		c->len = stop - c->start;
	}
	(void)last;
}

static void kv_call(void *as, struct mm_call *c)
{
	struct kv_state *s = as;

	switch (c->code) {
	case MMF_OP_MMAP:
		c->result =
		    kvma_mmap(s->mm, c->start, c->len, mmf_prot(c->a.prot), mmf_mmap_flags(&c->a));
		break;
	case MMF_OP_MUNMAP:
		c->result = kvma_munmap(s->mm, c->start, c->len);
		break;
	case MMF_OP_MPROTECT:
		c->result = kvma_mprotect(s->mm, c->start, c->len, mmf_prot(c->a.prot));
		break;
	case MMF_OP_MADVISE:
		c->result = kvma_madvise(s->mm, c->start, c->len, mmf_advice(c->a.advice));
		break;
	default:
		c->result = -ENOSYS; /* refused */
		break;
	}
}

static void kv_put(void *as, struct mm_call *c)
{
	(void)as;
	(void)c;
}

static const char *kv_refuses(void *as, const struct mm_call *c)
{
	(void)as;
	return vma_stub_refusal(c);
}

static int kv_vmas(void *as, unsigned proc, uint64_t lo, uint64_t hi, bool usage,
		   struct as_vma *out, unsigned max, char *err, size_t errlen)
{
	struct kv_state *s = as;
	int n;

	(void)usage; /* no pages: rss and anon are 0 */
	if (proc % MMF_MAX_PROCS) {
		snprintf(err, errlen, "the kernel's VMA code has no process p%u", proc);
		return -1;
	}
	n = kvma_vmas(s->mm, lo, hi, kv_scratch, max < MAXV ? max : MAXV);
	for (int i = 0; i < n; i++)
		out[i] = (struct as_vma){.start = kv_scratch[i].start,
					 .end = kv_scratch[i].end,
					 .flags = kv_scratch[i].flags,
					 .pgoff = kv_scratch[i].pgoff};
	return n;
}

static void kv_check(void *as)
{
	struct kv_state *s = as;

	kvma_validate(s->mm);
}

static void kv_dump(FILE *out, void *as)
{
	struct kv_state *s = as;

	kvma_dump(out, s->mm);
}

/* Any call may succeed on an injected failure: the maple tree retries a
 * failed non-blocking node allocation with a blocking one (mas_store_gfp),
 * and __mmap_region falls back to an unmerged VMA when a merge's
 * preallocation fails. */
static bool kv_absorbs(const struct mm_call *c)
{
	(void)c;
	return true;
}

/* given by kernel/vma/vma.mk, from the tree's `make kernelversion` */
const char kvma_tree_release[] = KVMA_TREE_RELEASE;

const struct as_backend as_kernel_vma = {
    .name = "kernel-vma",
    .absorbs = kv_absorbs,
    .open = kv_open,
    .close = kv_close,
    .get = kv_get,
    .resolve = kv_resolve,
    .call = kv_call,
    .put = kv_put,
    .refuses = kv_refuses,
    .vmas = kv_vmas,
    .check = kv_check,
    .dump = kv_dump,
};
