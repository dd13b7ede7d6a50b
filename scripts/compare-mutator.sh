#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Measure the structure-aware mutator: run out/libfuzzer/T (with it) and
# out/libfuzzer-plain/T (without) side by side, one core each, for SECS
# seconds from the same seeds and dictionary, each into its own empty
# corpus; print edges (cov), features (ft), corpus size and exec/s at the
# end and features at a few times; draw both with `vmafuzz plot --time`.
#
#   scripts/compare-mutator.sh [TARGET] [SECS]     (default fuzz_mtree 600)
#
# Output in out/measure/TARGET/: {custom,plain}.log, their corpora and
# crashes, compare.png. Needs 2 cores to be fair; both runs share the
# machine's other load alike.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
t=${1:-fuzz_mtree}
secs=${2:-600}
dir=out/measure/$t

make -s --no-print-directory "out/libfuzzer/$t" "out/libfuzzer-plain/$t" corpus tool
rm -rf "$dir"
mkdir -p "$dir"
# copies, so a rebuild during the run changes nothing
cp "out/libfuzzer/$t" "$dir/$t-custom"
cp "out/libfuzzer-plain/$t" "$dir/$t-plain"
dict=()
[ -f "dict/$t.dict" ] && dict=("-dict=dict/$t.dict")
ncpu=$(nproc)
echo "fuzzing $t for ${secs}s twice, side by side: $dir/{custom,plain}.log"
core=0
for v in custom plain; do
	mkdir -p "$dir/$v" "$dir/$v-crashes"
	pin=()
	command -v taskset >/dev/null && [ "$ncpu" -ge 2 ] && pin=(taskset -c $core)
	"${pin[@]}" "$dir/$t-$v" "$dir/$v" "out/corpus/$t" "${dict[@]}" -max_total_time="$secs" \
		-seed=1 -print_final_stats=1 -artifact_prefix="$dir/$v-crashes/" >"$dir/$v.log" 2>&1 &
	core=$((core + 1))
done
wait

# the last progress line, and features at 10/30/60/120/300/600 s (time:
# executions / exec/s, see vmafuzz plot --help)
printf '%-8s %8s %8s %8s %8s %10s %8s  %s\n' build cov ft corpus exec/s execs crashes \
	'ft at 10/30/60/120/300/600 s'
for v in custom plain; do
	log=$dir/$v.log
	last=$(grep -E '^#[0-9]+' "$log" | grep 'cov: ' | tail -n 1)
	at=$(out/vmafuzz plot --script --time "$log" |
		awk '/^\$d0 << EOD/ { d = 1; next } /^EOD/ { d = 0 } d' |
		awk 'BEGIN { n = split("10 30 60 120 300 600", c, " "); i = 1 }
		     { while (i <= n && $1 >= c[i]) { s = s (s ? "/" : "") $3; i++ } }
		     END { print s }')
	printf '%-8s %8s %8s %8s %8s %10s %8s  %s\n' "$v" \
		"$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')" \
		"$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')" \
		"$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')" \
		"$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")" \
		"$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")" \
		"$(find "$dir/$v-crashes" -type f | wc -l)" "$at"
done
if command -v gnuplot >/dev/null 2>&1; then
	out/vmafuzz plot --time -o "$dir/compare.png" \
		--title "$t, ${secs} s: structure-aware mutator (custom) vs libFuzzer's own (plain)" \
		"$dir/custom.log" "$dir/plain.log"
fi
