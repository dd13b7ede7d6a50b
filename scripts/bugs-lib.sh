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

# bugs_opt PREFIX ARGS...: take the option at the head of ARGS if it is one
# both suites have (--seconds S, --runs R, --jobs J, --csv, --expect-found),
# setting seconds, runs, jobs, csv or expect_found; BUGS_TOOK is how many
# words it took (0: not one of these). A bad number: a message, exit 2.
bugs_opt() {
	local prefix=$1
	shift
	BUGS_TOOK=0
	case $1 in
	--seconds | --runs | --jobs)
		if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
			echo "$prefix: $1 takes a positive number, not '${2:-}'" >&2
			exit 2
		fi
		case $1 in
		--seconds) seconds=$2 ;;
		--runs) runs=$2 ;;
		*) jobs=$2 ;;
		esac
		BUGS_TOOK=2
		;;
	--csv) csv=1 BUGS_TOOK=1 ;;
	--expect-found) expect_found=1 BUGS_TOOK=1 ;;
	esac
}
