/* SPDX-License-Identifier: MIT */
/*
 * Every index of an OTLP message inside its table, before anything reads
 * through one. 1.9.0 and 1.10.0 moved every table into one dictionary and made samples
 * point at stacks; a file of an older layout has no dictionary, or indexes
 * that run past its tables, and is refused here with one line naming the
 * version psym reads.
 */
#include "config.h"
#include <inttypes.h>
#include <string.h>

#include "otlp.h"

/* Caps on one entry: a string (attribute values too), a stack. */
#define MAX_STRING ((size_t)1 << 20)
#define MAX_STACK ((size_t)1 << 20)

struct ck {
	const otlp_dict *d;
	const char *name;
	struct psym_err *e;
};

static int bad(struct ck *c, const char *what, const char *table, int64_t ix, size_t n)
{
	return psym_err_set(c->e, PSYM_EBADPROFILE,
			    "'%s': %s %" PRId64 " is outside the %s table of %zu: %s", c->name,
			    what, ix, table, n, PSYM_OTLP_READS);
}

static int str(struct ck *c, const char *what, int32_t ix)
{
	/* Index 0 of an empty table is "" (a writer may leave the table out). */
	if (ix == 0 && c->d->n_string_table == 0)
		return 0;
	if (ix < 0 || (size_t)ix >= c->d->n_string_table)
		return bad(c, what, "string", ix, c->d->n_string_table);
	return 0;
}

static int ix_in(struct ck *c, const char *what, const char *table, int32_t ix, size_t n)
{
	if (ix == 0 && n == 0)
		return 0;
	if (ix < 0 || (size_t)ix >= n)
		return bad(c, what, table, ix, n);
	return 0;
}

static int attrs(struct ck *c, const int32_t *ix, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ret = ix_in(c, "attribute index", "attribute", ix[i], c->d->n_attribute_table);

		if (ret)
			return ret;
	}
	return 0;
}

static int any_len(struct ck *c, const char *key, const otlp_any *v)
{
	size_t len = 0;

	if (!v)
		return 0;
	if (v->value_case == OTLP_ANY(STRING_VALUE_STRINDEX))
		return str(c, "attribute value", v->string_value_strindex);
	if (v->value_case == OTLP_ANY(STRING_VALUE) && v->string_value)
		len = strlen(v->string_value);
	else if (v->value_case == OTLP_ANY(BYTES_VALUE))
		len = v->bytes_value.len;
	if (len > MAX_STRING)
		return psym_err_set(c->e, PSYM_ELIMIT,
				    "'%s': attribute '%.64s' has a value of %zu bytes, over the "
				    "cap of %zu",
				    c->name, key, len, MAX_STRING);
	return 0;
}

static int check_dict(struct ck *c)
{
	const otlp_dict *d = c->d;
	int ret = 0;

	for (size_t i = 0; i < d->n_string_table && !ret; i++)
		if (d->string_table[i] && strlen(d->string_table[i]) > MAX_STRING)
			ret = psym_err_set(
				c->e, PSYM_ELIMIT,
				"'%s': string %zu is %zu bytes long, over the cap of %zu", c->name,
				i, strlen(d->string_table[i]), MAX_STRING);
	for (size_t i = 0; i < d->n_attribute_table && !ret; i++) {
		const otlp_attr *a = d->attribute_table[i];

		ret = str(c, "attribute key", a->key_strindex);
		if (!ret)
			ret = str(c, "attribute unit", a->unit_strindex);
		if (!ret)
			ret = any_len(c, d->n_string_table ? d->string_table[a->key_strindex] : "",
				      a->value);
	}
	for (size_t i = 0; i < d->n_mapping_table && !ret; i++) {
		ret = str(c, "mapping file name", d->mapping_table[i]->filename_strindex);
		if (!ret)
			ret = attrs(c, d->mapping_table[i]->attribute_indices,
				    d->mapping_table[i]->n_attribute_indices);
	}
	for (size_t i = 0; i < d->n_function_table && !ret; i++) {
		const otlp_function *f = d->function_table[i];

		ret = str(c, "function name", f->name_strindex);
		if (!ret)
			ret = str(c, "function system name", f->system_name_strindex);
		if (!ret)
			ret = str(c, "function file name", f->filename_strindex);
	}
	for (size_t i = 0; i < d->n_location_table && !ret; i++) {
		const otlp_location *l = d->location_table[i];

		ret = ix_in(c, "mapping index", "mapping", l->mapping_index, d->n_mapping_table);
		for (size_t j = 0; j < l->n_lines && !ret; j++)
			ret = ix_in(c, "function index", "function", l->lines[j]->function_index,
				    d->n_function_table);
		if (!ret)
			ret = attrs(c, l->attribute_indices, l->n_attribute_indices);
	}
	for (size_t i = 0; i < d->n_stack_table && !ret; i++) {
		const otlp_stack *s = d->stack_table[i];

		if (s->n_location_indices > MAX_STACK)
			return psym_err_set(
				c->e, PSYM_ELIMIT,
				"'%s': stack %zu has %zu locations, over the cap of %zu", c->name,
				i, s->n_location_indices, MAX_STACK);
		for (size_t j = 0; j < s->n_location_indices && !ret; j++)
			ret = ix_in(c, "location index", "location", s->location_indices[j],
				    d->n_location_table);
	}
	return ret;
}

static int check_profile(struct ck *c, const otlp_profile *p)
{
	const otlp_dict *d = c->d;
	int ret = 0;

	if (p->sample_type) {
		ret = str(c, "sample type", p->sample_type->type_strindex);
		if (!ret)
			ret = str(c, "sample unit", p->sample_type->unit_strindex);
	}
	if (!ret && p->period_type) {
		ret = str(c, "period type", p->period_type->type_strindex);
		if (!ret)
			ret = str(c, "period unit", p->period_type->unit_strindex);
	}
	if (!ret)
		ret = attrs(c, p->attribute_indices, p->n_attribute_indices);
	for (size_t i = 0; i < p->n_samples && !ret; i++) {
		const otlp_sample *s = p->samples[i];

		ret = ix_in(c, "stack index", "stack", s->stack_index, d->n_stack_table);
		if (!ret)
			ret = ix_in(c, "link index", "link", s->link_index, d->n_link_table);
		if (!ret)
			ret = attrs(c, s->attribute_indices, s->n_attribute_indices);
		if (!ret && s->n_values && s->n_timestamps_unix_nano &&
		    s->n_values != s->n_timestamps_unix_nano)
			ret = psym_err_set(c->e, PSYM_EBADPROFILE,
					   "'%s': a sample has %zu values and %zu timestamps: %s",
					   c->name, s->n_values, s->n_timestamps_unix_nano,
					   PSYM_OTLP_READS);
	}
	return ret;
}

int psym_otlp_check(const struct psym_otlp *o, const char *name, struct psym_err *e)
{
	struct ck c = { o->msg->dictionary, name, e };
	const otlp_data *m = o->msg;
	int ret;

	if (!c.d)
		return psym_err_set(
			e, PSYM_EBADPROFILE,
			"'%s': OTLP profiles without a dictionary (an older layout): %s", name,
			PSYM_OTLP_READS);
	ret = check_dict(&c);
	for (size_t i = 0; i < m->n_resource_profiles && !ret; i++) {
		const otlp_rprof *r = m->resource_profiles[i];

		for (size_t j = 0; r->resource && j < r->resource->n_attributes && !ret; j++) {
			const otlp_kv *kv = r->resource->attributes[j];

			ret = str(&c, "attribute key", kv->key_strindex);
			if (!ret)
				ret = any_len(&c, kv->key, kv->value);
		}
		for (size_t j = 0; j < r->n_scope_profiles && !ret; j++)
			for (size_t k = 0; k < r->scope_profiles[j]->n_profiles && !ret; k++)
				ret = check_profile(&c, r->scope_profiles[j]->profiles[k]);
	}
	return ret;
}
