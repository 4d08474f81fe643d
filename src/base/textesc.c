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

/*
 * The length of the valid UTF-8 sequence at s[0..n), or 0; when 0, *bad
 * is the length of its maximal valid prefix (at least 1), which is one
 * U+FFFD (Unicode's "substitution of maximal subparts", as LLVM does).
 */
size_t psym_utf8_len(const unsigned char *s, size_t n, size_t *bad)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	*bad = 1;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* The second byte's range excludes overlongs, surrogates and > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++) {
		if (i >= n || s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf)) {
			*bad = i;
			return 0;
		}
	}
	return len;
}

void psym_json_escape(const char *s, psym_put_fn put, void *ud)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), run = 0;

	put(ud, "\"", 1);
	for (size_t i = 0; i < n;) {
		char esc[8];
		const char *rep = esc;
		size_t l, bad = 1, rl = 2;

		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '"' && u[i] != '\\') {
			i++;
			continue;
		}
		if (u[i] >= 0x80 && (l = psym_utf8_len(u + i, n - i, &bad))) {
			i += l;
			continue;
		}
		esc[0] = '\\';
		switch (u[i]) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			if (u[i] >= 0x80) {
				rep = "\xef\xbf\xbd"; /* U+FFFD */
				rl = 3;
			} else {
				rl = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", u[i]);
			}
		}
		if (i > run)
			put(ud, s + run, i - run);
		put(ud, rep, rl);
		i += u[i] >= 0x80 ? bad : 1;
		run = i;
	}
	if (n > run)
		put(ud, s + run, n - run);
	put(ud, "\"", 1);
}

void psym_json_string(FILE *out, const char *s)
{
	psym_json_escape(s, put_file, out);
}

void psym_text_puts(FILE *out, const char *s)
{
	psym_text_write(out, s, strlen(s));
}
