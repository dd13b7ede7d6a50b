/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program format: decoding is total and canonical, text and bytes
 * round-trip, a change to one record changes one operation, range specs
 * survive encoding, and malformed text gets an error naming line and column.
 */
#include "fuzz/prog/prng.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/target.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static struct prog p1, p2;

/* Print a program into a fresh string (caller frees). */
static char *print_str(const struct prog_desc *d, const struct prog *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	prog_print(f, d, p, -1);
	fclose(f);
	return buf;
}

/* bytes -> text -> bytes -> text: the two texts are equal, the second bytes
 * are canonical (decoding them changes nothing). */
static bool round_trip(const struct fuzz_target *t, const uint8_t *data, size_t size)
{
	uint8_t *canon;
	char *text, *again, err[256];
	size_t n;

	prog_decode(t->desc, data, size, &p1);
	text = print_str(t->desc, &p1);
	if (!prog_parse(t->desc, text, "printed", &p2, err, sizeof(err))) {
		fprintf(stderr, "printed program does not parse: %s\n%s", err, text);
		free(text);
		return false;
	}
	canon = malloc(prog_encoded_size(&p2));
	n = prog_encode(&p2, canon);
	prog_decode(t->desc, canon, n, &p2);
	again = print_str(t->desc, &p2);
	ASSERT(!strcmp(text, again));
	ASSERT_EQ(n, prog_encoded_size(&p2));
	{
		uint8_t *canon2 = malloc(n);

		ASSERT_EQ(prog_encode(&p2, canon2), n);
		ASSERT(!memcmp(canon, canon2, n));
		free(canon2);
	}
	free(canon);
	free(text);
	free(again);
	return true;
}

static bool test_decode_total_and_round_trip(void)
{
	struct prng r = {42};
	uint8_t buf[2048];

	for (unsigned i = 0; fuzz_targets[i]; i++) {
		const struct fuzz_target *t = fuzz_targets[i];

		ASSERT(round_trip(t, buf, 0));
		ASSERT(round_trip(t, buf, 1));
		for (int k = 0; k < 3000; k++) {
			size_t size = prng_below(&r, sizeof(buf));

			for (size_t j = 0; j < size; j++)
				buf[j] = (uint8_t)prng_next(&r);
			if (!round_trip(t, buf, size))
				return false;
		}
		/* all-0xff: every field at its maximum */
		memset(buf, 0xff, sizeof(buf));
		ASSERT(round_trip(t, buf, sizeof(buf)));
	}
	return true;
}

/* One record's bytes change only that operation; the schedule sits apart. */
static bool test_locality(void)
{
	const struct fuzz_target *t = fuzz_targets[0];
	struct prng r = {7};
	uint8_t buf[2 + 20 * PROG_RECORD + 5];

	for (int k = 0; k < 500; k++) {
		unsigned op = (unsigned)prng_below(&r, 20);
		size_t at = 2 + op * PROG_RECORD + prng_below(&r, PROG_RECORD);

		for (size_t j = 0; j < sizeof(buf); j++)
			buf[j] = (uint8_t)prng_next(&r);
		buf[1] = 5;
		prog_decode(t->desc, buf, sizeof(buf), &p1);
		buf[at] ^= (uint8_t)(1 + prng_below(&r, 255));
		prog_decode(t->desc, buf, sizeof(buf), &p2);
		ASSERT_EQ(p1.nops, 20);
		ASSERT_EQ(p2.nops, 20);
		for (unsigned i = 0; i < 20; i++)
			if (i != op)
				ASSERT(!memcmp(&p1.ops[i], &p2.ops[i], sizeof(p1.ops[i])));
		ASSERT(!memcmp(p1.sched, p2.sched, 5));
		/* and a change in the schedule leaves every operation alone */
		buf[sizeof(buf) - 1 - prng_below(&r, 5)] ^= 1;
		prog_decode(t->desc, buf, sizeof(buf), &p1);
		ASSERT(!memcmp(p1.ops, p2.ops, sizeof(p1.ops[0]) * 20));
	}
	return true;
}

static bool test_range_spec_round_trip(void)
{
	for (unsigned mode = 0; mode < 4; mode++)
		for (unsigned a = 0; a < 256; a += 5)
			for (unsigned b = 0; b < 256; b += 3)
				for (unsigned len = 0; len < 256; len += 51) {
					uint8_t in[4] = {(uint8_t)mode, (uint8_t)a, (uint8_t)b,
							 (uint8_t)len},
						out[4];
					struct range_spec rs;

					range_spec_decode(in, &rs);
					range_spec_encode(&rs, out);
					ASSERT(!memcmp(in, out, 4));
				}
	return true;
}

struct bad_text {
	const char *text;
	const char *where; /* expected "name:line:col:" */
	const char *says;  /* expected part of the message */
};

/*
 * Every target's operations name their arguments: each field has a name and
 * a place in the target's argument struct, inside it and apart from the
 * others; decoding a record into that struct and encoding it back gives the
 * record's canonical bytes.
 */
static bool test_args_by_name(void)
{
	struct prng r = {11};

	for (unsigned t = 0; fuzz_targets[t]; t++) {
		const struct prog_desc *d = fuzz_targets[t]->desc;

		ASSERT(d->args_size > 0 && d->args_size <= 256);
		for (unsigned c = 0; c < d->nops; c++) {
			const struct prog_opdesc *od = &d->ops[c];
			uint8_t used[256] = {0};

			for (unsigned f = 0; f < od->nfields; f++) {
				const struct prog_field *fl = &od->fields[f];
				size_t w = fl->kind == FK_RANGE ? sizeof(struct range_spec) : 1;

				ASSERT(fl->name && fl->name[0]);
				ASSERT(fl->off + w <= d->args_size);
				for (size_t b = fl->off; b < fl->off + w; b++)
					ASSERT(!used[b]++);
			}
		}
		for (unsigned i = 0; i < 2000; i++) {
			uint8_t bytes[PROG_HEADER + PROG_RECORD];
			uint8_t args[256];
			struct prog_op back;

			for (unsigned b = 0; b < sizeof(bytes); b++)
				bytes[b] = (uint8_t)prng_below(&r, 256);
			bytes[1] = 0; /* no schedule */
			prog_decode(d, bytes, sizeof(bytes), &p1);
			ASSERT_EQ(p1.nops, 1);
			prog_decode_args(d, &p1.ops[0], args);
			memset(&back, 0, sizeof(back));
			prog_encode_args(d, p1.ops[0].code, args, &back);
			ASSERT_EQ(back.code, p1.ops[0].code);
			ASSERT(!memcmp(back.arg, p1.ops[0].arg, PROG_ARGS));
		}
	}
	return true;
}

static bool test_parse_errors(void)
{
	static const struct bad_text bad[] = {
	    {"stor mt0 @0:1 v1\n", "x:1:1:", "unknown operation 'stor'"},
	    {"store mt0 @0:1\n", "x:1:11:", "takes 3 arguments"},
	    {"store mt9 @0:1 v1\n", "x:1:7:", "expected mt<0..3>"},
	    {"store mt0 @0x10000:1 v1\n", "x:1:11:", "0..0xffff"},
	    {"store mt0 e1:1 v1\n", "x:1:11:", "offset"},
	    {"store mt0 e1+0 v1\n", "x:1:11:", ":<len> or :end"},
	    {"store mt0 e1+0:0 v1\n", "x:1:11:", "1..255 or end"},
	    {"store mt0 q1:1 v1\n", "x:1:11:", "must start with"},
	    {"\n\n  store mt0 @0:1 v1 extra\n", "x:3:21:", "unexpected 'extra'"},
	    {"store mt0 @0:1 v1 fail_at=300\n", "x:1:19:", "fail_at takes"},
	    {"target fuzz_other\n", "x:1:8:", "is for 'fuzz_other'"},
	    {"config nonsense\n", "x:1:8:", "unknown config"},
	    {"t7: load mt0 @0:1\n", "x:1:1:", "fiber"},
	    {"sched 1 2 256\n", "x:1:11:", "schedule choice"},
	    {"gap mt0 @0:1 n=3 middle\n", "x:1:18:", "not one of the choices"},
	    {"t0:\n", "x:1:1:", "expected an operation"},
	};
	const struct fuzz_target *t = fuzz_target_find("fuzz_mtree");
	char err[256];

	ASSERT(t != NULL);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool ok = prog_parse(t->desc, bad[i].text, "x", &p1, err, sizeof(err));

		if (ok || strncmp(err, bad[i].where, strlen(bad[i].where)) ||
		    !strstr(err, bad[i].says)) {
			fprintf(stderr, "text %u: got '%s', want '%s ... %s'\n", i,
				ok ? "(accepted)" : err, bad[i].where, bad[i].says);
			return false;
		}
	}
	/* and a good program with every syntax form parses */
	ASSERT(prog_parse(t->desc,
			  "# comment\ntarget fuzz_mtree\nstore mt1 e3-2:end v0 # trailing\n"
			  "t0: gap mt0 g1+127:255 n=0 high fail_at=9\nload mt3 top-65535:1\n"
			  "sched 0 255\n",
			  "x", &p1, err, sizeof(err)));
	ASSERT_EQ(p1.nops, 3);
	ASSERT_EQ(p1.ops[1].fail_at, 9);
	ASSERT_EQ(p1.nsched, 2);
	return true;
}

int main(void)
{
	TEST(test_decode_total_and_round_trip);
	TEST(test_locality);
	TEST(test_range_spec_round_trip);
	TEST(test_parse_errors);
	TEST(test_args_by_name);
	return test_summary();
}
