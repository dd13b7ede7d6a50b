#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ./build.sh vm: a kernel tree built, booted under qemu, and vmafuzz run
# inside it (docs/vm.md):
#
#   scripts/vm.sh [--kasan] [--bug NAME] [--stop-at TEXT] [--mem MB]
#                 [--cpus N] [--timeout S] [--programs N] [--seed S]
#                 [--ops K] [TREE] [-- COMMAND...]
#   scripts/vm.sh --kernel BZIMAGE --replay -- vmafuzz conform FILE...
#
# TREE: 6.1, 6.12, current or a path (scripts/kernel-tree.sh; default: the
# tree a --bug's patch names on a line "Tree: T" atop it, else the tree in
# use). --stop-at TEXT: the guest stops at the first report whose title
# has TEXT in it ("": any; the time each report came is on its line). The guest kernel comes from scripts/vm-kernel.sh (cached);
# the guest's root holds out/vmafuzz, out/conform-server, the libraries
# they link, fuzz_mm's seeds, and /init (out/vm/guest-init), which runs
# the job and powers off. The default job is `vmafuzz conform` on N random
# programs of K operations from seed S (200, 40, 1), then on fuzz_mm's
# seeds, every process compared (a seed with '# vm: sysctl' lines by
# itself after the others, on the machine they name), then `vmafuzz race --rounds 20` on the
# seeds with other threads (real threads on the vCPUs); the guest is set
# as the model assumes (no overcommit limit), with a map count limit
# map_limit fills quickly under emulation and conform's waits long enough
# for an emulated machine. COMMAND instead: its first word vmafuzz or
# fuzz_conform is ours, an executable file yours (with the libraries it
# links); any other argument that names a file here goes in under /host
# at its path.
# The run's folder out/vm/runs/<time>/ keeps the console (console.log)
# and each report (reports/: the kernel's, and the job's findings: a
# program conform saw differ from the model, one vmafuzz race saw read
# smaps_rollup out of bounds); each report of a program is also a crash of
# out/work/vm-<kernel>/crashes/ (the program up to the operation under
# way, the kernel named in .builds) with its report in reports/ beside.
# Exit status: the job's (tools/cmd_vm.c).
#
# --kernel: that kernel, built before (out/vm/<key>/arch/x86/boot/bzImage).
# --replay: for triage, minimize and regress, which run it as the replay
# driver of a guest's crashes (out/vm/<key>/replay/fuzz_mm, which a run
# writes): each report the kernel prints is a line "vmafuzz: kernel report:
# TITLE at FILE:LINE" on stderr (a BUG, Oops, panic, KASAN or maple tree
# report first, then lockdep's, then WARNINGs, then the job's own findings,
# conform's difference from the model and vmafuzz race's read out of
# bounds: triage buckets the first line) after a line "vmafuzz: kernel
# tree: ROOT" (the tree the reports' files are relative to, for SARIF), the
# status 1 when there is one and 0 otherwise; nothing is kept. The job's
# findings count only for a crash the job found, which says so on a line
# "# vm: job conform" or "# vm: job race" (or VMAFUZZ_VM_JOB, for a
# minimizer's candidates): a kernel's crash whose program differs from the
# model on purpose (a C reproducer's fork that the commit limit fails) replays by its splat
# alone. A race's crash replays under vmafuzz race --rounds 20.
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

kargs=() mem=2048 cpus=2 timeout=1800 programs=200 seed=1 ops=40 tree= cmd=() bz= replay=0
stopat=() bugtree=
while [ $# -gt 0 ]; do
	case $1 in
	--kasan) kargs+=(--kasan) ;;
	--stop-at)
		[ $# -gt 1 ] || die "--stop-at needs a text (\"\": any report)"
		stopat=(--stop-at "$2")
		shift
		;;
	--replay) replay=1 ;;
	--kernel)
		[ $# -gt 1 ] && [ -f "$2" ] || die "--kernel needs a kernel image, not '${2:-}'"
		bz=$2
		shift
		;;
	--bug)
		[ $# -gt 1 ] || die "--bug needs a name"
		kargs+=(--bug "$2")
		# the tree its patch is for ("Tree: 6.12" atop it), unless one is given
		bugtree=$(sed -n 's/^Tree: \([^ ]*\)$/\1/p;/^--- /q' "bugs/vm/$2.patch" 2>/dev/null | head -n 1)
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

[ -n "$tree" ] || tree=$bugtree
V=$OUTDIR/vmafuzz
# the machine the model assumes; then, applied after these, a planted
# bug's own (bugs/vm/NAME.sysctl: the machine it shows on, for every run of
# its kernel), VMAFUZZ_VM_SYSCTLS's (PATH=VALUE words) and a program file's
# lines "# vm: sysctl PATH=VALUE"
sysctls=(vm/overcommit_memory=1 vm/max_map_count=1024)
own=()
for ((k = 0; k < ${#kargs[@]}; k++)); do
	if [ "${kargs[k]}" = --bug ] && [ -f "bugs/vm/${kargs[k + 1]}.sysctl" ]; then
		own+=($(grep -v '^#' "bugs/vm/${kargs[k + 1]}.sysctl"))
	fi
done
sysctls+=("${own[@]}")
sysctls+=(${VMAFUZZ_VM_SYSCTLS:-})
job=${VMAFUZZ_VM_JOB:-}
for a in "${cmd[@]}"; do
	[ -f "$a" ] && sysctls+=($(sed -n 's/^# vm: sysctl \([^ ]*=[^ ]*\)$/\1/p' "$a"))
	if [ -f "$a" ]; then
		j=$(sed -n 's/^# vm: job \([a-z]*\)$/\1/p' "$a" | head -n 1)
		[ -n "$j" ] && job=$j
	fi
done
# a crash vmafuzz race found replays under vmafuzz race (its '# vm: job
# race' line, or VMAFUZZ_VM_JOB for a minimizer's candidates)
if [ "$replay" = 1 ] && [ "$job" = race ] && [ "${cmd[0]:-}" = vmafuzz ] &&
	[ "${cmd[1]:-}" = conform ]; then
	cmd=(vmafuzz race --rounds 20 "${cmd[@]:2}")
fi

make -s --no-print-directory -j"$JOBS" tool "$OUTDIR/conform-server" corpus >&2
[ -n "$bz" ] || bz=$(scripts/vm-kernel.sh "${kargs[@]}" ${tree:+"$tree"}) || exit 2
kdir=$(dirname "$(dirname "$(dirname "$(dirname "$bz")")")")
key=$(basename "$(dirname "$kdir")") # .../vm/<key>/vmafuzz-build
if [ "$replay" = 1 ]; then
	run=$(mktemp -d)
	trap 'rm -rf "$run"' EXIT
else
	run=$OUTDIR/vm/runs/$(date +%Y%m%d-%H%M%S)-$$
	mkdir -p "$run"
	# the replay driver of this kernel's crashes (tools/triage/crash_build.c)
	mkdir -p "$kdir/replay"
	{
		printf '#!/bin/sh\n# the replay driver of the guest kernel %s (scripts/vm.sh wrote it)\n' "$key"
		printf 'VMAFUZZ_VM_SYSCTLS="%s ${VMAFUZZ_VM_SYSCTLS:-}" exec "%s/scripts/vm.sh" --kernel "%s" --replay -- vmafuzz conform "$@"\n' \
			"${own[*]}" "$PWD" "$(readlink -f "$bz")"
	} >"$kdir/replay/fuzz_mm.tmp"
	chmod +x "$kdir/replay/fuzz_mm.tmp"
	mv "$kdir/replay/fuzz_mm.tmp" "$kdir/replay/fuzz_mm"
fi

ia=(-o "$run/initramfs" --init "$OUTDIR/vm/guest-init"
	--bin "/vmafuzz/out/vmafuzz=$V" --bin "/vmafuzz/out/conform-server=$OUTDIR/conform-server"
	--env VMAFUZZ_CONFORM_TIMEOUT_MS=600000 --env PATH=/vmafuzz/out --job-timeout "$timeout")
for sc in "${sysctls[@]}"; do
	ia+=(--sysctl "$sc")
done
if [ ${#cmd[@]} -eq 0 ]; then
	seeds=() machined=()
	for f in corpus/fuzz_mm/*.txt; do
		ia+=(--file "/vmafuzz/$f=$f")
		if grep -q '^# vm: sysctl ' "$f"; then
			machined+=("$f") # on a machine of its own, below
		else
			seeds+=("/vmafuzz/$f")
		fi
	done
	ia+=(--arg /vmafuzz/out/vmafuzz --arg conform --arg --keep-going --arg --mark
		--arg --random --arg "$programs" --arg --seed --arg "$seed" --arg --ops --arg "$ops")
	ia+=(--then --arg /vmafuzz/out/vmafuzz --arg conform --arg --keep-going --arg --mark)
	for f in "${seeds[@]}"; do
		ia+=(--arg "$f")
	done
	# then each seed that names the machine it shows on ('# vm: sysctl'
	# lines), on that machine: the sysctls above, then its own, set
	# before it runs
	for f in "${machined[@]}"; do
		ia+=(--then)
		for sc in "${sysctls[@]}" $(sed -n 's/^# vm: sysctl \([^ ]*=[^ ]*\)$/\1/p' "$f"); do
			ia+=(--sysctl "$sc")
		done
		ia+=(--arg /vmafuzz/out/vmafuzz --arg conform --arg --keep-going --arg --mark
			--arg "/vmafuzz/$f")
	done
	# then the seeds with other threads, run in parallel on the vCPUs
	# (vmafuzz race), for the kernel's own checks to watch real races
	racing=()
	for f in corpus/fuzz_mm/*.txt; do
		grep -qE '^t[1-9][0-9]*:' "$f" && racing+=("/vmafuzz/$f")
	done
	if [ ${#racing[@]} -gt 0 ]; then
		ia+=(--then)
		[ ${#machined[@]} -eq 0 ] || for sc in "${sysctls[@]}"; do ia+=(--sysctl "$sc"); done
		ia+=(--arg /vmafuzz/out/vmafuzz --arg race --arg --mark --arg --rounds --arg 20)
		for f in "${racing[@]}"; do
			ia+=(--arg "$f")
		done
	fi
else
	# conform marks its programs and operations, for the reports
	if [ "${cmd[0]}" = vmafuzz ] && { [ "${cmd[1]:-}" = conform ] || [ "${cmd[1]:-}" = race ]; }; then
		cmd=(vmafuzz "${cmd[1]}" --mark "${cmd[@]:2}")
	fi
	first=1
	for a in "${cmd[@]}"; do
		if [ "$first" = 1 ] && [ "$a" = vmafuzz ]; then
			a=/vmafuzz/out/vmafuzz
		elif [ "$first" = 1 ] && [ "$a" = fuzz_conform ]; then
			ia+=(--bin "/vmafuzz/out/libfuzzer/fuzz_conform=$OUTDIR/libfuzzer/fuzz_conform")
			make -s --no-print-directory -j"$JOBS" "$OUTDIR/libfuzzer/fuzz_conform" >&2
			a=/vmafuzz/out/libfuzzer/fuzz_conform
		elif [ "$first" = 1 ] && [ -f "$a" ] && [ -x "$a" ]; then
			# a program of yours (a C reproducer): with the libraries it links
			ia+=(--bin "/host$(readlink -f "$a")=$a")
			a=/host$(readlink -f "$a")
		elif [ -f "$a" ]; then
			# under /host: the guest's /tmp is a tmpfs of its own
			ia+=(--file "/host$(readlink -f "$a")=$a")
			a=/host$(readlink -f "$a")
		fi
		ia+=(--arg "$a")
		first=0
	done
fi
"$V" vm initramfs "${ia[@]}" || exit 2

rc=0
"$V" vm run --kernel "$bz" --initramfs "$run/initramfs" --mem "$mem" --cpus "$cpus" \
	--timeout $((timeout + 600)) --log "$run/console.log" --reports "$run/reports" "${stopat[@]}" \
	2>"$run/run.log" || rc=$?
if [ "$replay" = 1 ]; then
	# the most severe report first, then in the order they came: the
	# bucket is the first line's, and a WARNING on the way to a BUG does
	# not always reach the console whole (a program's own output may cut
	# into its lines), while the BUG that ends the machine does
	reports=()
	for pass in 0 1 2 3; do
		for r in "$run"/reports/*.txt; do
			case $r in *.prog.txt) continue ;; esac
			[ -f "$r" ] || continue
			case $(sed -n 's/^kind: //p' "$r" | head -n 1) in
			BUG | Oops | panic | KASAN | maple) rank=0 ;;
			lockdep) rank=1 ;;
			model | race)
				# the job's findings count for a crash the job found
				# (its '# vm: job' line), not for a kernel's report
				[ -n "$job" ] || continue
				rank=3
				;;
			*) rank=2 ;;
			esac
			[ "$rank" = "$pass" ] && reports+=("$r")
		done
	done
	# the tree the reports' files are relative to (the shadow's links lead
	# to it), for triage's SARIF
	root=$(dirname "$(readlink -f "$(dirname "$kdir")/Makefile")")
	[ ${#reports[@]} -gt 0 ] && [ -f "$root/Makefile" ] && echo "vmafuzz: kernel tree: $root" >&2
	for r in "${reports[@]}"; do
		w=$(sed -n 's/^where: //p' "$r" | head -n 1)
		echo "vmafuzz: kernel report: $(sed -n 's/^title: //p' "$r" | head -n 1)${w:+ at $w}" >&2
	done
	[ ${#reports[@]} -eq 0 ] && exit 0
	# the first report's text, for the reader
	sed -n '/^$/,$p' "${reports[0]}" | head -n 60 >&2
	exit 1
fi
cat "$run/run.log" >&2

# each report of a program: a crash, the program that was running (up to
# the operation under way, as the guest marked them), its report beside
crashes=${VMAFUZZ_WORK_ROOT:-$OUTDIR/work}/vm-$key/crashes
for r in "$run"/reports/*.txt; do
	case $r in *.prog.txt) continue ;; esac
	p=${r%.txt}.prog.txt
	[ -f "$p" ] || continue
	mkdir -p "$crashes"
	name=crash-$(cat "$p" "$r" | sha1sum | cut -c1-16)
	{
		# the machine it ran on, for a replay
		printf '# vm: sysctl %s\n' "${sysctls[@]}" | awk '!seen[$0]++'
		case $(sed -n 's/^kind: //p' "$r" | head -n 1) in
		race) echo '# vm: job race' ;;
		model) echo '# vm: job conform' ;;
		esac
		cat "$p"
	} >"$crashes/.$name.tmp" && mv "$crashes/.$name.tmp" "$crashes/$name.txt"
	mkdir -p "$crashes/../reports"
	cp "$r" "$crashes/../reports/$name.txt"
	echo "$name.txt vm/$key/guest" >>"$crashes/.builds"
	echo "vm: $(sed -n 's/^title: //p' "$r" | head -n 1): $crashes/$name.txt" \
		"(program $(sed -n 's/^program: //p' "$r" | head -n 1))" >&2
done
echo "vm: console $run/console.log, reports $run/reports/" >&2
exit "$rc"
