/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: appending to a --results file that holds anything (the
 * lines of earlier runs, a partial line of a killed one, NULs, bytes that
 * are not UTF-8), with paths and messages of any bytes. Input: one byte n,
 * then the old file's first n * 8 bytes (at most the rest), then the
 * strings input, output, error and note, separated by NULs.
 *
 * Checked: the old bytes stay as they were; a newline follows them when
 * they did not end with one; then exactly one line, a JSON object whose
 * strings are valid UTF-8 with nothing below 0x20 unescaped.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"

struct js {
	const unsigned char *p, *end;
};

static void ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t'))
		j->p++;
}

static int lit(struct js *j, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n))
		return -1;
	j->p += n;
	return 0;
}

/* One UTF-8 sequence at p (its length), or 0 when it is not one. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
	size_t n = p[0] < 0x80		   ? 1
		   : (p[0] & 0xE0) == 0xC0 ? 2
		   : (p[0] & 0xF0) == 0xE0 ? 3
		   : (p[0] & 0xF8) == 0xF0 ? 4
					   : 0;
	uint32_t c;

	if (!n || (size_t)(end - p) < n)
		return 0;
	c = n == 1 ? p[0] : n == 2 ? p[0] & 0x1F : n == 3 ? p[0] & 0x0F : p[0] & 0x07;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3F);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	return n;
}

static int str(struct js *j)
{
	if (lit(j, "\""))
		return -1;
	while (j->p < j->end && *j->p != '"') {
		size_t n;

		if (*j->p < 0x20)
			return -1;
		if (*j->p == '\\') {
			j->p++;
			if (j->p >= j->end)
				return -1;
			if (*j->p == 'u') {
				if (j->end - j->p < 5)
					return -1;
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
						return -1;
				j->p += 5;
			} else if (*j->p && strchr("\"\\/bfnrt", *j->p)) {
				j->p++;
			} else {
				return -1;
			}
			continue;
		}
		n = utf8_seq(j->p, j->end);
		if (!n)
			return -1;
		j->p += n;
	}
	return lit(j, "\"");
}

static int num(struct js *j)
{
	const unsigned char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '.'))
		j->p++;
	return j->p > s ? 0 : -1;
}

/* A flat object of string, number, true, false and null values. */
static int object(struct js *j)
{
	if (lit(j, "{"))
		return -1;
	for (bool first = true;; first = false) {
		ws(j);
		if (j->p < j->end && *j->p == '}' && first)
			break;
		if (str(j))
			return -1;
		ws(j);
		if (lit(j, ":"))
			return -1;
		ws(j);
		if (j->p >= j->end)
			return -1;
		if (*j->p == '"'   ? str(j)
		    : *j->p == 't' ? lit(j, "true")
		    : *j->p == 'f' ? lit(j, "false")
		    : *j->p == 'n' ? lit(j, "null")
				   : num(j))
			return -1;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		break;
	}
	return lit(j, "}");
}

static const char *piece(const uint8_t **p, const uint8_t *end, char **own)
{
	const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
	size_t n = z ? (size_t)(z - *p) : (size_t)(end - *p);

	*own = malloc(n + 1);
	if (!*own)
		abort();
	memcpy(*own, *p, n);
	(*own)[n] = '\0';
	*p += z ? n + 1 : n;
	return *own;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/psym-results-fuzz-XXXXXX";
	const uint8_t *p = data, *end = data + size;
	struct psym_result_line r = { .line = 7, .status = PSYM_RESULT_FAILED };
	struct psym_err e = { 0 };
	char *own[4] = { 0 };
	unsigned char *back;
	size_t old, len, at;
	struct js j;
	FILE *f;
	int fd;

	if (!size)
		return 0;
	old = (size_t)data[0] * 8;
	p++;
	if (old > (size_t)(end - p))
		old = (size_t)(end - p);
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, p, old) != (ssize_t)old) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	p += old;
	r.input = piece(&p, end, &own[0]);
	r.output = piece(&p, end, &own[1]);
	r.error = piece(&p, end, &own[2]);
	r.note = p < end ? piece(&p, end, &own[3]) : NULL;
	fd = psym_results_open(path, &e);
	if (fd < 0)
		abort();
	if (psym_results_write(fd, &r, &e))
		abort();
	close(fd);
	f = fopen(path, "rb");
	if (!f)
		abort();
	/* each byte of a string is at most 6 in JSON (\u00XX), plus the fields */
	back = malloc(old + 6 * size + 4097);
	if (!back)
		abort();
	len = fread(back, 1, old + 6 * size + 4097, f);
	fclose(f);
	unlink(path);
	/* the old bytes, as they were */
	if (len < old || memcmp(back, data + 1, old))
		abort();
	at = old;
	if (old && back[old - 1] != '\n') {
		if (at >= len || back[at] != '\n')
			abort(); /* appended after a partial line */
		at++;
	}
	/* one line, one object */
	if (len == at || back[len - 1] != '\n' || memchr(back + at, '\n', len - at - 1))
		abort();
	j = (struct js){ back + at, back + len - 1 };
	if (object(&j) || j.p != j.end)
		abort();
	free(back);
	for (int i = 0; i < 4; i++)
		free(own[i]);
	return 0;
}
