/* SPDX-License-Identifier: MIT */
/*
 * Decoding one CU's DIEs into its function tree: subprograms and inlined
 * subroutines that have code, each with its ranges; only the subtrees that
 * can hold them are walked, the rest is jumped over with DW_AT_sibling or
 * skipped DIE by DIE. Nesting depth and entries are capped.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "abbrev.h"
#include "alt.h"
#include "die.h"
#include "inline.h"
#include "ranges.h"
#include "array.h"
#include "search.h"

/* A new entry of c; nempty entries so far are inlined calls without code (not capped). */
static int new_entry(struct psym_dwarf *d, struct cu *c, uint32_t parent, size_t nempty,
		     uint32_t *out, struct psym_err *e)
{
	struct entry *en, *n;

	if (c->nentries - nempty >= d->o.max_entries)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': more than %zu functions in one CU",
				    d->path, d->o.max_entries);
	n = psym_array_grow(c->entries, &c->capentries, c->nentries + 1, sizeof(*n), 0);
	if (!n)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	c->entries = n;
	en = &c->entries[c->nentries];
	memset(en, 0, sizeof(*en));
	en->parent = parent;
	*out = (uint32_t)c->nentries++;
	return 0;
}

static int cmp_kid(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/*
 * The nearest ancestor of en that has code of its own. An inlined
 * subroutine without (gcc's low_pc == high_pc for a call whose code went
 * to the calls inlined into it) is a frame of their chains, as
 * llvm-symbolizer has it, but no range to look them up in: they are found
 * through the ancestor, and the lookup puts it back (dw_empty_between).
 * Parents come before their children, so the walk ends.
 */
static uint32_t ranged_parent(const struct cu *c, const struct entry *en)
{
	uint32_t p = en->parent;

	while (!c->entries[p].range_count && c->entries[p].parent != NONE)
		p = c->entries[p].parent;
	return p;
}

size_t dw_empty_between(const struct cu *c, uint32_t outer, uint32_t inner, uint32_t *out,
			size_t max)
{
	size_t n = 0;

	for (uint32_t p = c->entries[inner].parent; p != NONE && p != outer;
	     p = c->entries[p].parent)
		n++;
	if (n > max)
		n = max;
	for (uint32_t p = c->entries[inner].parent, k = (uint32_t)n;
	     p != NONE && p != outer && k > 0; p = c->entries[p].parent)
		out[--k] = p;
	return n;
}

/*
 * Index the ranges of each entry's children, sorted by start, in one array
 * (a counting sort by parent keeps DIE order, which is mostly address order).
 */
static int index_kids(struct cu *c)
{
	size_t total = 0;

	for (size_t i = 0; i < c->nentries; i++) {
		struct entry *en = &c->entries[i];

		en->kid_first = en->kid_count = 0;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		const struct entry *en = &c->entries[i];

		if (en->parent != NONE && en->range_count) {
			c->entries[ranged_parent(c, en)].kid_count += en->range_count;
			total += en->range_count;
		}
	}
	if (total >= UINT32_MAX)
		return PSYM_ELIMIT;
	c->kids = malloc((total ? total : 1) * sizeof(*c->kids));
	if (!c->kids)
		return PSYM_ENOMEM;
	c->nkids = total;
	total = 0;
	for (size_t i = 0; i < c->nentries; i++) {
		struct entry *en = &c->entries[i];

		en->kid_first = (uint32_t)total;
		total += en->kid_count;
		en->kid_count = 0;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		const struct entry *en = &c->entries[i];
		struct entry *p;

		if (en->parent == NONE || !en->range_count)
			continue;
		p = &c->entries[ranged_parent(c, en)];
		for (uint32_t k = 0; k < en->range_count; k++) {
			const struct erange *r = &c->ranges[en->range_first + k];

			c->kids[p->kid_first + p->kid_count++] =
				(struct kid){ r->lo, r->hi, 0, (uint32_t)i };
		}
	}
	for (size_t i = 0; i < c->nentries; i++) {
		const struct entry *en = &c->entries[i];
		struct kid *k = c->kids + en->kid_first;
		uint64_t maxhi = 0;

		for (uint32_t j = 1; j < en->kid_count; j++) {
			if (cmp_kid(&k[j - 1], &k[j]) > 0) {
				qsort(k, en->kid_count, sizeof(*k), cmp_kid);
				break;
			}
		}
		for (uint32_t j = 0; j < en->kid_count; j++) {
			if (k[j].hi > maxhi)
				maxhi = k[j].hi;
			k[j].maxhi = maxhi;
		}
	}
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/*
 * Tags whose children can hold functions with code (besides functions
 * themselves). Classes only inside a function: the member functions of a
 * local class are defined in it (the operator() of every lambda, which g++
 * puts in the closure type inside the enclosing function's DIE, even when
 * that DIE is only the abstract instance of an inlined function), while
 * gcc and clang define those of other classes at namespace level
 * (DW_AT_specification); walking every class body of every header cost a
 * quarter of the decoding time on libjvm.
 */
static inline bool scope_tag(uint32_t tag, bool in_function)
{
	switch (tag) {
	case TAG_lexical_block:
	case TAG_namespace:
	case TAG_module:
	case TAG_try_block:
	case TAG_catch_block: return true;
	case TAG_class_type:
	case TAG_structure_type:
	case TAG_union_type: return in_function;
	default: return false;
	}
}

/*
 * On the walk's stack, per open level: the nearest function entry (the
 * parent of inlined subroutines found below), NONE outside any function,
 * or IN_FUNCTION inside a function that has no entry (an abstract
 * instance, a declaration, a function without ranges): classes there are
 * walked for the functions with code they define, inlined subroutines
 * there have no caller to hang from.
 */
#define IN_FUNCTION (NONE - 1)

/* What one CU's walk builds, over the CU and the units it imports. */
struct walk {
	struct psym_dwarf *d; /* the CU's */
	struct cu *c;
	struct rangebuf rb;
	size_t ntop;
	size_t nempty;	      /* entries of inlined calls without code (drop_empty) */
	struct imported seen; /* imported units walked (alt.h) */
	struct psym_err *e;
};

/* One unit's walk: where its DIEs are read. */
struct unitwalk {
	struct psym_dwarf *src; /* the file the unit is in */
	struct cu *u;
	struct unitfmt uf;
	const uint8_t *base; /* src's .debug_info */
	struct cur cur;
	uint64_t low_pc; /* the base of its DWARF 4 ranges */
	unsigned import_depth;
};

/* Where the walk goes after a DIE's attributes (an error is negative). */
enum next {
	STOP = 1,  /* corrupt DIEs: keep what was found */
	NEXT,	   /* the DIE and its children, if any, are done */
	DESCEND,   /* walk its children (its attributes were read) */
	SKIP_KIDS, /* skip its children (its attributes were read) */
	SKIP_ALL,  /* skip its attributes and its children */
};

static int walk_unit(struct walk *w, struct psym_dwarf *src, struct cu *u, uint32_t parent0,
		     unsigned import_depth);

/* en from the DIE x of the unit, its nr ranges at first in the walk's ranges. */
static void fill_entry(struct entry *en, const struct walk *w, const struct unitwalk *uw,
		       struct die *x, size_t first, int nr)
{
	struct psym_dwarf *src = uw->src;
	const struct cu *u = uw->u;

	en->range_first = (uint32_t)first;
	en->range_count = (uint32_t)nr;
	en->name = dw_resolve_str(src, u, &x->name);
	en->linkage = dw_resolve_str(src, u, &x->linkage);
	en->decl_line = x->decl_line <= UINT32_MAX ? (uint32_t)x->decl_line : 0;
	/* An imported unit's file indexes are not the CU's. */
	en->decl_file_state = u == w->c || x->decl_file_state != DECL_FILE_INDEX
				      ? x->decl_file_state
				      : DECL_FILE_NONAME;
	en->decl_file_idx = (uint32_t)x->decl_file;
	en->has_low_pc = x->has_low && (!form_is_addrx(x->low_form) ||
					dw_read_addrx(src, u, x->low_pc, &x->low_pc));
	en->low_pc = en->has_low_pc ? x->low_pc : 0;
	en->gnu_low = en->has_low_pc ? en->low_pc : nr > 0 ? w->rb.r[first].lo : 0;
	en->origin = x->origin != NOREF ? x->origin : x->spec;
	if (src != w->d && en->origin != NOREF)
		en->origin |= DW_ALT_REF;
	en->call_file = x->call_file <= UINT32_MAX ? (uint32_t)x->call_file : 0;
	en->call_line = x->call_line <= UINT32_MAX ? (uint32_t)x->call_line : 0;
	en->call_column = x->call_column <= UINT32_MAX ? (uint32_t)x->call_column : 0;
	en->call_discriminator =
		x->call_discriminator <= UINT32_MAX ? (uint32_t)x->call_discriminator : 0;
}

/*
 * A subprogram or inlined subroutine that may have code, under up: an
 * entry when it has ranges, or when it is an inlined call under a
 * function (kept without code: see ranged_parent). *mine: what its
 * children hang from.
 */
static int add_function(struct walk *w, struct unitwalk *uw, const struct abbrev *a, uint32_t up,
			uint32_t *mine)
{
	uint32_t parent = up == IN_FUNCTION ? NONE : up;
	bool subprogram = a->tag == TAG_subprogram;
	size_t first = w->rb.n;
	struct die x;
	int nr, ret;

	if (!dw_read_die(&uw->cur, uw->u, a, &x))
		return STOP;
	/*
	 * GNU addr2line 2.40 reads no function's DW_AT_ranges given as an
	 * index (DW_FORM_rnglistx: clang's DWARF 5): such a function or
	 * inlined call has no code for it.
	 */
	if (w->d->o.gnu_lines && x.has_ranges && x.ranges_form == FORM_rnglistx)
		x.has_ranges = false;
	nr = dw_die_ranges(uw->src, uw->u, &x, uw->low_pc, &w->rb);
	if (nr < 0)
		return psym_err_set(w->e, PSYM_ENOMEM, "out of memory");
	if (subprogram ? nr == 0 : parent == NONE) {
		w->rb.n = first;
		if (subprogram && up == NONE)
			*mine = IN_FUNCTION;
		return DESCEND;
	}
	/* A subprogram nested in another is its own top level. */
	ret = new_entry(w->d, w->c, subprogram ? NONE : parent, w->nempty, mine, w->e);
	if (ret)
		return ret;
	w->nempty += nr == 0;
	fill_entry(&w->c->entries[*mine], w, uw, &x, first, nr);
	if (subprogram)
		w->ntop += (size_t)nr;
	return DESCEND;
}

/* DW_TAG_imported_unit (dwz): the partial unit's DIEs are part of this unit, here. */
static int walk_import(struct walk *w, struct unitwalk *uw, const struct abbrev *a, uint32_t up)
{
	struct psym_dwarf *isrc;
	struct cu *iu = dw_import_target(w->d, uw->src, uw->u, &uw->cur, &uw->uf, a, &isrc);
	int ret;

	if (!uw->cur.ok)
		return STOP;
	if (iu && uw->import_depth < MAX_IMPORT_DEPTH && dw_imported_add(&w->seen, iu)) {
		ret = walk_unit(w, isrc, iu, up, uw->import_depth + 1);
		if (ret)
			return ret;
	}
	return a->children ? SKIP_KIDS : NEXT;
}

/* The DIE at the cursor, of abbreviation a, under up (see IN_FUNCTION): its attributes. */
static int visit_die(struct walk *w, struct unitwalk *uw, const struct abbrev *a, uint32_t up,
		     uint32_t *mine)
{
	const struct abtab *t = uw->u->ab;
	uint32_t tag = a->tag;

	if (a->has_pc &&
	    (tag == TAG_subprogram || (tag == TAG_inlined_subroutine && w->d->o.inlines)))
		return add_function(w, uw, a, up, mine);
	if (tag == TAG_subprogram) {
		/* No code of its own, but its local classes may have some. */
		if (!skip_attrs(&uw->cur, &uw->uf, t, a))
			return STOP;
		*mine = IN_FUNCTION;
		return DESCEND;
	}
	if (tag == TAG_imported_unit)
		return walk_import(w, uw, a, up);
	if (scope_tag(tag, up != NONE))
		return skip_attrs(&uw->cur, &uw->uf, t, a) ? DESCEND : STOP;
	if (!a->children)
		return skip_attrs(&uw->cur, &uw->uf, t, a) ? NEXT : STOP;
	return SKIP_ALL;
}

/*
 * The attributes of the DIE at die, which has DW_AT_sibling: 1 when the
 * sibling is ahead in the unit (the cursor is there now), 0 when not (the
 * attributes were read), -1 when they are corrupt.
 */
static int to_sibling(struct unitwalk *uw, const struct abbrev *a, const uint8_t *die)
{
	const struct attrspec *as = &uw->u->ab->attrs[a->attr0];
	struct cur *cur = &uw->cur;
	struct fval v;
	bool ok;
	uint64_t sib;

	for (int i = 0; i < a->sibling; i++)
		if (!skip_sized(cur, &uw->uf, as[i].size, as[i].form))
			return -1;
	if (!read_form(cur, &uw->uf, as[a->sibling].form, as[a->sibling].implicit, &v))
		return -1;
	sib = ref_abs(uw->u, &v, &ok);
	if (ok && sib > (uint64_t)(die - uw->base) && sib <= uw->u->end) {
		cur->p = uw->base + sib;
		return 1;
	}
	for (int i = a->sibling + 1; i < a->nattr; i++)
		if (!skip_sized(cur, &uw->uf, as[i].size, as[i].form))
			return -1;
	return 0;
}

/*
 * Skip the children of the DIE at die, and its attributes first unless
 * attrs_read: by DW_AT_sibling, or DIE by DIE. false when corrupt.
 */
static bool skip_subtree(struct unitwalk *uw, const struct abbrev *a, const uint8_t *die,
			 bool attrs_read)
{
	const struct abtab *t = uw->u->ab;
	struct cur *cur = &uw->cur;

	if (!attrs_read && a->sibling >= 0) {
		int r = to_sibling(uw, a, die);

		if (r != 0)
			return r > 0;
	} else if (!attrs_read && !skip_attrs(cur, &uw->uf, t, a)) {
		return false;
	}
	for (size_t level = 1; level > 0 && cur->ok;) {
		uint64_t code = rd_uleb(cur);
		const struct abbrev *b;

		if (code == 0) {
			level--;
			continue;
		}
		b = abbrev_find(t, code);
		if (!b || !skip_attrs(cur, &uw->uf, t, b))
			return false;
		if (b->children)
			level++;
	}
	return true;
}

/*
 * Walk the DIEs of unit u of src (the CU itself, or a unit it imports),
 * adding what has code to the CU; parent0 is what the first level hangs
 * from. Returns 0 or an error (ENOMEM, ELIMIT); corrupt DIEs end the walk
 * of this unit with what was found.
 */
static int walk_unit(struct walk *w, struct psym_dwarf *src, struct cu *u, uint32_t parent0,
		     unsigned import_depth)
{
	struct unitwalk uw = {
		.src = src,
		.u = u,
		.uf = { u->version, u->addr_size, u->offsz },
		.base = src->sec[S_INFO].p,
		.cur = sec_cur(src, S_INFO, u->die_off),
		/* DWARF 4 ranges of an imported unit without a base of its own: the CU's. */
		.low_pc = u == w->c || u->low_pc ? u->low_pc : w->c->low_pc,
		.import_depth = import_depth,
	};
	const struct abtab *t = u->ab;
	uint32_t *stack; /* per open level: see IN_FUNCTION */
	size_t depth = 0;
	const struct abbrev *a;
	int ret = 0;

	uw.cur.end = uw.base + u->end;
	stack = malloc((w->d->o.max_depth + 1) * sizeof(*stack));
	if (!stack)
		return psym_err_set(w->e, PSYM_ENOMEM, "out of memory");
	/* The unit's DIE: its attributes were read at open. */
	a = abbrev_find(t, rd_uleb(&uw.cur));
	if (!uw.cur.ok || !a || !a->children || !skip_attrs(&uw.cur, &uw.uf, t, a))
		goto out;
	stack[depth++] = parent0;
	while (depth > 0 && uw.cur.ok) {
		const uint8_t *die = uw.cur.p;
		uint64_t code = rd_uleb(&uw.cur);
		uint32_t mine = stack[depth - 1];
		int next;

		if (code == 0) {
			depth--;
			continue;
		}
		a = abbrev_find(t, code);
		if (!a || !uw.cur.ok)
			break; /* corrupt: keep what was found */
		next = visit_die(w, &uw, a, stack[depth - 1], &mine);
		if (next < 0)
			ret = next;
		if (next < 0 || next == STOP)
			break;
		if (next == NEXT || !a->children)
			continue;
		if (next == DESCEND && depth <= w->d->o.max_depth) {
			stack[depth++] = mine;
			continue;
		}
		if (!skip_subtree(&uw, a, die, next != SKIP_ALL))
			break;
	}
out:
	free(stack);
	return ret;
}

/*
 * Drop the entries of inlined calls without code that no call with code
 * hangs from: most are calls optimized away whole, and only those with
 * such calls below them are frames of a chain (ranged_parent). Parents
 * come before their children, so one pass backwards marks what is kept
 * and one forwards renumbers it. Out of memory: all are kept (correct,
 * only larger).
 */
static void drop_empty(struct cu *c, size_t nempty)
{
	uint32_t *map, k = 0;
	struct entry *shrunk;

	if (!nempty || !(map = malloc(c->nentries * sizeof(*map))))
		return;
	for (size_t i = 0; i < c->nentries; i++)
		map[i] = c->entries[i].range_count || c->entries[i].parent == NONE;
	for (size_t i = c->nentries; i-- > 0;)
		if (map[i] && c->entries[i].parent != NONE)
			map[c->entries[i].parent] = 1;
	for (size_t i = 0; i < c->nentries; i++) {
		struct entry en = c->entries[i];

		if (!map[i]) {
			map[i] = NONE;
			continue;
		}
		if (en.parent != NONE)
			en.parent = map[en.parent];
		map[i] = k;
		c->entries[k++] = en;
	}
	free(map);
	c->nentries = k;
	shrunk = realloc(c->entries, (k ? k : 1) * sizeof(*c->entries));
	if (shrunk) {
		c->entries = shrunk;
		c->capentries = k ? k : 1;
	}
}

int dw_decode_dies(struct psym_dwarf *d, struct cu *c, struct psym_err *e)
{
	struct walk w = { .d = d, .c = c, .e = e };
	int ret = dw_imported_add(&w.seen, c) ? walk_unit(&w, d, c, NONE, 0)
					      : psym_err_set(e, PSYM_ENOMEM, "out of memory");

	dw_imported_free(&w.seen);
	if (ret)
		goto out;
	drop_empty(c, w.nempty);
	c->ranges = w.rb.r;
	c->nranges = w.rb.n;
	w.rb.r = NULL;
	/* Top-level lookup table: every range of every subprogram. */
	c->tops = calloc(w.ntop + 1, sizeof(*c->tops));
	if (!c->tops) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		struct entry *en = &c->entries[i];

		if (en->parent != NONE)
			continue;
		for (uint32_t k = 0; k < en->range_count && c->ntops < w.ntop; k++)
			c->tops[c->ntops++] =
				(struct top){ c->ranges[en->range_first + k].lo,
					      c->ranges[en->range_first + k].hi, (uint32_t)i };
	}
	qsort(c->tops, c->ntops, sizeof(*c->tops), cmp_top);
	ret = index_kids(c);
	if (ret)
		ret = psym_err_set(e, ret, "'%s': %s", d->path, psym_strerror(ret));
out:
	free(w.rb.r);
	return ret;
}

uint32_t dw_find_top(const struct cu *c, uint64_t a)
{
	size_t lo = PSYM_LOWER_BOUND(0, c->ntops, i, c->tops[i].lo > a);

	/* Nested or overlapping top-level ranges: the closest start wins. */
	for (size_t k = 0; k < 32 && lo > k; k++) {
		const struct top *t = &c->tops[lo - 1 - k];

		if (a < t->hi)
			return t->entry;
	}
	return NONE;
}

/*
 * The child of en whose range holds a. Siblings should not overlap; when
 * they do, the first in DIE order wins, as with llvm-symbolizer.
 */
uint32_t dw_find_kid(const struct cu *c, const struct entry *en, uint64_t a)
{
	size_t first = en->kid_first;
	size_t lo = PSYM_LOWER_BOUND(first, first + en->kid_count, i, c->kids[i].lo > a);
	uint32_t best = NONE;

	for (size_t k = lo, n = 0; k > first && n < 4096; k--, n++) {
		const struct kid *r = &c->kids[k - 1];

		if (r->maxhi <= a)
			break; /* nothing at or before k - 1 reaches a */
		if (a < r->hi && r->entry < best)
			best = r->entry;
	}
	return best;
}
