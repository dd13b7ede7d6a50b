#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz plot: libFuzzer logs (plain and -fork), AFL++ plot_data and
# benchmark CSVs become gnuplot scripts with the right numbers, and PNGs
# when gnuplot is installed (skipped with a message otherwise); bad command
# lines exit 2. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"


is_png() {
	[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

# a libFuzzer log: no clock; exec/s is executions over whole seconds
cat >"$T/fuzz.log" <<'EOF'
INFO: Seed: 1
#2	INITED cov: 100 ft: 200 corp: 9/1000b exec/s: 0 rss: 30Mb
#512	pulse  cov: 110 ft: 250 corp: 12/1200b lim: 124 exec/s: 512 rss: 31Mb
#600	NEW    cov: 120 ft: 260 corp: 13/1300b lim: 124 exec/s: 300 rss: 31Mb L: 99/124 MS: 1 Custom-
#3000	REDUCE cov: 121 ft: 270 corp: 13/1290b lim: 124 exec/s: 1000 rss: 31Mb L: 88/124 MS: 2 Custom-CustomCrossOver-
Done 3000 runs in 3 second(s)
EOF
# a libFuzzer -fork log: has time
cat >"$T/fork.log" <<'EOF'
#1000: cov: 130 ft: 300 corp: 20 exec/s 500 oom/timeout/crash: 0/0/0 time: 2s job: 1 dft_time: 0
#5000: cov: 140 ft: 320 corp: 25 exec/s 800 oom/timeout/crash: 0/0/0 time: 6s job: 2 dft_time: 0
EOF
# AFL++ 4.x plot_data
cat >"$T/plot_data" <<'EOF'
# relative_time, cycles_done, cur_item, corpus_count, pending_total, pending_favs, map_size, saved_crashes, saved_hangs, max_depth, execs_per_sec, total_execs, edges_found
5, 0, 3, 40, 40, 9, 16.91%, 0, 0, 2, 1000.00, 5000, 300
10, 0, 7, 55, 50, 9, 17.20%, 0, 0, 3, 1100.00, 11000, 310
EOF
# the columns of 'vmafuzz bench mtree-dup --csv'
cat >"$T/bench.csv" <<'EOF'
entries,nodes,dup_ns_per_entry,append_ns_per_entry,append_over_dup
21,3,10.50,20.10,1.91
821,60,8.20,19.00,2.32
51221,3700,8.90,21.20,2.38
EOF

# command line
expect 0 'usage: vmafuzz plot' "$V" plot --help
expect 2 'needs a libFuzzer log' "$V" plot
expect 2 "unknown option '--frob'" "$V" plot --frob "$T/fuzz.log"
expect 2 '-o needs an argument' "$V" plot "$T/fuzz.log" -o
expect 2 '--bench takes one CSV' "$V" plot --bench "$T/bench.csv" "$T/fuzz.log"
expect 2 'exclude each other' "$V" plot --time --execs "$T/fuzz.log"
expect 2 "cannot open $T/missing" "$V" plot "$T/missing"
printf 'hello\n' >"$T/empty.log"
expect 2 'no progress lines' "$V" plot "$T/empty.log"
expect 2 'no columns to plot' "$V" plot --bench "$T/empty.log"

# the numbers that reach gnuplot: x, cov, ft, corpus per line
expect 0 '^ 600 120 260 13$' "$V" plot --script "$T/fuzz.log"
expect 0 "set xlabel 'executions'" "$V" plot --script "$T/fuzz.log"
# --time: N / exec/s seconds (0 in the first second)
expect 0 '^ 3 121 270 13$' "$V" plot --script --time "$T/fuzz.log"
expect 0 '^ 0 100 200 9$' "$V" plot --script --time "$T/fuzz.log"
expect 0 '^ 6 140 320 25$' "$V" plot --script "$T/fork.log"
expect 0 "set xlabel 'seconds'" "$V" plot --script "$T/fork.log"
expect 0 '^ 10 310 NaN 55$' "$V" plot --script "$T/plot_data"
# AFL++ and plain libFuzzer together: executions (AFL++'s total_execs)
expect 0 '^ 11000 310 NaN 55$' "$V" plot --script "$T/plot_data" "$T/fuzz.log"
expect 0 '^ 51221 3700 8.9 21.2 2.38$' "$V" plot --script --bench "$T/bench.csv"
expect 0 "append_over_dup" "$V" plot --script --bench "$T/bench.csv"
expect 0 "set output '$T/x.png'" "$V" plot --script -o "$T/x.png" "$T/fuzz.log"

if command -v gnuplot >/dev/null 2>&1; then
	expect 0 "wrote $T/fuzz.png" "$V" plot "$T/fuzz.log"
	is_png "$T/fuzz.png" && ok || bad "fuzz.png is not a PNG"
	expect 0 "wrote $T/both.png" "$V" plot -o "$T/both.png" --time "$T/fuzz.log" "$T/fork.log" "$T/plot_data"
	is_png "$T/both.png" && ok || bad "both.png is not a PNG"
	expect 0 "wrote $T/bench.png" "$V" plot --bench "$T/bench.csv"
	is_png "$T/bench.png" && ok || bad "bench.png is not a PNG"
	# a real log, if ./build.sh fuzz has written one
	if [ -s out/work/fuzz_mtree/fuzz.log ] && grep -q 'cov: ' out/work/fuzz_mtree/fuzz.log; then
		expect 0 'wrote' "$V" plot -o "$T/real.png" out/work/fuzz_mtree/fuzz.log
		is_png "$T/real.png" && ok || bad "real.png is not a PNG"
	fi
else
	echo "gnuplot not installed (apt-get install gnuplot-nox): PNG drawing not checked"
	expect 1 'gnuplot not found' "$V" plot "$T/fuzz.log"
fi

finish
