/* SPDX-License-Identifier: MIT */
/*
 * An ELF file's symbol table (elffile.h): the code symbols of .symtab and
 * .dynsym, name@plt entries made from .rela.plt, and the sections and
 * loads that bound zero-size symbols; built on the first lookup, with the
 * tables of adopted debug files added by psym_elf_add_symbols.
 */
#include "config.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "array.h"
#include "elffile_int.h"
#include "symtab.h"

/* "name@VER" / "name@@VER" -> "name" (copied into the string arena). */
static const char *strip_version(struct psym_elf *f, const char *raw, bool *versioned)
{
	const char *at = strchr(raw, '@');

	*versioned = at != NULL;
	if (!at || at == raw)
		return raw;
	return psym_arena_strndup(&f->strings, raw, (size_t)(at - raw));
}

/*
 * Which symbols name code: functions, and untyped symbols in executable
 * sections (assembly labels, sized or not) except local labels and the
 * ARM/AArch64 mapping symbols ($x, $d, $a, $t).
 */
static bool names_code(int type, bool exec, const char *raw)
{
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE || !exec)
		return false;
	if (raw[0] == '$' || (raw[0] == '.' && raw[1] == 'L'))
		return false;
	return true;
}

/*
 * Which symbols name data (the table of psym_elf_data_symbol): objects
 * and common symbols, untyped symbols outside code (data_start), and
 * absolute symbols other than files; not thread-local ones (their values
 * are offsets in the TLS block) nor local labels.
 */
static bool names_data(int type, bool exec, bool abs, const char *raw)
{
	if (raw[0] == '$' || (raw[0] == '.' && raw[1] == 'L'))
		return false;
	if (abs)
		return type == STT_OBJECT || type == STT_NOTYPE || type == STT_FUNC;
	if (type == STT_OBJECT || type == STT_COMMON)
		return true;
	return type == STT_NOTYPE && !exec;
}

/* Whether a symbol of this type can be in the table (names_code, names_data). */
static bool may_name(int type, bool abs, bool data)
{
	if (!data)
		return type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE;
	if (abs)
		return type == STT_OBJECT || type == STT_NOTYPE || type == STT_FUNC;
	return type == STT_OBJECT || type == STT_COMMON || type == STT_NOTYPE;
}

/*
 * Rank among aliases at one address, lower wins (after size: symtab.h):
 * global, weak, local; unversioned; FUNC over NOTYPE.
 */
static uint32_t sym_rank(int bind, int type, bool versioned)
{
	return (bind == STB_GLOBAL ? 0u
		: bind == STB_WEAK ? 4u
				   : 8u) +
	       (versioned ? 2u : 0u) + (type == STT_NOTYPE ? 1u : 0u);
}

/*
 * Lookups answered without the whole table. A Go binary's lookups ask its
 * symbols only for the few addresses its own table lacks (rclone's cgo
 * and C start-up code): reading and sorting 100,000s of symbols, twice
 * (code and data), for those cost more than all its other lookups. A
 * window, built for an address x, keeps the symbols at the scan_back
 * highest addresses at or below x and the WINDOW_MAX lowest above it,
 * every symbol at each; for any address y from x up to the highest of
 * those (past it when there are fewer), it holds every entry a lookup of
 * y looks at (the scan_back below y, every alias at each, the next one
 * up that ends a zero-size one), and a region bounds an entry whatever
 * else the table holds: finished as the whole table is, it gives the
 * whole table's answer. Pass 1 finds the addresses (a name is read only
 * when the address would change them), pass 2 pushes their symbols in
 * table order. Addresses come sorted: a lookup below the windows starts
 * a new one (a new sweep, psym addr's next chunk), one past the newest
 * window's end (lookups running through the table: a C program's, one
 * per address) has the table read whole, as do more than
 * PSYM_ELF_WINDOWS sweeps.
 */
#define WINDOW_MAX 64 /* distinct addresses a window holds each side of x (>= scan_back) */

struct window {
	uint64_t x;
	bool collect;		 /* pass 1: finding the addresses */
	uint64_t lo[WINDOW_MAX]; /* the highest addresses at or below x, ascending */
	uint64_t hi[WINDOW_MAX]; /* the lowest above x, ascending */
	size_t nlo, nhi, max;	 /* max: the table's scan_back */
};

/* Whether a symbol at a would change the window (pass 1). */
static bool window_wants(const struct window *w, uint64_t a)
{
	if (a > w->x)
		return w->nhi < WINDOW_MAX || a <= w->hi[w->nhi - 1];
	return w->nlo < w->max || a >= w->lo[0];
}

/*
 * a into the ascending set v of *n distinct values (at most max): the
 * lowest falls out of a full set when keep_high, else the highest; a is
 * inside its bounds (window_wants).
 */
static void set_add(uint64_t *v, size_t *n, size_t max, uint64_t a, bool keep_high)
{
	size_t i = 0;

	while (i < *n && v[i] < a)
		i++;
	if (i < *n && v[i] == a)
		return;
	if (*n < max) {
		memmove(v + i + 1, v + i, (*n - i) * sizeof(*v));
		v[i] = a;
		(*n)++;
	} else if (keep_high) {
		memmove(v, v + 1, (i - 1) * sizeof(*v));
		v[i - 1] = a;
	} else {
		memmove(v + i + 1, v + i, (*n - 1 - i) * sizeof(*v));
		v[i] = a;
	}
}

static void window_see(struct window *w, uint64_t a)
{
	if (a > w->x)
		set_add(w->hi, &w->nhi, WINDOW_MAX, a, false);
	else
		set_add(w->lo, &w->nlo, w->max, a, true);
}

/* Whether the symbols at a are the window's (pass 2). */
static bool window_keeps(const struct window *w, uint64_t a)
{
	if (a > w->x)
		return w->nhi < WINDOW_MAX || a <= w->hi[w->nhi - 1];
	return w->nlo < w->max || a >= w->lo[0];
}

/* Where one reading of the symbol tables goes: into t, or a window's pass. */
struct sym_pass {
	struct psym_symtab *t;
	bool data;	  /* the table of data symbols */
	struct window *w; /* NULL: every symbol into t */
};

/*
 * The name at off of the string table: in place when its data sd ends with
 * a NUL (every name inside it ends there), else through libelf; NULL
 * when it does not end inside the table, as elf_strptr answers.
 */
static const char *sym_name(struct psym_elf *src, const GElf_Shdr *sh, const Elf_Data *sd,
			    size_t off)
{
	const char *b = sd ? sd->d_buf : NULL;

	if (!b || !sd->d_size || b[sd->d_size - 1])
		return elf_strptr(src->elf, sh->sh_link, off);
	return off < sd->d_size ? b + off : NULL;
}

/* Symbol i of d: ELF64 entries read in place (libelf gave them in memory order). */
static bool get_sym(Elf_Data *d, bool raw64, size_t i, GElf_Sym *s)
{
	const Elf64_Sym *r = d->d_buf;

	if (!raw64)
		return gelf_getsym(d, (int)i, s) != NULL;
	if ((i + 1) * sizeof(*r) > d->d_size)
		return false;
	*s = r[i];
	return true;
}

/*
 * Read one SHT_SYMTAB/SHT_DYNSYM section of src into p's table of code
 * symbols (or, data, of data symbols), shifted by bias.
 */
static int read_symtab(struct psym_elf *f, struct psym_elf *src, Elf_Scn *scn, const GElf_Shdr *sh,
		       uint64_t bias, struct sym_pass *p, struct psym_err *e)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *strs = elf_getscn(src->elf, sh->sh_link);
	GElf_Shdr strsh;
	/* A string table read in place when it is one plain buffer. */
	Elf_Data *sd = strs && gelf_getshdr(strs, &strsh) && strsh.sh_type == SHT_STRTAB
			       ? elf_getdata(strs, NULL)
			       : NULL;
	bool raw64 = d && gelf_getclass(src->elf) == ELFCLASS64 && d->d_type == ELF_T_SYM &&
		     d->d_buf && sh->sh_entsize == sizeof(Elf64_Sym);
	bool data = p->data;
	const char *file = NULL;
	size_t n, last_ndx = SHN_UNDEF; /* the section of the symbol before, and its flag */
	bool last_exec = false;
	int ret;

	if (!d || sh->sh_entsize == 0)
		return 0;
	n = d->d_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *raw, *name;
		int type, bind;
		bool exec = false, versioned, abs;
		uint64_t addr;

		if (!get_sym(d, raw64, i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (type == STT_FILE) {
			/* The source file of the local symbols that follow. */
			file = sym_name(src, sh, sd, s.st_name);
			if (file && !*file)
				file = NULL;
			continue;
		}
		abs = s.st_shndx == SHN_ABS;
		if (s.st_shndx == SHN_UNDEF || (abs && !data) || (s.st_value == 0 && !src->secaddr))
			continue;
		if (!may_name(type, abs, data))
			continue; /* at once, before its section and name are looked at */
		if (src->secaddr && !abs) {
			/* A relocatable object's values are offsets in their section. */
			if (s.st_shndx >= src->nsections)
				continue;
			s.st_value += src->secaddr[s.st_shndx];
		}
		addr = s.st_value + (abs ? 0 : bias);
		/* A window's passes: the address first, the name only when it matters. */
		if (p->w && (p->w->collect ? !window_wants(p->w, addr) : !window_keeps(p->w, addr)))
			continue;
		if (s.st_shndx < SHN_LORESERVE && s.st_shndx == last_ndx) {
			exec = last_exec;
		} else if (s.st_shndx < SHN_LORESERVE) {
			Elf_Scn *tscn = elf_getscn(src->elf, s.st_shndx);
			GElf_Shdr tsh;

			if (tscn && gelf_getshdr(tscn, &tsh))
				exec = (tsh.sh_flags & SHF_EXECINSTR) != 0;
			last_ndx = s.st_shndx;
			last_exec = exec;
		}
		raw = sym_name(src, sh, sd, s.st_name);
		if (!raw || !*raw)
			continue; /* name outside the string table */
		if (data ? !names_data(type, exec, abs, raw) : !names_code(type, exec, raw))
			continue;
		if (p->w && p->w->collect) {
			window_see(p->w, addr);
			continue;
		}
		name = strip_version(f, raw, &versioned);
		if (!name)
			return psym_err_set(e, psym_arena_error(&f->strings), "out of memory");
		ret = psym_symtab_push(p->t,
				       &(struct psym_sym){
					       .addr = addr,
					       .size = s.st_size,
					       .name = name,
					       .linkage = name,
					       .file = bind == STB_LOCAL ? file : NULL,
					       .rank = sym_rank(bind, type, versioned),
				       },
				       f->path, e);
		if (ret)
			return ret;
	}
	return 0;
}

/* Synthesize name@plt from .rela.plt (x86-64 and AArch64 layouts), into p. */
static int read_plt(struct psym_elf *f, struct sym_pass *p, struct psym_err *e)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn, *pscn, *dscn;
	Elf_Data *rd, *dd;
	uint64_t base, step = 16;
	bool sec;
	size_t n;
	int ret;

	if (f->eh.e_machine != EM_X86_64 && f->eh.e_machine != EM_AARCH64)
		return 0;
	rscn = psym_elf_find_section(f, ".rela.plt", &rsh);
	if (!rscn || rsh.sh_type != SHT_RELA || rsh.sh_entsize == 0)
		return 0;
	pscn = psym_elf_find_section(f, ".plt.sec", &psh);
	sec = pscn != NULL;
	if (!pscn)
		pscn = psym_elf_find_section(f, ".plt", &psh);
	if (!pscn)
		return 0;
	dscn = elf_getscn(f->elf, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh) || dsh.sh_type != SHT_DYNSYM)
		return 0;
	rd = elf_getdata(rscn, NULL);
	dd = elf_getdata(dscn, NULL);
	if (!rd || !dd)
		return 0;
	/* Header: 16 bytes on x86-64, 32 on AArch64; none in .plt.sec. */
	base = psh.sh_addr + (sec ? 0 : f->eh.e_machine == EM_X86_64 ? 16 : 32);
	n = rd->d_size / rsh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *raw;
		char *name;
		bool versioned;

		if (!gelf_getrela(rd, (int)i, &r))
			break;
		if (GELF_R_SYM(r.r_info) == 0 || !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		raw = elf_strptr(f->elf, dsh.sh_link, s.st_name);
		if (!raw || !*raw)
			continue;
		if (p->w && i * step <= psh.sh_size) {
			if (p->w->collect && window_wants(p->w, base + i * step))
				window_see(p->w, base + i * step);
			if (p->w->collect || !window_keeps(p->w, base + i * step))
				continue;
		}
		raw = strip_version(f, raw, &versioned);
		name = raw ? psym_arena_printf(&f->strings, "%s@plt", raw) : NULL;
		if (!name)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if (i * step > psh.sh_size)
			break;
		ret = psym_symtab_push(p->t,
				       &(struct psym_sym){ .addr = base + i * step,
							   .size = step,
							   .name = name,
							   .linkage = name,
							   .rank = 16 },
				       f->path, e);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_symbols_of(struct psym_elf *f, struct psym_elf *src, uint64_t bias,
			   struct sym_pass *p, struct psym_err *e)
{
	Elf_Scn *scn = NULL;
	int ret;

	while ((scn = elf_nextscn(src->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		ret = read_symtab(f, src, scn, &sh, bias, p, e);
		if (ret)
			return ret;
	}
	return 0;
}

static bool push_region(struct psym_elf *f, uint64_t start, uint64_t size, size_t order)
{
	struct psym_addr_region *nr;

	if (!size)
		return true;
	nr = psym_array_grow(f->regions, &f->capregions, f->nregions + 1, sizeof(*nr), 0);
	if (!nr)
		return false;
	f->regions = nr;
	f->regions[f->nregions++] = (struct psym_addr_region){
		.start = start,
		.end = start + size < start ? UINT64_MAX : start + size,
		.order = order,
	};
	return true;
}

/*
 * What bounds zero-size symbols read from src: its allocated sections
 * (shifted by bias; the first in section-table order when they overlap,
 * as .tbss does), ranked after those of the files read before it, and,
 * for the file itself, its PT_LOAD segments after every section: a file
 * without section headers must not give its last symbol an unbounded end.
 */
static void add_regions(struct psym_elf *f, struct psym_elf *src, uint64_t bias)
{
	size_t base = (f->nregions + 1) << 20;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(src->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (!push_region(f, psym_elf_scn_addr(src, elf_ndxscn(scn)) + bias, sh.sh_size,
				 base + elf_ndxscn(scn)))
			return;
	}
	if (src == f) {
		for (size_t i = 0; i < f->nloads; i++)
			if (!push_region(f, f->loads[i].vaddr, f->loads[i].memsz,
					 ((size_t)1 << 60) + i))
				return;
	}
}

/* The file's own regions, gathered once (a window's lookups want them before the table). */
static void own_regions(struct psym_elf *f)
{
	if (!f->own_regions) {
		f->own_regions = true;
		add_regions(f, f, 0);
	}
}

static int load_symbols(struct psym_elf *f, struct psym_err *e)
{
	struct sym_pass p = { .t = &f->syms };
	struct psym_err le = { 0 };
	int ret;

	if (f->syms_loaded)
		return 0;
	f->syms_loaded = true;
	ret = read_symbols_of(f, f, 0, &p, &le);
	if (!ret)
		ret = read_plt(f, &p, &le);
	if (ret) {
		/* A partial table would name addresses wrongly: none at all. */
		psym_symtab_clear(&f->syms);
		snprintf(f->sym_err, sizeof(f->sym_err), "%s", le.msg);
		if (e)
			*e = le;
	}
	own_regions(f);
	psym_symtab_finish(&f->syms, f->regions, f->nregions);
	return ret;
}

const char *psym_elf_symbols_error(struct psym_elf *f)
{
	/* Not read for this: a run whose answers needed no symbol has no such note. */
	return f->sym_err[0] ? f->sym_err : NULL;
}

int psym_elf_add_symbols(struct psym_elf *f, struct psym_elf *src, struct psym_err *e)
{
	uint64_t bias;
	int ret = load_symbols(f, e);

	if (ret)
		return ret;
	bias = psym_elf_bias_from(f, src);
	ret = read_symbols_of(f, src, bias, &(struct sym_pass){ .t = &f->syms }, e);
	add_regions(f, src, bias);
	psym_symtab_finish(&f->syms, f->regions, f->nregions);
	return ret;
}

/* At most how many symbols f's tables hold: its symbol tables' and relocations' entries. */
static size_t raw_count(struct psym_elf *f)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_RELA)
			n += sh.sh_size / sh.sh_entsize;
		else if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
			 (d = elf_getdata(scn, NULL)))
			n += d->d_size / sh.sh_entsize;
	}
	return n;
}

/*
 * A window of f's own code table (data: of its data table) for x,
 * bounded by the first nregions regions, into *w. False when there can be
 * none: a table that may exceed its cap (its error is the whole table's
 * to give), no memory.
 */
static bool window_build(struct psym_elf *f, bool data, uint64_t x, size_t nregions,
			 struct psym_elf_window *out)
{
	const struct psym_symtab *whole = data ? &f->dsyms : &f->syms;
	struct window w = { .x = x, .collect = true, .max = whole->o.scan_back };
	struct sym_pass p = { .t = &out->t, .data = data, .w = &w };
	struct psym_err e = { 0 };
	bool ok;

	if (whole->o.rule != PSYM_SYMTAB_NEAREST || w.max > WINDOW_MAX ||
	    raw_count(f) > whole->o.max_entries)
		return false;
	psym_symtab_init(&out->t, &whole->o);
	ok = !read_symbols_of(f, f, 0, &p, &e) && (data || !read_plt(f, &p, &e));
	w.collect = false;
	ok = ok && !read_symbols_of(f, f, 0, &p, &e) && (data || !read_plt(f, &p, &e));
	if (!ok) {
		psym_symtab_free(&out->t);
		return false;
	}
	psym_symtab_finish(&out->t, f->regions, nregions);
	out->from = x;
	out->to = w.nhi == WINDOW_MAX ? w.hi[WINDOW_MAX - 1] - 1 : UINT64_MAX;
	return true;
}

/*
 * The answer for y of a window of f's code table (data: data table),
 * built when none holds y and there may be more; *answered false when
 * the whole table is to answer.
 */
static const struct psym_sym *windowed(struct psym_elf *f, bool data, uint64_t y, size_t nregions,
				       bool *answered)
{
	struct psym_elf_window *w = f->win[data];
	size_t *n = &f->nwin[data];

	*answered = true;
	for (size_t i = *n; i-- > 0;)
		if (w[i].from <= y && y <= w[i].to)
			return psym_symtab_lookup(&w[i].t, y);
	/* Past the newest window's end: lookups run through the table, read it whole. */
	if (*n && y > w[*n - 1].to) {
		*answered = false;
		return NULL;
	}
	if (*n < PSYM_ELF_WINDOWS && window_build(f, data, y, nregions, &w[*n]))
		return psym_symtab_lookup(&w[(*n)++].t, y);
	*answered = false; /* the caller reads the table whole: no window is asked again */
	return NULL;
}

const struct psym_sym *psym_elf_symbol(struct psym_elf *f, uint64_t vaddr)
{
	const struct psym_sym *s;
	bool answered;

	if (!f->syms_loaded) {
		f->syms_peeked = true; /* the sections are placed for good (psym_elf_place) */
		own_regions(f);
		s = windowed(f, false, vaddr, f->nregions, &answered);
		if (answered)
			return s;
	}
	load_symbols(f, NULL);
	return psym_symtab_lookup(&f->syms, vaddr);
}

const struct psym_sym *psym_elf_data_symbol(struct psym_elf *f, uint64_t vaddr)
{
	const struct psym_sym *s;
	bool answered;

	if (!f->dsyms_loaded && !f->dsyms_peeked) {
		/* The regions that bound both tables, as the first lookup finds them. */
		own_regions(f);
		f->dregions = f->nregions;
		f->syms_peeked = f->dsyms_peeked = true;
	}
	if (!f->dsyms_loaded) {
		s = windowed(f, true, vaddr, f->dregions, &answered);
		if (answered)
			return s;
		f->dsyms_loaded = true;
		/* The code table too: its error is said wherever symbols were read. */
		load_symbols(f, NULL);
		/* A partial table would name addresses wrongly: none at all. */
		if (read_symbols_of(f, f, 0, &(struct sym_pass){ .t = &f->dsyms, .data = true },
				    &(struct psym_err){ 0 }))
			psym_symtab_clear(&f->dsyms);
		psym_symtab_finish(&f->dsyms, f->regions, f->dregions);
	}
	return psym_symtab_lookup(&f->dsyms, vaddr);
}

const struct psym_symtab *psym_elf_symtab(struct psym_elf *f)
{
	load_symbols(f, NULL);
	return &f->syms;
}

int psym_elf_lookup(struct psym_elf *f, uint64_t vaddr, struct psym_frame *frame)
{
	const struct psym_sym *s = psym_elf_symbol(f, vaddr);

	if (!s)
		return PSYM_NOENT;
	memset(frame, 0, sizeof(*frame));
	frame->name = s->name;
	frame->linkage_name = s->linkage;
	frame->file = s->file;
	return 0;
}

int psym_elf_find_symbol(struct psym_elf *f, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL;

	load_symbols(f, NULL);
	for (size_t i = 0; i < psym_symtab_count(&f->syms); i++) {
		const struct psym_sym *s = psym_symtab_at(&f->syms, i);

		if (strcmp(s->name, name) == 0) {
			*addr = s->addr;
			return 0;
		}
	}
	/*
	 * Not a function, or an alias that lost to a better name at its
	 * address (vmlinux's _text): scan the raw tables, bounded by the cap.
	 */
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = d->d_size / sh.sh_entsize;
		for (size_t i = 1; i < n && i < f->lim.max_symbols; i++) {
			GElf_Sym s;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			nm = elf_strptr(f->elf, sh.sh_link, s.st_name);
			if (nm && strcmp(nm, name) == 0) {
				*addr = s.st_value;
				if (f->secaddr && s.st_shndx < f->nsections)
					*addr += f->secaddr[s.st_shndx];
				return 0;
			}
		}
	}
	return PSYM_NOENT;
}
