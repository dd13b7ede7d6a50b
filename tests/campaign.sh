#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz fuzz (./build.sh fuzz) as processes (tools/campaign/; its parts
# alone: tests/test_campaign.c):
#  - bad numbers exit 2 naming the word, before anything is built;
#  - the first status line comes within the first seconds, not after 30;
#  - killed by SIGKILL while libFuzzer -fork=2 finds a planted bug: no
#    engine process is left and no temporary folder (libFuzzer's
#    libFuzzerTemp.FuzzWithFork<pid>.dir), and triage still replays each
#    crash found before the kill with the bug's build (.builds was written
#    before the engine started); a rerun calls none of them new;
#  - SIGTERM and SIGINT are passed on: the engine stops, the summary comes;
#  - a --bug run's corpus merge keeps an input the bug's build crashes on;
#  - a merge that fails (a full disk) keeps the corpus as it was, and says so.
# Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz
export VMAFUZZ_NO_DEPS=1
W=$T/work
mkdir -p "$T/tmp"

# live PROCESSES: the pids of processes whose command line holds $T (this
# test's folders) and that still run (a zombie, which a PID 1 that does
# not reap keeps, runs no more)
live() {
	local p
	for p in $(pgrep -f -- "$T/" 2>/dev/null); do
		[ "$p" = $$ ] && continue
		case $(ps -o stat= -p "$p" 2>/dev/null) in Z* | '') ;; *) echo "$p" ;; esac
	done
}

# wait_for SECONDS CMD...: until CMD succeeds; false when the time is up
wait_for() {
	local n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# ---- strict numbers, before any build
expect 2 "SECONDS takes whole seconds from 1 to [0-9]+, not '0'" "$V" fuzz fuzz_mtree 0
expect 2 "not '1.5'" "$V" fuzz fuzz_mtree 1.5
expect 2 "not '-5'" "$V" fuzz fuzz_mtree -5
expect 2 "not 'huge'" "$V" fuzz fuzz_mtree huge
expect 2 "not '99999999999999999999'" "$V" fuzz fuzz_mtree 99999999999999999999
expect 2 "unknown target 'abc'" "$V" fuzz abc
expect 2 "--jobs takes a whole number from 1 to 1024, not '0'" "$V" fuzz --jobs 0 fuzz_mtree 5
expect 2 "not 'two'" "$V" fuzz --jobs two fuzz_mtree 5
expect 2 "VMAFUZZ_STATUS_EVERY takes whole seconds from 1 to 86400, not '0.5'" \
	env VMAFUZZ_STATUS_EVERY=0.5 "$V" fuzz fuzz_mtree 5
expect 2 "JOBS takes a whole number from 1 to 1024, not 'lots'" env JOBS=lots "$V" fuzz fuzz_mtree 5
# the same through build.sh, which ends in vmafuzz fuzz
expect 2 "not 'abc'" ./build.sh fuzz fuzz_mtree abc

# ---- the first status line within seconds (else every 30 s off a terminal)
expect 0 'libFuzzer exit status 0' env VMAFUZZ_WORK_ROOT="$W" TMPDIR="$T/tmp" \
	"$V" fuzz fuzz_mtree 7
grep -qE '^\[[0-9:]+\] [1-5]s elapsed, [0-9]+s left: exec/s [0-9]+, edges [0-9]+, corpus [0-9]+, crashes 0 new$' "$T/out" &&
	ok || bad "no status line in the first seconds: $(head -n 12 "$T/out")"
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "a run left $(ls -A "$T/tmp") in TMPDIR"

# ---- SIGKILL while libFuzzer -fork=2 finds a planted bug
B=mt_free_early
if ! make -s --no-print-directory -j2 bug-libfuzzer bug-replay BUG=$B >"$T/build.log" 2>&1; then
	bad "make bug-libfuzzer bug-replay BUG=$B failed: $(tail -n 5 "$T/build.log")"
	finish
	exit
fi
C=$W/fuzz_mtree/crashes
rm -rf "$W/fuzz_mtree"
VMAFUZZ_WORK_ROOT="$W" TMPDIR="$T/tmp" "$V" fuzz --bug $B --jobs 2 fuzz_mtree 120 \
	>"$T/kill.log" 2>&1 &
run=$!
if wait_for 120 sh -c "ls '$C' 2>/dev/null | grep -q '^crash-'"; then
	ok
else
	bad "no crash in $C after 120 s: $(tail -n 5 "$T/kill.log")"
fi
sleep 1
[ -n "$(live)" ] && ok || bad "no engine process seen running"
ls "$T/tmp"/vmafuzz-fuzz.*/libFuzzerTemp.FuzzWithFork*.dir >/dev/null 2>&1 && ok ||
	bad "libFuzzer's -fork folder is not in the run's TMPDIR: $(ls -R "$T/tmp" | head)"
kill -KILL "$run"
wait "$run" 2>/dev/null
wait_for 15 sh -c "[ -z \"\$(ls -A '$T/tmp')\" ]"
left=$(live)
[ -z "$left" ] && ok || { bad "processes left after the kill:"; ps -o pid,stat,args -p "$(echo $left | tr ' ' ,)"; }
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temporary folders left: $(ls -A "$T/tmp")"
# no line names a crash (the run never ended): each is placed by the run's line
grep -q "^\* bugs/$B/libfuzzer from=" "$C/.builds" && ! grep -q '^crash-' "$C/.builds" && ok ||
	bad ".builds is not the run's line alone: $(cat "$C/.builds")"
n=$(ls "$C" | grep -c '^crash-')
expect 0 'heap-use-after-free' "$V" triage "$C"
grep -q 'no longer fails' "$T/out" && bad "triage did not use $B's build for a crash" || ok
# a rerun: the crashes there before are not new
expect 0 "crashes: 0 new this run, $n in all" env VMAFUZZ_WORK_ROOT="$W" "$V" fuzz fuzz_mtree 3

# ---- signals are passed on, and the summary still comes
for sig in TERM INT; do
	VMAFUZZ_WORK_ROOT="$W" VMAFUZZ_STATUS_EVERY=1 TMPDIR="$T/tmp" "$V" fuzz --jobs 2 \
		fuzz_mtree 120 >"$T/sig.log" 2>&1 &
	run=$!
	wait_for 60 grep -q 'elapsed' "$T/sig.log"
	kill -"$sig" "$run"
	if wait_for 30 sh -c "! kill -0 $run 2>/dev/null"; then
		ok
	else
		bad "SIG$sig: the run goes on"
		kill -KILL "$run"
	fi
	wait "$run" 2>/dev/null
	grep -q '== fuzz_mtree: libFuzzer exit status' "$T/sig.log" && grep -q 'merged from' "$T/sig.log" &&
		ok || { bad "SIG$sig: no summary"; tail -n 8 "$T/sig.log"; }
	[ -z "$(live)" ] && [ -z "$(ls -A "$T/tmp")" ] && ok || bad "SIG$sig: left $(live) $(ls -A "$T/tmp")"
done
grep -q '(interrupted)' "$T/sig.log" && ok || bad "SIGINT: no '(interrupted)'"

# ---- the merge keeps what a planted bug's build crashes on
B=test_exit_frees_shared
if make -s --no-print-directory -j2 bug-libfuzzer bug-replay BUG=$B >"$T/build.log" 2>&1; then
	mkdir -p "$T/seeds"
	"$V" compile tests/crash_kept/no_fork.txt -o "$T/seeds/no_fork" >/dev/null
	"$V" compile tests/crash_kept/exit_shared.txt -o "$T/seeds/exit_shared" >/dev/null
	rm -rf "$W/fuzz_fork"
	expect 1 'crashes: [1-9][0-9]* new this run' env VMAFUZZ_WORK_ROOT="$W" "$V" fuzz --bug $B \
		--seeds "$T/seeds" fuzz_fork 60
	grep -q 'inputs in .* (merged from 2)' "$T/out" && ok || bad "not merged: $(tail -n 6 "$T/out")"
	kept=0
	for f in "$W/fuzz_fork/corpus"/*; do
		cmp -s "$f" "$T/seeds/exit_shared" && kept=1
	done
	[ "$kept" = 1 ] && ok || bad "the merge dropped the input $B's build crashes on"
else
	bad "make bug-libfuzzer BUG=$B failed: $(tail -n 5 "$T/build.log")"
fi

# ---- a merge that fails keeps the corpus: a small file system, nearly full
if unshare -rm true 2>/dev/null; then
	S=$T/small
	mkdir -p "$S"
	cat >"$T/full.sh" <<-EOF
		set -u
		mount -t tmpfs -o size=2m tmpfs "$S" || exit 99
		mkdir -p "$S/fuzz_mtree/corpus"
		cp "$OUT"/corpus/fuzz_mtree/* "$S/fuzz_mtree/corpus/"
		ls "$S/fuzz_mtree/corpus" >"$T/before"
		dd if=/dev/zero of="$S/filler" bs=4096 2>/dev/null
		truncate -s -24K "$S/filler"
		VMAFUZZ_WORK_ROOT="$S" "$V" fuzz fuzz_mtree 5 -- -runs=0
		echo "rc=\$?"
		ls "$S/fuzz_mtree/corpus" >"$T/after"
		ls -a "$S/fuzz_mtree" >"$T/work-files"
	EOF
	unshare -rm bash "$T/full.sh" >"$T/full.log" 2>&1
	if grep -q '^rc=0$' "$T/full.log" &&
		grep -q 'merging the corpus failed: .*; kept as it was' "$T/full.log" &&
		grep -qE 'corpus: +[0-9]+ inputs in .* \(not merged\)' "$T/full.log"; then
		ok
	else
		bad "a merge on a full disk:"; tail -n 12 "$T/full.log"
	fi
	cmp -s "$T/before" "$T/after" && [ -s "$T/after" ] && ok || bad "the corpus changed: $(diff "$T/before" "$T/after")"
	grep -q 'corpus.merge' "$T/work-files" && bad "the failed merge's folder is left" || ok
else
	echo "(unshare -rm is not allowed here: the merge on a full disk is not checked)"
fi
finish
