#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel targets (kernel/, docs/kernel.md): built from the kernel tree
# scripts/kernel-tree.sh finds ($KSRC, else the recorded tree, else Debian's
# linux-source-6.12, installed as root), each tree's builds apart and the
# tree in use recorded; a tree without a part says so in one sentence; the
# backends' smoke tests pass, fuzz_mtree's seeds
# and regressions run clean on the kernel's maple tree with the model's tree
# as its shadow, fuzz_mm's on the kernel's mm/vma.c with the model as its,
# the tool finds the kernel drivers, every kernel finding in bugs/kernel/
# still fails as recorded, and the reverted fixes of bugs/kernel-patches/
# still apply (one is reproduced on its build).
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
. "$ROOT/tests/shlib"
cd "$ROOT"
V=$OUT/vmafuzz

if ! make -s -j"$(nproc 2>/dev/null || echo 2)" kernel >"$T/build.log" 2>&1; then
	bad "make kernel (the kernel targets) failed:"
	tail -n 30 "$T/build.log"
	finish
fi
ok
expect 0 ' passed, 0 failed' "$OUT/kernel/tests/test_tree_kernel"
expect 0 ' passed, 0 failed' "$OUT/kernel/tests/test_vma_kernel"
for t in kfuzz_mtree kfuzz_vma; do
	for f in "$OUT/kernel/replay/$t" "$OUT/kernel/libfuzzer/$t"; do
		[ -x "$f" ] && ok || bad "$f was not built"
	done
done
# fuzz_mm's seeds and regressions on the kernel's mm/vma.c, one thread,
# against the model (calls the kernel side cannot run run on neither)
n=$(find "$OUT/corpus/fuzz_mm" -type f | wc -l)
expect 0 "kfuzz_vma: $n inputs replayed, none failed" "$OUT/kernel/replay/kfuzz_vma" \
	"$OUT/corpus/fuzz_mm"
[ -d "$OUT/regress/fuzz_mm" ] &&
	expect 0 'none failed' "$OUT/kernel/replay/kfuzz_vma" "$OUT/regress/fuzz_mm"

# fuzz_mtree's seeds and regressions: clean on the kernel's tree too
n=$(find "$OUT/corpus/fuzz_mtree" -type f | wc -l)
[ "$n" -gt 5 ] && ok || bad "only $n fuzz_mtree seeds"
expect 0 "kfuzz_mtree: $n inputs replayed, none failed" "$OUT/kernel/replay/kfuzz_mtree" \
	"$OUT/corpus/fuzz_mtree"
for d in "$OUT/regress/fuzz_mtree" "$OUT/regress/kfuzz_mtree"; do
	[ -d "$d" ] || continue
	expect 0 'none failed' "$OUT/kernel/replay/kfuzz_mtree" "$d"
done
# each kernel target names its model twin, whose seeds it fuzzes from
for k in kernel/*/kfuzz_*.c; do
	tw=$(sed -n 's|^/\* vmafuzz-twin: \([a-z_]*\).*|\1|p' "$k" | head -n 1)
	[ -n "$tw" ] && [ -e "fuzz/targets/$tw.c" ] && [ -n "$(ls "$OUT/corpus/$tw" 2>/dev/null)" ] && ok ||
		bad "$k names no model twin with seeds ('$tw')"
done

# ---- trees: each tree's builds apart, the tree in use recorded, and what a
# tree cannot give said in one sentence (exit 2), never as a make error
key=$(readlink "$OUT/kernel/current")
[ -n "$key" ] && [ -f "$OUT/kernel/$key/tree" ] && ok || bad "out/kernel/current names no tree's builds"
[ "$(readlink -f "$OUT/kernel/replay")" = "$(readlink -f "$OUT/kernel/$key/replay")" ] && ok ||
	bad "out/kernel/replay does not lead to the tree in use ($key)"
K=$(sed -n 's/^path //p' "$OUT/kernel/$key/tree")
# a tree with the maple tree but no mm/: kfuzz_mtree builds, kfuzz_vma is a sentence
mkdir -p "$T/nomm"
for d in Makefile lib include tools scripts arch; do
	[ -e "$K/$d" ] && ln -s "$K/$d" "$T/nomm/$d"
done
kmake() { make -s --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" OUTDIR="$OUT" "$@"; }
expect 0 "kfuzz_vma cannot be built from $T/nomm \(Linux [0-9.]+\): .*mm/vma.c" \
	kmake kernel-notes KSRC="$T/nomm" KSRC_RECORD=no
nkey=$(scripts/kernel-tree.sh --key "$T/nomm")
[ "$nkey" != "$key" ] && ok || bad "a tree without mm/ has the same key as $K ($key)"
[ "$(readlink "$OUT/kernel/current")" = "$key" ] && ok || bad "KSRC_RECORD=no changed the tree in use"
expect 2 "kernel: kfuzz_vma cannot be built from $T/nomm" \
	kmake "$OUT/kernel/$nkey/replay/kfuzz_vma" KSRC="$T/nomm" KSRC_RECORD=no
grep -q 'No rule to make target' "$T/out" && bad "a raw make error for a part the tree lacks" || ok
expect 0 '' kmake "$OUT/kernel/$nkey/replay/kfuzz_mtree" KSRC="$T/nomm" KSRC_RECORD=no
[ -x "$OUT/kernel/$nkey/replay/kfuzz_mtree" ] && ok || bad "kfuzz_mtree was not built from $T/nomm"
expect 0 'none failed' "$OUT/kernel/$nkey/replay/kfuzz_mtree" "$OUT/corpus/fuzz_mtree"
# a tree given once sticks, until another is given
expect 0 '' kmake kernel-notes KSRC="$T/nomm"
[ "$(readlink "$OUT/kernel/current")" = "$nkey" ] && ok || bad "KSRC=$T/nomm was not recorded"
expect 0 "kfuzz_vma cannot be built from $T/nomm" kmake kernel-notes
[ "$(readlink "$OUT/kernel/current")" = "$nkey" ] && ok || bad "the recorded tree did not stick"
# the recorded tree gone, another given: its builds are its own, nothing of
# the other's is asked for
rm -rf "$T/nomm"
expect 0 "" kmake "$OUT/kernel/replay/kfuzz_mtree" KSRC="$K"
[ "$(readlink "$OUT/kernel/current")" = "$key" ] && ok || bad "KSRC=$K did not take the place of the gone tree"
# not a tree at all
expect 2 'not a folder, nor 6.1, 6.12 or current' kmake kernel-notes KSRC="$T/nothing"

# which of the kernel's lines the corpora reach: a figure per kernel file,
# the functions never run and the merge decision's conditions listed
expect 0 'lib/maple_tree.c +lines +[0-9.]+% \([1-9][0-9]*/[0-9]+\) +functions' scripts/kernel-coverage.sh
grep -Eq 'mm/vma.c +lines +[0-9.]+% \([1-9]' "$T/out" && ok || bad "kernel-coverage printed no line of mm/vma.c"
grep -q '^lib/maple_tree.c: ' "$OUT/kernel/$key/coverage-report/unreached.txt" && ok ||
	bad "kernel-coverage listed no unreached function of lib/maple_tree.c"
grep -Eq '^  merge-decision conditions of mm/vma.c: [1-9][0-9]*, seen both ways [0-9]+' "$T/out" &&
	[ -f "$OUT/kernel/$key/coverage-report/merge-conditions.txt" ] && ok ||
	bad "kernel-coverage did not read the merge decision's conditions"

# OSS-Fuzz's contract (libFuzzer + ASan) with a kernel tree: the kernel
# targets beside the model's, each with its twin's seeds, dictionary and
# options, running OSS-Fuzz's 4-input check
KTREE=$K
mkdir -p "$T/oss/out" "$T/oss/work"
if env CC=clang CXX=clang++ \
	CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize=fuzzer-no-link" \
	CXXFLAGS="-O1 -fsanitize=address -fsanitize=fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	OUT="$T/oss/out" WORK="$T/oss/work" KSRC="$KTREE" VMAFUZZ_NO_DEPS=1 ./build.sh >"$T/oss.log" 2>&1; then
	ok
else
	bad "OSS-Fuzz build with KSRC"; tail -n 20 "$T/oss.log"
fi
for k in kfuzz_mtree kfuzz_vma; do
	for f in "$k" "${k}_seed_corpus.zip" "$k.options" "$k.dict"; do
		[ -s "$T/oss/out/$f" ] && ok || bad "OSS-Fuzz output lacks $f"
	done
	if "$T/oss/out/$k" -runs=4 >"$T/oss-run.log" 2>&1 && grep -q 'Done 4 runs' "$T/oss-run.log"; then
		ok
	else
		bad "OSS-Fuzz $k does not run 4 inputs"; tail -n 20 "$T/oss-run.log"
	fi
done
rm -rf "$T/oss"
# ... and under MemorySanitizer, as OSS-Fuzz's MSan builder sets it up: the
# kernel's objects renamed and linked (no name twice in objcopy's list),
# the seeds of each twin running clean
mkdir -p "$T/msan"
if make -s --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" OUTDIR="$T/msan/out" \
	OSSFUZZ_OUT="$T/msan/o" KSRC="$K" KSRC_RECORD=no CC=clang CXX=clang++ \
	CFLAGS="-O1 -gline-tables-only -fsanitize=memory -fsanitize-memory-track-origins -fsanitize=fuzzer-no-link" \
	CXXFLAGS=-fsanitize=memory LIB_FUZZING_ENGINE=-fsanitize=fuzzer kfuzz-oss-fuzz >"$T/msan.log" 2>&1; then
	ok
	# (a scratch corpus first: libFuzzer writes into the first folder)
	mkdir -p "$T/msan/c"
	expect 0 'Done [0-9]+ runs' "$T/msan/o/kfuzz_vma" -runs=0 "$T/msan/c" "$OUT/corpus/fuzz_mm"
	expect 0 'Done [0-9]+ runs' "$T/msan/o/kfuzz_mtree" -runs=0 "$T/msan/c" "$OUT/corpus/fuzz_mtree"
else
	bad "MemorySanitizer build of the kernel targets"; tail -n 20 "$T/msan.log"
fi
rm -rf "$T/msan"

# the AFL++ flavor (./build.sh fuzz --afl kfuzz_mtree) runs a seed and
# fills AFL++'s map
if command -v afl-showmap >/dev/null 2>&1 && [ -x "$OUT/kernel/afl/kfuzz_mtree" ]; then
	seed=$(find "$OUT/corpus/fuzz_mtree" -type f | sort | head -n 1)
	expect 0 'Captured [1-9][0-9]* tuples' afl-showmap -o "$T/map" -- \
		"$OUT/kernel/afl/kfuzz_mtree" <"$seed"
fi
# and through the tool, which finds the driver in out/kernel/replay/
expect 0 '^kfuzz_mtree ' "$V" list
expect 0 'none failed' "$V" replay kfuzz_mtree "$OUT/corpus/fuzz_mtree"

# The known findings the adapter sidesteps (kernel/maple/kmt_known.h): a bad name
# is refused before any input, and the list it prints is the reproducers'.
expect 2 "unknown finding 'nosuch'; known: all, " env VMAFUZZ_SHOW_FINDINGS=nosuch \
	"$OUT/kernel/replay/kfuzz_mtree" "$OUT/corpus/fuzz_mtree"
known=$(VMAFUZZ_SHOW_FINDINGS=nosuch "$OUT/kernel/replay/kfuzz_mtree" 2>&1 |
	sed -n 's/.*known: all, //p' | tr -d ' ' | tr ',' '\n' | sort)
have=$(sed -n 's/^# finding: //p' bugs/kernel/*.txt bugs/kernel/older/*.txt | sort)
[ -n "$known" ] && [ "$known" = "$have" ] && ok ||
	bad "the sidestepped findings ($(echo $known)) are not those with a reproducer in bugs/kernel/ ($(echo $have))"

# every kernel finding still fails, and the same way, with its sidestep off;
# with it on (the default) the program runs clean (bugs/kernel/older/: the
# findings of older trees, which scripts/kernel-port-check.sh replays)
for txt in bugs/kernel/*.txt; do
	name=$(basename "$txt" .txt)
	finding=$(sed -n 's/^# finding: //p' "$txt" | head -n 1)
	[ -n "$finding" ] && ok || bad "bugs/kernel/$name has no '# finding:' line"
	expect 0 '' "$V" compile "$txt" -o "$T/$name"
	rc=0
	# (the subshell keeps bash's "Aborted" notice out of the output)
	(VMAFUZZ_SHOW_FINDINGS=$finding "$OUT/kernel/replay/kfuzz_mtree" "$T/$name" \
		>"$T/$name.log" 2>&1; exit $?) 2>/dev/null || rc=$?
	want=$(sed -n 's/^# expect: //p' "$txt" | head -n 1)
	if [ -z "$want" ]; then
		bad "bugs/kernel/$name has no '# expect:' line"
	elif [ "$rc" -ne 0 ] && grep -qF -- "$want" "$T/$name.log"; then
		ok
	else
		bad "bugs/kernel/$name no longer fails as recorded (exit $rc): a fixed tree? update bugs/kernel/README.md"
		tail -n 5 "$T/$name.log"
	fi
	expect 0 'none failed' "$OUT/kernel/replay/kfuzz_mtree" "$T/$name"
	# triage names the kernel's functions (their names before our renaming)
	b=$(sed -n 's/^# bucket names: //p' "$txt" | head -n 1)
	[ -z "$b" ] || expect 0 "$b" env VMAFUZZ_SHOW_FINDINGS=$finding \
		"$V" triage --target kfuzz_mtree "$T/$name"
	# the model's tree runs the same program clean
	expect 0 'none failed' "$OUT/replay/fuzz_mtree" "$T/$name"
done

# a tree without the pieces: each probe names the tree and what it lacks in
# one sentence, exit status 2 (the vma probe keeps it for vma.mk, which
# leaves kfuzz_vma out of make kernel then; scripts/kernel-port-check.sh
# checks that on a real tree)
mkdir -p "$T/notree"
expect 2 "^probe: kfuzz_mtree cannot be built from $T/notree \(version unknown\): it has no lib/maple_tree.c" \
	kernel/maple/probe.sh "${CC:-clang}" "$T/notree" "$OUT/kernel/gen" "$T/notree.mk"
expect 2 "^vma_probe: kfuzz_vma cannot be built from $T/notree \(version unknown\): it has no mm/vma.c, mm/vma.h, tools/testing/vma/vma_internal.h" \
	kernel/vma/probe.sh "${CC:-clang}" "$T/notree" "$OUT/kernel/gen" "" "$T/notree-vma.mk"
grep -q '^KVMA_UNSUPPORTED := kfuzz_vma cannot be built from' "$T/notree-vma.mk" && ok ||
	bad "the vma probe kept no KVMA_UNSUPPORTED for a tree without mm/vma.c"

# the known kernel bugs (bugs/kernel-patches/): every revert still applies
# to the tree, and one stored program fails on its patched build only
expect 0 'empty_area_rev_lower: applies' scripts/kernel-bugs.sh --check
expect 0 'empty_area_rev_lower: .* fails on the patched build' \
	scripts/kernel-bugs.sh --reproduce empty_area_rev_lower
finish
