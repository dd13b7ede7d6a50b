# SPDX-License-Identifier: GPL-2.0
# Every mutant of the C files given, one per line, tab-separated:
#
#   FILE  LINE  OPERATOR  COLUMN  ORIGINAL  REPLACEMENT
#
# where the mutant replaces ORIGINAL, at COLUMN (from 1) of LINE, by
# REPLACEMENT (scripts/mutants.sh applies it); "delete" removes the line's
# statement. Operators:
#
#   rel      a relational operator by its neighbour: < <=, > >=, == !=
#   logic    && by || and back
#   obo      an off-by-one: "+ 1" and "- 1" lose their 1 ("+ 0", "- 0")
#   delete   a statement that is a call alone on its line, removed
#   branch   an if's condition made false: "if (" -> "if (0 && "
#
# Lines in comments, preprocessor lines, #include's <...>, shifts (<< >>),
# arrows (->) and the operators inside string and character literals are
# left alone. A statement is a call when the line is IDENT(...); with the
# parentheses balanced, not return/goto/a declaration/a macro in capitals
# (MODEL_ASSERT and the checks stay: a check removed is its own question).

function blank_strings(s,    out, i, c, q) {
	out = ""
	q = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (q != "") {
			if (c == "\\") {
				out = out "__"
				i++
				continue
			}
			if (c == q)
				q = ""
			out = out "_"
			continue
		}
		if (c == "\"" || c == "'") {
			q = c
			out = out "_"
			continue
		}
		out = out c
	}
	return out
}

# @s with every match of @re replaced by as many '@' (lengths kept, so
# that columns still name the original line's characters).
function hide(s, re,    out) {
	out = ""
	while (match(s, re)) {
		out = out substr(s, 1, RSTART - 1) sprintf("%*s", RLENGTH, "")
		gsub(/ /, "@", out)
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}

# Emit a mutant for each match of regex @re in @code (the blanked line,
# column for column the original); @orig is the text at the match's start
# that @repl replaces.
function each(code, re, orig, repl, op,    rest, base, col) {
	base = 0
	rest = code
	while (match(rest, re)) {
		col = base + RSTART + index(substr(rest, RSTART, RLENGTH), orig) - 1
		print FILENAME "\t" FNR "\t" op "\t" col "\t" orig "\t" repl
		base += RSTART + RLENGTH - 1
		rest = substr(rest, RSTART + RLENGTH)
	}
}

FNR == 1 {
	in_comment = 0
}

{
	line = $0
	code = ""
	# strip comments (block comments may span lines)
	rest = line
	while (rest != "") {
		if (in_comment) {
			k = index(rest, "*/")
			if (!k) {
				rest = ""
				break
			}
			rest = substr(rest, k + 2)
			in_comment = 0
			continue
		}
		k = index(rest, "/*")
		j = index(rest, "//")
		if (j && (!k || j < k)) {
			code = code substr(rest, 1, j - 1)
			rest = ""
			break
		}
		if (!k) {
			code = code rest
			rest = ""
			break
		}
		code = code substr(rest, 1, k - 1)
		rest = substr(rest, k + 2)
		in_comment = 1
	}
	if (code ~ /^[ \t]*#/ || code ~ /^[ \t]*$/)
		next
	code = blank_strings(code)
	c2 = hide(code, "<<=?|>>=?|->")
	each(c2, "<=", "<=", "<", "rel")
	each(c2, ">=", ">=", ">", "rel")
	tmp = hide(c2, "<=|>=")
	each(tmp, "<", "<", "<=", "rel")
	each(tmp, ">", ">", ">=", "rel")
	each(c2, "==", "==", "!=", "rel")
	each(c2, "!=", "!=", "==", "rel")
	each(code, "&&", "&&", "||", "logic")
	each(code, "\\|\\|", "||", "&&", "logic")
	each(code, "\\+ 1([^0-9xXuUlL.]|$)", "+ 1", "+ 0", "obo")
	each(code, "- 1([^0-9xXuUlL.]|$)", "- 1", "- 0", "obo")
	each(code, "(^|[^a-z_0-9])if \\(", "if (", "if (0 && ", "branch")
	if (code ~ /^[ \t]+[a-z_][a-z_0-9]*\(.*\);[ \t]*$/ && code !~ /^[ \t]+(return|goto|sizeof|if|while|for|switch)[ (]/) {
		t = code
		opens = gsub(/\(/, "(", t)
		closes = gsub(/\)/, ")", t)
		if (opens == closes)
			print FILENAME "\t" FNR "\t" "delete" "\t" 1 "\t" "-" "\t" "-"
	}
}
