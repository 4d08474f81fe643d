/* SPDX-License-Identifier: MIT */
/*
 * psym's own Profile packer against protobuf-c's generic one: random
 * profiles (zero and non-zero fields, negative and 64-bit values, labels,
 * comments, optional period_type, unknown fields at every level) must pack
 * to the same bytes, and the bytes must parse back with protobuf-c.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psym-int.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Mostly small, sometimes zero, sometimes huge or negative: every varint length. */
static uint64_t value(void)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return rnd() % 128;
	case 2: return rnd() % 100000;
	case 3: return rnd();
	case 4: return (uint64_t) - (int64_t)(rnd() % 1000 + 1);
	default: return rnd() >> (rnd() % 64);
	}
}

/* Everything below is freed at once: a bump allocator over one block. */
static unsigned char pool[1 << 22];
static size_t pool_used;

static void *take(size_t n)
{
	void *p = pool + pool_used;

	pool_used += (n + 15) & ~(size_t)15;
	if (pool_used > sizeof(pool))
		abort();
	memset(p, 0, n);
	return p;
}

/* Zero to two unknown fields: a varint, or length-delimited bytes. */
static void unknowns(ProtobufCMessage *m)
{
	size_t n = rnd() % 4 == 0 ? 1 + rnd() % 2 : 0;

	m->n_unknown_fields = n;
	m->unknown_fields = n ? take(n * sizeof(*m->unknown_fields)) : NULL;
	for (size_t i = 0; i < n; i++) {
		ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
		uint8_t *d = take(8);

		u->tag = 16 + (uint32_t)(rnd() % 5000);
		if (rnd() & 1) {
			u->wire_type = PROTOBUF_C_WIRE_TYPE_VARINT;
			d[0] = (uint8_t)(rnd() % 128);
			u->len = 1;
		} else {
			u->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
			d[0] = 3;
			d[1] = 'a', d[2] = 'b', d[3] = 'c';
			u->len = 4;
		}
		u->data = d;
	}
}

static pb_value_type *value_type(void)
{
	pb_value_type *v = take(sizeof(*v));

	perftools__profiles__value_type__init(v);
	v->type = (int64_t)value();
	v->unit = (int64_t)value();
	unknowns(&v->base);
	return v;
}

static uint64_t *scalars(size_t n)
{
	uint64_t *a = take((n ? n : 1) * sizeof(*a));

	for (size_t i = 0; i < n; i++)
		a[i] = value();
	return a;
}

static pb_profile *random_profile(void)
{
	pb_profile *p = take(sizeof(*p));

	perftools__profiles__profile__init(p);
	p->n_sample_type = rnd() % 3;
	p->sample_type = take(3 * sizeof(void *));
	for (size_t i = 0; i < p->n_sample_type; i++)
		p->sample_type[i] = value_type();
	p->n_sample = rnd() % 20;
	p->sample = take(20 * sizeof(void *));
	for (size_t i = 0; i < p->n_sample; i++) {
		pb_sample *s = take(sizeof(*s));

		perftools__profiles__sample__init(s);
		s->n_location_id = rnd() % 6;
		s->location_id = scalars(s->n_location_id);
		s->n_value = rnd() % 3;
		s->value = (int64_t *)scalars(s->n_value);
		s->n_label = rnd() % 3;
		s->label = take(3 * sizeof(void *));
		for (size_t j = 0; j < s->n_label; j++) {
			pb_label *l = take(sizeof(*l));

			perftools__profiles__label__init(l);
			l->key = (int64_t)value();
			l->str = (int64_t)value();
			l->num = (int64_t)value();
			l->num_unit = (int64_t)value();
			unknowns(&l->base);
			s->label[j] = l;
		}
		unknowns(&s->base);
		p->sample[i] = s;
	}
	p->n_mapping = rnd() % 4;
	p->mapping = take(4 * sizeof(void *));
	for (size_t i = 0; i < p->n_mapping; i++) {
		pb_mapping *m = take(sizeof(*m));

		perftools__profiles__mapping__init(m);
		m->id = value();
		m->memory_start = value();
		m->memory_limit = value();
		m->file_offset = value();
		m->filename = (int64_t)value();
		m->build_id = (int64_t)value();
		m->has_functions = rnd() & 1;
		m->has_filenames = rnd() & 1;
		m->has_line_numbers = rnd() & 1;
		m->has_inline_frames = rnd() & 1;
		unknowns(&m->base);
		p->mapping[i] = m;
	}
	p->n_location = rnd() % 30;
	p->location = take(30 * sizeof(void *));
	for (size_t i = 0; i < p->n_location; i++) {
		pb_location *l = take(sizeof(*l));

		perftools__profiles__location__init(l);
		l->id = value();
		l->mapping_id = value();
		l->address = value();
		l->is_folded = rnd() % 4 == 0;
		l->n_line = rnd() % 5;
		l->line = take(5 * sizeof(void *));
		for (size_t j = 0; j < l->n_line; j++) {
			pb_line *ln = take(sizeof(*ln));

			perftools__profiles__line__init(ln);
			ln->function_id = value();
			ln->line = (int64_t)value();
			ln->column = (int64_t)value();
			unknowns(&ln->base);
			l->line[j] = ln;
		}
		unknowns(&l->base);
		p->location[i] = l;
	}
	p->n_function = rnd() % 10;
	p->function = take(10 * sizeof(void *));
	for (size_t i = 0; i < p->n_function; i++) {
		pb_function *f = take(sizeof(*f));

		perftools__profiles__function__init(f);
		f->id = value();
		f->name = (int64_t)value();
		f->system_name = (int64_t)value();
		f->filename = (int64_t)value();
		f->start_line = (int64_t)value();
		unknowns(&f->base);
		p->function[i] = f;
	}
	p->n_string_table = rnd() % 6;
	p->string_table = take(6 * sizeof(char *));
	for (size_t i = 0; i < p->n_string_table; i++) {
		static const char *const strs[] = { "", "cpu", "nanoseconds", "a longer string" };

		/* 200 bytes: a length that takes two varint bytes. */
		if (rnd() % 8 == 0) {
			char *s = take(201);

			memset(s, 'x', 200);
			p->string_table[i] = s;
		} else {
			p->string_table[i] = (char *)strs[rnd() % 4];
		}
	}
	p->drop_frames = (int64_t)value();
	p->keep_frames = (int64_t)value();
	p->time_nanos = (int64_t)value();
	p->duration_nanos = (int64_t)value();
	p->period_type = rnd() & 1 ? value_type() : NULL;
	p->period = (int64_t)value();
	p->n_comment = rnd() % 3;
	p->comment = (int64_t *)scalars(p->n_comment);
	p->default_sample_type = (int64_t)value();
	p->doc_url = (int64_t)value();
	unknowns(&p->base);
	return p;
}

/* Collects the pieces psym_pprof_pack_stream() hands out. */
struct cat {
	uint8_t buf[1 << 20];
	size_t n;
};

static int cat_piece(void *ctx, const uint8_t *buf, size_t len)
{
	struct cat *c = ctx;

	if (len > sizeof(c->buf) - c->n)
		return -2;
	memcpy(c->buf + c->n, buf, len);
	c->n += len;
	return 0;
}

int main(void)
{
	size_t same = 0, parsed = 0, runs = 2000;
	static uint8_t want[1 << 20], got[1 << 20];

	for (size_t r = 0; r < runs; r++) {
		pb_profile *p;
		size_t nw, ng;

		pool_used = 0;
		p = random_profile();
		nw = protobuf_c_message_get_packed_size(&p->base);
		ng = psym_pprof_packed_size(p);
		if (nw != ng || nw > sizeof(want)) {
			ok(0, "profile %zu: size %zu, protobuf-c says %zu", r, ng, nw);
			continue;
		}
		if (protobuf_c_message_pack(&p->base, want) != nw ||
		    psym_pprof_pack(p, got) != ng) {
			ok(0, "profile %zu: packed length differs from the size", r);
			continue;
		}
		if (memcmp(want, got, nw) != 0) {
			ok(0, "profile %zu: bytes differ from protobuf-c's", r);
			continue;
		}
		{
			/* Grown from nothing: every growth step is taken. */
			uint8_t *grown = NULL;
			size_t ngrown = 0;

			if (psym_pprof_pack_alloc(p, r % 2 ? 0 : 1, &grown, &ngrown) ||
			    ngrown != nw || memcmp(grown, want, nw) != 0) {
				free(grown);
				ok(0, "profile %zu: the grown buffer differs", r);
				continue;
			}
			free(grown);
		}
		{
			/* Streamed in small pieces: laid end to end, the same bytes. */
			static struct cat c;

			c.n = 0;
			if (psym_pprof_pack_stream(p, 1 + r % 64, cat_piece, &c) != 0 ||
			    c.n != nw || memcmp(c.buf, want, nw) != 0) {
				ok(0, "profile %zu: the streamed pieces differ", r);
				continue;
			}
		}
		same++;
		{
			pb_profile *q = perftools__profiles__profile__unpack(NULL, ng, got);

			if (q) {
				parsed++;
				perftools__profiles__profile__free_unpacked(q, NULL);
			}
		}
	}
	is_int(same, runs, "%zu random profiles pack to protobuf-c's bytes", runs);
	is_int(parsed, runs, "and protobuf-c parses them back");

	/* The empty profile packs to nothing. */
	{
		pb_profile e = PERFTOOLS__PROFILES__PROFILE__INIT;

		uint8_t *b = NULL;
		size_t n = 1;

		is_int(psym_pprof_packed_size(&e), 0, "empty profile: 0 bytes");
		ok(psym_pprof_pack_alloc(&e, 0, &b, &n) == 0 && b && n == 0,
		   "empty profile, grown buffer: 0 bytes");
		free(b);
	}
	return tap_done();
}
