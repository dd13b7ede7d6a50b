#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every target runs under its engines: libFuzzer for a few thousand inputs
# from the seeds, the AFL++ build (when afl++ is installed) on a seed, and
# the OSS-Fuzz build contract (targets, seed zip, dict, options in $OUT),
# each target running 4 inputs. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib

targets=$(for f in fuzz/targets/fuzz_*.c; do basename "$f" .c; done)

for t in $targets; do
	# new inputs go to the first directory: a scratch one, not the seeds
	mkdir -p "$T/lf-$t"
	if "$OUT/libfuzzer/$t" -runs=3000 -seed=1 "$T/lf-$t" "$OUT/corpus/$t" >"$T/lf.log" 2>&1 &&
		grep -q 'Done 3000 runs' "$T/lf.log"; then
		ok
	else
		bad "libFuzzer $t"; tail -n 30 "$T/lf.log"
	fi
	# the engine's defaults (fuzz/run/main_engine.c), ahead of the command line
	want=1
	[ "$t" = fuzz_fork ] && want=0 # costly programs are its point (fuzz/targets/target.h)
	grep -q "^INFO: vmafuzz: libFuzzer defaults -entropic_scale_per_exec_time=$want " "$T/lf.log" &&
		ok || bad "libFuzzer $t runs without the engine defaults (=$want)"
	# the seeds it goes back to (fuzz/run/seed_pool.h): the named files of the
	# directories given, none of the scratch one's hashes
	n=$(ls "$OUT/corpus/$t" | wc -l)
	grep -q "^INFO: vmafuzz: $n seeds; one mutation in 16 starts from one of them" "$T/lf.log" &&
		ok || bad "libFuzzer $t: not $n seeds to go back to"
done

# -return_to_seeds is ours, taken out of what libFuzzer reads
t=fuzz_mtree
"$OUT/libfuzzer/$t" -runs=10 -seed=1 -return_to_seeds=0 "$T/lf-$t" "$OUT/corpus/$t" >"$T/lf.log" 2>&1 &&
	grep -q 'Done [0-9]* runs' "$T/lf.log" && ! grep -q 'seeds; one mutation' "$T/lf.log" &&
	! grep -q 'unrecognized flag' "$T/lf.log" && ok || bad "-return_to_seeds=0"
"$OUT/libfuzzer/$t" -runs=10 -return_to_seeds=4 "$T/lf-$t" "$OUT/corpus/$t" >"$T/lf.log" 2>&1 &&
	grep -q 'one mutation in 4 starts' "$T/lf.log" && ok || bad "-return_to_seeds=4"
"$OUT/libfuzzer/$t" -runs=10 -return_to_seeds=often "$T/lf-$t" >"$T/lf.log" 2>&1
[ $? -eq 2 ] && grep -q 'return_to_seeds=often: expected' "$T/lf.log" && ok ||
	bad "-return_to_seeds=often: no exit 2 with a message"
# what a -fork=N engine's workers inherit: the seed directories and the flag
mkdir -p "$T/empty"
VMAFUZZ_SEED_DIRS="$OUT/corpus/$t" VMAFUZZ_RETURN_TO_SEEDS=4 "$OUT/libfuzzer/$t" -runs=10 "$T/empty" >"$T/lf.log" 2>&1 &&
	grep -q "^INFO: vmafuzz: $(ls "$OUT/corpus/$t" | wc -l) seeds; one mutation in 4 starts" "$T/lf.log" && ok ||
	bad "VMAFUZZ_SEED_DIRS, VMAFUZZ_RETURN_TO_SEEDS not inherited: $(grep vmafuzz "$T/lf.log")"

# comparison tracing stays where a program's bytes are compared (the
# decoder), and is off in the model and the scheduler (Makefile NOCMP_SRCS);
# edge counters stay in both
obj=$OUT/obj/libfuzzer
cmp='__sanitizer_cov_trace_(const_)?cmp'
if nm -u "$obj/fuzz/prog/prog.o" | grep -Eq "$cmp" &&
	! nm -u "$obj"/src/*/*.o "$obj/fuzz/targets/exec.o" | grep -Eq "$cmp" &&
	nm "$obj/src/mm/mm.o" | grep -q __start___sancov_cntrs; then
	ok
else
	bad "comparison tracing in the wrong objects"
fi

if command -v afl-clang-fast >/dev/null 2>&1; then
	make -s --no-print-directory afl >/dev/null
	for t in $targets; do
		seed=$(ls "$OUT/corpus/$t" | head -n 1)
		if "$OUT/afl/$t" <"$OUT/corpus/$t/$seed" >"$T/afl.log" 2>&1; then ok; else bad "AFL++ $t"; cat "$T/afl.log"; fi
		# libFuzzer's flags are not for AFL++'s driver
		! grep -q 'libFuzzer defaults' "$T/afl.log" && ok || bad "AFL++ $t given libFuzzer's defaults"
	done
else
	echo "AFL++ not installed: its build is not checked"
fi

# OSS-Fuzz's build contract, with its variables for libFuzzer + ASan
mkdir -p "$T/ossout"
if env CC=clang CXX=clang++ CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link" \
	CXXFLAGS="-O1 -fsanitize=address -fsanitize=fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	OUT="$T/ossout" VMAFUZZ_NO_DEPS=1 ./build.sh >"$T/oss.log" 2>&1; then
	ok
else
	bad "OSS-Fuzz build"; tail -n 30 "$T/oss.log"
fi
for t in $targets; do
	for f in "$t" "${t}_seed_corpus.zip" "$t.options"; do
		[ -s "$T/ossout/$f" ] && ok || bad "OSS-Fuzz output lacks $f"
	done
	[ ! -f "dict/$t.dict" ] || { [ -s "$T/ossout/$t.dict" ] && ok || bad "OSS-Fuzz output lacks $t.dict"; }
	# instrumented: ASan's runtime and SanitizerCoverage's counters (the other
	# OSS-Fuzz configurations: tests/ossfuzz.sh)
	for sym in __asan_init __start___sancov_cntrs; do
		nm "$T/ossout/$t" 2>/dev/null | grep -q " $sym\$" && ok || bad "OSS-Fuzz $t lacks $sym"
	done
	# OSS-Fuzz's build check runs each target for 4 inputs
	if "$T/ossout/$t" -runs=4 >"$T/run.log" 2>&1 && grep -q 'Done 4 runs' "$T/run.log"; then
		ok
	else
		bad "OSS-Fuzz $t does not run 4 inputs"; tail -n 20 "$T/run.log"
	fi
	# and its seed zip holds the compiled seeds, which the target replays
	mkdir -p "$T/in"
	(cd "$T/in" && python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall('.')" "$T/ossout/${t}_seed_corpus.zip")
	if [ "$(ls "$T/in" | wc -l)" -eq "$(ls "$OUT/corpus/$t" | wc -l)" ] &&
		"$T/ossout/$t" -runs=0 "$T/in" >"$T/run.log" 2>&1; then
		ok
	else
		bad "OSS-Fuzz seed zip of $t"; tail -n 20 "$T/run.log"
	fi
	rm -rf "$T/in"
done

# libFuzzer must save the input of a sanitizer crash (the harness's own
# report hook must not replace libFuzzer's death callback): a planted
# use-after-free, reached by the early-free seed
if make -s --no-print-directory bug-libfuzzer BUG=mt_free_early >"$T/bug.log" 2>&1; then
	mkdir -p "$T/uaf" "$T/art"
	cp "$OUT/corpus/fuzz_mtree/rcu_early_free" "$T/uaf/"
	"$OUT/bugs/mt_free_early/libfuzzer/fuzz_mtree" "$T/uaf" -runs=10 -artifact_prefix="$T/art/" >"$T/uaf.log" 2>&1
	if grep -q 'heap-use-after-free' "$T/uaf.log" && ls "$T/art"/crash-* >/dev/null 2>&1; then
		ok
	else
		bad "libFuzzer did not save the sanitizer crash"; tail -n 20 "$T/uaf.log"
	fi
else
	bad "bug-libfuzzer build"; tail -n 20 "$T/bug.log"
fi

finish
