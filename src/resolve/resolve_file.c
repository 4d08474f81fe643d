/* SPDX-License-Identifier: MIT */
/* The file resolver: an ELF file and its debug information (binary.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "resolvers.h"

struct file_resolver {
	struct psym_resolver base;
	struct psym_binary *bin;
	const char *kind;
};

/* A debug file in place of a missing binary is said so. */
#define DEBUG_ONLY_NOTE " (a debug file standing in for the binary)"

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

static void file_describe(struct psym_resolver *r, char *buf, size_t bufsz)
{
	struct psym_binary *b = from(r)->bin;
	const char *path = psym_elf_path(psym_binary_elf(b));
	const char *dw = psym_binary_dwarf_path(b), *note;
	const char *as = psym_elf_is_debug_only(psym_binary_elf(b)) ? DEBUG_ONLY_NOTE : "";
	const struct psym_index *ix = psym_binary_index(b);

	if (ix && psym_binary_index_hits(b)) {
		snprintf(buf, bufsz, "from '%s'%s, from the index '%s' (answers of '%s')", path, as,
			 psym_index_path(ix), psym_index_source(ix));
		return;
	}
	if (psym_binary_gsym_path(b))
		snprintf(buf, bufsz, "from '%s'%s, lines from the GSYM file '%s'", path, as,
			 psym_binary_gsym_path(b));
	else if (dw && strcmp(dw, path) != 0)
		snprintf(buf, bufsz, "from '%s'%s, lines from '%s'%s%s", path, as, dw,
			 psym_binary_alt_note(b) ? "; " : "",
			 psym_binary_alt_note(b) ? psym_binary_alt_note(b) : "");
	else if (dw)
		snprintf(buf, bufsz, "from '%s'%s, with lines%s%s", path, as,
			 psym_binary_alt_note(b) ? "; " : "",
			 psym_binary_alt_note(b) ? psym_binary_alt_note(b) : "");
	else if ((note = psym_binary_debug_note(b))) /* may load symbols: last */
		snprintf(buf, bufsz, "from '%s'%s, no lines: %s", path, as, note);
	else
		snprintf(buf, bufsz, "from '%s'%s, no lines: no DWARF", path, as);
	if (dw) {
		char split[1400];
		size_t n = strlen(buf);

		if (psym_binary_split_note(b, split, sizeof(split)) && n < bufsz)
			snprintf(buf + n, bufsz - n, "; %s", split);
	}
}

static void file_explain(struct psym_resolver *r, char *buf, size_t bufsz)
{
	struct psym_elf *elf = psym_binary_elf(from(r)->bin);
	size_t units, decoded, n = 0;
	int k;

	buf[0] = '\0';
	if (psym_binary_index(from(r)->bin)) {
		const struct psym_index *ix = psym_binary_index(from(r)->bin);

		k = snprintf(buf, bufsz,
			     "answers from the index '%s' (build ID %s, %llu bytes, made from "
			     "'%s'); no DWARF read",
			     psym_index_path(ix), psym_index_build_id(ix),
			     (unsigned long long)psym_index_size(ix), psym_index_source(ix));
		n = k < 0 ? 0 : (size_t)k < bufsz ? (size_t)k : bufsz - 1;
	}
	if (psym_elf_is_debug_only(elf)) {
		k = snprintf(buf + n, bufsz - n,
			     "%s'%s' is a debug file standing in for the binary: its segments' "
			     "file offsets recovered from their addresses and alignment, "
			     "symbols from its .symtab",
			     n ? "\n    " : "", psym_elf_path(elf));
		n += k < 0 ? 0 : (size_t)k < bufsz - n ? (size_t)k : bufsz - n - 1;
	}
	if (!psym_binary_dwarf_path(from(r)->bin))
		return;
	psym_binary_dwarf_units(from(r)->bin, &units, &decoded);
	snprintf(buf + n, bufsz - n, "%sDWARF: %zu of %zu compile units decoded so far",
		 n ? "\n    " : "", decoded, units);
}

/* Why an index found was not used, once: the answers came from the DWARF. */
static void file_warning(struct psym_resolver *r, char *buf, size_t bufsz)
{
	struct psym_binary *b = from(r)->bin;
	const char *dmg = psym_binary_take_index_damage(b);

	buf[0] = '\0';
	if (dmg)
		snprintf(buf, bufsz, "%s: symbolized from '%s' instead", dmg,
			 psym_elf_path(psym_binary_elf(b)));
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
	.describe = file_describe,
	.explain = file_explain,
	.warning = file_warning,
	.destroy = file_destroy,
};

int psym_file_resolver_new(struct psym_elf *elf, const struct psym_binary_opts *o, const char *kind,
			   struct psym_resolver **out, struct psym_err *e)
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
		.as = psym_elf_is_debug_only(elf) ? DEBUG_ONLY_NOTE : "",
		.inlines = o->inlines,
		.final = file_final,
		.explain = o->locate ? o->locate->explain : NULL,
		.explain_ud = o->locate ? o->locate->explain_ud : NULL,
	};
	return psym_cached_resolver_new(&f->base, &co, out, e);
}

struct psym_binary *psym_file_resolver_binary(struct psym_resolver *r)
{
	return r && r->ops == &file_ops ? from(r)->bin : NULL;
}
