#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/vma/probe.sh CC KSRC GEN QUIRK OUT: find, by compiling probes
# against the kernel tree KSRC, what the vma backend's build of mm/vma.c with
# tools/testing/vma's stubs needs (docs/kernel.md, "The vma backend"), and
# write it as make variables to OUT (out/kernel/vma_config.mk). GEN holds
# the shim's generated/ headers, QUIRK the maple tree's include and quirk
# flags (kernel/maple/probe.sh). Nothing is assumed from the kernel's version:
#   KVMA_LAYOUT   where the VMA code's callers live, told by mm/vma.h's
#                 declarations and their types:
#                   vma-merge-api    vma_merge_new_range and
#                                    vma_modify_flags(..., unsigned long),
#                                    no mmap_region: the adapter writes the
#                                    callers (do_mmap and mmap_region too)
#                   vma-mmap-region  mmap_region(..., vma_flags_t, ...),
#                                    vma_modify_flags(..., vma_flags_t *),
#                                    unmapped_area_topdown: the kernel's
#                                    mmap_region, the adapter writes do_mmap,
#                                    mprotect and madvise around it
#                 anything else is not supported (exit 1)
#   KVMA_CALLERS  the adapter's file of callers for that layout
#   KVMA_VMA_INIT mm/vma_init.c when the tree's VMAs come from it (the
#                 stubs have no vm_area_alloc of their own)
#   KVMA_LIBS     tools/lib files the stubs' bitmaps need (undefined
#                 __bitmap_* / _find_* in the unit's object)
#   KVMA_DEFS     -DNUM_VMA_FLAG_BITS=... when the stubs leave the bitmaps'
#                 sizes to the test's Makefile;
#                 -DKVMA_HAVE_<name> for each function the stubs declare,
#                 the others come from kernel/vma/shim/kvma_shim.h:
#                   vma_close vm_flags_init vm_flags_reset vm_flags_set
#                   vm_flags_clear dump_vma vma_iter_dump_tree
#                 -DKVMA_NEED_<name> for each the stubs declare and their
#                 test program defines (the unit's object leaves it
#                 undefined), which kvma_shim.h then defines:
#                   get_current vma_dummy_vm_ops mmap_min_addr
#                   dac_mmap_min_addr stack_guard_gap sysctl_max_map_count
#                   rlimit
# A tree without the pieces (mm/vma.c, tools/testing/vma) gets one sentence
# naming the tree, its version and what it lacks, exit status 2, and a
# config whose KVMA_UNSUPPORTED holds the sentence: kernel/vma/vma.mk then
# leaves kfuzz_vma out of `make kernel` and fails its own goals with it.
set -euo pipefail
CC=$1 KSRC=$2 GEN=$3 QUIRK=$4 OUT=$5
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
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

# The include path kernel/vma/vma.mk compiles with (keep the two in step).
# shellcheck disable=SC2206
inc=(-std=gnu11 -D_GNU_SOURCE -I"$root/kernel/vma/shim" -I"$root/kernel/maple/shim" -I"$GEN"
	-I"$KSRC/tools/testing/shared" -I"$KSRC/tools/testing/vma" -I"$KSRC/tools/include"
	-I"$KSRC/lib" -I"$root/src" -I"$root" -include "$root/kernel/maple/shim/kmt_prelude.h" $QUIRK
	-DCONFIG_DEBUG_VM_MAPLE_TREE)
# warnings off but implicit declarations (-w would silence those too)
nowarn=(-Wno-everything -Werror=implicit-function-declaration)
defs=

# the stubs, then (with $1 = vma.h) our shim's macros and mm/vma.h, as the unit reads them
head() {
	printf '#include "maple-shared.h"\n#include "%s"\n' "$KSRC/tools/testing/vma/vma_internal.h"
	if [ "${1:-}" = vma.h ]; then
		# the shim's macros only: its functions are the probe's to decide
		for n in $shim_fns; do printf '#define KVMA_HAVE_%s\n' "$n"; done
		printf '#include "%s"\n#include "%s"\n' "$root/kernel/vma/shim/kvma_shim.h" "$KSRC/mm/vma.h"
	fi
	true
}
shim_fns="vma_close vm_flags_init vm_flags_reset vm_flags_set vm_flags_clear dump_vma vma_iter_dump_tree"

# shellcheck disable=SC2086
compiles() { # compiles FILE: with the flags so far
	"$CC" "${inc[@]}" "${nowarn[@]}" $defs -fsyntax-only "$1" 2>"$tmp/err"
}

declared() { # declared NAME [vma.h]: the stubs (or vma.h) declare NAME
	{
		head "${2:-}"
		printf 'void *kvma_probe(void) { return (void *)&%s; }\n' "$1"
	} >"$tmp/$1.c"
	compiles "$tmp/$1.c"
}

typed() { # typed NAME TYPE: vma.h declares NAME with the type TYPE (a pointer to it)
	{
		head vma.h
		printf '_Static_assert(__builtin_types_compatible_p(typeof(&%s), %s), "");\n' "$1" "$2"
	} >"$tmp/$1.typed.c"
	compiles "$tmp/$1.typed.c"
}

# Sizes the stubs leave to the test's Makefile (-DNUM_VMA_FLAG_BITS=...):
# the kernel's, a word's bits
head >"$tmp/head.c"
if ! compiles "$tmp/head.c"; then
	bits=$(getconf LONG_BIT)
	defs="-DNUM_VMA_FLAG_BITS=$bits -DNUM_MM_FLAG_BITS=$bits"
	if compiles "$tmp/head.c"; then
		echo "vma_probe: the stubs want the flag bitmaps' sizes: $defs" >&2
	else
		echo "vma_probe: tools/testing/vma/vma_internal.h of $tree does not compile here:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
fi

# Who makes VMAs: the stubs (vm_area_alloc in vma_internal.h), or the
# kernel's own mm/vma_init.c (its slab cache, hooked by the unit)
vma_init=
if declared vm_area_alloc; then
	echo "vma_probe: the stubs allocate VMAs (vm_area_alloc): wrapped" >&2
elif [ -f "$KSRC/mm/vma_init.c" ]; then
	vma_init=$KSRC/mm/vma_init.c
	echo "vma_probe: mm/vma_init.c allocates VMAs from its slab cache: compiled, the cache hooked" >&2
else
	cannot "neither its stubs nor an mm/vma_init.c define vm_area_alloc"
fi

# The layout: where mmap_region lives, and the form of the VMA code's API
# the callers file is written against
if declared vma_merge_new_range vma.h && typed vma_modify_flags \
	'struct vm_area_struct *(*)(struct vma_iterator *, struct vm_area_struct *, struct vm_area_struct *, unsigned long, unsigned long, unsigned long)' &&
	! declared __mmap_region vma.h && ! declared mmap_region vma.h; then
	layout=vma-merge-api
	echo "vma_probe: layout vma-merge-api: mm/vma.c has vma_merge_new_range and" \
		"vma_modify_flags, mmap_region lives outside it (the adapter writes the callers)" >&2
elif typed mmap_region \
	'unsigned long (*)(struct file *, unsigned long, unsigned long, vma_flags_t, unsigned long, struct list_head *)' &&
	typed vma_modify_flags \
		'struct vm_area_struct *(*)(struct vma_iterator *, struct vm_area_struct *, struct vm_area_struct *, unsigned long, unsigned long, vma_flags_t *)' &&
	typed unmapped_area_topdown 'unsigned long (*)(struct vm_unmapped_area_info *)'; then
	layout=vma-mmap-region
	echo "vma_probe: layout vma-mmap-region: mm/vma.c has mmap_region (taking vma_flags_t)" \
		"and unmapped_area_topdown, which are compiled; the adapter writes do_mmap," \
		"mprotect and madvise" >&2
else
	echo "vma_probe: mm/vma.h of $tree is in no layout the adapter knows (vma-merge-api:" \
		"vma_merge_new_range, vma_modify_flags(..., unsigned long) and no mmap_region;" \
		"vma-mmap-region: mmap_region(..., vma_flags_t, ...), vma_modify_flags(..., vma_flags_t *)," \
		"unmapped_area_topdown): not supported" >&2
	exit 1
fi

for n in $shim_fns; do
	if declared "$n"; then
		defs="$defs -DKVMA_HAVE_$n"
	else
		echo "vma_probe: the stubs lack $n: kernel/vma/shim/kvma_shim.h supplies it" >&2
	fi
done

# What the unit, built as kernel/vma/vma.mk builds it, leaves undefined that
# the stubs declare (the test program's own files define it) and our shim
# knows how to define, and the tools/lib files it needs.
case $layout in
vma-merge-api) callers=kernel/vma/kvma_callers_merge_api.c ;;
vma-mmap-region) callers=kernel/vma/kvma_callers_mmap_region.c ;;
esac
unit=(-DKVMA_INTERNAL_H="\"$KSRC/tools/testing/vma/vma_internal.h\"" -DKVMA_VMA_H="\"$KSRC/mm/vma.h\""
	-DKVMA_VMA_C="\"$KSRC/mm/vma.c\"" -DKVMA_CALLERS_C="\"$root/$callers\""
	-DKVMA_LAYOUT_NAME="\"$layout\"")
[ -z "$vma_init" ] || unit+=(-DKVMA_VMA_INIT_C="\"$vma_init\"")
# shellcheck disable=SC2086
if ! "$CC" "${inc[@]}" "${nowarn[@]}" $defs "${unit[@]}" -c "$root/kernel/vma/kvma_unit.c" \
	-o "$tmp/unit.o" 2>"$tmp/err"; then
	echo "vma_probe: kernel/vma/kvma_unit.c does not compile against $tree ($layout):" >&2
	cat "$tmp/err" >&2
	exit 1
fi
nm -u "$tmp/unit.o" | awk '{ print $NF }' | sort -u >"$tmp/undef"
for n in get_current vma_dummy_vm_ops mmap_min_addr dac_mmap_min_addr stack_guard_gap \
	sysctl_max_map_count rlimit; do
	if grep -qx "$n" "$tmp/undef"; then
		defs="$defs -DKVMA_NEED_$n"
		echo "vma_probe: the stubs declare but do not define $n: kvma_shim.h defines it" >&2
	fi
done
# The tools/lib files that define what is left (the stubs' bitmaps), and
# what those need in turn, as far as tools/lib has it.
libs=
grow=1
while [ "$grow" = 1 ]; do
	grow=0
	for f in bitmap find_bit hweight vsprintf; do
		src=$KSRC/tools/lib/$f.c
		if [ ! -f "$src" ] || [[ " $libs " == *" tools/lib/$f.c "* ]]; then
			continue
		fi
		if [ ! -f "$tmp/lib-$f.o" ]; then
			# shellcheck disable=SC2086
			"$CC" "${inc[@]}" "${nowarn[@]}" $defs -c "$src" -o "$tmp/lib-$f.o" 2>"$tmp/err" ||
				continue
		fi
		if nm -g --defined-only "$tmp/lib-$f.o" | awk '{ print $NF }' | grep -qxFf "$tmp/undef"; then
			libs="$libs tools/lib/$f.c"
			nm -u "$tmp/lib-$f.o" | awk '{ print $NF }' >>"$tmp/undef"
			grow=1
		fi
	done
done
[ -z "$libs" ] || echo "vma_probe: the stubs need the kernel's$libs" >&2

{
	echo "# written by kernel/vma/probe.sh for $KSRC"
	echo "KVMA_PROBED_KSRC := $KSRC"
	echo "KVMA_LAYOUT := $layout"
	echo "KVMA_CALLERS := $callers"
	echo "KVMA_VMA_INIT := $vma_init"
	echo "KVMA_LIBS :=$libs"
	echo "KVMA_DEFS :=$defs"
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
