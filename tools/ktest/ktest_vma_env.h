/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Not compiled here: text that vmafuzz repro --ktest copies into a kfuzz_vma
 * test (ktest_vma.h), after kernel/vma/shim/kvma_shim.h and before
 * kernel/vma/kvma_space.c and the layout's callers file, so that those run
 * in the tree's own tools/testing/vma program as they run in kfuzz_vma:
 * what kvma_unit.c gives them there (assertions counted, shmem files that
 * never fail to allocate), and the check each step of the test ends with.
 */
#include <stdio.h>
#include <stdlib.h>

/* Assertions of the code after kvma_shim.h (the callers) that fired. */
static unsigned long vmafuzz_warnings;

int kvma_warn(int cond, const char *file, int line, const char *expr)
{
	if (cond) {
		vmafuzz_warnings++;
		fprintf(stderr, "vmafuzz: WARN_ON(%s) at %s:%d\n", expr, file, line);
	}
	return cond;
}

#define KVMA_FAIL_FILE() 0
#define KVMA_ASSERT(cond)                                                                          \
	do {                                                                                       \
		if (!(cond))                                                                       \
			abort();                                                                   \
	} while (0)

/* The test's address space: its shared anonymous mappings get a shmem file
 * of their own (kvma_space.c), other mms (the tree's own tests) the stubs'
 * nothing. */
struct kvma_mm;
static struct kvma_mm *vmafuzz_mm;
static int kvma_shmem_zero_setup(struct vm_area_struct *vma);

static int vmafuzz_shmem_zero_setup(struct vm_area_struct *vma)
{
	if (!vmafuzz_mm || vma->vm_mm != (struct mm_struct *)vmafuzz_mm)
		return 0;
	return kvma_shmem_zero_setup(vma);
}

/* A VMA as the test expects it: the model's answer. */
struct vmafuzz_vma {
	unsigned long start, end, flags, pgoff;
};

/*
 * The tree as mt_validate sees it, then every VMA of @mm against @want, in
 * order (their flags under VMAFUZZ_FLAGS, which the test defines), and
 * map_count against their number; each difference printed.
 */
static bool vmafuzz_vmas_are(struct mm_struct *mm, const struct vmafuzz_vma *want, int n)
{
	struct vm_area_struct *vma;
	bool same = true;
	int i = 0;
	VMA_ITERATOR(vmi, mm, 0);

	mt_validate(&mm->mm_mt);
	for_each_vma(vmi, vma)
	{
		/* the tree's range for the VMA is the VMA's (validate_mm's check,
		 * which the tree's test program compiles out) */
		if (vma_iter_addr(&vmi) != vma->vm_start || vma_iter_end(&vmi) != vma->vm_end) {
			fprintf(stderr, "vmafuzz: VMA %#lx-%#lx is stored at %#lx-%#lx\n",
				vma->vm_start, vma->vm_end, vma_iter_addr(&vmi),
				vma_iter_end(&vmi));
			same = false;
		}
		if (i >= n) {
			fprintf(stderr, "vmafuzz: an extra VMA %#lx-%#lx flags %#lx pgoff %#lx\n",
				vma->vm_start, vma->vm_end, (unsigned long)vma->vm_flags,
				vma->vm_pgoff);
			same = false;
		} else if (vma->vm_start != want[i].start || vma->vm_end != want[i].end ||
			   (vma->vm_flags & VMAFUZZ_FLAGS) != want[i].flags ||
			   vma->vm_pgoff != want[i].pgoff) {
			fprintf(stderr,
				"vmafuzz: VMA %d is %#lx-%#lx flags %#lx pgoff %#lx, expected "
				"%#lx-%#lx flags %#lx pgoff %#lx\n",
				i, vma->vm_start, vma->vm_end,
				(unsigned long)(vma->vm_flags & VMAFUZZ_FLAGS), vma->vm_pgoff,
				want[i].start, want[i].end, want[i].flags, want[i].pgoff);
			same = false;
		}
		i++;
	}
	if (i < n) {
		fprintf(stderr, "vmafuzz: %d VMAs, expected %d (the first missing: %#lx-%#lx)\n", i,
			n, want[i].start, want[i].end);
		same = false;
	}
	if (mm->map_count != i) {
		fprintf(stderr, "vmafuzz: map_count %d, %d VMAs in the tree\n", mm->map_count, i);
		same = false;
	}
	return same && !vmafuzz_warnings;
}
