#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The OSS-Fuzz and ClusterFuzzLite project files work where the docs say
# they go: oss-fuzz/new-project.sh writes projects/vmafuzz/ of a fake
# google/oss-fuzz checkout with every value filled in and every COPY of the
# Dockerfile naming a file of that folder (its build context), refuses a
# missing or malformed value with exit status 2; oss-fuzz/ copied as it is
# has its COPY sources too; .clusterfuzzlite/'s COPY sources exist from the
# repository's root (its context); the batch workflow uploads vmafuzz's
# SARIF triage. Run by ./build.sh test with ROOT set.
set -u
cd "$ROOT"
. tests/shlib
P=$T/oss-fuzz/projects/vmafuzz
NP=oss-fuzz/new-project.sh
URL=https://git.example.org/vmafuzz.git

# copy_sources DOCKERFILE CONTEXT: each COPY source exists in CONTEXT
copy_sources() {
	local src n=0
	while read -r _ src _; do
		n=$((n + 1))
		[ -e "$2/$src" ] && ok || bad "$1 copies $src, which its context $2 lacks"
	done < <(grep -E '^COPY ' "$1")
	[ "$n" -gt 0 ] || bad "$1 has no COPY line"
}

expect 0 "wrote $P/Dockerfile" "$NP" --repo "$URL" --contact fuzz@example.org "$P"
for f in Dockerfile build.sh project.yaml; do
	[ -s "$P/$f" ] && ok || bad "new-project.sh did not write $f"
done
copy_sources "$P/Dockerfile" "$P"
grep -n '@[A-Z_]*@' "$P/Dockerfile" "$P/project.yaml" && bad "a placeholder is left" || ok
grep -q "^RUN git clone --depth 1 $URL \$SRC/vmafuzz$" "$P/Dockerfile" && ok ||
	bad "the Dockerfile does not clone $URL into \$SRC/vmafuzz"
grep -qx "main_repo: \"$URL\"" "$P/project.yaml" && ok || bad "project.yaml's main_repo is not $URL"
grep -qx 'primary_contact: "fuzz@example.org"' "$P/project.yaml" && ok || bad "project.yaml's contact"
grep -qx "homepage: \"$URL\"" "$P/project.yaml" && ok || bad "project.yaml's homepage"
[ -x "$P/build.sh" ] && bash -n "$P/build.sh" && ok || bad "build.sh is not an executable script"
python3 - "$P/project.yaml" <<'PY' && ok || bad "project.yaml lacks OSS-Fuzz's keys"
import re, sys
keys = {m.group(1) for m in re.finditer(r'^([a-z_]+):', open(sys.argv[1]).read(), re.M)}
need = {"homepage", "main_repo", "language", "primary_contact", "sanitizers", "fuzzing_engines"}
sys.exit(0 if need <= keys else 1)
PY

# bad command lines
expect 2 '--repo URL is needed' "$NP" --contact a@example.org "$T/x"
expect 2 '--contact EMAIL is needed' "$NP" --repo "$URL" "$T/x"
expect 2 'the folder to write is needed' "$NP" --repo "$URL" --contact a@example.org
expect 2 "--repo 'vmafuzz' is not a git URL" "$NP" --repo vmafuzz --contact a@example.org "$T/x"
expect 2 "--contact 'nobody' is not an email" "$NP" --repo "$URL" --contact nobody "$T/x"
expect 2 'holds a space, quote' "$NP" --repo 'https://a.org/x|y' --contact a@example.org "$T/x"
expect 2 '--homepage URL is needed' "$NP" --repo git@example.org:vmafuzz.git --contact a@example.org "$T/x"
expect 2 "unknown option '--frob'" "$NP" --frob
expect 0 'projects/vmafuzz' "$NP" --help
[ -e "$T/x" ] && bad "a refused command line wrote $T/x" || ok

# oss-fuzz/ copied as it is: its COPY sources are there too
mkdir -p "$T/plain/projects"
cp -r oss-fuzz "$T/plain/projects/vmafuzz"
copy_sources "$T/plain/projects/vmafuzz/Dockerfile" "$T/plain/projects/vmafuzz"
# ClusterFuzzLite builds from the repository's root
copy_sources .clusterfuzzlite/Dockerfile .

# the batch workflow triages what it found and uploads the SARIF, one
# category per sanitizer
W=.github/workflows/cflite_batch.yml
tri=$(grep -n 'vmafuzz triage --sarif --category "vmafuzz-triage-${{ matrix.sanitizer }}"' "$W" | cut -d: -f1)
up=$(grep -n 'uses: github/codeql-action/upload-sarif' "$W" | cut -d: -f1)
[ -n "$tri" ] && [ -n "$up" ] && [ "$tri" -lt "$up" ] && grep -q 'sarif_file: vmafuzz-triage.sarif' "$W" && ok ||
	bad "$W does not triage with vmafuzz and upload the SARIF after"
finish
