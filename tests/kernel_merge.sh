#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# mm/vma.c's merge decision, condition by condition (docs/kernel.md,
# "Coverage: mm/vma.c's merge decision"): fuzz_mm's seeds and regressions,
# replayed by kfuzz_vma's coverage build on Debian's 6.12, see every
# condition as the table of docs/kernel.md says (scripts/kernel-coverage.sh
# --check-merge), so a seed that stops covering a side, or a table that
# stops matching the tree, fails here. Then the check is shown firing: on
# the seeds without merge_nomem (commit_merge's failure no longer seen),
# and on a table with a row moved.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
cd "$ROOT" || exit 2
. tests/shlib

K=$(scripts/kernel-tree.sh 6.12 2>/dev/null) || { bad "no 6.12 tree"; finish; exit; }
kcov() { JOBS=${JOBS:-1} OUTDIR=$OUT scripts/kernel-coverage.sh --only kfuzz_vma --report "$T/rep" "$@" "$K"; }

n=$(grep -c '^| `[a-z_]*` | [0-9]*:[0-9]* |' docs/kernel.md)
[ "$n" -gt 50 ] && ok || bad "docs/kernel.md's merge-decision table has only $n rows"
expect 0 "merge-check: $n conditions as the table says, [1-9][0-9]* seen both ways" \
	kcov --seeds --check-merge docs/kernel.md
grep -Eq '^  merge-decision conditions of mm/vma.c: [1-9][0-9]*, seen both ways' "$T/out" && ok ||
	bad "kernel-coverage printed no count of the merge decision's conditions"
# the table says both ways exactly where the report does
want=$(grep -c '^| `[a-z_]*` | [0-9]*:[0-9]* | .* | yes | yes |' docs/kernel.md)
have=$(awk -F'\t' '$5 == "both"' "$T/rep/merge-conditions.txt" | wc -l)
[ "$want" -eq "$have" ] && ok || bad "the table says $want conditions both ways, the report $have"

# firing: the seeds without merge_nomem lose commit_merge's failure
mkdir -p "$T/seeds"
cp "$OUT"/corpus/fuzz_mm/* "$OUT"/regress/fuzz_mm/* "$T/seeds/"
[ -f "$T/seeds/merge_nomem" ] && ok || bad "no merge_nomem among the seeds"
rm -f "$T/seeds/merge_nomem"
expect 1 'vma_merge_existing_range [0-9]+:[0-9]+ `commit_merge\(.*is no longer seen true \(the table: seen both ways\)' \
	kcov --inputs "$T/seeds" --check-merge docs/kernel.md
grep -q 'merge-check: [1-9][0-9]* difference(s) from the table' "$T/out" && ok ||
	bad "the check did not count its differences"
# firing: a row moved to a place where the tree has no condition, and one
# whose condition is not the tree's
sed -e 's/^| `is_mergeable_vma` | 14:6 |/| `is_mergeable_vma` | 15:6 |/' \
	-e 's/^\(| `is_mergeable_vma` | 26:6 | `\)vma->vm_file != vmg->file`/\1vma->vm_file == vmg->file`/' \
	docs/kernel.md >"$T/table.md"
expect 1 'is_mergeable_vma 14:6 `!mpol_equal.*has no row in the table' \
	kcov --seeds --check-merge "$T/table.md"
grep -q "the table's is_mergeable_vma 15:6 .* is not a condition of the tree" "$T/out" && ok ||
	bad "a row of no condition went unseen"
grep -q 'is_mergeable_vma 26:6 is `vma->vm_file != vmg->file` in the tree' "$T/out" && ok ||
	bad "a row with another condition went unseen"
# a table with no rows at all is no pass
printf '# nothing\n' >"$T/empty.md"
expect 1 'the table has no row' kcov --seeds --check-merge "$T/empty.md"
finish
