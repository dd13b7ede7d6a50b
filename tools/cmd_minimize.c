/*
 * vmafuzz minimize: shrink a crash at the level of the program (decoded
 * with prog_decode, re-encoded with prog_encode) while its bucket, computed
 * as triage does by running the replay driver on a temporary file, stays
 * the same. Passes, repeated to a fixed point or a cap on driver runs:
 *
 *   ops      drop chunks of operations: halves, quarters, ..., single ones
 *   sched    drop the schedule, chunks of it, then bytes towards 0
 *   fibers   drop a thread's operations, or move them to thread 0
 *   args     fail_at and fibers towards 0, range lengths towards 1, other
 *            argument bytes towards 0, flag and config bits off
 *
 * Every candidate is encoded and hashed; a candidate seen before is not run
 * again. Progress goes to stderr, the program (text) to stdout.
 */
#include "cmd.h"
#include "crash.h"
#include "replay.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MAX_RUNS 2000

struct minimizer {
	const struct fuzz_target *t;
	const char *driver;
	unsigned timeout;
	char bucket[512];
	struct prog best;
	unsigned runs, max_runs;
	bool capped, error;
	uint64_t *seen;
	size_t nseen, capseen;
	char tmp[PATH_MAX];
	uint8_t buf[PROG_HEADER + PROG_MAX_OPS * PROG_RECORD + PROG_MAX_SCHED];
};

static bool stopped(const struct minimizer *m)
{
	return m->capped || m->error;
}

static bool seen(struct minimizer *m, uint64_t h)
{
	for (size_t i = 0; i < m->nseen; i++)
		if (m->seen[i] == h)
			return true;
	if (m->nseen == m->capseen) {
		m->capseen = m->capseen ? 2 * m->capseen : 256;
		m->seen = realloc(m->seen, m->capseen * sizeof(*m->seen));
		if (!m->seen)
			abort();
	}
	m->seen[m->nseen++] = h;
	return false;
}

/* Run @c; when it lands in the bucket, it becomes the best. */
static bool try(struct minimizer *m, const struct prog *c)
{
	struct crash_result r;
	size_t size;

	if (stopped(m))
		return false;
	size = prog_encode(c, m->buf);
	if (seen(m, crash_hash64(m->buf, size)))
		return false;
	if (m->runs >= m->max_runs) {
		m->capped = true;
		return false;
	}
	m->runs++;
	if (!crash_write_file(m->tmp, m->buf, size) ||
	    !crash_run(m->driver, m->tmp, m->timeout, &r, NULL)) {
		m->error = true;
		return false;
	}
	if (strcmp(r.bucket, m->bucket))
		return false;
	m->best = *c;
	return true;
}

static uint8_t *byte_at(struct prog *p, size_t off)
{
	return (uint8_t *)p + off;
}

/* Set a field of @c: one byte (signed or not), or a big-endian u16. */
enum width { W_U8, W_S8, W_U16 };

static int get_field(const struct prog *p, size_t off, enum width w)
{
	const uint8_t *b = (const uint8_t *)p + off;

	return w == W_U16 ? (b[0] << 8 | b[1]) : w == W_S8 ? (int8_t)b[0] : b[0];
}

static void set_field(struct prog *p, size_t off, enum width w, int v)
{
	uint8_t *b = byte_at(p, off);

	if (w == W_U16) {
		b[0] = (uint8_t)(v >> 8);
		b[1] = (uint8_t)v;
	} else {
		b[0] = (uint8_t)v;
	}
}

static bool try_field(struct minimizer *m, size_t off, enum width w, int v)
{
	struct prog c = m->best;

	set_field(&c, off, w, v);
	return try(m, &c);
}

/*
 * Move a field of the best program towards @target: the target itself,
 * else a binary search between it (fails) and the current value (keeps)
 * for the value nearest the target that still keeps the bucket.
 */
static bool shrink_field(struct minimizer *m, size_t off, enum width w, int target)
{
	int lo = target, hi = get_field(&m->best, off, w);
	bool any = false;

	if (hi == target || stopped(m))
		return false;
	if (try_field(m, off, w, target))
		return true;
	while ((hi > lo ? hi - lo : lo - hi) > 1 && !stopped(m)) {
		int mid = lo + (hi - lo) / 2;

		if (try_field(m, off, w, mid)) {
			hi = mid;
			any = true;
		} else {
			lo = mid;
		}
	}
	return any;
}

static size_t off_of(const struct prog *p, const void *field)
{
	return (size_t)((const uint8_t *)field - (const uint8_t *)p);
}

/* (a) ddmin-like: drop chunks of n/2, n/4, ..., 1 operations, from the end. */
static bool pass_ops(struct minimizer *m)
{
	bool any = false;

	for (unsigned chunk = (m->best.nops + 1) / 2; chunk && !stopped(m); chunk /= 2) {
		unsigned end = m->best.nops;

		while (end > 0 && !stopped(m)) {
			unsigned at = end >= chunk ? end - chunk : 0, n = end - at;
			struct prog c = m->best;

			memmove(&c.ops[at], &c.ops[at + n], (c.nops - at - n) * sizeof(c.ops[0]));
			c.nops -= n;
			any |= try(m, &c);
			end = at;
		}
	}
	return any;
}

/* (b) a thread's operations: drop them all, else move them to thread 0. */
static bool pass_fibers(struct minimizer *m)
{
	bool any = false;

	for (unsigned f = 1; f < PROG_MAX_FIBERS && !stopped(m); f++) {
		struct prog drop = m->best, move = m->best;
		bool has = false;

		drop.nops = 0;
		for (unsigned i = 0; i < m->best.nops; i++) {
			if (m->best.ops[i].fiber != f) {
				drop.ops[drop.nops++] = m->best.ops[i];
				continue;
			}
			has = true;
			move.ops[i].fiber = 0;
		}
		if (has && !try(m, &drop) && !try(m, &move))
			continue;
		any |= has;
	}
	return any;
}

/* (c) the schedule: none, chunks of it, then each byte towards 0. */
static bool pass_sched(struct minimizer *m)
{
	bool any = false;

	if (!m->best.nsched)
		return false;
	{
		struct prog c = m->best;

		c.nsched = 0;
		if (try(m, &c))
			return true;
	}
	for (unsigned chunk = (m->best.nsched + 1) / 2; chunk && !stopped(m); chunk /= 2) {
		unsigned end = m->best.nsched;

		while (end > 0 && !stopped(m)) {
			unsigned at = end >= chunk ? end - chunk : 0, n = end - at;
			struct prog c = m->best;

			memmove(&c.sched[at], &c.sched[at + n], c.nsched - at - n);
			c.nsched -= n;
			any |= try(m, &c);
			end = at;
		}
	}
	for (unsigned i = 0; i < m->best.nsched && !stopped(m); i++)
		any |= shrink_field(m, off_of(&m->best, &m->best.sched[i]), W_U8, 0);
	return any;
}

/* (d) arguments, fail_at, fibers and config bits. */
static bool pass_args(struct minimizer *m)
{
	const struct prog_desc *d = m->t->desc;
	bool any = false;

	for (unsigned i = 0; i < m->best.nops && !stopped(m); i++) {
		const struct prog_opdesc *od = &d->ops[m->best.ops[i].code];
		unsigned at = 0;

		any |= shrink_field(m, off_of(&m->best, &m->best.ops[i].fail_at), W_U8, 0);
		any |= shrink_field(m, off_of(&m->best, &m->best.ops[i].fiber), W_U8, 0);
		for (unsigned k = 0; k < od->nfields && !stopped(m); k++) {
			const struct prog_field *f = &od->fields[k];
			size_t off = off_of(&m->best, &m->best.ops[i].arg[at]);

			switch (f->kind) {
			case FK_SEL:
			case FK_U8:
			case FK_CHOICE:
				any |= shrink_field(m, off, W_U8, 0);
				break;
			case FK_FLAGS:
				for (unsigned bit = 0; bit < 8; bit++) {
					struct prog c = m->best;

					if (!(*byte_at(&c, off) & (1u << bit)))
						continue;
					*byte_at(&c, off) &= (uint8_t) ~(1u << bit);
					any |= try(m, &c);
				}
				break;
			case FK_RANGE: {
				/* the length (0 is :end) towards 1, then where it starts */
				any |= shrink_field(m, off + 3, W_U8, 1);
				any |= shrink_field(m, off, W_U8, 0);
				if ((m->best.ops[i].arg[at] & 3) == RS_ENTRY ||
				    (m->best.ops[i].arg[at] & 3) == RS_GAP) {
					any |= shrink_field(m, off + 1, W_U8, 0);
					any |= shrink_field(m, off + 2, W_S8, 0);
				} else {
					any |= shrink_field(m, off + 1, W_U16, 0);
				}
				break;
			}
			}
			at += field_width(f);
		}
	}
	for (unsigned bit = 0; bit < 8 && !stopped(m); bit++) {
		struct prog c = m->best;

		if (!(c.config & (1u << bit)))
			continue;
		c.config &= (uint8_t) ~(1u << bit);
		any |= try(m, &c);
	}
	return any;
}

static void progress(const struct minimizer *m, unsigned round, const char *pass)
{
	fprintf(stderr, "minimize: round %u %-6s %3u ops, %3u sched bytes, %5zu bytes (run %u)\n",
		round, pass, m->best.nops, m->best.nsched, prog_encoded_size(&m->best), m->runs);
}

int cmd_minimize(int argc, char **argv)
{
	struct crash_opts o = {NULL, NULL, CRASH_DEFAULT_TIMEOUT};
	static struct minimizer m; /* large */
	const char *in = NULL, *out = NULL;
	char driver[PATH_MAX];
	struct crash_result r;
	size_t size, size0;
	unsigned nops0, round = 0;
	uint8_t *data;
	int rc = 1;

	memset(&m, 0, sizeof(m));
	m.max_runs = DEFAULT_MAX_RUNS;
	for (int i = 1; i < argc; i++) {
		int k = crash_opt("minimize", argc, argv, &i, &o);

		if (k < 0)
			return 2;
		if (k)
			continue;
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc)
				return cmd_usage_error("minimize", "%s needs a file name", "-o");
			out = argv[++i];
		} else if (!strcmp(argv[i], "--max-runs")) {
			char *end;
			unsigned long v;

			if (i + 1 >= argc)
				return cmd_usage_error("minimize", "%s needs a number", argv[i]);
			v = strtoul(argv[++i], &end, 10);
			if (*end || !*argv[i] || argv[i][0] == '-' || v < 1 || v > 1000000)
				return cmd_usage_error(
				    "minimize", "--max-runs '%s' is not 1..1000000", argv[i]);
			m.max_runs = (unsigned)v;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cmd_usage_error("minimize", "unknown option '%s'", argv[i]);
		} else if (in) {
			return cmd_usage_error("minimize", "takes one file, got also '%s'",
					       argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in)
		return cmd_usage_error("minimize", "%s", "needs a crash file");
	m.t = o.target ? o.target : crash_target_of(in);
	if (!m.t) {
		fprintf(stderr,
			"vmafuzz minimize: cannot tell which target %s is for; "
			"use --target (see 'vmafuzz list')\n",
			in);
		return 2;
	}
	if (!crash_driver("minimize", &o, m.t, driver, sizeof(driver)))
		return 2;
	m.driver = driver;
	m.timeout = o.timeout;
	data = load_input(m.t, in, &size, stderr);
	if (!data)
		return 2;
	prog_decode(m.t->desc, data, size, &m.best);
	free(data);
	size0 = size;
	nops0 = m.best.nops;

	if (!crash_run(driver, in, o.timeout, &r, NULL))
		return 2;
	m.runs = 1;
	if (!r.failed) {
		fprintf(stderr, "vmafuzz minimize: %s does not fail with %s: nothing to keep\n", in,
			driver);
		return 1;
	}
	snprintf(m.bucket, sizeof(m.bucket), "%s", r.bucket);
	fprintf(stderr, "minimize: %s: %s; %u ops, %u sched bytes, %zu bytes\n", in, m.bucket,
		m.best.nops, m.best.nsched, size);

	/* the canonical encoding must land in the same bucket */
	size = prog_encode(&m.best, m.buf);
	if (!crash_write_temp(m.buf, size, m.tmp, sizeof(m.tmp)))
		return 2;
	seen(&m, crash_hash64(m.buf, size));
	m.runs++;
	if (!crash_run(driver, m.tmp, o.timeout, &r, NULL)) {
		rc = 2;
		goto out;
	}
	if (strcmp(r.bucket, m.bucket)) {
		fprintf(stderr,
			"vmafuzz minimize: the program decoded from %s lands in '%s', not '%s'\n",
			in, r.bucket, m.bucket);
		goto out;
	}

	for (bool changed = true; changed && !stopped(&m);) {
		round++;
		changed = false;
		if (pass_ops(&m)) {
			changed = true;
			progress(&m, round, "ops");
		}
		if (pass_sched(&m)) {
			changed = true;
			progress(&m, round, "sched");
		}
		if (pass_fibers(&m)) {
			changed = true;
			progress(&m, round, "fibers");
		}
		if (pass_args(&m)) {
			changed = true;
			progress(&m, round, "args");
		}
	}
	if (m.error) {
		rc = 2;
		goto out;
	}
	size = prog_encode(&m.best, m.buf);
	fprintf(stderr,
		"minimize: %s after %u runs: %zu bytes (%u ops) -> %zu bytes (%u ops), %s\n",
		m.capped ? "stopped at the run cap" : "fixed point", m.runs, size0, nops0, size,
		m.best.nops, m.bucket);
	if (out && !crash_write_file(out, m.buf, size)) {
		rc = 2;
		goto out;
	}
	if (!out || strcmp(out, "-")) {
		printf("# minimized from %s: %zu bytes (%u ops) -> %zu bytes (%u ops), %u runs\n",
		       in, size0, nops0, size, m.best.nops, m.runs);
		printf("# bucket: %s\n", m.bucket);
		prog_print(stdout, m.t->desc, &m.best, -1);
	}
	rc = 0;
out:
	unlink(m.tmp);
	free(m.seen);
	return rc;
}
