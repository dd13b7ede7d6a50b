#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel under qemu (docs/vm.md), on Debian's 6.12: its guest kernel
# built (the machine's cache keeps it: only the first run pays), booted,
# and vmafuzz conform run inside on 60 random programs whose forked
# children act, then on the seeds, with no kernel report; then a planted
# kernel bug (bugs/vm/dup_mmap_marker_past_failure.patch: dup_mmap marks a
# failed fork's stopping point one VMA too far) built, found as a crash
# with its program, triaged and regressed by booting again, the stored
# regression passing on the kernel without the bug, and the crash's C
# reproducer (vmafuzz repro --c) making the same report as the guest's job.
# Then the historical bugs of bugs/vm/ (the reverses of upstream fixes),
# each found by the seed that reaches it with the report its patch's
# Finds: line names (a race's crash triaged by replaying it under race;
# a seed's '# vm: sysctl' lines set the machine it runs on);
# the plain kernel ran those seeds clean in the job above.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz
bug=dup_mmap_marker_past_failure

if ! command -v qemu-system-x86_64 >/dev/null; then
	bad "qemu-system-x86_64 is not installed (scripts/install-deps.sh installs it as root)"
	finish
	exit
fi
export VMAFUZZ_WORK_ROOT=$T/work

# the guest kernel
if bz=$(scripts/vm-kernel.sh 6.12 2>"$T/kernel.log"); then
	ok "$(grep -o 'built in [0-9]* s' "$T/kernel.log")"
else
	bad "the 6.12 guest kernel did not build:"; tail -n 20 "$T/kernel.log"
	finish
	exit
fi
key=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$(dirname "$bz")")")")")")
grep 'does not take' "$T/kernel.log" && bad "the 6.12 tree does not take an option of live/vm/vmafuzz.config" || ok

# conform inside: 60 random programs (a smoke test; scripts/vm.sh
# --programs N runs more), then the seeds; race on the seeds with other
# threads
rc=0
scripts/vm.sh --programs 60 6.12 >"$T/vm.out" 2>"$T/vm.err" || rc=$?
[ "$rc" -le 1 ] && ok || { bad "scripts/vm.sh exited $rc:"; tail -n 20 "$T/vm.err"; }
log=$(ls -dt "$OUT"/vm/runs/*/console.log | head -n 1)
n=$(sed -n 's/^\([0-9]*\) programs, [0-9]* operations agree.*/\1/p' "$log" | head -n 1)
d=$(sed -n 's/.*; \([0-9]*\) of [0-9]* programs differ.*/\1/p' "$log" | head -n 1)
[ $((n + ${d:-0})) -ge 60 ] && ok "$((n + ${d:-0})) random programs ran in the guest ($n agree)" ||
	bad "fewer than 60 random programs ran in the guest: $(grep 'programs' "$log" | tail -n 3)"
child=$(sed -n 's/.*operations of forked processes \([0-9]*\) .*/\1/p' "$log" | head -n 1)
[ "${child:-0}" -gt 100 ] && ok "forked processes acted ($child operations)" ||
	bad "the forked processes did not act: $(grep 'forked processes' "$log")"
grep -qE 'threads_faults.txt: 20 rounds, .*, 0 failures' "$log" && ok ||
	bad "vmafuzz race did not run the racing seeds in the guest: $(grep 'rounds' "$log" | tail -n 3)"
grep -q 'vmafuzz-vm: exit ' "$log" && ok || bad "the guest did not end its job: $(tail -n 5 "$log")"
# a seed that names its machine ('# vm: sysctl' lines) ran on it, by itself:
# the commit limit failed its fork in the kernel, and conform followed
grep -q 'conform_uffd_fork_over_limit.txt: [0-9]* operations agree' "$log" && ok ||
	bad "the seed with a machine of its own did not agree: $(grep -A3 'fork_over_limit' "$log" | head -n 8)"
grep -q '__vm_enough_memory: .* not enough memory' "$log" && ok ||
	bad "the commit limit was not in force for the seed that names it"
grep -q 'report [0-9]*:' "$T/vm.err" && bad "the kernel reported: $(grep 'report [0-9]*:' "$T/vm.err")" || ok
[ -x "$OUT/vm/$key/replay/fuzz_mm" ] && ok || bad "no replay driver for the guest kernel $key"

# the planted bug, found with its program
if scripts/vm-kernel.sh --bug "$bug" 6.12 >"$T/bz-bug" 2>"$T/kernel-bug.log"; then
	ok "the planted bug's kernel: $(grep -o 'built in [0-9]* s' "$T/kernel-bug.log")"
else
	bad "the planted bug's kernel did not build:"; tail -n 20 "$T/kernel-bug.log"
	finish
	exit
fi
expect 1 "kernel BUG in exit_mmap at mm/mmap.c:[0-9]+" \
	scripts/vm.sh --bug "$bug" 6.12 -- vmafuzz conform "bugs/vm/$bug.txt"
crashes=$VMAFUZZ_WORK_ROOT/vm-$key-bug-$bug/crashes
crash=$(grep -l '^fork p0' "$crashes"/*.txt 2>/dev/null | head -n 1)
[ -n "$crash" ] && ok || bad "no crash with its program in $crashes"
[ -n "$crash" ] && grep -q '^mmap p0 @0x100:end r,w private f0 fixed$' "$crash" && ok ||
	bad "the crash's program is not the one that ran"
grep -q "vm/$key-bug-$bug/guest" "$crashes/.builds" && ok || bad "the crash's build record names not the guest kernel"
ls "$crashes"/../reports/*.txt >/dev/null 2>&1 && ok || bad "no report beside the crash"

# triaged and regressed by booting again
expect 0 'KERNEL kernel BUG in exit_mmap +[0-9]+ ' "$V" triage "$crashes"
# SARIF: the kernel's file relative to the tree, whose root is given
tree=$(scripts/kernel-tree.sh 6.12)
"$V" triage --sarif "$crashes" >"$T/sarif.json" 2>/dev/null
python3 - "$T/sarif.json" "$tree" <<'PY' && ok || bad "the SARIF does not place the report in the tree: $(head -c 600 "$T/sarif.json")"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
base = run["originalUriBaseIds"]["KSRC"]["uri"]
assert base.rstrip("/").endswith(sys.argv[2].rstrip("/").split("/")[-1]), base
locs = [l["physicalLocation"]["artifactLocation"] for r in run["results"] for l in r.get("locations", [])]
assert {"uri": "mm/mmap.c", "uriBaseId": "KSRC"} in locs, locs
PY
mkdir -p "$T/root/corpus"
expect 0 '' "$V" regress --root "$T/root" --why "planted: $bug" "$crash"
stored=$(ls "$T/root/corpus/regress/fuzz_mm/"*.txt 2>/dev/null | head -n 1)
[ -n "$stored" ] && ok || bad "regress stored nothing"
# the entry keeps the machine the crash ran on (its '# vm: sysctl' lines),
# and the kernel without the bug runs it clean on that machine
if [ -n "$stored" ]; then
	grep -q '^# vm: sysctl vm/overcommit_memory=2$' "$stored" && ok ||
		bad "the stored regression lost the crash's machine: $(head -n 8 "$stored")"
	expect 0 '' "$OUT/vm/$key/replay/fuzz_mm" "$stored"
	grep -q 'kernel report' "$T/out" && bad "the kernel without the bug reported" || ok
fi

# minimized (a few runs: each boots), the machine kept in the result
expect 0 'KERNEL ' "$V" minimize --max-runs 3 -o "$T/min.txt" "$crash"
grep -q '^# vm: sysctl vm/overcommit_kbytes=' "$T/min.txt" && ok ||
	bad "the minimized program lost the crash's machine: $(head -n 8 "$T/min.txt")"

# the C reproducer of the crash's program, run as the guest's job: the
# same report on the kernel with the bug; none on the one without, where
# it ends with its one difference from the model (the fork refused under
# the commit limit, which the model does not know: nodiff in the program)
if "$V" repro --c "$crash" -o "$T/repro.c" && cc -O1 -o "$T/repro" "$T/repro.c"; then
	ok
	expect 1 "report [0-9]+: (kernel BUG in exit_mmap|WARNING in free_pgtables)" \
		scripts/vm.sh --bug "$bug" 6.12 -- "$T/repro"
	VMAFUZZ_VM_SYSCTLS="$(grep -v '^#' "bugs/vm/$bug.sysctl")" \
		expect 1 '0 report\(s\): the job exited 1' scripts/vm.sh --kernel "$bz" -- "$T/repro"
	grep -q 'report [0-9]*:' "$T/out" && bad "the reproducer made the kernel without the bug report" || ok
else
	bad "no C reproducer of $crash"
fi

# the historical bugs: NAME and the seed that finds it (its job)
for pair in rollup_skip_after_relock:race:rollup_writers anon_vma_degree_reuse:conform:fork_chain_reuse \
	uffd_flags_without_ctx:conform:mremap_uffd_flags_without_ctx \
	uffd_fork_fail_event:conform:conform_uffd_fork_over_limit; do
	IFS=: read -r hb job seed <<<"$pair"
	finds=$(sed -n 's/^Finds: //p;/^--- /q' "bugs/vm/$hb.patch")
	args=()
	[ "$job" = race ] && args=(--rounds 20)
	if ! scripts/vm-kernel.sh --bug "$hb" 6.12 >/dev/null 2>"$T/kernel-$hb.log"; then
		bad "the kernel of $hb did not build:"; tail -n 5 "$T/kernel-$hb.log"
		continue
	fi
	expect 1 "report 1: $finds" scripts/vm.sh --bug "$hb" --stop-at "$finds" -- \
		vmafuzz "$job" "${args[@]}" "corpus/fuzz_mm/$seed.txt"
done
# the race's crash replays under race (its '# vm: job race' line)
crashes=$VMAFUZZ_WORK_ROOT/vm-$key-bug-rollup_skip_after_relock/crashes
rc=$(grep -l '^# vm: job race$' "$crashes"/*.txt 2>/dev/null | head -n 1)
[ -n "$rc" ] && ok || bad "the race's crash has no '# vm: job race' line"
expect 0 "KERNEL race: smaps_rollup's Rss below its bound in rollup" "$V" triage "$crashes"
finish
