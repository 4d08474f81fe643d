/* SPDX-License-Identifier: MIT */
/* Binaries located and opened once for every profile of a batch. */
#ifndef PSYM_BINCACHE_H
#define PSYM_BINCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "readlimits.h"

struct psym_binary_opts;
struct psym_index_store;
struct psym_kallsyms_cache;
struct psym_locate_opts;
struct psym_objtab;
struct psym_registry;

/* What every run of the batch shares; borrowed, and must outlive the cache. */
struct psym_bincache_opts {
	const struct psym_locate_opts *locate; /* copied (psym_symbolize_locate_opts) */
	struct psym_reader_limits limits;
	bool explain; /* keep the candidates tried (--explain) */
	bool inlines;
	const char *cache_dir;		      /* symbol cache, or NULL */
	struct psym_index_store *index_store; /* or NULL */
};

/*
 * Binaries opened once and shared by several psym_symbolize() calls, also
 * from several threads at once (a batch). Made from the options every run
 * of the batch shares (debug dirs, debuginfod, limits, inlines); those must
 * outlive it. --explain output is not given for shared binaries.
 */
struct psym_bincache;
struct psym_bincache *psym_bincache_new(const struct psym_bincache_opts *o);
/*
 * Every run is over: the shared binaries act on what the runs learned
 * (the index build policy). From the thread that made it, after its runs.
 */
void psym_bincache_finish(struct psym_bincache *c);
/* Kernel symbol tables (kallsyms copies) the batch's runs have parsed. */
size_t psym_bincache_kallsyms_parsed(struct psym_bincache *c);
void psym_bincache_free(struct psym_bincache *c);

/* For the driver (symbolize.c): what a run takes from the shared cache. Borrowed. */
const struct psym_binary_opts *psym_bincache_bopts(const struct psym_bincache *c);
struct psym_registry *psym_bincache_registry(const struct psym_bincache *c);
struct psym_objtab *psym_bincache_objtab(const struct psym_bincache *c);
struct psym_kallsyms_cache *psym_bincache_kallsyms(const struct psym_bincache *c);

#endif
