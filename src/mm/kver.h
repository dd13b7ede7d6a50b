/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which kernel's behaviour the model follows. An mm carries a version
 * (the processes it forks inherit it); where kernels of different versions
 * give different results for the same calls, the model asks kver_has()
 * whether the version it follows has the change, and every such change is
 * one rule of kver.c's table: the mainline release it came in, the stable
 * releases it was backported to, and the upstream change's title.
 * docs/fidelity.md lists the rules with a program that shows each.
 *
 * A version is KVER(major, minor, patch): the patch level counts because
 * fixes reach the stable branches (6.1.y, 6.12.y) in their point releases.
 * The model knows the versions from KVER_OLDEST to KVER_NEWEST; an older
 * one is followed as the oldest, a newer one as the newest (kver_known).
 */
#ifndef VMAFUZZ_KVER_H
#define VMAFUZZ_KVER_H

#include <stdbool.h>
#include <stddef.h>

#define KVER(major, minor, patch)                                                                  \
	((unsigned)(major) << 24 | (unsigned)(minor) << 16 | (unsigned)(patch))
#define KVER_MAJOR(v) ((v) >> 24)
#define KVER_MINOR(v) (((v) >> 16) & 0xff)
#define KVER_PATCH(v) ((v)&0xffff)
/* the newest point release of a branch: "6.12" as a program names it */
#define KVER_BRANCH(major, minor) KVER(major, minor, 0xffff)
#define KVER_OLDEST KVER(6, 1, 0)
#define KVER_NEWEST KVER_BRANCH(7, 3)

enum kver_rule {
	/* a VMA without an anon_vma may take in a range with one */
	KV_ANON_MERGE_INTO_UNFAULTED,
	/* MREMAP_DONTUNMAP's whole source, left unfaulted, gets the pgoff of
	 * its start */
	KV_DONTUNMAP_UNFAULTED_PGOFF,
	/* UFFDIO_UNREGISTER refuses a range with another context's VMA */
	KV_UFFD_UNREGISTER_OWN_CTX,
	/* mprotect taking write away from a private anonymous VMA that never
	 * faulted takes VM_ACCOUNT away too */
	KV_MPROTECT_UNACCOUNT_UNFAULTED,
	/* smaps names VM_LOCKONFAULT ("lf") in VmFlags */
	KV_SMAPS_SHOWS_LF,
	/* MADV_POPULATE_(READ|WRITE) stops at the first hole; before, it
	 * walked the range VMA by VMA, past holes */
	KV_POPULATE_STOPS_AT_HOLE,
	/* a new mapping that can merge with prev or with next but not both
	 * (their anon_vmas differ) merges with prev; before, with next */
	KV_NEW_RANGE_PREFERS_PREV,
	/* uffd_wp_range (unregister, close) applies vm_page_prot, read-only
	 * under uffd-wp in a shared writable mapping; before, the protection
	 * of the VMA's flags, writable */
	KV_UFFD_WP_RESOLVE_PAGE_PROT,
	/* mremap checks its arguments (the overlap of the two ranges too) and
	 * then the source VMA before it unmaps anything, and the map count
	 * before it looks the source up; before, the source was looked up
	 * first and checked after the fixed destination and the shrunk tail
	 * were unmapped */
	KV_MREMAP_CHECKS_FIRST,
	/* a MREMAP_FIXED move of the same size moves every VMA of its range,
	 * the gaps between them kept; before, a range that left its VMA was
	 * -EFAULT */
	KV_MREMAP_MOVES_MANY,
	/* the map count headroom of mremap: checked for every call before
	 * anything, and again before a move, as the splits it may make;
	 * before, a move kept four VMAs of room (five before a fixed one) */
	KV_MREMAP_MAP_COUNT_SPLITS,
	/* the copy of an unfaulted source kept by MREMAP_DONTUNMAP does not
	 * merge with that source; before, it did when placed next to it */
	KV_DONTUNMAP_NO_SELF_MERGE,
	/* an MREMAP_DONTUNMAP move of part of a locked VMA splits it first, so
	 * only the moved part is unlocked. Not followed: the model always
	 * splits, and vmafuzz conform refuses such moves on a kernel without
	 * the change, which unlocks the whole VMA and leaks locked_vm */
	KV_DONTUNMAP_LOCKED_SPLIT,
	/* mremap's copy of a VMA whose userfaultfd context lacks the remap
	 * event merges with no neighbour; before, it merged with neighbours
	 * registered with that context, which lost the registration with it */
	KV_UFFD_COPY_APART,
	KV_NRULES
};

#define KVER_BACKPORTS 4

struct kver_rule_desc {
	const char *name;		    /* as docs/fidelity.md names it */
	unsigned since;			    /* the first mainline release with it */
	unsigned backports[KVER_BACKPORTS]; /* point releases of older branches with it */
	const char *change;		    /* the upstream change, by its title */
};

extern const struct kver_rule_desc kver_rules[KV_NRULES];

/* Whether version @v has @rule's change. */
bool kver_has(unsigned v, enum kver_rule rule);

/* "6.12", "6.12.118", "6.18.44-fc-v1300" (what uname's release begins
 * with) into *v, a missing patch level read as 0; false for anything else. */
bool kver_parse(const char *s, unsigned *v);

/* @v as the model follows it: KVER_OLDEST for anything older, KVER_NEWEST
 * for anything newer, the version itself otherwise. */
unsigned kver_known(unsigned v);

/* "6.12.118"; "6.12" for a branch's newest (KVER_BRANCH). */
void kver_print(unsigned v, char *out, size_t len);

#endif
