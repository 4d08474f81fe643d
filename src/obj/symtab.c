/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "symtab.h"
#include "array.h"
#include "search.h"

#define DEFAULT_MAX ((size_t)16 << 20)
#define DEFAULT_SCAN_NEAREST 64
#define DEFAULT_SCAN_LATEST 1024

void psym_symtab_init(struct psym_symtab *t, const struct psym_symtab_opts *o)
{
	memset(t, 0, sizeof(*t));
	t->o = *o;
	if (!t->o.max_entries)
		t->o.max_entries = DEFAULT_MAX;
	if (t->o.max_entries > UINT32_MAX)
		t->o.max_entries = UINT32_MAX; /* seq numbers stay distinct */
	if (!t->o.what)
		t->o.what = "symbols";
	if (!t->o.scan_back)
		t->o.scan_back = t->o.rule == PSYM_SYMTAB_LATEST ? DEFAULT_SCAN_LATEST
								 : DEFAULT_SCAN_NEAREST;
}

void psym_symtab_free(struct psym_symtab *t)
{
	free(t->s);
	free(t->maxend);
	t->s = NULL;
	t->maxend = NULL;
	t->n = t->cap = 0;
	t->ready = false;
}

void psym_symtab_clear(struct psym_symtab *t)
{
	t->n = 0;
	t->next_seq = 0;
	t->ready = false;
}

int psym_symtab_push(struct psym_symtab *t, const struct psym_sym *s, const char *src,
		     struct psym_err *e)
{
	struct psym_sym *ns;

	if (t->n >= t->o.max_entries)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': more than %zu %s (%s)", src,
				    t->o.max_entries, t->o.what,
				    t->o.limit_flag ? t->o.limit_flag : "a built-in cap");
	ns = psym_array_grow(t->s, &t->cap, t->n + 1, sizeof(*ns), 0);
	if (!ns)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	t->s = ns;
	t->s[t->n] = *s;
	t->s[t->n].end = 0;
	t->s[t->n].seq = t->next_seq++;
	t->n++;
	t->ready = false;
	return 0;
}

static int cmp_nearest(const struct psym_sym *x, const struct psym_sym *y, bool by_name)
{
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* A zero-size alias (a label) never beats a sized entry. */
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/*
	 * Bigger size first among equals, then the alias pushed last (as
	 * llvm-symbolizer keeps the last in the symbol table) or the
	 * smallest name, then the other of the two.
	 */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (by_name) {
		int c = strcmp(x->name, y->name);

		if (c)
			return c;
	}
	if (x->seq != y->seq)
		return x->seq > y->seq ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_nearest_seq(const void *a, const void *b)
{
	return cmp_nearest(a, b, false);
}

static int cmp_nearest_name(const void *a, const void *b)
{
	return cmp_nearest(a, b, true);
}

static int cmp_latest(const void *a, const void *b)
{
	const struct psym_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Ends of zero-size entries bounded by regions: one sweep over the sorted
 * entries, with the regions sorted by start and a min-heap (by order) of
 * those started: O((entries + regions) log regions), where a scan of the
 * regions per entry would be quadratic on a file with many sections and
 * zero-size symbols.
 */
static int cmp_region(const void *a, const void *b)
{
	const struct psym_addr_region *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void heap_push(struct psym_addr_region *h, size_t *n, const struct psym_addr_region *v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2].order > v->order) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = *v;
}

static void heap_pop(struct psym_addr_region *h, size_t *n)
{
	struct psym_addr_region last = h[--*n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].order < h[c].order)
			c++;
		if (h[c].order >= last.order)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void finish_nearest(struct psym_symtab *t, const struct psym_addr_region *regions,
			   size_t nregions)
{
	struct psym_addr_region *regs = NULL, *heap = NULL;
	size_t w = 0, next = 0, nheap = 0;

	if (t->n)
		qsort(t->s, t->n, sizeof(*t->s),
		      t->o.alias_by_name ? cmp_nearest_name : cmp_nearest_seq);
	/* One entry per address: the best alias, with the largest size seen. */
	for (size_t r = 0; r < t->n; r++) {
		if (w && t->s[w - 1].addr == t->s[r].addr) {
			if (t->s[r].size > t->s[w - 1].size && t->s[w - 1].size == 0)
				t->s[w - 1].size = t->s[r].size;
			continue;
		}
		t->s[w++] = t->s[r];
	}
	t->n = w;
	if (nregions && t->n) {
		regs = malloc(nregions * sizeof(*regs));
		heap = regs ? malloc(nregions * sizeof(*heap)) : NULL;
		if (heap) {
			memcpy(regs, regions, nregions * sizeof(*regs));
			qsort(regs, nregions, sizeof(*regs), cmp_region);
		} else {
			nregions = 0; /* no memory: zero-size entries end at the next */
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		struct psym_sym *s = &t->s[i];
		uint64_t end = UINT64_MAX;
		bool held = false;

		if (s->size) {
			s->end = sat_add(s->addr, s->size);
			continue;
		}
		/* Entries come by address: regions once started stay in the heap. */
		while (next < nregions && regs[next].start <= s->addr)
			heap_push(heap, &nheap, &regs[next++]);
		/* Regions that ended can never hold a later entry. */
		while (nheap && heap[0].end <= s->addr)
			heap_pop(heap, &nheap);
		if (nheap) {
			end = heap[0].end;
			held = true;
		} else if (nregions) {
			/*
			 * Outside every section and segment (an absolute
			 * _etext or _end past the image's last byte): what
			 * follows is not the file's, the entry names its own
			 * address only, as eu-addr2line and addr2line answer.
			 */
			end = sat_add(s->addr, 1);
		}
		if (i + 1 < t->n && t->s[i + 1].addr < end)
			end = t->s[i + 1].addr;
		else if (i + 1 == t->n && !held && !t->o.max_extent)
			end = sat_add(s->addr, 1); /* the last entry, nothing bounds it */
		if (t->o.max_extent && end > sat_add(s->addr, t->o.max_extent))
			end = sat_add(s->addr, t->o.max_extent);
		s->end = end;
	}
	free(regs);
	free(heap);
}

static void finish_latest(struct psym_symtab *t)
{
	uint64_t mx = 0;

	if (t->n)
		qsort(t->s, t->n, sizeof(*t->s), cmp_latest);
	for (size_t i = 0; i < t->n; i++)
		t->s[i].end = sat_add(t->s[i].addr, t->s[i].size);
	free(t->maxend);
	t->maxend = malloc((t->n ? t->n : 1) * sizeof(*t->maxend));
	for (size_t i = 0; t->maxend && i < t->n; i++) {
		if (t->s[i].end > mx)
			mx = t->s[i].end;
		t->maxend[i] = mx;
	}
}

void psym_symtab_finish(struct psym_symtab *t, const struct psym_addr_region *regions,
			size_t nregions)
{
	if (t->o.rule == PSYM_SYMTAB_LATEST)
		finish_latest(t);
	else
		finish_nearest(t, regions, nregions);
	t->ready = true;
}

/* Index one past the last entry starting at or below addr. */
static size_t upper(const struct psym_symtab *t, uint64_t addr)
{
	return PSYM_LOWER_BOUND(0, t->n, i, t->s[i].addr > addr);
}

const struct psym_sym *psym_symtab_lookup(const struct psym_symtab *t, uint64_t addr)
{
	const struct psym_sym *best = NULL;
	size_t lo;

	if (!t->ready || !t->n)
		return NULL;
	lo = upper(t, addr);
	if (t->o.rule == PSYM_SYMTAB_LATEST) {
		/* Every entry starting at or below addr may cover it: the latest wins. */
		for (size_t i = lo, k = 0; i-- > 0 && k < t->o.scan_back; k++) {
			if (t->maxend && t->maxend[i] <= addr)
				break;
			if (addr < t->s[i].end && (!best || t->s[i].seq > best->seq))
				best = &t->s[i];
		}
		return best;
	}
	for (size_t k = 0; k < t->o.scan_back && lo > k; k++) {
		const struct psym_sym *s = &t->s[lo - 1 - k];

		if (addr < s->end)
			return s;
		if (s->size == 0 && k == 0)
			break; /* a zero-size entry ends where the next starts */
	}
	return NULL;
}

const struct psym_sym *psym_symtab_before(const struct psym_symtab *t, uint64_t addr)
{
	size_t lo;

	if (!t->ready || !t->n)
		return NULL;
	lo = upper(t, addr);
	return lo ? &t->s[lo - 1] : NULL;
}
