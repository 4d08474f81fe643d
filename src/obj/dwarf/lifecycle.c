/* SPDX-License-Identifier: MIT */
/*
 * Opening and closing a psym_dwarf (lifecycle.h): below every module that
 * opens one (open.c, alternate files in alt.c) or closes
 * one (split units in split.c), so that none of them reaches back up.
 */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "abbrev.h"
#include "lifecycle.h"
#include "sections.h"
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
	d->o.gnu_lines = o ? o->gnu_lines : false;
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
	if (need_code && d->ncuranges == 0) {
		/* Units there but none readable: corrupt, not "no DWARF". */
		if (d->bad_units)
			ret = psym_err_set(e, PSYM_EBADDWARF,
					   "'%s': corrupt DWARF: %zu unreadable unit headers "
					   "in .debug_info",
					   d->path, d->bad_units);
		else if (d->nocode_units)
			/* Not found, but say what was (the caller may look further). */
			ret = psym_err_set(e, PSYM_NOENT,
					   "'%s': DWARF found, but no unit covers code: unit "
					   "'%s'%s has only addresses outside every code section "
					   "(at 0: code the linker discarded)",
					   d->path, d->nocode_name ? d->nocode_name : "?",
					   d->nocode_units > 1 ? " and others" : "");
		else if (d->ncus)
			ret = psym_err_set(e, PSYM_NOENT,
					   "'%s': DWARF found, but no unit covers code: unit "
					   "'%s'%s describes no code (types or data only)",
					   d->path, d->nocode_name ? d->nocode_name : "?",
					   d->ncus > 1 ? " and others" : "");
		else
			ret = PSYM_NOENT;
		goto fail;
	}
	*out = d;
	return 0;
fail:
	psym_dwarf_close(d);
	return ret;
}

void psym_dwarf_close(struct psym_dwarf *d)
{
	if (!d)
		return;
	psym_dwarf_close(d->alt); /* an alternate file has none of its own */
	if (d->split)
		d->free_split(d->split); /* split.c's, set with d->split */
	for (size_t i = 0; i < d->ncus; i++)
		dw_cu_free(&d->cus[i]);
	free(d->cus);
	free(d->curanges);
	free(d->gnu_seqs);
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
