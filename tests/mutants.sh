#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ./build.sh mutants, in small: a mutant the seeds kill is reported killed
# by them; one they do not kill is fuzzed and reported killed or survived,
# a survivor with its diff; the list and the table agree; bad command lines
# exit 2. The real run (100+ mutants, 60 s each) is for the notes
# (docs/mutation-testing.md). Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
export VMAFUZZ_NO_DEPS=1
R=out/mutants/report.csv

expect 2 "--only takes FILE:LINE:OP:COL, not an empty word" ./build.sh mutants --only ''
expect 2 "--n takes a number, not 'x'" ./build.sh mutants --n x
expect 2 "unknown target 'fuzz_nope'" ./build.sh mutants --target fuzz_nope
expect 2 "unknown argument '--frob'" ./build.sh mutants --frob
expect 2 '--only src/mm/exit.c:1:rel:1: no such mutant' ./build.sh mutants --only src/mm/exit.c:1:rel:1
expect 0 'mutation testing of the model' ./build.sh mutants --help

# the list: every operator, columns that name the text replaced
awk -f scripts/mutants-list.awk src/*/*.c >"$T/list"
for op in rel logic obo delete branch; do
	grep -qP "\t$op\t" "$T/list" && ok || bad "the list has no $op mutant"
done
badcol=0
while IFS=$'\t' read -r f l op c o r; do
	[ "$op" = delete ] && continue
	line=$(sed -n "${l}p" "$f")
	[ "${line:$((c - 1)):${#o}}" = "$o" ] || { badcol=1; echo "bad column: $f:$l:$op:$c"; }
done < <(awk 'NR % 7 == 1' "$T/list")
[ "$badcol" = 0 ] && ok || bad "a mutant's column does not name its text"

# A mutant by the line it changes, not its number, which other changes move;
# an empty answer would run every mutant: stop there.
mutant_at() { # FILE OP TEXT
	local l
	l=$(grep -nF -- "$3" "$1" | head -1 | cut -d: -f1)
	awk -F'\t' -v f="$1" -v l="$l" -v op="$2" '$1 == f && $2 == l && $3 == op { print $1 ":" $2 ":" $3 ":" $4; exit }' "$T/list"
}
e=$(mutant_at src/mm/exit.c rel 'MODEL_ASSERT(mm->map_count == 0);')
m=$(mutant_at src/mm/mmap.c obo 'mt_gap_lowest(&mm->mt, hint, hint + len - 1, len')
[ -n "$e" ] && [ -n "$m" ] && ok || { bad "the test's mutants are not in the list: '$e' '$m'"; finish; exit 1; }
# --only again names one more; each must be in the list
expect 2 '--only src/mm/exit.c:1:rel:1: no such mutant' ./build.sh mutants --only "$e" --only src/mm/exit.c:1:rel:1
# the map-count assertion of exit turned around: the seeds kill it
expect 0 'killed \(fuzz_fork:seeds, 0s\)' ./build.sh mutants --only "$e" --seconds 2
IFS=: read -r ef el eo ec <<<"$e"
grep -q "^1,$ef,$el,$eo,$ec,killed,fuzz_fork:seeds,0\$" "$R" && ok || bad "report.csv: $(cat "$R")"
# one the seeds let through: fuzzed (then asked of the kernel through
# fuzz_conform's seeds), and a survivor comes with its diff
expect 0 'mutants: 1, killed [01], survived [01], not built 0' ./build.sh mutants --only "$m" --seconds 3
if grep -q ',survived,' "$R"; then
	grep -q '^-.*hint + len - 1, len' out/mutants/survivors.md && grep -q '^+.*hint + len - 0, len' out/mutants/survivors.md &&
		ok || bad "a survivor without its diff: $(cat out/mutants/survivors.md)"
else
	grep -Eq ',killed,(fuzz_m[a-z]*:fuzz|fuzz_conform:seeds|tests:test_[a-z_]+)' "$R" && ok ||
		bad "neither killed by fuzzing, the kernel or the unit tests nor survived: $(cat "$R")"
fi
finish
