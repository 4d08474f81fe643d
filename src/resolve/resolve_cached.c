/* SPDX-License-Identifier: MIT */
/*
 * The persistent answer cache (symcache.h) as a resolver wrapping another
 * (resolvers.h): an address answered before is answered from the cache
 * without asking the inner resolver, which then never opens its debug
 * information; the inner resolver's answers are kept when it says they
 * depend on the build alone.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "layout.h"
#include "objtab.h"
#include "resolvers.h"
#include "symcache.h"

/* Every cache file's variant holds PSYM_ANSWER_REV (binary.h). */

struct cached_resolver {
	struct psym_resolver base;
	struct psym_resolver *inner;
	struct psym_cached_opts o;
	char *build_id, *path, *dir;
	/*
	 * Files of one build ID may be placed differently (a prelinked
	 * library): addresses are kept relative to the file's layout, and
	 * the layout is part of the variant (layout.h).
	 */
	struct psym_layout layout;
	struct psym_symcache *cache; /* NULL: off or unavailable */
	bool tried;
	const char *damage; /* why a damaged cache file was ignored, until reported */
};

static struct cached_resolver *from(struct psym_resolver *r)
{
	return (struct cached_resolver *)r;
}

static void open_cache(struct cached_resolver *c)
{
	struct psym_err e = { 0 };
	char key[200], variant[64];
	const char *note = NULL;

	c->tried = true;
	if (psym_symcache_key(c->build_id, c->path, key, sizeof(key)))
		return;
	/*
	 * Answers depend on the options, on psym itself and on the layout:
	 * all in the variant (a file of another layout of the build ID is
	 * ignored and rewritten, as one of other options is).
	 */
	psym_answer_variant(variant, sizeof(variant), c->o.inlines, &c->layout);
	if (psym_symcache_open(c->dir, key, variant, &c->cache, &note, &e) != 0)
		c->cache = NULL;
	else if (note && psym_symcache_damaged(c->cache))
		c->damage = note;
	else if (note) {
		struct psym_reason why = { 0 };

		psym_reason_set(&why, PSYM_R_BAD_FILE, "%s", note);
		psym_objtab_tried(c->o.tab, c->o.x, PSYM_TRY_CACHE, key, &why);
	}
}

static int cached_to_vaddr(struct psym_resolver *r, const struct psym_mapinfo *m, uint64_t addr,
			   uint64_t *vaddr)
{
	return psym_resolver_to_vaddr(from(r)->inner, m, addr, vaddr);
}

static int cached_prepare(struct psym_resolver *r, const uint64_t *vaddrs, size_t n,
			  struct psym_err *e)
{
	struct cached_resolver *c = from(r);
	uint64_t *miss;
	size_t nmiss = 0;
	int ret;

	if (!c->tried)
		open_cache(c);
	if (!c->cache)
		return psym_resolver_prepare(c->inner, vaddrs, n, e);
	miss = malloc((n ? n : 1) * sizeof(*miss));
	if (!miss)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!psym_symcache_has(c->cache, psym_layout_rel(&c->layout, vaddrs[i])))
			miss[nmiss++] = vaddrs[i];
	ret = psym_resolver_prepare(c->inner, miss, nmiss, e);
	free(miss);
	return ret;
}

static int cached_lookup(struct psym_resolver *r, const struct psym_lookup_ctx *ctx, uint64_t vaddr,
			 struct psym_frames *out, struct psym_reason *why)
{
	struct cached_resolver *c = from(r);
	const struct psym_frame *cf;
	size_t n;
	int ret;

	if (!c->tried)
		open_cache(c);
	if (c->cache &&
	    psym_symcache_lookup(c->cache, psym_layout_rel(&c->layout, vaddr), &cf, &n)) {
		if (n > PSYM_MAX_FRAMES)
			n = PSYM_MAX_FRAMES;
		if (!n) {
			psym_reason_set(why, PSYM_R_NO_SYMBOL, NULL);
			return PSYM_NOENT;
		}
		memcpy(out->f, cf, n * sizeof(*cf));
		for (size_t i = 0; i < n; i++)
			if (!out->f[i].name)
				out->f[i].name = ""; /* an unnamed DIE: pprof keeps the line */
		out->n = n;
		out->stable = true; /* the cache's strings live as long as it */
		return 0;
	}
	ret = psym_resolver_lookup(c->inner, ctx, vaddr, out, why);
	if ((ret == 0 || ret == PSYM_NOENT) && c->cache && c->o.final && c->o.final(c->o.final_ud))
		psym_symcache_add(c->cache, psym_layout_rel(&c->layout, vaddr), out->f,
				  ret ? 0 : out->n); /* (start addresses are not kept) */
	return ret;
}

static int cached_lookup_symbol(struct psym_resolver *r, const char *name, uint64_t *vaddr)
{
	return psym_resolver_lookup_symbol(from(r)->inner, name, vaddr);
}

static struct psym_elf *cached_elf(struct psym_resolver *r)
{
	return psym_resolver_elf(from(r)->inner);
}

static int cached_symbol_start(struct psym_resolver *r, uint64_t vaddr, uint64_t *start)
{
	return psym_resolver_symbol_start(from(r)->inner, vaddr, start);
}

/* The cache's item (its one-time warning with it), then the file's. */
static void cached_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct cached_resolver *c = from(r);
	unsigned flags = d->flags;
	struct psym_resitem it = { .role = PSYM_RES_CACHE,
				   .path = c->cache ? psym_symcache_path(c->cache) : NULL };
	size_t hits, misses;

	psym_symcache_stats(c->cache, &hits, &misses);
	if (hits && !misses)
		it.flags |= PSYM_RESITEM_USED;
	if (!(flags & PSYM_RESDESC_KEEP_WARNING) && c->damage) {
		it.flags |= PSYM_RESITEM_DAMAGED;
		it.note = c->damage;
		c->damage = NULL;
	}
	psym_resdesc_add(d, &it);
	/* The file's own notes, but not why it has no lines when it was not asked. */
	if (it.flags & PSYM_RESITEM_USED)
		d->flags |= PSYM_RESDESC_NO_NOTE;
	if (it.note || c->damage)
		d->flags |= PSYM_RESDESC_KEEP_WARNING; /* the cache's warning first */
	psym_resolver_describe_inner(c->inner, d);
	d->flags = flags;
}

/* The run is over: this run's answers to the cache file, then the inner's policy. */
static void cached_finish(struct psym_resolver *r)
{
	struct cached_resolver *c = from(r);

	psym_symcache_save(c->cache, &(struct psym_err){ 0 }); /* a cache may fail quietly */
	psym_resolver_finish(c->inner);
}

/* Writes nothing: what the run added is written by finish (doc/DESIGN.md). */
static void cached_destroy(struct psym_resolver *r)
{
	struct cached_resolver *c = from(r);

	psym_symcache_close(c->cache);
	psym_resolver_free(c->inner);
	free(c->build_id);
	free(c->path);
	free(c->dir);
	free(c);
}

static const struct psym_resolver_ops cached_ops = {
	.kind = "cached",
	.to_vaddr = cached_to_vaddr,
	.prepare = cached_prepare,
	.lookup = cached_lookup,
	.lookup_symbol = cached_lookup_symbol,
	.symbol_start = cached_symbol_start,
	.elf = cached_elf,
	.describe = cached_describe,
	.finish = cached_finish,
	.destroy = cached_destroy,
};

int psym_cached_resolver_new(struct psym_resolver *inner, const struct psym_cached_opts *o,
			     struct psym_resolver **out, struct psym_err *e)
{
	struct cached_resolver *c = calloc(1, sizeof(*c));

	if (!c)
		goto nomem;
	c->base.ops = &cached_ops;
	c->inner = inner;
	c->o = *o;
	if (o->layout)
		c->layout = *o->layout;
	else
		snprintf(c->layout.tag, sizeof(c->layout.tag), "L0");
	c->o.layout = NULL; /* the copy above */
	c->build_id = o->build_id ? strdup(o->build_id) : NULL;
	c->path = strdup(o->path ? o->path : "");
	c->dir = strdup(o->dir);
	if ((o->build_id && !c->build_id) || !c->path || !c->dir) {
		c->inner = NULL;
		cached_destroy(&c->base);
		goto nomem;
	}
	c->o.build_id = c->o.path = c->o.dir = NULL; /* the copies above */
	*out = &c->base;
	return 0;
nomem:
	psym_resolver_free(inner);
	return psym_err_set(e, PSYM_ENOMEM, "out of memory");
}
