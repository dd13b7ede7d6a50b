#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The known-bug suite on a real kernel (bugs/README.md, "In the real
# kernel"): how long `./build.sh vm --bug NAME` takes to find each bug.
#
#   scripts/vm-bugs.sh [--runs R] [--timeout S] [NAME...]
#
# For each planted bug (bugs/vm/NAME.patch; default: all), its kernel is
# built first (not counted), from the tree its patch names ("Tree: T"
# atop it); then R runs (default 3) of the default job on it, with the
# random programs' seed 1..R, each stopped at the first report whose title
# has the text the patch names ("Finds: TEXT" atop it). Prints one line a
# bug: the tree, each run's time to that report (seconds from the start of
# the boot, "-" when S seconds of job (default 1800) went by without it)
# and the median, then the runs' folders. Exit status: 0 when every bug was
# found in every run, 1 otherwise, 2 for a bad command line or a kernel
# that did not build.
set -uo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
OUTDIR=${OUTDIR:-out}

die() {
	echo "vm-bugs: $*" >&2
	exit 2
}
whole() {
	case $2 in '' | *[!0-9]* | 0*) die "$1 takes a whole number from 1, not '$2'" ;; esac
}
runs=3 timeout=1800 names=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs | --timeout)
		whole "$1" "${2:-}"
		declare "${1#--}=$2"
		shift
		;;
	-*) die "unknown option '$1'" ;;
	*) names+=("$1") ;;
	esac
	shift
done
if [ ${#names[@]} -eq 0 ]; then
	for f in bugs/vm/*.patch; do names+=("$(basename "$f" .patch)"); done
fi
header() { # header NAME FIELD: the "FIELD: value" line atop the patch
	sed -n "s/^$2: \(.*\)$/\1/p;/^--- /q" "bugs/vm/$1.patch" | head -n 1
}
for n in "${names[@]}"; do
	[ -f "bugs/vm/$n.patch" ] || die "no planted kernel bug '$n' (bugs/vm/*.patch)"
	[ -n "$(header "$n" Tree)" ] || die "bugs/vm/$n.patch names no tree (a line 'Tree: T' atop it)"
	[ -n "$(header "$n" Finds)" ] || die "bugs/vm/$n.patch names no report (a line 'Finds: TEXT' atop it)"
done

median() { # the median of the numbers on stdin, "-" counted as never
	sort -g | awk '{ v[NR] = $1 } END {
		m = v[int((NR + 1) / 2)]
		print (m == "" || m == "-") ? "-" : m }'
}

mkdir -p "$OUTDIR" || die "cannot make $OUTDIR"
status=0
printf '%-32s %-6s %-24s %s\n' bug tree "times (s)" median
for n in "${names[@]}"; do
	tree=$(header "$n" Tree) finds=$(header "$n" Finds)
	scripts/vm-kernel.sh --bug "$n" "$tree" >/dev/null 2>"$OUTDIR/vm-bugs-$n.build.log" ||
		die "the kernel of $n did not build ($OUTDIR/vm-bugs-$n.build.log)"
	times=() dirs=()
	for ((k = 1; k <= runs; k++)); do
		log=$(mktemp)
		scripts/vm.sh --bug "$n" --seed "$k" --timeout "$timeout" --stop-at "$finds" \
			"$tree" >/dev/null 2>"$log"
		t=$(grep -F "$finds" "$log" | sed -n 's/.*(\([0-9.]*\) s into the run)$/\1/p' | head -n 1)
		times+=("${t:--}")
		[ -n "$t" ] || status=1
		dirs+=("$(sed -n 's/^vm: console \(.*\)\/console.log.*/\1/p' "$log" | tail -n 1)")
		rm -f "$log"
	done
	m=$(printf '%s\n' "${times[@]}" | sed 's/^-$/inf/' | median | sed 's/^inf$/-/')
	printf '%-32s %-6s %-24s %s\n' "$n" "$tree" "${times[*]}" "$m"
	printf '    runs: %s\n' "${dirs[*]}"
done
exit "$status"
