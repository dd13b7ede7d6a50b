#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ./build.sh vm: a kernel tree built, booted under qemu, and vmafuzz run
# inside it (docs/vm.md):
#
#   scripts/vm.sh [--kasan] [--bug NAME] [--mem MB] [--cpus N] [--timeout S]
#                 [--programs N] [--seed S] [--ops K] [TREE] [-- COMMAND...]
#
# TREE: 6.1, 6.12, current or a path (scripts/kernel-tree.sh; default: the
# tree in use). The guest kernel comes from scripts/vm-kernel.sh (cached);
# the guest's root holds out/vmafuzz, out/conform-server, the libraries
# they link, fuzz_mm's seeds, and /init (out/vm/guest-init), which runs
# the job and powers off. The default job is `vmafuzz conform` on N random
# programs of K operations from seed S (200, 40, 1), then on fuzz_mm's
# seeds, every process compared, with the guest set as the model assumes
# (no overcommit limit), a map count limit map_limit fills quickly under
# emulation, and conform's waits long enough for an emulated machine. COMMAND instead: its first word vmafuzz or fuzz_conform is
# ours; any argument that names a file here goes in at the same path.
# The run's folder out/vm/runs/<time>/ keeps the console (console.log)
# and each report (reports/); each report of a program is also a crash of
# out/work/vm-<kernel>/crashes/ (the program up to the operation under
# way, its report beside it, and the kernel named in .builds).
# Exit status: the job's (tools/cmd_vm.c).
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
OUTDIR=${OUTDIR:-out}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

die() {
	echo "vm: $*" >&2
	exit 2
}
whole() { # whole NAME VALUE: a whole number >= 1
	case $2 in
	'' | *[!0-9]* | 0*) die "$1 takes a whole number from 1, not '$2'" ;;
	esac
}

kargs=() mem=2048 cpus=2 timeout=1800 programs=200 seed=1 ops=40 tree= cmd=()
while [ $# -gt 0 ]; do
	case $1 in
	--kasan) kargs+=(--kasan) ;;
	--bug)
		[ $# -gt 1 ] || die "--bug needs a name"
		kargs+=(--bug "$2")
		shift
		;;
	--mem | --cpus | --timeout | --programs | --seed | --ops)
		[ $# -gt 1 ] || die "$1 needs a number"
		[ "$1" = --seed ] && [ "$2" = 0 ] || whole "$1" "$2"
		declare "${1#--}=$2"
		shift
		;;
	--)
		shift
		cmd=("$@")
		break
		;;
	-*) die "unknown option '$1' (scripts/vm.sh)" ;;
	*)
		[ -z "$tree" ] || die "one tree, not '$tree' and '$1'"
		tree=$1
		;;
	esac
	shift
done

make -s --no-print-directory -j"$JOBS" tool "$OUTDIR/conform-server" corpus >&2
bz=$(scripts/vm-kernel.sh "${kargs[@]}" ${tree:+"$tree"}) || exit 2
kdir=$(dirname "$(dirname "$(dirname "$(dirname "$bz")")")")
key=$(basename "$kdir")
run=$OUTDIR/vm/runs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"

V=$OUTDIR/vmafuzz
# the machine the model assumes; a program file may set more with lines
# "# vm: sysctl PATH=VALUE", applied after these
sysctls=(vm/overcommit_memory=1 vm/max_map_count=1024)
for a in "${cmd[@]}"; do
	[ -f "$a" ] && sysctls+=($(sed -n 's/^# vm: sysctl \([^ ]*=[^ ]*\)$/\1/p' "$a"))
done
ia=(-o "$run/initramfs" --init "$OUTDIR/vm/guest-init"
	--bin "/vmafuzz/out/vmafuzz=$V" --bin "/vmafuzz/out/conform-server=$OUTDIR/conform-server"
	--env VMAFUZZ_CONFORM_TIMEOUT_MS=600000 --env PATH=/vmafuzz/out --job-timeout "$timeout")
for sc in "${sysctls[@]}"; do
	ia+=(--sysctl "$sc")
done
if [ ${#cmd[@]} -eq 0 ]; then
	seeds=()
	for f in corpus/fuzz_mm/*.txt; do
		ia+=(--file "/vmafuzz/$f=$f")
		seeds+=("/vmafuzz/$f")
	done
	ia+=(--arg /vmafuzz/out/vmafuzz --arg conform --arg --keep-going --arg --mark
		--arg --random --arg "$programs" --arg --seed --arg "$seed" --arg --ops --arg "$ops")
	ia+=(--then --arg /vmafuzz/out/vmafuzz --arg conform --arg --keep-going --arg --mark)
	for f in "${seeds[@]}"; do
		ia+=(--arg "$f")
	done
else
	first=1
	for a in "${cmd[@]}"; do
		if [ "$first" = 1 ] && [ "$a" = vmafuzz ]; then
			a=/vmafuzz/out/vmafuzz
		elif [ "$first" = 1 ] && [ "$a" = fuzz_conform ]; then
			ia+=(--bin "/vmafuzz/out/libfuzzer/fuzz_conform=$OUTDIR/libfuzzer/fuzz_conform")
			make -s --no-print-directory -j"$JOBS" "$OUTDIR/libfuzzer/fuzz_conform" >&2
			a=/vmafuzz/out/libfuzzer/fuzz_conform
		elif [ -f "$a" ]; then
			ia+=(--file "$(readlink -f "$a")=$a")
			a=$(readlink -f "$a")
		fi
		ia+=(--arg "$a")
		first=0
	done
fi
"$V" vm initramfs "${ia[@]}" || exit 2

rc=0
"$V" vm run --kernel "$bz" --initramfs "$run/initramfs" --mem "$mem" --cpus "$cpus" \
	--timeout $((timeout + 600)) --log "$run/console.log" --reports "$run/reports" || rc=$?

# each report of a program: a crash, the program that was running (up to
# the operation under way, as the guest marked them) with its report beside
crashes=${VMAFUZZ_WORK_ROOT:-$OUTDIR/work}/vm-$key/crashes
for r in "$run"/reports/*.txt; do
	case $r in *.prog.txt) continue ;; esac
	p=${r%.txt}.prog.txt
	[ -f "$p" ] || continue
	mkdir -p "$crashes"
	name=crash-$(cat "$p" "$r" | sha1sum | cut -c1-16)
	{
		# the machine it ran on, for a replay
		printf '# vm: sysctl %s\n' "${sysctls[@]}"
		cat "$p"
	} >"$crashes/.$name.tmp" && mv "$crashes/.$name.tmp" "$crashes/$name.txt"
	cp "$r" "$crashes/$name.report"
	echo "$name.txt vm/$key" >>"$crashes/.builds"
	echo "vm: $(sed -n 's/^title: //p' "$r" | head -n 1): $crashes/$name.txt" \
		"(program $(sed -n 's/^program: //p' "$r" | head -n 1))" >&2
done
echo "vm: console $run/console.log, reports $run/reports/" >&2
exit "$rc"
