/* SPDX-License-Identifier: MIT */
/*
 * OTLP profiles on the wire: the structure check that comes before any
 * allocation (sniffing, and the depth bound protobuf-c does not have: an
 * AnyValue may nest arrays in arrays, a few bytes each), the decode, and
 * the index check that tells a file of another version from 1.10.0's.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>

#include "otlp.h"

struct wire {
	const unsigned char *p, *end;
};

static bool varint(struct wire *w, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (w->p >= w->end)
			return false;
		x |= (uint64_t)(*w->p & 0x7f) << shift;
		if (!(*w->p++ & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static const ProtobufCFieldDescriptor *field_of(const ProtobufCMessageDescriptor *d, uint32_t num)
{
	for (unsigned i = 0; i < d->n_fields; i++)
		if (d->fields[i].id == num)
			return &d->fields[i];
	return NULL;
}

/*
 * Walk one message's bytes as descriptor d says, nested messages to at
 * most PSYM_OTLP_MAX_DEPTH. Unknown fields are skipped (kept by protobuf-c).
 * seen: bit n set for each top-level field n < 32 met.
 */
static bool walk(const ProtobufCMessageDescriptor *d, const unsigned char *p, size_t len, int depth,
		 int stop, uint32_t *seen)
{
	struct wire w = { p, p + len };

	if (depth > PSYM_OTLP_MAX_DEPTH)
		return false;
	if (depth > stop)
		return true; /* sniffing: deeper levels are the decoder's */
	while (w.p < w.end) {
		uint64_t key, v;
		uint32_t num;
		const ProtobufCFieldDescriptor *f;

		if (!varint(&w, &key) || key >> 32)
			return false;
		num = (uint32_t)(key >> 3);
		if (!num)
			return false;
		if (seen && num < 32)
			*seen |= 1u << num;
		f = field_of(d, num);
		switch (key & 7) {
		case 0:
			if (!varint(&w, &v))
				return false;
			if (f &&
			    (f->type == PROTOBUF_C_TYPE_MESSAGE ||
			     f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES))
				return false;
			break;
		case 1:
			if (w.end - w.p < 8)
				return false;
			w.p += 8;
			break;
		case 5:
			if (w.end - w.p < 4)
				return false;
			w.p += 4;
			break;
		case 2:
			if (!varint(&w, &v) || v > (uint64_t)(w.end - w.p))
				return false;
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    !walk(f->descriptor, w.p, (size_t)v, depth + 1, stop, NULL))
				return false;
			w.p += v;
			break;
		default: return false;
		}
	}
	return true;
}

bool psym_otlp_wire_ok(const unsigned char *buf, size_t len, bool need_profiles)
{
	uint32_t seen = 0;

	/* Sniffing looks three levels down; reading checks every level. */
	if (!walk(&opentelemetry__proto__profiles__v1development__profiles_data__descriptor, buf,
		  len, 0, need_profiles ? 3 : PSYM_OTLP_MAX_DEPTH, &seen))
		return false;
	if (!need_profiles)
		return true;
	/* Only ProfilesData's fields at the top, and something of them. */
	return (seen & ~6u) == 0 && seen != 0;
}

static bool json_sniff(const unsigned char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i >= len || buf[i] != '{')
		return false;
	/* The key is near the start in what exporters write; look at the first 64 KiB. */
	len = len - i > 65536 ? 65536 : len - i;
	/* Or the dictionary first, with its string table (a writer's own order). */
	return memmem(buf + i, len, "\"resourceProfiles\"", 18) ||
	       memmem(buf + i, len, "\"resource_profiles\"", 19) ||
	       (memmem(buf + i, len, "\"dictionary\"", 12) &&
		(memmem(buf + i, len, "\"stringTable\"", 13) ||
		 memmem(buf + i, len, "\"string_table\"", 14)));
}

/* JSON text, not protobuf: a binary message may start with "\n{" too (field 1, 123 bytes). */
static bool is_json(const unsigned char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i < len && buf[i] == '{' && !psym_otlp_wire_ok(buf, len, true);
}

bool psym_otlp_sniff(const unsigned char *buf, size_t len)
{
	if (!len)
		return false;
	if (is_json(buf, len))
		return json_sniff(buf, len);
	/* The first top-level field must be 1 or 2, length-delimited. */
	if (buf[0] != 0x0a && buf[0] != 0x12)
		return false;
	return psym_otlp_wire_ok(buf, len, true);
}

void psym_otlp_free(struct psym_otlp *o)
{
	if (!o)
		return;
	psym_arena_free(&o->arena);
	free(o);
}

int psym_otlp_decode(const unsigned char *buf, size_t len, const char *name,
		     const struct psym_limits *limp, struct psym_otlp **out, struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	struct psym_otlp *o;
	int ret;

	*out = NULL;
	if (len > lim.max_profile)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': OTLP message of %zu bytes is over the limit of %zu",
				    name, len, lim.max_profile);
	o = calloc(1, sizeof(*o));
	if (!o)
		return psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
	psym_arena_init(&o->arena, lim.max_memory);
	if (is_json(buf, len)) {
		o->json = true;
		ret = psym_otlp_json_parse(buf, len, name, o, e);
		if (ret)
			goto fail;
	} else {
		if (!psym_otlp_wire_ok(buf, len, false)) {
			ret = psym_err_set(e, PSYM_EBADPROTO,
					   "'%s': not OTLP profiles (malformed protobuf, or "
					   "nested deeper than %d)",
					   name, PSYM_OTLP_MAX_DEPTH);
			goto fail;
		}
		o->msg = opentelemetry__proto__profiles__v1development__profiles_data__unpack(
			&o->arena.pbc, len, buf);
		if (!o->msg) {
			if (o->arena.over_limit)
				ret = psym_err_set(e, PSYM_ELIMIT,
						   "'%s': decoding needs more than the memory "
						   "limit of %zu bytes",
						   name, lim.max_memory);
			else if (o->arena.oom)
				ret = psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
			else
				ret = psym_err_set(e, PSYM_EBADPROTO,
						   "'%s': not OTLP profiles (protobuf decoding "
						   "failed): %s",
						   name, PSYM_OTLP_READS);
			goto fail;
		}
	}
	ret = psym_otlp_check(o, name, e);
	if (ret)
		goto fail;
	*out = o;
	return 0;
fail:
	psym_otlp_free(o);
	return ret;
}
