/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address space the callers of mm/vma.c run on (kvma.h's struct
 * kvma_mm): the kernel's system-call values they take, an mm_struct with
 * the program window as its mmap window, the shmem file of each shared
 * anonymous mapping, and its making and tearing down as exit_mmap does.
 *
 * Not a translation unit of its own, and written to be read in two places:
 * kernel/vma/kvma_unit.c includes it after mm/vma.c and before the
 * layout's callers file; vmafuzz repro --ktest copies it, with the callers,
 * into a test for the tree's own tools/testing/vma program
 * (tools/ktest/ktest_vma.h). So it includes nothing, and asks its includer
 * for two things: KVMA_FAIL_FILE(), whether the allocation of a shmem file
 * fails (the runtime's failure injector, or never), and KVMA_ASSERT(cond).
 */

#define KVMA_PROT_READ 0x1
#define KVMA_PROT_WRITE 0x2
#define KVMA_PROT_EXEC 0x4
#define KVMA_MAP_SHARED 0x01
#define KVMA_MAP_PRIVATE 0x02
#define KVMA_MAP_TYPE 0x0f
#define KVMA_MAP_FIXED 0x10
#define KVMA_MAP_ANONYMOUS 0x20
#define KVMA_MAP_FIXED_NOREPLACE 0x100000
#define KVMA_MADV_DONTNEED 4
#define KVMA_MADV_DONTFORK 10
#define KVMA_MADV_DOFORK 11
#define KVMA_MADV_WIPEONFORK 18
#define KVMA_MADV_KEEPONFORK 19

/* the shmem file of a shared anonymous mapping (shmem_zero_setup) */
struct kvma_file {
	struct file file;
	struct address_space mapping;
	struct kvma_file *next;
};

struct kvma_mm {
	struct mm_struct mm;
	unsigned long mmap_min, mmap_end; /* the window */
	struct kvma_file *files;
};

/* shmem's anonymous VMAs have ops: they are not vma_is_anonymous */
static const struct vm_operations_struct kvma_shmem_anon_ops;

#define KVMA_MM_MT_FLAGS (MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN | MT_FLAGS_USE_RCU)

/* The layout's callers file: exit_mmap's end for one VMA (closed, freed). */
static void kvma_exit_vma(struct vm_area_struct *vma);

/* The calls below run as the task owning @k (current->mm). */
static struct mm_struct *enter(struct kvma_mm *k)
{
	current->mm = &k->mm;
	return &k->mm;
}

struct kvma_mm *kvma_create(uint64_t lo, uint64_t hi)
{
	struct kvma_mm *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	mt_init_flags(&k->mm.mm_mt, KVMA_MM_MT_FLAGS);
	k->mmap_min = lo;
	k->mmap_end = hi;
	return k;
}

void kvma_destroy(struct kvma_mm *k)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, &k->mm, 0);

	enter(k);
	/* as exit_mmap: every VMA closed and freed, then the tree */
	for_each_vma(vmi, vma)
	{
		kvma_exit_vma(vma);
		k->mm.map_count--;
	}
	__mt_destroy(&k->mm.mm_mt);
	while (k->files) {
		struct kvma_file *f = k->files;

		k->files = f->next;
		free(f);
	}
	current->mm = NULL;
	free(k);
}

/* shmem_zero_setup: a file of its own for the mapping. */
static int kvma_shmem_zero_setup(struct vm_area_struct *vma)
{
	struct kvma_mm *k = container_of(vma->vm_mm, struct kvma_mm, mm);
	struct kvma_file *f;

	if (KVMA_FAIL_FILE())
		return -ENOMEM;
	f = calloc(1, sizeof(*f));
	KVMA_ASSERT(f != NULL);
	f->file.f_mapping = &f->mapping;
	f->next = k->files;
	k->files = f;
	vma->vm_file = &f->file;
	vma->vm_ops = &kvma_shmem_anon_ops;
	return 0;
}
