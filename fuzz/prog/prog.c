/* SPDX-License-Identifier: GPL-2.0 */
/* Program bytes: decoding (total) and encoding (prog.h). */
#include "prog.h"

#include <string.h>

unsigned field_width(const struct prog_field *f)
{
	return f->kind == FK_RANGE ? 4 : 1;
}

static unsigned count_names(const char *const *names)
{
	unsigned n = 0;

	while (names && names[n])
		n++;
	return n;
}

static uint8_t name_mask(const char *const *names)
{
	unsigned n = count_names(names);

	return (uint8_t)(n >= 8 ? 0xff : (1u << n) - 1);
}

void range_spec_decode(const uint8_t b[4], struct range_spec *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->mode = (enum range_mode)(b[0] & 3);
	rs->len = b[3];
	switch (rs->mode) {
	case RS_ENTRY:
	case RS_GAP:
		rs->k = b[1];
		rs->d = (int8_t)b[2];
		break;
	case RS_RAW:
	case RS_TOP:
		rs->v = (uint16_t)(b[1] << 8 | b[2]);
		break;
	}
}

void range_spec_encode(const struct range_spec *rs, uint8_t b[4])
{
	b[0] = (uint8_t)rs->mode;
	if (rs->mode == RS_ENTRY || rs->mode == RS_GAP) {
		b[1] = rs->k;
		b[2] = (uint8_t)rs->d;
	} else {
		b[1] = (uint8_t)(rs->v >> 8);
		b[2] = (uint8_t)rs->v;
	}
	b[3] = rs->len;
}

/* Reduce the argument bytes of @op to their canonical form. */
static void canonical_args(const struct prog_opdesc *od, struct prog_op *op)
{
	uint8_t out[PROG_ARGS] = {0};
	unsigned at = 0;

	for (unsigned i = 0; i < od->nfields; i++) {
		const struct prog_field *f = &od->fields[i];
		const uint8_t *b = &op->arg[at];

		switch (f->kind) {
		case FK_SEL:
			out[at] = f->max ? b[0] % f->max : 0;
			break;
		case FK_U8:
			out[at] = b[0];
			break;
		case FK_CHOICE:
			out[at] = (uint8_t)(b[0] % count_names(f->names));
			break;
		case FK_FLAGS:
			out[at] = b[0] & name_mask(f->names);
			break;
		case FK_RANGE: {
			struct range_spec rs;

			range_spec_decode(b, &rs);
			range_spec_encode(&rs, &out[at]);
			break;
		}
		}
		at += field_width(f);
	}
	memcpy(op->arg, out, sizeof(out));
}

void prog_decode_args(const struct prog_desc *d, const struct prog_op *op, void *args)
{
	const struct prog_opdesc *od = &d->ops[op->code % d->nops];
	unsigned at = 0;

	memset(args, 0, d->args_size);
	for (unsigned i = 0; i < od->nfields; i++) {
		const struct prog_field *f = &od->fields[i];
		uint8_t *to = (uint8_t *)args + f->off;

		if (f->kind == FK_RANGE)
			range_spec_decode(&op->arg[at], (struct range_spec *)(void *)to);
		else
			*to = op->arg[at];
		at += field_width(f);
	}
}

void prog_encode_args(const struct prog_desc *d, unsigned code, const void *args,
		      struct prog_op *op)
{
	const struct prog_opdesc *od = &d->ops[code % d->nops];
	unsigned at = 0;

	op->code = (uint8_t)(code % d->nops);
	memset(op->arg, 0, sizeof(op->arg));
	for (unsigned i = 0; i < od->nfields; i++) {
		const struct prog_field *f = &od->fields[i];
		const uint8_t *from = (const uint8_t *)args + f->off;

		if (f->kind == FK_RANGE)
			range_spec_encode((const struct range_spec *)(const void *)from,
					  &op->arg[at]);
		else
			op->arg[at] = *from;
		at += field_width(f);
	}
}

void prog_decode(const struct prog_desc *d, const uint8_t *data, size_t size, struct prog *p)
{
	size_t body;

	memset(p, 0, sizeof(*p));
	if (size < PROG_HEADER)
		return;
	p->config = data[0] & name_mask(d->config_names);
	p->nsched = data[1] < size - PROG_HEADER ? data[1] : (unsigned)(size - PROG_HEADER);
	memcpy(p->sched, data + size - p->nsched, p->nsched);
	body = size - PROG_HEADER - p->nsched;
	p->nops = (unsigned)(body / PROG_RECORD);
	if (p->nops > PROG_MAX_OPS)
		p->nops = PROG_MAX_OPS;
	for (unsigned i = 0; i < p->nops; i++) {
		const uint8_t *r = data + PROG_HEADER + i * PROG_RECORD;
		struct prog_op *op = &p->ops[i];

		op->code = (uint8_t)(r[0] % d->nops);
		op->fiber = (uint8_t)(r[1] % d->nfibers);
		op->fail_at = r[2];
		memcpy(op->arg, r + 3, PROG_ARGS);
		canonical_args(&d->ops[op->code], op);
	}
}

size_t prog_encoded_size(const struct prog *p)
{
	return PROG_HEADER + (size_t)p->nops * PROG_RECORD + p->nsched;
}

size_t prog_encode(const struct prog *p, uint8_t *out)
{
	uint8_t *w = out;

	*w++ = p->config;
	*w++ = (uint8_t)p->nsched;
	for (unsigned i = 0; i < p->nops; i++) {
		*w++ = p->ops[i].code;
		*w++ = p->ops[i].fiber;
		*w++ = p->ops[i].fail_at;
		memcpy(w, p->ops[i].arg, PROG_ARGS);
		w += PROG_ARGS;
	}
	memcpy(w, p->sched, p->nsched);
	w += p->nsched;
	return (size_t)(w - out);
}
