/* SPDX-License-Identifier: MIT */
/* Binaries shared by the runs of a batch (bincache.h). */
#include "config.h"

#include <stdlib.h>

#include "bincache.h"
#include "objtab.h"
#include "registry.h"
#include "resolvers.h"

/*
 * Objects shared by the runs of a batch: binaries by path and build ID,
 * located and opened once for all profiles. Per-run objects (kernel, JIT
 * maps, vDSO: they come from each profile's side files) stay in the run.
 */
struct psym_bincache {
	struct psym_objtab *tab; /* the binaries located, for every run */
	struct psym_registry *reg;
	struct psym_reader_limits limits;
	struct psym_locate_opts lo; /* a copy without --explain */
	struct psym_binary_opts bopts;
	struct psym_kallsyms_cache *kallsyms; /* kernel symbols, by boot and content */
};

struct psym_bincache *psym_bincache_new(const struct psym_bincache_opts *o)
{
	struct psym_bincache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->reg = psym_registry_new(0);
	c->tab = psym_objtab_new(0);
	c->kallsyms = psym_kallsyms_cache_new();
	if (!c->reg || !c->tab || !c->kallsyms) {
		psym_registry_free(c->reg);
		psym_objtab_free(c->tab);
		psym_kallsyms_cache_free(c->kallsyms);
		free(c);
		return NULL;
	}
	psym_registry_set_max_open(c->reg, o->limits.open_objects);
	psym_objtab_set_max_held(c->tab, o->limits.open_objects);
	psym_objtab_keep_tried(c->tab, o->explain); /* only --explain says them */
	c->limits = o->limits;
	c->lo = *o->locate;
	c->lo.elf_limits = &c->limits.elf;
	c->bopts = (struct psym_binary_opts){
		.inlines = o->inlines,
		.locate = &c->lo,
		.limits = &c->limits,
		.cache_dir = o->cache_dir,
		.index_store = o->index_store,
	};
	return c;
}

void psym_bincache_finish(struct psym_bincache *c)
{
	if (c)
		psym_registry_finish(c->reg);
}

void psym_bincache_free(struct psym_bincache *c)
{
	if (!c)
		return;
	psym_registry_free(c->reg);
	psym_objtab_free(c->tab);
	psym_kallsyms_cache_free(c->kallsyms);
	free(c);
}

size_t psym_bincache_kallsyms_parsed(struct psym_bincache *c)
{
	return c ? psym_kallsyms_cache_parsed(c->kallsyms) : 0;
}

const struct psym_binary_opts *psym_bincache_bopts(const struct psym_bincache *c)
{
	return &c->bopts;
}

struct psym_registry *psym_bincache_registry(const struct psym_bincache *c)
{
	return c->reg;
}

struct psym_objtab *psym_bincache_objtab(const struct psym_bincache *c)
{
	return c->tab;
}

struct psym_kallsyms_cache *psym_bincache_kallsyms(const struct psym_bincache *c)
{
	return c->kallsyms;
}
