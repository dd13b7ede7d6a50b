#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz race: the seeds with racing threads (rollup readers against a
# writer that unmaps, forks and mprotects; faults on three threads against
# mprotect, madvise and munmap) run for a few rounds on this kernel, exit 0,
# with their counts; the oracle's failure path (--selftest-fail: a lower
# bound no read meets) exits 1 with the round and the program; bad
# arguments and a malformed program exit 2. The oracle's arithmetic is
# tests/test_race_bounds.c's. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"

expect 0 'rollup.txt: 5 rounds, ops t0 7 t1 1 t2 3 t3 1, 10 rollup reads checked, 0 failures' \
	"$V" race --rounds 5 corpus/fuzz_mm/rollup.txt
grep -qE 'left out 1: only process p0 runs in a race' "$T/out" && ok ||
	bad "rollup.txt: p1's operations not counted as left out"
expect 0 'threads_faults.txt: 5 rounds, ops t0 1 t1 2 t2 2 t3 3, 0 rollup reads checked, 0 failures' \
	"$V" race --rounds 5 corpus/fuzz_mm/threads_faults.txt
expect 0 'threads_faults.txt: 3 rounds' \
	"$V" race --rounds 3 corpus/fuzz_mm/rollup.txt corpus/fuzz_mm/threads_faults.txt

# a failure: the round, the reason and the program, exit 1
expect 1 'round 1: the subject exited 1: operation [0-9]+ \(t[13] rollup\): Rss [0-9]+ kB below' \
	"$V" race --selftest-fail --rounds 3 corpus/fuzz_mm/rollup.txt
grep -q '^t2: munmap p0 e0+2:2$' "$T/out" && ok || bad "the failure does not print the program"
grep -q 'rollup.txt: 1 rounds, .* 1 failures' "$T/out" && ok || bad "the failure's counts"

# bad arguments and programs
expect 2 'needs a program file' "$V" race
expect 2 'unknown option' "$V" race --bogus corpus/fuzz_mm/rollup.txt
expect 2 'takes 1 to' "$V" race --rounds 0 corpus/fuzz_mm/rollup.txt
expect 2 'takes 1 to' "$V" race --rounds x corpus/fuzz_mm/rollup.txt
expect 2 'needs a number' "$V" race --rounds
printf 'target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\nt1: munmap p0 e0+0:2 sideways\n' >"$T/bad.txt"
expect 2 'bad.txt:3' "$V" race "$T/bad.txt"
expect 2 'missing.txt' "$V" race "$T/missing.txt"

finish
