/* SPDX-License-Identifier: GPL-2.0 */
/* The rules that differ between kernel versions, in one table (kver.h). */
#include "mm/kver.h"

#include <stdio.h>

/*
 * Where a backport's first point release is not known, the one given is
 * the first seen to have it (a Debian tree), and what the model follows
 * for older point releases of that branch may be wrong.
 */
const struct kver_rule_desc kver_rules[KV_NRULES] = {
    /* is_mergeable_anon_vma: before, a neighbour without an anon_vma
     * (an empty chain, never "singular") refused a range that had one */
    [KV_ANON_MERGE_INTO_UNFAULTED] = {"anon_merge_into_unfaulted",
				      KVER(6, 16, 0),
				      {0},
				      "mm/vma: fix incorrectly disallowed anonymous VMA merges"},
    /* move_vma's MREMAP_DONTUNMAP end: after unlink_anon_vmas the source
     * is unfaulted, and unfaulted anonymous VMAs keep pgoff == start;
     * 6.18.44 (this machine) keeps the pgoff it had (releases and
     * backports from Debian's changelogs) */
    [KV_DONTUNMAP_UNFAULTED_PGOFF] = {"dontunmap_unfaulted_pgoff",
				      KVER(7, 3, 0),
				      {KVER(6, 1, 191), KVER(6, 12, 112)},
				      "mm/mremap: reset unfaulted VMA page offset for "
				      "MREMAP_DONTUNMAP"},
    /* userfaultfd_unregister: before, its loop cleared every registered
     * VMA of the range, whichever context it was registered with; first
     * seen in 6.18.44 (6.12.118 and 6.1.192 lack it) */
    [KV_UFFD_UNREGISTER_OWN_CTX] = {"uffd_unregister_own_ctx",
				    KVER(6, 18, 0),
				    {0},
				    "userfaultfd: prevent unregistering VMAs through a "
				    "different userfaultfd"},
    /* mprotect_fixup's unaccounting branch; 6.1.192 keeps the charge */
    [KV_MPROTECT_UNACCOUNT_UNFAULTED] = {"mprotect_unaccount_unfaulted",
					 KVER(6, 7, 0),
					 {0},
					 "mm/mprotect: allow unfaulted VMAs to be unaccounted on "
					 "mprotect()"},
    /* a view rule: the VMA is VM_LOCKONFAULT on every version, smaps says
     * so from this one on; first seen in 6.12.118, 6.1.192 has no
     * mnemonic for it (the releases between not checked) */
    [KV_SMAPS_SHOWS_LF] = {"smaps_shows_lf",
			   KVER(6, 12, 0),
			   {0},
			   "fs/proc/task_mmu: the lf mnemonic for VM_LOCKONFAULT in "
			   "VmFlags"},
    /* madvise_populate over the whole range instead of madvise_walk_vmas's
     * visit of each VMA: a hole ended the call at once from then on,
     * where the walk noted it (-ENOMEM at the end) and went on to the
     * VMAs after it, whose own error (-EINVAL for an access they do not
     * allow) came first; 6.1.192 walks */
    [KV_POPULATE_STOPS_AT_HOLE] = {"populate_stops_at_hole",
				   KVER(6, 9, 0),
				   {0},
				   "mm/madvise: make MADV_POPULATE_(READ|WRITE) handle "
				   "VM_FAULT_RETRY properly"},
    /* vma_merge_new_range asks about next knowing whether prev merges;
     * mmap_region's own expansion before it looked at next first and
     * let prev in only if it suited next's anon_vma; 6.1.192 does that */
    [KV_NEW_RANGE_PREFERS_PREV] = {"new_range_prefers_prev",
				   KVER(6, 12, 0),
				   {0},
				   "mm: avoid using vma_merge() for new VMAs"},
    /* uffd_wp_range (unregistering, closing the context) changes the
     * protection to the VMA's vm_page_prot, which uffd-wp makes read-only
     * in a shared writable mapping (write notification), so a later write
     * faults and dirties the page for every process mapping it; before,
     * to vm_get_page_prot(vm_flags): every present entry writable, clean
     * ones too, and a write dirtied only its own entry. 6.1.192 does that
     * (its uffd-wp write notification is backported, this is not) */
    [KV_UFFD_WP_RESOLVE_PAGE_PROT] = {"uffd_wp_resolve_page_prot",
				      KVER(6, 2, 0),
				      {0},
				      "mm/mprotect: drop pgprot_t parameter from "
				      "change_protection()"},
    /* check_prep_vma before mremap_to's unmaps, check_mremap_params (the
     * overlap too) before the VMA lookup; the map count, checked without
     * the lock, before the lookup too (for a move to a new address) */
    [KV_MREMAP_CHECKS_FIRST] = {"mremap_checks_first",
				KVER(6, 17, 0),
				{0},
				"mm/mremap: check remap conditions earlier"},
    /* remap_move: for_each_vma_range over the old range */
    [KV_MREMAP_MOVES_MANY] = {"mremap_moves_many",
			      KVER(6, 17, 0),
			      {0},
			      "mm/mremap: permit mremap() move of multiple VMAs"},
    /* check_map_count_against_split(_early): headroom of 2 VMAs for the
     * move (3 with a pre-split), 2 more for the unmaps before it, for every
     * call; before, move_vma's map_count >= max - 3 and mremap_to's
     * map_count + 2 >= max - 3. Posted in March 2026; 7.3.4 has it, 6.18.44
     * not, the releases between not checked */
    [KV_MREMAP_MAP_COUNT_SPLITS] = {"mremap_map_count_splits",
				    KVER(7, 1, 0),
				    {0},
				    "mm/mremap: correct invalid map count check"},
    /* copy_vma's keep_source: prev or next that is the kept source is no
     * merge candidate; before, an unfaulted source moved next to itself
     * merged with its copy */
    [KV_DONTUNMAP_NO_SELF_MERGE] = {"dontunmap_no_self_merge",
				    KVER(7, 3, 0),
				    {KVER(6, 1, 191), KVER(6, 12, 114)},
				    "mm/mremap: fix locked_vm leak from MREMAP_DONTUNMAP "
				    "self-merge"},
    /* copy_vma (vma_merge_copied_range in 7.3): "If not registered for
     * remap, uffd context will be cleared", and no merge is tried; 6.18.44
     * and 6.1.192 merge the copy with a neighbour of the same context
     * (corpus/fuzz_mm/conform_uffd_copy_merge.txt, found there by
     * fuzz_conform). The change's title was not found: it is named by
     * that comment */
    [KV_UFFD_COPY_APART] = {"uffd_copy_apart",
			    KVER(7, 3, 0),
			    {KVER(6, 12, 118)},
			    "mm: no merge for an mremap copy whose userfaultfd context will be "
			    "cleared"},
    /* prep_move_vma's needs_pre_split (not followed: kver.h) */
    [KV_DONTUNMAP_LOCKED_SPLIT] = {"dontunmap_locked_split",
				   KVER(7, 3, 0),
				   {KVER(6, 1, 191), KVER(6, 12, 114)},
				   "mm/mremap: fix locked_vm leak by splitting VMA for "
				   "MREMAP_DONTUNMAP"},
};

bool kver_has(unsigned v, enum kver_rule rule)
{
	const struct kver_rule_desc *r = &kver_rules[rule];

	v = kver_known(v);
	if (v >= r->since)
		return true;
	for (unsigned i = 0; i < KVER_BACKPORTS && r->backports[i]; i++)
		if ((v >> 16) == (r->backports[i] >> 16) && v >= r->backports[i])
			return true;
	return false;
}

/* Up to @max decimal digits at *s into *n; false when there are none. */
static bool number(const char **s, unsigned max, unsigned *n)
{
	unsigned k = 0;

	*n = 0;
	for (; **s >= '0' && **s <= '9' && k < max; (*s)++, k++)
		*n = *n * 10 + (unsigned)(**s - '0');
	return k > 0 && !(**s >= '0' && **s <= '9');
}

bool kver_parse(const char *s, unsigned *v)
{
	unsigned major, minor, patch = 0;

	if (!number(&s, 2, &major) || *s++ != '.' || !number(&s, 3, &minor))
		return false;
	if (*s == '.' && (s++, !number(&s, 5, &patch)))
		return false;
	if (!major || minor > 255 || patch > 0xfffe || (*s && *s != '-' && *s != '+'))
		return false;
	*v = KVER(major, minor, patch);
	return true;
}

unsigned kver_known(unsigned v)
{
	return v < KVER_OLDEST ? KVER_OLDEST : v > KVER_NEWEST ? KVER_NEWEST : v;
}

void kver_print(unsigned v, char *out, size_t len)
{
	if (KVER_PATCH(v) == 0xffff)
		snprintf(out, len, "%u.%u", KVER_MAJOR(v), KVER_MINOR(v));
	else
		snprintf(out, len, "%u.%u.%u", KVER_MAJOR(v), KVER_MINOR(v), KVER_PATCH(v));
}
