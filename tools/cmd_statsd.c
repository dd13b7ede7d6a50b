/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz statsd [--port-file F] [--stats FILE] [--map-size N] [--parent PID] OUT
 *
 * AFL++'s rows of coverage over time, from the start. afl-fuzz 4.x writes
 * plot_data only after its first minute (maybe_update_plot_file) and
 * fuzzer_stats once a minute, so a short run has one row, drawn as a dot.
 * With AFL_STATSD=1 it sends its figures every second over UDP instead
 * (statsd's "fuzzing.NAME:VALUE|g" lines; docs of afl-fuzz: rpc_statsd.md).
 * This receives them on a port of 127.0.0.1 (the kernel picks it; written
 * to F, else stdout) and appends one row to OUT per second in which they
 * changed, in plot_data's columns (OUT gets plot_data's header when new):
 * time, cycles, item, corpus, pending, favoured pending, map density
 * (edges over N, AFL_DUMP_MAP_SIZE's size), crashes, hangs, depth, exec/s,
 * executions, edges. The time is afl-fuzz's relative_time when FILE is
 * its fuzzer_stats (now less its start_time, which counts the runs an
 * AFL_AUTORESUME resumes; the file as afl-fuzz wrote it at start, not an
 * older run's), else seconds since this started. ./build.sh fuzz --afl
 * merges OUT into plot_data when afl-fuzz ends; its status lines read it.
 *
 * Ends on SIGTERM, or once PID is gone; ignores SIGINT (a Ctrl-C meant
 * for afl-fuzz: the rows of its last seconds still come).
 */
#include "cmd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char plot_header[] =
    "# relative_time, cycles_done, cur_item, corpus_count, pending_total, pending_favs, "
    "map_size, saved_crashes, saved_hangs, max_depth, execs_per_sec, total_execs, "
    "edges_found\n";

/* The figures a row needs, by their statsd names. */
enum fig {
	F_CYCLE,
	F_ITEM,
	F_CORPUS,
	F_PENDING,
	F_FAVS,
	F_CRASHES,
	F_HANGS,
	F_DEPTH,
	F_RATE,
	F_EXECS,
	F_EDGES,
	F_NR
};

static const char *const fig_names[F_NR] = {
    [F_CYCLE] = "cycle_done",	   [F_ITEM] = "cur_item",     [F_CORPUS] = "corpus_count",
    [F_PENDING] = "pending_total", [F_FAVS] = "pending_favs", [F_CRASHES] = "saved_crashes",
    [F_HANGS] = "saved_hangs",	   [F_DEPTH] = "max_depth",   [F_RATE] = "execs_per_sec",
    [F_EXECS] = "execs_done",	   [F_EDGES] = "edges_found",
};

struct statsd_args {
	const char *port_file, *out, *stats;
	uint64_t map_size;
	long parent;
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* "fuzzing.NAME:VALUE|g" lines (no tags) into @v; which were seen in @seen. */
static void parse_packet(char *buf, double v[F_NR], bool seen[F_NR])
{
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "fuzzing.", 8) || !colon)
			continue;
		*colon = 0;
		for (int f = 0; f < F_NR; f++)
			if (!strcmp(line + 8, fig_names[f])) {
				v[f] = strtod(colon + 1, NULL);
				seen[f] = true;
			}
	}
}

static void put_row(FILE *out, uint64_t t, const double v[F_NR], uint64_t map_size)
{
	double density = map_size ? v[F_EDGES] * 100.0 / (double)map_size : 0;
	double rate = isfinite(v[F_RATE]) ? v[F_RATE] : 0; /* "inf" at the start */

	fprintf(out,
		"%" PRIu64 ", %.0f, %.0f, %.0f, %.0f, %.0f, %0.02f%%, %.0f, %.0f, %.0f, %0.02f, "
		"%.0f, %.0f\n",
		t, v[F_CYCLE], v[F_ITEM], v[F_CORPUS], v[F_PENDING], v[F_FAVS], density,
		v[F_CRASHES], v[F_HANGS], v[F_DEPTH], rate, v[F_EXECS], v[F_EDGES]);
	fflush(out);
}

/* A UDP socket on 127.0.0.1 and a port the kernel picks; -1 on error. */
static int open_socket(unsigned *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("vmafuzz statsd: socket");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* The port, to @path (whole, by a rename) or stdout. */
static bool tell_port(const char *path, unsigned port)
{
	char tmp[4096];
	FILE *f;

	if (!path) {
		printf("%u\n", port);
		return fflush(stdout) == 0;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return false;
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "vmafuzz statsd: cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	return true;
}

/* afl-fuzz's start_time in @path (seconds, less the run time it resumes
 * from), once it has written the file after @since; 0 before. */
static uint64_t afl_start(const char *path, time_t since)
{
	struct stat st;
	char line[256];
	uint64_t t = 0;
	FILE *f;

	if (!path || stat(path, &st) || st.st_mtime < since || !(f = fopen(path, "r")))
		return 0;
	while (!t && fgets(line, sizeof(line), f))
		if (!strncmp(line, "start_time", 10) && strchr(line, ':'))
			t = strtoull(strchr(line, ':') + 1, NULL, 10);
	fclose(f);
	return t;
}

/* Receive until told to stop; a row per second that brings new figures. */
static void receive(int fd, FILE *out, const struct statsd_args *a)
{
	double v[F_NR] = {0}, last_execs = -1;
	bool seen[F_NR] = {false};
	int64_t last_t = -1;
	time_t t0 = time(NULL);
	uint64_t base = 0;
	char buf[8192];

	while (!stop && (a->parent <= 0 || kill((pid_t)a->parent, 0) == 0 || errno != ESRCH)) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;
		int64_t t;
		bool whole = true;

		if (poll(&p, 1, 1000) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = 0;
		parse_packet(buf, v, seen);
		for (int f = 0; f < F_NR; f++)
			whole &= seen[f];
		if (!base)
			base = afl_start(a->stats, t0);
		t = (int64_t)time(NULL) - (base ? (int64_t)base : (int64_t)t0);
		if (whole && t != last_t && v[F_EXECS] != last_execs) {
			put_row(out, (uint64_t)t, v, a->map_size);
			last_t = t;
			last_execs = v[F_EXECS];
		}
	}
}

static bool number(const char *s, uint64_t *n)
{
	char *end;

	errno = 0;
	*n = strtoull(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && !errno;
}

static int parse_args(int argc, char **argv, struct statsd_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		uint64_t n = 0;

		if (!strcmp(o, "--port-file") || !strcmp(o, "--stats") ||
		    !strcmp(o, "--map-size") || !strcmp(o, "--parent")) {
			if (i + 1 >= argc)
				return cmd_usage_error("statsd", "%s needs an argument", o);
			if ((!strcmp(o, "--map-size") || !strcmp(o, "--parent")) &&
			    !number(argv[i + 1], &n))
				return cmd_usage_error("statsd", "%s takes a number", o);
			if (!strcmp(o, "--port-file"))
				a->port_file = argv[i + 1];
			else if (!strcmp(o, "--stats"))
				a->stats = argv[i + 1];
			else if (!strcmp(o, "--map-size"))
				a->map_size = n;
			else
				a->parent = (long)n;
			i++;
		} else if (o[0] == '-' && o[1]) {
			return cmd_usage_error("statsd", "unknown option '%s'", o);
		} else if (a->out) {
			return cmd_usage_error("statsd", "one output file, got also '%s'", o);
		} else {
			a->out = o;
		}
	}
	if (!a->out)
		return cmd_usage_error("statsd", "%s", "needs the file to write rows to");
	return 0;
}

int cmd_statsd(int argc, char **argv)
{
	struct statsd_args a = {NULL, NULL, NULL, 0, 0};
	struct sigaction sa = {.sa_handler = on_term};
	struct stat st;
	unsigned port;
	FILE *out;
	int fd, rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	out = fopen(a.out, "a");
	if (!out) {
		fprintf(stderr, "vmafuzz statsd: cannot open %s: %s\n", a.out, strerror(errno));
		return 2;
	}
	if (fstat(fileno(out), &st) == 0 && st.st_size == 0)
		fputs(plot_header, out);
	fflush(out);
	fd = open_socket(&port);
	if (fd < 0 || !tell_port(a.port_file, port)) {
		fclose(out);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	receive(fd, out, &a);
	close(fd);
	fclose(out);
	return 0;
}
