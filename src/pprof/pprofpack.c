/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pprofpack.h"

/*
 * Every field number in profile.proto is below 16, so each known field's
 * tag is one byte: (number << 3) | wire type.
 */
#define VARINT 0
#define LEN 2
#define TAG(num, wt) ((uint8_t)((num) << 3 | (wt)))

/* Bytes of v as a base-128 varint: ceil(significant bits / 7). */
static inline size_t vlen(uint64_t v)
{
	return (size_t)(((64 - __builtin_clzll(v | 1)) * 9 + 64) / 64);
}

static inline uint8_t *put_varint(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

/* A proto3 scalar: left out when zero. int64 values are sign-extended to 64 bits. */
static inline size_t scalar_size(uint64_t v)
{
	return v ? 1 + vlen(v) : 0;
}

static inline uint8_t *put_scalar(uint8_t *o, unsigned num, uint64_t v)
{
	if (!v)
		return o;
	*o++ = TAG(num, VARINT);
	return put_varint(o, v);
}

/* A length-delimited field of len bytes (nested message, string, packed array). */
static inline size_t delimited_size(size_t len)
{
	return 1 + vlen(len) + len;
}

static inline uint8_t *put_header(uint8_t *o, unsigned num, size_t len)
{
	*o++ = TAG(num, LEN);
	return put_varint(o, len);
}

/* Fields this program does not know, kept from the input: after the known ones. */
static size_t unknown_size(const ProtobufCMessage *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_unknown_fields; i++)
		n += vlen((uint64_t)m->unknown_fields[i].tag << 3) + m->unknown_fields[i].len;
	return n;
}

static uint8_t *put_unknown(uint8_t *o, const ProtobufCMessage *m)
{
	for (size_t i = 0; i < m->n_unknown_fields; i++) {
		const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];

		o = put_varint(o, (uint64_t)u->tag << 3 | u->wire_type);
		memcpy(o, u->data, u->len);
		o += u->len;
	}
	return o;
}

/* Packed repeated varints: payload bytes. */
static size_t packed_payload(const uint64_t *v, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += vlen(v[i]);
	return len;
}

static inline size_t packed_size(const uint64_t *v, size_t n)
{
	return n ? delimited_size(packed_payload(v, n)) : 0;
}

static uint8_t *put_packed(uint8_t *o, unsigned num, const uint64_t *v, size_t n)
{
	if (!n)
		return o;
	o = put_header(o, num, packed_payload(v, n));
	for (size_t i = 0; i < n; i++)
		o = put_varint(o, v[i]);
	return o;
}

#define U(x) ((uint64_t)(x))

/* ---- one size function and one writer per message -------------------- */

static size_t value_type_size(const pb_value_type *m)
{
	return scalar_size(U(m->type)) + scalar_size(U(m->unit)) + unknown_size(&m->base);
}

static uint8_t *put_value_type(uint8_t *o, const pb_value_type *m)
{
	o = put_scalar(o, 1, U(m->type));
	o = put_scalar(o, 2, U(m->unit));
	return put_unknown(o, &m->base);
}

static size_t label_size(const pb_label *m)
{
	return scalar_size(U(m->key)) + scalar_size(U(m->str)) + scalar_size(U(m->num)) +
	       scalar_size(U(m->num_unit)) + unknown_size(&m->base);
}

static uint8_t *put_label(uint8_t *o, const pb_label *m)
{
	o = put_scalar(o, 1, U(m->key));
	o = put_scalar(o, 2, U(m->str));
	o = put_scalar(o, 3, U(m->num));
	o = put_scalar(o, 4, U(m->num_unit));
	return put_unknown(o, &m->base);
}

static size_t sample_size(const pb_sample *m)
{
	size_t n = packed_size(m->location_id, m->n_location_id) +
		   packed_size((const uint64_t *)(const void *)m->value, m->n_value);

	for (size_t i = 0; i < m->n_label; i++)
		n += delimited_size(label_size(m->label[i]));
	return n + unknown_size(&m->base);
}

static uint8_t *put_sample(uint8_t *o, const pb_sample *m)
{
	o = put_packed(o, 1, m->location_id, m->n_location_id);
	o = put_packed(o, 2, (const uint64_t *)(const void *)m->value, m->n_value);
	for (size_t i = 0; i < m->n_label; i++) {
		o = put_header(o, 3, label_size(m->label[i]));
		o = put_label(o, m->label[i]);
	}
	return put_unknown(o, &m->base);
}

static size_t mapping_size(const pb_mapping *m)
{
	return scalar_size(m->id) + scalar_size(m->memory_start) + scalar_size(m->memory_limit) +
	       scalar_size(m->file_offset) + scalar_size(U(m->filename)) +
	       scalar_size(U(m->build_id)) + scalar_size(U(!!m->has_functions)) +
	       scalar_size(U(!!m->has_filenames)) + scalar_size(U(!!m->has_line_numbers)) +
	       scalar_size(U(!!m->has_inline_frames)) + unknown_size(&m->base);
}

static uint8_t *put_mapping(uint8_t *o, const pb_mapping *m)
{
	o = put_scalar(o, 1, m->id);
	o = put_scalar(o, 2, m->memory_start);
	o = put_scalar(o, 3, m->memory_limit);
	o = put_scalar(o, 4, m->file_offset);
	o = put_scalar(o, 5, U(m->filename));
	o = put_scalar(o, 6, U(m->build_id));
	o = put_scalar(o, 7, U(!!m->has_functions));
	o = put_scalar(o, 8, U(!!m->has_filenames));
	o = put_scalar(o, 9, U(!!m->has_line_numbers));
	o = put_scalar(o, 10, U(!!m->has_inline_frames));
	return put_unknown(o, &m->base);
}

static size_t line_size(const pb_line *m)
{
	return scalar_size(m->function_id) + scalar_size(U(m->line)) + scalar_size(U(m->column)) +
	       unknown_size(&m->base);
}

static uint8_t *put_line(uint8_t *o, const pb_line *m)
{
	o = put_scalar(o, 1, m->function_id);
	o = put_scalar(o, 2, U(m->line));
	o = put_scalar(o, 3, U(m->column));
	return put_unknown(o, &m->base);
}

static size_t location_size(const pb_location *m)
{
	size_t n = scalar_size(m->id) + scalar_size(m->mapping_id) + scalar_size(m->address) +
		   scalar_size(U(!!m->is_folded));

	for (size_t i = 0; i < m->n_line; i++)
		n += delimited_size(line_size(m->line[i]));
	return n + unknown_size(&m->base);
}

static uint8_t *put_location(uint8_t *o, const pb_location *m)
{
	o = put_scalar(o, 1, m->id);
	o = put_scalar(o, 2, m->mapping_id);
	o = put_scalar(o, 3, m->address);
	for (size_t i = 0; i < m->n_line; i++) {
		o = put_header(o, 4, line_size(m->line[i]));
		o = put_line(o, m->line[i]);
	}
	o = put_scalar(o, 5, U(!!m->is_folded));
	return put_unknown(o, &m->base);
}

static size_t function_size(const pb_function *m)
{
	return scalar_size(m->id) + scalar_size(U(m->name)) + scalar_size(U(m->system_name)) +
	       scalar_size(U(m->filename)) + scalar_size(U(m->start_line)) + unknown_size(&m->base);
}

static uint8_t *put_function(uint8_t *o, const pb_function *m)
{
	o = put_scalar(o, 1, m->id);
	o = put_scalar(o, 2, U(m->name));
	o = put_scalar(o, 3, U(m->system_name));
	o = put_scalar(o, 4, U(m->filename));
	o = put_scalar(o, 5, U(m->start_line));
	return put_unknown(o, &m->base);
}

/* Repeated messages: each one delimited. */
#define REPEATED_SIZE(type, name)                                                                  \
	static size_t name##s_size(type *const *a, size_t n)                                       \
	{                                                                                          \
		size_t s = 0;                                                                      \
                                                                                                   \
		for (size_t i = 0; i < n; i++)                                                     \
			s += delimited_size(name##_size(a[i]));                                    \
		return s;                                                                          \
	}
#define REPEATED(type, name)                                                                       \
	REPEATED_SIZE(type, name)                                                                  \
	static int put_##name##s(struct psym_pack_out *w, unsigned num, type *const *a, size_t n)  \
	{                                                                                          \
		for (size_t i = 0; i < n; i++) {                                                   \
			size_t s = name##_size(a[i]);                                              \
			uint8_t *o;                                                                \
                                                                                                   \
			if (room(w, delimited_size(s)))                                            \
				return -1;                                                         \
			o = put_header(w->buf + w->len, num, s);                                   \
			w->len = (size_t)(put_##name(o, a[i]) - w->buf);                           \
		}                                                                                  \
		return 0;                                                                          \
	}

/*
 * The output: either a buffer the caller sized with psym_pprof_packed_size(),
 * or one grown here as elements are written. Growing lets the profile be
 * walked once: each element's size is computed right before it is written,
 * while it is in the cache, instead of in a separate pass over a profile
 * of hundreds of megabytes whose locations are scattered in memory.
 */
struct psym_pack_out {
	uint8_t *buf;
	size_t len, cap;
	bool grow;
	/* Streaming: what is written goes to flush once past chunk bytes. */
	size_t chunk;
	int (*flush)(void *ctx, const uint8_t *buf, size_t len);
	void *ctx;
	int flush_ret;
	bool flushed;
};

/* Make room for need more bytes; 0, or -1 when out of memory or flush failed. */
static int room(struct psym_pack_out *w, size_t need)
{
	size_t cap;
	uint8_t *nb;

	if (w->flush && w->len && w->len + need > w->chunk) {
		w->flush_ret = w->flush(w->ctx, w->buf, w->len);
		if (w->flush_ret)
			return -1;
		w->len = 0;
		w->flushed = true;
	}
	if (!w->grow || w->cap - w->len >= need)
		return 0;
	cap = w->cap ? w->cap : 4096;
	while (cap - w->len < need) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	nb = realloc(w->buf, cap);
	if (!nb)
		return -1;
	w->buf = nb;
	w->cap = cap;
	return 0;
}

REPEATED(pb_value_type, value_type)
REPEATED(pb_sample, sample)
REPEATED(pb_mapping, mapping)
REPEATED_SIZE(pb_location, location)

/*
 * put_locations with prefetching: a location's Lines are shared chains
 * (builder.c) spread over the heap in address order, not location order,
 * so each was a cache miss, then its Lines another. The chain of the
 * location 8 ahead and the Lines of the one 4 ahead are asked for early.
 */
static int put_locations(struct psym_pack_out *w, unsigned num, pb_location *const *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t s;
		uint8_t *o;

		if (i + 8 < n)
			__builtin_prefetch(a[i + 8]->line);
		if (i + 4 < n)
			for (size_t j = 0; j < a[i + 4]->n_line && j < 4; j++)
				__builtin_prefetch(a[i + 4]->line[j]);
		s = location_size(a[i]);
		if (room(w, delimited_size(s)))
			return -1;
		o = put_header(w->buf + w->len, num, s);
		w->len = (size_t)(put_location(o, a[i]) - w->buf);
	}
	return 0;
}
REPEATED(pb_function, function)

size_t psym_pprof_put_line(uint8_t *out, uint64_t function_id, int64_t line, int64_t column)
{
	size_t len = scalar_size(function_id) + scalar_size(U(line)) + scalar_size(U(column));
	uint8_t *o = put_header(out, 4, len);

	o = put_scalar(o, 1, function_id);
	o = put_scalar(o, 2, U(line));
	o = put_scalar(o, 3, U(column));
	return (size_t)(o - out);
}

size_t psym_pprof_packed_size(const pb_profile *p)
{
	size_t n = 0;

	n += value_types_size(p->sample_type, p->n_sample_type);
	n += samples_size(p->sample, p->n_sample);
	n += mappings_size(p->mapping, p->n_mapping);
	n += locations_size(p->location, p->n_location);
	n += functions_size(p->function, p->n_function);
	for (size_t i = 0; i < p->n_string_table; i++)
		n += delimited_size(p->string_table[i] ? strlen(p->string_table[i]) : 0);
	n += scalar_size(U(p->drop_frames)) + scalar_size(U(p->keep_frames)) +
	     scalar_size(U(p->time_nanos)) + scalar_size(U(p->duration_nanos));
	if (p->period_type)
		n += delimited_size(value_type_size(p->period_type));
	n += scalar_size(U(p->period));
	n += packed_size((const uint64_t *)(const void *)p->comment, p->n_comment);
	n += scalar_size(U(p->default_sample_type)) + scalar_size(U(p->doc_url));
	return n + unknown_size(&p->base);
}

/* Everything after the five big repeated fields: strings and scalars. */
static int put_rest(struct psym_pack_out *w, const pb_profile *p)
{
	uint8_t *o;

	for (size_t i = 0; i < p->n_string_table; i++) {
		const char *s = p->string_table[i] ? p->string_table[i] : "";
		size_t len = strlen(s);

		if (room(w, delimited_size(len)))
			return -1;
		o = put_header(w->buf + w->len, 6, len);
		memcpy(o, s, len);
		w->len = (size_t)(o + len - w->buf);
	}
	if (room(w, 11 * 4 +
			    (p->period_type ? delimited_size(value_type_size(p->period_type)) : 0) +
			    11 +
			    packed_size((const uint64_t *)(const void *)p->comment, p->n_comment) +
			    11 * 2 + unknown_size(&p->base)))
		return -1;
	o = w->buf + w->len;
	o = put_scalar(o, 7, U(p->drop_frames));
	o = put_scalar(o, 8, U(p->keep_frames));
	o = put_scalar(o, 9, U(p->time_nanos));
	o = put_scalar(o, 10, U(p->duration_nanos));
	if (p->period_type) {
		o = put_header(o, 11, value_type_size(p->period_type));
		o = put_value_type(o, p->period_type);
	}
	o = put_scalar(o, 12, U(p->period));
	o = put_packed(o, 13, (const uint64_t *)(const void *)p->comment, p->n_comment);
	o = put_scalar(o, 14, U(p->default_sample_type));
	o = put_scalar(o, 15, U(p->doc_url));
	o = put_unknown(o, &p->base);
	w->len = (size_t)(o - w->buf);
	return 0;
}

static int put_profile(struct psym_pack_out *w, const pb_profile *p)
{
	if (put_value_types(w, 1, p->sample_type, p->n_sample_type) ||
	    put_samples(w, 2, p->sample, p->n_sample) ||
	    put_mappings(w, 3, p->mapping, p->n_mapping) ||
	    put_locations(w, 4, p->location, p->n_location) ||
	    put_functions(w, 5, p->function, p->n_function) || put_rest(w, p))
		return -1;
	return 0;
}

size_t psym_pprof_pack(const pb_profile *p, uint8_t *out)
{
	struct psym_pack_out w = { .buf = out, .cap = SIZE_MAX };

	put_profile(&w, p); /* cannot fail: nothing to grow */
	return w.len;
}

/* A whole message written into w: a profile's, or one in parts. */
typedef int (*put_fn)(struct psym_pack_out *w, const void *arg);

static int put_pb(struct psym_pack_out *w, const void *arg)
{
	return put_profile(w, arg);
}

static int put_parts(struct psym_pack_out *w, const void *arg)
{
	const struct psym_pack_parts *pp = arg;
	const pb_profile *p = pp->pb;

	if (put_value_types(w, 1, p->sample_type, p->n_sample_type) || pp->samples(w, pp->arg) ||
	    put_mappings(w, 3, p->mapping, p->n_mapping) || pp->locations(w, pp->arg) ||
	    put_functions(w, 5, p->function, p->n_function) || put_rest(w, p))
		return -1;
	return 0;
}

int psym_pack_put_sample_bytes(struct psym_pack_out *w, const uint8_t *msg, size_t len)
{
	uint8_t *o;

	if (room(w, delimited_size(len)))
		return -1;
	o = put_header(w->buf + w->len, 2, len);
	memcpy(o, msg, len);
	w->len = (size_t)(o + len - w->buf);
	return 0;
}

int psym_pack_put_location(struct psym_pack_out *w, const pb_location *m)
{
	size_t s = location_size(m);
	uint8_t *o;

	if (room(w, delimited_size(s)))
		return -1;
	o = put_header(w->buf + w->len, 4, s);
	w->len = (size_t)(put_location(o, m) - w->buf);
	return 0;
}

int psym_pack_put_location_lines(struct psym_pack_out *w, uint64_t id, uint64_t mapping_id,
				 uint64_t address, const uint8_t *lines, size_t nbytes)
{
	size_t s = scalar_size(id) + scalar_size(mapping_id) + scalar_size(address) + nbytes;
	uint8_t *o;

	if (room(w, delimited_size(s)))
		return -1;
	o = put_header(w->buf + w->len, 4, s);
	o = put_scalar(o, 1, id);
	o = put_scalar(o, 2, mapping_id);
	o = put_scalar(o, 3, address);
	if (nbytes)
		memcpy(o, lines, nbytes);
	w->len = (size_t)(o + nbytes - w->buf);
	return 0;
}

static int pack_alloc(put_fn put, const void *arg, size_t hint, uint8_t **outp, size_t *lenp)
{
	struct psym_pack_out w = { .grow = true };

	if ((hint && room(&w, hint)) || put(&w, arg)) {
		free(w.buf);
		return -1;
	}
	if (!w.buf && room(&w, 1)) /* an empty profile: still a buffer to free */
		return -1;
	*outp = w.buf;
	*lenp = w.len;
	return 0;
}

static int pack_stream(put_fn put, const void *arg, size_t chunk,
		       int (*flush)(void *ctx, const uint8_t *buf, size_t len), void *ctx)
{
	struct psym_pack_out w = { .grow = true, .chunk = chunk, .flush = flush, .ctx = ctx };
	int ret = 0;

	if (room(&w, chunk) || put(&w, arg))
		ret = w.flush_ret ? w.flush_ret : -1;
	else if (w.len || !w.flushed) /* an empty profile is still one (empty) piece */
		ret = flush(ctx, w.buf, w.len);
	free(w.buf);
	return ret;
}

int psym_pprof_pack_alloc(const pb_profile *p, size_t hint, uint8_t **outp, size_t *lenp)
{
	return pack_alloc(put_pb, p, hint, outp, lenp);
}

int psym_pprof_pack_stream(const pb_profile *p, size_t chunk,
			   int (*flush)(void *ctx, const uint8_t *buf, size_t len), void *ctx)
{
	return pack_stream(put_pb, p, chunk, flush, ctx);
}

int psym_pprof_pack_parts_alloc(const struct psym_pack_parts *parts, uint8_t **outp, size_t *lenp)
{
	return pack_alloc(put_parts, parts, 0, outp, lenp);
}

int psym_pprof_pack_parts_stream(const void *arg, size_t chunk,
				 int (*flush)(void *ctx, const uint8_t *buf, size_t len), void *ctx)
{
	return pack_stream(put_parts, arg, chunk, flush, ctx);
}
