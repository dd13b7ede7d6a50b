/* SPDX-License-Identifier: GPL-2.0 */
/* fuzz_mm's operation table and the kernel values of its arguments (mm_ops.h). */
#include "mm_ops.h"
#include "mm/kver.h"

/* The kernel's values (the model defines the same in mm/types.h). */
#define K_PROT_READ 0x1
#define K_PROT_WRITE 0x2
#define K_PROT_EXEC 0x4
#define K_MAP_SHARED 0x01
#define K_MAP_PRIVATE 0x02
#define K_MAP_FIXED 0x10
#define K_MAP_ANONYMOUS 0x20
#define K_MAP_FIXED_NOREPLACE 0x100000
#define K_MAP_LOCKED 0x2000
#define K_MAP_POPULATE 0x8000
#define K_MAP_GROWSDOWN 0x100

const char *const mmf_prot_names[] = {"r", "w", "x", NULL};
/* mmap's: prot, then the flags MAP_POPULATE and MAP_LOCKED */
const char *const mmf_mmap_prot_names[] = {"r", "w", "x", "populate", "locked", "growsdown", NULL};
const char *const mmf_kind_names[] = {"private", "shared", "private_file", "shared_file", NULL};
const char *const mmf_place_names[] = {"fixed", "noreplace", "hint", NULL};
const char *const mmf_advice_names[] = {
    "dontneed", "dontfork", "dofork",	     "wipeonfork",     "keeponfork",	  "free",
    "cold",	"pageout",  "populate_read", "populate_write", "dontneed_locked", NULL};
const char *const mmf_access_names[] = {"read", "write", NULL};
const char *const mmf_uffd_mode_names[] = {"missing", "wp", "minor", NULL};
const char *const mmf_uffd_feature_names[] = {"nofork", "fork", "remap", "fork_remap", NULL};
const char *const mmf_algo_names[] = {"tree", "append", NULL};
const char *const mmf_policy_names[] = {"current", "reuse", NULL};
const char *const mmf_diff_names[] = {"nodiff", "diff", NULL};
const char *const mmf_reader_names[] = {"mmap", "vma", NULL};
/* MREMAP_MAYMOVE, MREMAP_FIXED and MREMAP_DONTUNMAP are bits 0, 1 and 2 */
const char *const mmf_remap_flag_names[] = {"maymove", "fixed", "dontunmap", NULL};
const char *const mmf_remap_to_names[] = {"at_gap", "at_vma", "up", "down", "home", NULL};
const char *const mmf_lock_names[] = {"lock", "onfault", NULL};
/* MCL_CURRENT, MCL_FUTURE and MCL_ONFAULT are bits 0, 1 and 2 */
const char *const mmf_mcl_names[] = {"current", "future", "onfault", NULL};

/* the lock classes of runtime/sync.h a thread may await (mm_run.c maps them) */
const char *const mmf_lock_class_names[] = {"mmap_lock",      "vma_lock",      "i_mmap_rwsem",
					    "anon_vma_rwsem", "uffd_ctx_lock", NULL};
const char *const mmf_await_of_names[] = {"any", "of0", "of1", "of2", "of3",
					  "of4", "of5", "of6", "of7", NULL};

const struct prog_opdesc mmf_ops[MMF_NOPS] = {MMF_OPDESCS};

bool mmf_is_thread_op(unsigned code)
{
	return code == MMF_OP_DELAY || code == MMF_OP_AWAIT;
}

int mmf_prot(uint8_t prot)
{
	return (prot & 1 ? K_PROT_READ : 0) | (prot & 2 ? K_PROT_WRITE : 0) |
	       (prot & 4 ? K_PROT_EXEC : 0);
}

bool mmf_populates(const struct mm_args *a)
{
	return a->prot & (MMF_MAP_POPULATE | MMF_MAP_LOCKED);
}

int mmf_mmap_flags(const struct mm_args *a)
{
	int flags =
	    a->kind == MMF_SHARED_ANON || a->kind == MMF_SHARED_FILE ? K_MAP_SHARED : K_MAP_PRIVATE;

	if (a->kind == MMF_PRIVATE_ANON || a->kind == MMF_SHARED_ANON)
		flags |= K_MAP_ANONYMOUS;
	if (a->place == MMF_FIXED)
		flags |= K_MAP_FIXED;
	else if (a->place == MMF_NOREPLACE)
		flags |= K_MAP_FIXED_NOREPLACE;
	if (a->prot & MMF_MAP_POPULATE)
		flags |= K_MAP_POPULATE;
	if (a->prot & MMF_MAP_LOCKED)
		flags |= K_MAP_LOCKED;
	if (a->prot & MMF_MAP_GROWSDOWN)
		flags |= K_MAP_GROWSDOWN;
	return flags;
}

int mmf_advice(uint8_t advice)
{
	/* MADV_DONTNEED, _DONTFORK, _DOFORK, _WIPEONFORK, _KEEPONFORK, _FREE,
	 * _COLD, _PAGEOUT, _POPULATE_READ, _POPULATE_WRITE, _DONTNEED_LOCKED */
	static const int map[MMF_NADVICE] = {4, 10, 11, 18, 19, 8, 20, 21, 22, 23, 24};

	return map[advice % MMF_NADVICE];
}

bool mmf_has_range(const struct prog_desc *d, unsigned code)
{
	const struct prog_opdesc *od = &d->ops[code % d->nops];

	return od->nfields > 1 && od->fields[1].kind == FK_RANGE;
}

/* no_zero_page: process p0 (and every process it forks) forbids the zero
 * page, as a kernel with mm_forbids_zeropage() does: a read fault of private
 * anonymous memory allocates a page (mm/types.h). linux_6_1, linux_6_12,
 * linux_6_18: the model behaves as that kernel version (mm_ops.h). */
static const char *const mm_config[] = {"no_zero_page", "linux_6_1", "linux_6_12", "linux_6_18",
					NULL};

unsigned mm_config_kver(uint8_t config)
{
	if (config & MM_CONFIG_LINUX_6_1)
		return KVER_BRANCH(6, 1);
	if (config & MM_CONFIG_LINUX_6_12)
		return KVER_BRANCH(6, 12);
	if (config & MM_CONFIG_LINUX_6_18)
		return KVER_BRANCH(6, 18);
	return KVER_NEWEST;
}

const struct prog_desc mm_desc = {
    .target = "fuzz_mm",
    .nops = MMF_NOPS,
    .ops = mmf_ops,
    .config_names = mm_config,
    .nfibers = PROG_FIBERS,
    .args_size = sizeof(struct mm_args),
};

/* The same programs run on one thread: what a backend without real locks
 * (the kernel's mm/vma.c with its stubs, kfuzz_vma) can run. */
const struct prog_desc mm_seq_desc = {
    .target = "fuzz_mm",
    .nops = MMF_NOPS,
    .ops = mmf_ops,
    .config_names = mm_config,
    .nfibers = 1,
    .args_size = sizeof(struct mm_args),
};
