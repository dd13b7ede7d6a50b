# SPDX-License-Identifier: GPL-2.0
#
# The branch conditions of chosen functions of one source file, each with
# how often it was seen true and false (scripts/kernel-coverage.sh):
#
#   llvm-cov export -format=text ... SRC | grep -o '{"branches":[^{]*"name":"[^"]*"' |
#       awk -v src=SRC -v file=mm/vma.c -v funcs=REGEX -f scripts/kernel-branches.awk
#
# SRC: the source file on disk; file: how its name ends (the coverage
# mapping may spell the tree's path otherwise); funcs: the functions.
#
# Input: one function record of llvm-cov's JSON export a line, cut where
# its keys (sorted by name) reach "name": branches, count, filenames, name.
# A branch is [line, col, end line, end col (one past), true count, false
# count, file id, expanded file id, kind]. Only branches written in the
# file itself are kept (file id 0 of a function of that file): those inside
# a macro's expansion (VM_WARN_ON and the like) are the macro's
# assertions, not the function's decisions.
#
# Output, one condition a line, tab-separated, in the file's order:
#
#   function  line:col  true  false  verdict  condition
#
# verdict: both, true-only, false-only or never (not evaluated); the
# condition is the source text of the branch region, comments dropped and
# white space made single spaces.
BEGIN {
	n = 0
	while ((getline l <src) > 0)
		text[++n] = l
	close(src)
}

# the source text of [l1:c1, l2:c2)
function region(l1, c1, l2, c2,   s, i) {
	if (l1 == l2)
		return substr(text[l1], c1, c2 - c1)
	s = substr(text[l1], c1)
	for (i = l1 + 1; i < l2; i++)
		s = s " " text[i]
	return s " " substr(text[l2], 1, c2 - 1)
}

function tidy(s) {
	gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", s)
	gsub(/[ \t]+/, " ", s)
	sub(/^ /, "", s)
	sub(/ $/, "", s)
	return s
}

{
	name = $0
	sub(/.*"name":"/, "", name)
	sub(/"$/, "", name)
	sub(/^.*:/, "", name)	# a static function is "file.c:name"
	if (name !~ funcs)
		next
	fname = $0
	sub(/.*"filenames":\["/, "", fname)
	sub(/".*/, "", fname)
	if (fname != file && substr(fname, length(fname) - length(file)) != "/" file)
		next
	b = $0
	sub(/^\{"branches":\[\[?/, "", b)
	sub(/\]?\],"count".*/, "", b)
	nb = split(b, parts, /\],\[/)
	for (i = 1; i <= nb; i++) {
		if (parts[i] == "")
			continue
		split(parts[i], f, ",")
		if (f[7] != 0)
			continue
		key = f[1] * 10000 + f[2]
		if (key in seen)
			continue
		seen[key] = 1
		t = f[5] + 0
		e = f[6] + 0
		v = t && e ? "both" : t ? "true-only" : e ? "false-only" : "never"
		out[key] = name "\t" f[1] ":" f[2] "\t" t "\t" e "\t" v "\t" tidy(region(f[1], f[2], f[3], f[4]))
		keys[++nk] = key
	}
}

END {
	# in the file's order
	for (i = 2; i <= nk; i++)
		for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) {
			k = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = k
		}
	for (i = 1; i <= nk; i++)
		print out[keys[i]]
}
