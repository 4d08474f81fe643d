/* SPDX-License-Identifier: MIT */
/*
 * OTLP out: the read message written back with the symbolizer's lines
 * (psym_otlp_write), and a pprof profile as OTLP (psym_otlp_from_profile).
 *
 * Write-back changes nothing of the read message: the dictionary is copied
 * shallowly into a scratch arena, its location, function and string tables
 * extended there, and the copy packed; every other field, and every field
 * protobuf-c did not know, is packed as it was read.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "otlp.h"

/* Tables being extended, each a pointer array in the scratch arena. */
struct grow {
	struct psym_arena *a;
	otlp_dict *d;
	struct psym_hashtab strs;  /* string -> index + 1 */
	struct psym_hashtab funcs; /* (name, system, file, start) -> index + 1 */
	size_t cap_str, cap_fn;
	struct psym_err *e;
	const char *name;
};

static int gnomem(struct grow *g)
{
	return psym_err_set(g->e, psym_arena_error(g->a), "'%s': out of memory writing OTLP",
			    g->name);
}

static int push(struct grow *g, void ***arr, size_t *n, size_t *cap, void *v)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void **q = psym_arena_alloc(g->a, nc * sizeof(*q));

		if (!q)
			return gnomem(g);
		if (*n)
			memcpy(q, *arr, *n * sizeof(*q));
		*arr = q;
		*cap = nc;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

static int32_t gstr(struct grow *g, const char *s)
{
	void *v;
	size_t n = g->d->n_string_table;

	if (!s)
		s = "";
	if (!psym_hashtab_get(&g->strs, s, strlen(s), &v))
		return (int32_t)((uintptr_t)v - 1);
	if (n >= INT32_MAX ||
	    push(g, (void ***)&g->d->string_table, &g->d->n_string_table, &g->cap_str, (void *)s))
		return -1;
	if (psym_hashtab_put(&g->strs, s, strlen(s), (void *)(uintptr_t)(n + 1), g->e))
		return -1;
	return (int32_t)n;
}

struct fkey {
	int32_t name, sys, file, pad;
	int64_t start;
};

static int32_t gfunc(struct grow *g, const pb_function *pf, const struct psym_profile *p)
{
	struct fkey k = { 0 };
	otlp_function *f;
	void *v;
	size_t n = g->d->n_function_table;

	k.name = gstr(g, psym_profile_str(p, pf->name));
	k.sys = gstr(g, psym_profile_str(p, pf->system_name));
	k.file = gstr(g, psym_profile_str(p, pf->filename));
	k.start = pf->start_line;
	if (k.name < 0 || k.sys < 0 || k.file < 0)
		return -1;
	if (!psym_hashtab_get(&g->funcs, &k, sizeof(k), &v))
		return (int32_t)((uintptr_t)v - 1);
	f = psym_arena_alloc(g->a, sizeof(*f));
	if (!f) {
		gnomem(g);
		return -1;
	}
	opentelemetry__proto__profiles__v1development__function__init(f);
	f->name_strindex = k.name;
	f->system_name_strindex = k.sys;
	f->filename_strindex = k.file;
	f->start_line = k.start;
	if (n >= INT32_MAX ||
	    push(g, (void ***)&g->d->function_table, &g->d->n_function_table, &g->cap_fn, f))
		return -1;
	{
		struct fkey *kk = psym_arena_alloc(g->a, sizeof(*kk));

		if (!kk) {
			gnomem(g);
			return -1;
		}
		*kk = k;
		if (psym_hashtab_put(&g->funcs, kk, sizeof(*kk), (void *)(uintptr_t)(n + 1), g->e))
			return -1;
	}
	return (int32_t)n;
}

static int grow_init(struct grow *g, const otlp_dict *src)
{
	g->d = psym_arena_alloc(g->a, sizeof(*g->d));
	if (!g->d)
		return gnomem(g);
	*g->d = *src;
	g->cap_str = g->d->n_string_table;
	g->cap_fn = g->d->n_function_table;
	psym_hashtab_init(&g->strs, 0);
	psym_hashtab_init(&g->funcs, 0);
	/* The location table is copied: entries that get lines are replaced. */
	if (src->n_location_table) {
		g->d->location_table =
			psym_arena_alloc(g->a, src->n_location_table * sizeof(otlp_location *));
		if (!g->d->location_table)
			return gnomem(g);
		memcpy(g->d->location_table, src->location_table,
		       src->n_location_table * sizeof(otlp_location *));
	}
	for (size_t i = 0; i < src->n_string_table; i++) {
		const char *s = src->string_table[i];
		void *v;

		if (psym_hashtab_get(&g->strs, s, strlen(s), &v) &&
		    psym_hashtab_put(&g->strs, s, strlen(s), (void *)(uintptr_t)(i + 1), g->e))
			return -1;
	}
	return 0;
}

static const pb_function *find_fn(const struct psym_profile *p, struct psym_hashtab *fx,
				  uint64_t id)
{
	void *v;

	if (psym_hashtab_get(fx, &id, sizeof(id), &v))
		return NULL;
	return p->pb->function[(uintptr_t)v - 1];
}

static int put_lines(struct grow *g, const struct psym_profile *p, struct psym_hashtab *fx)
{
	for (size_t i = 0; i < p->pb->n_location; i++) {
		const pb_location *pl = p->pb->location[i];
		otlp_location *ol, *nl;

		if (!pl->n_line || pl->id == 0 || pl->id >= g->d->n_location_table)
			continue;
		ol = g->d->location_table[pl->id];
		if (ol->n_lines)
			continue; /* named by the profiler: kept as named */
		nl = psym_arena_alloc(g->a, sizeof(*nl));
		if (!nl)
			return gnomem(g);
		*nl = *ol;
		nl->lines = psym_arena_calloc(g->a, pl->n_line, sizeof(*nl->lines));
		if (!nl->lines)
			return gnomem(g);
		for (size_t j = 0; j < pl->n_line; j++) {
			const pb_function *pf = find_fn(p, fx, pl->line[j]->function_id);
			otlp_line *ln = psym_arena_alloc(g->a, sizeof(*ln));
			int32_t fi = pf ? gfunc(g, pf, p) : 0;

			if (!ln)
				return gnomem(g);
			if (fi < 0)
				return g->e && g->e->code ? g->e->code : gnomem(g);
			opentelemetry__proto__profiles__v1development__line__init(ln);
			ln->function_index = fi;
			ln->line = pl->line[j]->line;
			ln->column = pl->line[j]->column;
			nl->lines[j] = ln;
		}
		nl->n_lines = pl->n_line;
		g->d->location_table[pl->id] = nl;
	}
	return 0;
}

int psym_otlp_encode_fp(const struct psym_otlp *o, FILE *fp, const char *name, struct psym_err *e)
{
	size_t n = opentelemetry__proto__profiles__v1development__profiles_data__get_packed_size(
		o->msg);
	uint8_t *buf = malloc(n ? n : 1);
	int ret = 0;

	if (!buf)
		return psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
	if (opentelemetry__proto__profiles__v1development__profiles_data__pack(o->msg, buf) != n)
		ret = psym_err_set(e, PSYM_EINTERNAL, "'%s': OTLP packing length mismatch", name);
	else if (fwrite(buf, 1, n, fp) != n || fflush(fp))
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", name, strerror(errno));
	free(buf);
	return ret;
}

int psym_otlp_write(const struct psym_otlp *o, const struct psym_profile *p, FILE *fp,
		    const char *name, struct psym_err *e)
{
	struct psym_arena a;
	struct grow g = { .a = &a, .e = e, .name = name };
	struct psym_hashtab fx;
	otlp_data m = *o->msg;
	struct psym_otlp out = { .msg = &m };
	int ret;

	psym_arena_init(&a, PSYM_ARENA_DEFAULT_CAP);
	psym_hashtab_init(&fx, 0);
	ret = grow_init(&g, o->msg->dictionary);
	for (size_t i = 0; i < p->pb->n_function && !ret; i++)
		ret = psym_hashtab_put(&fx, &p->pb->function[i]->id, sizeof(uint64_t),
				       (void *)(uintptr_t)(i + 1), e);
	if (!ret)
		ret = put_lines(&g, p, &fx);
	if (!ret) {
		m.dictionary = g.d;
		ret = psym_otlp_encode_fp(&out, fp, name, e);
	}
	psym_hashtab_free(&fx);
	psym_hashtab_free(&g.strs);
	psym_hashtab_free(&g.funcs);
	psym_arena_free(&a);
	return ret;
}
