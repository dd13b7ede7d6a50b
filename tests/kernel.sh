#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel targets (kernel/, docs/kernel.md): built from the kernel tree
# scripts/kernel-tree.sh finds ($KSRC, else Debian's linux-source-6.12,
# installed as root), the backends' smoke tests pass, fuzz_mtree's seeds
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

# OSS-Fuzz's contract (libFuzzer + ASan) with a kernel tree: the kernel
# targets beside the model's, each with its twin's seeds, dictionary and
# options, running OSS-Fuzz's 4-input check
KTREE=$(OUTDIR=$OUT scripts/kernel-tree.sh 2>/dev/null)
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
