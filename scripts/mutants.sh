#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ./build.sh mutants: mutation testing of the model (src/).
#
#   ./build.sh mutants [--n N] [--seconds S] [--seed K] [--target T]
#                      [--files 'GLOB...'] [--only FILE:LINE:OP:COL] [--csv]
#
# Makes N small faults in src/ (default 100; scripts/mutants-list.awk lists
# every one: relational and logical operators, off-by-one, a deleted call,
# a skipped branch), chosen by seed K (default 1) spread over the files of
# GLOB (default src/*/*.c). Each is built in a copy of the tree
# (out/mutants/tree/), then, on each target that reaches its file (or T),
# the seeds are replayed and, if they all pass, the target fuzzes for S
# seconds (default 60) from them, the targets side by side. A mutant is
# killed by the seeds or by fuzzing (with the time), survives, or is not
# built. A mutant of src/mm or src/tree that survives them is then asked
# of the running kernel: fuzz_conform (fuzz_mm's programs in the model and
# for real) replays fuzz_mm's seeds, where it can run here. A mutant that
# survives all that is last run against the unit tests (tests/test_*.c):
# a mutant of a check's own code shows only on a broken state, which is
# what those tests make to show each check firing. The table goes
# to out/mutants/report.csv, each survivor's diff to
# out/mutants/survivors.md; the last line is the score, killed over killed
# and survived. --only runs one mutant of the list, as the list names it
# (given again, one more).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
M=out/mutants
n=100 secs=60 seed=1 target="" files="src/*/*.c" only="" csv=0

usage() {
	sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'
}
die() {
	echo "build.sh mutants: $*" >&2
	exit 2
}
number() {
	case $2 in
	'' | *[!0-9]*) die "$1 takes a number, not '$2'" ;;
	esac
}
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help)
		usage
		exit 0
		;;
	--n | --seconds | --seed | --target | --files | --only)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		--n) number "$1" "$2" && n=$2 ;;
		--seconds) number "$1" "$2" && secs=$2 ;;
		--seed) number "$1" "$2" && seed=$2 ;;
		--target) target=$2 ;;
		--files) files=$2 ;;
		--only)
			[ -n "$2" ] || die "--only takes FILE:LINE:OP:COL, not an empty word"
			only="$only $2"
			;;
		esac
		shift 2
		;;
	--csv) csv=1 && shift ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ "$n" -gt 0 ] || die "--n must be at least 1"
if [ -n "$target" ] && [ ! -e "fuzz/targets/$target.c" ]; then
	die "unknown target '$target' (have: $(cd fuzz/targets && ls fuzz_*.c | sed 's/\.c$//' | paste -sd' ' -))"
fi

# The targets whose programs run a file's code.
reaching() {
	if [ -n "$target" ]; then
		echo "$target"
		return
	fi
	case $1 in
	src/tree/*) echo fuzz_mtree fuzz_mm ;;
	src/mm/rollup.c) echo fuzz_rollup fuzz_mm ;;
	src/mm/fork*.c | src/mm/uprobe.c | src/mm/exit.c) echo fuzz_fork fuzz_mm ;;
	src/mm/*) echo fuzz_mm fuzz_fork ;;
	*) echo fuzz_mm fuzz_mtree ;;
	esac
}

# ---- the mutants
# shellcheck disable=SC2086 # GLOB is a list of patterns
list=$(awk -f scripts/mutants-list.awk $files) || die "no C files in '$files'"
[ -n "$list" ] || die "no mutants in '$files'"
if [ -n "$only" ]; then
	chosen=""
	for one in $only; do
		IFS=: read -r of ol oo oc <<<"$one"
		m=$(awk -F'\t' -v f="$of" -v l="$ol" -v o="$oo" -v c="$oc" \
			'$1 == f && $2 == l && $3 == o && $4 == c' <<<"$list")
		[ -n "$m" ] || die "--only $one: no such mutant (FILE:LINE:OP:COL as the list names it)"
		chosen+="$m"$'\n'
	done
	chosen=${chosen%$'\n'}
else
	# a hash of each with the seed orders them; the first N are taken
	chosen=$(while IFS= read -r m; do
		printf '%s\t%s\n' "$(printf '%s %s' "$seed" "$m" | md5sum | cut -c1-12)" "$m"
	done <<<"$list" | sort | awk -v n="$n" 'NR <= n' | cut -f2- | sort -t$'\t' -k1,1 -k2,2n)
fi
total=$(wc -l <<<"$chosen")

# ---- a copy of the tree to break, built once
make -s --no-print-directory -j2 corpus >/dev/null
rm -rf "$M/runs"
mkdir -p "$M/tree" "$M/runs"
# The copy stays from one run to the next (its build too): only the files
# that differ from the tree's are copied again, and those no longer in it
# go, so that make rebuilds only what changed.
git ls-files | sort >"$M/files"
(cd "$M/tree" && find . -path ./out -prune -o -type f -printf '%P\n' | sort) >"$M/had"
comm -13 "$M/files" "$M/had" | (cd "$M/tree" && xargs -r -d '\n' rm -f)
while IFS= read -r f; do
	cmp -s "$f" "$M/tree/$f" || cp --parents "$f" "$M/tree"
done <"$M/files"
rm -f "$M/files" "$M/had"
echo "mutants: $total of $(wc -l <<<"$list") in $files; building the copy in $M/tree/"
all_targets=$(for f in fuzz/targets/fuzz_*.c; do basename "$f" .c; done)
build() {
	make -C "$M/tree" -s --no-print-directory -j2 OUTDIR=out \
		$(for t in $1; do echo "out/replay/$t out/libfuzzer/$t"; done) >"$2" 2>&1
}
if ! build "$all_targets" "$M/build.log"; then
	echo "build.sh mutants: the unbroken copy does not build ($M/build.log)" >&2
	exit 1
fi

# The live kernel as a second way of knowing (live/fuzz_conform.c): a
# model that does what the calls ask but answers or counts otherwise than
# this kernel (a Shared_Dirty page counted clean) breaks no check of the
# model's own. Asked only if the unbroken copy's fuzz_conform agrees with
# the kernel on every seed here (a Linux kernel, the window free).
live=0
build_live() {
	make -C "$M/tree" -s --no-print-directory -j2 OUTDIR=out out/libfuzzer/fuzz_conform \
		out/conform-server >"$1" 2>&1
}
# judge_live DIR: "killed seeds" or "survived"
judge_live() {
	mkdir -p "$1"
	if (timeout 300 "$M/tree/out/libfuzzer/fuzz_conform" out/corpus/fuzz_mm/* >"$1/conform.log" 2>&1) 2>/dev/null; then
		echo survived
	else
		echo "killed seeds"
	fi
}
if [ -z "$target" ] && build_live "$M/build-live.log" &&
	[ "$(judge_live "$M/live-probe")" = survived ]; then
	live=1
else
	echo "mutants: fuzz_conform does not run here (or disagrees unbroken: $M/live-probe/conform.log); the kernel is not asked"
fi

# The unit tests as the last judge, if the unbroken copy passes them.
# Without -Werror: a mutant may draw a warning (`a || b && c`) and is
# still worth judging; the unbroken copy is built the same way, so the
# flags do not change from one build to the next.
build_tests() {
	make -C "$M/tree" -s --no-print-directory -j2 OUTDIR=out \
		FLAGS_test='-g -O1 $(SAN)' test >"$1" 2>&1
}
# judge_tests DIR: "killed tests:NAME" (the first test binary that fails) or "survived"
judge_tests() {
	local b name
	mkdir -p "$1"
	for b in "$M/tree/out/tests"/test_*; do
		name=$(basename "$b")
		if ! (cd "$M/tree" && timeout 300 "out/tests/$name" >"$ROOT/$1/$name.log" 2>&1) 2>/dev/null; then
			echo "killed tests:$name"
			return
		fi
	done
	echo survived
}
# tests_probe: asked at the first survivor (a run that kills every mutant
# never builds the tests): 1 if the unbroken copy passes them. The copy is
# unbroken again only while no mutant is applied, so the mutant's file is
# put back for the probe and the mutant again after it.
tests=unknown
tests_probe() {
	local f=$1
	cp "$M/tree/$f" "$M/tree/$f.mutant" && cp "$f" "$M/tree/$f"
	if build_tests "$M/build-tests.log" && [ "$(judge_tests "$M/tests-probe")" = survived ]; then
		tests=1
	else
		tests=0
		echo "mutants: the unit tests fail on the unbroken copy ($M/build-tests.log, $M/tests-probe/); they judge nothing"
	fi
	# cp, not mv: a newer time than the objects just built, so make
	# rebuilds them with the mutant
	cp "$M/tree/$f.mutant" "$M/tree/$f" && rm -f "$M/tree/$f.mutant"
}

# apply FILE LINE OP COL ORIG REPL: the mutant into the copy
apply() {
	awk -v L="$2" -v op="$3" -v C="$4" -v o="$5" -v r="$6" '
		NR == L {
			if (op == "delete") {
				match($0, /^[ \t]*/)
				$0 = substr($0, 1, RLENGTH) ";"
			} else {
				if (substr($0, C, length(o)) != o)
					exit 3
				$0 = substr($0, 1, C - 1) r substr($0, C + length(o))
			}
		}
		{ print }' "$1" >"$M/tree/$1.new" && mv "$M/tree/$1.new" "$M/tree/$1"
}

# judge TARGET DIR: seeds, then fuzzing; prints "killed seeds|killed fuzz S|survived"
judge() {
	local t=$1 dir=$2 rc=0 t0 t1
	mkdir -p "$dir/corpus" "$dir/crash"
	# (a subshell: bash's own "Aborted" notice stays out of the output)
	if ! (timeout 120 "$M/tree/out/replay/$t" "out/corpus/$t" >"$dir/seeds.log" 2>&1) 2>/dev/null; then
		echo "killed seeds"
		return
	fi
	cp out/corpus/"$t"/* "$dir/corpus/"
	t0=$(date +%s)
	(timeout $((secs + 60)) "$M/tree/out/libfuzzer/$t" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -dict="dict/$t.dict" -artifact_prefix="$dir/crash/" -seed=1 \
		"$dir/corpus" >"$dir/fuzz.log" 2>&1) 2>/dev/null || rc=$?
	t1=$(date +%s)
	if [ "$rc" -ne 0 ] && ls "$dir/crash"/* >/dev/null 2>&1; then
		echo "killed fuzz $((t1 - t0))"
	elif [ "$rc" -ne 0 ]; then
		echo "killed fuzz-exit-$rc $((t1 - t0))"
	else
		echo "survived"
	fi
}

echo "id,file,line,op,col,status,by,seconds" >"$M/report.csv"
: >"$M/survivors.md"
k=0 killed=0 survived=0 unbuilt=0
while IFS=$'\t' read -r f l op c o r; do
	k=$((k + 1))
	cp "$f" "$M/tree/$f"
	if ! apply "$f" "$l" "$op" "$c" "$o" "$r"; then
		echo "build.sh mutants: cannot apply $f:$l:$op:$c" >&2
		exit 1
	fi
	ts=$(reaching "$f")
	status=survived by="" s=""
	if ! build "$ts" "$M/runs/$k.build.log"; then
		status=not-built
	else
		pids=()
		for t in $ts; do
			judge "$t" "$M/runs/$k/$t" >"$M/runs/$k.$t.verdict" 2>/dev/null &
			pids+=($!)
		done
		wait "${pids[@]}"
		for t in $ts; do
			read -r v how took <"$M/runs/$k.$t.verdict" || true
			[ "$v" = killed ] || continue
			took=${took:-0}
			# the seeds first, else the quickest fuzzing
			if [ "$how" = seeds ]; then
				if [ "$s" != 0 ]; then
					status=killed by="$t:seeds" s=0
				fi
			elif [ "$status" != killed ] || [ "$took" -lt "$s" ]; then
				status=killed by="$t:$how" s=$took
			fi
		done
	fi
	case $live:$status:$f in
	1:survived:src/mm/* | 1:survived:src/tree/*)
		if ! build_live "$M/runs/$k.build-live.log"; then
			status=not-built
		elif [ "$(judge_live "$M/runs/$k/fuzz_conform")" != survived ]; then
			status=killed by="fuzz_conform:seeds" s=0
		else
			ts="$ts fuzz_conform(seeds)"
		fi
		;;
	esac
	[ "$tests:$status" != unknown:survived ] || tests_probe "$f"
	if [ "$tests" = 1 ] && [ "$status" = survived ]; then
		if ! build_tests "$M/runs/$k.build-tests.log"; then
			ts="$ts tests(not built)"
		else
			read -r v how <<<"$(judge_tests "$M/runs/$k/tests")"
			if [ "$v" = killed ]; then
				status=killed by="$how" s=0
			else
				ts="$ts tests"
			fi
		fi
	fi
	case $status in
	killed) killed=$((killed + 1)) ;;
	survived)
		survived=$((survived + 1))
		{
			echo "## $f:$l ($op) survived $ts"
			echo '```diff'
			diff -u --label "a/$f" --label "b/$f" "$f" "$M/tree/$f" | sed -n '3,$p' || true
			echo '```'
		} >>"$M/survivors.md"
		;;
	not-built) unbuilt=$((unbuilt + 1)) ;;
	esac
	echo "$k,$f,$l,$op,$c,$status,$by,$s" >>"$M/report.csv"
	[ "$csv" = 1 ] || printf '[%d/%d] %s:%s %s: %s%s\n' "$k" "$total" "$f" "$l" "$op" "$status" \
		"${by:+ ($by${s:+, ${s}s})}"
	cp "$f" "$M/tree/$f"
done <<<"$chosen"
# the copy as it was, for the next run
build "$all_targets" "$M/build.log" || true
[ "$live" = 0 ] || build_live "$M/build-live.log" || true
[ "$tests" != 1 ] || build_tests "$M/build-tests.log" || true

[ "$csv" = 1 ] && cat "$M/report.csv"
score=0
[ $((killed + survived)) -gt 0 ] && score=$((100 * killed / (killed + survived)))
echo "mutants: $total, killed $killed, survived $survived, not built $unbuilt; score $score% (killed / (killed + survived))"
echo "table: $ROOT/$M/report.csv; survivors' diffs: $ROOT/$M/survivors.md"
