#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A file that holds no program, or a malformed one, is refused by every
# command that reads programs (print, triage, minimize, regress, repro)
# with exit status 2 and a message naming the file and line: an empty
# file says it is empty (not "2 bytes", the empty program's size), a text
# program of comments alone says so, a parse error names line and column.
# A program inside a log (what vmafuzz fuzz prints of a crash it could not
# save, or a failure report) is read back from it, and a malformed or cut
# short one is named by the log's own line. Run by ./build.sh test with
# OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz
outdir=()
[ "$OUT" = "$ROOT/out" ] || outdir=(OUTDIR="$OUT")
GAP=$OUT/bugs/mt_gap_stale/replay
mkdir -p "$T/tree/corpus"

: >"$T/empty"
: >"$T/empty.txt"
printf '# a comment\n\n   # another\n' >"$T/comments.txt"
printf 'target fuzz_mm\n# fine so far\nmmap p0 bogus\n' >"$T/bad.txt"

# run CMD FILE: the command on FILE as each takes it (fuzz_mm's programs)
run() {
	local cmd=$1 file=$2
	case $cmd in
	print | triage | minimize) "$V" "$cmd" --target fuzz_mm "$file" ;;
	regress) "$V" regress --root "$T/tree" --target fuzz_mm "$file" ;;
	repro) "$V" repro --c "$file" -o "$T/repro.c" ;;
	esac
}

for cmd in print triage minimize regress repro; do
	expect 2 "$T/empty:1: the file is empty" run "$cmd" "$T/empty"
	expect 2 "$T/empty.txt:1: the file is empty" run "$cmd" "$T/empty.txt"
	grep -q '2 bytes' "$T/out" && bad "$cmd calls an empty file 2 bytes" || ok
	expect 2 "$T/comments.txt:1: no program in it, only blank lines and comments" run "$cmd" "$T/comments.txt"
	expect 2 "$T/bad.txt:3:9: range .bogus. needs" run "$cmd" "$T/bad.txt"
done
[ -e "$T/repro.c" ] && bad "repro wrote a C file for no program" || ok
[ -z "$(ls -A "$T/tree/corpus")" ] && ok || bad "regress stored something: $(ls -R "$T/tree/corpus")"
# triage names every file it refuses and still triages the others
cp corpus/fuzz_mm/advice_pages.txt "$T/good.txt"
expect 2 "1 file in 1 bucket" "$V" triage --target fuzz_mm "$T/good.txt" "$T/empty" "$T/bad.txt"
grep -q "$T/empty:1: the file is empty" "$T/out" && grep -q "$T/bad.txt:3:9: range .bogus. needs" "$T/out" &&
	grep -q '2 files of 3 hold no program' "$T/out" && ok || { bad "triage of three files"; cat "$T/out"; }

# ---- a program in a log
if ! make -s --no-print-directory -j2 "${outdir[@]}" bug-replay BUG=mt_gap_stale >"$T/make.log" 2>&1; then
	bad "make bug-replay BUG=mt_gap_stale"; tail -n 20 "$T/make.log"
	finish
	exit
fi
"$V" compile tests/triage/gap_stale_store.txt -o "$T/gap" >/dev/null || bad "compile gap_stale_store"
# a failure report in an engine's log, among other lines
{
	echo "INFO: Seed: 1"
	sh -c '"$0" "$1" 2>&1; exit 0' "$GAP/fuzz_mtree" "$T/gap" # (no "Aborted" line from this shell)
	echo "==1== more of the engine"
} >"$T/engine.log"
line=$(($(grep -n '^--- program (' "$T/engine.log" | cut -d: -f1) + 1))
expect 0 "^# $T/engine.log:$line: 12 operations, 154 bytes \\(the program in this log\\)" "$V" print "$T/engine.log"
"$V" print "$T/engine.log" | tail -n +2 >"$T/from_log.txt"
"$V" print --target fuzz_mtree "$T/gap" | tail -n +2 >"$T/from_bytes.txt"
cmp -s "$T/from_log.txt" "$T/from_bytes.txt" && ok || { bad "the log's program is not the crash's"; diff "$T/from_log.txt" "$T/from_bytes.txt"; }
expect 0 '^MT_GAP +1 ' "$V" triage --replay "$GAP" "$T/engine.log"
expect 0 '^# bucket: MT_GAP$' "$V" minimize --replay "$GAP" --max-runs 40 "$T/engine.log"
# vmafuzz fuzz's block for a crash it could not save; two of them
{
	echo "vmafuzz fuzz: the disk is full"
	echo "--- vmafuzz: unsaved crash crash-1 (fuzz_mtree): its program ---"
	cat "$T/from_bytes.txt"
	echo "--- vmafuzz: end of unsaved crash crash-1 ---"
	echo "--- vmafuzz: unsaved crash crash-2 (fuzz_mtree): its program ---"
	echo "target fuzz_mtree"
	echo "--- vmafuzz: end of unsaved crash crash-2 ---"
} >"$T/run.log"
expect 0 "^# $T/run.log:3: 12 operations, 154 bytes \\(the first of 2 programs in this log\\)" "$V" print "$T/run.log"
expect 0 '^MT_GAP +1 ' "$V" triage --replay "$GAP" "$T/run.log"
# a malformed program in a log: the log's line; one cut short: named so
sed 's/^store mt0 g0+0:end v1$/store mt0 g0+0:end v1 junk/' "$T/run.log" >"$T/badrun.log"
n=$(grep -n 'junk' "$T/badrun.log" | cut -d: -f1)
for cmd in print triage minimize; do
	expect 2 "$T/badrun.log:$n:[0-9]+: unexpected 'junk'" "$V" "$cmd" --target fuzz_mtree "$T/badrun.log"
done
head -n 6 "$T/run.log" >"$T/cut.log"
for cmd in print triage minimize; do
	expect 2 "$T/cut.log:3: the program from this line on is cut short" "$V" "$cmd" --target fuzz_mtree "$T/cut.log"
done
# repro reads a fuzz_mm program from a log too
{
	echo "--- vmafuzz: unsaved crash crash-3 (fuzz_mm): its program ---"
	cat corpus/fuzz_mm/advice_pages.txt
	echo "--- vmafuzz: end of unsaved crash crash-3 ---"
} >"$T/mm.log"
"$V" repro --c corpus/fuzz_mm/advice_pages.txt -o "$T/a.c" 2>/dev/null
expect 0 '' "$V" repro --c "$T/mm.log" -o "$T/b.c"
diff <(grep -v "$T/mm.log\|advice_pages.txt" "$T/a.c") <(grep -v "$T/mm.log\|advice_pages.txt" "$T/b.c") >/dev/null &&
	ok || bad "repro of the log's program differs from the program's"
finish
