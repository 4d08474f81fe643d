/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "hashtab.h"
#include "merge.h"

/* A hash key being built: 64-bit words. */
struct key {
	uint64_t *w;
	size_t n, cap;
};

/* Per input profile, by position: the new ids of what it uses. */
struct idmap {
	pb_mapping **mapping; /* in the merged profile; NULL: not yet mapped */
	int64_t *map_off;     /* new start - old start */
	uint64_t *function;
	uint64_t *location;
};

struct merger {
	struct psym_profile *out;
	struct psym_builder *b;
	struct psym_arena keys; /* bytes of the stored hash keys */
	struct psym_hashtab maps, locs, samples;
	pb_location **loc;
	size_t nloc, caploc;
	pb_sample **smp;
	size_t nsmp, capsmp;
	size_t nvalues;
	struct key k;
	struct psym_err *e;
};

static int key_put(struct key *k, uint64_t w)
{
	if (k->n == k->cap) {
		size_t nc = k->cap ? k->cap * 2 : 64;
		uint64_t *nw = realloc(k->w, nc * sizeof(*nw));

		if (!nw)
			return -1;
		k->w = nw;
		k->cap = nc;
	}
	k->w[k->n++] = w;
	return 0;
}

/* The value under the current key, or NULL. */
static void *key_get(struct merger *m, struct psym_hashtab *h)
{
	void *v;

	return psym_hashtab_get(h, m->k.w, m->k.n * sizeof(uint64_t), &v) ? NULL : v;
}

/* Store v under (a copy of) the current key. */
static int key_store(struct merger *m, struct psym_hashtab *h, void *v)
{
	size_t len = m->k.n * sizeof(uint64_t);
	void *copy = psym_arena_alloc(&m->keys, len ? len : 1);

	if (!copy)
		return psym_err_set(m->e, psym_arena_error(&m->keys), "out of memory");
	memcpy(copy, m->k.w, len);
	return psym_hashtab_put(h, copy, len, v, m->e);
}

static int push(struct merger *m, void ***arr, size_t *n, size_t *cap, void *x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		void **na = realloc(*arr, nc * sizeof(*na));

		if (!na)
			return psym_err_set(m->e, PSYM_ENOMEM, "out of memory");
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = x;
	return 0;
}

static int fail(struct merger *m)
{
	int c = psym_builder_error(m->b);

	if (c == PSYM_ELIMIT)
		return psym_err_set(m->e, c, "merged profile too large");
	if (!c && m->e && m->e->msg[0])
		return m->e->code ? m->e->code : PSYM_ENOMEM;
	return psym_err_set(m->e, PSYM_ENOMEM, "out of memory");
}

static int str_word(struct merger *m, const char *s)
{
	int64_t i = psym_builder_str(m->b, s);

	return i < 0 ? -1 : key_put(&m->k, (uint64_t)i);
}

/* pprof's mapMapping: by rounded size, offset and build ID (else file). */
static int map_mapping(struct merger *m, const struct psym_profile *p, struct idmap *im, long pos)
{
	const pb_mapping *src = p->pb->mapping[pos];
	const char *bid = psym_profile_str(p, src->build_id);
	const char *file = psym_profile_str(p, src->filename);
	uint64_t size = src->memory_limit - src->memory_start;
	pb_mapping *nm;

	if (im->mapping[pos])
		return 0;
	size = size + 0xfff < size ? size : (size + 0xfff) & ~(uint64_t)0xfff;
	m->k.n = 0;
	if (key_put(&m->k, size) || key_put(&m->k, src->file_offset) ||
	    str_word(m, *bid ? bid : file))
		return fail(m);
	nm = key_get(m, &m->maps);
	if (nm) {
		im->mapping[pos] = nm;
		im->map_off[pos] = (int64_t)(nm->memory_start - src->memory_start);
		return 0;
	}
	nm = psym_builder_mapping(m->b, src->memory_start, src->memory_limit, src->file_offset,
				  file, bid);
	if (!nm)
		return fail(m);
	nm->has_functions = src->has_functions;
	nm->has_filenames = src->has_filenames;
	nm->has_line_numbers = src->has_line_numbers;
	nm->has_inline_frames = src->has_inline_frames;
	im->mapping[pos] = nm;
	return key_store(m, &m->maps, nm);
}

static uint64_t map_function(struct merger *m, const struct psym_profile *p, struct idmap *im,
			     uint64_t id)
{
	long pos = psym_profile_function_pos(p, id);
	const pb_function *f;

	if (pos < 0)
		return 0;
	if (!im->function[pos]) {
		f = p->pb->function[pos];
		im->function[pos] = psym_builder_function(
			m->b, psym_profile_str(p, f->name), psym_profile_str(p, f->system_name),
			psym_profile_str(p, f->filename), f->start_line);
	}
	return im->function[pos];
}

/* pprof's mapLocation: by mapping, address from the mapping's start, lines. */
static int map_location(struct merger *m, const struct psym_profile *p, struct idmap *im, long pos,
			uint64_t *id)
{
	const pb_location *src = p->pb->location[pos];
	long mpos = src->mapping_id ? psym_profile_mapping_pos(p, src->mapping_id) : -1;
	const pb_mapping *nmap = NULL;
	uint64_t addr = src->address, *fids = NULL;
	pb_location *l;
	int ret;

	if (im->location[pos]) {
		*id = im->location[pos];
		return 0;
	}
	if (mpos >= 0) {
		ret = map_mapping(m, p, im, mpos);
		if (ret)
			return ret;
		addr += (uint64_t)im->map_off[mpos];
		nmap = im->mapping[mpos];
	}
	fids = calloc(src->n_line ? src->n_line : 1, sizeof(*fids));
	if (!fids)
		return psym_err_set(m->e, PSYM_ENOMEM, "out of memory");
	for (size_t j = 0; j < src->n_line; j++)
		if (src->line[j]->function_id &&
		    !(fids[j] = map_function(m, p, im, src->line[j]->function_id)) &&
		    psym_builder_error(m->b)) {
			free(fids);
			return fail(m);
		}
	m->k.n = 0;
	if (key_put(&m->k, nmap ? addr - nmap->memory_start : addr) ||
	    key_put(&m->k, nmap ? nmap->id : 0) || key_put(&m->k, src->is_folded))
		goto oom;
	for (size_t j = 0; j < src->n_line; j++)
		if (key_put(&m->k, fids[j]) || key_put(&m->k, (uint64_t)src->line[j]->line))
			goto oom;
	l = key_get(m, &m->locs);
	if (l) {
		free(fids);
		im->location[pos] = *id = l->id;
		return 0;
	}
	l = psym_arena_alloc(&m->out->arena, sizeof(*l));
	if (!l)
		goto oom;
	perftools__profiles__location__init(l);
	l->id = m->nloc + 1;
	l->mapping_id = nmap ? nmap->id : 0;
	l->address = addr;
	l->is_folded = src->is_folded;
	for (size_t j = 0; j < src->n_line; j++)
		if (psym_builder_add_line(m->b, l, fids[j], src->line[j]->line,
					  src->line[j]->column)) {
			free(fids);
			return fail(m);
		}
	free(fids);
	fids = NULL;
	ret = push(m, (void ***)&m->loc, &m->nloc, &m->caploc, l);
	if (!ret)
		ret = key_store(m, &m->locs, l);
	if (ret)
		return ret;
	im->location[pos] = *id = l->id;
	return 0;
oom:
	free(fids);
	return psym_err_set(m->e, PSYM_ENOMEM, "out of memory");
}

static int cmp_label(const void *a, const void *b, void *ctx)
{
	const pb_label *x = *(pb_label *const *)a, *y = *(pb_label *const *)b;
	const struct psym_profile *p = ctx;
	bool nx = !x->str, ny = !y->str;
	int r;

	if (nx != ny)
		return nx ? 1 : -1;
	r = strcmp(psym_profile_str(p, x->key), psym_profile_str(p, y->key));
	return r ? r : (x < y ? -1 : x > y);
}

/* pprof's mapSample: by locations and labels; values summed (negated for a base). */
static int map_sample(struct merger *m, const struct psym_profile *p, struct idmap *im,
		      const pb_sample *src, enum psym_merge_role role)
{
	bool base = role != PSYM_MERGE_ADD, label = role == PSYM_MERGE_DIFF_BASE;
	uint64_t *ids = calloc(src->n_location_id ? src->n_location_id : 1, sizeof(*ids));
	const pb_label **lab = calloc(src->n_label + 1, sizeof(*lab));
	size_t nl = 0;
	pb_sample *s;
	int ret = 0;

	if (!ids || !lab) {
		ret = psym_err_set(m->e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < src->n_location_id && !ret; i++) {
		long pos = psym_profile_location_pos(p, src->location_id[i]);

		if (pos >= 0)
			ret = map_location(m, p, im, pos, &ids[i]);
	}
	if (ret)
		goto out;
	/* As pprof decodes labels: a string, or a number (zero without unit: none). */
	for (size_t j = 0; j < src->n_label; j++)
		if (src->label[j]->str || src->label[j]->num || src->label[j]->num_unit)
			lab[nl++] = src->label[j];
	if (nl)
		qsort_r(lab, nl, sizeof(*lab), cmp_label, (void *)p);
	m->k.n = 0;
	if (key_put(&m->k, src->n_location_id) || key_put(&m->k, label))
		goto oom;
	for (size_t i = 0; i < src->n_location_id; i++)
		if (key_put(&m->k, ids[i]))
			goto oom;
	for (size_t j = 0; j < nl; j++)
		if (str_word(m, psym_profile_str(p, lab[j]->key)) || key_put(&m->k, !lab[j]->str) ||
		    (lab[j]->str ? str_word(m, psym_profile_str(p, lab[j]->str))
				 : key_put(&m->k, (uint64_t)lab[j]->num) ||
					   str_word(m, psym_profile_str(p, lab[j]->num_unit))))
			goto oom;
	s = key_get(m, &m->samples);
	if (s) {
		for (size_t i = 0; i < m->nvalues && i < src->n_value; i++) {
			int64_t v = base ? -src->value[i] : src->value[i];

			if (__builtin_add_overflow(s->value[i], v, &s->value[i]))
				s->value[i] = v > 0 ? INT64_MAX : INT64_MIN;
		}
		goto out;
	}
	s = psym_arena_alloc(&m->out->arena, sizeof(*s));
	if (!s)
		goto oom;
	perftools__profiles__sample__init(s);
	s->location_id =
		psym_arena_calloc(&m->out->arena, src->n_location_id + 1, sizeof(uint64_t));
	s->value = psym_arena_calloc(&m->out->arena, m->nvalues + 1, sizeof(int64_t));
	if (!s->location_id || !s->value)
		goto oom;
	memcpy(s->location_id, ids, src->n_location_id * sizeof(*ids));
	s->n_location_id = src->n_location_id;
	s->n_value = m->nvalues;
	for (size_t i = 0; i < m->nvalues && i < src->n_value; i++)
		s->value[i] = base ? (src->value[i] == INT64_MIN ? INT64_MAX : -src->value[i])
				   : src->value[i];
	for (size_t j = 0; j < src->n_label; j++) {
		const pb_label *l = src->label[j];
		const char *k = psym_profile_str(p, l->key);

		if (l->str)
			ret = psym_builder_label_str(m->b, s, k, psym_profile_str(p, l->str));
		else if (l->num || l->num_unit)
			ret = psym_builder_label_num(m->b, s, k, l->num,
						     l->num_unit ? psym_profile_str(p, l->num_unit)
								 : NULL);
		if (ret) {
			ret = fail(m);
			goto out;
		}
	}
	if (label && psym_builder_label_str(m->b, s, PSYM_DIFF_BASE_LABEL, "true")) {
		ret = fail(m);
		goto out;
	}
	ret = push(m, (void ***)&m->smp, &m->nsmp, &m->capsmp, s);
	if (!ret)
		ret = key_store(m, &m->samples, s);
	goto out;
oom:
	ret = psym_err_set(m->e, PSYM_ENOMEM, "out of memory");
out:
	free(ids);
	free(lab);
	return ret;
}

static bool same_vt(const struct psym_profile *a, const pb_value_type *x,
		    const struct psym_profile *b, const pb_value_type *y)
{
	const char *xt = x ? psym_profile_str(a, x->type) : "",
		   *xu = x ? psym_profile_str(a, x->unit) : "";
	const char *yt = y ? psym_profile_str(b, y->type) : "",
		   *yu = y ? psym_profile_str(b, y->unit) : "";

	return !strcmp(xt, yt) && !strcmp(xu, yu);
}

static void types_text(const struct psym_profile *p, char *buf, size_t sz)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->pb->n_sample_type && o < sz; i++)
		o += (size_t)snprintf(buf + o, sz - o, "%s%s/%s", i ? " " : "",
				      psym_profile_str(p, p->pb->sample_type[i]->type),
				      psym_profile_str(p, p->pb->sample_type[i]->unit));
}

/* pprof's compatible: b's sample and period types are a's. */
static int compatible(const struct psym_profile *a, const char *an, const struct psym_profile *b,
		      const char *bn, struct psym_err *e)
{
	bool ok = same_vt(a, a->pb->period_type, b, b->pb->period_type) &&
		  b->pb->n_sample_type == a->pb->n_sample_type;
	char x[512], y[512];

	for (size_t j = 0; ok && j < a->pb->n_sample_type; j++)
		ok = same_vt(a, a->pb->sample_type[j], b, b->pb->sample_type[j]);
	if (ok)
		return 0;
	types_text(a, x, sizeof(x));
	types_text(b, y, sizeof(y));
	return psym_err_set(e, PSYM_EBADPROFILE,
			    "'%s': sample or period types (%s) differ from '%s' (%s)", bn, y, an,
			    x);
}

/* pprof's combineHeaders and compatible. */
static int headers(struct merger *m, struct psym_profile *const *in, const char *const *names,
		   size_t n)
{
	const pb_profile *p0 = in[0]->pb;
	pb_profile *o = m->out->pb;
	int64_t t = 0, d = 0, per = 0;
	const char *dst = "";

	for (size_t i = 1; i < n; i++) {
		int ret = compatible(in[0], names[0], in[i], names[i], m->e);

		if (ret)
			return ret;
	}
	for (size_t i = 0; i < n; i++) {
		const pb_profile *pi = in[i]->pb;

		if (t == 0 || pi->time_nanos < t)
			t = pi->time_nanos;
		if (__builtin_add_overflow(d, pi->duration_nanos, &d))
			d = INT64_MAX;
		if (per == 0 || per < pi->period)
			per = pi->period;
		for (size_t c = 0; c < pi->n_comment; c++) {
			const char *txt = psym_profile_str(in[i], pi->comment[c]);
			bool seen = false;

			for (size_t x = 0; x < o->n_comment && !seen; x++)
				seen = !strcmp(psym_profile_str(m->out, o->comment[x]), txt);
			if (!seen && psym_builder_comment(m->b, txt))
				return fail(m);
		}
		if (!*dst)
			dst = psym_profile_str(in[i], pi->default_sample_type);
	}
	for (size_t j = 0; j < p0->n_sample_type; j++)
		if (psym_builder_sample_type(m->b,
					     psym_profile_str(in[0], p0->sample_type[j]->type),
					     psym_profile_str(in[0], p0->sample_type[j]->unit)))
			return fail(m);
	m->nvalues = p0->n_sample_type;
	o->time_nanos = t;
	o->duration_nanos = d;
	o->period = per;
	if (p0->period_type) {
		pb_value_type *pt = psym_arena_alloc(&m->out->arena, sizeof(*pt));
		int64_t ty = psym_builder_str(m->b, psym_profile_str(in[0], p0->period_type->type));
		int64_t un = psym_builder_str(m->b, psym_profile_str(in[0], p0->period_type->unit));

		if (!pt || ty < 0 || un < 0)
			return fail(m);
		perftools__profiles__value_type__init(pt);
		pt->type = ty;
		pt->unit = un;
		o->period_type = pt;
	}
	if (*dst) {
		int64_t ds = psym_builder_str(m->b, dst);

		if (ds < 0)
			return fail(m);
		o->default_sample_type = ds;
	}
	return 0;
}

static bool zero_sample(const pb_sample *s)
{
	for (size_t i = 0; i < s->n_value; i++)
		if (s->value[i])
			return false;
	return true;
}

int psym_profile_merge(struct psym_profile *const *in, const char *const *names,
		       const enum psym_merge_role *role, size_t n, const struct psym_limits *lim,
		       struct psym_profile **out, struct psym_err *e)
{
	struct merger m = { .e = e };
	struct idmap *im = NULL;
	int ret;

	*out = NULL;
	if (!n)
		return psym_err_set(e, PSYM_EUSAGE, "no profiles to merge");
	psym_arena_init(&m.keys, 0);
	psym_hashtab_init(&m.maps, 0);
	psym_hashtab_init(&m.locs, 0);
	psym_hashtab_init(&m.samples, 0);
	ret = psym_profile_new(lim, &m.out, e);
	if (!ret)
		ret = psym_builder_new(m.out, &m.b, e);
	if (!ret)
		ret = headers(&m, in, names, n);
	im = calloc(n, sizeof(*im));
	if (!ret && !im)
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i < n; i++) {
		const pb_profile *pi = in[i]->pb;

		im[i].mapping = calloc(pi->n_mapping + 1, sizeof(*im[i].mapping));
		im[i].map_off = calloc(pi->n_mapping + 1, sizeof(int64_t));
		im[i].function = calloc(pi->n_function + 1, sizeof(uint64_t));
		im[i].location = calloc(pi->n_location + 1, sizeof(uint64_t));
		if (!im[i].mapping || !im[i].map_off || !im[i].function || !im[i].location) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			break;
		}
		/* The first mapping seen is the main binary's: it stays first. */
		if (!m.out->pb->n_mapping && pi->n_mapping)
			ret = map_mapping(&m, in[i], &im[i], 0);
		for (size_t s = 0; !ret && s < pi->n_sample; s++)
			if (!zero_sample(pi->sample[s]))
				ret = map_sample(&m, in[i], &im[i], pi->sample[s],
						 role ? role[i] : PSYM_MERGE_ADD);
		if (ret && ret != PSYM_ENOMEM && ret != PSYM_ELIMIT)
			psym_err_prefix(e, "'%s'", names[i]);
	}
	if (!ret) {
		/* Samples whose values summed to zero go, as pprof re-merges them away. */
		size_t w = 0;
		pb_profile *o = m.out->pb;

		for (size_t s = 0; s < m.nsmp; s++)
			if (!zero_sample(m.smp[s]))
				m.smp[w++] = m.smp[s];
		m.nsmp = w;
		o->location = psym_arena_calloc(&m.out->arena, m.nloc + 1, sizeof(*o->location));
		o->sample = psym_arena_calloc(&m.out->arena, m.nsmp + 1, sizeof(*o->sample));
		if (!o->location || !o->sample) {
			ret = psym_err_set(e, psym_arena_error(&m.out->arena), "out of memory");
		} else {
			/* m.loc / m.smp are NULL when nothing was kept (memcpy wants non-NULL). */
			if (m.nloc)
				memcpy(o->location, m.loc, m.nloc * sizeof(*m.loc));
			o->n_location = m.nloc;
			if (m.nsmp)
				memcpy(o->sample, m.smp, m.nsmp * sizeof(*m.smp));
			o->n_sample = m.nsmp;
			ret = psym_profile_index(m.out, e);
		}
	}
	for (size_t i = 0; im && i < n; i++) {
		free(im[i].mapping);
		free(im[i].map_off);
		free(im[i].function);
		free(im[i].location);
	}
	free(im);
	free(m.k.w);
	free(m.loc);
	free(m.smp);
	psym_hashtab_free(&m.maps);
	psym_hashtab_free(&m.locs);
	psym_hashtab_free(&m.samples);
	psym_arena_free(&m.keys);
	psym_builder_free(m.b);
	if (ret) {
		psym_profile_free(m.out);
		return ret;
	}
	*out = m.out;
	return 0;
}

int psym_profile_normalize(struct psym_profile *p, const char *name,
			   const struct psym_profile *base, const char *base_name,
			   struct psym_err *e)
{
	pb_profile *pb = p->pb;
	size_t nt = pb->n_sample_type, w = 0;
	uint64_t *sums = calloc(2 * nt + 1, sizeof(*sums));
	double *ratio = calloc(nt + 1, sizeof(*ratio));
	bool ones = true;
	int ret = compatible(p, name, base, base_name, e);

	if (!ret && (!sums || !ratio))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (ret)
		goto out;
	/* pprof sums in int64, wrapping; unsigned sums wrap the same. */
	for (size_t s = 0; s < base->pb->n_sample; s++)
		for (size_t i = 0; i < nt && i < base->pb->sample[s]->n_value; i++)
			sums[i] += (uint64_t)base->pb->sample[s]->value[i];
	for (size_t s = 0; s < pb->n_sample; s++)
		for (size_t i = 0; i < nt && i < pb->sample[s]->n_value; i++)
			sums[nt + i] += (uint64_t)pb->sample[s]->value[i];
	for (size_t i = 0; i < nt; i++) {
		int64_t src = (int64_t)sums[nt + i];

		ratio[i] = src ? (double)(int64_t)sums[i] / (double)src : 0.0;
		ones = ones && ratio[i] == 1;
	}
	if (ones)
		goto out; /* pprof's ScaleN changes nothing, drops nothing */
	/* pprof's ScaleN: round half away from zero; a sample goes when every
	   scaled value is 0 (values of ratio 1 are neither scaled nor asked). */
	for (size_t s = 0; s < pb->n_sample; s++) {
		pb_sample *smp = pb->sample[s];
		bool keep = false;

		for (size_t i = 0; i < nt && i < smp->n_value; i++) {
			double v;

			if (ratio[i] == 1)
				continue;
			v = round((double)smp->value[i] * ratio[i]);
			smp->value[i] = v >= 0x1p63   ? INT64_MAX
					: v < -0x1p63 ? INT64_MIN
						      : (int64_t)v;
			keep = keep || smp->value[i] != 0;
		}
		if (keep)
			pb->sample[w++] = smp;
	}
	pb->n_sample = w;
out:
	free(sums);
	free(ratio);
	return ret;
}
