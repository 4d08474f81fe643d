/* SPDX-License-Identifier: MIT */
/*
 * OTLP/JSON (protojson) into the same message the binary reader makes,
 * driven by protobuf-c's descriptors of proto/otlp_profiles.proto: keys in
 * lowerCamelCase or as in the .proto, 64-bit integers as strings or
 * numbers, bytes as base64, unknown keys skipped. Hostile-safe: nesting is
 * bounded (objects and arrays together), strings and numbers are checked
 * against the end of the buffer, everything lands in the message's arena
 * (capped); the only other memory is each open array's list, freed on
 * every path.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"

#define MAX_JSON_DEPTH (2 * PSYM_OTLP_MAX_DEPTH + 8)
#define MAX_KEY 128

struct js {
	const unsigned char *p, *start, *end;
	struct psym_arena *a;
	const char *name;
	struct psym_err *e;
	int depth;
};

static int jerr(struct js *j, const char *what)
{
	return psym_err_set(j->e, PSYM_EBADINPUT, "'%s': OTLP/JSON: %s at byte %zu", j->name, what,
			    (size_t)(j->p - j->start));
}

static int nomem(struct js *j)
{
	int code = psym_arena_error(j->a);

	return psym_err_set(j->e, code, "'%s': OTLP/JSON: %s", j->name,
			    code == PSYM_ELIMIT ? "over the memory limit" : "out of memory");
}

static void ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool eat(struct js *j, char c)
{
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hex4(const unsigned char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int c = p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		*v = *v << 4 | (unsigned)d;
	}
	return 0;
}

static size_t utf8(unsigned cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A JSON string into the arena (NUL-terminated; *len: its bytes). */
static int jstring(struct js *j, char **out, size_t *len)
{
	const unsigned char *q;
	char *s, *o;

	if (!eat(j, '"'))
		return jerr(j, "expected a string");
	for (q = j->p; q < j->end && *q != '"'; q++)
		if (*q == '\\' && ++q >= j->end)
			break;
	if (q >= j->end)
		return jerr(j, "unterminated string");
	/* Escapes never grow: \uXXXX is 6 bytes for at most 4 (a pair: 12 for 4). */
	s = psym_arena_alloc(j->a, (size_t)(q - j->p) + 1);
	if (!s)
		return nomem(j);
	for (o = s; j->p < q;) {
		unsigned cp, lo;

		if (*j->p < 0x20)
			return jerr(j, "control character in a string");
		if (*j->p != '\\') {
			*o++ = (char)*j->p++;
			continue;
		}
		j->p++;
		switch (*j->p++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (q - j->p < 4 || hex4(j->p, &cp))
				return jerr(j, "bad \\u escape");
			j->p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && q - j->p >= 6 && j->p[0] == '\\' &&
			    j->p[1] == 'u' && !hex4(j->p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				j->p += 6;
			}
			o += utf8(cp, o);
			break;
		default: return jerr(j, "bad escape");
		}
	}
	j->p++;
	*o = 0;
	*out = s;
	*len = (size_t)(o - s);
	return 0;
}

static int skip_value(struct js *j);

static int skip_container(struct js *j, char close)
{
	if (++j->depth > MAX_JSON_DEPTH)
		return jerr(j, "nested too deep");
	if (!eat(j, close)) {
		do {
			int ret;

			if (close == '}') {
				char *k;
				size_t kl;

				ret = jstring(j, &k, &kl);
				if (!ret && !eat(j, ':'))
					ret = jerr(j, "expected ':'");
				if (ret)
					return ret;
			}
			ret = skip_value(j);
			if (ret)
				return ret;
		} while (eat(j, ','));
		if (!eat(j, close))
			return jerr(j, close == '}' ? "expected '}'" : "expected ']'");
	}
	j->depth--;
	return 0;
}

static int skip_value(struct js *j)
{
	char *s;
	size_t l;

	ws(j);
	if (j->p >= j->end)
		return jerr(j, "unexpected end");
	if (*j->p == '{' || *j->p == '[') {
		char close = *j->p == '{' ? '}' : ']';

		j->p++;
		return skip_container(j, close);
	}
	if (*j->p == '"')
		return jstring(j, &s, &l);
	while (j->p < j->end && (isalnum(*j->p) || *j->p == '-' || *j->p == '+' || *j->p == '.'))
		j->p++;
	return 0;
}

/* A number or a string holding one, as text in buf (NUL-terminated). */
static int numtext(struct js *j, char *buf, size_t cap)
{
	size_t n = 0;
	bool q = eat(j, '"');

	ws(j);
	while (j->p < j->end && (isalnum(*j->p) || *j->p == '-' || *j->p == '+' || *j->p == '.')) {
		if (n + 1 >= cap)
			return jerr(j, "number too long");
		buf[n++] = (char)*j->p++;
	}
	buf[n] = 0;
	if (!n || (q && !eat(j, '"')))
		return jerr(j, "expected a number");
	return 0;
}

static int b64(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

static int jbytes(struct js *j, ProtobufCBinaryData *out)
{
	char *s;
	size_t len, n = 0;
	unsigned acc = 0;
	int bits = 0, ret = jstring(j, &s, &len);

	if (ret)
		return ret;
	out->data = psym_arena_alloc(j->a, len * 3 / 4 + 1);
	if (!out->data)
		return nomem(j);
	for (size_t i = 0; i < len && s[i] != '='; i++) {
		int v = b64((unsigned char)s[i]);

		if (v < 0)
			return jerr(j, "bad base64");
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out->data[n++] = (uint8_t)(acc >> bits);
		}
	}
	out->len = n;
	return 0;
}

static int scalar(struct js *j, const ProtobufCFieldDescriptor *f, void *dst)
{
	char t[64], *end;
	int ret;

	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING: {
		size_t l;

		return jstring(j, (char **)dst, &l);
	}
	case PROTOBUF_C_TYPE_BYTES: return jbytes(j, dst);
	case PROTOBUF_C_TYPE_BOOL:
		ws(j);
		if (j->end - j->p >= 4 && !memcmp(j->p, "true", 4)) {
			*(protobuf_c_boolean *)dst = 1;
			j->p += 4;
		} else if (j->end - j->p >= 5 && !memcmp(j->p, "false", 5)) {
			*(protobuf_c_boolean *)dst = 0;
			j->p += 5;
		} else {
			return jerr(j, "expected true or false");
		}
		return 0;
	default: break;
	}
	ret = numtext(j, t, sizeof(t));
	if (ret)
		return ret;
	errno = 0;
	switch (f->type) {
	case PROTOBUF_C_TYPE_DOUBLE:
	case PROTOBUF_C_TYPE_FLOAT: {
		double d = !strcmp(t, "NaN")	     ? NAN
			   : !strcmp(t, "Infinity")  ? INFINITY
			   : !strcmp(t, "-Infinity") ? -INFINITY
						     : strtod(t, &end);

		if (isfinite(d) && (*end || errno))
			return jerr(j, "bad number");
		if (f->type == PROTOBUF_C_TYPE_FLOAT)
			*(float *)dst = (float)d;
		else
			*(double *)dst = d;
		return 0;
	}
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32: {
		unsigned long long v = strtoull(t, &end, 10);

		if (*end || errno || t[0] == '-' ||
		    (f->type != PROTOBUF_C_TYPE_UINT64 && f->type != PROTOBUF_C_TYPE_FIXED64 &&
		     v > UINT32_MAX))
			return jerr(j, "bad unsigned integer");
		if (f->type == PROTOBUF_C_TYPE_UINT64 || f->type == PROTOBUF_C_TYPE_FIXED64)
			*(uint64_t *)dst = v;
		else
			*(uint32_t *)dst = (uint32_t)v;
		return 0;
	}
	default: {
		long long v = strtoll(t, &end, 10);
		bool is64 = f->type == PROTOBUF_C_TYPE_INT64 || f->type == PROTOBUF_C_TYPE_SINT64 ||
			    f->type == PROTOBUF_C_TYPE_SFIXED64;

		if (*end || errno || (!is64 && (v < INT32_MIN || v > INT32_MAX)))
			return jerr(j, "bad integer");
		if (is64)
			*(int64_t *)dst = v;
		else
			*(int32_t *)dst = (int32_t)v;
		return 0;
	}
	}
}

static size_t elem_size(const ProtobufCFieldDescriptor *f)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE: return 8;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
	default: return 4;
	}
}

static int message(struct js *j, const ProtobufCMessageDescriptor *d, ProtobufCMessage **out);

static int value(struct js *j, const ProtobufCFieldDescriptor *f, void *dst)
{
	if (f->type == PROTOBUF_C_TYPE_MESSAGE)
		return message(j, f->descriptor, dst);
	return scalar(j, f, dst);
}

/* Growable list of one repeated field's elements, copied into the arena at ']'. */
static int repeated(struct js *j, const ProtobufCFieldDescriptor *f, void *msg)
{
	size_t es = elem_size(f), n = 0, cap = 0;
	unsigned char *tmp = NULL, *arr;
	int ret = 0;

	if (!eat(j, '['))
		return jerr(j, "expected '['");
	if (++j->depth > MAX_JSON_DEPTH)
		return jerr(j, "nested too deep");
	if (!eat(j, ']')) {
		do {
			if (n == cap) {
				void *q;

				cap = cap ? cap * 2 : 8;
				q = realloc(tmp, cap * es);
				if (!q) {
					ret = psym_err_set(j->e, PSYM_ENOMEM, "'%s': out of memory",
							   j->name);
					goto out;
				}
				tmp = q;
			}
			memset(tmp + n * es, 0, es);
			ret = value(j, f, tmp + n * es);
			if (ret)
				goto out;
			n++;
		} while (eat(j, ','));
		if (!eat(j, ']')) {
			ret = jerr(j, "expected ']'");
			goto out;
		}
	}
	j->depth--;
	arr = n ? psym_arena_alloc(j->a, n * es) : NULL;
	if (n && !arr) {
		ret = nomem(j);
		goto out;
	}
	if (n)
		memcpy(arr, tmp, n * es);
	*(size_t *)((char *)msg + f->quantifier_offset) = n;
	*(void **)((char *)msg + f->offset) = arr;
out:
	free(tmp);
	return ret;
}

/* key names field f: as in the .proto, or in lowerCamelCase. */
static bool key_is(const char *key, const char *name)
{
	if (!strcmp(key, name))
		return true;
	for (; *name; name++, key++) {
		if (*name == '_' && name[1]) {
			name++;
			if (*key != (*name >= 'a' && *name <= 'z' ? *name - 32 : *name))
				return false;
		} else if (*key != *name) {
			return false;
		}
	}
	return !*key;
}

static int member(struct js *j, const ProtobufCMessageDescriptor *d, ProtobufCMessage *m,
		  const char *key)
{
	const ProtobufCFieldDescriptor *f = NULL;

	for (unsigned i = 0; i < d->n_fields && !f; i++)
		if (key_is(key, d->fields[i].name))
			f = &d->fields[i];
	ws(j);
	if (!f || (j->end - j->p >= 4 && !memcmp(j->p, "null", 4)))
		return skip_value(j);
	if (f->label == PROTOBUF_C_LABEL_REPEATED)
		return repeated(j, f, m);
	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		*(uint32_t *)((char *)m + f->quantifier_offset) = f->id;
	return value(j, f, (char *)m + f->offset);
}

static int message(struct js *j, const ProtobufCMessageDescriptor *d, ProtobufCMessage **out)
{
	ProtobufCMessage *m;
	int ret = 0;

	if (!eat(j, '{'))
		return jerr(j, "expected '{'");
	if (++j->depth > MAX_JSON_DEPTH)
		return jerr(j, "nested too deep");
	m = psym_arena_alloc(j->a, d->sizeof_message);
	if (!m)
		return nomem(j);
	protobuf_c_message_init(d, m);
	if (!eat(j, '}')) {
		do {
			char *key;
			size_t kl;

			ret = jstring(j, &key, &kl);
			if (!ret && kl > MAX_KEY)
				ret = jerr(j, "key too long");
			if (!ret && !eat(j, ':'))
				ret = jerr(j, "expected ':'");
			if (!ret)
				ret = member(j, d, m, key);
			if (ret)
				return ret;
		} while (eat(j, ','));
		if (!eat(j, '}'))
			return jerr(j, "expected '}'");
	}
	j->depth--;
	*out = m;
	return 0;
}

int psym_otlp_json_parse(const unsigned char *buf, size_t len, const char *name,
			 struct psym_otlp *o, struct psym_err *e)
{
	struct js j = { buf, buf, buf + len, &o->arena, name, e, 0 };
	ProtobufCMessage *m;
	int ret;

	ret = message(&j, &opentelemetry__proto__profiles__v1development__profiles_data__descriptor,
		      &m);
	if (ret)
		return ret;
	ws(&j);
	if (j.p != j.end)
		return jerr(&j, "trailing data after the object");
	o->msg = (otlp_data *)m;
	return 0;
}
