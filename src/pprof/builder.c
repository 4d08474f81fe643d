/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "hashtab.h"

struct fkey {
	int64_t name, sys, file, start;
};

struct lkey {
	uint64_t mapping, addr;
};

#define RECENT 1024

struct psym_builder {
	struct psym_profile *p;
	struct psym_idxset strs, funcs, locs; /* indices into the profile's arrays */
	size_t cap_strings, cap_functions, cap_locations, cap_mappings, cap_samples;
	size_t cap_sample_types, cap_comments;
	uint64_t next_function_id, next_location_id, next_mapping_id;
	int err;
	/*
	 * Lines and chains of Lines that psym_builder_set_line_chain() shares
	 * between locations: the arrays below (malloc'd) are what the two sets
	 * index.
	 */
	struct psym_idxset lineset, chainset;
	struct sline *lines;
	struct chain *chains;
	size_t n_lines, cap_lines, n_chains, cap_chains;
	size_t last_chain; /* the chain given last, when n_chains > 0 */
	/*
	 * The Lines and chains seen lately, by the low bits of their hash
	 * (index + 1; 0: empty): an address's innermost Line was mostly seen
	 * a few addresses before, and probing the big sets misses the cache.
	 */
	uint32_t recent_line[RECENT], recent_chain[RECENT];
	bool locs_ready; /* locs indexes the profile's locations */
};

struct chain {
	pb_line **arr;
	size_t n;
	uint64_t h; /* kept: rehashing on growth need not visit the Lines */
};

struct sline {
	pb_line *l;
	uint64_t h;
};

static int64_t str_find(struct psym_builder *b, const char *s, uint64_t h);
static uint64_t str_hash_at(void *ctx, uint32_t i);
static uint64_t func_hash_at(void *ctx, uint32_t i);

/* ---- hashing of existing entries ---------------------------------------- */

static uint64_t str_hash(const struct psym_builder *b, const char *s, size_t len)
{
	return psym_idxset_hash_bytes(&b->strs, s, len);
}

static uint64_t str_hash_at(void *ctx, uint32_t i)
{
	struct psym_builder *b = ctx;
	const char *s = b->p->pb->string_table[i];

	return str_hash(b, s, strlen(s));
}

static void fkey_of(const pb_function *f, struct fkey *k)
{
	k->name = f->name;
	k->sys = f->system_name;
	k->file = f->filename;
	k->start = f->start_line;
}

static uint64_t func_hash(const struct psym_builder *b, const struct fkey *k)
{
	uint64_t v[4] = { (uint64_t)k->name, (uint64_t)k->sys, (uint64_t)k->file,
			  (uint64_t)k->start };

	return psym_idxset_hash_u64s(&b->funcs, v, 4);
}

static uint64_t func_hash_at(void *ctx, uint32_t i)
{
	struct psym_builder *b = ctx;
	struct fkey k;

	fkey_of(b->p->pb->function[i], &k);
	return func_hash(b, &k);
}

static uint64_t loc_hash(const struct psym_builder *b, uint64_t mapping_id, uint64_t address)
{
	uint64_t k[2] = { mapping_id, address };

	return psym_idxset_hash_u64s(&b->locs, k, 2);
}

static uint64_t loc_hash_at(void *ctx, uint32_t i)
{
	struct psym_builder *b = ctx;
	const pb_location *l = b->p->pb->location[i];

	return loc_hash(b, l->mapping_id, l->address);
}

int psym_builder_reserve(struct psym_builder *b, size_t nlocations)
{
	const pb_profile *pb = b->p->pb;

	/*
	 * Symbolized libjvm: 100k locations have 40k functions and 100k
	 * strings, 1M have 70k and 132k; growing the sets hashes every entry
	 * again (a string's strlen and hash): room for about that many, not
	 * more (5 bytes a slot).
	 */
	size_t nstr = nlocations < ((size_t)1 << 18) ? nlocations : (size_t)1 << 18;

	if (psym_idxset_reserve(&b->strs, pb->n_string_table + nstr, str_hash_at, b) ||
	    psym_idxset_reserve(&b->funcs, pb->n_function + nstr / 2, func_hash_at, b))
		return PSYM_ENOMEM;
	return 0;
}

int psym_builder_new(struct psym_profile *p, struct psym_builder **out, struct psym_err *e)
{
	struct psym_builder *b = calloc(1, sizeof(*b));
	pb_profile *pb = p->pb;
	uint64_t h;
	int ret = 0;

	if (!b)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	b->p = p;
	b->cap_strings = pb->n_string_table;
	b->cap_functions = pb->n_function;
	b->cap_locations = pb->n_location;
	b->cap_mappings = pb->n_mapping;
	b->cap_samples = pb->n_sample;
	b->cap_sample_types = pb->n_sample_type;
	b->cap_comments = pb->n_comment;
	if (pb->n_string_table > UINT32_MAX - 1 || pb->n_function > UINT32_MAX - 1 ||
	    pb->n_location > UINT32_MAX - 1) {
		free(b);
		return psym_err_set(e, PSYM_ELIMIT, "profile too large for the builder");
	}
	/*
	 * Room for what symbolizing usually adds (a million libjvm locations
	 * bring 70k functions and 130k strings): rehashing every string on
	 * each doubling cost more than the lookups themselves, but a table
	 * sized for a string per location was tens of MB touched at random.
	 */
	psym_idxset_init(&b->strs);
	psym_idxset_init(&b->funcs);
	psym_idxset_init(&b->locs);
	psym_idxset_init(&b->lineset);
	psym_idxset_init(&b->chainset);
	if (psym_builder_reserve(b, pb->n_location))
		ret = PSYM_ENOMEM;
	/* First occurrence of a duplicate string wins, like pprof's own writer. */
	for (size_t i = 0; i < pb->n_string_table && !ret; i++) {
		const char *s;

		if (!pb->string_table[i])
			pb->string_table[i] = (char *)"";
		s = pb->string_table[i];
		h = str_hash(b, s, strlen(s));
		if (str_find(b, s, h) < 0)
			ret = psym_idxset_add(&b->strs, (uint32_t)i, h, str_hash_at, b);
	}
	for (size_t i = 0; i < pb->n_function && !ret; i++) {
		if (pb->function[i]->id >= b->next_function_id)
			b->next_function_id = pb->function[i]->id;
		ret = psym_idxset_add(&b->funcs, (uint32_t)i, func_hash_at(b, (uint32_t)i),
				      func_hash_at, b);
	}
	/* The location set is built by the first psym_builder_location(): symbolizing adds none. */
	for (size_t i = 0; i < pb->n_location; i++)
		if (pb->location[i]->id >= b->next_location_id)
			b->next_location_id = pb->location[i]->id;
	for (size_t i = 0; i < pb->n_mapping; i++)
		if (pb->mapping[i]->id >= b->next_mapping_id)
			b->next_mapping_id = pb->mapping[i]->id;
	b->next_function_id++;
	b->next_location_id++;
	b->next_mapping_id++;
	if (ret) {
		psym_builder_free(b);
		return psym_err_set(e, ret, "out of memory indexing the profile");
	}
	*out = b;
	return 0;
}

void psym_builder_free(struct psym_builder *b)
{
	if (!b)
		return;
	psym_idxset_free(&b->strs);
	psym_idxset_free(&b->funcs);
	psym_idxset_free(&b->locs);
	psym_idxset_free(&b->lineset);
	psym_idxset_free(&b->chainset);
	free(b->lines);
	free(b->chains);
	free(b);
}

int psym_builder_error(const struct psym_builder *b)
{
	return b->err ? b->err : PSYM_ENOMEM;
}

static int fail(struct psym_builder *b, int code)
{
	b->err = code;
	return code;
}

/* Append ptr to a profile pointer array (n, arr) with capacity *cap. */
static int push_ptr(struct psym_builder *b, void ***arr, size_t *n, size_t *cap, void *ptr)
{
	int ret = psym_arena_grow(&b->p->arena, (void **)arr, cap, *n + 1, sizeof(void *));

	if (ret)
		return fail(b, ret);
	(*arr)[(*n)++] = ptr;
	return 0;
}

static int64_t str_find(struct psym_builder *b, const char *s, uint64_t h)
{
	pb_profile *pb = b->p->pb;

	PSYM_IDXSET_PROBE(&b->strs, h, j)
	{
		uint32_t i = b->strs.slot[j] - 1;

		if (strcmp(pb->string_table[i], s) == 0)
			return i;
	}
	return -1;
}

int64_t psym_builder_str(struct psym_builder *b, const char *s)
{
	pb_profile *pb = b->p->pb;
	size_t len = strlen(s);
	uint64_t h = str_hash(b, s, len);
	int64_t found = str_find(b, s, h);
	char *copy;
	int ret;

	if (found >= 0)
		return found;
	if (pb->n_string_table >= UINT32_MAX - 1)
		return fail(b, PSYM_ELIMIT);
	copy = psym_arena_strndup(&b->p->arena, s, len);
	if (!copy)
		return fail(b, psym_arena_error(&b->p->arena));
	ret = push_ptr(b, (void ***)&pb->string_table, &pb->n_string_table, &b->cap_strings, copy);
	if (ret)
		return ret;
	ret = psym_idxset_add(&b->strs, (uint32_t)(pb->n_string_table - 1), h, str_hash_at, b);
	if (ret)
		return fail(b, ret);
	return (int64_t)pb->n_string_table - 1;
}

int64_t psym_builder_str_find(struct psym_builder *b, const char *s)
{
	return str_find(b, s, str_hash(b, s, strlen(s)));
}

uint64_t psym_builder_function(struct psym_builder *b, const char *name, const char *system_name,
			       const char *filename, int64_t start_line)
{
	/* In this order: the string table's order is part of the output. */
	int64_t n = psym_builder_str(b, name ? name : "");
	int64_t sys = psym_builder_str(b, system_name ? system_name : "");
	int64_t file = psym_builder_str(b, filename ? filename : "");

	return psym_builder_function_ix(b, n, sys, file, start_line);
}

uint64_t psym_builder_function_ix(struct psym_builder *b, int64_t name, int64_t system_name,
				  int64_t filename, int64_t start_line)
{
	pb_profile *pb = b->p->pb;
	struct fkey k;
	pb_function *f;
	uint64_t h;

	k.name = name;
	k.sys = system_name;
	k.file = filename;
	k.start = start_line;
	if (k.name < 0 || k.sys < 0 || k.file < 0)
		return 0;
	h = func_hash(b, &k);
	PSYM_IDXSET_PROBE(&b->funcs, h, j)
	{
		struct fkey o;

		fkey_of(pb->function[b->funcs.slot[j] - 1], &o);
		if (memcmp(&o, &k, sizeof(k)) == 0)
			return pb->function[b->funcs.slot[j] - 1]->id;
	}
	f = psym_arena_alloc(&b->p->arena, sizeof(*f));
	if (!f) {
		fail(b, psym_arena_error(&b->p->arena));
		return 0;
	}
	perftools__profiles__function__init(f);
	f->id = b->next_function_id++;
	f->name = k.name;
	f->system_name = k.sys;
	f->filename = k.file;
	f->start_line = k.start;
	if (push_ptr(b, (void ***)&pb->function, &pb->n_function, &b->cap_functions, f))
		return 0;
	if (psym_idxset_add(&b->funcs, (uint32_t)(pb->n_function - 1), h, func_hash_at, b)) {
		fail(b, PSYM_ENOMEM);
		return 0;
	}
	return f->id;
}

pb_mapping *psym_builder_mapping(struct psym_builder *b, uint64_t start, uint64_t limit,
				 uint64_t offset, const char *filename, const char *build_id)
{
	pb_profile *pb = b->p->pb;
	int64_t fi = psym_builder_str(b, filename ? filename : "");
	int64_t bi = psym_builder_str(b, build_id ? build_id : "");
	pb_mapping *m;

	if (fi < 0 || bi < 0)
		return NULL;
	m = psym_arena_alloc(&b->p->arena, sizeof(*m));
	if (!m) {
		fail(b, psym_arena_error(&b->p->arena));
		return NULL;
	}
	perftools__profiles__mapping__init(m);
	m->id = b->next_mapping_id++;
	m->memory_start = start;
	m->memory_limit = limit;
	m->file_offset = offset;
	m->filename = fi;
	m->build_id = bi;
	if (push_ptr(b, (void ***)&pb->mapping, &pb->n_mapping, &b->cap_mappings, m))
		return NULL;
	return m;
}

/* Index the locations the profile had when the builder was made: done once, on first use. */
static int locs_index(struct psym_builder *b)
{
	pb_profile *pb = b->p->pb;
	int ret;

	b->locs_ready = true;
	ret = psym_idxset_reserve(&b->locs, pb->n_location, loc_hash_at, b);
	for (size_t i = 0; i < pb->n_location && !ret; i++)
		ret = psym_idxset_add(&b->locs, (uint32_t)i, loc_hash_at(b, (uint32_t)i),
				      loc_hash_at, b);
	return ret ? fail(b, ret) : 0;
}

uint64_t psym_builder_location(struct psym_builder *b, uint64_t mapping_id, uint64_t address)
{
	pb_profile *pb = b->p->pb;
	uint64_t h;
	pb_location *l;

	if (!b->locs_ready && locs_index(b))
		return 0;
	h = loc_hash(b, mapping_id, address);

	PSYM_IDXSET_PROBE(&b->locs, h, j)
	{
		pb_location *o = pb->location[b->locs.slot[j] - 1];

		if (o->mapping_id == mapping_id && o->address == address)
			return o->id;
	}
	l = psym_arena_alloc(&b->p->arena, sizeof(*l));
	if (!l) {
		fail(b, psym_arena_error(&b->p->arena));
		return 0;
	}
	perftools__profiles__location__init(l);
	l->id = b->next_location_id++;
	l->mapping_id = mapping_id;
	l->address = address;
	if (push_ptr(b, (void ***)&pb->location, &pb->n_location, &b->cap_locations, l))
		return 0;
	if (psym_idxset_add(&b->locs, (uint32_t)(pb->n_location - 1), h, loc_hash_at, b)) {
		fail(b, PSYM_ENOMEM);
		return 0;
	}
	return l->id;
}

int psym_builder_add_line(struct psym_builder *b, pb_location *loc, uint64_t function_id,
			  int64_t line, int64_t column)
{
	pb_line *ln = psym_arena_alloc(&b->p->arena, sizeof(*ln));
	size_t cap = loc->n_line;
	pb_line **arr;

	if (!ln)
		return fail(b, psym_arena_error(&b->p->arena));
	perftools__profiles__line__init(ln);
	ln->function_id = function_id;
	ln->line = line;
	ln->column = column;
	/* Lines are few per location: grow exactly, the arena keeps it cheap. */
	arr = psym_arena_alloc(&b->p->arena, (cap + 1) * sizeof(*arr));
	if (!arr)
		return fail(b, psym_arena_error(&b->p->arena));
	if (cap)
		memcpy(arr, loc->line, cap * sizeof(*arr));
	arr[cap] = ln;
	loc->line = arr;
	loc->n_line = cap + 1;
	return 0;
}

/* ---- shared Lines ------------------------------------------------------- */

static uint64_t line_hash(const struct psym_builder *b, const struct psym_line_val *v)
{
	uint64_t k[3] = { v->function_id, (uint64_t)v->line, (uint64_t)v->column };

	return psym_idxset_hash_u64s(&b->lineset, k, 3);
}

static uint64_t line_hash_at(void *ctx, uint32_t i)
{
	const struct psym_builder *b = ctx;

	return b->lines[i].h;
}

/* Lines are interned first, so a chain is equal to another when its pointers are. */
static uint64_t chain_hash(const struct psym_builder *b, pb_line *const *arr, size_t n)
{
	uint64_t h = b->chainset.seed ^ n;

	for (size_t i = 0; i < n; i++)
		h = psym_hash_mix(h ^
				  ((uint64_t)(uintptr_t)arr[i] + 0x9e3779b97f4a7c15ULL * (i + 1)));
	return h;
}

static uint64_t chain_hash_at(void *ctx, uint32_t i)
{
	const struct psym_builder *b = ctx;

	return b->chains[i].h;
}

/* Grow a malloc'd array (not the arena: old copies would stay until the end). */
static int grow(struct psym_builder *b, void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : 1024;
	void *na;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	if (nc > UINT32_MAX - 1 || !(na = realloc(*arr, nc * elem)))
		return fail(b, nc > UINT32_MAX - 1 ? PSYM_ELIMIT : PSYM_ENOMEM);
	*arr = na;
	*cap = nc;
	return 0;
}

static bool line_is(const pb_line *l, const struct psym_line_val *v)
{
	return l->function_id == v->function_id && l->line == v->line && l->column == v->column;
}

static pb_line *line_intern(struct psym_builder *b, const struct psym_line_val *v)
{
	uint64_t h = line_hash(b, v);
	uint32_t *recent = &b->recent_line[h & (RECENT - 1)];
	pb_line *l;

	if (*recent && b->lines[*recent - 1].h == h && line_is(b->lines[*recent - 1].l, v))
		return b->lines[*recent - 1].l;
	PSYM_IDXSET_PROBE(&b->lineset, h, j)
	{
		const struct sline *sl = &b->lines[b->lineset.slot[j] - 1];

		if (sl->h == h && line_is(sl->l, v)) {
			*recent = b->lineset.slot[j];
			return sl->l;
		}
	}
	if (grow(b, (void **)&b->lines, &b->cap_lines, b->n_lines + 1, sizeof(*b->lines)))
		return NULL;
	l = psym_arena_alloc(&b->p->arena, sizeof(*l));
	if (!l) {
		fail(b, psym_arena_error(&b->p->arena));
		return NULL;
	}
	perftools__profiles__line__init(l);
	l->function_id = v->function_id;
	l->line = v->line;
	l->column = v->column;
	b->lines[b->n_lines].l = l;
	b->lines[b->n_lines++].h = h;
	*recent = (uint32_t)b->n_lines;
	if (psym_idxset_add(&b->lineset, (uint32_t)(b->n_lines - 1), h, line_hash_at, b)) {
		fail(b, PSYM_ENOMEM);
		return NULL;
	}
	return l;
}

int psym_builder_set_line_chain(struct psym_builder *b, pb_location *loc,
				const struct psym_line_val *v, size_t n)
{
	pb_line *tmp[PSYM_BUILDER_MAX_CHAIN];
	const struct chain *last = b->n_chains ? &b->chains[b->last_chain] : NULL;
	struct chain *c;
	uint32_t *recent;
	uint64_t h;

	if (n > PSYM_BUILDER_MAX_CHAIN)
		return fail(b, PSYM_ELIMIT);
	if (n == 0) {
		loc->line = NULL;
		loc->n_line = 0;
		return 0;
	}
	/*
	 * Locations come in address order: a neighbour mostly has the same
	 * callers (the outer Lines, compared from the end) and often the same
	 * chain, found here without hashing.
	 */
	for (size_t i = 0; i < n; i++) {
		size_t back = n - 1 - i;

		if (last && back < last->n && line_is(last->arr[last->n - 1 - back], &v[i]))
			tmp[i] = last->arr[last->n - 1 - back];
		else if (!(tmp[i] = line_intern(b, &v[i])))
			return b->err;
	}
	if (last && last->n == n && memcmp(last->arr, tmp, n * sizeof(*tmp)) == 0) {
		loc->line = last->arr;
		loc->n_line = n;
		return 0;
	}
	h = chain_hash(b, tmp, n);
	recent = &b->recent_chain[h & (RECENT - 1)];
	c = *recent ? &b->chains[*recent - 1] : NULL;
	if (c && c->h == h && c->n == n && memcmp(c->arr, tmp, n * sizeof(*tmp)) == 0) {
		b->last_chain = *recent - 1;
		loc->line = c->arr;
		loc->n_line = n;
		return 0;
	}
	PSYM_IDXSET_PROBE(&b->chainset, h, j)
	{
		c = &b->chains[b->chainset.slot[j] - 1];
		if (c->h == h && c->n == n && memcmp(c->arr, tmp, n * sizeof(*tmp)) == 0) {
			b->last_chain = b->chainset.slot[j] - 1;
			*recent = b->chainset.slot[j];
			loc->line = c->arr;
			loc->n_line = n;
			return 0;
		}
	}
	if (grow(b, (void **)&b->chains, &b->cap_chains, b->n_chains + 1, sizeof(*b->chains)))
		return b->err;
	c = &b->chains[b->n_chains];
	c->arr = psym_arena_alloc(&b->p->arena, n * sizeof(*tmp));
	if (!c->arr)
		return fail(b, psym_arena_error(&b->p->arena));
	memcpy(c->arr, tmp, n * sizeof(*tmp));
	c->n = n;
	c->h = h;
	b->n_chains++;
	if (psym_idxset_add(&b->chainset, (uint32_t)(b->n_chains - 1), h, chain_hash_at, b))
		return fail(b, PSYM_ENOMEM);
	b->last_chain = b->n_chains - 1;
	*recent = (uint32_t)b->n_chains;
	loc->line = c->arr;
	loc->n_line = n;
	return 0;
}

void psym_builder_mapping_resolved(struct psym_builder *b, pb_mapping *m, bool filename, bool line,
				   bool inlined)
{
	(void)b;
	m->has_functions = true;
	if (filename)
		m->has_filenames = true;
	if (line)
		m->has_line_numbers = true;
	if (inlined)
		m->has_inline_frames = true;
}

int psym_builder_sample_type(struct psym_builder *b, const char *type, const char *unit)
{
	pb_profile *pb = b->p->pb;
	pb_value_type *vt = psym_arena_alloc(&b->p->arena, sizeof(*vt));
	int64_t t, u;

	if (!vt)
		return fail(b, psym_arena_error(&b->p->arena));
	perftools__profiles__value_type__init(vt);
	t = psym_builder_str(b, type);
	u = psym_builder_str(b, unit);
	if (t < 0 || u < 0)
		return b->err;
	vt->type = t;
	vt->unit = u;
	return push_ptr(b, (void ***)&pb->sample_type, &pb->n_sample_type, &b->cap_sample_types,
			vt);
}

/* A sample's locations and values into its arrays (allocated, zeroed where not given). */
static void sample_fill(pb_sample *s, const uint64_t *locs, size_t nlocs, const int64_t *values,
			size_t nvalues)
{
	if (nlocs)
		memcpy(s->location_id, locs, nlocs * sizeof(uint64_t));
	if (nvalues)
		memcpy(s->value, values, nvalues * sizeof(int64_t));
	s->n_location_id = nlocs;
	s->n_value = nvalues;
}

pb_sample *psym_builder_sample(struct psym_builder *b, const uint64_t *locs, size_t nlocs,
			       const int64_t *values, size_t nvalues)
{
	pb_profile *pb = b->p->pb;
	pb_sample *s = psym_arena_alloc(&b->p->arena, sizeof(*s));

	if (!s) {
		fail(b, psym_arena_error(&b->p->arena));
		return NULL;
	}
	perftools__profiles__sample__init(s);
	s->location_id = psym_arena_calloc(&b->p->arena, nlocs ? nlocs : 1, sizeof(uint64_t));
	s->value = psym_arena_calloc(&b->p->arena, nvalues ? nvalues : 1, sizeof(int64_t));
	if (!s->location_id || !s->value) {
		fail(b, psym_arena_error(&b->p->arena));
		return NULL;
	}
	sample_fill(s, locs, nlocs, values, nvalues);
	if (push_ptr(b, (void ***)&pb->sample, &pb->n_sample, &b->cap_samples, s))
		return NULL;
	return s;
}

pb_sample *psym_builder_sample_labels(struct psym_builder *b, const uint64_t *locs, size_t nlocs,
				      const int64_t *values, size_t nvalues,
				      const struct psym_builder_label *labels, size_t nlabels)
{
	pb_profile *pb = b->p->pb;
	size_t nl = nlocs ? nlocs : 1, nv = nvalues ? nvalues : 1, nown = 0;
	size_t max = (SIZE_MAX / 2 - sizeof(pb_sample)) / (sizeof(pb_label *) + sizeof(pb_label));
	unsigned char *m;
	pb_label *lb;
	pb_sample *s;

	if (nl > max || nv > max || nlabels > max) {
		fail(b, PSYM_ELIMIT);
		return NULL;
	}
	for (size_t i = 0; i < nlabels; i++)
		nown += !labels[i].same;
	m = psym_arena_alloc(&b->p->arena, sizeof(*s) + (nl + nv) * sizeof(uint64_t) +
						   nlabels * sizeof(pb_label *) +
						   nown * sizeof(pb_label));
	if (!m) {
		fail(b, psym_arena_error(&b->p->arena));
		return NULL;
	}
	/* Each part's size is a multiple of 8 bytes: each stays aligned. */
	_Static_assert(sizeof(pb_sample) % 8 == 0 && sizeof(pb_label) % 8 == 0,
		       "sample and label sizes keep 8-byte alignment");
	s = (pb_sample *)m;
	perftools__profiles__sample__init(s);
	s->location_id = (uint64_t *)(s + 1);
	s->value = (int64_t *)(s->location_id + nl);
	s->label = (pb_label **)(s->value + nv);
	lb = (pb_label *)(s->label + nlabels);
	memset(s->location_id, 0, nl * sizeof(uint64_t));
	memset(s->value, 0, nv * sizeof(int64_t));
	sample_fill(s, locs, nlocs, values, nvalues);
	for (size_t i = 0; i < nlabels; i++) {
		const struct psym_builder_label *l = &labels[i];
		int64_t k, v = 0, u = 0;

		if (l->same) {
			s->label[i] = l->same;
			continue;
		}
		perftools__profiles__label__init(lb);
		k = psym_builder_str(b, l->key);
		if (l->str)
			v = psym_builder_str(b, l->str);
		else if (l->unit)
			u = psym_builder_str(b, l->unit);
		if (k < 0 || v < 0 || u < 0)
			return NULL;
		lb->key = k;
		lb->str = v;
		lb->num = l->str ? 0 : l->num;
		lb->num_unit = u;
		s->label[i] = lb++;
	}
	s->n_label = nlabels;
	if (push_ptr(b, (void ***)&pb->sample, &pb->n_sample, &b->cap_samples, s))
		return NULL;
	return s;
}

static int add_label(struct psym_builder *b, pb_sample *s, pb_label *lb)
{
	size_t n = s->n_label;
	pb_label **arr = psym_arena_alloc(&b->p->arena, (n + 1) * sizeof(*arr));

	if (!arr)
		return fail(b, psym_arena_error(&b->p->arena));
	if (n)
		memcpy(arr, s->label, n * sizeof(*arr));
	arr[n] = lb;
	s->label = arr;
	s->n_label = n + 1;
	return 0;
}

int psym_builder_label_str(struct psym_builder *b, pb_sample *s, const char *key, const char *str)
{
	pb_label *lb = psym_arena_alloc(&b->p->arena, sizeof(*lb));
	int64_t k, v;

	if (!lb)
		return fail(b, psym_arena_error(&b->p->arena));
	perftools__profiles__label__init(lb);
	k = psym_builder_str(b, key);
	v = psym_builder_str(b, str);
	if (k < 0 || v < 0)
		return b->err;
	lb->key = k;
	lb->str = v;
	return add_label(b, s, lb);
}

int psym_builder_label_num(struct psym_builder *b, pb_sample *s, const char *key, int64_t num,
			   const char *unit)
{
	pb_label *lb = psym_arena_alloc(&b->p->arena, sizeof(*lb));
	int64_t k, u = 0;

	if (!lb)
		return fail(b, psym_arena_error(&b->p->arena));
	perftools__profiles__label__init(lb);
	k = psym_builder_str(b, key);
	if (unit)
		u = psym_builder_str(b, unit);
	if (k < 0 || u < 0)
		return b->err;
	lb->key = k;
	lb->num = num;
	lb->num_unit = u;
	return add_label(b, s, lb);
}

int psym_builder_comment(struct psym_builder *b, const char *text)
{
	pb_profile *pb = b->p->pb;
	int64_t c = psym_builder_str(b, text);
	int ret;

	if (c < 0)
		return b->err;
	ret = psym_arena_grow(&b->p->arena, (void **)&pb->comment, &b->cap_comments,
			      pb->n_comment + 1, sizeof(int64_t));
	if (ret)
		return fail(b, ret);
	pb->comment[pb->n_comment++] = c;
	return 0;
}
