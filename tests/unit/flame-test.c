/* SPDX-License-Identifier: MIT */
/*
 * The flame graph's layout (psym_flame_layout), for a profile built here
 * with a known call tree:
 *
 *   main -> a -> b   3 samples
 *   main -> a -> c   1
 *   main -> d        2
 *   main -> a        0 (a stack ending in a, value 0: no frame of its own)
 *
 * Checked on the layout's frames: root at depth 0 spanning everything;
 * children sorted by name left to right; each frame's width its share of
 * the total; children inside their parent; an inline frame (one location
 * with two lines) as two stacked frames. Then on the SVG drawn from it: a
 * name with XML specials escaped, values in the unit's scale.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "pprof.h"
#include "report.h"
#include "tap.h"

struct fr {
	char name[64];
	double x, w;
	int d;
};

/* The layout's frames, as shares of the total. */
static size_t frames(const struct psym_flame *fl, struct fr *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < fl->n && n < max; i++, n++) {
		snprintf(out[n].name, sizeof(out[n].name), "%s", fl->frame[i].name);
		out[n].x = (double)fl->frame[i].x / (double)fl->total;
		out[n].w = (double)fl->frame[i].value / (double)fl->total;
		out[n].d = (int)fl->frame[i].depth;
	}
	return n;
}

/* 1: the frame of this name is marked inline, 0: not, -1: no such frame. */
static int inline_of(const struct psym_flame *fl, const char *name)
{
	for (size_t i = 0; i < fl->n; i++)
		if (!strcmp(fl->frame[i].name, name))
			return fl->frame[i].inl;
	return -1;
}

static const struct fr *find(const struct fr *f, size_t n, const char *name, int d)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name) && f[i].d == d)
			return &f[i];
	return NULL;
}

static uint64_t loc(struct psym_builder *b, struct psym_profile *p, uint64_t addr, const char *fn,
		    const char *inl)
{
	uint64_t id = psym_builder_location(b, 1, addr);
	pb_location *l = p->pb->location[p->pb->n_location - 1]; /* the new one */

	if (inl) /* innermost first, as pprof orders Location.line */
		psym_builder_add_line(b, l, psym_builder_function(b, inl, inl, "x.c", 1), 7, 0);
	psym_builder_add_line(b, l, psym_builder_function(b, fn, fn, "x.c", 1), 9, 0);
	return id;
}

static void near(double got, double want, const char *what)
{
	ok(fabs(got - want) < 1e-6, "%s: %.6f (want %.6f)", what, got, want);
}

/* Whether s is well-formed UTF-8. */
static bool utf8_valid(const char *s)
{
	const unsigned char *c = (const unsigned char *)s;

	while (*c) {
		size_t n = *c < 0x80 ? 1 : *c >= 0xf0 ? 4 : *c >= 0xe0 ? 3 : *c >= 0xc2 ? 2 : 0;

		if (!n || *c > 0xf4)
			return false;
		for (size_t i = 1; i < n; i++)
			if ((c[i] & 0xc0) != 0x80)
				return false;
		c += n;
	}
	return true;
}

/* The kind of the frame of this name, or -1. */
static int kind_of(const struct psym_flame *fl, const char *name)
{
	for (size_t i = 0; i < fl->n; i++)
		if (!strcmp(fl->frame[i].name, name))
			return (int)fl->frame[i].kind;
	return -1;
}

/*
 * Each kind of frame from what the profile says of it: its mapping (the
 * kernel, a module, anonymous memory, a perf map's), its name (JS:), its
 * inline mark, no lines. Then names that are not UTF-8, or cut in a narrow
 * frame, still make a well-formed SVG.
 */
static void kinds(void)
{
	static const struct {
		const char *map, *fn, *inl;
		enum psym_flame_kind want, want_inl;
	} k[] = {
		{ "/bin/x", "main", "inl", PSYM_FLAME_USER, PSYM_FLAME_INLINED },
		{ "/bin/node", "JS:*f", NULL, PSYM_FLAME_JIT },
		{ "//anon", "janon", NULL, PSYM_FLAME_JIT },
		{ "/tmp/perf-77.map", "jperf", NULL, PSYM_FLAME_JIT },
		{ "/usr/lib/libz.so.1", NULL, NULL, PSYM_FLAME_UNKNOWN },
		{ "/lib/modules/6.1/kernel/fs/ext4/ext4.ko", "ext4_fn", NULL, PSYM_FLAME_KERNEL },
		{ "[kernel.kallsyms]", "kfn", "kinl", PSYM_FLAME_KERNEL, PSYM_FLAME_KERNEL },
	};
	const size_t nk = sizeof(k) / sizeof(k[0]);
	struct psym_limits lim = { 0 };
	struct psym_profile *p = NULL;
	struct psym_builder *b = NULL;
	struct psym_err e = { 0 };
	struct psym_report_opts o = { .sample_index = -1 };
	struct psym_flame *fl = NULL;
	uint64_t stack[16], other[2];
	char long_name[700] = "", *svg = NULL;
	int64_t v9 = 9, v1 = 1;
	size_t svglen = 0;
	FILE *out;

	if (psym_profile_new(&lim, &p, &e) || psym_builder_new(p, &b, &e)) {
		printf("not ok - kinds setup: %s\n", e.msg);
		return;
	}
	psym_builder_sample_type(b, "cpu", "nanoseconds");
	for (size_t i = 0; i < nk; i++) {
		uint64_t lo = i + 1 == nk ? 0xffffffff81000000 : 0x1000000 * (i + 1);
		pb_mapping *m = psym_builder_mapping(b, lo, lo + 0x100000, 0, k[i].map, "");
		uint64_t id = psym_builder_location(b, m->id, lo + 0x10);
		pb_location *l = p->pb->location[p->pb->n_location - 1];

		if (k[i].inl)
			psym_builder_add_line(
				b, l, psym_builder_function(b, k[i].inl, k[i].inl, "x.c", 1), 7, 0);
		if (k[i].fn)
			psym_builder_add_line(
				b, l, psym_builder_function(b, k[i].fn, k[i].fn, "x.c", 1), 9, 0);
		stack[nk - 1 - i] = id; /* leaf first: the kernel */
	}
	psym_builder_sample(b, stack, nk, &v9, 1);
	/* A narrow frame whose name is not UTF-8, then one of 300 two-byte characters. */
	for (size_t i = 0; i < 300; i++)
		strcat(long_name, "\xc3\xa9");
	other[1] = loc(b, p, 0x400100, "bad\xff\xc3(", NULL);
	other[0] = loc(b, p, 0x400200, long_name, NULL);
	psym_builder_sample(b, other, 2, &v1, 1);
	is_int(psym_profile_index(p, &e), 0, "kinds: profile indexed");
	is_int(psym_flame_layout(p, &o, &fl, &e), 0, "kinds: laid out");
	for (size_t i = 0; fl && i < nk; i++) {
		const char *base = strrchr(k[i].map, '/');
		char unknown[64];

		snprintf(unknown, sizeof(unknown), "[%s]", base ? base + 1 : k[i].map);
		is_int(kind_of(fl, k[i].fn ? k[i].fn : unknown), k[i].want, "kind of %s in %s",
		       k[i].fn ? k[i].fn : unknown, k[i].map);
		if (k[i].inl)
			is_int(kind_of(fl, k[i].inl), k[i].want_inl, "kind of %s inlined in %s",
			       k[i].inl, k[i].map);
	}
	out = open_memstream(&svg, &svglen);
	is_int(fl ? psym_flame_write_svg(fl, "t", out, &e) : -1, 0, "kinds: SVG written");
	fclose(out);
	ok(svg && utf8_valid(svg), "the SVG is well-formed UTF-8");
	ok(svg && strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbd("),
	   "bytes that are not UTF-8 drawn as U+FFFD");
	/* A tenth of 1,180 pixels: (118 - 6) / 7.2 characters fit, 13 and "..". */
	ok(svg && strstr(svg, ">\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
			      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9..</text>"),
	   "a long name cut to its frame's width between characters, with \"..\"");
	free(svg);
	psym_flame_free(fl);
	psym_builder_free(b);
	psym_profile_free(p);
}

int main(void)
{
	struct psym_limits lim = { 0 };
	struct psym_profile *p = NULL;
	struct psym_builder *b = NULL;
	struct psym_err e = { 0 };
	struct psym_report_opts o = { .sample_index = -1 };
	struct fr f[64];
	char *svg = NULL;
	size_t svglen = 0, n;
	FILE *out;
	struct psym_flame *fl = NULL;
	const struct fr *m, *a, *bb, *c, *d, *x, *y;

	if (psym_profile_new(&lim, &p, &e) || psym_builder_new(p, &b, &e)) {
		printf("not ok 1 - setup: %s\n", e.msg);
		return 1;
	}
	psym_builder_sample_type(b, "cpu", "nanoseconds");
	psym_builder_mapping(b, 0x400000, 0x500000, 0, "/bin/x", "");
	{
		uint64_t lm = loc(b, p, 0x400010, "main", NULL);
		uint64_t la = loc(b, p, 0x400020, "a", NULL);
		uint64_t lb = loc(b, p, 0x400030, "b", NULL);
		uint64_t lc = loc(b, p, 0x400040, "c", NULL);
		uint64_t ld = loc(b, p, 0x400050, "d", NULL);
		uint64_t li = loc(b, p, 0x400060, "<outer&>", "inner\"q");
		uint64_t s1[] = { lb, la, lm }, s2[] = { lc, la, lm }, s3[] = { ld, lm },
			 s4[] = { la, lm }, s5[] = { li };
		int64_t v3 = 3000000, v1 = 1000000, v2 = 2000000, v0 = 0, v4 = 4000000;

		psym_builder_sample(b, s1, 3, &v3, 1);
		psym_builder_sample(b, s2, 3, &v1, 1);
		psym_builder_sample(b, s3, 2, &v2, 1);
		psym_builder_sample(b, s4, 2, &v0, 1);
		psym_builder_sample(b, s5, 1, &v4, 1);
	}
	is_int(p->pb->n_sample, 5, "profile built: five samples");
	is_int(psym_profile_index(p, &e), 0, "profile indexed");
	is_int(psym_flame_layout(p, &o, &fl, &e), 0, "flame laid out");
	if (!fl)
		return tap_done();
	n = frames(fl, f, 64);
	is_int(fl->total, 10000000, "total: every sample's value");
	is_int(fl->maxdepth, 3, "deepest stack: main a b");
	is_int(fl->omitted, 0, "no frame too narrow");
	is_int(n, 7, "seven frames (main a b c d, and the inline pair)");

	m = find(f, n, "main", 0);
	a = find(f, n, "a", 1);
	bb = find(f, n, "b", 2);
	c = find(f, n, "c", 2);
	d = find(f, n, "d", 1);
	x = find(f, n, "<outer&>", 0);
	y = find(f, n, "inner\"q", 1);
	ok(m && a && bb && c && d, "main, a, b, c, d at their depths");
	ok(x && y, "the inline pair: caller at depth 0, inlined callee above it");
	ok(inline_of(fl, "inner\"q") == 1 && inline_of(fl, "<outer&>") == 0,
	   "the inlined frame is marked inline, its caller is not");
	ok(inline_of(fl, "main") == 0 && inline_of(fl, "b") == 0, "other frames are not inline");
	if (!(m && a && bb && c && d && x && y)) {
		psym_flame_free(fl);
		return tap_done();
	}
	/* Total 10 ms: main 6, the inline root 4. Roots sorted by name: '<' < 'm'. */
	near(x->x, 0.0, "inline root first (sorted by name)");
	near(x->w, 0.4, "inline root width");
	near(y->x, x->x, "inlined frame starts with its caller");
	near(y->w, x->w, "inlined frame as wide as its caller");
	near(m->x, 0.4, "main after it");
	near(m->w, 0.6, "main width");
	near(a->x, m->x, "a starts where main does");
	near(a->w, 0.4, "a: 3 + 1 (+ 0)");
	near(bb->x, a->x, "b first inside a");
	near(bb->w, 0.3, "b width");
	near(c->x, bb->x + bb->w, "c right after b");
	near(c->w, 0.1, "c width");
	near(d->x, a->x + a->w, "d right after a");
	near(d->w, 0.2, "d width");
	ok(d->x + d->w <= m->x + m->w + 1e-9, "children inside their parent");
	out = open_memstream(&svg, &svglen);
	is_int(psym_flame_write_svg(fl, "t", out, &e), 0, "SVG written from the layout");
	fclose(out);
	ok(strstr(svg, "<title>b (3ms, 30.00%)</title>") != NULL,
	   "values in the unit's scale (3ms for b)");
	ok(strstr(svg, "&lt;outer&amp;&gt;") && strstr(svg, "inner&quot;q"), "names escaped");
	ok(!strstr(svg, "<outer&>"), "no raw special characters");
	free(svg);
	psym_flame_free(fl);
	psym_builder_free(b);
	psym_profile_free(p);
	kinds();
	return tap_done();
}
