/* SPDX-License-Identifier: MIT */
/*
 * Our own DWARF 2-5 reader for lines and inline frames: opening it, and
 * its counts. Its interface, dwarfsym.h, is implemented by the modules
 * listed in internal.h together; it has no .c file of its own, so that
 * every module of the reader may include it and the modules still form
 * no circle (scripts/check-cycles).
 *
 * Sections come from the opened psym_elf; compressed ones (SHF_COMPRESSED
 * zlib or zstd, legacy .zdebug_) are inflated once by compress.c into a
 * buffer of ours, .debug_info on a second thread. Everything read from the
 * file goes through a cursor (cursor.h) that never reads past the end of
 * its section: a bad read sets ok to false and moves the cursor to the
 * end, so loops stop.
 *
 * open() reads only the header and top DIE of each compile unit. A CU is
 * decoded on the first lookup inside it: one pass over its DIEs that keeps
 * subprograms and inlined subroutines with code (and walks only the
 * subtrees that can hold them; the rest is jumped over with DW_AT_sibling
 * or skipped DIE by DIE, in O(1) when the abbreviation is all fixed size),
 * and its line program. Names through abstract_origin/specification are
 * resolved on lookup only, and cached.
 *
 * Where DWARF is ambiguous the answer is llvm-symbolizer's (the tests'
 * oracle): among CUs with overlapping ranges the lowest offset wins, among
 * overlapping sibling inlines the first in DIE order; file names are
 * joined as it joins them (comp_dir / include dir / name).
 */
#include "config.h"

#include "internal.h"
#include "lifecycle.h"
#include "split.h"

int psym_dwarf_open(const struct psym_elf *elf, const struct psym_dwarf_opts *o,
		    struct psym_dwarf **out, struct psym_err *e)
{
	struct psym_dwarf *d;
	int ret = dw_open(elf, o, true, &d, e);

	if (ret)
		return ret;
	ret = dw_split_init(d, e);
	if (ret) {
		psym_dwarf_close(d);
		return ret;
	}
	*out = d;
	return 0;
}

size_t psym_dwarf_ncus(const struct psym_dwarf *d)
{
	return d->ncus;
}

size_t psym_dwarf_ncus_decoded(const struct psym_dwarf *d)
{
	return d->ndecoded;
}
