/* SPDX-License-Identifier: MIT */
/*
 * GNU addr2line's nearest symbol (elffile.h, psym_elf_gnu_symbol): the
 * rules of binutils 2.40's ELF function finder, learnt from its
 * behaviour and its source, for psym addr --compat=addr2line.
 *
 * Candidates are the symbols of .symtab (.dynsym without one) that may
 * name code: not sections, files, objects or thread-local ones, not the
 * hidden local untyped labels of zero size that annobin writes; a
 * zero-size symbol counts as one byte long. An address is answered from
 * the section holding it (the first allocated one in section-table
 * order): the candidate of that section starting closest below it;
 * among several starting there, taken in symbol-table order, a later
 * one wins only when the one held does not reach the address and it is
 * longer, or when both reach it and it is a function where the held one
 * is not, typed where the held one is untyped, or else shorter. Its file
 * is the STT_FILE before it, for a local symbol or while no STT_FILE has
 * come after some other symbol (an empty name too: addr2line prints ":?").
 */
#include "config.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "elffile_int.h"
#include "search.h"

enum {
	GS_FUNC = 1,   /* STT_FUNC: binutils' BSF_FUNCTION */
	GS_NOTYPE = 2, /* STT_NOTYPE */
};

struct gnu_sym {
	uint64_t addr, size; /* size: at least 1 */
	const char *name, *file;
	uint32_t seq, shndx;
	uint8_t flags;
};

struct gnu_sec {
	uint64_t lo, hi;
	uint32_t ndx;
};

struct psym_gnusyms {
	struct gnu_sym *s;
	size_t n, cap;
	struct gnu_sec *secs;
	size_t nsecs, capsecs;
};

/* The most candidates looked at below an address for one of its section. */
#define GNU_SCAN_BACK 4096

static int by_addr_seq(const void *a, const void *b)
{
	const struct gnu_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether binutils takes symbol s (of type type) as one that may name code. */
static bool candidate(const GElf_Sym *s, int type, int bind)
{
	if (type == STT_SECTION || type == STT_FILE || type == STT_OBJECT || type == STT_COMMON ||
	    type == STT_TLS)
		return false;
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return false;
	return !(s->st_size == 0 && bind == STB_LOCAL && type == STT_NOTYPE &&
		 GELF_ST_VISIBILITY(s->st_other) == STV_HIDDEN);
}

static int read_table(struct psym_elf *f, struct psym_gnusyms *g, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *file = NULL;
	bool seen = false, file_after = false;
	size_t n;

	if (!d || sh->sh_entsize == 0)
		return 0;
	n = d->d_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type, bind;
		struct gnu_sym *ns;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		name = elf_strptr(f->elf, sh->sh_link, s.st_name);
		if (type == STT_FILE) {
			file = name;
			file_after = seen;
			continue;
		}
		seen = true;
		if (!candidate(&s, type, bind) || !name)
			continue;
		if (f->secaddr) {
			if (s.st_shndx >= f->nsections)
				continue;
			s.st_value += f->secaddr[s.st_shndx];
		}
		ns = psym_array_grow(g->s, &g->cap, g->n + 1, sizeof(*ns), f->lim.max_symbols);
		if (!ns)
			return PSYM_ENOMEM;
		g->s = ns;
		g->s[g->n] = (struct gnu_sym){
			.addr = s.st_value,
			.size = s.st_size ? s.st_size : 1,
			.name = name,
			.file = file && (bind == STB_LOCAL || !file_after) ? file : NULL,
			.seq = (uint32_t)g->n,
			.shndx = s.st_shndx,
			.flags = (type == STT_FUNC ? GS_FUNC : 0) |
				 (type == STT_NOTYPE ? GS_NOTYPE : 0),
		};
		g->n++;
	}
	return 0;
}

static int read_sections(struct psym_elf *f, struct psym_gnusyms *g)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, ssh = { 0 }, dsh = { 0 };

	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			ssh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dsh = sh;
		}
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_size) {
			struct gnu_sec *ns =
				psym_array_grow(g->secs, &g->capsecs, g->nsecs + 1, sizeof(*ns), 0);
			size_t ndx = elf_ndxscn(scn);
			/* An object's sections where psym's layout put them (elfreloc.c). */
			uint64_t lo = !f->secaddr	   ? sh.sh_addr
				      : ndx < f->nsections ? f->secaddr[ndx]
							   : 0;

			if (!ns)
				return PSYM_ENOMEM;
			g->secs = ns;
			g->secs[g->nsecs++] = (struct gnu_sec){
				.lo = lo,
				.hi = lo + sh.sh_size < lo ? UINT64_MAX : lo + sh.sh_size,
				.ndx = (uint32_t)ndx,
			};
		}
	}
	/* addr2line reads .dynsym only when .symtab gives no symbol. */
	if (symtab && read_table(f, g, symtab, &ssh))
		return PSYM_ENOMEM;
	if (!g->n && dynsym && read_table(f, g, dynsym, &dsh))
		return PSYM_ENOMEM;
	if (g->n)
		qsort(g->s, g->n, sizeof(*g->s), by_addr_seq);
	return 0;
}

/* Whether y, at the same address as the held x, replaces it for addr. */
static bool better(const struct gnu_sym *x, const struct gnu_sym *y, uint64_t addr)
{
	if (addr - x->addr >= x->size)
		return y->size > x->size;
	if (addr - y->addr >= y->size)
		return false;
	if ((x->flags ^ y->flags) & GS_FUNC)
		return y->flags & GS_FUNC;
	if ((x->flags ^ y->flags) & GS_NOTYPE)
		return !(y->flags & GS_NOTYPE);
	return y->size < x->size;
}

const char *psym_elf_gnu_symbol(struct psym_elf *f, uint64_t vaddr, uint64_t *start,
				const char **file)
{
	struct psym_gnusyms *g = f->gnusyms;
	const struct gnu_sec *sec = NULL;
	const struct gnu_sym *best = NULL;
	size_t hi, k;

	if (!g) {
		g = f->gnusyms = calloc(1, sizeof(*g));
		if (!g || read_sections(f, g)) {
			psym_elf_gnu_free(f);
			return NULL;
		}
	}
	for (size_t i = 0; i < g->nsecs && !sec; i++)
		if (vaddr >= g->secs[i].lo && vaddr < g->secs[i].hi)
			sec = &g->secs[i];
	if (!sec)
		return NULL;
	hi = PSYM_LOWER_BOUND(0, g->n, i, g->s[i].addr > vaddr);
	for (k = 0; hi > 0 && k < GNU_SCAN_BACK && g->s[hi - 1].addr >= sec->lo; hi--, k++) {
		if (g->s[hi - 1].shndx == sec->ndx)
			break;
	}
	if (!hi || g->s[hi - 1].shndx != sec->ndx || g->s[hi - 1].addr < sec->lo)
		return NULL;
	/* The candidates at that address, in symbol-table order. */
	for (k = hi; k > 0 && g->s[k - 1].addr == g->s[hi - 1].addr; k--)
		;
	for (; k < hi; k++) {
		if (g->s[k].shndx != sec->ndx)
			continue;
		if (!best || better(best, &g->s[k], vaddr))
			best = &g->s[k];
	}
	if (start)
		*start = best->addr;
	if (file)
		*file = best->file;
	return best->name;
}

void psym_elf_gnu_free(struct psym_elf *f)
{
	struct psym_gnusyms *g = f ? f->gnusyms : NULL;

	if (!g)
		return;
	free(g->s);
	free(g->secs);
	free(g);
	f->gnusyms = NULL;
}
