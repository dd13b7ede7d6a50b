#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The vmafuzz command line: help, clear errors with a non-zero exit for bad
# command lines and malformed programs, and print/compile round trips on
# every seed program. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"


expect 2 'usage: vmafuzz COMMAND' "$V"
expect 0 'vmafuzz compile' "$V" --help
expect 2 "unknown command 'frobnicate'" "$V" frobnicate
expect 0 'fuzz_mtree' "$V" list
expect 0 'store mt<0..3> RANGE' "$V" ops fuzz_mtree
expect 2 "unknown target 'fuzz_nope'" "$V" ops fuzz_nope
expect 0 'usage: vmafuzz print' "$V" print --help
expect 2 'needs a file' "$V" print
expect 2 "cannot open $T/missing" "$V" print --target fuzz_mtree "$T/missing"
expect 2 'cannot tell which target' "$V" print "$T/out"
# a file that is not there is said to be missing, not of no target
expect 2 "cannot read $T/missing: No such file" "$V" print "$T/missing"
expect 2 "cannot read $T/missing: No such file" "$V" minimize "$T/missing"
# a misspelt target line: one message, naming the nearest target
printf 'target fuzz_mtre\nstore mt0 @0x10:4 v1\n' >"$T/misspelt.txt"
expect 2 "unknown target 'fuzz_mtre' \\(did you mean 'fuzz_mtree'\\?\\)" "$V" compile "$T/misspelt.txt" -o "$T/m.bin"
[ "$(grep -c 'vmafuzz compile' "$T/out")" = 1 ] && ok || bad "compile of a misspelt target said more than one thing: $(cat "$T/out")"
expect 2 "unknown target 'fuzz_mtre' \\(did you mean" "$V" print "$T/misspelt.txt"
expect 2 '--target needs a target name' "$V" print "$T/out" --target
expect 2 'needs -o OUT' "$V" compile corpus/fuzz_mtree/edges.txt
expect 2 "unknown option '--bogus'" "$V" compile --bogus x.txt -o y
expect 2 "unknown benchmark 'nope'" "$V" bench nope
expect 2 "unknown argument '--fast'" "$V" bench mtree-dup --fast
expect 2 "unknown argument '--slow'" "$V" bench fork --slow
# the fork benchmarks run (their figures are for the notes, not for tests):
# the seed's four-row table, and CSV with one line per size
expect 0 '^21 +121 +221 *$' "$V" bench fork --quick
expect 0 '^221,[0-9]+,[0-9]+,-?[0-9.]+$' "$V" bench fork --quick --csv
expect 0 '^ +21 +[0-9]+ +[0-9]+ +-?[0-9.]+%$' "$V" bench uffd-fork --quick
# the rollup benchmark on real threads: three readers, per-sample rows
if [ -x "$OUT/threads/rollup_threads" ]; then
	expect 0 '^kernel,2,[0-9.]+,[0-9.]+,[0-9.]+$' "$V" bench rollup --quick --csv
	expect 2 "unknown argument '--bogus'" "$V" bench rollup --bogus
else
	bad "out/threads/rollup_threads was not built (make threads; needs liburcu-dev)"
fi
# the reverted anon_vma rule allocates fewer anon_vmas (the seed's claim)
"$V" bench anon-vma --csv >"$T/av.csv" 2>&1
awk -F, 'NR == 2 && $5 < $4 && $4 > 0 { found = 1 } END { exit !found }' "$T/av.csv" && ok ||
	bad "bench anon-vma: reuse does not allocate fewer: $(cat "$T/av.csv")"
expect 2 'needs a target and at least one' "$V" replay fuzz_mtree
expect 2 'No such file' "$V" replay fuzz_mtree "$T/missing"
expect 2 "unknown option '-x'" "$V" replay -x fuzz_mtree corpus/fuzz_mtree

# a malformed program: the error names file, line and column
printf 'target fuzz_mtree\nstore mt0 @0x10:4 v1\nerase mt0 e0+0:0\n' >"$T/bad.txt"
expect 2 "^$T/bad.txt:3:11: range length '0' is not 1..255 or end" "$V" compile "$T/bad.txt" -o "$T/bad"
[ ! -e "$T/bad" ] && ok || bad "compile wrote output for a bad program"
printf 'store mt0 @0x10:4 v1\n' >"$T/anon.txt"
expect 2 'names no target' "$V" compile "$T/anon.txt" -o "$T/anon"
expect 0 '' "$V" compile --target fuzz_mtree "$T/anon.txt" -o "$T/anon"

# every seed: text -> bytes -> text -> bytes gives the same bytes, and the
# printed text is the program (comments aside)
for txt in corpus/*/*.txt corpus/regress/*/*.txt; do
	[ -e "$txt" ] || continue
	n=$(basename "$txt" .txt)
	if "$V" compile "$txt" -o "$T/$n.1" && "$V" print "$txt" >"$T/$n.txt" &&
		"$V" compile "$T/$n.txt" --target "$(basename "$(dirname "$txt")")" -o "$T/$n.2" &&
		cmp -s "$T/$n.1" "$T/$n.2"; then
		ok
	else
		bad "round trip of $txt"
	fi
	"$V" print --target "$(basename "$(dirname "$txt")")" "$T/$n.1" >"$T/$n.p1" &&
		"$V" print "$T/$n.txt" --target "$(basename "$(dirname "$txt")")" >"$T/$n.p2"
	# the first lines differ only in the file name comment
	if diff <(tail -n +2 "$T/$n.p1") <(tail -n +2 "$T/$n.p2") >/dev/null; then ok; else bad "print of $txt"; fi
done

# replay runs seeds through the sanitized driver and in process
expect 0 'inputs replayed, none failed' "$V" replay fuzz_mtree corpus/fuzz_mtree
expect 0 'inputs replayed, none failed' "$V" replay --in-process fuzz_mtree corpus/fuzz_mtree "$OUT/corpus/fuzz_mtree"
expect 0 'usage' "$OUT/replay/fuzz_mtree" --help
expect 2 'usage' "$OUT/replay/fuzz_mtree"

# replay -v: every operation with the model's result, in both drivers; the
# map-limit seed shows where vm.max_map_count bites, the userfaultfd seed
# that a second context takes the next fd slot
for how in "" --in-process; do
	expect 0 'mprotect p0 @0x10:1 r,w  = -ENOMEM' "$V" replay $how -v fuzz_mm corpus/fuzz_mm/map_limit.txt
	grep -q 'mmap p0 @0x30:1 r private f0 fixed  = 0x200000030000' "$T/out" && ok ||
		bad "replay $how -v: the map at the limit did not succeed"
	grep -q 'mmap p0 @0x18:1 r private f0 fixed  = -ENOMEM' "$T/out" && ok ||
		bad "replay $how -v: a map above the limit was not refused"
	grep -q 'munmap p0 @0x17:1  = 0' "$T/out" && ok || bad "replay $how -v: munmap of a tail refused"
	expect 0 'uffd_create p0 nofork  = 0x1' "$V" replay $how -v fuzz_mm corpus/fuzz_mm/userfaultfd.txt
	# every target prints its operations: fuzz_mtree with the resolved
	# range and the reference's answer
	expect 0 'gap mt0 e15\+0:255 n=5 high  \[0x1041, 0x113f\] = 0x1056, mt0 holds 118 ranges' \
		"$V" replay $how -v fuzz_mtree corpus/fuzz_mtree/gap_search.txt
	grep -q 'gap mt0 g3+1:40 n=9 low  \[0x1027, 0x104e\] = -EBUSY' "$T/out" && ok ||
		bad "replay $how -v fuzz_mtree: a gap search that finds nothing"
	expect 0 '  t1: rollup p0 mmap  = 0' "$V" replay $how -v fuzz_rollup corpus/fuzz_rollup/case1_freed.txt
	expect 0 'fork p0 ' "$V" replay $how -v fuzz_fork corpus/fuzz_fork/forked_twice.txt
done
# ./build.sh fuzz's command line: --help, a bad option, engine flags after --
expect 0 'usage: vmafuzz fuzz' ./build.sh fuzz --help
expect 2 "unknown option '--bogus' \\(engine flags go after '--'" ./build.sh fuzz --bogus
expect 2 "no planted bug 'nosuch'" ./build.sh fuzz --bug nosuch fuzz_fork 5
expect 2 '--bug needs a planted bug' ./build.sh fuzz fuzz_fork --bug
expect 2 "--seeds $T/none: not a directory" ./build.sh fuzz --seeds "$T/none" fuzz_fork 5
expect 2 'the kernel targets. reverted' ./build.sh fuzz --bug mt_gap_stale kfuzz_mtree 5
# enough runs for a status line or two (a target runs thousands a second)
expect 0 'engine log: .*/out/work/fuzz_mtree/logs/' env VMAFUZZ_NO_DEPS=1 VMAFUZZ_STATUS_EVERY=1 \
	./build.sh fuzz fuzz_mtree 30 -- -runs=50000
grep -q -- ' -runs=50000$' "$T/out" && ok || bad "build.sh fuzz did not pass -runs=50000 to libFuzzer last"
# the engine's flood goes to the run's own log (fuzz.log: the last one);
# the terminal gets status lines
grep -qE 'Done [0-9]+ runs in' out/work/fuzz_mtree/fuzz.log && ok ||
	bad "the last run's log out/work/fuzz_mtree/fuzz.log lacks libFuzzer's end"
grep -q 'NEW' "$T/out" && bad "build.sh fuzz printed libFuzzer's NEW lines" || ok
grep -qE '^\[[0-9:]+\] [0-9]+s elapsed, [0-9]+s left: exec/s [0-9?]+, edges [0-9?]+, corpus [0-9?]+, crashes 0 new' "$T/out" && ok ||
	bad "build.sh fuzz printed no status line: $(head -n 8 "$T/out")"
grep -qF 'libFuzzer exit status 0 (finished: the time or -runs was up)' "$T/out" && ok ||
	bad "build.sh fuzz does not explain libFuzzer's exit status: $(grep 'exit status' "$T/out")"
grep -qE 'crashes: 0 new this run, [0-9]+ in all' "$T/out" && ok ||
	bad "build.sh fuzz's summary does not tell new crashes from old: $(tail -n 5 "$T/out")"
# and the corpus it grew is merged when it ends
grep -qE 'inputs in .*/out/work/fuzz_mtree/corpus \(merged from [0-9]+\)' "$T/out" && ok ||
	bad "build.sh fuzz did not merge its corpus: $(tail -n 5 "$T/out")"

# vmafuzz replay's own options
expect 0 'usage: vmafuzz replay' "$V" replay --help
expect 2 "--replay $T/none: not a directory" "$V" replay --replay "$T/none" fuzz_mm corpus/fuzz_mm/map_limit.txt
expect 2 "no replay driver $T/fuzz_mm" "$V" replay --replay "$T" fuzz_mm corpus/fuzz_mm/map_limit.txt

# without -v, nothing per operation
expect 0 'inputs replayed' "$V" replay fuzz_mm corpus/fuzz_mm/map_limit.txt
grep -q ' = ' "$T/out" && bad "replay without -v printed results" || ok

finish
