#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The structure-aware mutator under the engines: libFuzzer finds and uses
# LLVMFuzzerCustomMutator/CustomCrossOver (and the plain build does not),
# and afl-fuzz loads out/afl/<target>-mutator.so, whose mutations (named
# "vmafuzz-..." by afl_custom_describe) reach the queue, with the CmpLog
# binary. The mutator itself: tests/test_mutator.c. Run by ./build.sh test
# with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib

targets=$(for f in fuzz/targets/fuzz_*.c; do basename "$f" .c; done)
make -s --no-print-directory libfuzzer libfuzzer-plain >"$T/make.log" 2>&1 || {
	bad "make libfuzzer libfuzzer-plain"; tail -n 20 "$T/make.log"
}

for t in $targets; do
	mkdir -p "$T/c-$t" "$T/p-$t"
	if "$OUT/libfuzzer/$t" -runs=2000 -seed=1 "$T/c-$t" "$OUT/corpus/$t" >"$T/lf.log" 2>&1 &&
		grep -q 'found LLVMFuzzerCustomMutator' "$T/lf.log" &&
		grep -qE 'MS: [0-9]+ .*Custom(CrossOver)?-' "$T/lf.log"; then
		ok
	else
		bad "libFuzzer $t does not use the custom mutator"; tail -n 20 "$T/lf.log"
	fi
	if "$OUT/libfuzzer-plain/$t" -runs=500 -seed=1 "$T/p-$t" "$OUT/corpus/$t" >"$T/lf.log" 2>&1 &&
		! grep -qE 'LLVMFuzzerCustomMutator|MS: .*Custom' "$T/lf.log"; then
		ok
	else
		bad "libfuzzer-plain/$t uses a custom mutator or fails"; tail -n 20 "$T/lf.log"
	fi
done

if ! command -v afl-fuzz >/dev/null 2>&1 || ! command -v afl-clang-fast >/dev/null 2>&1; then
	echo "AFL++ not installed: its custom mutator library is not checked"
	finish
	exit $?
fi

make -s --no-print-directory afl afl-cmplog >"$T/make.log" 2>&1 || {
	bad "make afl afl-cmplog"; tail -n 20 "$T/make.log"
}
t=fuzz_mtree
so=$OUT/afl/$t-mutator.so
for sym in afl_custom_init afl_custom_fuzz afl_custom_deinit afl_custom_describe \
	afl_custom_havoc_mutation afl_custom_init_trim afl_custom_trim afl_custom_post_trim; do
	nm -D --defined-only "$so" 2>/dev/null | grep -q " T $sym\$" && ok || bad "$so does not export $sym"
done
# nothing else leaks out of the library (built with -fvisibility=hidden)
if nm -D --defined-only "$so" | grep ' T ' | grep -qv ' T afl_custom_'; then
	bad "$so exports more than afl_custom_*"; nm -D --defined-only "$so" | grep ' T ' | head
else
	ok
fi
# a short afl-fuzz run with the library and CmpLog; what it leaves behind
# (AFL++ 4.04c can leave a stopped persistent-mode child) is ended by the
# mark in its environment, as ./build.sh fuzz --afl ends it
# (tools/campaign/run_afl.h)
AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
	AFL_CUSTOM_MUTATOR_LIBRARY="$so" VMAFUZZ_AFL_RUN="mutator-$$" \
	timeout -k 5 60 afl-fuzz -i "$OUT/corpus/$t" -o "$T/afl" -x "dict/$t.dict" \
	-c "$OUT/afl-cmplog/$t" -V 8 -- "$OUT/afl/$t" >"$T/afl.log" 2>&1
left=$(grep -slzxF "VMAFUZZ_AFL_RUN=mutator-$$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
# shellcheck disable=SC2086 # one pid a word
[ -z "$left" ] || kill -KILL $left 2>/dev/null
if grep -q "Loading custom mutator library from '$so'" "$T/afl.log" &&
	ls "$T/afl/default/queue" 2>/dev/null | grep -q 'vmafuzz'; then
	ok
else
	bad "afl-fuzz did not use $so"; tail -n 20 "$T/afl.log"
fi

finish
