/* SPDX-License-Identifier: MIT */
/*
 * Where a file's build puts its code: the anchor (its lowest PT_LOAD
 * address) and a hash of everything placed relative to it (each PT_LOAD's
 * and each section's address, size and name). Two files of one build ID
 * can be placed differently (prelink moves a library and may insert bytes
 * inside it); whatever keeps answers by address across runs (the index,
 * the symbol cache) keeps them relative to the anchor and keyed by the
 * hash, so that each file gets the answers of its own layout, and files
 * that are the same layout shifted share them.
 */
#ifndef PSYM_LAYOUT_H
#define PSYM_LAYOUT_H

#include <stdint.h>

#include "elffile.h"

struct psym_layout {
	uint64_t anchor; /* lowest PT_LOAD vaddr; else lowest section address; else 0 */
	uint64_t hash;	 /* FNV-1a of the layout relative to anchor */
	char tag[20];	 /* "L" and the hash in hex: for keys and variants */
};

void psym_elf_layout(const struct psym_elf *elf, struct psym_layout *out);

/*
 * An address relative to the layout: vaddr - anchor, offset by 2^63 so
 * that the addresses of a file (and 0) keep their order and their spans.
 * A bijection: every address has exactly one.
 */
static inline uint64_t psym_layout_rel(const struct psym_layout *l, uint64_t vaddr)
{
	return vaddr - l->anchor + ((uint64_t)1 << 63);
}

/* The inverse of psym_layout_rel. */
static inline uint64_t psym_layout_abs(const struct psym_layout *l, uint64_t rel)
{
	return rel + l->anchor - ((uint64_t)1 << 63);
}

#endif
