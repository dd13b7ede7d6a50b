#!/usr/bin/env bash
# Every invariant of the catalogue (src/runtime/check_ids.h) has a unit test that
# names it, as CK_<ID>, in tests/test_*.c (or tests/kernel/test_*.c): the tests that break a state by
# hand and see that check fire. A new check without one fails here.
# Run by ./build.sh test with ROOT set.
set -u
cd "$ROOT"
. tests/shlib

# missing CATALOGUE: the identifiers in CATALOGUE no test names
missing() {
	local id
	for id in $(sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\),.*/\1/p' "$1"); do
		grep -qw "CK_$id" tests/test_*.c tests/kernel/test_*.c || echo "$id"
	done
}

ids=$(sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\),.*/\1/p' src/runtime/check_ids.h | wc -l)
[ "$ids" -ge 60 ] && ok || bad "read only $ids identifiers from src/runtime/check_ids.h"

m=$(missing src/runtime/check_ids.h | tr "\n" " ")
[ -z "$m" ] && ok || bad "invariants with no test naming them: $m"

# the scan itself must see a check nobody tests
cp src/runtime/check_ids.h "$T/ids.h"
printf '\tX(NO_TEST_NAMES_THIS, "a check added for the self-test")\n' >>"$T/ids.h"
[ "$(missing "$T/ids.h")" = NO_TEST_NAMES_THIS ] && ok || bad "the scan missed an untested check"
finish
