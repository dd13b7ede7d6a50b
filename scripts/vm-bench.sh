#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What a guest kernel costs, measured side by side in one run (docs/vm.md):
#
#   scripts/vm-bench.sh [--programs N] [TREE]
#
# Prints, for the tree's guest kernel (scripts/vm-kernel.sh; built first if
# it is not): the build when nothing changed, the build after mm/vma.c is
# touched (its time stamp only: the tree's text is left as it was, so only
# what depends on that file is made again), one boot that runs nothing
# (boot, init and power-off, wall clock), and `vmafuzz conform` on N random
# programs (default 50) on this machine and in the guest, in programs per
# second (the guest's time less the empty boot's). The accelerator the
# guest ran under (KVM or TCG) is named: the figures differ by an order.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
OUTDIR=${OUTDIR:-out}

die() {
	echo "vm-bench: $*" >&2
	exit 2
}
programs=50 tree=
while [ $# -gt 0 ]; do
	case $1 in
	--programs)
		case ${2:-} in '' | *[!0-9]* | 0*) die "--programs takes a whole number from 1, not '${2:-}'" ;; esac
		programs=$2
		shift
		;;
	-*) die "unknown option '$1'" ;;
	*)
		[ -z "$tree" ] || die "one tree, not '$tree' and '$1'"
		tree=$1
		;;
	esac
	shift
done

now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{printf "%.1f", $1 - $2}'; }

bz=$(scripts/vm-kernel.sh ${tree:+"$tree"} 2>/dev/null) || bz=$(scripts/vm-kernel.sh ${tree:+"$tree"}) || exit 2
src=$(dirname "$(dirname "$(dirname "$(dirname "$(dirname "$bz")")")")")
version=$(make -s -C "$src/vmafuzz-build" kernelversion 2>/dev/null || basename "$src")

t=$(now)
scripts/vm-kernel.sh ${tree:+"$tree"} >/dev/null 2>&1 || die "the unchanged rebuild failed"
nothing=$(since "$t")
touch "$(readlink -f "$src/mm")/vma.c"
t=$(now)
scripts/vm-kernel.sh ${tree:+"$tree"} >/dev/null 2>&1 || die "the rebuild after touching mm/vma.c failed"
touched=$(since "$t")

# "vmafuzz vm: ACCEL, boot to the job B s, in all T s, ..." (tools/cmd_vm.c)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
guest() {
	scripts/vm.sh --kernel "$bz" -- "$@" >/dev/null 2>"$log" || true
	grep -q 'boot to the job' "$log" || {
		cat "$log" >&2
		die "the guest did not run the job"
	}
	sed -n 's/^vmafuzz vm: \([a-z]*\), boot to the job \([0-9.]*\) s, in all \([0-9.]*\) s.*/\1 \2 \3/p' "$log" | head -n 1
}
read -r accel boot all < <(guest vmafuzz list)
read -r _ boot2 all2 < <(guest vmafuzz conform --keep-going --random "$programs" --seed 1)
t=$(now)
"$OUTDIR/vmafuzz" conform --keep-going --random "$programs" --seed 1 >/dev/null 2>&1 || true
host=$(since "$t")

printf 'guest kernel: Linux %s (%s)\n' "$version" "$bz"
printf 'accelerator: %s\n' "$accel"
printf 'rebuild, nothing changed: %s s\n' "$nothing"
printf 'rebuild, mm/vma.c touched: %s s\n' "$touched"
printf 'boot to the job: %s s; an empty job in all (boot, init, power-off): %s s\n' "$boot" "$all"
echo "$programs $host $boot2 $all2" | awk '{
	g = $4 - $3; if (g <= 0) g = 0.1
	printf "conform, %d random programs: host %.1f s (%.1f programs/s), guest %.1f s after boot (%.1f programs/s), guest/host time %.1fx\n",
		$1, $2, $1 / $2, g, $1 / g, g / $2 }'
