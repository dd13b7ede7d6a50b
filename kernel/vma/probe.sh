#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/vma/probe.sh CC KSRC GEN QUIRK OUT: find, by compiling and linking
# probes against the kernel tree KSRC, what the vma backend's build of
# mm/vma.c with tools/testing/vma's stubs needs (docs/kernel.md, "The vma
# backend"), and write it as make variables to OUT (out/kernel/vma_config.mk).
# GEN holds the shim's generated/ headers, QUIRK the maple tree's quirk
# flags (kernel/maple/probe.sh). Nothing is assumed from the kernel's version:
#   KVMA_LAYOUT   the layout of the VMA code: "vma-merge-api" when mm/vma.h
#                 declares vma_merge_new_range and vma_modify_flags and not
#                 __mmap_region (mmap_region and mprotect_fixup outside
#                 mm/vma.c, as in 6.12: the adapter writes their logic);
#                 anything else is not supported (exit 1)
#   KVMA_DEFS     -DKVMA_HAVE_<name> for each piece the stubs provide; the
#                 others come from kernel/vma/shim/kvma_shim.h:
#                 declared:  vma_close vm_flags_init vm_flags_reset
#                            vm_flags_set vm_flags_clear dump_vma
#                            vma_iter_dump_tree
#                 defined (a link probe): get_current vma_dummy_vm_ops
#                 (tools/testing/vma/vma.c, the test program, defines them)
# A tree without the pieces (mm/vma.c, tools/testing/vma) gets one sentence
# naming the tree, its version and what it lacks, exit status 2, and a
# config whose KVMA_UNSUPPORTED holds the sentence: kernel/vma/vma.mk then
# leaves kfuzz_vma out of `make kernel` and fails its own goals with it.
set -euo pipefail
CC=$1 KSRC=$2 GEN=$3 QUIRK=$4 OUT=$5
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the tree's version, for messages only (its top Makefile may not be there)
version=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' "$KSRC/Makefile" 2>/dev/null |
	head -n 3 | paste -sd.) || true
tree="$KSRC (version unknown)"
[ -z "$version" ] || tree="$KSRC (Linux $version)"

# cannot REASON: the tree lacks a piece; one sentence, recorded, exit 2
cannot() {
	local msg="kfuzz_vma cannot be built from $tree: $*"
	echo "vma_probe: $msg" >&2
	{
		echo "# written by kernel/vma/probe.sh for $KSRC"
		echo "KVMA_PROBED_KSRC := $KSRC"
		echo "KVMA_UNSUPPORTED := $msg"
	} >"$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
	exit 2
}

missing=()
for f in mm/vma.c mm/vma.h tools/testing/vma/vma_internal.h; do
	[ -f "$KSRC/$f" ] || missing+=("$f")
done
[ ${#missing[@]} -eq 0 ] ||
	cannot "it has no $(printf '%s, ' "${missing[@]}" | sed 's/, $//') (kfuzz_vma compiles" \
		"the VMA code of mm/vma.c with the userspace stubs of tools/testing/vma)"

# shellcheck disable=SC2206
inc=(-std=gnu11 -w -I"$root/kernel/vma/shim" -I"$root/kernel/maple/shim" -I"$GEN"
	-I"$KSRC/tools/testing/shared" -I"$KSRC/tools/testing/vma" -I"$KSRC/tools/include"
	-I"$KSRC/lib" -I"$root/src" -include "$root/kernel/maple/shim/kmt_prelude.h" $QUIRK
	-Werror=implicit-function-declaration)

head() { # the includes the backend's translation unit starts with
	printf '#include "maple-shared.h"\n#include "%s"\n' "$KSRC/tools/testing/vma/vma_internal.h"
	[ "${1:-}" = vma.h ] && printf '#define VM_SEALED (1ul << 63)\n#include "%s"\n' "$KSRC/mm/vma.h"
	true
}

declared() { # declared NAME [vma.h]: the stubs (or vma.h) declare NAME
	{
		head "${2:-}"
		printf 'void *kvma_probe(void) { return (void *)&%s; }\n' "$1"
	} >"$tmp/$1.c"
	"$CC" "${inc[@]}" -fsyntax-only "$tmp/$1.c" 2>"$tmp/err"
}

defined() { # defined NAME: something of the stubs' defines NAME (links)
	{
		head
		printf 'void *volatile kvma_probe_p = (void *)&%s;\nint main(void) { return kvma_probe_p != 0; }\n' "$1"
	} >"$tmp/$1.c"
	"$CC" "${inc[@]}" "$tmp/$1.c" -o "$tmp/$1" 2>"$tmp/err"
}

if declared vma_merge_new_range vma.h && declared vma_modify_flags vma.h &&
	! declared __mmap_region vma.h; then
	layout=vma-merge-api
	echo "vma_probe: layout vma-merge-api: mm/vma.c has vma_merge_new_range and" \
		"vma_modify_flags, mmap_region lives outside it (the adapter writes the callers)" >&2
else
	echo "vma_probe: mm/vma.h of $KSRC is not the vma-merge-api layout (vma_merge_new_range," \
		"vma_modify_flags, no __mmap_region): not supported" >&2
	exit 1
fi

defs=
for n in vma_close vm_flags_init vm_flags_reset vm_flags_set vm_flags_clear dump_vma \
	vma_iter_dump_tree; do
	if declared "$n"; then
		defs="$defs -DKVMA_HAVE_$n"
	else
		echo "vma_probe: the stubs lack $n: kernel/vma/shim/kvma_shim.h supplies it" >&2
	fi
done
for n in get_current vma_dummy_vm_ops; do
	if defined "$n"; then
		defs="$defs -DKVMA_HAVE_$n"
	else
		echo "vma_probe: the stubs declare but do not define $n: kvma_shim.h defines it" >&2
	fi
done

{
	echo "# written by kernel/vma/probe.sh for $KSRC"
	echo "KVMA_PROBED_KSRC := $KSRC"
	echo "KVMA_LAYOUT := $layout"
	echo "KVMA_DEFS :=$defs"
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
