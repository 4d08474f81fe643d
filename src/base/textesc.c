/* SPDX-License-Identifier: MIT */
/* Escaping of text from input on its way out (see textesc.h). */
#include "config.h"

#include <stdint.h>

#include "textesc.h"

static inline bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

bool psym_text_needs_escape(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n; i++)
		if (is_control(u[i]))
			return true;
	return false;
}

/* The text escape of control character c in out[5]; its length. */
static size_t text_escape_one(unsigned char c, char *out)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	switch (c) {
	case '\n': out[1] = 'n'; return 2;
	case '\r': out[1] = 'r'; return 2;
	case '\t': out[1] = 't'; return 2;
	default:
		out[1] = 'x';
		out[2] = hex[c >> 4];
		out[3] = hex[c & 15];
		return 4;
	}
}

void psym_text_escape(const char *s, size_t n, psym_put_fn put, void *ud)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0; /* start of the bytes not yet put */

	for (size_t i = 0; i < n; i++) {
		char esc[5];

		if (!is_control(u[i]))
			continue;
		if (i > run)
			put(ud, s + run, i - run);
		put(ud, esc, text_escape_one(u[i], esc));
		run = i + 1;
	}
	if (n > run)
		put(ud, s + run, n - run);
}

static void put_file(void *ud, const char *s, size_t n)
{
	fwrite(s, 1, n, ud);
}

void psym_text_write(FILE *out, const char *s, size_t n)
{
	if (!psym_text_needs_escape(s, n))
		fwrite(s, 1, n, out);
	else
		psym_text_escape(s, n, put_file, out);
}

size_t psym_text_escape_buf(char *buf, size_t sz, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;

	if (!sz)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char esc[5];
		const char *src = s + i;
		size_t l = 1;

		if (is_control(u[i])) {
			l = text_escape_one(u[i], esc);
			src = esc;
		}
		if (l >= sz - o)
			break;
		memcpy(buf + o, src, l);
		o += l;
	}
	buf[o] = '\0';
	return o;
}
