/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline frames from DWARF (our own reader, DWARF 2-5).
 *
 * psym_dwarf_open() builds a sorted table of the address ranges of every
 * compile unit from the CUs themselves (low_pc/high_pc or DW_AT_ranges,
 * DWARF 4 .debug_ranges and DWARF 5 .debug_rnglists; .debug_aranges is not
 * needed). A CU is decoded only when an address inside it is looked up:
 * its subprogram / inlined-subroutine tree and its line table are then
 * kept, sorted, for the life of the psym_dwarf. Beyond the DWARF sections
 * themselves (mapped, or inflated once when compressed), memory grows with
 * what was looked up.
 *
 * DWARF is untrusted: DIE nesting depth, abstract_origin/specification
 * chains (cycles end), entries per CU and line rows are all capped; so
 * are the decompressed sizes of compressed sections, checked against
 * their headers before anything is allocated or inflated.
 */
#ifndef PSYM_DWARFSYM_H
#define PSYM_DWARFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"
#include "error.h"
#include "frame.h"
#include "reason.h"

struct psym_dwarf;

/*
 * Split DWARF (-gsplit-dwarf): where a skeleton unit's .dwo file, or the
 * binary's .dwp package, may be. Each function offers candidate paths to
 * fn, in order, until fn returns true; the reader opens each candidate as
 * a regular ELF file and uses it only when it holds the split unit with
 * the skeleton's dwo id. The .dwp candidates are tried once, before any
 * .dwo. NULL finder (or functions): split units are not looked for.
 */
typedef bool (*psym_dwo_cand_fn)(void *ud, const char *path);

struct psym_dwo_finder {
	void *ctx;
	/* comp_dir may be NULL; dwo_name is the skeleton's, as written. */
	void (*dwo)(void *ctx, const char *comp_dir, const char *dwo_name, psym_dwo_cand_fn fn,
		    void *ud);
	void (*dwp)(void *ctx, psym_dwo_cand_fn fn, void *ud);
	/*
	 * Each candidate tried, as data: a .dwp package (dwp) or a .dwo file,
	 * and why it was refused (NULL: used). May be NULL.
	 */
	void (*tried)(void *ctx, bool dwp, const char *path, const struct psym_reason *why);
	const struct psym_elf_limits *elf_limits; /* for opening them; NULL: defaults */
};

struct psym_dwarf_opts {
	bool inlines;	     /* false: only the physical function */
	bool discriminators; /* keep line-table discriminators (frames[0]) */
	/*
	 * GNU addr2line 2.40's reading of the DWARF: a DWARF 5
	 * sequence that never sets its file is in file 0 (binutils' initial
	 * file register), an address outside every unit's ranges is looked
	 * up in the line tables, units in .debug_info order, and functions'
	 * DW_FORM_rnglistx ranges are not read (psym addr --compat=addr2line).
	 */
	bool gnu_lines;
	size_t max_depth;     /* DIE nesting (default 512) */
	size_t max_entries;   /* functions + inlines per CU (default 16 M) */
	size_t max_rows;      /* line rows per CU (default 64 M) */
	uint64_t max_section; /* one section decompressed (default 4 G) */
	uint64_t max_ratio;   /* decompressed / compressed, of a section over 16 MiB
			       * (default 200: real DWARF compresses 3-10 times) */
	uint64_t max_memory;  /* all sections decompressed together (0: no cap) */
	unsigned threads;     /* for psym_dwarf_prepare (0: online CPUs, at most 8) */
	const struct psym_dwo_finder *split; /* borrowed, outlives the psym_dwarf; NULL: none */
};

/*
 * Open the DWARF of an opened ELF file, which is borrowed and must outlive
 * the psym_dwarf (its section count was capped when it was opened).
 * PSYM_NOENT when it has no DWARF. o may be NULL (inlines on, default
 * limits).
 */
int psym_dwarf_open(const struct psym_elf *elf, const struct psym_dwarf_opts *o,
		    struct psym_dwarf **out, struct psym_err *e);
void psym_dwarf_close(struct psym_dwarf *d);

/*
 * Frames for an ELF virtual address, innermost first: frames[0] is the
 * innermost inlined function with the line-table row of the address; each
 * later frame is the caller, with the call site of the frame before it;
 * the last is the function that physically contains the address.
 * When no function DIE covers the address but the line table does, one
 * frame with name NULL and the file/line is returned (the caller takes
 * the name from the symbol table). Returns 0 or PSYM_NOENT; a CU that
 * cannot be decoded is reported once through e and then treated as absent.
 * *frames and its strings stay valid until the next lookup or close.
 */
int psym_dwarf_lookup(struct psym_dwarf *d, uint64_t vaddr, const struct psym_frame **frames,
		      size_t *n, struct psym_err *e);

/*
 * What GNU addr2line's own answers need of the frames of the last lookup
 * (with gnu_lines), one per frame in the same order; valid as long as
 * they are.
 */
struct psym_dwarf_gnu {
	uint64_t id;  /* the function's or inlined call's DIE (0: a frame without one) */
	uint64_t low; /* binutils' start of it: DW_AT_low_pc, else its first range's */
	bool plain;   /* its unit's language is not mangled (C, Fortran...): its
		       * DW_AT_name is binutils' linkage name */
};
const struct psym_dwarf_gnu *psym_dwarf_gnu_frames(const struct psym_dwarf *d);

/*
 * Decode now, on several threads, every compile unit that holds one of the
 * n addresses (any order), so that their lookups find them decoded. Only
 * an optimization: lookups decode what is still missing. Returns 0, or
 * PSYM_ENOMEM; a CU that cannot be decoded is reported through e (the first
 * one) and then treated as absent, as with lookups.
 */
int psym_dwarf_prepare(struct psym_dwarf *d, const uint64_t *addrs, size_t n, struct psym_err *e);

/*
 * The alternate file (dwz: .gnu_debugaltlink) or supplementary file
 * (DWARF 5: .debug_sup) that elf's DWARF refers to: its path as recorded
 * into path and its build ID as lowercase hex into build_id. PSYM_NOENT
 * when elf names none; PSYM_EBADDWARF (message in e) when the section is
 * malformed (no build ID, a path with control characters or too long).
 */
int psym_dwarf_altlink(const struct psym_elf *elf, char *path, size_t pathsz, char *build_id,
		       size_t bidsz, struct psym_err *e);

/*
 * Give d the DWARF of its alternate file, found and checked by the caller
 * (borrowed: it must outlive d). Call before lookups. The same caps apply
 * (one section; the memory cap is shared: the alternate file gets what d
 * left). Without it, what lives in the alternate file (names through
 * DW_FORM_GNU_ref_alt / strp_alt, imported partial units) is absent and
 * names fall back as for a missing DIE.
 */
int psym_dwarf_set_alt(struct psym_dwarf *d, const struct psym_elf *alt, struct psym_err *e);

/* Counts for reports and tests. */
size_t psym_dwarf_ncus(const struct psym_dwarf *d);
size_t psym_dwarf_ncus_decoded(const struct psym_dwarf *d);

/*
 * Split DWARF so far: skeleton units decoded, and how many of them had
 * no usable split unit (their addresses keep lines and symbol names but
 * lose inline frames); *why gets the most telling reason (a .dwo with
 * another dwo id, a corrupt .dwp index, not found). why may be NULL.
 * Returns the number without a split unit.
 */
size_t psym_dwarf_split_status(const struct psym_dwarf *d, size_t *skeletons,
			       struct psym_reason *why);

/*
 * Every address (plus bias) where the answer of psym_dwarf_lookup may
 * change: unit, function, inline and sequence starts and ends, line rows
 * and discriminator rows, unsorted and with repeats, into *out (malloc'd,
 * the caller frees). Decodes every unit first, on the prepare threads.
 * Between two consecutive distinct boundaries a lookup answers the same.
 */
int psym_dwarf_boundaries(struct psym_dwarf *d, uint64_t bias, uint64_t **out, size_t *n,
			  struct psym_err *e);

#endif
