#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The model by kernel version (src/mm/kver.h): every rule of kver.c's table
# has a program, corpus/fuzz_mm/version_<rule>.txt, whose line
# "# last: 6.1=R 6.12=R 6.18=R newest=R" says what its last operation
# returns in the model as each version; each is replayed with the config
# that names the version (none for the newest) and must return that, so
# a rule that no longer applies, or applies where it should not, fails.
# A rule of what smaps shows, where no result differs, names
# tests/test_kver.c (# view:), whose view_rule_<rule> asks the model's view.
# A kernel bug the model does not follow (# refused: VERSION) is refused by
# vmafuzz conform as that version and run as the newest.
# The check is shown firing on a program whose line is wrong, and every
# rule is listed in docs/fidelity.md. Run by ./build.sh test with OUT and
# ROOT set.
set -u
cd "$ROOT"
. tests/shlib
R="$OUT/replay/fuzz_mm"
V="$OUT/vmafuzz"

# last PROGRAM CONFIG: the result of PROGRAM's last operation with CONFIG
# ("failed: ..." when the replay stopped at a check)
last() {
	{
		sed -n '/^target /p' "$1"
		[ -n "$2" ] && echo "config $2"
		grep -v '^target \|^#' "$1"
	} >"$T/variant.txt"
	# an invariant or expectation that fires is a result too
	if ! "$R" -v "$T/variant.txt" >"$T/trace.txt" 2>&1; then
		echo "failed: $(grep -m1 'invariant' "$T/trace.txt")"
		return
	fi
	grep '  = ' "$T/trace.txt" | tail -n 1 | sed 's/.*  = //'
}

# check PROGRAM: each version's result as its "# last:" line says; the
# versions that differ on stdout
check() {
	local f=$1 want v cfg got wrong=0
	for pair in $(sed -n 's/^# last: //p' "$f"); do
		v=${pair%%=*} want=${pair#*=}
		case $v in
		newest) cfg= ;;
		*) cfg=linux_${v//./_} ;;
		esac
		got=$(last "$f" "$cfg")
		if [ "$got" != "$want" ]; then
			echo "$v: $got, not $want"
			wrong=1
		fi
	done
	return $wrong
}

rules=$(sed -n 's/^ *\[KV_[A-Z_0-9]*\] = {"\([a-z_0-9]*\)".*/\1/p' src/mm/kver.c)
[ -n "$rules" ] && ok || bad "no rules read from src/mm/kver.c"
for r in $rules; do
	f=corpus/fuzz_mm/version_$r.txt
	if [ ! -f "$f" ]; then
		bad "rule $r has no program $f"
		continue
	fi
	grep -q "\`$r\`" docs/fidelity.md && ok || bad "docs/fidelity.md does not list the rule \`$r\`"
	if v=$(sed -n 's/^# refused: //p' "$f") && [ -n "$v" ]; then
		# a kernel bug the model does not follow: conform refuses the
		# program's last operation as that version, naming the rule,
		# and runs it as the newest
		"$V" conform --model-version "$v" "$f" >"$T/refused.txt" 2>&1
		grep -q "skipped: operation .*rule $r, not followed" "$T/refused.txt" && ok ||
			bad "$f: conform as $v does not refuse it: $(tail -n 2 "$T/refused.txt")"
		"$V" conform --model-version 7.3 "$f" >"$T/refused.txt" 2>&1
		! grep -q "skipped:" "$T/refused.txt" && ok ||
			bad "$f: conform as 7.3 refuses it: $(tail -n 2 "$T/refused.txt")"
		continue
	fi
	if grep -q '^# view: tests/test_kver.c$' "$f"; then
		# a rule of what smaps shows: no result differs, the unit test
		# asks the model's view
		grep -q "TEST(view_rule_$r)" tests/test_kver.c && ok || bad "$f: tests/test_kver.c has no view_rule_$r"
		continue
	fi
	[ "$(sed -n 's/^# last: //p' "$f" | wc -w)" -ge 4 ] && ok || bad "$f: no '# last:' line for 6.1, 6.12, 6.18, newest"
	if out=$(check "$f"); then ok; else bad "$f: $out"; fi
done

# firing: a line that says the wrong result for 6.12 is caught
f=corpus/fuzz_mm/version_anon_merge_into_unfaulted.txt
sed 's/^# last: 6.1=\([^ ]*\) 6.12=[^ ]*/# last: 6.1=\1 6.12=0x200000010000/' "$f" >"$T/wrong.txt"
if out=$(check "$T/wrong.txt"); then
	bad "a wrong '# last:' line passed"
else
	grep -q '^6.12: -EFAULT, not 0x200000010000$' <<<"$out" && ok || bad "the wrong line's report: $out"
fi
finish
