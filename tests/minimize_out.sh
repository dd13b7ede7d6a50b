#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Nothing is written to the current folder but what -o names: minimize,
# run in an empty folder on a crash whose folder's .builds names the
# planted bug's build, writes OUT and nothing else (no .builds beside it);
# the text form names the build itself ('# build:'), so triage, replay and
# regress run it on that build from anywhere; the bytes say on stderr that
# the commands after need --replay. triage, print and replay there write
# nothing either. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz
outdir=()
[ "$OUT" = "$ROOT/out" ] || outdir=(OUTDIR="$OUT")

if ! make -s --no-print-directory -j2 "${outdir[@]}" bug-replay BUG=mt_gap_stale >"$T/make.log" 2>&1; then
	bad "make bug-replay BUG=mt_gap_stale"; tail -n 20 "$T/make.log"
	finish
	exit
fi
C=$T/found/fuzz_mtree
mkdir -p "$C" "$T/here" "$T/other"
"$V" compile tests/triage/gap_stale_raw.txt -o "$C/crash-gap" >/dev/null || bad "compile gap_stale_raw"
echo "crash-gap bugs/mt_gap_stale/libfuzzer" >"$C/.builds"
cd "$T/here" || exit 2

# left ONLY...: the current folder holds exactly these names
left() {
	local want have
	want=$(printf '%s\n' "$@" | sort)
	have=$(ls -A | sort)
	[ "$have" = "$want" ] && ok || bad "the current folder holds '$(echo $have)', want '$(echo $want)'"
}

expect 0 'fixed point' "$V" minimize -o min.txt "$C/crash-gap"
left min.txt
grep -qx '# build: bugs/mt_gap_stale/libfuzzer' min.txt && ok || bad "min.txt does not name its build: $(cat min.txt)"
expect 0 'fixed point' "$V" minimize -o min "$C/crash-gap"
grep -q 'min holds bytes, which cannot name the build .*--replay out/bugs/mt_gap_stale/replay' "$T/out" && ok ||
	{ bad "minimize -o BYTES does not say to give --replay"; cat "$T/out"; }
left min min.txt
expect 0 'fixed point' "$V" minimize -o - "$C/crash-gap"
left min min.txt
# the text's build is the one triage, replay and regress use, here and elsewhere
expect 0 '^MT_GAP +1 ' "$V" triage min.txt
cp min.txt "$T/other/moved.txt"
expect 0 '^MT_GAP +1 ' "$V" triage "$T/other/moved.txt"
expect 134 'invariant MT_GAP failed' "$V" replay fuzz_mtree min.txt
expect 0 '^no longer fails +1 ' "$V" triage --target fuzz_mtree min
expect 0 '^MT_GAP +1 ' "$V" triage --replay "$OUT/bugs/mt_gap_stale/replay" --target fuzz_mtree min
expect 0 'operations' "$V" print min.txt
left min min.txt
mkdir -p "$T/tree/corpus"
expect 0 "$T/tree/corpus/regress/fuzz_mtree/" "$V" regress --root "$T/tree" min.txt
left min min.txt
# a text with no build line and a folder without .builds: the normal driver
sed '/^# build:/d' min.txt >"$T/other/plain.txt"
expect 0 '^no longer fails +1 ' "$V" triage "$T/other/plain.txt"
[ -e "$T/other/.builds" ] && bad "something wrote $T/other/.builds" || ok
finish
