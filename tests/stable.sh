#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Determinism across inputs (what AFL++ calls stability): for every target,
# each seed (and regression input) runs in a fresh process, then after up
# to 64 other inputs, then again, in out/stable/<target> (fuzz/run/main_stable.c:
# edge coverage counted per run), and the three runs must hit every edge as
# many times. The kernel targets too when ./build.sh kernel has built them.
# The check is shown firing on a planted carry-over (make bug-stable
# BUG=test_carry_over: a static count in exec_begin that takes a branch in
# every second program), in its own view and as AFL++ compares, and its
# command line errors exit 2. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib

if ! make -s --no-print-directory stable >"$T/make.log" 2>&1; then
	bad "make stable"; tail -n 20 "$T/make.log"
	finish
	exit 1
fi

# stable TARGET BIN DIR...: BIN's runs of the inputs of the DIRs agree
stable() {
	local t=$1 bin=$2
	shift 2
	if "$bin" "$@" >"$T/$t.log" 2>&1 && grep -qE '^[1-9][0-9]* inputs, 0 vary$' "$T/$t.log"; then
		ok
	else
		bad "$t: the same input covers different edges in one process"
		head -n 40 "$T/$t.log"
	fi
}

for f in fuzz/targets/fuzz_*.c; do
	t=$(basename "$f" .c)
	dirs=("$OUT/corpus/$t")
	[ -d "$OUT/regress/$t" ] && dirs+=("$OUT/regress/$t")
	stable "$t" "$OUT/stable/$t" "${dirs[@]}"
done

# the kernel targets, when built (they run their model twin's seeds)
if [ -x "$OUT/kernel/libfuzzer/kfuzz_mtree" ]; then
	if make -s --no-print-directory kfuzz-stable >"$T/kmake.log" 2>&1; then
		for f in kernel/*/kfuzz_*.c; do
			t=$(basename "$f" .c)
			twin=$(sed -n 's|^/\* vmafuzz-twin: \([a-z_]*\).*|\1|p' "$f")
			dirs=("$OUT/corpus/$twin")
			[ -d "$OUT/regress/$t" ] && dirs+=("$OUT/regress/$t")
			stable "$t" "$OUT/kernel/stable/$t" "${dirs[@]}"
		done
	else
		bad "make kfuzz-stable"; tail -n 20 "$T/kmake.log"
	fi
else
	echo "(the kernel targets are not built: ./build.sh kernel; not checked)"
fi

# a planted carry-over is caught, in both views, and named where it is
if make -s --no-print-directory bug-stable BUG=test_carry_over >"$T/bug.log" 2>&1; then
	b=$OUT/bugs/test_carry_over/stable/fuzz_mtree
	expect 1 'in exec_begin .*fuzz/targets/exec\.c' "$b" "$OUT/corpus/fuzz_mtree"
	expect 1 '^[0-9]+ inputs, [1-9][0-9]* vary$' "$b" "$OUT/corpus/fuzz_mtree"
	expect 1 'vary \(as AFL\+\+ sees them\)' "$b" --afl "$OUT/corpus/fuzz_mtree"
	# one input is enough: it runs after itself
	one=$(ls "$OUT/corpus/fuzz_mtree" | head -n 1)
	expect 1 '^1 inputs, 1 vary$' "$b" "$OUT/corpus/fuzz_mtree/$one"
else
	bad "make bug-stable BUG=test_carry_over"; tail -n 20 "$T/bug.log"
fi

# the command line
S=$OUT/stable/fuzz_mtree
expect 0 'usage: .* \[--afl\] FILE\|DIR' "$S" --help
expect 2 'usage:' "$S"
expect 2 "unknown option '--frob'" "$S" --frob "$OUT/corpus/fuzz_mtree"
expect 2 "cannot open $T/missing" "$S" "$T/missing"
mkdir -p "$T/empty"
expect 2 'no inputs' "$S" "$T/empty"

finish
