/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz plot: coverage and corpus size of fuzzing runs, or a benchmark's
 * figures, drawn as PNG by gnuplot.
 *
 * Inputs, recognised by their content:
 *   - a libFuzzer log (./build.sh fuzz writes out/work/<target>/fuzz.log):
 *     lines "#N <event> cov: C ft: F corp: K/Sb ... exec/s: E ...". These
 *     carry no clock. The x axis is N, the executions so far (exact); with
 *     --time it is the elapsed time estimated as N / E, which is how
 *     libFuzzer computes E (executions over whole seconds since start), so
 *     the estimate is off by less than a second; lines from the first
 *     second (E = 0) sit at 0. Fork-mode logs (-fork=N: "#N: cov: C ft: F
 *     corp: K exec/s: E ... time: Ts") carry the time and use it.
 *   - an AFL++ plot_data file (<out>/<instance>/plot_data; header
 *     "# relative_time, ..., corpus_count, ..., total_execs, edges_found"):
 *     x is relative_time in seconds, coverage is edges_found, corpus is
 *     corpus_count (older names: unix_time, paths_total).
 *   - with --bench, a benchmark CSV (vmafuzz bench NAME --csv): the first
 *     column on a log x axis, every column with "ns" in its name on the
 *     left axis, every "*_over_*" or "ratio" column on the right axis.
 *
 * Several logs go into one picture, one line each, to compare runs.
 */
#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct point {
	double execs, time, cov, ft, corp;
};

struct series {
	const char *path;
	bool afl;	/* AFL++ plot_data */
	bool has_time;	/* time measured (AFL++, fork mode) */
	bool has_execs; /* execution counts */
	bool has_ft;
	struct point *pt;
	size_t n, cap;
};

static void add_point(struct series *s, const struct point *p)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->pt = realloc(s->pt, s->cap * sizeof(*s->pt));
		if (!s->pt) {
			perror("vmafuzz plot");
			exit(1);
		}
	}
	s->pt[s->n++] = *p;
}

/* The number after "key" in @line, or NAN. */
static double field_after(const char *line, const char *key)
{
	const char *s = strstr(line, key);
	char *end;
	double v;

	if (!s)
		return NAN;
	v = strtod(s + strlen(key), &end);
	return end == s + strlen(key) ? NAN : v;
}

static void parse_libfuzzer_line(struct series *s, const char *line)
{
	struct point p;
	char *end;

	if (line[0] != '#' || !strstr(line, "cov: "))
		return;
	p.execs = strtod(line + 1, &end);
	if (end == line + 1)
		return;
	p.cov = field_after(line, "cov: ");
	p.ft = field_after(line, "ft: ");
	p.corp = field_after(line, "corp: ");
	if (*end == ':') { /* fork mode: "#N: cov: ... time: Ts" */
		p.time = field_after(line, " time: ");
		if (isnan(p.time))
			p.time = 0;
		s->has_time = true;
	} else {
		double e = field_after(line, "exec/s: ");

		p.time = e > 0 ? p.execs / e : 0;
	}
	if (!isnan(p.ft))
		s->has_ft = true;
	add_point(s, &p);
}

/* Split a plot_data line at ", " into at most @max fields (in place). */
static unsigned split_commas(char *line, char **f, unsigned max)
{
	unsigned n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(line, ",\n", &save); tok && n < max;
	     tok = strtok_r(NULL, ",\n", &save)) {
		while (*tok == ' ' || *tok == '#')
			tok++;
		f[n++] = tok;
	}
	return n;
}

static int column(char **names, unsigned n, const char *a, const char *b)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], a) || (b && !strcmp(names[i], b)))
			return (int)i;
	return -1;
}

static int read_series(const char *path, struct series *s)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *hdr[32], *v[32], hcopy[1024];
	size_t cap = 0;
	int ct = -1, ccorp = -1, ccov = -1, cexec = -1;
	unsigned nh = 0;
	bool unix_time = false;
	double t0 = 0;

	memset(s, 0, sizeof(*s));
	s->path = path;
	if (!f) {
		fprintf(stderr, "vmafuzz plot: cannot open %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (getline(&line, &cap, f) > 0 && line[0] == '#' &&
	    (strstr(line, "relative_time") || strstr(line, "unix_time"))) {
		s->afl = s->has_time = true;
		snprintf(hcopy, sizeof(hcopy), "%s", line);
		nh = split_commas(hcopy, hdr, 32);
		ct = column(hdr, nh, "relative_time", "unix_time");
		unix_time = ct >= 0 && !strcmp(hdr[ct], "unix_time");
		ccorp = column(hdr, nh, "corpus_count", "paths_total");
		ccov = column(hdr, nh, "edges_found", NULL);
		cexec = column(hdr, nh, "total_execs", NULL);
		s->has_execs = cexec >= 0;
		if (ct < 0 || ccorp < 0) {
			fprintf(stderr, "vmafuzz plot: %s: AFL++ plot_data without %s\n", path,
				ct < 0 ? "relative_time" : "corpus_count");
			free(line);
			fclose(f);
			return 2;
		}
		while (getline(&line, &cap, f) > 0) {
			unsigned n = split_commas(line, v, 32);
			struct point p;

			if (n < nh || line[0] == '#')
				continue;
			p.time = strtod(v[ct], NULL);
			if (unix_time) {
				if (!s->n)
					t0 = p.time;
				p.time -= t0;
			}
			p.corp = strtod(v[ccorp], NULL);
			p.cov = ccov >= 0 ? strtod(v[ccov], NULL) : NAN;
			p.execs = cexec >= 0 ? strtod(v[cexec], NULL) : NAN;
			p.ft = NAN;
			add_point(s, &p);
		}
	} else {
		s->has_execs = true;
		do
			parse_libfuzzer_line(s, line);
		while (getline(&line, &cap, f) > 0);
	}
	free(line);
	fclose(f);
	if (!s->n) {
		fprintf(stderr,
			"vmafuzz plot: %s: no progress lines (libFuzzer '#N ... cov: ...') and no "
			"AFL++ plot_data rows\n",
			path);
		return 2;
	}
	return 0;
}

/* A string as a gnuplot single-quoted string. */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', out);
		fputc(*s, out);
	}
	fputc('\'', out);
}

static void put_num(FILE *out, double v)
{
	if (isnan(v))
		fputs(" NaN", out);
	else
		fprintf(out, " %.6g", v);
}

static void script_head(FILE *out, const char *png, int w, int h)
{
	fprintf(out,
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"  set terminal pngcairo noenhanced size %d,%d font ',10'\n"
		"} else {\n"
		"  set terminal png noenhanced size %d,%d\n"
		"}\n"
		"set output ",
		w, h, w, h);
	put_quoted(out, png);
	fputs("\nset grid\nset datafile missing 'NaN'\n", out);
}

/* Lines, with points when there are few (a single point draws no line). */
static const char *style(const struct series *s)
{
	return s->n < 50 ? "linespoints pt 7 ps 1" : "lines";
}

static void write_fuzz_script(FILE *out, struct series *s, unsigned n, bool by_time,
			      const char *title, const char *png)
{
	const char *xlabel = by_time ? "seconds" : "executions";
	bool any_ft = false;

	script_head(out, png, 1000, 800);
	fputs("set key right bottom\n", out); /* curves rise to the top left */
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "$d%u << EOD\n", i);
		for (size_t k = 0; k < s[i].n; k++) {
			const struct point *p = &s[i].pt[k];

			put_num(out, by_time ? p->time : p->execs);
			put_num(out, p->cov);
			put_num(out, p->ft);
			put_num(out, p->corp);
			fputc('\n', out);
		}
		fputs("EOD\n", out);
		any_ft |= s[i].has_ft;
	}
	fputs("set multiplot layout 2,1 title ", out);
	put_quoted(out, title);
	fputs("\nset xlabel ", out);
	put_quoted(out, xlabel);
	fputs("\nset ylabel 'edges (cov: / edges_found)'\n", out);
	if (any_ft)
		fputs("set y2label 'features (ft:, dashed)'\nset y2tics\nset ytics nomirror\n",
		      out);
	fputs("set title 'coverage'\nplot ", out);
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "%s$d%u using 1:2 with %s lw 2 lc %u title ", i ? ", " : "", i,
			style(&s[i]), i + 1);
		put_quoted(out, s[i].path);
		if (s[i].has_ft)
			fprintf(out, ", $d%u using 1:3 axes x1y2 with lines dt 2 lc %u notitle", i,
				i + 1);
	}
	fputs("\nunset y2label\nunset y2tics\nset ytics mirror\n"
	      "set title 'corpus size'\nset ylabel 'inputs'\nplot ",
	      out);
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "%s$d%u using 1:4 with %s lw 2 lc %u title ", i ? ", " : "", i,
			style(&s[i]), i + 1);
		put_quoted(out, s[i].path);
	}
	fputs("\nunset multiplot\n", out);
}

/* ---- benchmark CSV ------------------------------------------------------ */

static int write_bench_script(FILE *out, const char *csv, const char *title, const char *png)
{
	FILE *f = fopen(csv, "r");
	char *line = NULL, *names[32], hdr[1024];
	size_t cap = 0;
	unsigned nn = 0, rows = 0;
	bool left[32] = {false}, right[32] = {false}, any_left = false, any_right = false;

	if (!f) {
		fprintf(stderr, "vmafuzz plot: cannot open %s: %s\n", csv, strerror(errno));
		return 2;
	}
	if (getline(&line, &cap, f) <= 0) {
		fprintf(stderr, "vmafuzz plot: %s is empty\n", csv);
		fclose(f);
		return 2;
	}
	snprintf(hdr, sizeof(hdr), "%s", line);
	nn = split_commas(hdr, names, 32);
	for (unsigned i = 1; i < nn; i++) {
		if (strstr(names[i], "_over_") || strstr(names[i], "ratio"))
			any_right = right[i] = true;
		else if (strstr(names[i], "ns"))
			any_left = left[i] = true;
	}
	if (nn < 2 || (!any_left && !any_right)) {
		fprintf(stderr,
			"vmafuzz plot: %s: no columns to plot (want a header with columns named "
			"*ns* or *_over_*, as 'vmafuzz bench NAME --csv' prints)\n",
			csv);
		free(line);
		fclose(f);
		return 2;
	}
	script_head(out, png, 1000, 600);
	fputs("set key left top\n", out);
	fputs("$d << EOD\n", out);
	while (getline(&line, &cap, f) > 0) {
		char *v[32];
		unsigned n = split_commas(line, v, 32);

		if (n < nn)
			continue;
		for (unsigned i = 0; i < nn; i++)
			put_num(out, strtod(v[i], NULL));
		fputc('\n', out);
		rows++;
	}
	fputs("EOD\n", out);
	free(line);
	fclose(f);
	if (!rows) {
		fprintf(stderr, "vmafuzz plot: %s: no data rows\n", csv);
		return 2;
	}
	fputs("set title ", out);
	put_quoted(out, title);
	fputs("\nset logscale x\nset xlabel ", out);
	put_quoted(out, names[0]);
	fputs("\nset ylabel 'ns'\n", out);
	if (any_right)
		fputs("set y2label 'ratio'\nset y2tics\nset ytics nomirror\n", out);
	fputs("plot ", out);
	for (unsigned i = 1, k = 0; i < nn; i++) {
		if (!left[i] && !right[i])
			continue;
		fprintf(out, "%s$d using 1:%u%s with linespoints lw 2 title ", k++ ? ", " : "",
			i + 1, right[i] ? " axes x1y2" : "");
		put_quoted(out, names[i]);
	}
	fputc('\n', out);
	return 0;
}

/* ---- running gnuplot ---------------------------------------------------- */

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n &&
		    snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

/* Feed @script (size @len) to gnuplot; 0 when it drew @png. */
static int run_gnuplot(const char *script, size_t len, const char *png)
{
	FILE *g;
	int st;

	if (!in_path("gnuplot")) {
		fprintf(stderr, "vmafuzz plot: gnuplot not found (Debian: apt-get install "
				"gnuplot-nox); --script prints the script instead\n");
		return 1;
	}
	unlink(png);
	g = popen("gnuplot", "w");
	if (!g) {
		perror("vmafuzz plot: gnuplot");
		return 1;
	}
	fwrite(script, 1, len, g);
	st = pclose(g);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || access(png, R_OK)) {
		fprintf(stderr, "vmafuzz plot: gnuplot failed to draw %s\n", png);
		return 1;
	}
	printf("vmafuzz plot: wrote %s\n", png);
	return 0;
}

/* "dir/fuzz.log" -> "dir/fuzz.png"; "plot_data" -> "plot_data.png". */
static char *default_png(const char *in)
{
	const char *slash = strrchr(in, '/'), *dot = strrchr(in, '.');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - in) : strlen(in);
	char *s = malloc(n + 5);

	if (!s)
		exit(1);
	memcpy(s, in, n);
	strcpy(s + n, ".png");
	return s;
}

struct plot_args {
	const char *png, *title, *bench;
	const char *inputs[16];
	unsigned ninputs;
	bool by_time, by_execs, script_only;
};

/* 0, or the exit status after a usage error. */
static int parse_args(int argc, char **argv, struct plot_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-o") || !strcmp(o, "--title") || !strcmp(o, "--bench")) {
			if (i + 1 >= argc)
				return cmd_usage_error("plot", "%s needs an argument", o);
			if (!strcmp(o, "-o"))
				a->png = argv[++i];
			else if (!strcmp(o, "--title"))
				a->title = argv[++i];
			else
				a->bench = argv[++i];
		} else if (!strcmp(o, "--time")) {
			a->by_time = true;
		} else if (!strcmp(o, "--execs")) {
			a->by_execs = true;
		} else if (!strcmp(o, "--script")) {
			a->script_only = true;
		} else if (o[0] == '-' && o[1]) {
			return cmd_usage_error("plot", "unknown option '%s'", o);
		} else if (a->ninputs == sizeof(a->inputs) / sizeof(a->inputs[0])) {
			return cmd_usage_error("plot", "at most 16 inputs, got also '%s'", o);
		} else {
			a->inputs[a->ninputs++] = o;
		}
	}
	if (a->by_time && a->by_execs)
		return cmd_usage_error("plot", "%s", "--time and --execs exclude each other");
	if (a->bench && a->ninputs)
		return cmd_usage_error("plot", "--bench takes one CSV file, got also '%s'",
				       a->inputs[0]);
	if (!a->bench && !a->ninputs)
		return cmd_usage_error(
		    "plot", "%s", "needs a libFuzzer log or AFL++ plot_data file (or --bench CSV)");
	return 0;
}

/* The script for the fuzzing runs of @a into @out; 0 or the exit status. */
static int fuzz_script(FILE *out, const struct plot_args *a, const char *png)
{
	struct series s[16];
	bool all_time = true, all_execs = true;
	int rc = 0;

	memset(s, 0, sizeof(s));
	for (unsigned i = 0; i < a->ninputs && !rc; i++) {
		rc = read_series(a->inputs[i], &s[i]);
		if (!rc) {
			all_time &= s[i].has_time;
			all_execs &= s[i].has_execs;
		}
	}
	if (!rc && a->by_execs && !all_execs) {
		fprintf(stderr, "vmafuzz plot: --execs: an input has no execution counts\n");
		rc = 2;
	}
	if (!rc) {
		/* time when every input measures it, else executions */
		bool t = a->by_time || (!a->by_execs && (all_time || !all_execs));

		write_fuzz_script(
		    out, s, a->ninputs, t,
		    a->title ? a->title : (a->ninputs == 1 ? a->inputs[0] : "fuzzing runs"), png);
	}
	for (unsigned i = 0; i < a->ninputs; i++)
		free(s[i].pt);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a;
	char *buf = NULL, *png_alloc = NULL;
	const char *png;
	size_t len = 0;
	FILE *out;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	png = a.png ? a.png : (png_alloc = default_png(a.bench ? a.bench : a.inputs[0]));
	out = open_memstream(&buf, &len);
	if (!out) {
		perror("vmafuzz plot");
		free(png_alloc);
		return 1;
	}
	if (a.bench)
		rc = write_bench_script(out, a.bench, a.title ? a.title : a.bench, png);
	else
		rc = fuzz_script(out, &a, png);
	fclose(out);
	if (!rc) {
		if (a.script_only)
			fwrite(buf, 1, len, stdout);
		else
			rc = run_gnuplot(buf, len, png);
	}
	free(buf);
	free(png_alloc);
	return rc;
}
