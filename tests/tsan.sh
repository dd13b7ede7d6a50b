#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ThreadSanitizer stress of the model on real threads: builds out/tsan/
# tsan_stress (`make tsan`: the threads backend src/runtime/threads/, pthreads,
# liburcu) and runs it briefly; any ThreadSanitizer report fails. Then checks
# that TSan does see RCU misuse: with frees not waiting for a grace period
# (--no-grace) it must report the readers. Run by ./build.sh test with OUT
# and ROOT set. VMAFUZZ_TSAN_SCALE sets the length (default 10: a few
# seconds on 2 cores).
set -u
cd "$ROOT"
. tests/shlib
S="$OUT/tsan/tsan_stress"
scale=${VMAFUZZ_TSAN_SCALE:-10}
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"

# run BIN LOG ARGS...: a stress program; retried without address-space randomisation
# when the TSan runtime cannot live with the kernel's (older LLVMs and
# vm.mmap_rnd_bits > 28: "unexpected memory mapping")
run() {
	local bin=$1 log=$2 rc=0
	shift 2
	"$bin" "$@" >"$log" 2>&1 || rc=$?
	if grep -q 'unexpected memory mapping' "$log" && command -v setarch >/dev/null; then
		rc=0
		setarch "$(uname -m)" -R "$bin" "$@" >"$log" 2>&1 || rc=$?
	fi
	return "$rc"
}

if ! make -s --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" tsan >"$T/build.log" 2>&1 ||
	[ ! -x "$S" ]; then
	bad "make tsan did not build $S"; sed 's/^/    /' "$T/build.log"
	finish
	exit 1
fi
ok

# the stress: clean under TSan, its own checks all pass
rc=0
run "$S" "$T/stress.log" "$scale" || rc=$?
line=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$T/stress.log" | tail -n 1 || true)
if [ "$rc" -ne 0 ] || grep -q 'ThreadSanitizer' "$T/stress.log" || [ -z "$line" ]; then
	bad "tsan_stress $scale exited $rc"; tail -n 60 "$T/stress.log" | sed 's/^/    /'
else
	ok
fi
# count its checks as ours
if [ -n "$line" ]; then
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	pass=$((pass + p))
	fail=$((fail + f))
fi
grep '^stress:' "$T/stress.log" || true

# the rollup readers on real threads beside a mapping writer (the bench
# rollup program, --stress): clean under TSan, every read sees every page
R="$OUT/tsan/rollup_threads"
rc=0
run "$R" "$T/rollup.log" --stress "$((scale / 2 + 1))" || rc=$?
if [ "$rc" -eq 0 ] && ! grep -q 'ThreadSanitizer' "$T/rollup.log" &&
	grep -q '^1 passed, 0 failed' "$T/rollup.log"; then
	ok
else
	bad "rollup_threads --stress exited $rc"; tail -n 60 "$T/rollup.log" | sed 's/^/    /'
fi

# the annotations must not hide real races: without grace periods, TSan
# reports a reader racing with the free of a node it walks (as a data race,
# or as a use after free when the free came first)
rc=0
run "$S" "$T/nograce.log" 1 --no-grace || rc=$?
if [ "$rc" -ne 0 ] &&
	grep -qE 'WARNING: ThreadSanitizer: (data race|heap-use-after-free)' "$T/nograce.log" &&
	grep -q 'mt_rcu_walk' "$T/nograce.log"; then
	ok
else
	bad "tsan_stress --no-grace (exit $rc): TSan did not report readers racing with frees"
	tail -n 40 "$T/nograce.log" | sed 's/^/    /'
fi

finish
