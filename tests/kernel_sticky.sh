#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A tree given once sticks, and a crash stays its tree's: a user's tree
# with a bug planted in its lib/maple_tree.c (the reverted fix
# bugs/kernel-patches/empty_area_rev_lower.patch, in a tree of links to
# Debian's 6.12 with that one file copied) is given as KSRC to
# ./build.sh kernel; ./build.sh fuzz kfuzz_mtree, without KSRC, fuzzes that
# tree and finds the bug (its reproducer among the seeds), records the
# crash with that tree's build, names the tree; another tree is chosen;
# vmafuzz triage and regress still replay the crash on the tree that found
# it, and say how to rebuild it. The tree in use is given back at the end.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz

spec=$(sed -n 's/^tree //p' "$OUT/kernel/tree" 2>/dev/null)
K=$(scripts/kernel-tree.sh 6.12 2>/dev/null) || { bad "no 6.12 tree"; finish; exit; }
mine=$T/mytree
mkdir -p "$mine/lib"
for e in "$K"/*; do
	[ "$(basename "$e")" = lib ] || ln -s "$e" "$mine/$(basename "$e")"
done
cp "$K/lib/maple_tree.c" "$mine/lib/"
patch -p1 --quiet -d "$mine" <bugs/kernel-patches/empty_area_rev_lower.patch && ok ||
	bad "the planted bug does not apply"
mkey=$(scripts/kernel-tree.sh --key "$mine")
[ "$mkey" != "$(scripts/kernel-tree.sh --key "$K")" ] && ok || bad "the changed tree has 6.12's key"

# given once
export VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT=$T/work
expect 0 "Kernel tree in use: $mine" env KSRC="$mine" ./build.sh kernel
[ "$(readlink "$OUT/kernel/current")" = "$mkey" ] && ok || bad "KSRC=$mine is not the tree in use"

# fuzzing, without KSRC: that tree, the bug found, the crash its build's
mkdir -p "$T/seeds"
cp "$OUT/corpus/fuzz_mtree"/* "$T/seeds/"
"$V" compile bugs/kernel-patches/empty_area_rev_lower.txt -o "$T/seeds/empty_area_rev_lower"
./build.sh fuzz --seeds "$T/seeds" kfuzz_mtree 10 -- -runs=2000 >"$T/fuzz.log" 2>&1
grep -q "kernel tree: $mine (Linux " "$T/fuzz.log" && ok || bad "the run does not name the tree: $(head -n 3 "$T/fuzz.log")"
grep -q "tree:    $mine (Linux " "$T/fuzz.log" && ok || bad "the summary does not name the tree"
crashes=$T/work/kfuzz_mtree/crashes
n=$(find "$crashes" -maxdepth 1 -type f -name 'crash-*' | wc -l)
[ "$n" -ge 1 ] && ok || { bad "the planted bug was not found: $(tail -n 20 "$T/fuzz.log")"; }
grep -q "kernel/$mkey/libfuzzer" "$crashes/.builds" && ok || bad "the crash's build record names not the tree's build: $(cat "$crashes/.builds")"

# another tree chosen; the crash stays its tree's
expect 0 'Kernel tree in use: ' env KSRC=6.12 ./build.sh kernel
[ "$(readlink "$OUT/kernel/current")" != "$mkey" ] && ok || bad "KSRC=6.12 did not take the place of $mine"
expect 0 "TREE_BACKENDS_DIFFER +1 " "$V" triage "$crashes"
grep -q 'no longer fails' "$T/out" && bad "triage calls the crash fixed on another tree" || ok
crash=$(find "$crashes" -maxdepth 1 -type f -name 'crash-*' | head -n 1)
mkdir -p "$T/root/corpus"
expect 0 "" "$V" regress --root "$T/root" --why "planted in a user tree" "$crash"
ls "$T/root/corpus/regress/kfuzz_mtree/"*.txt >/dev/null 2>&1 && ok || bad "regress stored nothing"
# the build gone: triage says how to make it again, naming the tree
rm -rf "$OUT/kernel/$mkey/replay"
expect 2 "KSRC=$mine ./build.sh kernel" "$V" triage "$crashes"

# the tree in use given back
KSRC=${spec:-6.12} make -s --no-print-directory kernel-notes OUTDIR="$OUT" >/dev/null 2>&1
rm -rf "$OUT/kernel/$mkey"
finish
