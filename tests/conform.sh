#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz conform: the model against this machine's kernel. Every seed of
# fuzz_mm that runs for real must agree (the others are reported as skipped),
# so must 200 generated programs, a deliberately wrong model view
# (--selftest-flip-wf) must be caught, and bad command lines get status 2.
# Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"


# the command line
expect 0 'usage: vmafuzz conform' "$V" conform --help
expect 2 'needs files or --random N' "$V" conform
expect 2 "unknown option '--bogus'" "$V" conform --bogus x.txt
expect 2 "not a positive number: '0'" "$V" conform --random 0
expect 2 '--ops takes 1..128' "$V" conform --random 1 --ops 129
expect 2 'not both' "$V" conform --random 1 corpus/fuzz_mm/advice_cycle.txt
expect 2 'No such file' "$V" conform "$T/missing.txt"

# every seed: it agrees, or it is one the kernel cannot run and says why
n=0
for txt in corpus/fuzz_mm/*.txt; do
	[ -e "$txt" ] || continue
	expect 0 "^conform: $txt: ([0-9]+ operations agree|skipped: .+)\$" "$V" conform "$txt"
	grep -q 'operations agree' "$T/out" && n=$((n + 1))
done
# the seeds written for it run on any kernel (writes only, free hints)
for s in conform_errors anon_vma_merge hint_free conform_fork; do
	expect 0 "^conform: corpus/fuzz_mm/$s.txt: [0-9]+ operations agree\$" \
		"$V" conform "corpus/fuzz_mm/$s.txt"
done
[ "$n" -gt 0 ] && ok || bad "no seed of fuzz_mm ran for real"
# a program as bytes (the target from the path, as print does)
mkdir -p "$T/fuzz_mm"
"$V" compile corpus/fuzz_mm/anon_vma_merge.txt -o "$T/fuzz_mm/anon_vma_merge" && ok || bad "compile"
expect 0 "^conform: $T/fuzz_mm/anon_vma_merge: 14 operations agree\$" "$V" conform "$T/fuzz_mm/anon_vma_merge"

# generated programs
expect 0 '^200 programs, 4000 operations agree' "$V" conform --random 200 --seed 1
expect 0 '^20 programs, 1200 operations agree' "$V" conform --random 20 --seed 7 --ops 60

# fork: the model's child against the real grandchild, with the dc range
# gone, the wf range empty and shared memory not copied in both views
expect 0 'conform: corpus/fuzz_mm/conform_fork.txt: 9 operations agree' \
	"$V" conform -v corpus/fuzz_mm/conform_fork.txt
if [ "$(grep -c '^  the child (model p1, kernel: the grandchild' "$T/out")" = 2 ] &&
	sed -n '/the child (model p1/,/^  [0-9]/p' "$T/out" | grep -q ' @0x14-0x16 rw-p ac -- wf rss 0k anon 0k  *@0x14-0x16 rw-p ac -- wf rss 0k anon 0k$' &&
	! sed -n '/the child (model p1/,/^  [0-9]/p' "$T/out" | grep -q '@0x10-0x12'; then
	ok
else
	bad "the child's views after fork"; sed 's/^/    /' "$T/out" | tail -n 30
fi
expect 1 'operation 6 differs in the child' "$V" conform --selftest-flip-child-wf \
	corpus/fuzz_mm/conform_fork.txt

# a wrong model view is caught: the first VMA's wf differs, status 1
printf 'target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\n' >"$T/one.txt"
expect 1 'operation 0 differs: mmap p0 @0x10:4' "$V" conform --selftest-flip-wf "$T/one.txt"
if grep -qE '^  ! @0x10-0x14 rw-p ac -- wf .* @0x10-0x14 rw-p ac -- -- ' "$T/out"; then
	ok
else
	bad "the side-by-side view does not show the flipped wf"; sed 's/^/    /' "$T/out" | head -n 20
fi
expect 1 '--- the program up to the step that differs' "$V" conform --selftest-flip-wf --random 3 --seed 1
# --keep-going goes on with the next file and still fails
expect 1 "conform: corpus/fuzz_mm/advice_cycle.txt: operation 0 differs" \
	"$V" conform --selftest-flip-wf --keep-going "$T/one.txt" corpus/fuzz_mm/advice_cycle.txt

# the zero page: the model follows this kernel (the probe), whichever it is;
# told the other way, a read of fresh anonymous memory differs in Rss
printf 'target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\ntouch p0 @0x10:2 read\n' >"$T/read.txt"
expect 0 "^conform: $T/read.txt: 2 operations agree" "$V" conform "$T/read.txt"
if grep -q 'note: this kernel allocates a page on a read fault' "$T/out"; then
	wrong=yes want='@0x10-0x14 rw-p ac -- -- rss 0k anon 0k .*@0x10-0x14 rw-p ac -- -- rss 8k anon 8k'
else
	wrong=no want='@0x10-0x14 rw-p ac -- -- rss 8k anon 8k .*@0x10-0x14 rw-p ac -- -- rss 0k anon 0k'
fi
expect 1 'operation 1 differs: touch p0 @0x10:2 read' "$V" conform --model-zero-page $wrong "$T/read.txt"
grep -qE "^  ! $want\$" "$T/out" && ok || { bad "--model-zero-page $wrong: not the Rss difference"; cat "$T/out"; }
expect 2 '--model-zero-page takes yes or no' "$V" conform --model-zero-page maybe "$T/read.txt"

# a program that is not fuzz_mm's anonymous memory is skipped, status 0
printf 'target fuzz_mm\nmmap p0 @0x10:4 r,w private_file f1 fixed\n' >"$T/file.txt"
expect 0 'skipped: operation 0 .*file mappings' "$V" conform "$T/file.txt"
printf 'target fuzz_mm\nmmap p1 @0x10:4 r,w private f0 fixed\n' >"$T/p1.txt"
expect 0 'skipped: operation 0 .*only process p0' "$V" conform "$T/p1.txt"

finish
