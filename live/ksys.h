/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One fuzz_mm operation as system calls on the running kernel, and the VMAs
 * /proc/PID/smaps shows: the real side that vmafuzz conform's child runs
 * (live_backend.c) and that every C program `vmafuzz repro` writes
 * contains, as the same text (the build embeds ksys.h and ksys.c in the
 * tool, tools/repro/repro_emit.c). So this pair includes only system headers,
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
 * for the caller to run (conform's real processes serve on, a reproducer's
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
	int32_t fd;		    /* mmap of a file (not MAP_ANONYMOUS): its fd */
	uint64_t offset;	    /* and the offset in it, bytes */
	uint64_t value;		    /* touch write: the k-th page's first 8 bytes get value + k */
	uint64_t new_addr, new_len; /* mremap */
};

/* One VMA as smaps shows it; flags in the kernel's VM_* bits. Pages where
 * smaps' figure is whole pages, kB (rounded down, as smaps prints them)
 * for the proportional ones. */
struct kvma {
	uint64_t start, end;
	uint64_t flags;
	uint64_t rss, anon;		     /* resident and anonymous pages */
	uint64_t pgoff;			     /* the offset column, in pages */
	uint64_t pss_kb, pss_dirty_kb;	     /* Pss, Pss_Dirty */
	uint64_t shared_clean, shared_dirty; /* pages */
	uint64_t private_clean, private_dirty;
};

/* What smaps says of the VMAs outside the window, summed (for taking them
 * off smaps_rollup's figures): kB, and how many VMAs. */
struct krest {
	uint64_t rss, pss, pss_dirty, shared_clean, shared_dirty, private_clean, private_dirty,
	    anon;
	uint64_t nvmas;
};

#define KVM_READ 0x1ull
#define KVM_WRITE 0x2ull
#define KVM_EXEC 0x4ull
#define KVM_SHARED 0x8ull	    /* VmFlags sh */
#define KVM_MAYREAD 0x10ull	    /* mr */
#define KVM_MAYWRITE 0x20ull	    /* mw */
#define KVM_MAYEXEC 0x40ull	    /* me */
#define KVM_MAYSHARE 0x80ull	    /* ms, the s of rw-s */
#define KVM_GROWSDOWN 0x100ull	    /* gd */
#define KVM_UFFD_MISSING 0x200ull   /* um */
#define KVM_UFFD_WP 0x1000ull	    /* uw */
#define KVM_LOCKED 0x2000ull	    /* lo */
#define KVM_DONTCOPY 0x20000ull	    /* dc */
#define KVM_LOCKONFAULT 0x80000ull  /* lf */
#define KVM_ACCOUNT 0x100000ull	    /* ac */
#define KVM_WIPEONFORK 0x2000000ull /* wf */
#define KVM_UFFD_MINOR (1ull << 41) /* ui */
/* The bits the model shows too, and which are compared. */
#define KVM_COMPARED                                                                               \
	(KVM_READ | KVM_WRITE | KVM_EXEC | KVM_SHARED | KVM_MAYREAD | KVM_MAYWRITE | KVM_MAYEXEC | \
	 KVM_MAYSHARE | KVM_GROWSDOWN | KVM_UFFD_MISSING | KVM_UFFD_WP | KVM_LOCKED |              \
	 KVM_DONTCOPY | KVM_LOCKONFAULT | KVM_ACCOUNT | KVM_WIPEONFORK | KVM_UFFD_MINOR)

/* Before any call: the handlers that turn a touch's SIGSEGV or SIGBUS into
 * -EFAULT, the process on one CPU (what MADV_PAGEOUT reclaims depends on
 * per-CPU batches), RLIMIT_STACK at 8 MiB (how far a MAP_GROWSDOWN stack
 * grows, as the model's), and transparent huge pages off (one touched page
 * is one resident page). 0, or the errno of what failed. */
int ksys_setup(void);
/* 0 when nothing is mapped in [lo, hi) or the page on either side, else an
 * errno (EEXIST: something is). */
int ksys_window_free(uint64_t lo, uint64_t hi);
/* Empty this CPU's LRU batches, as the kernel does before an madvise walk:
 * a page parked in one (just faulted in, lazily freed, marked accessed by
 * a reader of /proc/PID/mem) holds a reference, and a write fault that
 * sees it copies the page instead of reusing it. Run before every call so
 * what a call does depends on the calls before it, not on when the CPU last
 * drained. 0, or the errno of the madvise. */
int ksys_drain(void);
/* Run mmap, munmap, mremap, mprotect, madvise, mlock (mlock2), munlock,
 * mlockall, munlockall or a touch of each page (stopping at the first
 * fault: -EFAULT for SIGSEGV, -EAGAIN for SIGBUS, which a userfaultfd with
 * UFFD_FEATURE_SIGBUS raises here, where a handler would be waited for, and
 * a page past the end of a shared anonymous mapping's memory, which mremap
 * may grow the mapping over): the address, 0 or -errno. */
int64_t ksys_call(const struct kcall *c);
/* A touch (ksys_call's KSYS_TOUCH): each page written with its value (a
 * store of 8 bytes at its start), or read, what it held going to @seen[k]
 * for the k-th page (when @seen is not NULL); as ksys_call's result. */
int64_t ksys_touch(const struct kcall *c, uint64_t *seen);
/* The VMAs of process @pid (0: this one) meeting [lo, hi), in address order,
 * at most @max: how many, or -1 with a message in @err. With @rest, the
 * figures of every other VMA summed there (the whole file is read; without,
 * reading stops past @hi). */
int ksys_vmas(pid_t pid, uint64_t lo, uint64_t hi, struct kvma *out, unsigned max,
	      struct krest *rest, char *err, size_t errlen);
/* The same from @fd, an open /proc/PID/smaps read again from its start (a
 * reader that looks after every call keeps it open). */
int ksys_vmas_fd(int fd, uint64_t lo, uint64_t hi, struct kvma *out, unsigned max,
		 struct krest *rest, char *err, size_t errlen);
/* "@0x10-0x18 rw-p ac dc wf lo rss 32k anon 32k": addresses in pages from
 * @base, the window's start, as a program's @ ranges count them; the other
 * figures (ksys_vma_more) only where they are not the usual ones. */
const char *ksys_vma_str(const struct kvma *v, uint64_t base, char *buf, size_t len);
/* The rest: "pgoff 0x10 pss 16k pss_dirty 16k shared 0k/32k private 0k/0k
 * mr mw me sh gd um uw ui" (clean/dirty). */
const char *ksys_vma_more(const struct kvma *v, char *buf, size_t len);
/* Two VMAs agree: range, the KVM_COMPARED bits, the offset and every figure. */
bool ksys_vma_same(const struct kvma *a, const struct kvma *b);

#endif
