#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ./build.sh fuzz --afl as its user sees it (tools/campaign/run_afl.h,
# tools/cmd_statsd.c):
#  - vmafuzz statsd turns AFL++'s statsd packets into plot_data rows (time
#    from fuzzer_stats' start_time, map density), refuses bad command lines;
#    (how its rows go in front of afl-fuzz's own in plot_data, and how what
#    afl-fuzz leaves behind is ended: tests/test_campaign.c)
#  - a 20 s run off a terminal: status lines, afl-fuzz's output in a log,
#    plot_data with a row a second that vmafuzz plot draws as a line,
#    afl-whatsup counting the fuzzer alive while it runs and dead after
#    (fuzzer_pid is afl-fuzz's own pid), nothing of it left running;
#  - on a terminal (script(1)) afl-fuzz draws its status screen instead,
#    unless AFL_NO_UI is set.
# Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz

# ---- vmafuzz statsd ----------------------------------------------------------
expect 0 'usage: vmafuzz statsd' "$V" statsd --help
expect 2 'needs the file to write rows to' "$V" statsd
expect 2 "unknown option '--frob'" "$V" statsd --frob "$T/rows"
expect 2 '--map-size takes a number' "$V" statsd --map-size lots "$T/rows"
expect 2 '--parent needs an argument' "$V" statsd "$T/rows" --parent
expect 2 "cannot open $T/no/rows" "$V" statsd "$T/no/rows"

# packet N EXECS: AFL++ 4.04c's untagged statsd lines, EXECS executions
packet() {
	local f
	for f in cycle_done:0 cycles_wo_finds:0 "execs_done:$1" execs_per_sec:250.5 corpus_count:42 \
		corpus_favored:3 corpus_found:31 corpus_imported:0 max_depth:4 cur_item:7 pending_favs:2 \
		pending_total:30 corpus_variable:0 saved_crashes:1 saved_hangs:0 total_crashes:1 \
		slowest_exec_ms:9 edges_found:500 var_byte_count:0 havoc_expansion:0; do
		printf 'fuzzing.%s|g\n' "$f"
	done
}
# an older run's fuzzer_stats, then afl-fuzz's, written after vmafuzz
# statsd began: it started 100 s ago
printf 'start_time        : 12345\n' >"$T/fuzzer_stats"
touch -d '1 hour ago' "$T/fuzzer_stats"
"$V" statsd --port-file "$T/port" --stats "$T/fuzzer_stats" --map-size 1000 --parent $$ \
	"$T/rows" 2>"$T/statsd.err" &
spid=$!
for ((i = 0; i < 50; i++)); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(cat "$T/port" 2>/dev/null)
printf 'start_time        : %s\nrun_time          : 100\n' "$(($(date +%s) - 100))" >"$T/fuzzer_stats"
if [ -n "$port" ]; then
	packet 1000 | grep -v edges_found >/dev/udp/127.0.0.1/"$port" # incomplete: no row
	sleep 1.1
	packet 1000 >/dev/udp/127.0.0.1/"$port"
	packet 1000 >/dev/udp/127.0.0.1/"$port" # nothing new: no row
	sleep 1.1
	packet 2000 >/dev/udp/127.0.0.1/"$port"
	sleep 0.5
	ok
else
	bad "vmafuzz statsd wrote no port: $(cat "$T/statsd.err")"
fi
kill -INT "$spid" 2>/dev/null # ignored
sleep 0.3
kill -0 "$spid" 2>/dev/null && ok || bad "vmafuzz statsd ended on SIGINT"
kill "$spid" 2>/dev/null
wait "$spid" && ok || bad "vmafuzz statsd did not end well on SIGTERM"
head -n 1 "$T/rows" | grep -q '^# relative_time, cycles_done, .*, total_execs, edges_found$' &&
	ok || bad "statsd rows have no plot_data header: $(head -n 1 "$T/rows")"
if [ "$(grep -vc '^#' "$T/rows")" = 2 ] &&
	grep -Eq '^10[0-3], 0, 7, 42, 30, 2, 50.00%, 1, 0, 4, 250.50, 1000, 500$' "$T/rows" &&
	grep -Eq '^10[1-4], 0, 7, 42, 30, 2, 50.00%, 1, 0, 4, 250.50, 2000, 500$' "$T/rows"; then
	ok
else
	bad "statsd rows are not the packets':"; cat "$T/rows"
fi
# and it ends when its parent has
sh -c "exec '$V' statsd --port-file '$T/port2' --parent \$\$ '$T/rows2' & sleep 0.5" 2>/dev/null
sleep 2
pgrep -f "statsd --port-file $T/port2" >/dev/null && bad "vmafuzz statsd outlived its parent" || ok

# ---- real runs -----------------------------------------------------------------
if ! command -v afl-fuzz >/dev/null 2>&1 || ! command -v afl-clang-fast >/dev/null 2>&1; then
	echo "(afl++ not installed: ./build.sh fuzz --afl is not run)"
	finish
	exit $?
fi
W=$T/work
t=fuzz_mtree
A=$W/$t/afl/default
VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT=$W VMAFUZZ_STATUS_EVERY=3 ./build.sh fuzz --afl $t 20 \
	>"$T/run.log" 2>&1 &
bpid=$!
# afl-whatsup while it runs: alive (fuzzer_stats is written once afl-fuzz
# has calibrated its seeds)
while kill -0 "$bpid" 2>/dev/null && [ ! -f "$A/fuzzer_stats" ]; do sleep 0.5; done
if [ -f "$A/fuzzer_stats" ] && kill -0 "$bpid" 2>/dev/null; then
	afl-whatsup -s "$W/$t/afl" >"$T/up.log" 2>&1
	grep -Eq 'Fuzzers alive : 1$' "$T/up.log" && ok || { bad "afl-whatsup while running:"; cat "$T/up.log"; }
else
	bad "no fuzzer_stats while afl-fuzz ran: $(tail -n 5 "$T/run.log")"
fi
wait "$bpid" && ok || { bad "./build.sh fuzz --afl failed:"; tail -n 20 "$T/run.log"; }
afl-whatsup -s "$W/$t/afl" >"$T/down.log" 2>&1
grep -Eq 'Fuzzers alive : 0$' "$T/down.log" && grep -Eq 'Dead or remote : 1 ' "$T/down.log" &&
	ok || { bad "afl-whatsup after the run:"; cat "$T/down.log"; }
fpid=$(sed -n 's/^fuzzer_pid *: *//p' "$A/fuzzer_stats")
[ -n "$fpid" ] && [ "$fpid" != 1 ] && ! kill -0 "$fpid" 2>/dev/null && ok ||
	bad "fuzzer_pid $fpid: not afl-fuzz's own, or alive"
# nothing of the run left (its mark: build.sh's pid, then a time)
[ -z "$(grep -slz "^VMAFUZZ_AFL_RUN=$bpid-" /proc/[0-9]*/environ 2>/dev/null)" ] && ok ||
	bad "processes of the run are left"
pgrep -f "statsd --port-file $W/" >/dev/null && bad "vmafuzz statsd left running" || ok
# status lines instead of the status screen, afl-fuzz's output in the log
grep -Eq 'elapsed, [0-9]+s left: exec/s [0-9]+, edges [0-9]+, corpus [0-9]+, crashes 0 new' "$T/run.log" &&
	ok || { bad "no status line with figures:"; tail -n 20 "$T/run.log"; }
grep -q 'process timing' "$T/run.log" && bad "a status screen off a terminal" || ok
log=$(sed -n 's/^   log: *//p' "$T/run.log")
[ -n "$log" ] && grep -q 'afl-fuzz' "$log" && ok || bad "no afl-fuzz log named: '$log'"
# plot_data: a row a second (from vmafuzz statsd), in time order, afl-fuzz's
# own last; the plot gets as many points
rows=$(grep -vc '^#' "$A/plot_data")
[ "$rows" -ge 8 ] && ok || { bad "plot_data has $rows rows after 20 s"; cat "$A/plot_data"; }
cut -d, -f1 "$A/plot_data" | grep -v '^#' | sort -c -n && ok || bad "plot_data rows out of order"
grep -Eq "plot: .*plot_data \\($rows rows\\)" "$T/run.log" && ok || bad "the summary does not count the rows"
"$V" plot --script "$A/plot_data" >"$T/plot.gp" 2>&1
[ "$(grep -cE '^ [0-9]+ [0-9]+ NaN [0-9]+$' "$T/plot.gp")" -ge 8 ] && ok ||
	{ bad "vmafuzz plot draws fewer points:"; head -n 30 "$T/plot.gp"; }
ls "$W/$t"/afl-*.plot >/dev/null 2>&1 && bad "statsd rows not merged away" || ok
if command -v gnuplot >/dev/null 2>&1; then
	expect 0 "wrote $T/afl.png" "$V" plot -o "$T/afl.png" "$A/plot_data"
fi

# on a terminal: afl-fuzz's status screen, no status lines of ours
script -qec "stty cols 120 rows 40; VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT=$W ./build.sh fuzz --afl $t 5" \
	/dev/null >"$T/tty.log" 2>&1 </dev/null
grep -aq 'process timing' "$T/tty.log" && grep -aq 'overall results' "$T/tty.log" && ok ||
	{ bad "no status screen on a terminal:"; tail -c 2000 "$T/tty.log"; }
grep -aq 'elapsed, [0-9]*s left' "$T/tty.log" && bad "status lines over the status screen" || ok
grep -aq 'afl-fuzz exit status 0' "$T/tty.log" && ok || bad "the run on a terminal failed"
# ... and with AFL_NO_UI set there, status lines
script -qec "AFL_NO_UI=1 VMAFUZZ_NO_DEPS=1 VMAFUZZ_WORK_ROOT=$W ./build.sh fuzz --afl $t 5" \
	/dev/null >"$T/tty.log" 2>&1 </dev/null
grep -aq 'process timing' "$T/tty.log" && bad "a status screen with AFL_NO_UI set" || ok
grep -aq 'elapsed, [0-9]*s left' "$T/tty.log" && ok || bad "no status line with AFL_NO_UI set"

finish
