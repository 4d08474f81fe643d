/* SPDX-License-Identifier: MIT */
/*
 * A pprof profile as OTLP profiles (1.10.0): one Profile per sample type
 * (since 1.9.0 one type per Profile), all under one resource and one scope
 * ("psym"); the dictionary keeps pprof's string table as it is (index i is
 * pprof's string i), so only the other tables are made. A numeric label
 * "timestamp" in nanoseconds becomes the sample's timestamps_unix_nano,
 * other labels attributes (numbers with their unit), comments attributes
 * "pprof.comment" of each Profile, build IDs the
 * mapping attribute process.executable.build_id.gnu. psym_otlp_to_profile
 * reads it back to what `go tool pprof -raw` shows of the original.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>

#include "buildid.h"
#include "hashtab.h"
#include "htlhash.h"
#include "otlp.h"

#define NEW(o, T, init)                                                                            \
	({                                                                                         \
		T *x_ = psym_arena_alloc(&(o)->arena, sizeof(T));                                  \
		if (x_)                                                                            \
			init(x_);                                                                  \
		x_;                                                                                \
	})
#define OT(x) opentelemetry__proto__profiles__v1development__##x

struct from {
	struct psym_otlp *o;
	const struct psym_profile *p;
	otlp_dict *d;
	struct psym_hashtab mix, fix, lix, aix; /* pprof ids -> index + 1; attributes */
	int32_t s_bid, s_htl, s_go, s_ts, s_ns, s_comment;
	int32_t s_names[3][2]; /* PSYM_OTLP_OTEL_NAMES: pprof's key, OTel's */
	unsigned flags;
	struct psym_err *e;
};

static int fnomem(struct from *f)
{
	return psym_err_set(f->e, psym_arena_error(&f->o->arena),
			    "out of memory converting to OTLP");
}

static void *tab(struct from *f, size_t n, size_t es)
{
	return psym_arena_calloc(&f->o->arena, n ? n : 1, es);
}

static int32_t str_ix(struct from *f, const char *s)
{
	for (size_t i = 0; i < f->d->n_string_table; i++)
		if (!strcmp(f->d->string_table[i], s))
			return (int32_t)i;
	return -1;
}

static int strings(struct from *f)
{
	const pb_profile *pb = f->p->pb;
	size_t n = pb->n_string_table;

	f->d->string_table = tab(f, n + 9, sizeof(char *));
	if (!f->d->string_table)
		return fnomem(f);
	for (size_t i = 0; i < n; i++)
		f->d->string_table[i] = pb->string_table[i];
	if (!n)
		f->d->string_table[n++] = (char *)"";
	f->d->n_string_table = n;
	f->s_bid = (int32_t)f->d->n_string_table;
	f->d->string_table[f->d->n_string_table++] = (char *)"process.executable.build_id.gnu";
	f->s_htl = (int32_t)f->d->n_string_table;
	f->d->string_table[f->d->n_string_table++] = (char *)"process.executable.build_id.htlhash";
	f->s_go = (int32_t)f->d->n_string_table;
	f->d->string_table[f->d->n_string_table++] = (char *)"process.executable.build_id.go";
	for (int i = 0; i < 3; i++) {
		static const char *const names[3][2] = { { "pid", "process.pid" },
							 { "tid", "thread.id" },
							 { "comm", "thread.name" } };

		f->s_names[i][0] = str_ix(f, names[i][0]);
		f->s_names[i][1] = (int32_t)f->d->n_string_table;
		f->d->string_table[f->d->n_string_table++] = (char *)names[i][1];
	}
	f->s_comment = (int32_t)f->d->n_string_table;
	f->d->string_table[f->d->n_string_table++] = (char *)"pprof.comment";
	f->s_ts = str_ix(f, "timestamp");
	f->s_ns = str_ix(f, "nanoseconds");
	return 0;
}

static int32_t put_ix(struct from *f, struct psym_hashtab *h, const uint64_t *id, size_t i)
{
	return psym_hashtab_put(h, id, sizeof(*id), (void *)(uintptr_t)(i + 1), f->e);
}

static int32_t get_ix(struct psym_hashtab *h, uint64_t id)
{
	void *v;

	return psym_hashtab_get(h, &id, sizeof(id), &v) ? 0 : (int32_t)((uintptr_t)v - 1);
}

static int add_attr(struct from *f, otlp_attr *a, int32_t *out)
{
	size_t n = f->d->n_attribute_table;

	f->d->attribute_table[n] = a;
	f->d->n_attribute_table = n + 1;
	*out = (int32_t)n;
	return 0;
}

/* Attribute of one label, shared by equal labels (key, value, unit). */
static int label_attr(struct from *f, const pb_label *l, int32_t *out)
{
	struct {
		int64_t key, str, num, unit;
	} k = { l->key, l->str, l->str ? 0 : l->num, l->num_unit };
	void *v;
	otlp_attr *a;
	otlp_any *any;
	void *kk;

	if (!psym_hashtab_get(&f->aix, &k, sizeof(k), &v)) {
		*out = (int32_t)((uintptr_t)v - 1);
		return 0;
	}
	a = NEW(f->o, otlp_attr, OT(key_value_and_unit__init));
	any = NEW(f->o, otlp_any, OT(any_value__init));
	kk = psym_arena_alloc(&f->o->arena, sizeof(k));
	if (!a || !any || !kk)
		return fnomem(f);
	memcpy(kk, &k, sizeof(k));
	a->key_strindex = (int32_t)l->key;
	for (int i = 0; (f->flags & PSYM_OTLP_OTEL_NAMES) && i < 3; i++)
		if (f->s_names[i][0] > 0 && l->key == f->s_names[i][0])
			a->key_strindex = f->s_names[i][1];
	a->value = any;
	if (l->str) {
		any->value_case = OTLP_ANY(STRING_VALUE);
		any->string_value = (char *)psym_profile_str(f->p, l->str);
	} else {
		any->value_case = OTLP_ANY(INT_VALUE);
		any->int_value = l->num;
		a->unit_strindex = (int32_t)l->num_unit;
	}
	add_attr(f, a, out);
	return psym_hashtab_put(&f->aix, kk, sizeof(k),
				(void *)(uintptr_t)(f->d->n_attribute_table), f->e);
}

static int mappings(struct from *f)
{
	const pb_profile *pb = f->p->pb;

	f->d->mapping_table = tab(f, pb->n_mapping + 1, sizeof(otlp_mapping *));
	f->d->mapping_table[0] = NEW(f->o, otlp_mapping, OT(mapping__init));
	if (!f->d->mapping_table || !f->d->mapping_table[0])
		return fnomem(f);
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const pb_mapping *pm = pb->mapping[i];
		otlp_mapping *m = NEW(f->o, otlp_mapping, OT(mapping__init));

		if (!m)
			return fnomem(f);
		m->memory_start = pm->memory_start;
		m->memory_limit = pm->memory_limit;
		m->file_offset = pm->file_offset;
		m->filename_strindex = (int32_t)pm->filename;
		if (pm->build_id > 0 && *psym_profile_str(f->p, pm->build_id)) {
			otlp_attr *a = NEW(f->o, otlp_attr, OT(key_value_and_unit__init));
			otlp_any *any = NEW(f->o, otlp_any, OT(any_value__init));

			m->attribute_indices = psym_arena_alloc(&f->o->arena, sizeof(int32_t));
			if (!a || !any || !m->attribute_indices)
				return fnomem(f);
			const char *bid = psym_profile_str(f->p, pm->build_id);

			a->key_strindex = f->s_bid;
			if (psym_build_id_is_htlhash(bid)) {
				a->key_strindex = f->s_htl;
				bid += sizeof(PSYM_HTLHASH_PREFIX) - 1;
			} else if (psym_build_id_is_go(bid)) {
				a->key_strindex = f->s_go;
				bid += sizeof(PSYM_GO_BUILD_ID_PREFIX) - 1;
			}
			any->value_case = OTLP_ANY(STRING_VALUE);
			any->string_value = (char *)bid;
			a->value = any;
			add_attr(f, a, m->attribute_indices);
			m->n_attribute_indices = 1;
		}
		f->d->mapping_table[i + 1] = m;
		if (put_ix(f, &f->mix, &pm->id, i + 1))
			return -1;
	}
	f->d->n_mapping_table = pb->n_mapping + 1;
	return 0;
}

static int functions(struct from *f)
{
	const pb_profile *pb = f->p->pb;

	f->d->function_table = tab(f, pb->n_function + 1, sizeof(otlp_function *));
	f->d->function_table[0] = NEW(f->o, otlp_function, OT(function__init));
	if (!f->d->function_table || !f->d->function_table[0])
		return fnomem(f);
	for (size_t i = 0; i < pb->n_function; i++) {
		const pb_function *pf = pb->function[i];
		otlp_function *fn = NEW(f->o, otlp_function, OT(function__init));

		if (!fn)
			return fnomem(f);
		fn->name_strindex = (int32_t)pf->name;
		fn->system_name_strindex = (int32_t)pf->system_name;
		fn->filename_strindex = (int32_t)pf->filename;
		fn->start_line = pf->start_line;
		f->d->function_table[i + 1] = fn;
		if (put_ix(f, &f->fix, &pf->id, i + 1))
			return -1;
	}
	f->d->n_function_table = pb->n_function + 1;
	return 0;
}

static int locations(struct from *f)
{
	const pb_profile *pb = f->p->pb;

	f->d->location_table = tab(f, pb->n_location + 1, sizeof(otlp_location *));
	f->d->location_table[0] = NEW(f->o, otlp_location, OT(location__init));
	if (!f->d->location_table || !f->d->location_table[0])
		return fnomem(f);
	for (size_t i = 0; i < pb->n_location; i++) {
		const pb_location *pl = pb->location[i];
		otlp_location *l = NEW(f->o, otlp_location, OT(location__init));

		if (!l || !(l->lines = tab(f, pl->n_line, sizeof(otlp_line *))))
			return fnomem(f);
		l->mapping_index = get_ix(&f->mix, pl->mapping_id);
		l->address = pl->address;
		for (size_t j = 0; j < pl->n_line; j++) {
			otlp_line *ln = NEW(f->o, otlp_line, OT(line__init));

			if (!ln)
				return fnomem(f);
			ln->function_index = get_ix(&f->fix, pl->line[j]->function_id);
			ln->line = pl->line[j]->line;
			ln->column = pl->line[j]->column;
			l->lines[j] = ln;
		}
		l->n_lines = pl->n_line;
		f->d->location_table[i + 1] = l;
		if (put_ix(f, &f->lix, &pl->id, i + 1))
			return -1;
	}
	f->d->n_location_table = pb->n_location + 1;
	return 0;
}

/* Stack, attributes and timestamps of pprof sample i, shared by every Profile. */
static int sample_base(struct from *f, size_t i, otlp_sample *s)
{
	const pb_sample *ps = f->p->pb->sample[i];
	otlp_stack *st = NEW(f->o, otlp_stack, OT(stack__init));

	if (!st || !(st->location_indices = tab(f, ps->n_location_id, sizeof(int32_t))) ||
	    !(s->attribute_indices = tab(f, ps->n_label, sizeof(int32_t))) ||
	    !(s->timestamps_unix_nano = tab(f, ps->n_label, sizeof(uint64_t))))
		return fnomem(f);
	for (size_t j = 0; j < ps->n_location_id; j++)
		st->location_indices[j] = get_ix(&f->lix, ps->location_id[j]);
	st->n_location_indices = ps->n_location_id;
	f->d->stack_table[f->d->n_stack_table] = st;
	s->stack_index = (int32_t)f->d->n_stack_table++;
	for (size_t j = 0; j < ps->n_label; j++) {
		const pb_label *l = ps->label[j];

		if (!l->str && f->s_ts > 0 && l->key == f->s_ts && l->num_unit == f->s_ns) {
			s->timestamps_unix_nano[s->n_timestamps_unix_nano++] = (uint64_t)l->num;
			continue;
		}
		if (label_attr(f, l, &s->attribute_indices[s->n_attribute_indices]))
			return -1;
		s->n_attribute_indices++;
	}
	/* One timestamp and one value per point: several timestamps stay labels' order. */
	if (s->n_timestamps_unix_nano > 1)
		s->n_timestamps_unix_nano = 1;
	return 0;
}

/* pprof's comments as "pprof.comment" attributes of every Profile (otlp_conv.c). */
static int comment_attrs(struct from *f, otlp_profile *p)
{
	const pb_profile *pb = f->p->pb;

	if (!pb->n_comment)
		return 0;
	p->attribute_indices = tab(f, pb->n_comment, sizeof(int32_t));
	if (!p->attribute_indices)
		return fnomem(f);
	for (size_t i = 0; i < pb->n_comment; i++) {
		otlp_attr *a = NEW(f->o, otlp_attr, OT(key_value_and_unit__init));
		otlp_any *any = NEW(f->o, otlp_any, OT(any_value__init));

		if (!a || !any)
			return fnomem(f);
		a->key_strindex = f->s_comment;
		any->value_case = OTLP_ANY(STRING_VALUE);
		any->string_value = (char *)psym_profile_str(f->p, pb->comment[i]);
		a->value = any;
		add_attr(f, a, &p->attribute_indices[p->n_attribute_indices++]);
	}
	return 0;
}

static int profiles(struct from *f, otlp_sprof *sp)
{
	const pb_profile *pb = f->p->pb;
	size_t nt = pb->n_sample_type ? pb->n_sample_type : 1, nattr = 1;
	otlp_sample *base;

	for (size_t i = 0; i < pb->n_sample; i++)
		nattr += pb->sample[i]->n_label;
	f->d->attribute_table =
		tab(f, nattr + pb->n_mapping + nt * pb->n_comment + 1, sizeof(otlp_attr *));
	f->d->stack_table = tab(f, pb->n_sample + 1, sizeof(otlp_stack *));
	sp->profiles = tab(f, nt, sizeof(otlp_profile *));
	base = tab(f, pb->n_sample, sizeof(*base));
	if (!f->d->attribute_table || !f->d->stack_table || !sp->profiles || !base)
		return fnomem(f);
	f->d->attribute_table[0] = NEW(f->o, otlp_attr, OT(key_value_and_unit__init));
	f->d->stack_table[0] = NEW(f->o, otlp_stack, OT(stack__init));
	if (!f->d->attribute_table[0] || !f->d->stack_table[0])
		return fnomem(f);
	f->d->n_attribute_table = f->d->n_stack_table = 1;
	if (mappings(f) || functions(f) || locations(f))
		return -1;
	for (size_t i = 0; i < pb->n_sample; i++) {
		OT(sample__init)(&base[i]);
		if (sample_base(f, i, &base[i]))
			return -1;
	}
	for (size_t k = 0; k < nt; k++) {
		otlp_profile *p = NEW(f->o, otlp_profile, OT(profile__init));

		if (!p || !(p->samples = tab(f, pb->n_sample, sizeof(otlp_sample *))))
			return fnomem(f);
		if (pb->n_sample_type) {
			p->sample_type = NEW(f->o, otlp_vtype, OT(value_type__init));
			if (!p->sample_type)
				return fnomem(f);
			p->sample_type->type_strindex = (int32_t)pb->sample_type[k]->type;
			p->sample_type->unit_strindex = (int32_t)pb->sample_type[k]->unit;
		}
		if (pb->period_type) {
			p->period_type = NEW(f->o, otlp_vtype, OT(value_type__init));
			if (!p->period_type)
				return fnomem(f);
			p->period_type->type_strindex = (int32_t)pb->period_type->type;
			p->period_type->unit_strindex = (int32_t)pb->period_type->unit;
		}
		p->period = pb->period;
		if (comment_attrs(f, p))
			return -1;
		p->time_unix_nano = (uint64_t)pb->time_nanos;
		p->duration_nano = (uint64_t)pb->duration_nanos;
		for (size_t i = 0; i < pb->n_sample; i++) {
			otlp_sample *s = NEW(f->o, otlp_sample, OT(sample__init));

			if (!s || !(s->values = tab(f, 1, sizeof(int64_t))))
				return fnomem(f);
			*s = base[i];
			s->values = tab(f, 1, sizeof(int64_t));
			if (!s->values)
				return fnomem(f);
			s->values[0] = k < pb->sample[i]->n_value ? pb->sample[i]->value[k] : 0;
			s->n_values = 1;
			p->samples[p->n_samples++] = s;
		}
		sp->profiles[sp->n_profiles++] = p;
	}
	return 0;
}

int psym_otlp_from_profile(const struct psym_profile *p, const struct psym_limits *lim,
			   unsigned flags, struct psym_otlp **out, struct psym_err *e)
{
	struct psym_limits l = psym_limits_or_default(lim);
	struct from f = { .p = p, .e = e, .flags = flags };
	otlp_rprof *r;
	otlp_sprof *sp;
	int ret = -1;

	*out = NULL;
	f.o = calloc(1, sizeof(*f.o));
	if (!f.o)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory converting to OTLP");
	psym_arena_init(&f.o->arena, l.max_memory);
	psym_hashtab_init(&f.mix, 0);
	psym_hashtab_init(&f.fix, 0);
	psym_hashtab_init(&f.lix, 0);
	psym_hashtab_init(&f.aix, 0);
	f.o->msg = NEW(f.o, otlp_data, OT(profiles_data__init));
	f.d = NEW(f.o, otlp_dict, OT(profiles_dictionary__init));
	r = NEW(f.o, otlp_rprof, OT(resource_profiles__init));
	sp = NEW(f.o, otlp_sprof, OT(scope_profiles__init));
	if (!f.o->msg || !f.d || !r || !sp ||
	    !(f.o->msg->resource_profiles = tab(&f, 1, sizeof(r))) ||
	    !(r->scope_profiles = tab(&f, 1, sizeof(sp))) ||
	    !(sp->scope = NEW(f.o, otlp_scope, OT(instrumentation_scope__init)))) {
		ret = fnomem(&f);
		goto out;
	}
	sp->scope->name = (char *)"psym";
	f.o->msg->dictionary = f.d;
	f.o->msg->resource_profiles[0] = r;
	f.o->msg->n_resource_profiles = 1;
	r->scope_profiles[0] = sp;
	r->n_scope_profiles = 1;
	if (strings(&f) || profiles(&f, sp))
		goto out;
	ret = 0;
out:
	psym_hashtab_free(&f.mix);
	psym_hashtab_free(&f.fix);
	psym_hashtab_free(&f.lix);
	psym_hashtab_free(&f.aix);
	if (ret) {
		if (e && !e->code)
			psym_err_set(e, PSYM_ENOMEM, "out of memory converting to OTLP");
		psym_otlp_free(f.o);
		return e && e->code ? e->code : PSYM_ENOMEM;
	}
	*out = f.o;
	return 0;
}
