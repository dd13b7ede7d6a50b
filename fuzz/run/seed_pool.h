/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The starting programs, kept for the mutator to go back to.
 *
 * libFuzzer picks the input to mutate by its energy, and the energy of an
 * input falls as it runs longer than the corpus's average
 * (-entropic_scale_per_exec_time, which fuzz_mm needs for its speed) and as
 * it is mutated more. Once the corpus has grown to thousands of short
 * programs, a seed (long, with forks and threads: the structures most bugs
 * need) can go minutes between two picks, and whether a bug a mutation or
 * two from a seed is found in seconds or in minutes is down to the engine's
 * clock. The pool holds the seeds, read once at the start; the custom
 * mutator (main_engine.c) mutates one of them, each as likely as the next,
 * instead of the engine's pick one time in a few, so every seed keeps a
 * share of the mutations however large the corpus grows.
 *
 * A seed is a named file of a corpus directory on the command line (or in
 * VMAFUZZ_SEED_DIRS, for a -fork=N engine's workers: main_engine.c): what
 * libFuzzer adds to a corpus is named by its SHA-1 (40 hex digits), so a
 * file with another name is one somebody put there (out/corpus/<target>/,
 * a seed directory given with --seeds, a crash kept by name). Equal files
 * are kept once; files larger than the largest program are skipped. Not
 * thread-safe; the engine calls it from its one thread.
 */
#ifndef VMAFUZZ_SEED_POOL_H
#define VMAFUZZ_SEED_POOL_H

#include "fuzz/prog/prng.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most seeds kept (the first by name, directory by directory). */
#define SEED_POOL_MAX 256

/* Whether @name is one libFuzzer gives the inputs it adds (40 hex digits). */
bool seed_pool_engine_name(const char *name);

/* Add the seeds of directory @dir (files in name order; a path that is no
 * directory adds nothing). Returns how many were added. */
unsigned seed_pool_add_dir(const char *dir);

/* Add one seed's bytes (tests; seed_pool_add_dir uses it). False when the
 * pool is full, @size is too large or the same bytes are there. */
bool seed_pool_add(const uint8_t *data, size_t size);

unsigned seed_pool_count(void);

/* One seed, each as likely (NULL when the pool is empty); *size its length. */
const uint8_t *seed_pool_pick(struct prng *r, size_t *size);

/* Empty the pool (tests). */
void seed_pool_clear(void);

#endif
