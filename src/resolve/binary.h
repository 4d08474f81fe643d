/* SPDX-License-Identifier: MIT */
/*
 * One resolved binary: its ELF (symbols, address normalization) plus, found
 * on the first lookup that the symbol cache does not answer, its debug
 * information: DWARF in the binary itself, else a separate debug file
 * located through its entry of the located-object table (objtab.h), else
 * an answer source (source.h: a GSYM file, Go's .gopclntab), else
 * MiniDebugInfo (.gnu_debugdata).
 * Symbols of a debug file are merged into the binary's table; lines and
 * inline frames come from DWARF, names of addresses no CU covers from the
 * symbol table.
 */
#ifndef PSYM_BINARY_H
#define PSYM_BINARY_H

#include <stdbool.h>
#include <stddef.h>

#include "dwarfsym.h"
#include "elffile.h"
#include "frame.h"
#include "locate.h"
#include "readlimits.h"
#include "resolver.h"

/* A file named for an answer source: its option (the source's) and the path. */
struct psym_named_source {
	const char *option;
	const char *path;
};

struct psym_binary_opts {
	bool inlines;				 /* inline frames from DWARF */
	const struct psym_locate_opts *locate;	 /* finding the debug file; NULL: none */
	const struct psym_reader_limits *limits; /* DWARF caps; NULL: defaults */
	const char *cache_dir;			 /* persistent symbol cache, NULL: off */
	unsigned threads;			 /* DWARF decoding threads, 0: online CPUs */
	bool discriminators; /* line discriminators in frames[0] (psym addr; not cached) */
	/*
	 * GNU addr2line's names for the outermost frame (psym addr
	 * --compat=addr2line; neither cached nor indexed): the DWARF
	 * function's linkage name, else its name unless a symbol starts at
	 * its low_pc (then the symbol's), and the nearest symbol below the
	 * address where no DWARF function covers it.
	 */
	bool gnu_names;
	/* Per-build-ID indexes (src/index/store.h), NULL: off. Not with inlines off. */
	struct psym_index_store *index_store;
	/*
	 * Files the user named for answer sources (source.h), by the option
	 * each source names itself with (--gsym FILE: { "gsym", FILE }): such
	 * a file answers instead of the DWARF, and no index is put before it.
	 * None: the sources look for their files themselves (a GSYM file
	 * whose UUID is the build ID, Go's table in the binary).
	 */
	const struct psym_named_source *named;
	size_t n_named;
	/* Kernel symbol tables shared by a batch's runs (kallsyms.h), NULL: per run. */
	struct psym_kallsyms_cache *kallsyms_cache;
};

struct psym_binary;

/* Takes ownership of elf. o must outlive the binary. */
int psym_binary_new(struct psym_elf *elf, const struct psym_binary_opts *o,
		    struct psym_binary **out, struct psym_err *e);
void psym_binary_free(struct psym_binary *b);

/*
 * The binary's entry in a located-object table (objtab.h): its debug file,
 * alternate file and split-DWARF files are located through it, into the
 * entry, once. Both must outlive the binary. Without one, they are
 * searched for with o->locate directly.
 */
struct psym_objtab;
struct psym_located;
void psym_binary_set_entry(struct psym_binary *b, struct psym_objtab *t, struct psym_located *x);
/*
 * A binary with no entry of its own (a kernel module's file): the entry
 * whose later record (objtab.h) its files tried go to, for --explain.
 */
void psym_binary_set_log(struct psym_binary *b, struct psym_objtab *t, struct psym_located *x);

struct psym_elf *psym_binary_elf(struct psym_binary *b);

/*
 * Frames for an ELF virtual address, innermost first, into frames[max].
 * Returns the number of frames (0: nothing known). Errors of the debug
 * information (a corrupt CU) are remembered for the report, not fatal.
 */
size_t psym_binary_resolve(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
			   size_t max);

/* Where lines came from (NULL if no DWARF), and why not, for the report. */
const char *psym_binary_dwarf_path(const struct psym_binary *b);
/*
 * Get ready to resolve these addresses (any order): what the symbol cache
 * does not answer is decoded from DWARF now, on several threads. Optional
 * (psym_binary_resolve does the same work on one thread when needed);
 * returns 0 or PSYM_ENOMEM.
 */
int psym_binary_prepare(struct psym_binary *b, const uint64_t *vaddrs, size_t n,
			struct psym_err *e);

/* Compile units in its DWARF and how many were decoded so far (0, 0: none). */
void psym_binary_dwarf_units(const struct psym_binary *b, size_t *total, size_t *decoded);
const char *psym_binary_debug_note(const struct psym_binary *b);
/*
 * Why the alternate (dwz) / supplementary DWARF file the debug information
 * names could not be used, or NULL (none needed, or found). Borrowed.
 */
const struct psym_reason *psym_binary_alt_why(const struct psym_binary *b);

/*
 * Split DWARF: how many skeleton units so far had no usable split unit
 * (.dwo / .dwp), with a one-line note and the most telling reason in buf.
 */
size_t psym_binary_split_note(const struct psym_binary *b, char *buf, size_t bufsz);
/*
 * The files tried since the last call (its debug file's candidates, its
 * DWARF, alternate and split files, a symbol table, an answer source), from
 * the located-object table's entry (psym_objtab_news; none without a table).
 */
void psym_binary_news(const struct psym_binary *b, const struct psym_objtab_try **tried, size_t *n,
		      size_t *lost);
/* The same as data: returns the units without one; *units: skeleton units. */
size_t psym_binary_split_status(const struct psym_binary *b, size_t *units,
				struct psym_reason *why);
/*
 * Its answers so far depend on the build alone (DWARF, with its alternate
 * file and every split unit it needed; else a table of the binary itself,
 * Go's .gopclntab): a persistent cache may keep them.
 */
bool psym_binary_answers_final(const struct psym_binary *b);

/* ---- what the per-build-ID index (src/index/) is built from ------------ */

/*
 * The revision of psym's answer rules, raised whenever a change in psym
 * changes answers (3: symbol-table rules of symtab.h, dwz alternate files;
 * 4: .debug_aranges read for every unit, the PT_LOAD bias of a file
 * without section headers; 5: inlined calls without code kept as frames,
 * the outermost frame's file from the symbol's STT_FILE; 6: a zero-size
 * symbol outside every section and segment names its own address only;
 * 7: .gopclntab boundaries at each step's end, its Go 1.13-1.15 inline
 * trees; 8: Go 1.26 and later's inline trees).
 * The symbol cache and indexes are both made under it.
 */
#define PSYM_ANSWER_REV "8"

/*
 * The variant answers are kept under, by the answer cache and the index:
 * the answer rules of this psym, inline frames or not, and the layout's
 * tag. The one place its form is written.
 */
struct psym_layout;
void psym_answer_variant(char *buf, size_t bufsz, bool inlines, const struct psym_layout *l);

/*
 * The variant indexes of b are made under: the answer rules of this psym
 * (answers change when they do) and b's layout (layout.h), since two files
 * of one build ID may be placed differently.
 */
const char *psym_binary_variant(const struct psym_binary *b);

/*
 * What b's index and its answer-cache file are keyed by: its GNU build
 * ID, else the key of its Go build ID (psym_go_build_id_key); NULL: none.
 */
const char *psym_binary_key(const struct psym_binary *b);

/* b's layout: index addresses are relative to it (psym_layout_rel). */
struct psym_layout;
const struct psym_layout *psym_binary_layout(const struct psym_binary *b);

/*
 * Every address where an answer may change (DWARF unit, function, inline,
 * sequence and row boundaries, symbol starts and ends), sorted, distinct,
 * into *out (malloc'd). Decodes all of the DWARF; without DWARF, the steps
 * of a table of the binary itself (source.h's of_binary) and its symbols.
 * PSYM_NOENT (why in e) when the answers are not complete enough to be
 * indexed: no DWARF nor such a table, its alternate file missing, split
 * units missing (as for the symbol cache).
 */
int psym_binary_boundaries(struct psym_binary *b, uint64_t **out, size_t *n, struct psym_err *e);

/* The answer at vaddr from the debug information, past any index or cache. */
size_t psym_binary_resolve_dwarf(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
				 size_t max);

/*
 * The symbol holding vaddr (its start, size), from the binary's symbols and
 * its separate debug file's, whether or not an index answers: or NULL.
 */
const struct psym_sym *psym_binary_symbol(struct psym_binary *b, uint64_t vaddr);
/*
 * The answer source open beside (or instead of) the DWARF (source.h), for
 * the report: its item of a description (a GSYM file, Go's table); false:
 * none. Borrowed until the binary's next call.
 */
bool psym_binary_source_item(const struct psym_binary *b, struct psym_resitem *it);

#endif
