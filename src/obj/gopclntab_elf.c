/* SPDX-License-Identifier: MIT */
/* Finding Go's .gopclntab and its moduledata in an ELF file (gopclntab.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "elffile.h"
#include "gopclntab.h"
#include "gopclntab_int.h"

/* ---- finding the table in an ELF file --------------------------------------- */

/* The image: every allocated section with contents in the file. */
static int image(struct psym_elf *elf, struct psym_gosec **out, size_t *n)
{
	size_t ns = psym_elf_nsections(elf), k = 0;
	struct psym_gosec *v = calloc(ns ? ns : 1, sizeof(*v));
	struct psym_elf_scn s;

	if (!v)
		return PSYM_ENOMEM;
	for (size_t i = 1; i < ns; i++)
		if (psym_elf_scn(elf, i, &s) == 0 && s.addr && !s.compressed)
			v[k++] = (struct psym_gosec){ s.addr, s.data, s.len };
	*out = v;
	*n = k;
	return 0;
}

/*
 * gofunc of the moduledata at q (n pointer-size words). Go 1.18-1.19 keep
 * it in word 38, 1.20-1.25 in word 40. Go 1.26 moved the funcdata into
 * .gopclntab and put epclntab, the table's end, right after gofunc (word
 * 41); Go 1.27 moved both by three words with the same table magic. So a
 * table that ends where a word of the moduledata says, with the word
 * before it pointing inside the table, has gofunc there; else the fixed
 * word of its layout.
 */
static uint64_t gofunc_of(const struct psym_gopclntab *t, const uint8_t *q, size_t n)
{
	unsigned p = t->ptr;
	size_t fixed = t->layout == GO118 ? 38 : 40;

	for (size_t k = 39; k < n && k < MD_WORDS; k++) {
		uint64_t g = get(t, q + (k - 1) * p, p);

		if (get(t, q + k * p, p) == t->vaddr + t->len && g > t->vaddr &&
		    g < t->vaddr + t->len)
			return g;
	}
	return fixed < n ? get(t, q + fixed * p, p) : 0;
}

/*
 * Go 1.18+: runtime.firstmoduledata, which starts with a pointer to the
 * header and the function-name table's slice: gofunc (and text: Go 1.26
 * and later leave the header's textStart 0) from it. Go 1.26 and later
 * give it its own section, .go.module; before, it is in a data section.
 */
static void moduledata(struct psym_gopclntab *t, struct psym_elf *elf)
{
	size_t ns = psym_elf_nsections(elf), need = 41 * (size_t)t->ptr;
	unsigned p = t->ptr, text_at = 22;
	struct psym_elf_scn s;

	t->noinl_why = "no moduledata found";
	/* Where the linker writes it first (.go.module, .noptrdata), then any data. */
	for (size_t k = 0, i = 1; k < 2; i = i + 1 < ns ? i + 1 : (k++, 1)) {
		bool home;

		if (psym_elf_scn(elf, i, &s) || !s.addr || s.compressed)
			continue;
		home = strcmp(s.name, ".go.module") == 0 || strcmp(s.name, ".noptrdata") == 0;
		if (k == 0 ? !home : home || !strstr(s.name, "data"))
			continue;
		for (size_t o = 0; s.len >= need && o <= s.len - need; o += p) {
			const uint8_t *q = (const uint8_t *)s.data + o;

			if (get(t, q, p) != t->vaddr || get(t, q + p, p) != t->vaddr + t->names.off)
				continue;
			t->gofunc = gofunc_of(t, q, (s.len - o) / p);
			t->noinl_why = NULL;
			if (!psym_gopclntab_img_at(t, t->gofunc, 1)) {
				t->gofunc = 0;
				t->noinl_why = "the moduledata's go:func.* address is outside the "
					       "image (a moduledata layout not known)";
			}
			if (!t->text_start)
				t->text_start = get(t, q + (size_t)text_at * p, p);
			return;
		}
	}
}

/* A header at the start of a section's bytes that parses. */
static bool plausible(const uint8_t *q, size_t len)
{
	bool msb;

	return len >= 64 && psym_gopclntab_magic(q, &msb) >= 0 && !q[4] && !q[5] &&
	       (q[6] == 1 || q[6] == 2 || q[6] == 4) && (q[7] == 4 || q[7] == 8);
}

/* The table: by section name, by symbol, or by scanning a Go binary's sections. */
static int locate(struct psym_elf *elf, struct psym_gopclntab_src *src, bool *go)
{
	static const char *const syms[] = { "runtime.pcheader", "runtime.pclntab" };
	size_t ns = psym_elf_nsections(elf);
	struct psym_elf_scn s;
	const void *d;
	size_t len;
	uint64_t a;

	for (size_t i = 1; i < ns; i++) {
		if (psym_elf_scn(elf, i, &s) == 0 && strcmp(s.name, ".gopclntab") == 0) {
			src->tab = s.data;
			src->len = s.len;
			src->vaddr = s.addr;
			return 0;
		}
	}
	/*
	 * Section name dropped: only in a file that says it is Go (a C
	 * binary's symbols are not loaded here, before its debug files').
	 */
	if (psym_elf_section(elf, ".go.buildinfo", &d, &len) != 0 &&
	    psym_elf_section(elf, ".note.go.buildid", &d, &len) != 0)
		return PSYM_NOENT;
	*go = true;
	for (size_t k = 0; k < 2; k++) {
		if (psym_elf_find_symbol(elf, syms[k], &a) != 0)
			continue;
		for (size_t i = 0; i < src->nimg; i++) {
			const struct psym_gosec *g = &src->img[i];

			if (a >= g->vaddr && a - g->vaddr < g->len &&
			    plausible(g->data + (a - g->vaddr), g->len - (a - g->vaddr))) {
				src->tab = g->data + (a - g->vaddr);
				src->len = g->len - (a - g->vaddr);
				src->vaddr = a;
				return 0;
			}
		}
	}
	for (size_t i = 0; i < src->nimg; i++) {
		const struct psym_gosec *g = &src->img[i];

		for (size_t o = 0; o + 64 <= g->len; o += 8) {
			struct psym_gopclntab probe = { .name = (char *)"",
							.p = g->data + o,
							.len = g->len - o };

			/* A header that parses whole, not bytes that look like a magic. */
			if (plausible(g->data + o, g->len - o) &&
			    psym_gopclntab_header(&probe, NULL) == 0) {
				src->tab = g->data + o;
				src->len = g->len - o;
				src->vaddr = g->vaddr + o;
				return 0;
			}
		}
	}
	return PSYM_NOENT;
}

int psym_gopclntab_open_elf(struct psym_elf *elf, struct psym_gopclntab **out, struct psym_err *e)
{
	struct psym_gopclntab_src src = { 0 };
	struct psym_gosec *img = NULL;
	uint64_t text = 0;
	bool go = false;
	int ret;

	*out = NULL;
	if (image(elf, &img, &src.nimg))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	src.img = img;
	/* Go 1.13 and later write .go.buildinfo: without it, an older numbering (gopclntab.h). */
	src.go112 = psym_elf_section(elf, ".go.buildinfo", &(const void *){ NULL },
				     &(size_t){ 0 }) != 0;
	if (locate(elf, &src, &go) != 0) {
		free(img);
		if (!go)
			return PSYM_NOENT; /* not a Go binary: nothing to say */
		return psym_err_set(e, PSYM_NOENT, "%s: a Go binary, but no .gopclntab found",
				    psym_elf_path(elf));
	}
	ret = psym_gopclntab_open_mem(&src, psym_elf_path(elf), out, e);
	free(img);
	if (ret)
		return ret;
	if ((*out)->layout >= GO118) {
		moduledata(*out, elf);
		if (!(*out)->text_start && psym_elf_section_addr(elf, ".text", 0, &text) == 0)
			(*out)->text_start = text;
	}
	return 0;
}
