/* SPDX-License-Identifier: MIT */
/*
 * Our own DWARF 2-5 reader for lines and inline frames: the public facade
 * (open, close, counts) over the modules listed in internal.h.
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

#include <stdlib.h>
#include <unistd.h>

#include "abbrev.h"
#include "alt.h"
#include "internal.h"
#include "sections.h"
#include "split.h"
#include "unit.h"

int dw_open(const struct psym_elf *elf, const struct psym_dwarf_opts *o, bool need_code,
	    struct psym_dwarf **out, struct psym_err *e)
{
	struct psym_dwarf *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	d->elf = elf;
	d->path = psym_elf_path(elf);
	d->o.inlines = o ? o->inlines : true;
	d->o.discriminators = o ? o->discriminators : false;
	d->o.max_depth = o && o->max_depth ? o->max_depth : 512;
	d->o.max_entries = o && o->max_entries ? o->max_entries : (size_t)16 << 20;
	d->o.max_rows = o && o->max_rows ? o->max_rows : (size_t)64 << 20;
	d->o.max_section = o && o->max_section ? o->max_section : DEFAULT_MAX_SECTION;
	d->o.max_ratio = o && o->max_ratio ? o->max_ratio : DEFAULT_MAX_RATIO;
	d->o.max_memory = o ? o->max_memory : 0;
	d->o.threads = o ? o->threads : 0;
	if (d->o.threads == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		d->o.threads = cpus > 0 ? (unsigned)cpus : 1;
	}
	if (d->o.threads > 8)
		d->o.threads = 8;
	if (d->o.max_depth > 1 << 20)
		d->o.max_depth = 1 << 20;
	if (d->o.max_entries > UINT32_MAX - 1)
		d->o.max_entries = UINT32_MAX - 1;
	if (d->o.max_rows > UINT32_MAX - 1)
		d->o.max_rows = UINT32_MAX - 1;
	psym_arena_init(&d->strings, (size_t)4 << 30);
	pthread_mutex_init(&d->strings_mu, NULL);
	ret = dw_load_sections(d, e);
	if (ret)
		goto fail;
	ret = dw_index_cus(d, e);
	if (ret)
		goto fail;
	d->o.split = o ? o->split : NULL;
	ret = dw_split_init(d, e);
	if (ret)
		goto fail;
	if (need_code && d->ncuranges == 0) {
		/* Units there but none readable: corrupt, not "no DWARF". */
		ret = d->bad_units
			      ? psym_err_set(e, PSYM_EBADDWARF,
					     "'%s': corrupt DWARF: %zu unreadable unit headers "
					     "in .debug_info",
					     d->path, d->bad_units)
			      : PSYM_NOENT;
		goto fail;
	}
	*out = d;
	return 0;
fail:
	psym_dwarf_close(d);
	return ret;
}

int psym_dwarf_open(const struct psym_elf *elf, const struct psym_dwarf_opts *o,
		    struct psym_dwarf **out, struct psym_err *e)
{
	return dw_open(elf, o, true, out, e);
}

void psym_dwarf_close(struct psym_dwarf *d)
{
	if (!d)
		return;
	psym_dwarf_close(d->alt); /* an alternate file has none of its own */
	dw_split_free(d->split);
	for (size_t i = 0; i < d->ncus; i++)
		dw_cu_free(&d->cus[i]);
	free(d->cus);
	free(d->curanges);
	free(d->origins);
	for (size_t i = 0; i < d->capabtabs; i++)
		dw_abtab_free(d->abtabs[i]);
	free(d->abtabs);
	for (int i = 0; i < S_N; i++)
		dw_section_free(&d->sec[i]);
	psym_arena_free(&d->strings);
	pthread_mutex_destroy(&d->strings_mu);
	free(d);
}

size_t psym_dwarf_ncus(const struct psym_dwarf *d)
{
	return d->ncus;
}

size_t psym_dwarf_ncus_decoded(const struct psym_dwarf *d)
{
	return d->ndecoded;
}
