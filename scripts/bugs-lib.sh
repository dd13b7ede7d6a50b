# SPDX-License-Identifier: GPL-2.0
#
# Functions shared by the known-bug suites: scripts/bugs.sh (the model's
# planted bugs) and scripts/kernel-bugs.sh (reverted kernel fixes). Sourced.

# bugs_caught_by LOG: what reported the first crash in a libFuzzer log: an
# invariant's name, a sanitizer's report kind, or "runtime_error"/"deadly_signal"
bugs_caught_by() {
	local what
	what=$(grep -oE 'invariant [A-Z0-9_]+ failed|ERROR: [A-Za-z]+Sanitizer: [a-z-]+|runtime error|deadly signal' \
		"$1" | head -n 1)
	what=${what#invariant }
	what=${what% failed}
	what=${what#ERROR: }
	echo "${what// /_}"
}

# bugs_median TIME...: median of the times (a miss is "-", slower than any
# time); "-" when most missed
bugs_median() {
	printf '%s\n' "$@" | sed 's/^-$/1e18/' | sort -g |
		awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; if (m + 0 >= 1e18) print "-"; else printf "%.1f\n", m }'
}
