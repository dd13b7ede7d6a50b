#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# OSS-Fuzz's build checks, emulated locally for the configurations that
# tests/engines.sh leaves out (it checks libFuzzer + AddressSanitizer):
#
#   undefined  libFuzzer + UBSan, OSS-Fuzz's SANITIZER_FLAGS_undefined
#   memory     libFuzzer + MSan (-fsanitize=memory -fsanitize-memory-track-origins),
#              with KSRC set (Debian's 6.12 tree): the kernel targets too
#   afl        CC=afl-clang-fast, LIB_FUZZING_ENGINE=libAFLDriver.a, ASan, CmpLog
#              (as OSS-Fuzz's compile_afl does; skipped without afl++)
#   coverage   -fprofile-instr-generate -fcoverage-mapping, libFuzzer's driver
#
# Each is built by ./build.sh with OSS-Fuzz's variables (CC CXX CFLAGS
# CXXFLAGS LIB_FUZZING_ENGINE OUT WORK SANITIZER FUZZING_ENGINE), the four
# side by side, objects apart in their own $WORK. Then for every target in
# $OUT: the seed corpus zip, dictionary and options file are there, the
# binary is instrumented (nm: the sanitizer's runtime, SanitizerCoverage
# counters, AFL++'s map and CmpLog hooks, or the profile runtime), and it
# runs: libFuzzer builds 4 inputs ("Done 4 runs", OSS-Fuzz's check) and the
# seeds; the AFL++ build a seed, directly and under afl-showmap; the
# coverage build the seeds (OSS-Fuzz's coverage run is -runs=0 over a
# corpus: without SanitizerCoverage libFuzzer cannot fuzz), leaving a
# non-empty profile. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib

targets=$(for f in fuzz/targets/fuzz_*.c; do basename "$f" .c; done)
BASE="-O1 -fno-omit-frame-pointer -gline-tables-only"
UB_CHECKS=array-bounds,bool,builtin,enum,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr
UBSAN="-fsanitize=$UB_CHECKS,unsigned-integer-overflow -fno-sanitize-recover=$UB_CHECKS"
MSAN="-fsanitize=memory -fsanitize-memory-track-origins"
ASAN="-fsanitize=address -fsanitize-address-use-after-scope"
# what ClusterFuzz runs targets with
export UBSAN_OPTIONS=halt_on_error=1:silence_unsigned_overflow=1:print_stacktrace=1
export MSAN_OPTIONS=halt_on_error=1:print_stats=0
export ASAN_OPTIONS=detect_leaks=1

configs="undefined memory coverage"
if command -v afl-clang-fast >/dev/null 2>&1 && [ -e /usr/lib/afl/libAFLDriver.a ]; then
	configs="$configs afl"
else
	echo "afl++ not installed (afl-clang-fast, /usr/lib/afl/libAFLDriver.a): OSS-Fuzz's afl build not checked"
fi

# build CONFIG: ./build.sh with OSS-Fuzz's environment for CONFIG, into
# $T/CONFIG/out; exit status in $T/CONFIG/rc
build() {
	local c=$1 cc=clang cxx=clang++ flags engine=-fsanitize=fuzzer san=$1 fe=libfuzzer
	local extra=()
	case $c in
	undefined) flags="$BASE $UBSAN -fsanitize=fuzzer-no-link" ;;
	memory)
		# with the kernel targets, from the tree as the image installs it
		# (oss-fuzz/Dockerfile: KSRC)
		flags="$BASE $MSAN -fsanitize=fuzzer-no-link"
		extra=(KSRC="$KTREE")
		;;
	coverage) flags="$BASE -fprofile-instr-generate -fcoverage-mapping -pipe" ;;
	afl)
		cc=afl-clang-fast cxx=afl-clang-fast++ flags="$BASE $ASAN" san=address fe=afl
		engine=/usr/lib/afl/libAFLDriver.a
		extra=(AFL_QUIET=1 AFL_LLVM_CMPLOG=1)
		;;
	esac
	mkdir -p "$T/$c/out" "$T/$c/work"
	env "${extra[@]}" CC=$cc CXX=$cxx CFLAGS="$flags" CXXFLAGS="$flags" \
		LIB_FUZZING_ENGINE="$engine" SANITIZER=$san FUZZING_ENGINE=$fe ARCHITECTURE=x86_64 \
		OUT="$T/$c/out" WORK="$T/$c/work" JOBS=1 VMAFUZZ_NO_DEPS=1 \
		./build.sh >"$T/$c/build.log" 2>&1
	echo $? >"$T/$c/rc"
}

KTREE=$(scripts/kernel-tree.sh 6.12) || { bad "no 6.12 tree for the MSan build's kernel targets"; finish; }
start=$(date +%s)
for c in $configs; do
	build "$c" &
done
wait
echo "built $(echo $configs | wc -w) OSS-Fuzz configurations in $(($(date +%s) - start))s"

# has BINARY PATTERN WHAT: nm finds a symbol matching PATTERN
has() {
	if nm "$1" 2>/dev/null | grep -qE " ($2)\$"; then
		ok
	else
		bad "$1 lacks $3 (no symbol matching $2)"
	fi
}

# runs NAME LOG-PATTERN CMD...: CMD exits 0 and prints LOG-PATTERN
runs() {
	local name=$1 pat=$2 rc=0
	shift 2
	(cd "$T/run" && "$@") >"$T/run.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && { [ -z "$pat" ] || grep -qE -- "$pat" "$T/run.log"; }; then
		ok
	else
		bad "$name (exit $rc, want /$pat/)"
		tail -n 25 "$T/run.log" | sed 's/^/    /'
	fi
}

mkdir -p "$T/run"
for c in $configs; do
	out=$T/$c/out
	if [ "$(cat "$T/$c/rc")" != 0 ]; then
		bad "OSS-Fuzz $c build failed"
		tail -n 30 "$T/$c/build.log" | sed 's/^/    /'
		continue
	fi
	ok
	kts=
	[ "$c" = memory ] && kts="kfuzz_mtree kfuzz_vma"
	# nothing but what OSS-Fuzz uploads: objects go to $WORK
	dirs=$(cd "$out" && find . -mindepth 1 -maxdepth 1 -type d | head -n 3)
	[ -z "$dirs" ] && ok || bad "$c: \$OUT holds folders: $dirs"
	for t in $targets $kts; do
		b=$out/$t
		for f in "$t" "${t}_seed_corpus.zip" "$t.options"; do
			[ -s "$out/$f" ] && ok || bad "$c: \$OUT lacks $f"
		done
		[ ! -f "dict/$t.dict" ] || { [ -s "$out/$t.dict" ] && ok || bad "$c: \$OUT lacks $t.dict"; }
		grep -q '^\[libfuzzer\]' "$out/$t.options" 2>/dev/null && ok || bad "$c: $t.options has no [libfuzzer] section"
		[ -x "$b" ] || continue
		rm -rf "$T/seeds" && mkdir -p "$T/seeds"
		(cd "$T/seeds" && python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall('.')" "$out/${t}_seed_corpus.zip")
		nseeds=$(ls "$T/seeds" | wc -l)
		[ "$nseeds" -gt 0 ] && ok || bad "$c: ${t}_seed_corpus.zip is empty"

		case $c in
		undefined | memory)
			has "$b" '__start___sancov_cntrs' 'SanitizerCoverage counters'
			if [ "$c" = undefined ]; then
				has "$b" '__ubsan_handle_[a-z_]+_abort' 'UBSan checks that abort'
			else
				has "$b" '__msan_init' 'the MSan runtime'
				has "$b" '__msan_track_origins|__msan_chain_origin' 'MSan origin tracking'
			fi
			runs "$c: $t runs 4 inputs" 'Done 4 runs' "$b" -runs=4 -seed=1
			runs "$c: $t replays its seeds" 'Done [0-9]+ runs' "$b" -runs=0 "$T/seeds"
			if [ "$c" = undefined ]; then
				# a local run, without ClusterFuzz's UBSAN_OPTIONS: the
				# binary's own defaults silence the intended unsigned
				# wrap-around (and the environment still wins)
				runs "undefined: $t replays its seeds with no UBSAN_OPTIONS" 'Done [0-9]+ runs' \
					env -u UBSAN_OPTIONS "$b" -runs=0 "$T/seeds"
				grep -q 'runtime error' "$T/run.log" &&
					bad "undefined: $t reports intended unsigned wrap-around: $(grep -m1 'runtime error' "$T/run.log")" || ok
				(cd "$T/run" && env UBSAN_OPTIONS=silence_unsigned_overflow=0 "$b" -runs=0 "$T/seeds") >"$T/run.log" 2>&1
				grep -q 'unsigned integer overflow' "$T/run.log" && ok ||
					bad "undefined: UBSAN_OPTIONS does not override $t's defaults"
			fi
			;;
		coverage)
			has "$b" '__llvm_profile_runtime' 'the profile runtime'
			has "$b" '__start___llvm_prf_cnts' 'profile counters'
			rm -f "$T/cov.profraw"
			runs "coverage: $t replays its seeds" "Done $((nseeds + 1)) runs" \
				env LLVM_PROFILE_FILE="$T/cov.profraw" "$b" -runs=0 "$T/seeds"
			if command -v llvm-profdata >/dev/null 2>&1; then
				max=$(llvm-profdata show "$T/cov.profraw" 2>/dev/null |
					sed -n 's/^Maximum function count: *//p')
				[ "${max:-0}" -gt 0 ] && ok || bad "coverage: $t wrote no counts to its profile"
			else
				[ -s "$T/cov.profraw" ] && ok || bad "coverage: $t wrote no profile"
			fi
			;;
		afl)
			has "$b" '__afl_area_ptr' "AFL++'s coverage map"
			has "$b" '__cmplog_ins_hook1' "AFL++'s CmpLog hooks"
			has "$b" '__asan_init' 'the ASan runtime'
			seed=$T/seeds/$(ls "$T/seeds" | head -n 1)
			runs "afl: $t runs a seed" 'Execution successful' "$b" "$seed"
			rm -f "$T/map"
			runs "afl: $t under afl-showmap" '' afl-showmap -q -o "$T/map" -- "$b" "$seed"
			[ -s "$T/map" ] && ok || bad "afl: afl-showmap saw no edges of $t"
			;;
		esac
	done
done

finish
