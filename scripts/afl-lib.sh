# SPDX-License-Identifier: GPL-2.0
#
# What ./build.sh fuzz --afl does around afl-fuzz (sourced by build.sh and
# by tests/afl.sh, which checks each part): the status screen or status
# lines, the rows of plot_data from the start, and the processes afl-fuzz
# leaves behind. docs/fuzzing-at-scale.md says why.

# afl_wants_ui: whether afl-fuzz should draw its status screen: stdout is a
# terminal and AFL_NO_UI is not set. Otherwise build.sh sets AFL_NO_UI=1,
# keeps afl-fuzz's output in a log and prints its own status lines.
afl_wants_ui() {
	[ -t 1 ] && [ -z "${AFL_NO_UI:-}" ]
}

# afl_leftovers ID: the processes whose environment holds VMAFUZZ_AFL_RUN=ID
# (build.sh gives it to each afl-fuzz it starts, and so to the target's
# processes), one pid a line.
afl_leftovers() {
	grep -slzxF "VMAFUZZ_AFL_RUN=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}

# afl_end_leftovers ID: kill (SIGKILL) what afl_leftovers ID names, once
# afl-fuzz has ended: AFL++ 4.04c can leave its persistent-mode child
# behind, stopped (AFLplusplus issues 610 and 2577), holding its memory
# and, when pinned, a core. Says how many it ended. (A PID namespace ended
# them before, but afl-fuzz then wrote itself into fuzzer_stats as pid 1,
# which afl-whatsup takes for a fuzzer alive for ever.)
afl_end_leftovers() {
	local pids what
	pids=$(afl_leftovers "$1")
	[ -n "$pids" ] || return 0
	what=$(ps -o pid=,stat=,comm= -p "$(paste -sd, <<<"$pids")" 2>/dev/null |
		awk '{ printf "%s%s %s (%s)", (NR > 1 ? ", " : ""), $1, $3, $2 }' || true)
	# shellcheck disable=SC2086 # one pid a word
	kill -KILL $pids 2>/dev/null || true
	echo "   (ended what afl-fuzz left behind: ${what:-$(paste -sd' ' <<<"$pids")})"
}

# afl_statsd_start ROWS STATS MAPSIZE: vmafuzz statsd (tools/cmd_statsd.c)
# writing ROWS, its time column from afl-fuzz's fuzzer_stats STATS, until
# this shell ends; sets statsd_pid and statsd_port (empty when it could not
# start).
afl_statsd_start() {
	local portf=$1.port i
	rm -f "$portf" "$1"
	statsd_port=
	out/vmafuzz statsd --port-file "$portf" --stats "$2" --map-size "${3:-0}" \
		--parent $$ "$1" </dev/null &
	statsd_pid=$!
	for ((i = 0; i < 50; i++)); do
		[ -s "$portf" ] && break
		sleep 0.1
	done
	statsd_port=$(cat "$portf" 2>/dev/null || true)
	rm -f "$portf"
}

# afl_merge_rows PLOT_DATA ROWS: the rows of ROWS (vmafuzz statsd's) from
# before afl-fuzz's own first row in PLOT_DATA, which afl-fuzz writes only
# after its first minute and when it ends, go in front of it; ROWS goes.
afl_merge_rows() {
	local pd=$1 rows=$2 first
	[ -f "$rows" ] || return 0
	if [ -f "$pd" ]; then
		first=$(grep -v '^#' "$pd" | head -n 1 | cut -d, -f1)
		{
			head -n 1 "$pd"
			grep -v '^#' "$rows" | awk -F, -v first="${first:-}" \
				'first == "" || $1 + 0 < first + 0'
			tail -n +2 "$pd"
		} >"$pd.tmp" && mv "$pd.tmp" "$pd"
	fi
	rm -f "$rows"
}
