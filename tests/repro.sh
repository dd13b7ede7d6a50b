#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz repro --c: for every seed of fuzz_mm, the C reproducer (plain and
# --kselftest) compiles with cc -std=c11 -Wall -Wextra -Werror, alone, and
# passes on this kernel; or repro refuses it, naming its step and a reason
# (REFUSED below: a reproducer runs p0's anonymous memory), exit 2. A reproducer
# whose expectation is wrong (written wrong by --selftest-flip-wf, or edited)
# fails and prints both views; the command line's errors exit 2.
# Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"
CC_REPRO=${CC_REPRO:-cc}

# A seed no reproducer can be written for is refused, exit 2, with the step
# and one of these reasons (a reproducer runs p0's anonymous memory on t0;
# vmafuzz conform runs the rest, docs/fidelity.md; a kernel bug of this
# kernel's version the model does not follow is refused as conform does):
REFUSED='(file mappings do not run in a reproducer|only process p0 runs in a reproducer|only mmap, munmap, .*, touch and fork run in a reproducer|only thread t0 runs for real|fail_at|the model will not place this hint mapping at its hint|.*, not followed)'
# and these seeds are refused for these reasons
declare -A SKIP=(
	[daemon]='operation 4 \(fork p1 .*\): only process p0 runs in a reproducer'
	[files_cow]='operation 0 .*: file mappings do not run in a reproducer'
	[mremap_moves]='operation 8 \(mremap p0 @0x40:4 .* fail_at=3\): fail_at \(allocation failure\) has no real counterpart'
	[mremap_uffd_flags_without_ctx]='operation 3 \(uffd_create p0 nofork\): only mmap, munmap, .*, touch and fork run in a reproducer'
	[map_limit]='operation 2 \(map_limit .*\): only mmap, munmap, .*, touch and fork run in a reproducer'
	[placement]='operation 4 .*: the model will not place this hint mapping at its hint'
	[threads_faults]='operation 1 \(t1: .*\): only thread t0 runs for real'
	[userfaultfd]='operation 2 \(uffd_create .*\): only mmap, munmap, .*, touch and fork run in a reproducer'
)

# build NAME: $T/NAME.c compiled alone into $T/NAME
build() {
	if "$CC_REPRO" -std=c11 -Wall -Wextra -Werror -o "$T/$1" "$T/$1.c" >"$T/cc.out" 2>&1; then
		ok
		return 0
	fi
	bad "$1.c does not compile"; head -n 20 "$T/cc.out" | sed 's/^/    /'
	return 1
}

# the command line
expect 0 'usage: vmafuzz repro --c FILE' "$V" repro --help
expect 0 'vmafuzz repro --c FILE' "$V" --help
expect 2 'needs --c FILE' "$V" repro
expect 2 '--c needs a program file' "$V" repro --c
expect 2 "unknown option '--bogus'" "$V" repro --bogus --c corpus/fuzz_mm/advice_cycle.txt
expect 2 "unexpected argument 'x.txt'" "$V" repro --c corpus/fuzz_mm/advice_cycle.txt x.txt
expect 2 '-o needs a file name' "$V" repro --c corpus/fuzz_mm/advice_cycle.txt -o
expect 2 "cannot open $T/missing.txt" "$V" repro --c "$T/missing.txt"
printf 'target fuzz_mm\nmmap p0 @0x10:0 r,w private f0 fixed\n' >"$T/malformed.txt"
expect 2 "$T/malformed.txt:2:.*range length '0'" "$V" repro --c "$T/malformed.txt"
printf 'target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed\nuffd_create p0 fork\n' >"$T/uffd.txt"
expect 2 "operation 1 \\(uffd_create p0 fork\\): only mmap" "$V" repro --c "$T/uffd.txt" -o "$T/uffd.c"
[ ! -e "$T/uffd.c" ] && ok || bad "repro wrote a reproducer for a program it refused"

# every seed
n=0 skipped=0 nz=0 named=0
for txt in corpus/fuzz_mm/*.txt; do
	[ -e "$txt" ] || continue
	s=$(basename "$txt" .txt)
	if [ -n "${SKIP[$s]+x}" ] || ! "$V" repro --c "$txt" -o /dev/null >/dev/null 2>&1; then
		why="${SKIP[$s]-operation [0-9]+ \(.*\): $REFUSED}"
		for mode in "" --kselftest; do
			expect 2 "^vmafuzz repro: $txt: $why" "$V" repro $mode --c "$txt" -o "$T/$s.c"
		done
		[ -n "${SKIP[$s]+x}" ] && named=$((named + 1))
		skipped=$((skipped + 1))
		continue
	fi
	# plain: one line per step, the last saying they all agree, exit 0
	"$V" repro --c "$txt" -o "$T/$s.c" >"$T/out" 2>&1 && ok || { bad "repro --c $txt"; cat "$T/out"; continue; }
	if build "$s"; then
		expect 0 "^repro: [0-9]+ steps agree with the model\$" "$T/$s"
		nsteps=$(grep -c '^step [0-9]* agrees: ' "$T/out")
		[ "$nsteps" -gt 0 ] && ! grep -q 'differs' "$T/out" && ok ||
			bad "$s: not one line per step"
		grep -q '^static const struct repro_step steps_nozero\[\]' "$T/$s.c" && nz=$((nz + 1))
	fi
	# kselftest: TAP, a plan, every test ok, exit 0 (KSFT_PASS)
	"$V" repro --kselftest --c "$txt" -o "$T/$s-ksft.c" >"$T/out" 2>&1 && ok || { bad "repro --kselftest --c $txt"; cat "$T/out"; continue; }
	if build "$s-ksft"; then
		expect 0 '^# Totals: pass:[0-9]+ fail:0 xfail:0 xpass:0 skip:0 error:0$' "$T/$s-ksft"
		plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$T/out")
		if head -n 1 "$T/out" | grep -qx 'TAP version 13' && [ -n "$plan" ] &&
			[ "$(grep -c '^ok [0-9]* step ' "$T/out")" = "$plan" ] &&
			! grep -q '^not ok' "$T/out"; then
			ok
		else
			bad "$s: not the TAP of a passing selftest"; sed 's/^/    /' "$T/out" | head -n 20
		fi
	fi
	n=$((n + 1))
done
[ "$n" -ge 10 ] && ok || bad "only $n seeds made reproducers that pass"
# some seeds read fresh anonymous memory: their reproducers carry the model's
# views for both kinds of kernel and pass here, whichever this one is
[ "$nz" -ge 1 ] && grep -q '^static const struct repro_step steps_nozero\[\]' "$T/merge_anon.c" && ok ||
	bad "only $nz reproducers carry views for a kernel without a zero page (merge_anon should)"
# the views for the other kind of kernel fail here: the probe's pick matters
sed 's/^const struct repro_step \*const repro_steps\[2\] = {steps_zero, steps_nozero};$/const struct repro_step *const repro_steps[2] = {steps_nozero, steps_zero};/' \
	"$T/merge_anon.c" >"$T/swapped.c"
if cmp -s "$T/merge_anon.c" "$T/swapped.c"; then
	bad "swapping the zero-page views changed nothing"
elif build swapped; then
	expect 1 '^repro: step [0-9]+ differs from the model$' "$T/swapped"
fi
[ "${#SKIP[@]}" = "$named" ] && ok || bad "the SKIP list names seeds that are gone"
echo "repro.sh: $n seeds pass as reproducers ($nz with both zero-page views), $skipped skipped (SKIP)"

# no vmafuzz header or library in a reproducer
if ! grep -q "^#include \"" "$T/conform_fork.c" && ! grep -q 'vmafuzz/' "$T/conform_fork.c"; then
	ok
else
	bad "the reproducer includes a header of the tree"
fi
# the fork's child is a test of its own, and checks its smaps
expect 0 '^ok 8 step 6 \(the child\): fork p0 tree current nodiff$' "$T/conform_fork-ksft"

# A wrong expectation written on purpose: every wf of p0's VMAs flipped.
"$V" repro --selftest-flip-wf --c corpus/fuzz_mm/conform_fork.txt -o "$T/flip.c" && ok || bad "repro --selftest-flip-wf"
if build flip; then
	expect 1 '^repro: step 0 differs from the model$' "$T/flip"
	if grep -qE '^  ! @0x10-0x18 rw-p ac -- wf rss 0k anon 0k +@0x10-0x18 rw-p ac -- -- rss 0k anon 0k$' "$T/out" &&
		grep -q '^    model  *kernel$' "$T/out" && grep -q '^  call: mmap(0x200000010000 @0x10' "$T/out"; then
		ok
	else
		bad "the failing reproducer does not show both views"; sed 's/^/    /' "$T/out" | head -n 20
	fi
fi
"$V" repro --kselftest --selftest-flip-wf --c corpus/fuzz_mm/conform_fork.txt -o "$T/flipt.c" && ok || bad "repro --kselftest --selftest-flip-wf"
if build flipt; then
	expect 1 '^not ok 1 step 0: mmap p0 @0x10:8' "$T/flipt"
	if grep -q '^#   ! @0x10-0x18 rw-p ac -- wf' "$T/out" &&
		grep -q '^ok 11 step 8 (the child): .* # SKIP an earlier step differed$' "$T/out" &&
		grep -q '^# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:10 error:0$' "$T/out"; then
		ok
	else
		bad "the failing selftest's TAP"; sed 's/^/    /' "$T/out" | head -n 30
	fi
fi

# A wrong expectation edited in: the first fork's child has 3 pages resident
# in its first VMA, not 2; the child sees it in its own smaps.
sed '/^static const struct kvma step6_child/,/^};/ { /^\t{0x200000012000ull, / s/, 2, 2, 0x0, /, 3, 2, 0x0, / }' "$T/conform_fork.c" >"$T/edited.c"
if cmp -s "$T/conform_fork.c" "$T/edited.c"; then
	bad "the edit of the child's expectation changed nothing"
elif build edited; then
	expect 1 '^step 6 \(the child\) differs: fork p0 tree current nodiff$' "$T/edited"
	if grep -q '^the child: the VMAs differ' "$T/out" &&
		grep -qE '^  ! @0x12-0x14 rw-p ac -- -- rss 12k anon 8k +@0x12-0x14 rw-p ac -- -- rss 8k anon 8k$' "$T/out" &&
		grep -q '^step 6 agrees: fork' "$T/out"; then
		ok
	else
		bad "the edited child's difference"; sed 's/^/    /' "$T/out" | head -n 30
	fi
fi

# A result the kernel does not give: step 0's mmap edited to expect -ENOMEM.
awk '/^\t\/\* step 0 \*\/$/ { s = 1 } s && /^\t 0x[0-9a-f]+, step0_vmas/ { sub(/^\t 0x[0-9a-f]+,/, "\t -12,"); s = 0 } { print }' \
	"$T/conform_fork.c" >"$T/result.c"
if build result; then
	expect 1 'result: model -12 \(Cannot allocate memory\), kernel 0x200000010000 \(@0x10\)   <== differs' "$T/result"
fi

# The window taken: the reproducer skips (exit 4), TAP "1..0 # SKIP".
sed 's/^int main(void)$/static int repro_main(void)/' "$T/conform_fork-ksft.c" >"$T/taken.c"
cat >>"$T/taken.c" <<'EOF'
int main(void)
{
	mmap((void *)(uintptr_t)repro_lo, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
	     -1, 0);
	return repro_main();
}
EOF
if build taken; then
	expect 4 '^1\.\.0 # SKIP the address window is not free here' "$T/taken"
fi

finish
