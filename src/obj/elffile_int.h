/* SPDX-License-Identifier: MIT */
/*
 * Inside an opened ELF file (elffile.h): the struct both halves of the
 * module share. elffile.c opens the file, checks its extent and headers,
 * and answers about its loads, sections, debug link and embedded
 * MiniDebugInfo; elfsyms.c builds its symbol table (lazily, on the first
 * lookup) from .symtab, .dynsym and the PLT, with the tables of adopted
 * debug files added.
 */
#ifndef PSYM_ELFFILE_INT_H
#define PSYM_ELFFILE_INT_H

#include <gelf.h>
#include <libelf.h>

#include "arena.h"
#include "elffile.h"
#include "symtab.h"

/* Windows of a table a file has at most (elfsyms.c). */
#define PSYM_ELF_WINDOWS 4

/* Part of a symbol table, answering the addresses from..to as the whole table. */
struct psym_elf_window {
	uint64_t from, to;
	struct psym_symtab t;
};

struct psym_gnusyms;

struct psym_elf {
	char *path;
	void *map; /* the file, mapped read-only (psym_elf_open) */
	size_t maplen;
	Elf *elf;
	void *mem; /* owned image (open_mem with ownership) */
	GElf_Ehdr eh;
	size_t shstrndx;
	size_t nsections;
	struct psym_elf_limits lim;
	char build_id[PSYM_BUILD_ID_HEX_MAX];
	bool has_build_id;
	char go_build_id[PSYM_BUILD_ID_HEX_MAX]; /* "go:..." or "", read without a GNU one */
	struct psym_elf_load *loads;
	size_t nloads;
	/* A debug-only file: the binary's PT_LOADs as recovered (norm_layout). */
	bool debug_only;
	struct psym_elf_load *norm;
	size_t nnorm;
	/* Symbol table: built lazily, then sorted and deduplicated. */
	struct psym_symtab syms;
	bool syms_loaded;
	/* Data objects and absolute symbols (psym addr's names for data): lazily too. */
	struct psym_symtab dsyms;
	bool dsyms_loaded;
	/*
	 * Windows of each table (code, data) answering before it is read
	 * whole (elfsyms.c), whether one placed the sections for good, and
	 * the regions (the first dregions) that bound the data table.
	 */
	struct psym_elf_window win[2][PSYM_ELF_WINDOWS];
	size_t nwin[2], dregions;
	bool syms_peeked, dsyms_peeked, own_regions;
	/* What bounds zero-size symbols: sections (own, then sources'), PT_LOADs. */
	struct psym_addr_region *regions;
	size_t nregions, capregions;
	char sym_err[1024]; /* why the symbol table was dropped, "" if it was not */
	struct psym_arena strings;
	struct psym_elf **children; /* adopted ELFs whose strings we borrow */
	size_t nchildren;
	/* ET_REL: each section's address in psym's layout (elfreloc.c). */
	uint64_t *secaddr;
	/* GNU addr2line's symbol candidates (gnusyms.c): lazily, NULL till then. */
	struct psym_gnusyms *gnusyms;
};

/* The section called name (its header in *sh), or NULL. */
Elf_Scn *psym_elf_find_section(const struct psym_elf *f, const char *name, GElf_Shdr *sh);

#endif
