#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/maple/probe.sh CC KSRC GEN OUT: find, by compiling probes against the
# kernel tree KSRC, the flags the kernel build needs, and write them as
# make variables to OUT (out/kernel/config.mk). GEN holds the generated/
# headers the shim expects. Each quirk is detected, not assumed from the
# kernel's version (docs/kernel.md):
#   KMT_QUIRK_CFLAGS  -include generated/autoconf.h when maple_tree.h comes
#                     before the config header and would size nodes for 32
#                     bits (CONFIG_64BIT unset): 63/32/21 slots, 512 bytes
#   KMT_DEFS          -DKMT_HAVE_NR_ALLOCATED: the shim's test hooks
#                     (mt_nr_allocated; only without __KERNEL__)
#                     -DKMT_HAVE_BULK: mas_expected_entries (gone in 6.15)
# __mt_dup (6.8) is required.
set -euo pipefail
CC=$1 KSRC=$2 GEN=$3 OUT=$4
root=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../..
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

inc=(-std=gnu11 -w -I"$root/kernel/maple/shim" -I"$GEN" -I"$KSRC/tools/testing/shared"
	-I"$KSRC/tools/include" -I"$KSRC/lib" -I"$root/src" -include "$root/kernel/maple/shim/kmt_prelude.h")

try() { # try FILE FLAGS...: compiles?
	local f=$1
	shift
	"$CC" "${inc[@]}" "$@" -fsyntax-only "$f" 2>"$tmp/err"
}

cat >"$tmp/geometry.c" <<'P'
#include "maple-shared.h"
#include <linux/maple_tree.h>
_Static_assert(sizeof(void *) != 8 || MAPLE_RANGE64_SLOTS == 16, "32-bit node geometry");
P
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
	printf '#include "maple-shared.h"\n#include "maple_tree.c"\nvoid kmt_probe(void) { %s; }\n' \
		"$2" >"$tmp/$1.c"
	try "$tmp/$1.c" $quirk -Werror=implicit-function-declaration
}

defs=
if has nr_allocated 'mt_nr_allocated()'; then
	defs="$defs -DKMT_HAVE_NR_ALLOCATED"
	echo "probe: the shim's node count mt_nr_allocated is there" >&2
else
	echo "probe: no mt_nr_allocated (__KERNEL__?): live nodes are counted by the hooks alone" >&2
fi
if has bulk 'mas_expected_entries(NULL, 1)'; then
	defs="$defs -DKMT_HAVE_BULK"
	echo "probe: mas_expected_entries is there: bulk supported" >&2
else
	echo "probe: no mas_expected_entries: the backend has no bulk" >&2
fi
if ! has dup '__mt_dup(NULL, NULL, GFP_KERNEL)'; then
	echo "probe: lib/maple_tree.c has no __mt_dup (before 6.8): not supported" >&2
	cat "$tmp/err" >&2
	exit 1
fi

{
	echo "# written by kernel/maple/probe.sh for $KSRC"
	echo "KMT_PROBED_KSRC := $KSRC"
	echo "KMT_QUIRK_CFLAGS := $quirk"
	echo "KMT_DEFS :=$defs"
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
