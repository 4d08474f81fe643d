/* SPDX-License-Identifier: MIT */
/* The file resolver: an ELF file and its debug information (binary.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "objtab.h"
#include "resolvers.h"

struct file_resolver {
	struct psym_resolver base;
	struct psym_binary *bin;
	const char *kind;
};

static struct file_resolver *from(struct psym_resolver *r)
{
	return (struct file_resolver *)r;
}

static bool file_final(struct psym_resolver *r)
{
	return psym_binary_answers_final(from(r)->bin);
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

static int file_symbol_start(struct psym_resolver *r, uint64_t vaddr, uint64_t *start)
{
	const struct psym_sym *sym = psym_binary_symbol(from(r)->bin, vaddr);

	if (!sym)
		return PSYM_NOENT;
	*start = sym->addr;
	return 0;
}

static void file_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct psym_binary *b = from(r)->bin;
	struct psym_elf *elf = psym_binary_elf(b);
	const struct psym_index *ix = psym_binary_index(b);

	d->path = psym_elf_path(elf);
	d->debug_only = psym_elf_is_debug_only(elf);
	d->dwarf_path = psym_binary_dwarf_path(b);
	d->alt_note = psym_binary_alt_note(b);
	d->gsym_path = psym_binary_gsym_path(b);
	psym_binary_dwarf_units(b, &d->units, &d->decoded);
	d->split_missing = psym_binary_split_status(b, &d->split_units, &d->split_why);
	if (ix) {
		d->index_path = psym_index_path(ix);
		d->index_source = psym_index_source(ix);
		d->index_build_id = psym_index_build_id(ix);
		d->index_size = psym_index_size(ix);
		d->index_answered = psym_binary_index_hits(b) != 0;
	}
	if (!(d->flags & PSYM_RESDESC_KEEP_WARNING))
		d->index_damage = psym_binary_take_index_damage(b);
	/* It may load the symbols: only when asked, or to say why no lines. */
	if (!(d->flags & PSYM_RESDESC_NO_NOTE) &&
	    ((d->flags & PSYM_RESDESC_NOTE_ALWAYS) ||
	     (!d->index_answered && !d->gsym_path && !d->dwarf_path)))
		d->debug_note = psym_binary_debug_note(b);
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
	.describe = file_describe,
	.destroy = file_destroy,
};

static int file_new(struct psym_elf *elf, const struct psym_binary_opts *o, const char *kind,
		    struct psym_objtab *t, struct psym_located *x, struct psym_resolver **out,
		    struct psym_err *e)
{
	struct file_resolver *f = calloc(1, sizeof(*f));
	struct psym_cached_opts co;
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
	if (!o->cache_dir) {
		*out = &f->base;
		return 0;
	}
	/* The persistent cache answers first: a resolver around this one. */
	co = (struct psym_cached_opts){
		.dir = o->cache_dir,
		.build_id = psym_elf_build_id(elf),
		.path = psym_elf_path(elf),
		.inlines = o->inlines,
		.layout = psym_binary_layout(f->bin),
		.final = file_final,
		.explain = o->locate ? o->locate->explain : NULL,
		.explain_ud = o->locate ? o->locate->explain_ud : NULL,
	};
	return psym_cached_resolver_new(&f->base, &co, out, e);
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
