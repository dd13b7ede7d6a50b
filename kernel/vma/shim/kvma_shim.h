/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tools/testing/vma/vma_internal.h leaves out and mm/vma.c (or the
 * adapter, kernel/vma/kvma_unit.c) needs, read after the stubs and before
 * mm/vma.h. Each function is supplied only when kernel/vma/probe.sh found
 * the stubs without it (-DKVMA_HAVE_<name> otherwise); each macro only when
 * undefined. Our own code, after the kernel's meaning of each name.
 */
#ifndef VMAFUZZ_KVMA_SHIM_H
#define VMAFUZZ_KVMA_SHIM_H

#include <stdint.h>

/* VM_* bits of include/linux/mm.h the stubs do not define (64-bit values) */
#ifndef VM_MAYEXEC
#define VM_MAYEXEC 0x00000040
#endif
#ifndef VM_MAYSHARE
#define VM_MAYSHARE 0x00000080
#endif
#ifndef VM_DONTCOPY
#define VM_DONTCOPY 0x00020000
#endif
#ifndef VM_NORESERVE
#define VM_NORESERVE 0x00200000
#endif
#ifndef VM_HUGETLB
#define VM_HUGETLB 0x00400000
#endif
#ifndef VM_WIPEONFORK
#define VM_WIPEONFORK 0x02000000
#endif
#ifndef VM_DROPPABLE
#define VM_DROPPABLE (1ul << 40)
#endif
#ifndef VM_SEALED
#define VM_SEALED (1ul << 63)
#endif

/*
 * The VMA code's assertions report through the runtime (CK_KVMA_BUG):
 * VM_WARN_ON and friends of mm/vma.c and its headers, validate_mm's
 * VM_WARN_ON_ONCE_MM / VM_BUG_ON_MM, and the tools headers' WARN_ON and
 * BUG_ON (which only print, or assert). Each returns its condition, as
 * WARN_ON does.
 */
int kvma_warn(int cond, const char *file, int line, const char *expr);
#undef WARN_ON
#undef WARN_ON_ONCE
#undef BUG_ON
#undef VM_WARN_ON
#undef VM_WARN_ON_ONCE
#undef VM_BUG_ON
#undef VM_BUG_ON_VMA
#undef VM_WARN_ON_ONCE_MM
#undef VM_BUG_ON_MM
#undef VM_WARN_ON_ONCE_VMA
#undef VM_WARN_ON_VMG
#define KVMA_WARN(e) kvma_warn(!!(e), __FILE__, __LINE__, #e)
#define WARN_ON(e) KVMA_WARN(e)
#define WARN_ON_ONCE(e) KVMA_WARN(e)
#define BUG_ON(e) ((void)KVMA_WARN(e))
#define VM_WARN_ON(e) KVMA_WARN(e)
#define VM_WARN_ON_ONCE(e) KVMA_WARN(e)
#define VM_BUG_ON(e) ((void)KVMA_WARN(e))
#define VM_BUG_ON_VMA(e, vma) ((void)KVMA_WARN(e))
#define VM_WARN_ON_ONCE_MM(e, mm) KVMA_WARN(e)
#define VM_BUG_ON_MM(e, mm) ((void)KVMA_WARN(e))
#define VM_WARN_ON_ONCE_VMA(e, vma) KVMA_WARN(e)
#define VM_WARN_ON_VMG(e, vmg) KVMA_WARN(e)

#ifndef PAGE_ALIGNED
#define PAGE_ALIGNED(addr) (((unsigned long)(addr) & (PAGE_SIZE - 1)) == 0)
#endif

#ifndef pr_emerg
#define pr_emerg printk
#endif
#ifndef pr_warn
#define pr_warn printk
#endif

/*
 * What the stubs declare and leave to their test program to define (the
 * probe found each undefined in the unit's object), with the kernel's
 * defaults.
 */
#ifdef KVMA_NEED_vma_dummy_vm_ops
/* the ops a VMA gets from vma_init: not anonymous until vma_set_anonymous */
const struct vm_operations_struct vma_dummy_vm_ops;
#endif

#ifdef KVMA_NEED_get_current
static struct task_struct kvma_current;
struct task_struct *get_current(void)
{
	return &kvma_current;
}
#endif

#ifdef KVMA_NEED_mmap_min_addr
unsigned long mmap_min_addr = 65536; /* CONFIG_DEFAULT_MMAP_MIN_ADDR (x86) */
#endif
#ifdef KVMA_NEED_dac_mmap_min_addr
unsigned long dac_mmap_min_addr = 65536;
#endif
#ifdef KVMA_NEED_stack_guard_gap
unsigned long stack_guard_gap = 256UL << PAGE_SHIFT;
#endif
#ifdef KVMA_NEED_sysctl_max_map_count
int sysctl_max_map_count = DEFAULT_MAX_MAP_COUNT;
#endif
#ifdef KVMA_NEED_rlimit
/* no resource limit here */
unsigned long rlimit(unsigned int limit)
{
	(void)limit;
	return ~0UL; /* RLIM_INFINITY */
}
#endif

#ifndef KVMA_HAVE_vma_close
/* The VMA leaves the mm: its ops' close, once (later calls see the dummy). */
static inline void vma_close(struct vm_area_struct *vma)
{
	if (vma->vm_ops && vma->vm_ops->close) {
		vma->vm_ops->close(vma);
		vma->vm_ops = &vma_dummy_vm_ops;
	}
}
#endif

#ifndef KVMA_HAVE_vm_flags_init
static inline void vm_flags_init(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->__vm_flags = flags;
}
#endif
#ifndef KVMA_HAVE_vm_flags_reset
static inline void vm_flags_reset(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma_assert_write_locked(vma);
	vma->__vm_flags = flags;
}
#endif
#ifndef KVMA_HAVE_vm_flags_set
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma_start_write(vma);
	vma->__vm_flags |= flags;
}
#endif
#ifndef KVMA_HAVE_vm_flags_clear
static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma_start_write(vma);
	vma->__vm_flags &= ~flags;
}
#endif

#ifndef KVMA_HAVE_dump_vma
static inline void dump_vma(const struct vm_area_struct *vma)
{
	printk("vma %p start %#lx end %#lx mm %p pgoff %#lx file %p flags %#lx\n", (void *)vma,
	       vma->vm_start, vma->vm_end, (void *)vma->vm_mm, vma->vm_pgoff, (void *)vma->vm_file,
	       vma->vm_flags);
}
#endif

#ifndef KVMA_HAVE_vma_iter_dump_tree
static inline void vma_iter_dump_tree(const struct vma_iterator *vmi)
{
	mas_dump(&vmi->mas);
	mt_dump(vmi->mas.tree, mt_dump_hex);
}
#endif

#endif
