/* SPDX-License-Identifier: MIT */
/*
 * Go's own symbol table, .gopclntab, as a symbol source for Go binaries
 * without DWARF (built with -ldflags='-s -w', or stripped): address ->
 * function, file:line and inline frames, the way Go's runtime derives
 * them for its tracebacks.
 *
 * Layouts: Go 1.2-1.15 (magic 0xfffffffb), 1.16-1.17 (0xfffffffa),
 * 1.18-1.19 (0xfffffff0), 1.20 and later (0xfffffff1); either byte
 * order, 4- or 8-byte pointers. Names are the runtime's
 * ("pkg.(*T).Method", "main.main.func1", "pkg.Map[...]"), files as the
 * table has them.
 *
 * Inline frames need the funcdata the table points at (FUNCDATA_InlTree):
 * before Go 1.18 absolute addresses, from 1.18 offsets from the module's
 * go:func.* data, found through runtime.firstmoduledata (its own section
 * .go.module from Go 1.26). Without them (no section holds the address,
 * no moduledata found) answers have the outer function only, without
 * file:line inside an inlined body; so do those of Go 1.12 and older
 * (another funcdata numbering; such binaries lack .go.buildinfo), whose
 * file:line are the innermost, as go tool addr2line gives them.
 *
 * The table is untrusted: every offset, count, varint and string is
 * bounds-checked, nfunc is capped by the table's size, pc-value tables
 * must move forward, inline chains are capped at PSYM_MAX_FRAMES and
 * stop (with an error) on a cycle.
 */
#ifndef PSYM_GOPCLNTAB_H
#define PSYM_GOPCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"

struct psym_elf;
struct psym_gopclntab;

/* Bytes of the program image at an address (a section's contents). */
struct psym_gosec {
	uint64_t vaddr;
	const uint8_t *data; /* borrowed */
	size_t len;
};

/* What the table is read from when it is not an ELF file's (fuzzing, tests). */
struct psym_gopclntab_src {
	const void *tab; /* the table's bytes (borrowed) */
	size_t len;
	uint64_t vaddr;		      /* its address in the image */
	const struct psym_gosec *img; /* where funcdata points; may be NULL */
	size_t nimg;
	uint64_t text_start; /* 1.18+: 0 takes the header's */
	uint64_t gofunc;     /* 1.18+: go:func.* address; 0: no inline frames */
	/*
	 * 1.2-1.15 layout: the binary is Go 1.12 or older (it has no
	 * .go.buildinfo), whose funcdata are numbered otherwise: no inline
	 * frames read. Else the 1.13-1.15 numbering.
	 */
	bool go112;
};

/*
 * The .gopclntab of elf (found by section name, else the runtime.pclntab
 * symbol, else a header in a Go binary's data); PSYM_NOENT when the file has
 * none (e->msg "...: a Go binary, but no .gopclntab found" when its notes
 * say it is Go, else empty), PSYM_EBADINPUT when the
 * one found is damaged. The table borrows elf's contents: close it
 * before elf.
 */
int psym_gopclntab_open_elf(struct psym_elf *elf, struct psym_gopclntab **out, struct psym_err *e);
/* Over bytes in memory (borrowed); name is used in messages. */
int psym_gopclntab_open_mem(const struct psym_gopclntab_src *src, const char *name,
			    struct psym_gopclntab **out, struct psym_err *e);
void psym_gopclntab_close(struct psym_gopclntab *t);

/* "Go 1.18-1.19" and the like: the layout, for --explain. */
const char *psym_gopclntab_layout(const struct psym_gopclntab *t);
/* Number of functions in the table. */
size_t psym_gopclntab_nfunc(const struct psym_gopclntab *t);
/* True when inline frames can be given (the inline trees were found). */
bool psym_gopclntab_has_inlines(const struct psym_gopclntab *t);
/*
 * Why not, as words for --explain ("no moduledata found ..."), static;
 * NULL when they can. Then an address inside an inlined body has the
 * outer function without file:line (the tables' are the body's).
 */
const char *psym_gopclntab_no_inlines_why(const struct psym_gopclntab *t);

/*
 * Frames for vaddr (an ELF virtual address), innermost first, into
 * f[max], *n set (0: no function of the table holds it). Returns 0, or
 * PSYM_EBADINPUT for a damaged entry (the frames found before the damage
 * are kept in f, *n of them). Strings live as long as t.
 */
int psym_gopclntab_lookup(struct psym_gopclntab *t, uint64_t vaddr, struct psym_frame *f,
			  size_t max, size_t *n, struct psym_err *e);

/*
 * Every address where an answer may change (function starts and ends, and
 * each step of the file, line and inline tables) into a malloc'd array
 * the caller frees, unsorted. For an index built over the table.
 */
int psym_gopclntab_boundaries(struct psym_gopclntab *t, uint64_t **out, size_t *n,
			      struct psym_err *e);

#endif
