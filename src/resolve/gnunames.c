/* SPDX-License-Identifier: MIT */
/* GNU addr2line's function names and their memory (gnunames.h). */
#include "config.h"

#include <stdlib.h>

#include "gnunames.h"

/* At most this many functions remembered; past it they are named as new. */
#define GNU_NAMES_MAX ((size_t)1 << 24)

struct gnu_fn {
	uint64_t id;	  /* 0: an empty slot */
	const char *name; /* the symbol's name kept for good, or NULL */
	bool linkage;	  /* binutils' is_linkage: no more symbol lookups */
};

struct psym_gnu_names {
	struct gnu_fn *slots;
	size_t n, mask;
};

struct psym_gnu_names *psym_gnu_names_new(void)
{
	struct psym_gnu_names *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->slots = calloc(1024, sizeof(*g->slots));
	if (!g->slots) {
		free(g);
		return NULL;
	}
	g->mask = 1023;
	return g;
}

void psym_gnu_names_free(struct psym_gnu_names *g)
{
	if (!g)
		return;
	free(g->slots);
	free(g);
}

static size_t slot_of(const struct psym_gnu_names *g, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 20) & g->mask;

	while (g->slots[i].id && g->slots[i].id != id)
		i = (i + 1) & g->mask;
	return i;
}

static bool grow(struct psym_gnu_names *g)
{
	size_t cap = (g->mask + 1) * 2;
	struct gnu_fn *old = g->slots, *nw;
	size_t omask = g->mask;

	if (g->n >= GNU_NAMES_MAX)
		return false;
	nw = calloc(cap, sizeof(*nw));
	if (!nw)
		return false;
	g->slots = nw;
	g->mask = cap - 1;
	for (size_t i = 0; i <= omask; i++)
		if (old[i].id)
			g->slots[slot_of(g, old[i].id)] = old[i];
	free(old);
	return true;
}

/* The remembered state of function id, made from f on first sight; NULL: none kept. */
static struct gnu_fn *remember(struct psym_gnu_names *g, uint64_t id, const struct psym_frame *f,
			       bool plain)
{
	size_t i;

	if (!g || !id)
		return NULL;
	i = slot_of(g, id);
	if (g->slots[i].id)
		return &g->slots[i];
	if ((g->n + 1) * 2 > g->mask + 1) {
		if (!grow(g))
			return NULL;
		i = slot_of(g, id);
	}
	g->n++;
	g->slots[i] = (struct gnu_fn){
		.id = id,
		.linkage = f->linkage_name || (plain && f->name),
	};
	return &g->slots[i];
}

void psym_gnu_names_apply(struct psym_gnu_names *g, struct psym_elf *elf, uint64_t vaddr,
			  uint64_t bias, struct psym_frame *f, size_t n,
			  const struct psym_dwarf_gnu *dg)
{
	for (size_t i = n; i-- > 0;) {
		struct gnu_fn *fn = remember(g, dg[i].id, &f[i], dg[i].plain);
		bool linkage = fn ? fn->linkage : f[i].linkage_name || (dg[i].plain && f[i].name);
		uint64_t start = 0;
		const char *sym, *file = NULL;

		if (fn && fn->name) {
			f[i].name = f[i].linkage_name = fn->name;
			continue;
		}
		/* A caller, or a function with a linkage name: its DWARF name. */
		if (i || (linkage && dg[i].id))
			continue;
		sym = psym_elf_gnu_symbol(elf, vaddr, &start, &file);
		if (!f[i].file)
			f[i].file = file; /* no line: the symbol's STT_FILE, "file.cc:?" */
		if (sym) {
			f[i].name = f[i].linkage_name = sym;
			if (fn && dg[i].id && start - bias == dg[i].low)
				fn->name = sym;
		} else if (!f[i].name) {
			f[i].name = "";
		}
		if (fn)
			fn->linkage = true;
	}
}
