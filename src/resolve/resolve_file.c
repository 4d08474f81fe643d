/* SPDX-License-Identifier: MIT */
/* The file resolver: an ELF file and its debug information (binary.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "objtab.h"
#include "resolvers.h"
#include "store.h"

struct file_resolver {
	struct psym_resolver base;
	struct psym_binary *bin;
	const char *kind;
	struct psym_reason split_why; /* describe's, borrowed by its SPLIT item */
};

static struct file_resolver *from(struct psym_resolver *r)
{
	return (struct file_resolver *)r;
}

static bool file_final(void *bin)
{
	return psym_binary_answers_final(bin);
}

static int file_to_vaddr(struct psym_resolver *r, const struct psym_mapinfo *m, uint64_t addr,
			 uint64_t *vaddr)
{
	return psym_elf_normalize(psym_binary_elf(from(r)->bin), m->start, m->limit, m->file_offset,
				  addr, vaddr);
}

static int file_prepare(struct psym_resolver *r, const uint64_t *vaddrs, size_t n,
			struct psym_err *e)
{
	return psym_binary_prepare(from(r)->bin, vaddrs, n, e);
}

static int file_lookup(struct psym_resolver *r, const struct psym_lookup_ctx *ctx, uint64_t vaddr,
		       struct psym_frames *out, struct psym_reason *why)
{
	(void)ctx;
	out->n = psym_binary_resolve(from(r)->bin, vaddr, out->f, PSYM_MAX_FRAMES);
	if (!out->n) {
		psym_reason_set(why, PSYM_R_NO_SYMBOL, NULL);
		return PSYM_NOENT;
	}
	for (size_t i = 0; i < out->n; i++)
		if (!out->f[i].name)
			out->f[i].name = ""; /* an unnamed DIE: pprof keeps the line */
	out->stable = true;
	return 0;
}

static int file_lookup_symbol(struct psym_resolver *r, const char *name, uint64_t *vaddr)
{
	return psym_elf_find_symbol(psym_binary_elf(from(r)->bin), name, vaddr);
}

static struct psym_elf *file_elf(struct psym_resolver *r)
{
	return psym_binary_elf(from(r)->bin);
}

static int file_symbol_start(struct psym_resolver *r, uint64_t vaddr, uint64_t *start)
{
	const struct psym_sym *sym = psym_binary_symbol(from(r)->bin, vaddr);

	if (!sym)
		return PSYM_NOENT;
	*start = sym->addr;
	return 0;
}

/* Its items: the file, its lines (or why none), the alternate and split files, a source. */
static void file_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct file_resolver *f = from(r);
	struct psym_binary *b = f->bin;
	struct psym_elf *elf = psym_binary_elf(b);
	struct psym_resitem dw = { .role = PSYM_RES_DWARF, .path = psym_binary_dwarf_path(b) };
	struct psym_resitem src = { 0 }, split = { .role = PSYM_RES_SPLIT };
	struct psym_resitem tried = { .role = PSYM_RES_TRIED };
	bool has_src = psym_binary_source_item(b, &src);
	const struct psym_reason *alt = psym_binary_alt_why(b);
	size_t units, missing;

	psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_BINARY,
						    .path = psym_elf_path(elf),
						    .flags = psym_elf_is_debug_only(elf)
								     ? PSYM_RESITEM_DEBUG_ONLY
								     : 0 });
	psym_binary_dwarf_units(b, &dw.total, &dw.n);
	/* It may load the symbols: only when asked, or to say why no lines. */
	if (!(d->flags & PSYM_RESDESC_NO_NOTE) &&
	    ((d->flags & PSYM_RESDESC_NOTE_ALWAYS) || (!has_src && !dw.path)))
		dw.note = psym_binary_debug_note(b);
	psym_resdesc_add(d, &dw);
	if (alt)
		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_ALT, .why = alt });
	missing = psym_binary_split_status(b, &units, &f->split_why);
	if (missing) {
		split.n = missing;
		split.total = units;
		split.why = &f->split_why;
		psym_resdesc_add(d, &split);
	}
	if (has_src)
		psym_resdesc_add(d, &src);
	/* Last: what the above may have loaded is among the files tried. */
	psym_binary_news(b, &tried.tried, &tried.ntried, &tried.lost);
	if (tried.ntried || tried.lost)
		psym_resdesc_add(d, &tried);
}

static void file_destroy(struct psym_resolver *r)
{
	psym_binary_free(from(r)->bin);
	free(r);
}

static const struct psym_resolver_ops file_ops = {
	.kind = "file",
	.to_vaddr = file_to_vaddr,
	.prepare = file_prepare,
	.lookup = file_lookup,
	.lookup_symbol = file_lookup_symbol,
	.symbol_start = file_symbol_start,
	.elf = file_elf,
	.describe = file_describe,
	.destroy = file_destroy,
};

/* What the user named for an answer source (--gsym) answers: no index in front of it. */
static bool index_wanted(const struct psym_binary_opts *o, const struct psym_binary *b,
			 struct psym_objtab *t, struct psym_located *x)
{
	if (!o->index_store || !o->inlines || !psym_binary_key(b))
		return false;
	if (o->n_named)
		psym_objtab_refused(t, x, PSYM_TRY_INDEX_STORE,
				    psym_index_store_name(o->index_store), NULL,
				    PSYM_TRY_NOT_ASKED);
	return !o->n_named;
}

/*
 * The resolvers of a file, outermost first: the persistent answer cache,
 * the per-build-ID index, the file itself (binary.c: its DWARF, debug file
 * and symbols, and the answer sources of resolve/sources.c, GSYM and
 * .gopclntab). Each answers what it can and hands the rest inwards. A new
 * answer source is its source_NAME.c and a line in sources.c, not a step
 * here; only what wraps a whole file, as the cache and the index do, is a
 * resolver file and one step here (doc/DESIGN.md, "Where a new piece goes").
 */
static int stack(struct file_resolver *f, const struct psym_binary_opts *o, struct psym_objtab *t,
		 struct psym_located *x, struct psym_resolver **out, struct psym_err *e)
{
	struct psym_elf *elf = psym_binary_elf(f->bin);
	struct psym_resolver *r = &f->base;
	int ret;

	if (index_wanted(o, f->bin, t, x)) {
		struct psym_index_resolver_opts io = {
			.bin = f->bin, .bopts = o, .tab = t, .x = x
		};

		ret = psym_index_resolver_new(r, &io, &r, e);
		if (ret)
			return ret;
	}
	if (o->cache_dir) {
		struct psym_cached_opts co = {
			.dir = o->cache_dir,
			.build_id = psym_binary_key(f->bin), /* or its Go build ID's key */
			.path = psym_elf_path(elf),
			.inlines = o->inlines,
			.layout = psym_binary_layout(f->bin),
			.final = file_final,
			.final_ud = f->bin,
			.tab = t,
			.x = x,
		};

		ret = psym_cached_resolver_new(r, &co, &r, e);
		if (ret)
			return ret;
	}
	*out = r;
	return 0;
}

static int file_new(struct psym_elf *elf, const struct psym_binary_opts *o, const char *kind,
		    struct psym_objtab *t, struct psym_located *x, struct psym_resolver **out,
		    struct psym_err *e)
{
	struct file_resolver *f = calloc(1, sizeof(*f));
	int ret;

	if (!f) {
		psym_elf_close(elf);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	ret = psym_binary_new(elf, o, &f->bin, e);
	if (ret) {
		free(f);
		return ret;
	}
	psym_binary_set_entry(f->bin, t, x);
	f->base.ops = &file_ops;
	f->kind = kind;
	return stack(f, o, t, x, out, e);
}

int psym_file_resolver_new(struct psym_elf *elf, const struct psym_binary_opts *o, const char *kind,
			   struct psym_resolver **out, struct psym_err *e)
{
	return file_new(elf, o, kind, NULL, NULL, out, e);
}

int psym_file_resolver_open(struct psym_objtab *t, struct psym_located *x,
			    const struct psym_elf_limits *lim, const struct psym_binary_opts *o,
			    const char *kind, struct psym_resolver **out, struct psym_reason *why,
			    struct psym_err *e)
{
	struct psym_elf *elf = NULL;
	int ret = psym_objtab_take_elf(t, x, lim, &elf, why, e);

	return ret ? ret : file_new(elf, o, kind, t, x, out, e);
}
