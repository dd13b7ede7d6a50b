#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Write the OSS-Fuzz project folder of vmafuzz (projects/vmafuzz/ in a
# checkout of google/oss-fuzz) from this folder's files:
#
#   oss-fuzz/new-project.sh --repo URL --contact EMAIL [--homepage URL] DIR
#
# URL is the git repository OSS-Fuzz clones (the Dockerfile's git clone and
# project.yaml's main_repo), EMAIL the primary contact, the homepage by
# default the repository (when it is https). DIR gets Dockerfile, build.sh and project.yaml;
# then, in the oss-fuzz checkout: python3 infra/helper.py build_fuzzers vmafuzz.
# Exit status 2 on a bad command line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() {
	sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'
}
die() {
	echo "new-project.sh: $*" >&2
	exit 2
}

repo="" contact="" homepage="" dir=""
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help)
		usage
		exit 0
		;;
	--repo | --contact | --homepage)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		--repo) repo=$2 ;;
		--contact) contact=$2 ;;
		--homepage) homepage=$2 ;;
		esac
		shift 2
		;;
	-*) die "unknown option '$1' (see --help)" ;;
	*)
		[ -z "$dir" ] || die "one folder only ('$dir', then '$1')"
		dir=$1
		shift
		;;
	esac
done
[ -n "$repo" ] || die "--repo URL is needed: the git repository OSS-Fuzz clones"
[ -n "$contact" ] || die "--contact EMAIL is needed: OSS-Fuzz's primary contact"
[ -n "$dir" ] || die "the folder to write is needed (projects/vmafuzz in an oss-fuzz checkout)"
# no character that would break the files or sed's replacement
for v in "$repo" "$contact" "$homepage"; do
	case $v in
	*[[:space:]\"\'\|\&\\]*) die "'$v' holds a space, quote, |, & or backslash" ;;
	esac
done
[[ $repo =~ ^(https|git|ssh)://[^@]+$ || $repo =~ ^git@[^:]+:.+$ ]] ||
	die "--repo '$repo' is not a git URL (https://..., git://..., ssh://... or git@host:path)"
[[ $contact =~ ^[^@]+@[^@]+\.[^@]+$ ]] || die "--contact '$contact' is not an email address"
if [ -z "$homepage" ]; then
	[[ $repo =~ ^https:// ]] || die "--homepage URL is needed (the repository's URL is not https)"
	homepage=$repo
fi
[[ $homepage =~ ^https?:// ]] || die "--homepage '$homepage' is not an http(s) URL"

mkdir -p "$dir"
# fill FILE: this folder's FILE into DIR with the values in place
fill() {
	sed -e "s|@MAIN_REPO@|$repo|g" -e "s|@PRIMARY_CONTACT@|$contact|g" \
		-e "s|@HOMEPAGE@|$homepage|g" "$here/$1" >"$dir/$1"
}
fill Dockerfile
fill project.yaml
cp "$here/build.sh" "$dir/build.sh"
chmod +x "$dir/build.sh"
if grep -n '@[A-Z_]*@' "$dir/Dockerfile" "$dir/project.yaml"; then
	echo "new-project.sh: a value was left out (above)" >&2
	exit 1
fi
# every COPY of the Dockerfile names a file of the folder, its context
while read -r _ src _; do
	[ -e "$dir/$src" ] || { echo "new-project.sh: the Dockerfile copies $src, which $dir lacks" >&2; exit 1; }
done < <(grep -E '^COPY ' "$dir/Dockerfile")
echo "wrote $dir/Dockerfile, build.sh and project.yaml for $repo"
