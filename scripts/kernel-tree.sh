#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of a kernel tree the kernel backend can be built from
# (kernel/maple/maple.mk, docs/kernel.md):
#   - $KSRC when set: it must hold lib/maple_tree.c, tools/testing/shared
#     and tools/testing/radix-tree, else exit 2;
#   - else Debian's linux-source-6.12, the folders the build needs unpacked
#     into $OUTDIR/kernel/src/ (default out/), once: a stamp names the
#     tarball's size and time, and a changed tarball is unpacked again.
#     When the package is missing it is installed with apt-get if we are
#     root; otherwise a message names it and the exit status is 2.
# Progress goes to stderr; stdout is only the path.
set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
OUTDIR=${OUTDIR:-out}
PKG=linux-source-6.12
TARBALL=/usr/src/$PKG.tar.xz
# what the build reads (kernel/maple/maple.mk compiles lib/maple_tree.c through
# the shim of tools/testing/shared with tools/include and the kernel's
# include/linux headers); radix-tree for the validation below and reference
PARTS=(lib/maple_tree.c 'include/linux/*' 'tools/include/*' 'tools/arch/*/include/*'
	'tools/testing/shared/*' 'tools/testing/radix-tree/*'
	# the vma backend (kernel/vma/vma.mk): mm/vma.c with the shims of tools/testing/vma
	mm/vma.c mm/vma.h mm/vma_internal.h 'tools/testing/vma/*')

usable() {
	[ -f "$1/lib/maple_tree.c" ] && [ -d "$1/tools/testing/radix-tree" ] &&
		[ -d "$1/tools/testing/shared" ] && [ -f "$1/include/linux/maple_tree.h" ]
}

if [ -n "${KSRC:-}" ]; then
	if usable "$KSRC"; then
		readlink -f "$KSRC"
		exit 0
	fi
	echo "kernel-tree.sh: KSRC=$KSRC is not a kernel tree with lib/maple_tree.c," \
		"tools/testing/shared and tools/testing/radix-tree" >&2
	exit 2
fi

if [ ! -f "$TARBALL" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "kernel-tree.sh: installing $PKG (apt-get)" >&2
		apt-get install -y "$PKG" >&2 ||
			{ apt-get update >&2 && apt-get install -y "$PKG" >&2; } || true
	fi
	if [ ! -f "$TARBALL" ]; then
		echo "kernel-tree.sh: no kernel tree: set KSRC=<kernel tree>, or install" \
			"the Debian package $PKG (apt-get install $PKG, as root)" >&2
		exit 2
	fi
fi

DEST=$OUTDIR/kernel/src
TREE=$DEST/$PKG
STAMP=$DEST/.stamp
want="$(stat -c '%s %Y' "$TARBALL") $TARBALL ${PARTS[*]}"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && usable "$TREE"; then
	readlink -f "$TREE"
	exit 0
fi

echo "kernel-tree.sh: unpacking the parts of $TARBALL the build needs into $DEST" >&2
rm -rf "$TREE" "$STAMP"
mkdir -p "$DEST"
start=$(date +%s)
tar -xJf "$TARBALL" -C "$DEST" --wildcards "${PARTS[@]/#/$PKG/}"
usable "$TREE" || {
	echo "kernel-tree.sh: $TARBALL did not give a usable tree in $TREE" >&2
	exit 2
}
echo "$want" >"$STAMP"
echo "kernel-tree.sh: unpacked in $(($(date +%s) - start)) s ($(du -sh "$TREE" | cut -f1))" >&2
readlink -f "$TREE"
