/*
 * What fuzz_mm (and the conform tool, which runs the same calls in a real
 * process) share: the state of a program, argument resolution against live
 * VMAs, one call of the model with its arguments resolved, and the checks.
 */
#ifndef VMAFUZZ_MM_FUZZ_H
#define VMAFUZZ_MM_FUZZ_H

#include "exec.h"
#include "mm/types.h"
#include "prog.h"

#include <stdint.h>
#include <stdio.h>

#define MMF_MAX_PROCS 8
#define MMF_FILES 4
/* The window every mapping of a program lives in (free in real processes too). */
#define MMF_WINDOW_LO 0x200000000000ull
#define MMF_WINDOW_PAGES 0x40000ull /* 1 GiB */
#define MMF_WINDOW_HI (MMF_WINDOW_LO + (MMF_WINDOW_PAGES << PAGE_SHIFT))

extern const char *const mmf_prot_names[];
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

enum mmf_kind { MMF_PRIVATE_ANON, MMF_SHARED_ANON, MMF_PRIVATE_FILE, MMF_SHARED_FILE };
enum mmf_place { MMF_FIXED, MMF_NOREPLACE, MMF_HINT };

#define MMF_FDS 8
/* Probes one uprobe operation registers at most (a range may be 1 GiB). */
#define MMF_UPROBE_MAX 64

struct mmf_state {
	struct mm *mm[MMF_MAX_PROCS];
	struct file *files[MMF_FILES];
	struct uffd_ctx *fd[MMF_MAX_PROCS][MMF_FDS]; /* open userfaultfds */
};

enum mmf_op {
	MMF_MMAP,
	MMF_MUNMAP,
	MMF_MPROTECT,
	MMF_MADVISE,
	MMF_TOUCH,
	MMF_UFFD_CREATE,
	MMF_UFFD_REGISTER,
	MMF_UFFD_UNREGISTER,
	MMF_UFFD_RELEASE,
	MMF_FORK,
	MMF_EXIT,
	MMF_ROLLUP,
	MMF_UPROBE,
	MMF_MAP_LIMIT,
};

/* A call with its arguments resolved: what the model and a real process run. */
struct mmf_call {
	enum mmf_op op;
	uint64_t start, len; /* bytes */
	uint8_t prot;	     /* bit 0 read, 1 write, 2 exec */
	uint8_t kind, file, place, advice;
	bool write;
	uint8_t handle;		    /* userfaultfd: the fd slot (mod MMF_FDS) */
	uint8_t modes;		    /* userfaultfd register modes, or create features */
	uint8_t algo, policy, diff; /* fork */
	uint8_t reader;		    /* rollup: enum rollup_reader */
	uint8_t limit;		    /* map_limit: VMAs allowed above the count */
	int64_t result;		    /* what the model returned */
};

/* 0, or -ENOMEM when the first process cannot be made. */
int mmf_init(struct mmf_state *s);
/* Check everything at rest, destroy all, and check nothing is alive. */
void mmf_finish(struct mmf_state *s);
/* Resolve a range spec against @mm's VMAs and gaps inside the window. */
void mmf_resolve(struct mm *mm, const uint8_t *spec, uint64_t *start, uint64_t *len);
/* The kernel's values for a call's prot, mmap flags and advice. */
int mmf_prot(uint8_t prot);
int mmf_mmap_flags(const struct mmf_call *c);
int mmf_advice(uint8_t advice);
/* The process's mm with a reference held (mmget), or NULL; and its release. */
struct mm *mmf_get(struct mmf_state *s, unsigned p);
void mmf_put(struct mmf_state *s, struct mm *mm);
/* Run a call of process @p in the model; sets c->result. */
void mmf_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mmf_call *c);
void mmf_check(struct mmf_state *s);
void mmf_dump(FILE *out, struct mmf_state *s);

/*
 * The operations of fuzz_mm, shared with fuzz_fork (which adds its own after
 * MMF_NOPS): codes, their argument fields (an initializer list, so a
 * target can extend the table), and the function that runs one.
 */
enum {
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
	MMF_NOPS
};

#define MMF_F_PROC                                                                                 \
	{                                                                                          \
		FK_SEL, "p", MMF_MAX_PROCS, NULL                                                   \
	}
#define MMF_F_RANGE                                                                                \
	{                                                                                          \
		FK_RANGE, NULL, 0, NULL                                                            \
	}
#define MMF_F_PROT                                                                                 \
	{                                                                                          \
		FK_FLAGS, NULL, 0, mmf_prot_names                                                  \
	}
#define MMF_F_UFFD                                                                                 \
	{                                                                                          \
		FK_SEL, "h", 8, NULL                                                               \
	}

#define MMF_OPDESCS                                                                                \
	[MMF_OP_MMAP] = {"mmap",                                                                   \
			 "map the range (kind: anon or file f<k>, private or shared; place: "      \
			 "fixed, noreplace or hint)",                                              \
			 6,                                                                        \
			 {MMF_F_PROC,                                                              \
			  MMF_F_RANGE,                                                             \
			  MMF_F_PROT,                                                              \
			  {FK_CHOICE, NULL, 0, mmf_kind_names},                                    \
			  {FK_SEL, "f", MMF_FILES, NULL},                                          \
			  {FK_CHOICE, NULL, 0, mmf_place_names}}},                                 \
	[MMF_OP_MUNMAP] = {"munmap", "unmap the range", 2, {MMF_F_PROC, MMF_F_RANGE}},             \
	[MMF_OP_MPROTECT] = {"mprotect",                                                           \
			     "change protection of the range",                                     \
			     3,                                                                    \
			     {MMF_F_PROC, MMF_F_RANGE, MMF_F_PROT}},                               \
	[MMF_OP_MADVISE] = {"madvise",                                                             \
			    "advise the range",                                                    \
			    3,                                                                     \
			    {MMF_F_PROC, MMF_F_RANGE, {FK_CHOICE, NULL, 0, mmf_advice_names}}},    \
	[MMF_OP_TOUCH] = {"touch",                                                                 \
			  "fault every page of the range",                                         \
			  3,                                                                       \
			  {MMF_F_PROC, MMF_F_RANGE, {FK_CHOICE, NULL, 0, mmf_access_names}}},      \
	[MMF_OP_UFFD_CREATE] = {"uffd_create",                                                     \
				"open a userfaultfd on the process (fork: with the fork event) "   \
				"in its lowest free fd slot h<k>; the result is k",                \
				2,                                                                 \
				{MMF_F_PROC, {FK_CHOICE, NULL, 0, mmf_uffd_feature_names}}},       \
	[MMF_OP_UFFD_REGISTER] =                                                                   \
	    {"uffd_register",                                                                      \
	     "register the range with context h<k> in modes",                                      \
	     4,                                                                                    \
	     {MMF_F_PROC, MMF_F_RANGE, {FK_FLAGS, NULL, 0, mmf_uffd_mode_names}, MMF_F_UFFD}},     \
	[MMF_OP_UFFD_UNREGISTER] = {"uffd_unregister",                                             \
				    "unregister the range from context h<k>",                      \
				    3,                                                             \
				    {MMF_F_PROC, MMF_F_RANGE, MMF_F_UFFD}},                        \
	[MMF_OP_UFFD_RELEASE] = {"uffd_release",                                                   \
				 "close context h<k>",                                             \
				 2,                                                                \
				 {MMF_F_PROC, MMF_F_UFFD}},                                        \
	[MMF_OP_FORK] =                                                                            \
	    {"fork",                                                                               \
	     "fork the process (algorithm tree or append; anon_vma policy current or the "         \
	     "reverted reuse; diff: also fork by the other algorithm and compare)",                \
	     4,                                                                                    \
	     {MMF_F_PROC,                                                                          \
	      {FK_CHOICE, NULL, 0, mmf_algo_names},                                                \
	      {FK_CHOICE, NULL, 0, mmf_policy_names},                                              \
	      {FK_CHOICE, NULL, 0, mmf_diff_names}}},                                              \
	[MMF_OP_EXIT] = {"exit",                                                                   \
			 "the process exits: its fds close, its mm goes with its last user",       \
			 1,                                                                        \
			 {MMF_F_PROC}},                                                            \
	[MMF_OP_ROLLUP] = {"rollup",                                                               \
			   "read the process's smaps_rollup (reader mmap: under the mmap lock; "   \
			   "vma: under per-VMA locks) and check it",                               \
			   2,                                                                      \
			   {MMF_F_PROC, {FK_CHOICE, NULL, 0, mmf_reader_names}}},                  \
	[MMF_OP_UPROBE] =                                                                          \
	    {"uprobe",                                                                             \
	     "register a uprobe on each page of the range (the first 64), in turn, as "            \
	     "a tracer attaching probes to a binary does: each walks the private "                 \
	     "mappings of the file mapped there in every process (EINVAL where no "                \
	     "file is mapped)",                                                                    \
	     2,                                                                                    \
	     {MMF_F_PROC, MMF_F_RANGE}},                                                           \
	[MMF_OP_DELAY] = {"delay",                                                                 \
			  "the thread works apart for n<k> scheduling points (k+1 with k = 0: "    \
			  "one), shifting its later operations against the other threads'",        \
			  1,                                                                       \
			  {{FK_U8, "n", 0, NULL}}},                                                \
	[MMF_OP_MAP_LIMIT] = {"map_limit",                                                         \
			      "set vm.max_map_count to the process's VMA count plus n<k>; the "    \
			      "model keeps the limit per process and a fork passes it on",         \
			      2,                                                                   \
			      {MMF_F_PROC, {FK_U8, "n", 0, NULL}}},

extern const struct prog_opdesc mmf_ops[MMF_NOPS];

struct prog_op;
/* Run a whole program of an mm target: state, threads, checks at rest after
 * every operation, and the end (everything gone). @op_fn gets the state.
 * @fork_code is the target's own fork operation (besides MMF_OP_FORK); the
 * argument MMF_FORK_POLICY_ARG of both picks the anon_vma policy: under an engine a program
 * asking for the reverted one is refused (-1; see mm_fuzz.c). */
#define MMF_FORK_POLICY_ARG 2
int mmf_run_program(const struct prog_desc *d, unsigned fork_code, exec_op_fn op_fn,
		    const uint8_t *data, size_t size);
/* The same, with @prologue run on the fresh state before the program. */
int mmf_run_program_after(const struct prog_desc *d, unsigned fork_code,
			  void (*prologue)(struct mmf_state *s), exec_op_fn op_fn,
			  const uint8_t *data, size_t size);
/* Run one fuzz_mm operation (code < MMF_NOPS) of a program; an errno the
 * kernel would return is fine, the invariants judge the state. */
void mmf_run_op(struct mmf_state *s, const struct prog_op *op);

#endif
