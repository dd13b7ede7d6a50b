#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The known-bug suite, short: three planted bugs of different families must
# each be found from the seed corpus within a minute by some target
# (./build.sh bugs --expect-found), and no normal build may carry a switch.
# The full tables are in docs/results/known-bugs.md. Run by
# ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib

# no switch in any normal flavor's flags
for f in "$OUT"/obj/{libfuzzer,replay,tool,test}/.flags; do
	[ -e "$f" ] || continue
	if grep -q VMAFUZZ_BUG "$f"; then bad "$f carries a bug switch: $(cat "$f")"; else ok; fi
done

expect 2 "no planted bug 'nope'" scripts/bugs.sh nope --seconds 1 --runs 1
expect 2 "--seconds takes a positive number" scripts/bugs.sh --seconds x
expect 0 '^wipe_anon_prepare,fuzz_mm,1,1,[0-9.]+,FORK_WIPE_NOT_EMPTY$' \
	scripts/bugs.sh wipe_anon_prepare rollup_skip_after_relock uffd_flags_without_ctx \
	--seconds 60 --runs 1 --csv --expect-found
grep -q '^rollup_skip_after_relock,fuzz_rollup,1,1,[0-9.]*,ROLLUP_MISSED$' "$T/out" && ok ||
	bad "rollup_skip_after_relock not found by fuzz_rollup: $(cat "$T/out")"
grep -q '^uffd_flags_without_ctx,fuzz_mm,1,1,[0-9.]*,UFFD_FLAGS_CTX$' "$T/out" && ok ||
	bad "uffd_flags_without_ctx not found by fuzz_mm: $(cat "$T/out")"

# how far a bug is from a seed (replay/<target> --mutants, fuzz/run/mutant_odds.h):
# some mutants of mremap_round_trips find copied_anon_merge on its build,
# none fails on the normal build, and the first one kept fails again
seed=corpus/fuzz_mm/mremap_round_trips.txt
if make -s --no-print-directory bug-replay BUG=copied_anon_merge >"$T/build.log" 2>&1; then
	bin=$(readlink -f "$OUT/bugs/copied_anon_merge/replay/fuzz_mm")
	(cd "$T" && "$bin" --mutants 200 "$ROOT/$seed") >"$T/odds" 2>&1
	grep -Eq ': [1-9][0-9]* of 200 mutants fail \(one in' "$T/odds" && ok || bad "no mutant found copied_anon_merge: $(cat "$T/odds")"
	"$OUT/bugs/copied_anon_merge/replay/fuzz_mm" "$T/first-failing-mutant" >/dev/null 2>&1 &&
		bad "the kept mutant does not fail" || ok
	"$OUT/replay/fuzz_mm" "$T/first-failing-mutant" >/dev/null 2>&1 && ok ||
		bad "the kept mutant fails on the normal build"
else
	bad "make bug-replay BUG=copied_anon_merge: $(tail -n 5 "$T/build.log")"
fi
expect 0 ': 0 of 200 mutants fail$' "$OUT/replay/fuzz_mm" --mutants 200 "$seed"
expect 2 'N a number from 1' "$OUT/replay/fuzz_mm" --mutants 0 "$seed"
expect 2 'usage: .* --mutants N' "$OUT/replay/fuzz_mm" --mutants 3 "$seed" extra
finish
