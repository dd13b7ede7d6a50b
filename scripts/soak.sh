#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/soak.sh [--bug NAME] [--cpu] [--jobs N] TARGET SECONDS: a soak
# run of one target and its report (--bug: the build with planted bug NAME,
# to see a soak report what it finds; --cpu: SECONDS of CPU time, not of
# the clock; --jobs: N libFuzzer workers on one corpus, vmafuzz fuzz's, for
# a target that waits more than it computes, as fuzz_conform does).
#
# vmafuzz fuzz runs libFuzzer on TARGET for SECONDS from the target's seeds
# alone, in a work folder of its own (out/soak/<time>-<target>/, or
# SOAK_ROOT/<time>-<target>/), after a run of no executions that builds what
# it needs, so that the build is not counted. With --cpu the run goes on
# until it and all it started have used SECONDS of CPU time, however busy
# the machine's other cores are, and is then interrupted (SIGINT, as a
# Ctrl-C: the engine stops, the corpus is merged and the summary comes).
# Then the report:
#
#   soak TARGET: SECONDS s[ of CPU time], run exit status N[ (stopped at
#                the budget | ended before the budget)]
#     cpu:      U s user + S s sys (the run and all it started)
#     exec/s:   R (E executions)
#     peak rss: M MB (libFuzzer's peak_rss_mb)
#     corpus:   K seeds -> L inputs when fuzzing ended -> F after the merge
#     findings: none | N, each crash file with its triage bucket
#     work:     the folder; log: the engine's log
#
# The figures count the merge after the run too.
#
# Exit status: 0 no findings, 1 findings, 2 a bad command line (an unknown
# target, SECONDS not whole seconds from 1) or a failed build, 74 a full
# disk (vmafuzz fuzz's). JOBS is make's -j, as for build.sh.
set -uo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." || exit 2
. scripts/build-lib.sh

usage() {
	echo "soak.sh: $1" >&2
	echo "usage: scripts/soak.sh [--bug NAME] [--cpu] [--jobs N] TARGET SECONDS" >&2
	exit 2
}

bug=() cpu= jobs=()
while :; do
	case ${1:-} in
	--bug)
		[ -n "${2:-}" ] || usage "--bug needs a planted bug's name (make list-bugs)"
		bug=(--bug "$2")
		shift 2
		;;
	--cpu) cpu=1 && shift ;;
	--jobs)
		[[ ${2:-} =~ ^[1-9][0-9]?$ ]] || usage "--jobs takes a number of workers from 1 to 99, not '${2:-}'"
		jobs=(--jobs "$2")
		shift 2
		;;
	-*) usage "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage "takes TARGET and SECONDS"
target=$1 secs=$2
known=$(targets; kernel_targets; for f in live/fuzz_*.c; do [ -e "$f" ] && basename "$f" .c; done)
grep -qx -- "$target" <<<"$known" || usage "unknown target '$target' (targets: $(echo $known))"
[[ $secs =~ ^[1-9][0-9]{0,8}$ ]] || usage "SECONDS takes whole seconds from 1, not '$secs'"

run_make tool || exit 2
V=$PWD/out/vmafuzz
root=${SOAK_ROOT:-out/soak}/$(date +%Y%m%d-%H%M%S)-$target
work=$root/$target
mkdir -p "$root" || exit 2
export VMAFUZZ_NO_DEPS=${VMAFUZZ_NO_DEPS:-1}

# the build, not counted: a run of no executions in a scratch folder
echo "soak: building what $target needs"
if ! VMAFUZZ_WORK_ROOT=$root/build "$V" fuzz "${bug[@]}" "$target" 1 -- -runs=0 >"$root/build.log" 2>&1; then
	rc=$?
	if [ "$rc" = 2 ] || [ "$rc" = 74 ]; then
		tail -n 20 "$root/build.log" >&2
		echo "soak: the build for $target failed (exit status $rc; $root/build.log)" >&2
		exit "$rc"
	fi
fi
rm -rf "$root/build"
# and the replay driver the report's triage runs the crashes with
case $target in
kfuzz_*) run_make kfuzz >>"$root/build.log" 2>&1 ;;
fuzz_conform) ;;
*) run_make replay >>"$root/build.log" 2>&1 ;;
esac || { echo "soak: the replay driver of $target did not build ($root/build.log)" >&2; exit 2; }

# the run; its CPU time is this shell's children's (all they waited for),
# from the builtin times in this shell (not in a subshell, whose children
# are others)
seconds() { # "1m2.500s" -> 62.500
	awk -v t="$1" 'BEGIN { split(t, a, "m"); sub("s", "", a[2]); printf "%.1f", a[1] * 60 + a[2] }'
}
# tree_cpu PID: the CPU seconds PID and every live process under it have
# used, with the children each has waited for (the fields after the
# command's closing parenthesis: ppid is the 2nd, utime..cstime the 12th
# to 15th)
tree_cpu() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" -v hz="$(getconf CLK_TCK)" '
		{ i = index($0, ") "); pid = $1; n = split(substr($0, i + 2), f, " ")
		  parent[pid] = f[2]; t[pid] = f[12] + f[13] + f[14] + f[15] }
		END { for (p in t) { q = p
			  while (q != "" && q != root && q > 1) q = parent[q]
			  if (q == root) sum += t[p] }
		      printf "%d", sum / hz }'
}
times >"$root/times.before"
if [ -z "$cpu" ]; then
	VMAFUZZ_WORK_ROOT=$root "$V" fuzz "${bug[@]}" "${jobs[@]}" "$target" "$secs" 2>&1 | tee "$root/run.log"
	rc=${PIPESTATUS[0]}
	budget=
else
	# the clock bounds it too, at ten times the budget: a run that gets
	# less than a tenth of a core is not a soak
	: >"$root/run.log"
	VMAFUZZ_WORK_ROOT=$root "$V" fuzz "${bug[@]}" "${jobs[@]}" "$target" $((secs * 10)) >"$root/run.log" 2>&1 &
	pid=$!
	tail -n +1 --pid="$pid" -f "$root/run.log" &
	show=$!
	budget=
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$(tree_cpu "$pid")" -ge "$secs" ]; then
			budget=1
			kill -INT "$pid"
			break
		fi
		sleep 2
	done
	wait "$pid"
	rc=$?
	wait "$show"
fi
times >"$root/times.after"
read -r u0 s0 < <(tail -n 1 "$root/times.before")
read -r u1 s1 < <(tail -n 1 "$root/times.after")
user=$(awk -v a="$(seconds "$u1")" -v b="$(seconds "$u0")" 'BEGIN { printf "%.1f", a - b }')
sys=$(awk -v a="$(seconds "$s1")" -v b="$(seconds "$s0")" 'BEGIN { printf "%.1f", a - b }')
[ "$rc" = 2 ] && exit 2

# figures from the summary and the engine's log
log=$(sed -n 's/^   log: *//p' "$root/run.log" | tail -n 1)
rate=$(sed -n 's/^   exec\/s: *//p' "$root/run.log" | tail -n 1)
rss=$(grep -ho 'stat::peak_rss_mb: *[0-9]*' "$log" 2>/dev/null | tail -n 1 | grep -o '[0-9]*$')
[ -n "$rss" ] || rss=$(grep -ho 'rss: [0-9]*Mb' "$log" 2>/dev/null | tail -n 1 | grep -o '[0-9]*')
seeds=$(grep -o "INFO: *[0-9]* files found in [^ ]*/corpus$" "$log" 2>/dev/null | head -n 1 | awk '{print $2}')
# (-fork=N says "INFO: -fork=N: K seed inputs")
[ -n "$seeds" ] || seeds=$(grep -o "INFO: -fork=[0-9]*: [0-9]* seed inputs" "$log" 2>/dev/null | head -n 1 | awk '{print $3}')
grown=$(sed -n 's/^   corpus: *[0-9]* inputs in .* (merged from \([0-9]*\))$/\1/p' "$root/run.log" | tail -n 1)
[ -n "$grown" ] || grown=$(sed -n 's/^   corpus: *\([0-9]*\) inputs in .* (not merged)$/\1/p' "$root/run.log" | tail -n 1)
after=$(count_files "$work/corpus")

echo
stop=
[ -n "$cpu" ] && stop=${budget:+ (stopped at the budget)} && stop=${stop:- (ended before the budget)}
echo "soak $target: $secs s${cpu:+ of CPU time}, run exit status $rc$stop"
echo "  cpu:      $user s user + $sys s sys (the run and all it started)"
echo "  exec/s:   ${rate:-?}"
if [ ${#jobs[@]} -gt 0 ]; then
	echo "  peak rss: ${rss:-?} MB (the -fork parent's: its workers' are not reported)"
else
	echo "  peak rss: ${rss:-?} MB (libFuzzer's peak_rss_mb)"
fi
echo "  corpus:   ${seeds:-?} seeds -> ${grown:-?} inputs when fuzzing ended -> $after after the merge"
findings=0
if [ "$(count_files "$work/crashes")" -gt 0 ]; then
	# (fuzz_conform's crashes are fuzz_mm programs that differ on this
	# kernel: vmafuzz conform runs them again, its reports say what differed)
	if [ "$target" = fuzz_conform ]; then
		: >"$root/triage.txt"
		for f in "$work/crashes"/*; do
			[ -f "$f" ] && echo "triage: [0/0] $f: again with out/vmafuzz conform (a fuzz_mm program)"
		done >"$root/triage.err"
	else
		"$V" triage -v "$work/crashes" >"$root/triage.txt" 2>"$root/triage.err"
	fi
	# every crash file is a finding, whether triage could replay it or not
	findings=$(count_files "$work/crashes")
	echo "  findings: $findings"
	sed -n 's/^triage: \[[0-9]*\/[0-9]*\] \(.*\): \(.*\)$/    \1: \2/p' "$root/triage.err"
	grep -v '^triage: \[' "$root/triage.err" | sed 's/^/    /'
	# what a -fork worker's log took with it (fuzz_conform keeps it)
	[ "$(count_files "$work/reports")" -gt 0 ] &&
		echo "    reports: $(count_files "$work/reports") in $work/reports"
else
	echo "  findings: none"
fi
echo "  work:     $work"
echo "  log:      ${log:-?}"
[ "$rc" = 74 ] && exit 74
[ "$findings" -gt 0 ] && exit 1
exit 0
