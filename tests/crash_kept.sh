#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A crash found is never lost, and the crash commands pick the build that
# found it. The planted test_exit_frees_shared (no kernel bug: exit frees
# pages another process still maps) makes the failure report meet freed
# memory when it dumps the state; the report must not read it again, or
# AddressSanitizer ends with "nested bug" before the engine saves the
# input. Under libFuzzer and AFL++ the input is saved, the report ends, the
# crash folder's .builds names the bug's build, and triage, replay and
# minimize use its replay driver unless --replay says otherwise. Run by
# ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"
B=test_exit_frees_shared
export VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT="$T/work" VMAFUZZ_STATUS_EVERY=5

if ! make -s --no-print-directory -j2 bug-libfuzzer bug-replay BUG=$B >"$T/build.log" 2>&1; then
	bad "make bug-libfuzzer bug-replay BUG=$B failed: $(tail -n 5 "$T/build.log")"
	finish
fi
mkdir -p "$T/corp" "$T/art" "$T/seeds"
"$V" compile tests/crash_kept/exit_shared.txt -o "$T/corp/exit_shared" >/dev/null
"$V" compile tests/crash_kept/no_fork.txt -o "$T/seeds/no_fork" >/dev/null

# 1. libFuzzer meets the failing program among its inputs: saved
"$OUT/bugs/$B/libfuzzer/fuzz_fork" -runs=10 -artifact_prefix="$T/art/" "$T/corp" >"$T/lf.log" 2>&1
ls "$T/art"/crash-* >/dev/null 2>&1 && ok || bad "libFuzzer saved no crash file: $(tail -n 3 "$T/lf.log")"
grep -q 'nested bug' "$T/lf.log" && bad "the report met freed memory again (nested bug)" || ok
grep -q -- '--- end of report ---' "$T/lf.log" && ok || bad "the failure report did not end"
# the dump names what it did not read
grep -q 'pages freed, not counted' "$T/lf.log" && ok || bad "the dump does not say what was freed"
# the seed that does not fail, does not
"$OUT/bugs/$B/replay/fuzz_fork" "$T/seeds/no_fork" >"$T/seed.log" 2>&1 && ok ||
	bad "no_fork fails under $B: $(tail -n 3 "$T/seed.log")"

# 2. ./build.sh fuzz --bug: libFuzzer finds it from a seed that does not fail
W=$T/work/fuzz_fork
expect 1 'crashes: [1-9][0-9]* new this run' ./build.sh fuzz --bug $B --seeds "$T/seeds" fuzz_fork 120
grep -q "planted bug $B" "$T/out" && ok || bad "build.sh fuzz does not say it runs the bug's build"
crash=$(find "$W/crashes" -name 'crash-*' | head -n 1)
if [ -z "$crash" ]; then
	bad "build.sh fuzz --bug saved no crash in $W/crashes"
else
	grep -q "^$(basename "$crash") bugs/$B/libfuzzer$" "$W/crashes/.builds" && ok ||
		bad ".builds does not name the bug's build: $(cat "$W/crashes/.builds" 2>&1)"
	# triage picks the bug's replay driver: the crash still fails there
	expect 0 'heap-use-after-free' "$V" triage "$W/crashes"
	grep -q 'no longer fails' "$T/out" && bad "triage did not use the bug's build" || ok
	# --replay overrides: the normal driver lacks the bug
	expect 0 'no longer fails' "$V" triage --replay "$OUT/replay" "$W/crashes"
	expect 1 'heap-use-after-free' "$V" replay fuzz_fork "$crash"
	expect 0 'none failed' "$V" replay --replay "$OUT/replay" fuzz_fork "$crash"
	expect 0 'heap-use-after-free' "$V" minimize --max-runs 200 -o "$T/min" "$crash"
	# a build whose replay driver is not there: named, with how to build it
	mkdir -p "$T/fuzz_fork"
	cp "$crash" "$T/fuzz_fork/"
	echo "$(basename "$crash") bugs/not_built/libfuzzer" >"$T/fuzz_fork/.builds"
	expect 2 'is not built \(build it: make bug-replay BUG=not_built' "$V" triage "$T/fuzz_fork"
	echo "$(basename "$crash") ../../elsewhere" >"$T/fuzz_fork/.builds"
	expect 2 "names build '../../elsewhere', which is none" "$V" minimize "$T/fuzz_fork/$(basename "$crash")"
fi

# 3. AFL++ too (its crash folders have .builds of their own)
if command -v afl-fuzz >/dev/null && command -v afl-clang-fast >/dev/null; then
	AFL_BENCH_UNTIL_CRASH=1 ./build.sh fuzz --afl --bug $B --seeds "$T/seeds" fuzz_fork 120 \
		>"$T/afl.log" 2>&1
	crash=$(find "$W/afl/default/crashes" -name 'id:*' 2>/dev/null | head -n 1)
	if [ -z "$crash" ]; then
		bad "AFL++ saved no crash: $(tail -n 8 "$T/afl.log")"
	else
		ok
		grep -qF "$(basename "$crash") bugs/$B/afl" "$W/afl/default/crashes/.builds" && ok ||
			bad "AFL++'s .builds does not name the bug's build"
		expect 0 'heap-use-after-free' "$V" triage "$W/afl"
	fi
else
	echo "(afl-fuzz not installed: the AFL++ half is not run)"
fi
finish
