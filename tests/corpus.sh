#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz corpus merge|min: libFuzzer's merge adds only inputs with new
# coverage, min drops duplicates and keeps the folder when it fails,
# afl-cmin and afl-tmin where installed, an input that crashes the merge is
# saved with its build named, and bad command lines exit 2. Run by
# ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"
# afl-cmin refuses to work under /tmp
W=$OUT/tests-work/corpus
rm -rf "$W"
mkdir -p "$W/a/corpus" "$W/a/more"
trap 'rm -rf "$T" "$W"' EXIT
n() { find "$1" -maxdepth 1 -type f ! -name '.*' | wc -l; }

expect 2 'needs merge or min' "$V" corpus
expect 2 "unknown subcommand 'shrink'" "$V" corpus shrink fuzz_mm "$W/a/corpus"
expect 2 "unknown target 'fuzz_nope'" "$V" corpus min fuzz_nope "$W/a/corpus"
expect 2 "$W/none: not a directory" "$V" corpus min fuzz_mm "$W/none"
expect 2 'merge needs a directory to merge into and one to merge from' "$V" corpus merge fuzz_mm "$W/a/corpus"
expect 2 '--tmin needs --afl' "$V" corpus min --tmin fuzz_mm "$W/a/corpus"
expect 2 '--afl and --tmin are for min' "$V" corpus merge --afl fuzz_mm "$W/a/corpus" "$W/a/more"
expect 2 "no libFuzzer build of fuzz_mm at $W/fuzz_mm" "$V" corpus min --build "$W" fuzz_mm "$W/a/corpus"

# min: every seed twice under two names; the copies go
for s in out/corpus/fuzz_mm/*; do
	cp "$s" "$W/a/corpus/"
	cp "$s" "$W/a/corpus/copy-$(basename "$s")"
done
seeds=$(n out/corpus/fuzz_mm)
expect 0 "corpus min fuzz_mm: $((2 * seeds)) inputs -> [0-9]+ in $W/a/corpus" "$V" corpus min fuzz_mm "$W/a/corpus"
left=$(n "$W/a/corpus")
[ "$left" -gt 0 ] && [ "$left" -le "$seeds" ] && ok ||
	bad "min kept $left of $((2 * seeds)) inputs (the $seeds seeds twice)"
[ -f "$W/a/corpus-min.log" ] && ok || bad "min left no log beside the corpus"

# merge: adds only what adds coverage; a second merge adds nothing
cp out/corpus/fuzz_mm/* "$W/a/more/"
expect 0 "corpus merge fuzz_mm: $W/a/corpus had $left inputs, has $left \\(0 added" \
	"$V" corpus merge fuzz_mm "$W/a/corpus" "$W/a/more"

# an input that crashes the merge is saved, with the build that found it
B=test_exit_frees_shared
if make -s --no-print-directory -j2 bug-libfuzzer BUG=$B >"$T/build.log" 2>&1; then
	mkdir -p "$W/b/corpus" "$W/b/new"
	"$V" compile tests/crash_kept/exit_shared.txt -o "$W/b/new/exit_shared" >/dev/null
	"$V" compile tests/crash_kept/no_fork.txt -o "$W/b/corpus/no_fork" >/dev/null
	"$V" corpus merge --build "$OUT/bugs/$B/libfuzzer" fuzz_fork "$W/b/corpus" "$W/b/new" \
		>"$T/merge.out" 2>&1
	c=$(find "$W/b/crashes" -name 'crash-*' | head -n 1)
	[ -n "$c" ] && ok || bad "the merge's crash was not saved in $W/b/crashes: $(cat "$T/merge.out")"
	[ -n "$c" ] && grep -q "^$(basename "$c") libfuzzer$" "$W/b/crashes/.builds" && ok ||
		bad "the merge's crash is not in crashes/.builds"
else
	bad "make bug-libfuzzer BUG=$B failed"
fi

# AFL++'s cmin and tmin
command -v afl-clang-fast >/dev/null &&
	make -s --no-print-directory -j2 out/afl/fuzz_mm >"$T/afl-build.log" 2>&1
case $(realpath "$OUT") in
/tmp* | /var/tmp*) # a checkout there: the tool says so before it runs afl-cmin
	mkdir -p "$W/t/corpus" && cp "$OUT"/corpus/fuzz_mm/* "$W/t/corpus/"
	[ -x "$OUT/afl/fuzz_mm" ] &&
		expect 2 'afl-cmin refuses to work under /tmp or /var/tmp, and .* is there' \
			"$V" corpus min --afl fuzz_mm "$W/t/corpus"
	tmp_checkout=1
	;;
*) tmp_checkout=0 ;;
esac
if [ "$tmp_checkout" = 0 ] && command -v afl-cmin >/dev/null && [ -x "$OUT/afl/fuzz_mm" ]; then
	mkdir -p "$W/c/corpus"
	for s in out/corpus/fuzz_mm/*; do
		cp "$s" "$W/c/corpus/"
		cp "$s" "$W/c/corpus/copy-$(basename "$s")"
	done
	expect 0 "corpus min fuzz_mm: $((2 * seeds)) inputs -> [0-9]+ in $W/c/corpus \\(afl-cmin\\)" \
		"$V" corpus min --afl fuzz_mm "$W/c/corpus"
	left=$(n "$W/c/corpus")
	[ "$left" -gt 0 ] && [ "$left" -le "$seeds" ] && ok ||
		bad "afl-cmin kept $left of $((2 * seeds)) inputs"
	mkdir -p "$W/d/corpus"
	cp out/corpus/fuzz_mm/map_limit "$W/d/corpus/"
	expect 0 'afl-cmin, afl-tmin on each' "$V" corpus min --afl --tmin fuzz_mm "$W/d/corpus"
	grep -q 'File size reduced' "$W/d/corpus-min.log" && ok || bad "afl-tmin did not run"
else
	echo "(afl-cmin or out/afl/fuzz_mm missing, or a checkout under /tmp: the AFL++ part is not run)"
fi
finish
