#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/maple/probe.sh CC KSRC GEN OUT: find, by looking at the kernel tree
# KSRC and compiling probes against it, the flags the kernel build needs,
# and write them as make variables to OUT (out/kernel/config.mk). GEN holds
# the generated/ headers the shim expects. Each quirk is detected, never
# assumed from the kernel's version (docs/kernel.md):
#   KMT_SHIM_DIR      where the tree keeps the maple tree's userspace shim:
#                     tools/testing/shared (maple-shared.h, linux.c), or
#                     tools/testing/radix-tree (test.h, linux.c; before
#                     tools/testing/shared existed)
#   KMT_SHIM_INC      for the radix-tree layout, our maple-shared.h
#                     (kernel/maple/shim/radix-tree), which its maple.c's
#                     prologue would be
#   KMT_ARCH_INC      -I tools/arch/ARCH/include when tools/include's asm
#                     headers reach into it (tools/testing/shared/shared.mk
#                     adds it in later trees)
#   KMT_QUIRK_CFLAGS  -include generated/autoconf.h when maple_tree.h comes
#                     before the config header and would size nodes for 32
#                     bits (CONFIG_64BIT unset): 63/32/21 slots, 512 bytes
#   KMT_DEFS          -DKMT_HAVE_NR_ALLOCATED: the shim's test hooks
#                     (mt_nr_allocated; only without __KERNEL__)
#                     -DKMT_HAVE_BULK: mas_expected_entries (gone in 6.15)
#                     -DKMT_HAVE_DUP: __mt_dup (6.8); without it dup and
#                     fork are not supported
#                     -DKMT_HAVE_ALLOC_CYCLIC: mtree_alloc_cyclic (found
#                     by compiling); without it no alloc_cyclic
#                     -DKMT_HAVE_MTREE_DUP: mtree_dup; without it no
#                     dup_locked
#                     -DKMT_HAVE_FIND_RANGE: mas_find_range and
#                     mas_find_range_rev; without them walk_by has no
#                     range walks
#                     -DKMT_ALLOC_OLD: mtree_alloc_range searches with
#                     mas_alloc, not mas_empty_area (before 6.5); then
#                     no alloc
#                     -DKMT_DUMP_FORMAT: mt_dump takes a format (6.4);
#                     -DKMT_META_GAP_TYPED: ma_meta_gap takes the type
#                     -DKMT_ALLOC_SHEAF, -DKMT_ALLOC_BULK, -DKMT_FREE_KFREE,
#                     -DKMT_RCU_CB: how lib/maple_tree.c allocates and
#                     frees its nodes, read from the undefined symbols of
#                     its object (slab sheaves or kmem_cache_alloc_bulk;
#                     kfree of a node; kfree_rcu through the shim's
#                     maple_rcu_cb), so that kernel/maple/kmt_unit.c hooks
#                     every path; an allocator it does not know stops the
#                     probe
# Exit status 2, with one sentence, when the tree lacks what the backend
# needs; 1 when something else fails.
set -euo pipefail
CC=$1 KSRC=$2 GEN=$3 OUT=$4
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the tree's version, for messages only (its top Makefile may not be there)
version=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' "$KSRC/Makefile" 2>/dev/null |
	head -n 3 | paste -sd.) || true
tree="$KSRC (version unknown)"
[ -z "$version" ] || tree="$KSRC (Linux $version)"

# cannot REASON: the tree lacks a piece; one sentence, exit 2
cannot() {
	echo "probe: kfuzz_mtree cannot be built from $tree: $*" >&2
	exit 2
}

if [ ! -f "$KSRC/lib/maple_tree.c" ] || [ ! -f "$KSRC/include/linux/maple_tree.h" ]; then
	cannot "it has no lib/maple_tree.c and include/linux/maple_tree.h (the maple tree came in 6.1)"
fi
if [ -f "$KSRC/tools/testing/shared/maple-shared.h" ] && [ -f "$KSRC/tools/testing/shared/linux.c" ]; then
	shim_dir=tools/testing/shared shim_inc=
elif [ -f "$KSRC/tools/testing/radix-tree/maple.c" ] && [ -f "$KSRC/tools/testing/radix-tree/linux.c" ]; then
	shim_dir=tools/testing/radix-tree shim_inc="-I$root/kernel/maple/shim/radix-tree"
	echo "probe: the maple tree's shim is in tools/testing/radix-tree (no tools/testing/shared):" \
		"our maple-shared.h stands for its maple.c's prologue" >&2
else
	cannot "it has no userspace shim for the maple tree (tools/testing/shared/maple-shared.h" \
		"or tools/testing/radix-tree/maple.c)"
fi

# the architecture's folder of tools/arch, as tools/scripts/Makefile.arch names it
case $(uname -m) in
x86_64 | i?86) arch=x86 ;;
aarch64*) arch=arm64 ;;
arm*) arch=arm ;;
ppc* | powerpc*) arch=powerpc ;;
s390*) arch=s390 ;;
riscv*) arch=riscv ;;
*) arch=$(uname -m) ;;
esac

base() { # the include path in maple.mk's order; $1: the arch folder or nothing
	# shellcheck disable=SC2206
	inc=(-std=gnu11 -I"$root/kernel/maple/shim" $shim_inc -I"$GEN" -I"$KSRC/$shim_dir"
		-I"$KSRC/tools/include" $1 -I"$KSRC/lib" -I"$root/src"
		-include "$root/kernel/maple/shim/kmt_prelude.h")
}

try() { # try FILE FLAGS...: compiles (warnings off)?
	local f=$1
	shift
	"$CC" "${inc[@]}" -w "$@" -fsyntax-only "$f" 2>"$tmp/err"
}

cat >"$tmp/geometry.c" <<'P'
#include "maple-shared.h"
#include <linux/maple_tree.h>
_Static_assert(sizeof(void *) != 8 || MAPLE_RANGE64_SLOTS == 16, "32-bit node geometry");
P

# tools/include/asm/*.h of later trees include ../../arch/$ARCH/include/asm/*.h,
# which include <asm/asm.h> from that folder: it must be on the path
arch_inc=
base ""
if ! try "$tmp/geometry.c" && ! try "$tmp/geometry.c" -include generated/autoconf.h &&
	grep -q "file not found\|No such file" "$tmp/err" && [ -d "$KSRC/tools/arch/$arch/include" ]; then
	arch_inc="-I$KSRC/tools/arch/$arch/include"
	base "$arch_inc"
	echo "probe: tools/include's headers need tools/arch/$arch/include: $arch_inc" >&2
fi

quirk=
if try "$tmp/geometry.c"; then
	echo "probe: node geometry right without help" >&2
elif try "$tmp/geometry.c" -include generated/autoconf.h; then
	quirk="-include generated/autoconf.h"
	echo "probe: maple_tree.h is read before generated/autoconf.h (32-bit nodes): $quirk" >&2
else
	echo "probe: the kernel's maple tree headers do not compile here:" >&2
	cat "$tmp/err" >&2
	exit 1
fi

# shellcheck disable=SC2086
has() { # has NAME CALL: lib/maple_tree.c defines NAME in this configuration
	printf '#include "maple-shared.h"\n#include "kmt_missing.h"\n#include "maple_tree.c"\nvoid kmt_probe(void) { %s; }\n' \
		"$2" >"$tmp/$1.c"
	# (not try: -w would silence the error, in clang and gcc alike)
	"$CC" "${inc[@]}" $quirk -Werror=implicit-function-declaration -fsyntax-only "$tmp/$1.c" \
		>"$tmp/err" 2>&1
}

# feature NAME CALL DEF YES NO: DEF defined when the tree has NAME, and
# which it is said either way
feature() {
	if has "$1" "$2"; then
		defs="$defs -D$3"
		echo "probe: $4" >&2
	else
		echo "probe: $5" >&2
	fi
}

defs=
feature nr_allocated 'mt_nr_allocated()' KMT_HAVE_NR_ALLOCATED \
	"the shim's node count mt_nr_allocated is there" \
	"no mt_nr_allocated (__KERNEL__?): live nodes are counted by the hooks alone"
feature bulk 'mas_expected_entries(NULL, 1)' KMT_HAVE_BULK \
	"mas_expected_entries is there: bulk supported" \
	"no mas_expected_entries: the backend has no bulk"
feature dup '__mt_dup(NULL, NULL, GFP_KERNEL)' KMT_HAVE_DUP \
	"__mt_dup is there: dup and fork supported" \
	"no __mt_dup (before 6.8): the backend has no dup and no fork"
feature alloc_cyclic 'mtree_alloc_cyclic(NULL, NULL, NULL, 0, 0, NULL, GFP_KERNEL)' \
	KMT_HAVE_ALLOC_CYCLIC "mtree_alloc_cyclic is there: alloc_cyclic supported" \
	"no mtree_alloc_cyclic: the backend has no alloc_cyclic"
feature mtree_dup 'mtree_dup(NULL, NULL, GFP_KERNEL)' KMT_HAVE_MTREE_DUP \
	"mtree_dup is there: dup_locked supported" "no mtree_dup: the backend has no dup_locked"
feature find_range 'mas_find_range(NULL, 0); mas_find_range_rev(NULL, 0)' KMT_HAVE_FIND_RANGE \
	"mas_find_range(_rev) is there: range walks supported" \
	"no mas_find_range: walk_by has no range walks"

# mtree_alloc_range and mtree_alloc_rrange before they searched with
# mas_empty_area(_rev) (6.5): mas_alloc and mas_rev_alloc, whose windows and
# argument checks are their own (docs/kernel.md, "Differences by version")
if has alloc_old 'mas_rev_alloc(NULL, 0, 0, NULL, 0, NULL)'; then
	defs="$defs -DKMT_ALLOC_OLD"
	echo "probe: mtree_alloc_range searches with mas_alloc: the backend has no alloc" >&2
fi

# helpers kernel/maple/kmt_unit.c calls whose form changed
if has dump_format 'mt_dump(NULL, mt_dump_hex)'; then
	defs="$defs -DKMT_DUMP_FORMAT"
elif has dump 'mt_dump(NULL)'; then
	echo "probe: mt_dump has no format argument (decimal indices)" >&2
else
	echo "probe: mt_dump of $KSRC has neither form kernel/maple/kmt_unit.c knows:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
if ! has meta_gap 'ma_meta_gap(NULL)'; then
	if has meta_gap_typed 'ma_meta_gap(NULL, maple_arange_64)'; then
		defs="$defs -DKMT_META_GAP_TYPED"
		echo "probe: ma_meta_gap takes the node's type too" >&2
	else
		echo "probe: ma_meta_gap of $KSRC has neither form kernel/maple/kmt_unit.c knows:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
fi

# How the tree allocates and frees nodes: what its object leaves undefined.
printf '#include "maple-shared.h"\n#include "kmt_missing.h"\n#include "maple_tree.c"\n' >"$tmp/alloc.c"
# shellcheck disable=SC2086
if ! "$CC" "${inc[@]}" -w $quirk -c "$tmp/alloc.c" -o "$tmp/alloc.o" 2>"$tmp/err"; then
	echo "probe: lib/maple_tree.c does not compile with the shim:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
nm -u "$tmp/alloc.o" | awk '{ print $NF }' | sort -u >"$tmp/undef"
uses() { grep -qx "$1" "$tmp/undef"; }
if uses kmem_cache_prefill_sheaf; then
	defs="$defs -DKMT_ALLOC_SHEAF"
	echo "probe: nodes come from slab sheaves (kmem_cache_prefill_sheaf ...)" >&2
fi
if uses kmem_cache_alloc_bulk; then
	defs="$defs -DKMT_ALLOC_BULK"
	echo "probe: nodes come in bulk (kmem_cache_alloc_bulk)" >&2
fi
if uses kfree; then
	defs="$defs -DKMT_FREE_KFREE"
	echo "probe: nodes are freed with kfree too" >&2
fi
if uses maple_rcu_cb; then
	defs="$defs -DKMT_RCU_CB"
	echo "probe: kfree_rcu goes through the shim's maple_rcu_cb" >&2
fi
# every allocator it calls must be one the hooks know
known='^(kmem_cache_(alloc_lru|alloc_bulk|free|free_bulk|prefill_sheaf|refill_sheaf|return_sheaf|alloc_from_sheaf|create|__kmem_cache_create_args|set_non_kernel|set_callback|set_private|get_alloc|nr_allocated|nr_tallocated|zero_nr_tallocated|shrink)|__kmem_cache_create_args|kfree|kmalloc_verbose|maple_rcu_cb)$'
unknown=$(grep -E '^(kmalloc|kzalloc|kcalloc|krealloc|kvmalloc|kvzalloc|kvfree|kfree|kmem_|__kmalloc|__kmem_)' "$tmp/undef" | grep -Ev "$known" || true)
if [ -n "$unknown" ]; then
	echo "probe: lib/maple_tree.c of $KSRC allocates through $(tr "\n" " " <<<"$unknown")" \
		"which kernel/maple/kmt_unit.c does not hook (fail_at and the live-node count would miss them)" >&2
	exit 1
fi

{
	echo "# written by kernel/maple/probe.sh for $KSRC"
	echo "KMT_PROBED_KSRC := $KSRC"
	echo "KMT_SHIM_DIR := $shim_dir"
	echo "KMT_SHIM_INC := $shim_inc"
	echo "KMT_ARCH_INC := $arch_inc"
	echo "KMT_QUIRK_CFLAGS := $quirk"
	echo "KMT_DEFS :=$defs"
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
