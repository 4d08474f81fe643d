/* SPDX-License-Identifier: MIT */
/*
 * The per-build-ID index (src/index/) as a resolver wrapping a file's
 * (resolvers.h): the index found in the store for the binary's build ID
 * answers every lookup, so the inner resolver never opens its debug
 * information; without one, or once it is found damaged, lookups go to
 * the inner resolver. The store is asked on the first prepare or lookup
 * (a run the answer cache in front answers asks nothing, also not over
 * HTTP), and the index found is recorded in the binary's entry of the
 * located-object table.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "index.h"
#include "objtab.h"
#include "layout.h"
#include "resolvers.h"
#include "store.h"

struct index_resolver {
	struct psym_resolver base;
	struct psym_resolver *inner;
	struct psym_index_resolver_opts o;
	struct psym_index *index; /* NULL: none (or dropped as damaged) */
	/*
	 * An index found damaged after it answered: no longer asked, but kept
	 * open, as the frames it gave borrow its strings for the resolver's life.
	 */
	struct psym_index *dropped;
	bool tried, seen_before, told, store_down, finished;
	/* Runs (profiles of a batch) that asked for answers the index lacked. */
	uint64_t last_run;
	size_t runs;
	char damage[1200]; /* why an index was not used, until reported */
	size_t hits;
};

static struct index_resolver *from(struct psym_resolver *r)
{
	return (struct index_resolver *)r;
}

/* A file tried (used, or refused with flags or a note), for --explain (objtab.h). */
static void tried(const struct index_resolver *c, enum psym_tryrole role, const char *path,
		  bool used, unsigned flags, const char *note)
{
	struct psym_reason why = { 0 };

	if (used) {
		psym_objtab_used(c->o.tab, c->o.x, role, path, NULL, flags);
		return;
	}
	if (note)
		psym_reason_set(&why, PSYM_R_BAD_FILE, "%s", note);
	psym_objtab_refused(c->o.tab, c->o.x, role, path, note ? &why : NULL, flags);
}

static const char *build_id(const struct index_resolver *c)
{
	return psym_binary_key(c->o.bin);
}

/*
 * Indexes hold the answers with inline frames (and discriminators): a run
 * without inline frames answers from the DWARF (no index resolver then).
 */
static void open_index(struct index_resolver *c)
{
	struct psym_index_store *s = c->o.bopts->index_store;
	const char *bid = build_id(c);
	char note[sizeof(c->damage)];
	int ret;

	c->tried = true;
	ret = psym_index_store_get(s, bid, psym_binary_variant(c->o.bin), &c->index, note,
				   sizeof(note));
	if (ret == 0) {
		/* Made without discriminators: not for a run that shows them. */
		if (c->o.bopts->discriminators &&
		    !(psym_index_flags(c->index) & PSYM_INDEX_DISCRIMINATORS)) {
			tried(c, PSYM_TRY_INDEX, psym_index_path(c->index), false,
			      PSYM_TRY_NO_DISCRIMINATORS, NULL);
			psym_index_close(c->index);
			c->index = NULL;
			return;
		}
		tried(c, PSYM_TRY_INDEX, psym_index_path(c->index), true, 0, NULL);
		psym_objtab_set_index(c->o.tab, c->o.x, psym_index_path(c->index));
		return;
	}
	if (note[0]) {
		snprintf(c->damage, sizeof(c->damage), "%s", note);
		tried(c, PSYM_TRY_INDEX_STORE, psym_index_store_name(s), false, 0, note);
	}
	if (ret == PSYM_EIO) {
		c->store_down = true; /* nothing to build for a store that fails */
		return;
	}
	c->seen_before = psym_index_store_seen(s, bid);
}

static int index_to_vaddr(struct psym_resolver *r, const struct psym_mapinfo *m, uint64_t addr,
			  uint64_t *vaddr)
{
	return psym_resolver_to_vaddr(from(r)->inner, m, addr, vaddr);
}

static int index_prepare(struct psym_resolver *r, const uint64_t *vaddrs, size_t n,
			 struct psym_err *e)
{
	struct index_resolver *c = from(r);

	if (!c->tried)
		open_index(c);
	if (c->index)
		return 0; /* nothing to decode ahead */
	return psym_resolver_prepare(c->inner, vaddrs, n, e);
}

static int index_lookup(struct psym_resolver *r, const struct psym_lookup_ctx *ctx, uint64_t vaddr,
			struct psym_frames *out, struct psym_reason *why)
{
	struct index_resolver *c = from(r);
	struct psym_err e; /* cleared, not zeroed whole: 1 KiB a lookup was a tenth */
	size_t n;

	e.code = 0;
	e.msg[0] = '\0';
	if (!c->tried)
		open_index(c);
	if (!c->index) {
		if (ctx->run && ctx->run != c->last_run) {
			c->last_run = ctx->run;
			c->runs++;
		}
		return psym_resolver_lookup(c->inner, ctx, vaddr, out, why);
	}
	/* The index keeps addresses relative to the build's layout (obj/layout.h). */
	if (psym_index_lookup(c->index, psym_layout_rel(psym_binary_layout(c->o.bin), vaddr),
			      c->o.bopts->discriminators, out->f, PSYM_MAX_FRAMES, &n, &e) != 0) {
		/* Damaged: said once, and the inner resolver answers from now on. */
		snprintf(c->damage, sizeof(c->damage), "%s", e.msg);
		c->dropped = c->index; /* its earlier answers' strings stay valid */
		c->index = NULL;
		return psym_resolver_lookup(c->inner, ctx, vaddr, out, why);
	}
	c->hits++;
	if (!n) {
		psym_reason_set(why, PSYM_R_NO_SYMBOL, NULL);
		return PSYM_NOENT;
	}
	for (size_t i = 0; i < n; i++) {
		if (!out->f[i].name)
			out->f[i].name = "";	 /* an unnamed DIE: pprof keeps the line */
		if (out->f[i].has_start_address) /* relative to the layout too */
			out->f[i].start_address = psym_layout_abs(psym_binary_layout(c->o.bin),
								  out->f[i].start_address);
	}
	out->n = n;
	out->stable = true; /* the index's strings live as long as it */
	return 0;
}

static int index_lookup_symbol(struct psym_resolver *r, const char *name, uint64_t *vaddr)
{
	return psym_resolver_lookup_symbol(from(r)->inner, name, vaddr);
}

static struct psym_elf *index_elf(struct psym_resolver *r)
{
	return psym_resolver_elf(from(r)->inner);
}

static int index_symbol_start(struct psym_resolver *r, uint64_t vaddr, uint64_t *start)
{
	return psym_resolver_symbol_start(from(r)->inner, vaddr, start);
}

/* The index's items (and its one-time warning), then the file's. */
static void index_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct index_resolver *c = from(r);
	unsigned flags = d->flags;
	bool answered = c->index && c->hits;

	if (c->index)
		psym_resdesc_add(d,
				 &(struct psym_resitem){ .role = PSYM_RES_INDEX,
							 .flags = answered ? PSYM_RESITEM_USED : 0,
							 .path = psym_index_path(c->index),
							 .of = psym_index_source(c->index),
							 .build_id = psym_index_build_id(c->index),
							 .size = psym_index_size(c->index) });
	if (!(flags & PSYM_RESDESC_KEEP_WARNING) && c->damage[0] && !c->told) {
		c->told = true;
		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_INDEX,
							    .flags = PSYM_RESITEM_DAMAGED,
							    .note = c->damage });
	}
	/* The file's own notes, but not why it has no lines when the index answered. */
	if (answered && !(flags & PSYM_RESDESC_NOTE_ALWAYS))
		d->flags |= PSYM_RESDESC_NO_NOTE;
	psym_resolver_describe_inner(c->inner, d);
	d->flags = flags;
}

/*
 * The auto-build policy (doc/DESIGN.md), when the driver says the run is
 * over (psym_resolver_finish; never from destroy): after a run that read an
 * object's DWARF (or its own table, .gopclntab, which is read whole: always)
 * without an index, build one in the background when the
 * run decoded at least half of its compile units (a profile that wide will
 * come again), when an earlier run already saw the build ID (a directory
 * store's BUILDID.seen), or when two runs of this process (profiles of a
 * batch) asked for it: the library every profile uses a little, on any
 * store.
 */
static void index_finish(struct psym_resolver *r)
{
	struct index_resolver *c = from(r);
	size_t total, decoded;

	psym_resolver_finish(c->inner);
	if (c->finished)
		return;
	c->finished = true;
	if (!psym_index_store_auto_build(c->o.bopts->index_store) || c->index || !c->tried ||
	    c->store_down || !psym_binary_answers_final(c->o.bin))
		return;
	/* A table of the binary itself (no DWARF) is read whole: as all units. */
	psym_binary_dwarf_units(c->o.bin, &total, &decoded);
	if (psym_binary_dwarf_path(c->o.bin) &&
	    (!decoded || (decoded * 2 < total && !c->seen_before && !c->damage[0] && c->runs < 2)))
		return;
	psym_index_build_background(c->o.bin, c->o.bopts->index_store);
}

static void index_destroy(struct psym_resolver *r)
{
	struct index_resolver *c = from(r);

	psym_resolver_free(c->inner);
	psym_index_close(c->index);
	psym_index_close(c->dropped);
	free(c);
}

static const struct psym_resolver_ops index_ops = {
	.kind = "index",
	.to_vaddr = index_to_vaddr,
	.prepare = index_prepare,
	.lookup = index_lookup,
	.lookup_symbol = index_lookup_symbol,
	.symbol_start = index_symbol_start,
	.elf = index_elf,
	.describe = index_describe,
	.finish = index_finish,
	.destroy = index_destroy,
};

int psym_index_resolver_new(struct psym_resolver *inner, const struct psym_index_resolver_opts *o,
			    struct psym_resolver **out, struct psym_err *e)
{
	struct index_resolver *c = calloc(1, sizeof(*c));

	if (!c) {
		psym_resolver_free(inner);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	c->base.ops = &index_ops;
	c->inner = inner;
	c->o = *o;
	*out = &c->base;
	return 0;
}
