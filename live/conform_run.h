/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One fuzz_mm program under vmafuzz conform: run in the model (the
 * reference: it resolves every range, conform_model.h) and, call by call, in
 * real processes of this kernel (live_backend.h), each model process standing
 * for one real one. After every operation, for every process alive on
 * either side: the result, every VMA of the window as smaps shows it
 * (range, permissions, offset, the VmFlags the model has a meaning for,
 * Rss, Anonymous, Pss, Pss_Dirty, Shared/Private Clean/Dirty),
 * smaps_rollup's figures for the window, and what every page holds: a write
 * stores a value naming the process and the step (MMF_VALUE, mm_ops.h), a
 * read returns what is there, so copy-on-write isolation, shared pages and
 * wipe-on-fork's zeros are checked too. A difference is printed with both
 * views side by side.
 */
#ifndef VMAFUZZ_CONFORM_RUN_H
#define VMAFUZZ_CONFORM_RUN_H

#include "fuzz/prog/prog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conform_opts {
	bool verbose, keep_going;
	bool flip_wf;	     /* --selftest-flip-wf: p0's wf wrong in the model's view */
	bool flip_child;     /* --selftest-flip-child-wf: the same in other processes */
	bool flip_pgoff;     /* --selftest-flip-child-pgoff: their offset column off by one */
	bool flip_data;	     /* --selftest-flip-child-data: their pages' data off by one */
	bool no_rollup;	     /* --no-rollup: smaps_rollup not compared */
	bool rollup_last;    /* smaps_rollup compared after the last operation only */
	bool no_zero_page;   /* the model forbids the zero page (the probe, or forced) */
	unsigned kver;	     /* the version the model follows (the probe, or forced); 0: newest */
	bool mark;	     /* --mark: "vmafuzz: op <op>" on stderr before each runs */
	bool commit_limited; /* vm.overcommit_memory = 2 (conform_probe_commit_limited) */
};

enum conform_outcome { CONFORM_AGREE, CONFORM_DIFFER, CONFORM_SKIPPED, CONFORM_FAILED };

#define CONFORM_REASONS 24

/* What the programs run did, for --random's distribution. */
struct conform_tally {
	uint64_t programs, ops;
	uint64_t child_ops;	  /* operations of processes other than p0 */
	uint64_t errors;	  /* operations whose result was an errno */
	uint64_t forks;		  /* forks that made a process */
	uint64_t progs_fork;	  /* programs with one */
	uint64_t progs_child_ops; /* programs in which a forked process acted */
	uint64_t exits, file_maps, shared_anon_maps, uffd_ops, map_limits, touches;
	uint64_t remaps, remap_moves; /* mremaps that succeeded, and moved */
	uint64_t locks;		      /* mlock, munlock, mlockall, munlockall that succeeded */
	uint64_t populating_maps;     /* mmaps with MAP_POPULATE or MAP_LOCKED */
	uint64_t stack_maps;	      /* mmaps with MAP_GROWSDOWN that succeeded */
	uint64_t rollups;	      /* smaps_rollup comparisons */
	uint64_t rollups_filled;      /* not made: the process held map_limit fillers */
	uint64_t rollups_unsteady;    /* not made: the pages outside the window kept changing */
	uint64_t pages_compared;      /* pages whose data was compared */
	uint64_t reads_compared;      /* pages a read touch returned, compared */
	uint64_t max_procs;	      /* most processes alive at once */
	uint64_t differ_ops;
	uint64_t forks_over_limit; /* forks the commit limit failed, the model's with them */
	/* operations refused (a random program draws another in their
	 * place), by reason: the refusing code's own sentence */
	struct {
		const char *why;
		uint64_t n;
	} refused[CONFORM_REASONS];
	unsigned nrefused;
};

/* Another operation in place of @op, which cannot run for real here (random
 * programs draw one; NULL: the program is skipped instead). */
struct conform_regen {
	void (*fn)(void *arg, struct prog_op *op);
	void *arg;
};

/*
 * Run @p under @name. CONFORM_AGREE (*nops: operations compared),
 * CONFORM_DIFFER (printed; *nops: the first step that differs), SKIPPED
 * (@why says why) or FAILED (said on stderr). @t, when not NULL, counts what
 * ran.
 */
enum conform_outcome conform_run(const struct prog_desc *d, struct prog *p, const char *name,
				 const struct conform_opts *o, const struct conform_regen *regen,
				 struct conform_tally *t, unsigned *nops, char *why, size_t whylen);

#endif
