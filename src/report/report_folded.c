/* SPDX-License-Identifier: MIT */
/* psym folded: the merged stacks as "a;b;c VALUE" lines. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/*
 * Millions of frames: each name is laid out once, followed by its ';', in
 * one text with room to spare after it, so a short name is one fixed-size
 * copy; lines are built in a large buffer written when full.
 */
#define OUT_BUF (1 << 20)
#define SHORT 16 /* names (with ';') this short are copied SHORT bytes at once */

struct folded_out {
	char *b;
	size_t n;
	FILE *out;
};

static void flush_out(struct folded_out *fo)
{
	if (fo->n)
		fwrite(fo->b, 1, fo->n, fo->out);
	fo->n = 0;
}

/* Room for n more bytes; false: n does not fit even in an empty buffer. */
static bool room(struct folded_out *fo, size_t n)
{
	if (fo->n + n > OUT_BUF)
		flush_out(fo);
	return n <= OUT_BUF;
}

static void put(struct folded_out *fo, const char *s, size_t n)
{
	if (room(fo, n)) {
		memcpy(fo->b + fo->n, s, n);
		fo->n += n;
	} else {
		fwrite(s, 1, n, fo->out);
	}
}

/* " VALUE\n" */
static void put_value(struct folded_out *fo, int64_t v)
{
	char t[24];
	size_t k = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	room(fo, 24);
	do {
		t[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	fo->b[fo->n++] = ' ';
	if (v < 0)
		fo->b[fo->n++] = '-';
	while (k)
		fo->b[fo->n++] = t[--k];
	fo->b[fo->n++] = '\n';
}

/*
 * The names as one text, each followed by ';' (its ';' and newlines
 * replaced: they separate frames and stacks), SHORT spare bytes at the end.
 */
static char *name_text(const struct names *t, size_t **off)
{
	size_t sz = SHORT;
	char *txt;

	*off = malloc((t->n + 1) * sizeof(**off));
	if (!*off)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		(*off)[i] = sz - SHORT;
		sz += strlen(t->s[i]) + 1;
	}
	(*off)[t->n] = sz - SHORT;
	txt = calloc(sz, 1);
	if (!txt) {
		free(*off);
		*off = NULL;
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++) {
		char *d = txt + (*off)[i];

		for (const char *c = t->s[i]; *c; c++)
			*d++ = *c == ';' ? ':' : *c == '\n' ? ' ' : *c;
		*d = ';';
	}
	return txt;
}

int psym_report_folded(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		       struct psym_err *e)
{
	struct psym_rpt_stacks st = { 0 };
	struct folded_out fo = { malloc(OUT_BUF), 0, out };
	size_t *off = NULL;
	char *txt = NULL;
	int ret;

	st.no_inl = true; /* folded lines do not mark inline frames */
	ret = psym_rpt_stacks_collect(p, o, &st, e);

	if (!ret)
		ret = psym_rpt_stacks_merge(&st, e);
	if (!ret && (!fo.b || !(txt = name_text(&st.r.names, &off))))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i < st.n && !ferror(out); i++) {
		const uint32_t *ids = st.ids + st.s[i].off;

		if (st.diff && st.s[i].d == 0)
			continue; /* no change */
		for (size_t k = 0; k < st.s[i].n; k++) {
			size_t at = off[ids[k]], len = off[ids[k] + 1] - at;

			if (len <= SHORT && room(&fo, SHORT)) {
				memcpy(fo.b + fo.n, txt + at, SHORT);
				fo.n += len;
			} else {
				/* Its ';' in the buffer, even after a name too long for it. */
				put(&fo, txt + at, len - 1);
				put(&fo, ";", 1);
			}
		}
		/* The last frame's ';' becomes the space before the value. */
		if (st.s[i].n)
			fo.n--;
		put_value(&fo, st.s[i].d);
	}
	if (!ret)
		flush_out(&fo);
	free(fo.b);
	free(off);
	free(txt);
	psym_rpt_stacks_free(&st);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
