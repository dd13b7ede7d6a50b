/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How far a bug is from a seed: mutate one input N times (one call of the
 * mutator each, as libFuzzer's custom mutator makes it, from generator
 * seeds S, S+1, ...), run each mutant in a child process with the engine's
 * rules (programs an engine refuses are refused) and count the mutants
 * that fail. Run from a build with a planted bug, it says how often one
 * mutation of a seed finds that bug: what the known-bug suite's times are
 * made of, without the engine's scheduling. The first failing mutant is
 * written to ./first-failing-mutant. Used by the standalone replay driver
 * (`replay/<target> --mutants N [--seed S] FILE`).
 */
#ifndef VMAFUZZ_MUTANT_ODDS_H
#define VMAFUZZ_MUTANT_ODDS_H

#include "fuzz/targets/target.h"

#include <stdint.h>

/* Returns 0 (the count printed on stdout), or 2 when @path is unusable. */
int mutant_odds(const struct fuzz_target *t, const char *path, unsigned n, uint64_t seed);

#endif
