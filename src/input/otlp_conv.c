/* SPDX-License-Identifier: MIT */
/*
 * OTLP profiles into one pprof profile (the message has been checked by
 * psym_otlp_check: every index is inside its table).
 *
 * - Sample types: one per distinct (type, unit) over all profiles, in the
 *   order met; a sample's value goes to its profile's type, the others 0.
 *   pprof's merge refuses profiles of different types; a union keeps them
 *   all, and `go tool pprof` merges samples of equal stacks and labels.
 * - A sample of n points (values with their timestamps) becomes n pprof
 *   samples, each with its timestamp as the numeric label "timestamp"
 *   (unit "nanoseconds"); timestamps without values count 1 each.
 * - Comments: the first profile's "pprof.comment" attributes (as
 *   psym_otlp_from_profile writes pprof's comments).
 * - Labels: the resource's, the profile's and the sample's attributes
 *   (strings, integers; booleans and doubles as text); arrays, lists and
 *   bytes are left to the OTLP write-back.
 * - Mappings keep their table position as id; build IDs from the
 *   process.executable.build_id.gnu attribute (else .go's; else the
 *   .htlhash one as "htlhash:HEX", checked by the locator: htlhash.h).
 * - Location i of the dictionary is pprof location i: its lines (frames
 *   the profiler named) are kept as they are; native frames have none,
 *   for the symbolizer.
 */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "buildid.h"
#include "htlhash.h"
#include "otlp.h"

#define BUILD_ID_GNU "process.executable.build_id.gnu"
#define BUILD_ID_GO "process.executable.build_id.go"
#define BUILD_ID_HTLHASH "process.executable.build_id.htlhash"
#define PPROF_COMMENT "pprof.comment"
/* Caps on what a small file may expand to: points share labels, but not frames. */
#define MAX_REFS ((size_t)1 << 28)
#define MAX_TYPES 1024

struct conv {
	const otlp_dict *d;
	struct psym_profile *p;
	struct psym_builder *b;
	const char *name;
	struct psym_err *e;
	uint64_t *fn;	     /* OTLP function index -> pprof function id */
	size_t ntypes;	     /* distinct sample types */
	int32_t (*types)[2]; /* their (type, unit) string indexes */
	struct psym_builder_label *lab;
	size_t nlab, caplab;
	int64_t *vals;
	uint64_t *locs;
	size_t refs; /* labels and frames of the pprof samples made */
};

static const char *dstr(const otlp_dict *d, int32_t ix)
{
	if (ix <= 0 || (size_t)ix >= d->n_string_table)
		return "";
	return d->string_table[ix];
}

static int fail_b(struct conv *c)
{
	int code = psym_builder_error(c->b);

	return psym_err_set(c->e, code, "'%s': %s converting OTLP profiles", c->name,
			    code == PSYM_ELIMIT ? "over the memory limit" : "out of memory");
}

static const char *attr_build_id(const struct conv *c, const otlp_mapping *m, const char *key)
{
	for (size_t i = 0; i < m->n_attribute_indices; i++) {
		const otlp_attr *a = c->d->attribute_table[m->attribute_indices[i]];

		if (!a->value || strcmp(dstr(c->d, a->key_strindex), key))
			continue;
		if (a->value->value_case == OTLP_ANY(STRING_VALUE))
			return a->value->string_value;
		if (a->value->value_case == OTLP_ANY(STRING_VALUE_STRINDEX))
			return dstr(c->d, a->value->string_value_strindex);
	}
	return NULL;
}

static int conv_mappings(struct conv *c)
{
	for (size_t i = 1; i < c->d->n_mapping_table; i++) {
		const otlp_mapping *m = c->d->mapping_table[i];
		const char *bid = attr_build_id(c, m, BUILD_ID_GNU);
		pb_mapping *pm;

		char hbuf[PSYM_BUILD_ID_HEX_MAX];
		const char *h;

		if (!bid && (h = attr_build_id(c, m, BUILD_ID_GO))) {
			/* psym spells a Go build ID "go:ID" (buildid.h). */
			snprintf(hbuf, sizeof(hbuf), "%s%.*s", PSYM_GO_BUILD_ID_PREFIX,
				 (int)PSYM_GO_BUILD_ID_MAX, h);
			if (psym_build_id_is_go(hbuf))
				bid = hbuf;
		}
		if (!bid && (h = attr_build_id(c, m, BUILD_ID_HTLHASH))) {
			snprintf(hbuf, sizeof(hbuf), "%s%.32s", PSYM_HTLHASH_PREFIX, h);
			if (psym_build_id_is_htlhash(hbuf))
				bid = hbuf;
		}
		pm = psym_builder_mapping(c->b, m->memory_start, m->memory_limit, m->file_offset,
					  dstr(c->d, m->filename_strindex), bid);
		if (!pm)
			return fail_b(c);
		if (pm->id != i)
			return psym_err_set(c->e, PSYM_EINTERNAL,
					    "'%s': mapping %zu got id %" PRIu64, c->name, i,
					    pm->id);
	}
	return 0;
}

static int conv_functions(struct conv *c)
{
	c->fn = calloc(c->d->n_function_table + 1, sizeof(*c->fn));
	if (!c->fn)
		return psym_err_set(c->e, PSYM_ENOMEM, "'%s': out of memory", c->name);
	for (size_t i = 0; i < c->d->n_function_table; i++) {
		const otlp_function *f = c->d->function_table[i];

		c->fn[i] = psym_builder_function(c->b, dstr(c->d, f->name_strindex),
						 dstr(c->d, f->system_name_strindex),
						 dstr(c->d, f->filename_strindex), f->start_line);
		if (!c->fn[i])
			return fail_b(c);
	}
	return 0;
}

/* Locations are made before the builder, one per table entry (no merging by address). */
static int alloc_locations(struct conv *c)
{
	pb_profile *pb = c->p->pb;
	size_t n = c->d->n_location_table ? c->d->n_location_table - 1 : 0;

	if (!n)
		return 0;
	pb->location = psym_arena_calloc(&c->p->arena, n, sizeof(*pb->location));
	if (!pb->location)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		const otlp_location *ol = c->d->location_table[i + 1];
		pb_location *l = psym_arena_alloc(&c->p->arena, sizeof(*l));

		if (!l)
			goto nomem;
		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = (uint64_t)ol->mapping_index;
		l->address = ol->address;
		pb->location[i] = l;
	}
	pb->n_location = n;
	return 0;
nomem:
	return psym_err_set(c->e, psym_arena_error(&c->p->arena), "'%s': out of memory", c->name);
}

static int conv_lines(struct conv *c)
{
	pb_profile *pb = c->p->pb;

	for (size_t i = 0; i < pb->n_location; i++) {
		const otlp_location *ol = c->d->location_table[i + 1];

		for (size_t j = 0; j < ol->n_lines; j++) {
			const otlp_line *ln = ol->lines[j];

			if (psym_builder_add_line(c->b, pb->location[i], c->fn[ln->function_index],
						  ln->line, ln->column))
				return fail_b(c);
		}
	}
	return 0;
}

static int32_t type_of(struct conv *c, const otlp_profile *p)
{
	int32_t t = p->sample_type ? p->sample_type->type_strindex : 0;
	int32_t u = p->sample_type ? p->sample_type->unit_strindex : 0;

	for (size_t i = 0; i < c->ntypes; i++)
		if (!strcmp(dstr(c->d, c->types[i][0]), dstr(c->d, t)) &&
		    !strcmp(dstr(c->d, c->types[i][1]), dstr(c->d, u)))
			return (int32_t)i;
	return -1;
}

#define FOREACH_PROFILE(m, p)                                                                      \
	for (size_t ri_ = 0; ri_ < (m)->n_resource_profiles; ri_++)                                \
		for (size_t si_ = 0; si_ < (m)->resource_profiles[ri_]->n_scope_profiles; si_++)   \
			for (size_t pi_ = 0;                                                       \
			     pi_ < (m)->resource_profiles[ri_]->scope_profiles[si_]->n_profiles && \
			     ((p) = (m)->resource_profiles[ri_]                                    \
					    ->scope_profiles[si_]                                  \
					    ->profiles[pi_]);                                      \
			     pi_++)

static int conv_types(struct conv *c, const otlp_data *m)
{
	const otlp_profile *p;
	size_t n = 0;

	FOREACH_PROFILE(m, p)
	n++;
	c->types = calloc(n + 1, sizeof(*c->types));
	if (!c->types)
		return psym_err_set(c->e, PSYM_ENOMEM, "'%s': out of memory", c->name);
	FOREACH_PROFILE(m, p)
	{
		if (type_of(c, p) >= 0)
			continue;
		if (c->ntypes == MAX_TYPES)
			return psym_err_set(c->e, PSYM_ELIMIT,
					    "'%s': more than %d sample types in OTLP profiles",
					    c->name, MAX_TYPES);
		c->types[c->ntypes][0] = p->sample_type ? p->sample_type->type_strindex : 0;
		c->types[c->ntypes][1] = p->sample_type ? p->sample_type->unit_strindex : 0;
		if (psym_builder_sample_type(c->b, dstr(c->d, c->types[c->ntypes][0]),
					     dstr(c->d, c->types[c->ntypes][1])))
			return fail_b(c);
		c->ntypes++;
	}
	c->vals = calloc(c->ntypes + 1, sizeof(*c->vals));
	if (!c->vals)
		return psym_err_set(c->e, PSYM_ENOMEM, "'%s': out of memory", c->name);
	return 0;
}

static int head(struct conv *c, const otlp_data *m)
{
	const otlp_profile *p;
	pb_profile *pb = c->p->pb;
	uint64_t start = 0, end = 0;
	bool any = false;

	FOREACH_PROFILE(m, p)
	{
		if (!pb->period_type && p->period_type &&
		    (p->period_type->type_strindex || p->period_type->unit_strindex)) {
			pb->period_type = psym_arena_alloc(&c->p->arena, sizeof(*pb->period_type));
			if (!pb->period_type)
				return psym_err_set(c->e, PSYM_ENOMEM, "'%s': out of memory",
						    c->name);
			perftools__profiles__value_type__init(pb->period_type);
			pb->period_type->type =
				psym_builder_str(c->b, dstr(c->d, p->period_type->type_strindex));
			pb->period_type->unit =
				psym_builder_str(c->b, dstr(c->d, p->period_type->unit_strindex));
			if (pb->period_type->type < 0 || pb->period_type->unit < 0)
				return fail_b(c);
			pb->period = p->period;
		}
		if (!p->time_unix_nano)
			continue;
		if (!any || p->time_unix_nano < start)
			start = p->time_unix_nano;
		if (!any || p->time_unix_nano + p->duration_nano > end)
			end = p->time_unix_nano + p->duration_nano;
		any = true;
	}
	pb->time_nanos = (int64_t)start;
	pb->duration_nanos = (int64_t)(end - start);
	return 0;
}

static int push_label(struct conv *c, const char *key, const char *str, int64_t num,
		      const char *unit)
{
	if (c->nlab == c->caplab) {
		size_t n = c->caplab ? c->caplab * 2 : 16;
		void *q = realloc(c->lab, n * sizeof(*c->lab));

		if (!q)
			return psym_err_set(c->e, PSYM_ENOMEM, "'%s': out of memory", c->name);
		c->lab = q;
		c->caplab = n;
	}
	c->lab[c->nlab++] = (struct psym_builder_label){ key, str, num, unit, NULL };
	return 0;
}

/* One attribute as a label; values of other kinds are not labels. */
static int any_label(struct conv *c, const char *key, const otlp_any *v, const char *unit)
{
	if (!v || !*key)
		return 0;
	switch (v->value_case) {
	case OTLP_ANY(STRING_VALUE): return push_label(c, key, v->string_value, 0, NULL);
	case OTLP_ANY(INT_VALUE):
		return push_label(c, key, NULL, v->int_value, unit && *unit ? unit : NULL);
	case OTLP_ANY(BOOL_VALUE):
		return push_label(c, key, v->bool_value ? "true" : "false", 0, NULL);
	case OTLP_ANY(DOUBLE_VALUE): {
		char *s = psym_arena_printf(&c->p->arena, "%.17g", v->double_value);

		if (!s)
			return psym_err_set(c->e, PSYM_ENOMEM, "'%s': out of memory", c->name);
		return push_label(c, key, s, 0, NULL);
	}
	default: return 0;
	}
}

static int dict_labels(struct conv *c, const int32_t *ix, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const otlp_attr *a = c->d->attribute_table[ix[i]];
		const char *key = dstr(c->d, a->key_strindex);
		int ret;

		if (!strcmp(key, PPROF_COMMENT))
			continue;
		ret = any_label(c, key, a->value, dstr(c->d, a->unit_strindex));
		if (ret)
			return ret;
	}
	return 0;
}

/* The first profile's "pprof.comment" attributes are the pprof comments. */
static int comments(struct conv *c, const otlp_data *m)
{
	const otlp_profile *p = NULL;

	FOREACH_PROFILE(m, p)
	goto found;
	return 0;
found:
	for (size_t i = 0; i < p->n_attribute_indices; i++) {
		const otlp_attr *a = c->d->attribute_table[p->attribute_indices[i]];

		if (strcmp(dstr(c->d, a->key_strindex), PPROF_COMMENT) || !a->value ||
		    a->value->value_case != OTLP_ANY(STRING_VALUE))
			continue;
		if (psym_builder_comment(c->b, a->value->string_value))
			return fail_b(c);
	}
	return 0;
}

static int conv_sample(struct conv *c, const otlp_sample *s, int32_t type)
{
	const otlp_stack *st = c->d->n_stack_table ? c->d->stack_table[s->stack_index] : NULL;
	size_t nloc = 0, base = c->nlab, nl;
	size_t npts =
		s->n_values > s->n_timestamps_unix_nano ? s->n_values : s->n_timestamps_unix_nano;
	pb_sample *first = NULL;
	int ret;

	ret = dict_labels(c, s->attribute_indices, s->n_attribute_indices);
	if (ret)
		return ret;
	nl = c->nlab;
	for (size_t i = 0; st && i < st->n_location_indices; i++)
		if (st->location_indices[i] > 0)
			c->locs[nloc++] = (uint64_t)st->location_indices[i];
	for (size_t k = 0; k < npts; k++) {
		c->refs += nl + 1 + nloc;
		if (c->refs > MAX_REFS)
			return psym_err_set(c->e, PSYM_ELIMIT,
					    "'%s': OTLP samples expand to more than %zu labels and "
					    "frames in pprof",
					    c->name, (size_t)MAX_REFS);
		c->vals[type] = s->n_values ? s->values[k] : 1;
		if (s->n_timestamps_unix_nano) {
			ret = push_label(c, "timestamp", NULL, (int64_t)s->timestamps_unix_nano[k],
					 "nanoseconds");
			if (ret)
				return ret;
		}
		/* The points of one sample share its labels (not its timestamps). */
		for (size_t i = 0; first && i < nl; i++)
			c->lab[i].same = first->label[i];
		first = psym_builder_sample_labels(c->b, c->locs, nloc, c->vals, c->ntypes, c->lab,
						   c->nlab);
		if (!first)
			return fail_b(c);
		c->nlab = nl;
	}
	for (size_t i = 0; i < nl; i++)
		c->lab[i].same = NULL;
	c->vals[type] = 0;
	c->nlab = base;
	return 0;
}

static int kv_labels(struct conv *c, otlp_kv *const *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *key = *kv[i]->key ? kv[i]->key : dstr(c->d, kv[i]->key_strindex);
		int ret = any_label(c, key, kv[i]->value, NULL);

		if (ret)
			return ret;
	}
	return 0;
}

static int conv_samples(struct conv *c, const otlp_data *m)
{
	size_t maxstack = 0;
	int ret = 0;

	for (size_t i = 0; i < c->d->n_stack_table; i++)
		if (c->d->stack_table[i]->n_location_indices > maxstack)
			maxstack = c->d->stack_table[i]->n_location_indices;
	c->locs = calloc(maxstack + 1, sizeof(*c->locs));
	if (!c->locs)
		return psym_err_set(c->e, PSYM_ENOMEM, "'%s': out of memory", c->name);
	for (size_t ri = 0; ri < m->n_resource_profiles && !ret; ri++) {
		const otlp_rprof *r = m->resource_profiles[ri];

		c->nlab = 0;
		if (r->resource)
			ret = kv_labels(c, r->resource->attributes, r->resource->n_attributes);
		for (size_t si = 0; si < r->n_scope_profiles && !ret; si++) {
			const otlp_sprof *sp = r->scope_profiles[si];

			for (size_t pi = 0; pi < sp->n_profiles && !ret; pi++) {
				const otlp_profile *p = sp->profiles[pi];
				size_t base = c->nlab;
				int32_t t = type_of(c, p);

				ret = dict_labels(c, p->attribute_indices, p->n_attribute_indices);
				for (size_t k = 0; k < p->n_samples && !ret; k++)
					ret = conv_sample(c, p->samples[k], t);
				c->nlab = base;
			}
		}
	}
	return ret;
}

int psym_otlp_to_profile(const struct psym_otlp *o, const char *name, const struct psym_limits *lim,
			 struct psym_profile **out, struct psym_err *e)
{
	struct conv c = { .d = o->msg->dictionary, .name = name, .e = e };
	int ret;

	*out = NULL;
	ret = psym_profile_new(lim, &c.p, e);
	if (ret)
		return ret;
	ret = alloc_locations(&c);
	if (!ret)
		ret = psym_builder_new(c.p, &c.b, e);
	if (!ret)
		ret = conv_mappings(&c);
	if (!ret)
		ret = conv_functions(&c);
	if (!ret)
		ret = conv_lines(&c);
	if (!ret)
		ret = conv_types(&c, o->msg);
	if (!ret)
		ret = head(&c, o->msg);
	if (!ret)
		ret = comments(&c, o->msg);
	if (!ret)
		ret = conv_samples(&c, o->msg);
	psym_builder_free(c.b);
	free(c.fn);
	free(c.types);
	free(c.lab);
	free(c.vals);
	free(c.locs);
	if (ret) {
		psym_profile_free(c.p);
		return ret;
	}
	*out = c.p;
	return 0;
}
