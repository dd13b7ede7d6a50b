# SPDX-License-Identifier: GPL-2.0
#
# The merge decision's conditions as a corpus saw them, against the table
# that says how they were seen (scripts/kernel-coverage.sh --check-merge):
#
#   awk -f scripts/kernel-branches-check.awk TABLE CONDITIONS
#
# TABLE: a markdown file whose rows of the form
#
#   | `function` | line:col | `condition` | yes/no | yes/no | how, or why not |
#
# say, per condition, whether it was seen true and false (docs/kernel.md;
# a | inside a cell is written \|). CONDITIONS: scripts/kernel-branches.awk's
# lines (function, line:col, true, false, verdict, condition).
#
# Fails (exit 1) when a side the table says was seen was not (the corpus
# lost it), when a condition has no row, or when a row names a condition
# the tree does not have there (another tree, or a stale table). A side
# seen that the table says was not is a note: the table should say so.
BEGIN { FS = "\t" }

function trim(s) {
	sub(/^[ `]+/, "", s)
	sub(/[ `]+$/, "", s)
	return s
}

FNR == NR {
	if ($0 !~ /^\| `[A-Za-z_0-9]+` \| [0-9]+:[0-9]+ \|/)
		next
	line = $0
	gsub(/\\\|/, "\001", line)
	nc = split(line, c, "|")
	if (nc < 7) {
		printf "merge-check: %s:%d: a row of fewer than six cells\n", FILENAME, FNR
		bad++
		next
	}
	key = trim(c[2]) " " trim(c[3])
	cond = trim(c[4])
	gsub(/\001/, "|", cond)
	t = trim(c[5]); f = trim(c[6])
	if (t !~ /^(yes|no)$/ || f !~ /^(yes|no)$/) {
		printf "merge-check: %s:%d: %s: true and false must be yes or no\n", FILENAME, FNR, key
		bad++
		next
	}
	want_t[key] = t; want_f[key] = f; want_c[key] = cond
	order[++nrows] = key
	next
}

{
	key = $1 " " $2
	seen[key] = 1
	if (!(key in want_c)) {
		printf "merge-check: %s %s `%s` (true %d, false %d) has no row in the table\n", $1, $2, $6, $3, $4
		bad++
		next
	}
	if (want_c[key] != $6) {
		printf "merge-check: %s %s is `%s` in the tree, `%s` in the table\n", $1, $2, $6, want_c[key]
		bad++
		next
	}
	if (want_t[key] == "yes" && $3 == 0) {
		printf "merge-check: %s %s `%s` is no longer seen true (the table: %s)\n", $1, $2, $6,
			want_f[key] == "yes" ? "seen both ways" : "seen true"
		bad++
	}
	if (want_f[key] == "yes" && $4 == 0) {
		printf "merge-check: %s %s `%s` is no longer seen false (the table: %s)\n", $1, $2, $6,
			want_t[key] == "yes" ? "seen both ways" : "seen false"
		bad++
	}
	if (want_t[key] == "no" && $3 > 0)
		printf "merge-check: note: %s %s `%s` is seen true now (%d): say so in the table\n", $1, $2, $6, $3
	if (want_f[key] == "no" && $4 > 0)
		printf "merge-check: note: %s %s `%s` is seen false now (%d): say so in the table\n", $1, $2, $6, $4
	if ($3 > 0 && $4 > 0)
		both++
}

END {
	for (i = 1; i <= nrows; i++)
		if (!(order[i] in seen)) {
			printf "merge-check: the table's %s `%s` is not a condition of the tree\n", order[i],
				want_c[order[i]]
			bad++
		}
	if (!nrows) {
		print "merge-check: the table has no row"
		bad++
	}
	if (bad) {
		printf "merge-check: %d difference(s) from the table\n", bad
		exit 1
	}
	printf "merge-check: %d conditions as the table says, %d seen both ways\n", nrows, both
}
