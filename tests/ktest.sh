#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz repro --ktest (tools/ktest/) and scripts/ktest-run.sh: a
# kfuzz_mtree program written as a test of the kernel tree's own userland
# maple tree tests, built into that tree's test program (Debian's 6.12,
# from the machine's cache) and run there. A reverted fix's program
# (bugs/kernel-patches/) fails on the tree with the patch and passes on the
# tree without it, naming the step; a finding of bugs/kernel/ fails on the
# unpatched tree, which has it (a gap search's, a fork's); a seed passes.
# A kfuzz_vma program (fuzz_mm's) written as a test of the tree's
# tools/testing/vma program passes there on 6.12 and the current release,
# and fails on each with a planted bug (bugs/kernel-patches/vma/) at the
# step that shows it.
# What cannot be such a test (interleaved threads, an injected failure that
# fired, another target's program) and bad usage get exit status 2 and no
# file.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
. "$ROOT/tests/shlib"
cd "$ROOT"
V=$OUT/vmafuzz
export OUTDIR=$OUT

# the test's form
expect 0 '' "$V" repro --ktest bugs/kernel-patches/empty_area_rev_lower.txt -o "$T/lower.c"
if grep -q '^static void vmafuzz_empty_area_rev_lower(void)$' "$T/lower.c" &&
	grep -q 'ret = mas_empty_area_rev(&mas, 0x19, 0x23, 0x6);' "$T/lower.c" &&
	grep -q 'MT_BUG_ON(&mt\[0\], ret != -EBUSY);' "$T/lower.c" &&
	grep -q 'vmafuzz_check(&mt\[0\], want2, 2);' "$T/lower.c" &&
	grep -q '^ \*   gap mt0 @0x19:11 n=6 high$' "$T/lower.c" &&
	! grep -q 'SPDX-License-Identifier: GPL-2.0$' <(tail -n +2 "$T/lower.c"); then
	ok
else
	bad "the test's form"; head -n 40 "$T/lower.c"
fi
# stdout without -o, the same text
expect 0 '^static void vmafuzz_empty_area_rev_lower' "$V" repro --ktest \
	bugs/kernel-patches/empty_area_rev_lower.txt
cmp -s "$T/out" "$T/lower.c" && ok || bad "repro --ktest to stdout differs from -o"

# what cannot be a test: the step and why, exit 2, no file left
printf 'target fuzz_mtree\nstore mt0 @0x10:4 v1 fail_at=1\n' >"$T/failed.txt"
# (a fail_at the model's count never reaches may still have fired in the
# kernel run, whose preallocation takes more nodes)
printf 'target fuzz_mtree\nstore mt0 @0x10:4 v1 fail_at=200\n' >"$T/late.txt"
# (an RCU walk that a store lands in the middle of)
cp bugs/kernel-patches/append_rcu.txt "$T/threads.txt"
for c in "failed.txt:step 1 carries fail_at=1 and makes a store" \
	"late.txt:step 1 carries fail_at=200 and makes a store" \
	"threads.txt:step 5 \(store mt0 @0x3c:10 v4\) runs in the middle of step 4"; do
	f=${c%%:*} msg=${c#*:}
	rm -f "$T/none.c"
	expect 2 "vmafuzz repro: $T/$f: $msg" "$V" repro --ktest "$T/$f" -o "$T/none.c"
	[ ! -e "$T/none.c" ] && ok || bad "$f: a file was left"
done
printf 'target fuzz_mtree\nstore mt9 @0:1 v0\n' >"$T/bad.txt"
expect 2 "$T/bad.txt:2" "$V" repro --ktest "$T/bad.txt"
expect 2 'no such|cannot' "$V" repro --ktest "$T/missing.txt"
expect 2 'needs a program file' "$V" repro --ktest
expect 2 'is for --c, not --ktest' "$V" repro --ktest "$T/failed.txt" --kselftest
expect 2 'is for --ktest, not --c' "$V" repro --c "$T/failed.txt" --kernel "$T"
expect 2 "$T is no kernel build" "$V" repro --ktest bugs/kernel-patches/empty_area_rev_lower.txt \
	--kernel "$T"

# the runner's usage
R=scripts/ktest-run.sh
expect 2 'usage' $R 6.12
expect 2 "no test file" $R 6.12 "$T/missing.c"
echo 'int main(void) { return 0; }' >"$T/plain.c"
expect 2 'is no test of vmafuzz repro --ktest' $R 6.12 "$T/plain.c"
expect 2 "no patch file" $R --patch "$T/missing.patch" 6.12 "$T/lower.c"
printf -- '--- a/lib/maple_tree.c\n+++ b/lib/maple_tree.c\n@@ -1,1 +1,1 @@\n-no such line\n+x\n' \
	>"$T/stale.patch"
expect 2 "does not apply" $R --patch "$T/stale.patch" 6.12 "$T/lower.c"

# in the tree's test program: the reverted fix fails at the step that
# shows it, the tree without it passes
expect 1 "ktest: vmafuzz_empty_area_rev_lower fails in Linux 6\.12\.[0-9]+'s maple test program \(with empty_area_rev_lower\.patch\): at step 3: gap mt0 @0x19:11 n=6 high, lower\.c:[0-9]+: MT_BUG_ON\(&mt\[0\], ret != -EBUSY\);" \
	$R --patch bugs/kernel-patches/empty_area_rev_lower.patch 6.12 "$T/lower.c"
expect 0 "ktest: vmafuzz_empty_area_rev_lower passes in Linux 6\.12\.[0-9]+'s maple test program$" \
	$R 6.12 "$T/lower.c"
# a failure the sanitizers see in the kernel's code: the step that called it
"$V" repro --ktest bugs/kernel-patches/spanning_rebalance_insufficient.txt -o "$T/span.c"
expect 1 'at step 2: erase mt0 e11\+0:255, span\.c:[0-9]+: ret = mas_store_gfp\(&mas, NULL, GFP_KERNEL\); \(ERROR: AddressSanitizer: heap-buffer-overflow' \
	$R --patch bugs/kernel-patches/spanning_rebalance_insufficient.patch 6.12 "$T/span.c"
expect 0 'passes' $R 6.12 "$T/span.c"
# a finding the tree has as shipped (bugs/kernel/README.md), and a seed
"$V" repro --ktest bugs/kernel/maple_gap_rev_top_wrap.txt -o "$T/wrap.c"
expect 1 'at step 2: gap mt0 top-5:18 n=3 high, wrap\.c:[0-9]+: MT_BUG_ON\(&mt\[0\], ret != 0\);' \
	$R 6.12 "$T/wrap.c"
# dup_mmap's steps: the fork that walks its root entry twice
"$V" repro --ktest bugs/kernel/maple_store_root_restart.txt -o "$T/restart.c"
expect 1 'at step 2: fork mt0 mt1 dontcopy=0, restart\.c:[0-9]+: MT_BUG_ON\(&mt\[1\], !vmafuzz_seen\(want2, 1, i, index, last, entry\)\);' \
	$R 6.12 "$T/restart.c"
# the normal API's calls (the tree's own lock), the other write paths, a
# range walk from inside an empty range, a cyclic alloc: a correct tree
# passes
cat >"$T/locked.txt" <<-'END'
	target fuzz_mtree
	write mt0 @0x10:4 v1 locked entry then=0
	insert mt0 @0x20:2 v2
	alloc mt0 @0:255 n=3 n low v3
	walk_by mt0 @0x8:255 ranges
	walk_by mt0 @0x28:255 ranges_rev
	find_in mt0 @0x30:16 prev
	dup_locked mt0 mt1 then=0
	erase_locked mt0 @0x10:1 then=0
	destroy_locked mt1
	write mt2 @0x40:2 v4 nowait entry then=0
	alloc_cyclic mt2 @0x40:8 v5
END
"$V" repro --ktest "$T/locked.txt" -o "$T/locked.c"
grep -q 'mtree_store_range(&mt\[0\]' "$T/locked.c" && grep -q 'mas_find_range(&mas' "$T/locked.c" &&
	grep -q 'mtree_alloc_cyclic(&mt\[2\]' "$T/locked.c" && ok || bad "locked.c lacks the calls"
expect 0 'vmafuzz_locked passes' $R 6.12 "$T/locked.c"
# an existing -o file is left as it was when the program is refused
echo keep >"$T/kept.c"
expect 2 'carries fail_at' "$V" repro --ktest "$T/failed.txt" -o "$T/kept.c"
[ "$(cat "$T/kept.c")" = keep ] && ok || bad "a refused program overwrote -o"
# a seed of several threads taking turns (said in the test), with forks
expect 0 'note: several threads call the tree' "$V" repro --ktest corpus/fuzz_mtree/fork.txt \
	-o "$T/seed.c"
grep -q '^ \* Several threads call the tree' "$T/seed.c" && ok || bad "fork.c does not say so"
expect 0 'vmafuzz_fork passes' $R 6.12 "$T/seed.c"

# ---- kfuzz_vma: fuzz_mm's programs as tests of tools/testing/vma, on 6.12
# (callers of mm/vma.c in mm/mmap.c) and the current release (mmap_region
# in mm/vma.c, the tests in tests/)
# vma_build SPEC: the kernel build folder of a tree with kfuzz_vma (its probe
# and objects made when another test has not made them)
vma_build() {
	local tree dir
	tree=$(scripts/kernel-tree.sh "$1") && dir=$OUT/kernel/$(scripts/kernel-tree.sh --key "$tree") || return 1
	[ -f "$dir/vma_config.mk" ] ||
		make -s -C "$ROOT" KSRC="$tree" KSRC_RECORD=no OUTDIR="$OUT" JOBS="${JOBS:-2}" kernel-vma-objs-replay >"$T/build-$1.log" 2>&1 ||
		{ echo "ktest.sh: the vma build of $1 failed: $(tail -n 5 "$T/build-$1.log")" >&2; return 1; }
	echo "$dir"
}
K612=$(vma_build 6.12) || bad "no kfuzz_vma build of 6.12"
expect 0 '' "$V" repro --ktest corpus/fuzz_mm/advice_cycle.txt --kernel "$K612" -o "$T/advice.c"
if grep -q '^static bool vmafuzz_advice_cycle(void)$' "$T/advice.c" &&
	grep -q 'ASSERT_EQ(kvma_madvise(k, 0x200000022000, 0x4000, KVMA_MADV_DONTFORK), (int)0);' "$T/advice.c" &&
	grep -q '/\* 2: touch p0 e0+0:8 write -- not run: kfuzz_vma leaves it out \*/' "$T/advice.c" &&
	grep -q '^/\* ---- vmafuzz: paste this part above the #include' "$T/advice.c" &&
	grep -q 'layout vma-merge-api' "$T/advice.c"; then
	ok
else
	bad "the vma test's form"; grep -n 'vmafuzz_advice_cycle(void)' -A 20 "$T/advice.c" | head -n 30
fi
expect 0 "ktest: vmafuzz_advice_cycle passes in Linux 6\.12\.[0-9]+'s VMA test program$" $R 6.12 "$T/advice.c"
# a split that leaves the upper part the lower part's page offset: the step
# that splits, and what differs
expect 1 "ktest: vmafuzz_advice_cycle fails in Linux 6\.12\.[0-9]+'s VMA test program \(with split_upper_pgoff-6\.12\.patch\): at step 3: madvise p0 e0\+2:4 dontfork, advice\.c:[0-9]+: ASSERT_TRUE\(vmafuzz_vmas_are.* \(assertion failed: VMA 2 is 0x200000026000-0x200000030000 flags 0x[0-9a-f]+ pgoff 0x200000022, expected .* pgoff 0x200000026\)" \
	$R --patch bugs/kernel-patches/vma/split_upper_pgoff-6.12.patch 6.12 "$T/advice.c"
# a crash file's bytes in a kfuzz_vma folder: the same calls
mkdir -p "$T/work/kfuzz_vma/crashes"
"$V" compile corpus/fuzz_mm/advice_cycle.txt -o "$T/work/kfuzz_vma/crashes/crash-1" >/dev/null 2>&1
expect 0 '' "$V" repro --ktest "$T/work/kfuzz_vma/crashes/crash-1" --kernel "$K612" -o "$T/crash.c"
diff <(grep -A 400 'vmafuzz_crash_1(void)' "$T/crash.c" | tail -n +2) \
	<(grep -A 400 'vmafuzz_advice_cycle(void)' "$T/advice.c" | tail -n +2) >/dev/null &&
	ok || bad "the crash file's test differs from its program's"
# refused: a step with fail_at (the tree's program cannot fail an
# allocation); a build without kfuzz_vma (6.1 has no mm/vma.c)
rm -f "$T/none.c"
expect 2 "merge_nomem.txt: step 3 carries fail_at" "$V" repro --ktest corpus/fuzz_mm/merge_nomem.txt \
	--kernel "$K612" -o "$T/none.c"
[ ! -e "$T/none.c" ] && ok || bad "merge_nomem: a file was left"
expect 2 "is no kernel build with kfuzz_vma" "$V" repro --ktest corpus/fuzz_mm/advice_cycle.txt --kernel "$T"
# the current release: its own layout, in tests/ and main.c
KCUR=$(vma_build current) || bad "no kfuzz_vma build of the current release"
expect 0 '' "$V" repro --ktest corpus/fuzz_mm/advice_cycle.txt --kernel "$KCUR" -o "$T/advice-cur.c"
grep -q 'layout vma-mmap-region' "$T/advice-cur.c" && ok || bad "the current release's test names no layout"
expect 0 "ktest: vmafuzz_advice_cycle passes in Linux [0-9.]+'s VMA test program$" $R current "$T/advice-cur.c"
# pieces of two shared anonymous mappings side by side stay apart (each has
# its own shmem file, which the stubs do not give: the test does), and a
# step of another process is a comment
cat >"$T/shpieces.txt" <<-'END'
	target fuzz_mm
	mmap p0 @0x10:8 r,w shared f0 fixed
	munmap p0 @0x10:4
	mmap p0 @0x10:4 r,w shared f0 fixed
	mmap p1 @0x40:4 r,w private f0 fixed
END
expect 0 '' "$V" repro --ktest "$T/shpieces.txt" --kernel "$KCUR" -o "$T/shpieces.c"
grep -q '/\* 4: mmap p1 @0x40:4 r,w private f0 fixed -- not run: kfuzz_vma leaves it out \*/' "$T/shpieces.c" &&
	ok || bad "the other process's step is not a comment"
expect 0 "vmafuzz_shpieces passes" $R current "$T/shpieces.c"
curv=$(sed -n 's/^version //p' "$KCUR/tree")
if [ -f "bugs/kernel-patches/vma/split_upper_pgoff-${curv%.*}.patch" ]; then
	expect 1 "at step 3: madvise p0 e0\+2:4 dontfork, advice-cur\.c:[0-9]+: .*pgoff 0x200000022, expected .* pgoff 0x200000026" \
		$R --patch "bugs/kernel-patches/vma/split_upper_pgoff-${curv%.*}.patch" current "$T/advice-cur.c"
else
	echo "ktest.sh: no planted split bug for Linux $curv (bugs/kernel-patches/vma/): its check is not run" >&2
fi

# the trees were not written to
tree=$(scripts/kernel-tree.sh 6.12)
[ ! -e "$tree/tools/testing/radix-tree/maple" ] && [ ! -e "$tree/tools/testing/radix-tree/maple.o" ] &&
	[ ! -e "$tree/tools/testing/vma/vma" ] && [ ! -e "$tree/tools/testing/vma/vma.o" ] &&
	ok || bad "$tree was written to"

finish
