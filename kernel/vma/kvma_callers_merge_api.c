/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The callers of mm/vma.c in the vma-merge-api layout (6.12; kernel/vma/
 * probe.sh): do_mmap with __get_unmapped_area and __mmap_region (mm/mmap.c),
 * __vm_munmap, do_mprotect_pkey with mprotect_fixup (mm/mprotect.c),
 * do_madvise with madvise_walk_vmas, madvise_vma_behavior and
 * madvise_update_vma (mm/madvise.c), written after the kernel's code step
 * for step, minus pages, page tables, locks, rlimits, commit charge,
 * security hooks and pkeys. Those files need the whole kernel, so they are
 * not compiled; vma.c is.
 *
 * Not a translation unit of its own: kernel/vma/kvma_unit.c includes it
 * after mm/vma.c, whose static functions it calls, and after its own
 * address space (struct kvma_mm, enter, kvma_shmem_zero_setup).
 */

/* exit_mmap's end for one VMA of the tree: closed and freed */
static void kvma_exit_vma(struct vm_area_struct *vma)
{
	remove_vma(vma, true);
}

static unsigned long calc_vm_prot_bits(int prot)
{
	return (prot & KVMA_PROT_READ ? VM_READ : 0) | (prot & KVMA_PROT_WRITE ? VM_WRITE : 0) |
	       (prot & KVMA_PROT_EXEC ? VM_EXEC : 0);
}

/* mm/mmap.c's accountable_mapping: a private writable mapping is charged */
static bool accountable_mapping(struct file *file, vm_flags_t vm_flags)
{
	return (vm_flags & (VM_NORESERVE | VM_SHARED | VM_WRITE)) == VM_WRITE;
}

/*
 * vm_unmapped_area(VM_UNMAPPED_AREA_TOPDOWN) over the window: the highest
 * gap of @len (unmapped_area_topdown; no VMA grows down here, so there is no
 * stack guard gap to step over and no retry).
 */
static unsigned long unmapped_area_topdown(struct kvma_mm *k, unsigned long len)
{
	VMA_ITERATOR(vmi, &k->mm, 0);

	if (vma_iter_area_highest(&vmi, k->mmap_min, k->mmap_end, len))
		return -ENOMEM;
	return vma_iter_end(&vmi) - len;
}

/*
 * __get_unmapped_area for anonymous memory, x86-64's top-down layout
 * (generic_get_unmapped_area_topdown) with the window as mmap_min_addr and
 * mmap_end and as the mmap base. A hint is never 0 here, so THP alignment
 * (only without a hint) does not apply; shmem_get_unmapped_area with
 * shmem_enabled=never is the same search. The bottom-up fallback searches
 * the same window, so it is left out.
 */
static unsigned long get_unmapped_area(struct kvma_mm *k, unsigned long addr, unsigned long len,
				       int flags)
{
	struct mm_struct *mm = &k->mm;
	struct vm_area_struct *vma, *prev;

	if (len > TASK_SIZE)
		return -ENOMEM;
	/* the kernel's len > task_size - mmap_min_addr: with the window as
	 * mmap_min_addr that would refuse MAP_FIXED mappings larger than the
	 * window, which the kernel (with its small mmap_min_addr) maps */
	if (!(flags & KVMA_MAP_FIXED) && len > k->mmap_end - k->mmap_min)
		return -ENOMEM;
	if (!(flags & KVMA_MAP_FIXED)) {
		if (addr) {
			addr = PAGE_ALIGN(addr);
			vma = find_vma_prev(mm, addr, &prev);
			if (k->mmap_end - len >= addr && addr >= k->mmap_min &&
			    (!vma || addr + len <= vma->vm_start) &&
			    (!prev || addr >= prev->vm_end))
				goto found;
		}
		addr = unmapped_area_topdown(k, len);
	}
found:
	if (IS_ERR_VALUE(addr))
		return addr;
	if (addr > TASK_SIZE - len)
		return -ENOMEM;
	if (offset_in_page(addr))
		return -EINVAL;
	return addr;
}

/* __mmap_region for anonymous memory (file NULL) */
static unsigned long mmap_region(struct kvma_mm *k, unsigned long addr, unsigned long len,
				 vm_flags_t vm_flags, unsigned long pgoff)
{
	struct mm_struct *mm = &k->mm;
	struct vm_area_struct *vma = NULL;
	pgoff_t pglen = PHYS_PFN(len);
	struct vma_munmap_struct vms;
	struct ma_state mas_detach;
	struct maple_tree mt_detach;
	unsigned long end = addr + len;
	int error;
	LIST_HEAD(uf);
	VMA_ITERATOR(vmi, mm, addr);
	VMG_STATE(vmg, mm, &vmi, addr, end, vm_flags, pgoff);

	vmg.file = NULL;
	/* Find the first overlapping VMA */
	vma = vma_find(&vmi, end);
	init_vma_munmap(&vms, &vmi, vma, addr, end, &uf, /* unlock = */ false);
	if (vma) {
		mt_init_flags(&mt_detach, vmi.mas.tree->ma_flags & MT_FLAGS_LOCK_MASK);
		mt_on_stack(mt_detach);
		mas_init(&mas_detach, &mt_detach, /* addr = */ 0);
		/* Prepare to unmap any existing mapping in the area */
		error = vms_gather_munmap_vmas(&vms, &mas_detach);
		if (error)
			return error;
		vmg.next = vms.next;
		vmg.prev = vms.prev;
		vma = NULL;
	} else {
		vmg.next = vma_iter_next_rewind(&vmi, &vmg.prev);
	}

	/* may_expand_vm: no address space limit here */

	/* Private writable mapping: charged (security_vm_enough_memory_mm always
	 * grants it: no commit limit here) */
	if (accountable_mapping(NULL, vm_flags)) {
		vms.nr_accounted = 0;
		vm_flags |= VM_ACCOUNT;
		vmg.flags = vm_flags;
	}

	vms_clean_up_area(&vms, &mas_detach);
	vma = vma_merge_new_range(&vmg);
	if (vma)
		goto expanded;

	vma = vm_area_alloc(mm);
	if (!vma) {
		error = -ENOMEM;
		goto abort_munmap;
	}

	vma_iter_config(&vmi, addr, end);
	vma_set_range(vma, addr, end, pgoff);
	vm_flags_init(vma, vm_flags);
	vma->vm_page_prot = vm_get_page_prot(vm_flags);

	if (vma_iter_prealloc(&vmi, vma)) {
		error = -ENOMEM;
		goto free_vma;
	}

	if (vm_flags & VM_SHARED) {
		error = kvma_shmem_zero_setup(vma);
		if (error)
			goto free_iter_vma;
	} else {
		vma->vm_ops = NULL; /* vma_set_anonymous */
	}

	/* Lock the VMA since it is modified after insertion into VMA tree */
	vma_start_write(vma);
	vma_iter_store(&vmi, vma);
	mm->map_count++;
	vma_link_file(vma);
	khugepaged_enter_vma(vma, vma->vm_flags);

expanded:
	/* Unmap any existing mapping in the area */
	vms_complete_munmap_vmas(&vms, &mas_detach);

	vm_stat_account(mm, vm_flags, pglen);
	vm_flags_set(vma, VM_SOFTDIRTY);
	return addr;

free_iter_vma:
	vma_iter_free(&vmi);
free_vma:
	vm_area_free(vma);
abort_munmap:
	vms_abort_munmap_vmas(&vms, &mas_detach);
	return error;
}

/* do_mmap for anonymous memory, then mmap_region and its validate_mm */
int64_t kvma_mmap(struct kvma_mm *k, uint64_t addr_in, uint64_t len_in, int prot, int flags)
{
	struct mm_struct *mm = enter(k);
	unsigned long addr = addr_in, len = len_in, pgoff = 0, ret;
	vm_flags_t vm_flags;

	if (!(flags & KVMA_MAP_ANONYMOUS))
		return -EINVAL; /* files: not here */
	if (!len)
		return -EINVAL;
	/* force arch specific MAP_FIXED handling in get_unmapped_area */
	if (flags & KVMA_MAP_FIXED_NOREPLACE)
		flags |= KVMA_MAP_FIXED;
	if (!(flags & KVMA_MAP_FIXED)) {
		/* round_hint_to_min */
		addr &= PAGE_MASK;
		if (addr && addr < k->mmap_min)
			addr = PAGE_ALIGN(k->mmap_min);
	}
	len = PAGE_ALIGN(len);
	if (!len)
		return -ENOMEM;
	if (mm->map_count > sysctl_max_map_count)
		return -ENOMEM;
	vm_flags = calc_vm_prot_bits(prot) | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;

	addr = get_unmapped_area(k, addr, len, flags);
	if (IS_ERR_VALUE(addr))
		return (long)addr;
	if (flags & KVMA_MAP_FIXED_NOREPLACE) {
		if (find_vma_intersection(mm, addr, addr + len))
			return -EEXIST;
	}
	switch (flags & KVMA_MAP_TYPE) {
	case KVMA_MAP_SHARED:
		pgoff = 0; /* ignore pgoff */
		vm_flags |= VM_SHARED | VM_MAYSHARE;
		break;
	case KVMA_MAP_PRIVATE:
		pgoff = addr >> PAGE_SHIFT;
		break;
	default:
		return -EINVAL;
	}
	ret = mmap_region(k, addr, len, vm_flags, pgoff);
	validate_mm(mm);
	return IS_ERR_VALUE(ret) ? (int64_t)(long)ret : (int64_t)ret;
}

/* __vm_munmap */
int kvma_munmap(struct kvma_mm *k, uint64_t start, uint64_t len)
{
	struct mm_struct *mm = enter(k);
	LIST_HEAD(uf);
	VMA_ITERATOR(vmi, mm, start);

	return do_vmi_munmap(&vmi, mm, start, len, &uf, false);
}

/* mm/mprotect.c's mprotect_fixup, minus the page tables */
static int mprotect_fixup(struct vma_iterator *vmi, struct vm_area_struct *vma,
			  struct vm_area_struct **pprev, unsigned long start, unsigned long end,
			  unsigned long newflags)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long oldflags = vma->vm_flags;
	long nrpages = (end - start) >> PAGE_SHIFT;

	if (!can_modify_vma(vma))
		return -EPERM;
	if (newflags == oldflags) {
		*pprev = vma;
		return 0;
	}
	/*
	 * A private mapping made writable is charged; one made unwritable is
	 * uncharged only when anonymous with no anon_vma yet (the stubs never
	 * give one: no page is ever faulted in).
	 */
	if (newflags & VM_WRITE) {
		if (!(oldflags & (VM_ACCOUNT | VM_WRITE | VM_HUGETLB | VM_SHARED | VM_NORESERVE)))
			newflags |= VM_ACCOUNT;
	} else if ((oldflags & VM_ACCOUNT) && vma_is_anonymous(vma) && !vma->anon_vma) {
		newflags &= ~VM_ACCOUNT;
	}

	vma = vma_modify_flags(vmi, *pprev, vma, start, end, newflags);
	if (IS_ERR(vma))
		return PTR_ERR(vma);
	*pprev = vma;

	vma_start_write(vma);
	vm_flags_reset(vma, newflags);
	vma->vm_page_prot = vm_get_page_prot(newflags); /* vma_set_page_prot */

	vm_stat_account(mm, oldflags, -nrpages);
	vm_stat_account(mm, newflags, nrpages);
	return 0;
}

/* do_mprotect_pkey(pkey -1), no PROT_GROWSDOWN/UP, no READ_IMPLIES_EXEC */
int kvma_mprotect(struct kvma_mm *k, uint64_t start_in, uint64_t len_in, int prot)
{
	struct mm_struct *mm = enter(k);
	unsigned long start = start_in, len = len_in, nstart, end, tmp;
	struct vm_area_struct *vma, *prev;
	struct vma_iterator vmi;
	int error;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	len = PAGE_ALIGN(len);
	end = start + len;
	if (end <= start)
		return -ENOMEM;
	/* arch_validate_prot (x86): read, write, exec and PROT_SEM */
	if (prot & ~(KVMA_PROT_READ | KVMA_PROT_WRITE | KVMA_PROT_EXEC | 0x8))
		return -EINVAL;

	vma_iter_init(&vmi, mm, start);
	vma = vma_find(&vmi, end);
	error = -ENOMEM;
	if (!vma)
		goto out;
	if (vma->vm_start > start)
		goto out;
	prev = vma_prev(&vmi);
	if (start > vma->vm_start)
		prev = vma;

	nstart = start;
	tmp = vma->vm_start;
	for_each_vma_range(vmi, vma, end)
	{
		unsigned long mask_off_old_flags, newflags;

		if (vma->vm_start != tmp) {
			error = -ENOMEM;
			break;
		}
		mask_off_old_flags = VM_ACCESS_FLAGS; /* | VM_FLAGS_CLEAR: arch bits, none */
		newflags = calc_vm_prot_bits(prot);
		newflags |= (vma->vm_flags & ~mask_off_old_flags);
		/* newflags >> 4 shift VM_MAY% in place of VM_% */
		if ((newflags & ~(newflags >> 4)) & VM_ACCESS_FLAGS) {
			error = -EACCES;
			break;
		}
		tmp = vma->vm_end;
		if (tmp > end)
			tmp = end;
		error = mprotect_fixup(&vmi, vma, &prev, nstart, tmp, newflags);
		if (error)
			break;
		tmp = vma_iter_end(&vmi);
		nstart = tmp;
	}
	if (!error && tmp < end)
		error = -ENOMEM;
out:
	return error;
}

/* madvise_update_vma (no anon_vma_name: the stubs have none) */
static int madvise_update_vma(struct vm_area_struct *vma, struct vm_area_struct **prev,
			      unsigned long start, unsigned long end, unsigned long new_flags)
{
	struct mm_struct *mm = vma->vm_mm;
	VMA_ITERATOR(vmi, mm, start);

	if (new_flags == vma->vm_flags) {
		*prev = vma;
		return 0;
	}
	vma = vma_modify_flags_name(&vmi, *prev, vma, start, end, new_flags, NULL);
	if (IS_ERR(vma))
		return PTR_ERR(vma);
	*prev = vma;
	vma_start_write(vma);
	vm_flags_reset(vma, new_flags);
	return 0;
}

/* madvise_vma_behavior for the advice fuzz_mm has */
static int madvise_vma_behavior(struct vm_area_struct *vma, struct vm_area_struct **prev,
				unsigned long start, unsigned long end, int behavior)
{
	unsigned long new_flags = vma->vm_flags;
	int error;

	/* can_modify_vma_madv: only discarding advice on sealed VMAs; none is
	 * sealed here */
	switch (behavior) {
	case KVMA_MADV_DONTNEED:
		/* madvise_dontneed_free: no pages to zap */
		*prev = vma;
		if (vma->vm_flags & (VM_LOCKED | VM_PFNMAP | VM_HUGETLB))
			return -EINVAL;
		return 0;
	case KVMA_MADV_DONTFORK:
		new_flags |= VM_DONTCOPY;
		break;
	case KVMA_MADV_DOFORK:
		if (vma->vm_flags & VM_IO)
			return -EINVAL;
		new_flags &= ~VM_DONTCOPY;
		break;
	case KVMA_MADV_WIPEONFORK:
		/* MADV_WIPEONFORK is only supported on anonymous memory. */
		if (vma->vm_file || vma->vm_flags & VM_SHARED)
			return -EINVAL;
		new_flags |= VM_WIPEONFORK;
		break;
	case KVMA_MADV_KEEPONFORK:
		if (vma->vm_flags & VM_DROPPABLE)
			return -EINVAL;
		new_flags &= ~VM_WIPEONFORK;
		break;
	}
	error = madvise_update_vma(vma, prev, start, end, new_flags);
	/* madvise() returns EAGAIN if kernel resources, such as slab, are
	 * temporarily unavailable. */
	if (error == -ENOMEM)
		error = -EAGAIN;
	return error;
}

/* madvise_walk_vmas */
static int madvise_walk_vmas(struct mm_struct *mm, unsigned long start, unsigned long end,
			     int behavior)
{
	struct vm_area_struct *vma, *prev;
	unsigned long tmp;
	int unmapped_error = 0;

	vma = find_vma_prev(mm, start, &prev);
	if (vma && start > vma->vm_start)
		prev = vma;
	for (;;) {
		int error;

		if (!vma)
			return -ENOMEM;
		if (start < vma->vm_start) {
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
			if (start >= end)
				break;
		}
		tmp = vma->vm_end;
		if (end < tmp)
			tmp = end;
		error = madvise_vma_behavior(vma, &prev, start, tmp, behavior);
		if (error)
			return error;
		start = tmp;
		if (prev && start < prev->vm_end)
			start = prev->vm_end;
		if (start >= end)
			break;
		/* find_vma */
		{
			unsigned long at = prev ? prev->vm_end : start;

			vma = mt_find(&mm->mm_mt, &at, ULONG_MAX);
		}
	}
	return unmapped_error;
}

/* do_madvise */
int kvma_madvise(struct kvma_mm *k, uint64_t start_in, uint64_t len_in, int behavior)
{
	struct mm_struct *mm = enter(k);
	unsigned long start = start_in, end, len;

	switch (behavior) { /* madvise_behavior_valid, for the advice here */
	case KVMA_MADV_DONTNEED:
	case KVMA_MADV_DONTFORK:
	case KVMA_MADV_DOFORK:
	case KVMA_MADV_WIPEONFORK:
	case KVMA_MADV_KEEPONFORK:
		break;
	default:
		return -EINVAL;
	}
	if (!PAGE_ALIGNED(start))
		return -EINVAL;
	len = PAGE_ALIGN(len_in);
	/* Check to see whether len was rounded up from small -ve to zero */
	if (len_in && !len)
		return -EINVAL;
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	return madvise_walk_vmas(mm, start, end, behavior);
}
