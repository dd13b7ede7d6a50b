/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations of fuzz_mm's programs, once for everyone: their codes (the
 * one enum), their arguments by name (struct mm_args, which
 * prog_decode_args fills from a record), their table (MMF_OPDESCS: the
 * text form, the mutator and the decoder all read it), and the window every
 * mapping lives in. The executor (mm_run.c), the model's backend
 * (model_backend.c), the live kernel's (live/live_backend.c) and the text
 * printer all use these; nothing here knows the model.
 *
 * fuzz_fork and fuzz_rollup use the same table (fuzz_fork appends its own
 * operations after MMF_NOPS).
 */
#ifndef VMAFUZZ_MM_OPS_H
#define VMAFUZZ_MM_OPS_H

#include "prog.h"

#include <stddef.h>
#include <stdint.h>

#define MMF_MAX_PROCS 8
#define MMF_FILES 4
#define MMF_FDS 8
/* The window every mapping of a program lives in (free in real processes too). */
#define MMF_PAGE_SHIFT 12
#define MMF_WINDOW_LO 0x200000000000ull
#define MMF_WINDOW_PAGES 0x40000ull /* 1 GiB */
#define MMF_WINDOW_HI (MMF_WINDOW_LO + (MMF_WINDOW_PAGES << MMF_PAGE_SHIFT))
/* Probes one uprobe operation registers at most (a range may be 1 GiB). */
#define MMF_UPROBE_MAX 64

enum mmf_code {
	MMF_OP_MMAP,
	MMF_OP_MUNMAP,
	MMF_OP_MPROTECT,
	MMF_OP_MADVISE,
	MMF_OP_TOUCH,
	MMF_OP_UFFD_CREATE,
	MMF_OP_UFFD_REGISTER,
	MMF_OP_UFFD_UNREGISTER,
	MMF_OP_UFFD_RELEASE,
	MMF_OP_FORK,
	MMF_OP_EXIT,
	MMF_OP_ROLLUP,
	MMF_OP_UPROBE,
	MMF_OP_DELAY,
	MMF_OP_MAP_LIMIT,
	MMF_OP_MREMAP,
	MMF_OP_MLOCK,
	MMF_OP_MUNLOCK,
	MMF_OP_MLOCKALL,
	MMF_OP_MUNLOCKALL,
	MMF_OP_AWAIT,
	MMF_NOPS
};

/* fuzz_mm's config bits (mm_ops.c names them). no_zero_page: the model
 * forbids the zero page; linux_6_1, linux_6_12, linux_6_18: it behaves as
 * the newest point release of that stable branch (src/mm/kver.h; with none,
 * as the newest version it knows; the oldest named when several are). conform and repro take all of
 * them from the running kernel instead. */
#define MM_CONFIG_NO_ZERO_PAGE 0x1
#define MM_CONFIG_LINUX_6_1 0x2
#define MM_CONFIG_LINUX_6_12 0x4
#define MM_CONFIG_LINUX_6_18 0x8
#define MM_CONFIG_KERNEL                                                                           \
	(MM_CONFIG_NO_ZERO_PAGE | MM_CONFIG_LINUX_6_1 | MM_CONFIG_LINUX_6_12 | MM_CONFIG_LINUX_6_18)

/* The kernel version (KVER) a program's config bits name. */
unsigned mm_config_kver(uint8_t config);

/* mmap's kind and place, as the program names them. */
enum mmf_kind { MMF_PRIVATE_ANON, MMF_SHARED_ANON, MMF_PRIVATE_FILE, MMF_SHARED_FILE };
enum mmf_place { MMF_FIXED, MMF_NOREPLACE, MMF_HINT };
/* mremap's new address (for MREMAP_FIXED, or MREMAP_DONTUNMAP's hint): the
 * start of the k-th gap or VMA (mod their number), or k pages above or
 * below the old start, or home: where the range's page offset says its
 * first page belongs (an anonymous VMA's offset is the address it was
 * mapped at, a model file's the page's place in the window), so that it
 * may merge with neighbours whose offsets continue; kept inside the
 * window. */
enum mmf_remap_to { MMF_TO_GAP, MMF_TO_VMA, MMF_TO_UP, MMF_TO_DOWN, MMF_TO_HOME, MMF_NTO };

/* Every argument an operation of the table can have, by name. */
struct mm_args {
	uint8_t proc;		    /* process p<k> */
	struct range_spec range;    /* resolved against the process's VMAs */
	uint8_t prot;		    /* bit 0 read, 1 write, 2 exec */
	uint8_t kind, file, place;  /* mmap */
	uint8_t advice;		    /* madvise: mmf_advice_names */
	uint8_t access;		    /* touch: 0 read, 1 write */
	uint8_t features;	    /* uffd_create: bit 0 fork event, bit 1 remap event */
	uint8_t modes;		    /* uffd_register: missing, wp, minor bits */
	uint8_t handle;		    /* a userfaultfd's fd slot h<k> */
	uint8_t algo, policy, diff; /* fork */
	uint8_t reader;		    /* rollup: mmap lock or per-VMA locks */
	uint8_t n;		    /* delay's points, map_limit's headroom, mremap's new pages */
	uint8_t remap_flags;	    /* mremap: maymove, fixed, dontunmap bits */
	uint8_t to, k;		    /* mremap: where the new address is (enum mmf_remap_to) */
	uint8_t lock;		    /* mlock: 0 mlock, 1 mlock2(MLOCK_ONFAULT) */
	uint8_t mcl;		    /* mlockall: current, future, onfault bits */
	uint8_t lock_class, of;	    /* await: mmf_lock_class_names, mmf_await_of_names */
};

/*
 * Page data. A page's bytes are stood for by one 64-bit value (the first
 * eight bytes of the page on a live kernel). The k-th page a touch writes
 * holds MMF_VALUE(process, step) + k: the process that wrote it, the step
 * of the program (MMF_STEP_PROLOGUE before the program), the page. Page i of
 * model file f holds MMF_FILE_DATA(f) + i until written; anonymous memory
 * holds 0 until written.
 */
#define MMF_VALUE(proc, step) (0xa5ull << 56 | (uint64_t)(proc) << 48 | (uint64_t)(step) << 32)
#define MMF_STEP_PROLOGUE 0xffffu
#define MMF_FILE_DATA(f) (0xf0ull << 56 | (uint64_t)((f) + 1) << 48)
/* Pages a touch reaches at most (the model's MM_TOUCH_MAX_PAGES). */
#define MMF_TOUCH_PAGES 256
/* seen[] of a page a read did not reach */
#define MMF_NOT_SEEN UINT64_MAX

/* A call: the operation, its arguments, its range resolved into bytes, and
 * what the backend that ran it returned (an address, a count, 0 or -errno). */
struct mm_call {
	uint8_t code; /* enum mmf_code */
	struct mm_args a;
	uint64_t start, len;
	uint64_t to, to_len; /* mremap: the new address and length, resolved */
	int64_t result;
	void *proc;	/* the backend's hold on the process, between get and put */
	uint64_t value; /* touch write: the k-th page written holds value + k */
	/* touch read, when not NULL (MMF_TOUCH_PAGES entries, set to
	 * MMF_NOT_SEEN by the caller): what the k-th page held, for each page
	 * the read reached */
	uint64_t *seen;
};

extern const char *const mmf_prot_names[];
extern const char *const mmf_mmap_prot_names[];
/* mmap's prot field carries three mmap flags above r, w and x */
#define MMF_MAP_POPULATE 8
#define MMF_MAP_LOCKED 16
#define MMF_MAP_GROWSDOWN 32
extern const char *const mmf_kind_names[];
extern const char *const mmf_place_names[];
extern const char *const mmf_advice_names[];
extern const char *const mmf_access_names[];
extern const char *const mmf_uffd_mode_names[];
extern const char *const mmf_uffd_feature_names[];
extern const char *const mmf_algo_names[];
extern const char *const mmf_policy_names[];
extern const char *const mmf_diff_names[];
extern const char *const mmf_reader_names[];
extern const char *const mmf_remap_flag_names[];
extern const char *const mmf_remap_to_names[];
extern const char *const mmf_lock_names[];
extern const char *const mmf_mcl_names[];
extern const char *const mmf_lock_class_names[];
extern const char *const mmf_await_of_names[];
/* await's lock classes, in the order of mmf_lock_class_names */
enum mmf_lock_class {
	MMF_LC_MMAP,
	MMF_LC_VMA,
	MMF_LC_I_MMAP,
	MMF_LC_ANON_VMA,
	MMF_LC_UFFD,
	MMF_NLC
};

/* Advices, in the order of mmf_advice_names. */
enum mmf_advice_id {
	MMF_ADV_DONTNEED,
	MMF_ADV_DONTFORK,
	MMF_ADV_DOFORK,
	MMF_ADV_WIPEONFORK,
	MMF_ADV_KEEPONFORK,
	MMF_ADV_FREE,
	MMF_ADV_COLD,
	MMF_ADV_PAGEOUT,
	MMF_ADV_POPULATE_READ,
	MMF_ADV_POPULATE_WRITE,
	MMF_ADV_DONTNEED_LOCKED,
	MMF_NADVICE
};

/* The kernel's values of a call's prot, mmap flags and advice (and mremap's
 * and mlockall's flags, which are the program's bits as they are). */
int mmf_prot(uint8_t prot);
int mmf_mmap_flags(const struct mm_args *a);
int mmf_advice(uint8_t advice);
/* The mmap asks for its pages to be faulted in (MAP_POPULATE, MAP_LOCKED). */
bool mmf_populates(const struct mm_args *a);
/* delay and await: the thread's own business, no call of a process. */
bool mmf_is_thread_op(unsigned code);
/* Whether the operation's second field is a range to resolve. */
bool mmf_has_range(const struct prog_desc *d, unsigned code);

#define MMF_ARG(kind, prefix, max, names, field)                                                   \
	{                                                                                          \
		kind, prefix, max, names, #field, offsetof(struct mm_args, field)                  \
	}
#define MMF_F_PROC MMF_ARG(FK_SEL, "p", MMF_MAX_PROCS, NULL, proc)
#define MMF_F_RANGE MMF_ARG(FK_RANGE, NULL, 0, NULL, range)
#define MMF_F_PROT MMF_ARG(FK_FLAGS, NULL, 0, mmf_prot_names, prot)
#define MMF_F_UFFD MMF_ARG(FK_SEL, "h", MMF_FDS, NULL, handle)
#define MMF_F_CHOICE(names, field) MMF_ARG(FK_CHOICE, NULL, 0, names, field)

#define MMF_OPDESCS                                                                                \
	[MMF_OP_MMAP] = {"mmap",                                                                   \
			 "map the range (prot r, w, x, and the flags populate: MAP_POPULATE, "     \
			 "locked: MAP_LOCKED, growsdown: MAP_GROWSDOWN; kind: anon or file f<k>, " \
			 "private or shared; place: fixed, noreplace or hint)",                    \
			 6,                                                                        \
			 {MMF_F_PROC, MMF_F_RANGE,                                                 \
			  MMF_ARG(FK_FLAGS, NULL, 0, mmf_mmap_prot_names, prot),                   \
			  MMF_F_CHOICE(mmf_kind_names, kind),                                      \
			  MMF_ARG(FK_SEL, "f", MMF_FILES, NULL, file),                             \
			  MMF_F_CHOICE(mmf_place_names, place)}},                                  \
	[MMF_OP_MUNMAP] = {"munmap", "unmap the range", 2, {MMF_F_PROC, MMF_F_RANGE}},             \
	[MMF_OP_MPROTECT] = {"mprotect",                                                           \
			     "change protection of the range",                                     \
			     3,                                                                    \
			     {MMF_F_PROC, MMF_F_RANGE, MMF_F_PROT}},                               \
	[MMF_OP_MADVISE] = {"madvise",                                                             \
			    "advise the range",                                                    \
			    3,                                                                     \
			    {MMF_F_PROC, MMF_F_RANGE, MMF_F_CHOICE(mmf_advice_names, advice)}},    \
	[MMF_OP_TOUCH] = {"touch",                                                                 \
			  "fault every page of the range",                                         \
			  3,                                                                       \
			  {MMF_F_PROC, MMF_F_RANGE, MMF_F_CHOICE(mmf_access_names, access)}},      \
	[MMF_OP_UFFD_CREATE] = {"uffd_create",                                                     \
				"open a userfaultfd on the process (fork: with the fork event, "   \
				"remap: with the remap event) in its lowest free fd slot h<k>; "   \
				"the result is k",                                                 \
				2,                                                                 \
				{MMF_F_PROC, MMF_F_CHOICE(mmf_uffd_feature_names, features)}},     \
	[MMF_OP_UFFD_REGISTER] = {"uffd_register",                                                 \
				  "register the range with context h<k> in modes",                 \
				  4,                                                               \
				  {MMF_F_PROC, MMF_F_RANGE,                                        \
				   MMF_ARG(FK_FLAGS, NULL, 0, mmf_uffd_mode_names, modes),         \
				   MMF_F_UFFD}},                                                   \
	[MMF_OP_UFFD_UNREGISTER] = {"uffd_unregister",                                             \
				    "unregister the range from context h<k>",                      \
				    3,                                                             \
				    {MMF_F_PROC, MMF_F_RANGE, MMF_F_UFFD}},                        \
	[MMF_OP_UFFD_RELEASE] = {"uffd_release",                                                   \
				 "close context h<k>",                                             \
				 2,                                                                \
				 {MMF_F_PROC, MMF_F_UFFD}},                                        \
	[MMF_OP_FORK] = {"fork",                                                                   \
			 "fork the process (algorithm tree or append; anon_vma policy current or " \
			 "the reverted reuse; diff: also fork by the other algorithm and "         \
			 "compare)",                                                               \
			 4,                                                                        \
			 {MMF_F_PROC, MMF_F_CHOICE(mmf_algo_names, algo),                          \
			  MMF_F_CHOICE(mmf_policy_names, policy),                                  \
			  MMF_F_CHOICE(mmf_diff_names, diff)}},                                    \
	[MMF_OP_EXIT] = {"exit",                                                                   \
			 "the process exits: its fds close, its mm goes with its last user",       \
			 1,                                                                        \
			 {MMF_F_PROC}},                                                            \
	[MMF_OP_ROLLUP] = {"rollup",                                                               \
			   "read the process's smaps_rollup (reader mmap: under the mmap lock; "   \
			   "vma: under per-VMA locks) and check it",                               \
			   2,                                                                      \
			   {MMF_F_PROC, MMF_F_CHOICE(mmf_reader_names, reader)}},                  \
	[MMF_OP_UPROBE] = {"uprobe",                                                               \
			   "register a uprobe on each page of the range (the first 64), in turn, " \
			   "as a tracer attaching probes to a binary does: each walks the "        \
			   "private mappings of the file mapped there in every process (EINVAL "   \
			   "where no file is mapped)",                                             \
			   2,                                                                      \
			   {MMF_F_PROC, MMF_F_RANGE}},                                             \
	[MMF_OP_DELAY] = {"delay",                                                                 \
			  "the thread works apart for n<k> scheduling points (k+1 with k = 0: "    \
			  "one), shifting its later operations against the other threads'",        \
			  1,                                                                       \
			  {MMF_ARG(FK_U8, "n", 0, NULL, n)}},                                      \
	[MMF_OP_MAP_LIMIT] = {"map_limit",                                                         \
			      "set vm.max_map_count to the process's VMA count plus n<k>; the "    \
			      "model keeps the limit per process and a fork passes it on",         \
			      2,                                                                   \
			      {MMF_F_PROC, MMF_ARG(FK_U8, "n", 0, NULL, n)}},                      \
	[MMF_OP_MREMAP] = {"mremap",                                                               \
			   "resize the range to n<k> pages, in place or moved (maymove); fixed: "  \
			   "to the new address, dontunmap: keep the old range (mapped, empty); "   \
			   "the new address k<j>: the start of gap or VMA j (at_gap, at_vma), or " \
			   "j pages up or down from the old start, or where the range's page "     \
			   "offset puts its first page (home: an anonymous VMA's first address, "  \
			   "a file page's place in the window; j unused)",                         \
			   6,                                                                      \
			   {MMF_F_PROC, MMF_F_RANGE, MMF_ARG(FK_U8, "n", 0, NULL, n),              \
			    MMF_ARG(FK_FLAGS, NULL, 0, mmf_remap_flag_names, remap_flags),         \
			    MMF_F_CHOICE(mmf_remap_to_names, to),                                  \
			    MMF_ARG(FK_U8, "k", 0, NULL, k)}},                                     \
	[MMF_OP_MLOCK] = {"mlock",                                                                 \
			  "lock the range (mlock, or mlock2 with MLOCK_ONFAULT): VM_LOCKED, "      \
			  "its pages faulted in",                                                  \
			  3,                                                                       \
			  {MMF_F_PROC, MMF_F_RANGE, MMF_F_CHOICE(mmf_lock_names, lock)}},          \
	[MMF_OP_MUNLOCK] = {"munlock", "unlock the range", 2, {MMF_F_PROC, MMF_F_RANGE}},          \
	[MMF_OP_MLOCKALL] = {"mlockall",                                                           \
			     "lock every mapping (current) and every later one (future), "         \
			     "onfault: without faulting pages in",                                 \
			     2,                                                                    \
			     {MMF_F_PROC, MMF_ARG(FK_FLAGS, NULL, 0, mmf_mcl_names, mcl)}},        \
	[MMF_OP_MUNLOCKALL] = {"munlockall",                                                       \
			       "unlock every mapping, and later ones are no longer locked",        \
			       1,                                                                  \
			       {MMF_F_PROC}},                                                      \
	[MMF_OP_AWAIT] = {"await",                                                                 \
			  "the thread waits until the other threads have released a lock of "      \
			  "the class n<k> times (n0: once), then runs next; it goes "              \
			  "on without them when they can no longer come. any: any lock of the "    \
			  "class; of<j>: only file f<j>'s (i_mmap_rwsem) or process p<j>'s "       \
			  "(mmap_lock), any for the other classes",                                \
			  3,                                                                       \
			  {MMF_F_CHOICE(mmf_lock_class_names, lock_class),                         \
			   MMF_F_CHOICE(mmf_await_of_names, of),                                   \
			   MMF_ARG(FK_U8, "n", 0, NULL, n)}},

extern const struct prog_opdesc mmf_ops[MMF_NOPS];

/* fuzz_mm's programs (the kernel target kfuzz_vma runs them too). */
extern const struct prog_desc mm_desc;
/* ... on one thread: every operation on t0 (kfuzz_vma). */
extern const struct prog_desc mm_seq_desc;

#endif
