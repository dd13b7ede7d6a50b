#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fuzz_conform: fuzz_mm's programs under libFuzzer, in the model and for
# real on this machine's kernel. Its seeds (fuzz_mm's) run and agree, and a
# short fuzzing run from them finds nothing; a model view made wrong on
# purpose (VMAFUZZ_CONFORM_SELFTEST) is a crash: the report names the
# operation, prints the program with the step marked and both views side by
# side, and the crash file is written and replays with vmafuzz conform; its
# server leaves no process behind; bad usage gets status 2.
# Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
F="$OUT/libfuzzer/fuzz_conform"
V="$OUT/vmafuzz"

# a copy of the server under a name of this test's own: what is left of it
# can be looked for without touching anyone else's
cp "$OUT/conform-server" "$T/conform-server"
export VMAFUZZ_CONFORM_SERVER="$T/conform-server"
mkdir -p "$T/seeds"
cp "$OUT"/corpus/fuzz_mm/* "$T/seeds/"

# every seed: run (agrees) or refused, with the reasons counted
expect 0 'fuzz_conform: [0-9]+ inputs: [0-9]+ ran in the model and for real' \
	"$F" -runs=0 "$T/seeds"
ran=$(sed -n 's/^fuzz_conform: [0-9]* inputs: \([0-9]*\) ran.*/\1/p' "$T/out")
ops=$(sed -n 's/.* ran in the model and for real (\([0-9]*\) operations compared.*/\1/p' "$T/out")
if [ "${ran:-0}" -ge 20 ] && [ "${ops:-0}" -ge 200 ] &&
	grep -q '^fuzz_conform:   refused [0-9]*: only thread t0 runs for real' "$T/out" &&
	grep -q '^fuzz_conform:   refused [0-9]*: map_limit: too slow' "$T/out"; then
	ok
else
	bad "the seeds: $ran ran, $ops operations"; sed 's/^/    /' "$T/out" | tail -n 12
fi
echo "fuzz_conform.sh: the seeds: $ran ran, $ops operations compared"

# a short fuzzing run from them (mutated programs, the dictionary): no crash
mkdir -p "$T/corpus" "$T/crashes"
expect 0 'Done [0-9]+ runs' "$F" -runs=400 -seed=1 -dict=dict/fuzz_mm.dict \
	-artifact_prefix="$T/crashes/" "$T/corpus" "$T/seeds"
[ -z "$(ls -A "$T/crashes")" ] && ok || bad "crashes from a clean run: $(ls "$T/crashes")"

# wrong model views are caught: p0's wf, a child's wf, offset and data
for flip in flip-wf flip-child-wf flip-child-pgoff flip-child-data; do
	rm -rf "$T/crashes" && mkdir -p "$T/crashes"
	expect 77 'AS_BACKENDS_DIFFER failed: fuzz_conform: operation [0-9]+ \(.*\) differs between the model and this kernel' \
		env VMAFUZZ_CONFORM_SELFTEST=$flip "$F" -runs=100 -seed=1 -artifact_prefix="$T/crashes/" \
		"$T/corpus" "$T/seeds"
	crash=$(ls "$T/crashes"/crash-* 2>/dev/null | head -n 1)
	if grep -q "^fuzz_conform: VMAFUZZ_CONFORM_SELFTEST=$flip: .*wrong on purpose" "$T/out" &&
		grep -q '^--- program (fuzz_mm, under fuzz_conform), step [0-9]* of [0-9]* ---$' "$T/out" &&
		grep -qE '# <== step [0-9]+ failed here' "$T/out" &&
		grep -qE '^    model +kernel$|holds 0x[0-9a-f]+ in the model, 0x[0-9a-f]+ in the kernel' "$T/out" &&
		grep -qE '^  ! @|<== differs' "$T/out" &&
		[ -n "$crash" ]; then
		ok
	else
		bad "$flip: the report or the crash file"; sed 's/^/    /' "$T/out" | grep -v '^    INFO' | head -n 30
		continue
	fi
	# the crash file is the program: the same difference under vmafuzz
	# conform with the same wrong view, and none without (a mutated program
	# may reach a refused operation after the flipped view has differed: it
	# is then skipped there, for whichever listed reason, not compared)
	expect 1 'differs' "$V" conform --selftest-$flip "$crash"
	expect 0 'operations agree|skipped: operation [0-9]+ \(' "$V" conform "$crash"
done

# under -fork (--jobs), where a worker's log goes with it, the finding's line
# reaches the engine's own log, naming the report kept in the folder
# vmafuzz fuzz gives (VMAFUZZ_REPORTS)
rm -rf "$T/crashes" "$T/fork" "$T/reports" && mkdir -p "$T/crashes" "$T/fork" "$T/reports"
env VMAFUZZ_REPORTS="$T/reports" VMAFUZZ_CONFORM_SELFTEST=flip-wf "$F" -fork=1 -ignore_crashes=1 \
	-max_total_time=6 -seed=1 -artifact_prefix="$T/crashes/" "$T/fork" "$T/seeds" >"$T/out" 2>&1
rep=$(sed -n 's/^==[0-9]*== ERROR: vmafuzz: fuzz_conform: operation [0-9]* (.*) differs (report: \(.*\))$/\1/p' \
	"$T/out" | head -n 1)
[ -n "$rep" ] && [ -n "$(ls -A "$T/crashes")" ] &&
	grep -q 'AS_BACKENDS_DIFFER failed: fuzz_conform: operation' "$rep" &&
	grep -q '^--- step [0-9]* in the model and on this kernel ---$' "$rep" && ok ||
	bad "-fork: no finding's line naming its report in the engine's log: $(grep ERROR "$T/out" | head -n 3)"
ls "$T/reports"/*.part >/dev/null 2>&1 && bad "a report left half-written" || ok

# nothing left behind: the server ends with the fuzzer, the real processes
# with their sockets
sleep 1
left=$(pgrep -f "^$T/conform-server" || true)
[ -z "$left" ] && ok || bad "server processes left: $left"

# vmafuzz list names it
expect 0 '^fuzz_conform +fuzz_mm.s programs on t0 in the model and for real' "$V" list

# bad usage
expect 2 "VMAFUZZ_CONFORM_SELFTEST takes flip-wf, .* not 'bogus'" \
	env VMAFUZZ_CONFORM_SELFTEST=bogus "$F" -runs=1 "$T/seeds"
expect 2 "cannot run the server $T/missing" \
	env VMAFUZZ_CONFORM_SERVER="$T/missing" "$F" -runs=1 "$T/seeds"
expect 2 'usage: conform-server --fd N' "$T/conform-server"
expect 2 'not an open file descriptor' "$T/conform-server" --fd 77
expect 2 'fuzz_conform runs under libFuzzer with the structure-aware mutator only' ./build.sh fuzz --afl fuzz_conform 5
expect 2 'fuzz_conform runs under libFuzzer with the structure-aware mutator only' ./build.sh fuzz --plain fuzz_conform 5

# ./build.sh fuzz fuzz_conform: from fuzz_mm's seeds, what the inputs were
expect 0 'ran in the model and for real' env VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT="$T/work" \
	VMAFUZZ_STATUS_EVERY=2 ./build.sh fuzz fuzz_conform 6
if grep -qE '^== fuzz_conform: libFuzzer exit status 0' "$T/out" &&
	grep -qE '^   exec/s: +[0-9]+' "$T/out" && grep -qE '^     refused [0-9]+: ' "$T/out" &&
	grep -q 'out/libfuzzer/fuzz_conform .*out/corpus/fuzz_mm -dict=dict/fuzz_mm.dict' "$T/out"; then
	ok
else
	bad "./build.sh fuzz fuzz_conform"; tail -n 20 "$T/out" | sed 's/^/    /'
fi

# --jobs: libFuzzer's -fork workers, each with its own server, all gone after
expect 0 "in the workers' own logs" env VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT="$T/work2" \
	./build.sh fuzz --jobs 2 fuzz_conform 8
if grep -q 'out/libfuzzer/fuzz_conform .* -fork=2 ' "$T/out" &&
	grep -qE '^   exec/s: +[1-9][0-9]* \([1-9][0-9]* executions\)' "$T/out"; then
	ok
else
	bad "./build.sh fuzz --jobs 2 fuzz_conform"; tail -n 20 "$T/out" | sed 's/^/    /'
fi
# (the folder it names for the reports the workers keep)
[ -d "$T/work2/fuzz_conform/reports" ] && ok || bad "no reports folder in $T/work2/fuzz_conform"
sleep 1
left=$(pgrep -f "^$T/conform-server" || true)
[ -z "$left" ] && ok || bad "server processes left after --jobs: $left"
finish
