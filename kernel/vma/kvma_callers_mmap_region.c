/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The callers of mm/vma.c in the vma-mmap-region layout (kernel/vma/
 * probe.sh; 7.3): mm/vma.c has mmap_region, unmapped_area_topdown and
 * __vm_munmap itself, and they are the kernel's own here. What is still
 * outside it is written after the kernel's code, step for step, minus
 * pages, page tables, locks, rlimits, commit charge, security hooks and
 * pkeys: do_mmap with __get_unmapped_area (mm/mmap.c), do_mprotect_pkey with
 * mprotect_fixup (mm/mprotect.c), do_madvise with madvise_walk_vmas,
 * madvise_vma_behavior and madvise_update_vma (mm/madvise.c). VM flags are
 * the tree's vma_flags_t where its API takes them, built from the legacy
 * vm_flags_t bits as the kernel's own code builds them.
 *
 * Not a translation unit of its own: kernel/vma/kvma_unit.c includes it
 * after mm/vma.c, whose static functions it calls, and after its own
 * address space (struct kvma_mm, enter, the KVMA_ constants).
 */

/* exit_mmap's tear_down_vmas for one VMA of the tree: detached, closed,
 * freed (vm_area_free wants it detached) */
static void kvma_exit_vma(struct vm_area_struct *vma)
{
	vma_mark_detached(vma);
	remove_vma(vma);
}

static vm_flags_t calc_vm_prot_bits(int prot)
{
	return (prot & KVMA_PROT_READ ? VM_READ : 0) | (prot & KVMA_PROT_WRITE ? VM_WRITE : 0) |
	       (prot & KVMA_PROT_EXEC ? VM_EXEC : 0);
}

/*
 * __get_unmapped_area for anonymous memory: x86-64's top-down layout
 * (generic_get_unmapped_area_topdown) with the window as mmap_min_addr,
 * mmap_end and the mmap base, the search itself the kernel's
 * (unmapped_area_topdown). A hint is never 0 here, so THP alignment (only
 * without a hint) does not apply; shmem_get_unmapped_area with
 * shmem_enabled=never is the same search. The bottom-up fallback searches
 * the same window, so it is left out.
 */
static unsigned long get_unmapped_area(struct kvma_mm *k, unsigned long addr, unsigned long len,
				       int flags)
{
	struct mm_struct *mm = &k->mm;
	struct vm_area_struct *vma, *prev;
	struct vm_unmapped_area_info info = {0};

	if (len > TASK_SIZE)
		return -ENOMEM;
	/* the kernel's len > mmap_end - mmap_min_addr: with the window as
	 * mmap_min_addr that would refuse MAP_FIXED mappings larger than the
	 * window, which the kernel (with its small mmap_min_addr) maps */
	if (!(flags & KVMA_MAP_FIXED) && len > k->mmap_end - k->mmap_min)
		return -ENOMEM;
	if (!(flags & KVMA_MAP_FIXED)) {
		if (addr) {
			addr = PAGE_ALIGN(addr);
			vma = find_vma_prev(mm, addr, &prev);
			if (k->mmap_end - len >= addr && addr >= k->mmap_min &&
			    (!vma || addr + len <= vm_start_gap(vma)) &&
			    (!prev || addr >= vm_end_gap(prev)))
				goto found;
		}
		info.flags = VM_UNMAPPED_AREA_TOPDOWN;
		info.length = len;
		info.low_limit = k->mmap_min;
		info.high_limit = k->mmap_end;
		addr = unmapped_area_topdown(&info);
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

/* do_mmap for anonymous memory, then the kernel's mmap_region */
int64_t kvma_mmap(struct kvma_mm *k, uint64_t addr_in, uint64_t len_in, int prot, int flags)
{
	struct mm_struct *mm = enter(k);
	unsigned long addr = addr_in, len = len_in, pgoff = 0, ret;
	vm_flags_t vm_flags;
	LIST_HEAD(uf);

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
	if (mm->map_count > get_sysctl_max_map_count())
		return -ENOMEM;
	/* calc_vm_flag_bits gives nothing for these flags, def_vma_flags is empty */
	vm_flags = calc_vm_prot_bits(prot) | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;

	addr = get_unmapped_area(k, addr, len, flags);
	if (IS_ERR_VALUE(addr))
		return (long)addr;
	if (flags & KVMA_MAP_FIXED_NOREPLACE) {
		if (find_vma_intersection(mm, addr, addr + len))
			return -EEXIST;
	}
	/* (vma_flags_can_grow: no MAP_GROWSDOWN here) */
	switch (flags & KVMA_MAP_TYPE) {
	case KVMA_MAP_SHARED:
		pgoff = 0; /* ignore pgoff */
		vm_flags |= VM_SHARED | VM_MAYSHARE;
		break;
	case KVMA_MAP_PRIVATE:
		pgoff = addr >> PAGE_SHIFT; /* set pgoff according to addr for anon_vma */
		break;
	default:
		return -EINVAL;
	}
	ret = mmap_region(NULL, addr, len, legacy_to_vma_flags(vm_flags), pgoff, &uf);
	return IS_ERR_VALUE(ret) ? (int64_t)(long)ret : (int64_t)ret;
}

/* the kernel's __vm_munmap */
int kvma_munmap(struct kvma_mm *k, uint64_t start, uint64_t len)
{
	enter(k);
	return __vm_munmap(start, len, false);
}

/* mm/mprotect.c's mprotect_fixup, minus the page tables */
static int mprotect_fixup(struct vma_iterator *vmi, struct vm_area_struct *vma,
			  struct vm_area_struct **pprev, unsigned long start, unsigned long end,
			  vm_flags_t newflags)
{
	const vma_flags_t old_vma_flags = READ_ONCE(vma->flags);
	vma_flags_t new_vma_flags = legacy_to_vma_flags(newflags);
	long nrpages = (end - start) >> PAGE_SHIFT;

	if (vma_is_sealed(vma))
		return -EPERM;
	if (vma_flags_same_pair(&old_vma_flags, &new_vma_flags)) {
		*pprev = vma;
		return 0;
	}
	/*
	 * A private mapping made writable is charged; one made unwritable is
	 * uncharged only when anonymous with no anon_vma yet (the stubs never
	 * give one: no page is ever faulted in). may_expand_vm and the commit
	 * charge always grant it here.
	 */
	if (vma_flags_test(&new_vma_flags, VMA_WRITE_BIT)) {
		if (!vma_flags_test_any(&old_vma_flags, VMA_ACCOUNT_BIT, VMA_WRITE_BIT,
					VMA_HUGETLB_BIT, VMA_SHARED_BIT, VMA_NORESERVE_BIT))
			vma_flags_set(&new_vma_flags, VMA_ACCOUNT_BIT);
	} else if (vma_flags_test(&old_vma_flags, VMA_ACCOUNT_BIT) && vma_is_anonymous(vma) &&
		   !vma->anon_vma) {
		vma_flags_clear(&new_vma_flags, VMA_ACCOUNT_BIT);
	}

	vma = vma_modify_flags(vmi, *pprev, vma, start, end, &new_vma_flags);
	if (IS_ERR(vma))
		return PTR_ERR(vma);
	*pprev = vma;

	vma_start_write(vma);
	vma_flags_reset_once(vma, &new_vma_flags);
	vma_set_page_prot(vma);

	vm_stat_account(vma->vm_mm, vma_flags_to_legacy(old_vma_flags), -nrpages);
	vm_stat_account(vma->vm_mm, vma_flags_to_legacy(new_vma_flags), nrpages);
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
		vm_flags_t mask_off_old_flags, newflags;
		vma_flags_t new_vma_flags;

		if (vma->vm_start != tmp) {
			error = -ENOMEM;
			break;
		}
		mask_off_old_flags = VM_ACCESS_FLAGS; /* | VM_FLAGS_CLEAR: arch bits, none */
		newflags = calc_vm_prot_bits(prot);
		newflags |= (vma->vm_flags & ~mask_off_old_flags);
		new_vma_flags = legacy_to_vma_flags(newflags);
		/* newflags >> 4 shift VM_MAY% in place of VM_% */
		if ((newflags & ~(newflags >> 4)) & VM_ACCESS_FLAGS) {
			error = -EACCES;
			break;
		}
		if (map_deny_write_exec(&vma->flags, &new_vma_flags)) {
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

/* madvise_update_vma for VM flags (no anon_vma_name: the stubs have none) */
static int madvise_update_vma(struct vm_area_struct **vmap, struct vm_area_struct *prev,
			      unsigned long start, unsigned long end, vm_flags_t new_flags)
{
	struct vm_area_struct *vma = *vmap;
	vma_flags_t new_vma_flags = legacy_to_vma_flags(new_flags);
	VMA_ITERATOR(vmi, vma->vm_mm, start);

	if (vma_flags_same_mask(&vma->flags, new_vma_flags))
		return 0;
	vma = vma_modify_flags(&vmi, prev, vma, start, end, &new_vma_flags);
	if (IS_ERR(vma))
		return PTR_ERR(vma);
	*vmap = vma;
	vma_start_write(vma);
	vma->flags = new_vma_flags;
	return 0;
}

/* madvise_vma_behavior for the advice fuzz_mm has */
static int madvise_vma_behavior(struct vm_area_struct **vmap, struct vm_area_struct *prev,
				unsigned long start, unsigned long end, int behavior)
{
	struct vm_area_struct *vma = *vmap;
	vm_flags_t new_flags = vma->vm_flags;
	int error;

	/* can_madvise_modify: only discarding advice on sealed VMAs; none is
	 * sealed here */
	switch (behavior) {
	case KVMA_MADV_DONTNEED:
		/* madvise_dontneed_free (no hugetlb here): no pages to zap */
		if (vma->vm_flags & (VM_PFNMAP | VM_LOCKED))
			return -EINVAL;
		return 0;
	case KVMA_MADV_DONTFORK:
		new_flags |= VM_DONTCOPY;
		break;
	case KVMA_MADV_DOFORK:
		if (new_flags & VM_SPECIAL)
			return -EINVAL;
		new_flags &= ~VM_DONTCOPY;
		break;
	case KVMA_MADV_WIPEONFORK:
		/* MADV_WIPEONFORK is only supported on anonymous memory. */
		if (vma->vm_file || new_flags & VM_SHARED)
			return -EINVAL;
		new_flags |= VM_WIPEONFORK;
		break;
	case KVMA_MADV_KEEPONFORK:
		if (new_flags & VM_DROPPABLE)
			return -EINVAL;
		new_flags &= ~VM_WIPEONFORK;
		break;
	}
	error = madvise_update_vma(vmap, prev, start, end, new_flags);
	/* madvise() returns EAGAIN if kernel resources, such as slab, are
	 * temporarily unavailable. */
	if (error == -ENOMEM)
		error = -EAGAIN;
	return error;
}

/*
 * madvise_walk_vmas under the mmap lock. MADV_DONTNEED first tries the VMA
 * holding the start under its own lock (try_vma_read_lock) and applies the
 * advice there when that VMA covers the whole range, which gives what the
 * walk gives over one VMA; so only the walk is written.
 */
static int madvise_walk_vmas(struct mm_struct *mm, unsigned long start, unsigned long end,
			     int behavior)
{
	unsigned long last_end = end;
	int unmapped_error = 0;
	int error;
	struct vm_area_struct *prev, *vma;

	vma = find_vma_prev(mm, start, &prev);
	if (vma && start > vma->vm_start)
		prev = vma;
	for (;;) {
		/* Still start < end. */
		if (!vma)
			return -ENOMEM;
		/* Here start < (last_end|vma->vm_end). */
		if (start < vma->vm_start) {
			/* a gap in the range: -ENOMEM at the end, carry on */
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
			if (start >= last_end)
				break;
		}
		end = min(vma->vm_end, last_end);
		error = madvise_vma_behavior(&vma, prev, start, end, behavior);
		if (error)
			return error;
		prev = vma;
		if (end < vma->vm_end)
			end = vma->vm_end;
		if (end >= last_end)
			break;
		start = end;
		/* find_vma(mm, vma->vm_end) (mm/mmap.c, not in the stubs) */
		end = vma->vm_end;
		vma = mt_find(&mm->mm_mt, &end, ULONG_MAX);
	}
	return unmapped_error;
}

/* do_madvise */
int kvma_madvise(struct kvma_mm *k, uint64_t start_in, uint64_t len_in, int behavior)
{
	struct mm_struct *mm = enter(k);
	unsigned long start = start_in, len;

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
	/* check_input_range */
	if (!PAGE_ALIGNED(start))
		return -EINVAL;
	len = PAGE_ALIGN(len_in);
	/* Check to see whether len was rounded up from small -ve to zero */
	if (len_in && !len)
		return -EINVAL;
	if (start + len < start)
		return -EINVAL;
	if (!len_in)
		return 0;
	/* madvise_do_behavior: the range as range->start, range->end */
	return madvise_walk_vmas(mm, start, start + len, behavior);
}
