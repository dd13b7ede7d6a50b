#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ./build.sh coverage replays the seeds, libFuzzer corpora and AFL++
# queues (out/work/<target>/afl/*/queue) and names exactly the folders it
# replayed: an empty corpus is not named. Run by ./build.sh test with OUT
# and ROOT set; without llvm-cov and llvm-profdata it says so and passes.
set -u
cd "$ROOT"
. tests/shlib
if ! command -v llvm-cov >/dev/null || ! command -v llvm-profdata >/dev/null; then
	echo "(llvm-cov or llvm-profdata missing: install the llvm package; not run)"
	ok
	finish
fi
W=$T/work
mkdir -p "$W/fuzz_mtree/corpus" "$W/fuzz_mtree/afl/main/queue/.state" "$W/fuzz_mm/corpus"
cp out/corpus/fuzz_mtree/edges out/corpus/fuzz_mtree/fork "$W/fuzz_mtree/corpus/"
cp out/corpus/fuzz_mtree/gap_search "$W/fuzz_mtree/afl/main/queue/id:000000,orig:gap_search"
cp out/corpus/fuzz_mtree/dup_failures "$W/fuzz_mtree/afl/main/queue/id:000001,src:000000"
echo state >"$W/fuzz_mtree/afl/main/queue/.state/x"

expect 0 'HTML report: .*/out/coverage/html/index.html' env VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT="$W" \
	./build.sh coverage
grep -qx "  $W/fuzz_mtree/afl/main/queue (2)" "$T/out" && ok ||
	bad "coverage did not name the AFL++ queue it replayed: $(grep -A8 'inputs of' "$T/out")"
grep -qx "  $W/fuzz_mtree/corpus (2)" "$T/out" && ok || bad "coverage did not name the libFuzzer corpus"
grep -qx '  out/corpus/fuzz_mm ([0-9]*)' "$T/out" && ok || bad "coverage did not name fuzz_mm's seeds"
grep -q "$W/fuzz_mm/corpus" "$T/out" && bad "coverage named an empty corpus" || ok
grep -qE '^   src/mm/mmap.c +lines +[0-9.]+% ' "$T/out" && ok || bad "no per-file line coverage"
finish
