#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The docs say how the code is now, and keep dated results in one place.
# In README.md, bugs/README.md and every docs/*.md (docs/results/ aside,
# where dated results live, each with its command):
#
#   - every repository path they name exists (src/..., fuzz/..., tools/...,
#     kernel/..., live/..., tests/..., and the rest of the top folders; a
#     glob must match something; before a <placeholder>, its folder must);
#     a path of the kernel's tree is written $KSRC/..., so it is not read
#     as ours;
#   - every relative link leads to a file that exists, and an #anchor to a
#     heading of that file;
#   - no token that looks like a commit hash (7 to 40 hex digits, letters
#     and digits mixed), no date such as 2026-12 or 2026-12-06;
#   - README.md is at most 220 lines.
#
# Then each check is shown firing on a copy of the docs broken on purpose.
# Needs no build. Run by ./build.sh test with OUT and ROOT set.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT" || exit 2
. tests/shlib

README_MAX=220
TOPS='\.github|\.ci|\.clusterfuzzlite|src|fuzz|kernel|live|tools|bench|tests|scripts|corpus|dict|bugs|docs|oss-fuzz'

# exists PATH [DIR...]: PATH (repository-relative, maybe a glob) is in one
# of the DIRs (default: the repository)
exists() {
	local p=$1 d
	shift
	[ $# -gt 0 ] || set -- "$ROOT"
	for d in "$@"; do
		case $p in
		*'*'* | *'?'*) compgen -G "$d/$p" >/dev/null && return 0 ;;
		*) [ -e "$d/$p" ] && return 0 ;;
		esac
	done
	return 1
}

# anchors DIR FILE...: "FILE#anchor" for each heading of each FILE (under
# DIR, else the repository), as GitHub makes anchors (lower case,
# punctuation dropped, spaces to hyphens), code blocks aside
anchors() {
	local dir=$1 f
	shift
	for f in "$@"; do
		[ -f "$dir/$f" ] && echo "$f $dir/$f" || echo "$f $ROOT/$f"
	done | while read -r f path; do
		[ -f "$path" ] || continue
		awk -v f="$f" '
			/^```/ { fence = !fence; next }
			!fence && /^#+ / {
				s = $0; sub(/^#+ +/, "", s); s = tolower(s)
				gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s)
				print f "#" s
			}' "$path"
	done
}

# the docs under DIR that are checked, relative to DIR
checked_docs() {
	(cd "$1" && for f in README.md bugs/README.md docs/*.md; do [ -f "$f" ] && echo "$f"; done)
}

# problems DIR: one line per problem in DIR's docs (DIR: the repository,
# or a copy of its docs; paths and links are the repository's either way)
problems() {
	local dir=$1 f n p target
	local -a docs linked

	mapfile -t docs < <(checked_docs "$dir")
	[ ${#docs[@]} -gt 0 ] || return 0
	# repository paths: "FILE LINE PATH", a placeholder's folder for the path
	(cd "$dir" && grep -HnoE "(^|[^A-Za-z0-9_./\$~-])($TOPS)/[A-Za-z0-9_.*+/-]*<?" "${docs[@]}") |
		sed -E 's/^([^:]+):([0-9]+):[^.a-z]?/\1 \2 /; s/[^/<]*<$//; s/[.,]+$//' |
		while read -r f n p; do
			[ -n "$p" ] && ! exists "$p" && echo "$f:$n: names $p, which does not exist"
		done
	# relative links "FILE LINE TARGET [ANCHOR]", the target resolved
	(cd "$dir" && grep -HnoE '\]\([^)[:space:]]+\)' "${docs[@]}") |
		sed -E 's/^([^:]+):([0-9]+):\]\((.*)\)$/\1 \2 \3/' |
		awk '$3 !~ /^(https?|mailto):/ {
			t = $3; a = ""
			if ((i = index(t, "#"))) { a = substr(t, i + 1); t = substr(t, 1, i - 1) }
			if (t == "") t = $1
			else {
				d = $1; if (!sub(/\/[^\/]*$/, "", d)) d = ""
				n = split((d == "" ? "" : d "/") t, s, "/"); m = 0
				for (i = 1; i <= n; i++)
					if (s[i] == "..") m--
					else if (s[i] != "." && s[i] != "") r[++m] = s[i]
				t = ""; for (i = 1; i <= m; i++) t = t (i > 1 ? "/" : "") r[i]
			}
			print $1, $2, t, a
		}' >"$T/links"
	while read -r f n target _; do
		exists "$target" "$dir" "$ROOT" || echo "$f:$n: links to $target, which does not exist"
	done <"$T/links"
	mapfile -t linked < <(awk '$4 != "" && $3 ~ /\.md$/ { print $3 }' "$T/links" | sort -u)
	anchors "$dir" "${linked[@]}" >"$T/anchors"
	awk 'NR == FNR { have[$0] = 1; next }
		$4 != "" && $3 ~ /\.md$/ && !(($3 "#" $4) in have) {
			print $1 ":" $2 ": links to " $3 "#" $4 ", a heading it does not have"
		}' "$T/anchors" "$T/links"
	# commit hashes and dates: dated results belong in docs/results/
	(cd "$dir" && grep -HnoE '(^|[^A-Za-z0-9_])[0-9a-f]{7,40}([^A-Za-z0-9_]|$)' "${docs[@]}") |
		sed -E 's/^([^:]+):([0-9]+):[^0-9a-f]?([0-9a-f]+).*/\1:\2: \3/' |
		grep -E ': [0-9a-f]*[0-9][0-9a-f]*$' | grep -E ': [0-9a-f]*[a-f][0-9a-f]*$' |
		sed 's/$/ looks like a commit hash (name the change, or move the result to docs\/results\/)/'
	# (a link to a dated result may name its date: the anchor of its heading)
	for f in "${docs[@]}"; do
		sed -E 's/\]\([^)]*results\/[^)]*\)/]()/g' "$dir/$f" |
			grep -noE '(^|[^0-9])(19|20)[0-9]{2}-[01][0-9](-[0-3][0-9])?([^0-9]|$)' |
			sed -E "s|^([0-9]+):[^0-9]?([0-9-]+[0-9]).*|$f:\\1: the date \\2 (a dated result belongs in docs/results/)|"
	done
	if [ -f "$dir/README.md" ]; then
		n=$(wc -l <"$dir/README.md")
		[ "$n" -le "$README_MAX" ] || echo "README.md: $n lines, more than $README_MAX"
	fi
}

# ---- the docs as they are
ndocs=$(checked_docs "$ROOT" | wc -l)
[ "$ndocs" -ge 8 ] && ok || bad "found only $ndocs docs to check"
out=$(problems "$ROOT")
if [ -z "$out" ]; then
	ok
	echo "docs.sh: $ndocs docs name only paths that exist, link to headings that exist, carry no hash or date; README.md $(wc -l <README.md) lines"
else
	echo "$out"
	bad "the docs above say what is not so ($(grep -c . <<<"$out") problems)"
fi

# ---- the checks fire: each on a copy of the docs broken one way
copy() {
	rm -rf "$T/c"
	mkdir -p "$T/c/bugs"
	cp README.md "$T/c/"
	cp bugs/README.md "$T/c/bugs/"
	cp -r docs "$T/c/"
}
# fires WHAT PATTERN: the broken copy has a problem matching PATTERN
fires() {
	local got
	got=$(problems "$T/c")
	if grep -qE -- "$2" <<<"$got"; then
		ok
	else
		bad "$1 went unseen: ${got:-no problem found}"
	fi
}
copy
[ -z "$(problems "$T/c")" ] && ok || bad "a plain copy of the docs has problems"
copy
echo 'The pair lives in `fuzz/as/no_such_pair.c`.' >>"$T/c/docs/design.md"
fires "a path that does not exist" 'docs/design.md:[0-9]+: names fuzz/as/no_such_pair.c'
copy
echo 'See src/mm/*.zz and kernel/nowhere/<name>.mk.' >>"$T/c/docs/kernel.md"
fires "a glob that matches nothing" 'names src/mm/\*\.zz'
fires "a placeholder under a folder that does not exist" 'names kernel/nowhere/,'
copy
echo 'Measured at 3e8a61f, before the change.' >>"$T/c/docs/benchmarks.md"
fires "a commit hash" 'docs/benchmarks.md:[0-9]+: 3e8a61f looks like a commit hash'
copy
echo 'On 2026-12-06 it ran for ten minutes.' >>"$T/c/bugs/README.md"
fires "a date" 'bugs/README.md:[0-9]+: the date 2026-12-06'
copy
echo 'Found in 2026-12.' >>"$T/c/docs/fidelity.md"
fires "a month" 'docs/fidelity.md:[0-9]+: the date 2026-12'
copy
echo 'See [the gone page](gone.md) and [a heading](triage.md#no-such-heading).' >>"$T/c/docs/triage.md"
fires "a link to a missing file" 'links to docs/gone.md, which does not exist'
fires "a link to a missing heading" 'links to docs/triage.md#no-such-heading'
copy
n=$((README_MAX + 1 - $(wc -l <README.md)))
printf "%${n}s" "" | tr " " "\n" >>"$T/c/README.md"
fires "a README that is too long" "README.md: $((README_MAX + 1)) lines"
copy
mkdir -p "$T/c/docs/results"
printf '# x\n\n2026-12-06, at 3e8a61f: 5 s (`fuzz/as/gone.c`).\n' >"$T/c/docs/results/x.md"
[ -z "$(problems "$T/c")" ] && ok || bad "docs/results/ is checked, but dated results belong there"
finish
