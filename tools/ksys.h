/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One fuzz_mm operation as system calls on the running kernel, and the VMAs
 * /proc/PID/smaps shows: the real side that vmafuzz conform's child runs
 * (conform_kernel.c) and that every C program `vmafuzz repro` writes
 * contains, as the same text (the build embeds ksys.h and ksys.c in the
 * tool, tools/repro_emit.c). So this pair includes only system headers,
 * is plain C11 with _GNU_SOURCE, and knows nothing of programs or the
 * model: calls arrive with the kernel's values of prot, flags and advice.
 */
#ifndef VMAFUZZ_KSYS_H
#define VMAFUZZ_KSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KSYS_PAGE ((uint64_t)4096)

/* What a call does. KSYS_FORK, and KSYS_EXIT of the process it made, are
 * for the caller to run (conform holds a grandchild still, a reproducer's
 * child checks itself): ksys_call answers them -ENOSYS. */
enum ksys_code {
	KSYS_MMAP,
	KSYS_MUNMAP,
	KSYS_MPROTECT,
	KSYS_MADVISE,
	KSYS_TOUCH,
	KSYS_FORK,
	KSYS_EXIT,
	KSYS_MREMAP,
	KSYS_MLOCK,
	KSYS_MUNLOCK,
	KSYS_MLOCKALL,
	KSYS_MUNLOCKALL
};

/* A call, with the kernel's values for prot, flags and advice. flags are
 * mmap's, mremap's (MREMAP_*), mlock2's (MLOCK_ONFAULT) or mlockall's
 * (MCL_*). */
struct kcall {
	int32_t code; /* enum ksys_code */
	int32_t prot, flags, advice, write;
	uint64_t start, len;
	uint64_t touch_max_pages;   /* touch: at most this many pages, as the model */
	uint64_t new_addr, new_len; /* mremap */
};

/* One VMA as smaps shows it; flags in the kernel's VM_* bits. */
struct kvma {
	uint64_t start, end;
	uint64_t flags;
	uint64_t rss, anon; /* resident and anonymous pages */
};

#define KVM_READ 0x1ull
#define KVM_WRITE 0x2ull
#define KVM_EXEC 0x4ull
#define KVM_SHARED 0x8ull	    /* VmFlags sh */
#define KVM_MAYSHARE 0x80ull	    /* the s of rw-s */
#define KVM_LOCKED 0x2000ull	    /* lo */
#define KVM_DONTCOPY 0x20000ull	    /* dc */
#define KVM_LOCKONFAULT 0x80000ull  /* lf */
#define KVM_ACCOUNT 0x100000ull	    /* ac */
#define KVM_WIPEONFORK 0x2000000ull /* wf */
/* The bits the model shows too, and which are compared. */
#define KVM_COMPARED                                                                               \
	(KVM_READ | KVM_WRITE | KVM_EXEC | KVM_MAYSHARE | KVM_DONTCOPY | KVM_WIPEONFORK |          \
	 KVM_ACCOUNT | KVM_LOCKED | KVM_LOCKONFAULT)

/* Before any call: the handlers that turn a touch's SIGSEGV or SIGBUS into
 * -EFAULT, the process on one CPU (what MADV_PAGEOUT reclaims depends on
 * per-CPU batches), RLIMIT_STACK at 8 MiB (how far a MAP_GROWSDOWN stack
 * grows, as the model's), and transparent huge pages off (one touched page
 * is one resident page). 0, or the errno of what failed. */
int ksys_setup(void);
/* 0 when nothing is mapped in [lo, hi) or the page on either side, else an
 * errno (EEXIST: something is). */
int ksys_window_free(uint64_t lo, uint64_t hi);
/* Run mmap (anonymous), munmap, mremap, mprotect, madvise, mlock, mlock2,
 * munlock, mlockall, munlockall or a touch of each page (stopping at the
 * first fault): the address, 0 or -errno. */
int64_t ksys_call(const struct kcall *c);
/* The VMAs of process @pid (0: this one) meeting [lo, hi), in address order,
 * at most @max: how many, or -1 with a message in @err. */
int ksys_vmas(pid_t pid, uint64_t lo, uint64_t hi, struct kvma *out, unsigned max, char *err,
	      size_t errlen);
/* "@0x10-0x18 rw-p ac dc wf lo rss 32k anon 32k": addresses in pages from
 * @base, the window's start, as a program's @ ranges count them. */
const char *ksys_vma_str(const struct kvma *v, uint64_t base, char *buf, size_t len);
/* Two VMAs agree: range, the KVM_COMPARED bits, resident and anonymous pages. */
bool ksys_vma_same(const struct kvma *a, const struct kvma *b);

#endif
