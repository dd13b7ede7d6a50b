#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/soak.sh: bad arguments exit 2 naming what is wrong; a few
# seconds on fuzz_mm give a report whose every field is there with sane
# figures (CPU time, exec/s and executions, peak RSS, the corpus from its
# seeds through the run to the merge, no findings); --cpu stops at its CPU
# budget and not before; --jobs counts its workers' executions; a run with a planted
# bug reports its findings with their triage bucket and exits 1. Run by
# ./build.sh test with OUT and ROOT set (soaks in a scratch SOAK_ROOT).
set -u
cd "$ROOT"
. tests/shlib
export SOAK_ROOT=$T/soak VMAFUZZ_STATUS_EVERY=2
S=scripts/soak.sh
B=test_exit_frees_shared

expect 2 'takes TARGET and SECONDS' "$S"
expect 2 'takes TARGET and SECONDS' "$S" fuzz_mm
expect 2 "unknown target 'fuzz_nope' \\(targets: .*fuzz_mm" "$S" fuzz_nope 5
for s in 0 1.5 -5 abc 5s ''; do
	expect 2 "SECONDS takes whole seconds from 1, not '$s'" "$S" fuzz_mm "$s"
done
expect 2 "--bug needs a planted bug's name" "$S" --bug
expect 2 "unknown option '--nope'" "$S" --nope fuzz_mm 5
expect 2 "--jobs takes a number of workers from 1 to 99, not '0'" "$S" --jobs 0 fuzz_mm 5
expect 2 "SECONDS takes whole seconds from 1, not '0'" "$S" --cpu fuzz_mm 0
[ -e "$SOAK_ROOT" ] && bad "a refused command line made $SOAK_ROOT" || ok

# field REGEX: the report's line matching REGEX (its first)
field() { grep -E "$1" "$T/report" | head -n 1; }

# ---- a few seconds of fuzz_mm
rc=0
"$S" fuzz_mm 5 >"$T/out" 2>&1 || rc=$?
[ "$rc" = 0 ] && ok || { bad "soak.sh fuzz_mm 5 exited $rc"; tail -n 20 "$T/out"; }
sed -n '/^soak fuzz_mm: /,$p' "$T/out" >"$T/report"
[ -n "$(field '^soak fuzz_mm: 5 s, run exit status 0$')" ] && ok || { bad "no report head"; cat "$T/out"; }
if python3 - "$T/report" <<-'EOF'; then ok; else bad "the report's figures"; cat "$T/report"; fi
	import re, sys
	r = open(sys.argv[1]).read()
	def num(pat):
	    m = re.search(pat, r, re.M)
	    assert m, pat
	    return [float(g) for g in m.groups()]
	user, sys_ = num(r"^  cpu: +([0-9.]+) s user \+ ([0-9.]+) s sys")
	assert 0.5 < user + sys_ < 120, (user, sys_)
	rate, execs = num(r"^  exec/s: +([0-9]+) \(([0-9]+) executions\)$")
	assert rate > 0 and execs >= rate, (rate, execs)
	rss, = num(r"^  peak rss: +([0-9]+) MB")
	assert 10 <= rss <= 4096, rss
	seeds, grown, merged = num(r"^  corpus: +([0-9]+) seeds -> ([0-9]+) inputs when fuzzing ended -> ([0-9]+) after the merge$")
	assert seeds > 10 and grown >= seeds and 1 <= merged <= grown, (seeds, grown, merged)
	assert re.search(r"^  findings: none$", r, re.M), r
	assert re.search(r"^  work: +\S+/fuzz_mm$", r, re.M), r
	assert re.search(r"^  log: +\S+\.log$", r, re.M), r
EOF
work=$(sed -n 's/^  work: *//p' "$T/report")
[ -d "$work/corpus" ] && [ "$(ls "$work/corpus" | wc -l)" -gt 0 ] && ok || bad "no corpus in $work"
case $work in "$SOAK_ROOT"/*) ok ;; *) bad "the soak worked outside SOAK_ROOT: $work" ;; esac

# ---- --cpu: the run stops once it has used its CPU seconds (not before)
rc=0
"$S" --cpu fuzz_mm 4 >"$T/out" 2>&1 || rc=$?
[ "$rc" = 0 ] && ok || { bad "soak.sh --cpu fuzz_mm 4 exited $rc"; tail -n 20 "$T/out"; }
sed -n '/^soak fuzz_mm: /,$p' "$T/out" >"$T/report"
[ -n "$(field '^soak fuzz_mm: 4 s of CPU time, run exit status [0-9]+ \(stopped at the budget\)$')" ] && ok ||
	{ bad "no --cpu report head"; cat "$T/out"; }
cpu=$(sed -n 's/^  cpu: *\([0-9.]*\) s user + \([0-9.]*\) s sys.*/\1 \2/p' "$T/report")
awk -v c="$cpu" 'BEGIN { split(c, a, " "); exit !(a[1] + a[2] >= 4 && a[1] + a[2] < 60) }' && ok ||
	{ bad "--cpu 4 used '$cpu' s of CPU"; cat "$T/report"; }
[ -n "$(field '^  findings: none$')" ] && ok || { bad "--cpu: findings"; cat "$T/report"; }

# ---- --jobs: libFuzzer's -fork, whose workers ran the executions (the
# summary counts them from its lines, not from its parent's empty stats)
# (what it counts, whatever the run finds: a finding is the fuzzer's, and its
# report says it; the planted bug below checks findings)
rc=0
"$S" --jobs 2 fuzz_mm 4 >"$T/out" 2>&1 || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] && ok || { bad "soak.sh --jobs 2 fuzz_mm 4 exited $rc"; tail -n 20 "$T/out"; }
if [ "$rc" = 1 ]; then # kept beside the test logs, to replay
	sed -n '/^  findings:/,/^  work:/p' "$T/out"
	mkdir -p "$OUT/test-findings" && cp "$T"/soak/*/fuzz_mm/crashes/crash-* "$OUT/test-findings/" 2>/dev/null
fi
sed -n '/^soak fuzz_mm: /,$p' "$T/out" >"$T/report"
[ -n "$(field '^  exec/s: +[1-9][0-9]* \([1-9][0-9]* executions\)$')" ] && ok ||
	{ bad "--jobs: no executions counted"; cat "$T/report"; }
[ -n "$(field '^  corpus: +[1-9][0-9]* seeds -> ')" ] && ok || { bad "--jobs: no seeds counted"; cat "$T/report"; }

# ---- a planted bug: findings, each with its bucket
if make -s --no-print-directory -j2 bug-libfuzzer bug-replay BUG=$B >"$T/build.log" 2>&1; then
	rc=0
	"$S" --bug $B fuzz_mm 3 >"$T/out" 2>&1 || rc=$?
	[ "$rc" = 1 ] && ok || { bad "soak.sh --bug $B exited $rc, want 1"; tail -n 20 "$T/out"; }
	sed -n '/^soak fuzz_mm: /,$p' "$T/out" >"$T/report"
	[ -n "$(field '^  findings: [1-9][0-9]*$')" ] && ok || { bad "no findings counted"; cat "$T/report"; }
	[ -n "$(field '^    \S+/crash-[0-9a-f]+: AddressSanitizer: heap-use-after-free in ')" ] && ok ||
		{ bad "a finding without its bucket"; cat "$T/report"; }
else
	bad "make bug-libfuzzer bug-replay BUG=$B failed: $(tail -n 5 "$T/build.log")"
fi
expect 2 "no planted bug 'nope'|planted bug.*nope" "$S" --bug nope fuzz_mm 3
finish
