#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every seed of every target does what tests/seed_outcomes.txt recorded:
# the same exit status and the same trace (each operation's result, in
# the schedule's order), line for line (scripts/seed-outcomes.sh). A change
# that moves or reshapes code keeps it; a change of behaviour records it
# again on purpose, and the diff of the record shows which seeds it moved:
#
#   scripts/seed-outcomes.sh --kernel >tests/seed_outcomes.txt
#
# The kernel targets' lines are compared when they are built from Debian's
# 6.12 tree, which the record was made with; the model's always.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
cd "$ROOT"
. tests/shlib

rec=tests/seed_outcomes.txt
args=()
want=$(grep -v '^kfuzz_' "$rec")
if [ -x "$OUT/kernel/replay/kfuzz_mtree" ] && grep -q "^version 6\.12\." "$OUT/kernel/current/tree" 2>/dev/null; then
	args=(--kernel)
	want=$(cat "$rec")
fi
have=$(scripts/seed-outcomes.sh "${args[@]}" "$OUT")
n=$(grep -c . <<<"$want")
[ "$n" -gt 150 ] && ok || bad "the record has only $n seeds"
if [ "$have" = "$want" ]; then
	ok "$n seeds$([ ${#args[@]} -gt 0 ] && echo ', the kernel targets'"'"' too,') as recorded"
else
	diff <(echo "$want") <(echo "$have") | head -n 20
	bad "seeds differ from $rec (above: < recorded, > now)"
fi

# a seed that behaves otherwise is seen: the record with one line changed
sed '1s/ [0-9a-f]*$/ 0000000000000000/' "$rec" >"$T/rec"
first=$(head -n 1 "$rec" | cut -d' ' -f1,2)
have_first=$(grep -F "$first " <<<"$have" | head -n 1)
[ -n "$have_first" ] && [ "$have_first" != "$(head -n 1 "$T/rec")" ] && ok ||
	bad "a changed line of the record went unseen"
finish
