/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "symcache.h"

struct psym_binary {
	const struct psym_binary_opts *o;
	struct psym_elf *elf;
	struct psym_dwarf *dwarf;
	char *dwarf_path;
	char note[1024];
	bool debug_tried;
	struct psym_symcache *cache; /* NULL: off or unavailable */
	bool cache_tried;
};

int psym_binary_new(struct psym_elf *elf, const struct psym_binary_opts *o,
		    struct psym_binary **out, struct psym_err *e)
{
	struct psym_binary *b = calloc(1, sizeof(*b));

	if (!b) {
		psym_elf_close(elf);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	b->o = o;
	b->elf = elf;
	*out = b;
	return 0;
}

void psym_binary_free(struct psym_binary *b)
{
	if (!b)
		return;
	psym_symcache_close(b->cache, &(struct psym_err){ 0 }); /* a cache may fail quietly */
	psym_dwarf_close(b->dwarf);
	psym_elf_close(b->elf);
	free(b->dwarf_path);
	free(b);
}

struct psym_elf *psym_binary_elf(struct psym_binary *b)
{
	return b->elf;
}

const char *psym_binary_dwarf_path(const struct psym_binary *b)
{
	return b->dwarf_path;
}

void psym_binary_dwarf_units(const struct psym_binary *b, size_t *total, size_t *decoded)
{
	*total = b->dwarf ? psym_dwarf_ncus(b->dwarf) : 0;
	*decoded = b->dwarf ? psym_dwarf_ncus_decoded(b->dwarf) : 0;
}

const char *psym_binary_debug_note(const struct psym_binary *b)
{
	if (b->note[0])
		return b->note;
	return psym_elf_symbols_error(b->elf);
}

static void explain(const struct psym_binary *b, const char *path, const char *what)
{
	if (b->o->explain)
		b->o->explain(b->o->explain_ud, path, what);
}

/* Open the DWARF of elf (b->elf or one it adopted); true when it has some. */
static bool try_dwarf(struct psym_binary *b, const struct psym_elf *elf)
{
	const char *path = psym_elf_path(elf);
	const struct psym_reader_limits *l = b->o->limits;
	struct psym_dwarf_opts dopt = {
		.inlines = b->o->inlines,
		.max_depth = l ? l->dwarf_depth : 0,
		.max_entries = l ? l->dwarf_entries : 0,
		.max_rows = l ? l->dwarf_rows : 0,
		.max_section = l ? l->dwarf_section_bytes : 0,
		.max_memory = l ? l->memory : 0,
		.threads = b->o->threads,
	};
	struct psym_err e = { 0 };
	int ret = psym_dwarf_open(elf, &dopt, &b->dwarf, &e);

	if (ret == 0) {
		b->dwarf_path = strdup(path);
		return true;
	}
	if (ret < 0) {
		snprintf(b->note, sizeof(b->note), "%s", e.msg);
		explain(b, path, e.msg);
	}
	b->dwarf = NULL;
	return false;
}

/* A separate debug file: symbols merged, DWARF opened. */
static bool use_debug_file(struct psym_binary *b, const char *path)
{
	struct psym_elf *dbg = NULL;
	struct psym_err e = { 0 };
	const char *want = psym_elf_build_id(b->elf), *have;

	if (psym_elf_open(path, b->o->elf_limits, &dbg, &e) != 0) {
		explain(b, path, e.msg);
		return false;
	}
	have = psym_elf_build_id(dbg);
	if (want && have && strcmp(want, have) != 0) {
		explain(b, path, "rejected: build ID differs");
		psym_elf_close(dbg);
		return false;
	}
	if (psym_elf_add_symbols(b->elf, dbg, &e) != 0)
		explain(b, path, e.msg);
	psym_elf_adopt(b->elf, dbg);
	return try_dwarf(b, dbg);
}

static void find_debug(struct psym_binary *b)
{
	struct psym_debugfind_opts fo = {
		.dirs = b->o->debug_dirs,
		.n_dirs = b->o->n_debug_dirs,
		.explain = b->o->explain,
		.explain_ud = b->o->explain_ud,
	};
	struct psym_debug_key k = {
		.build_id = psym_elf_build_id(b->elf),
		.binary_path = psym_elf_path(b->elf),
	};
	struct psym_err e = { 0 };
	struct psym_elf *mini = NULL;
	char *path = NULL;

	b->debug_tried = true;
	if (psym_elf_has_dwarf(b->elf) && try_dwarf(b, b->elf))
		return;
	psym_elf_debuglink(b->elf, &k.debuglink, &k.debuglink_crc);
	if (psym_debugfind(&fo, &k, &path, &e) == 0) {
		bool ok = use_debug_file(b, path);

		free(path);
		if (ok)
			return;
	}
	if (k.build_id && b->o->debuginfod) {
		struct psym_debuginfod_req r = {
			.build_id = k.build_id, .kind = PSYM_DEBUGINFOD_DEBUGINFO,
		};

		if (psym_debuginfod_fetch(b->o->debuginfod, &r, 1, &e) == 0) {
			if (r.path) {
				explain(b, r.path, "fetched with debuginfod");
				if (use_debug_file(b, r.path)) {
					psym_debuginfod_reqs_free(&r, 1);
					return;
				}
			} else {
				explain(b, k.build_id, r.reason);
				snprintf(b->note, sizeof(b->note), "%s", r.reason);
			}
			psym_debuginfod_reqs_free(&r, 1);
		}
	}
	/* MiniDebugInfo: a symbol table at least. */
	if (psym_elf_open_minidebuginfo(b->elf, &mini, &e) == 0) {
		explain(b, psym_elf_path(b->elf), "symbols from .gnu_debugdata (MiniDebugInfo)");
		psym_elf_add_symbols(b->elf, mini, &e);
		psym_elf_adopt(b->elf, mini);
	}
	if (!b->note[0])
		snprintf(b->note, sizeof(b->note), "no debug information found");
}

static size_t resolve_uncached(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
			       size_t max);

static void open_cache(struct psym_binary *b)
{
	struct psym_err e = { 0 };
	char key[200];
	const char *note = NULL;

	b->cache_tried = true;
	if (!b->o->cache_dir ||
	    psym_symcache_key(psym_elf_build_id(b->elf), psym_elf_path(b->elf), key, sizeof(key)))
		return;
	/* Answers depend on the options and on psym itself: both in the variant. */
	if (psym_symcache_open(b->o->cache_dir, key, b->o->inlines ? "i-" PACKAGE_VERSION :
								      "n-" PACKAGE_VERSION,
			       &b->cache, &note, &e) != 0)
		b->cache = NULL;
	else if (note && b->o->explain)
		b->o->explain(b->o->explain_ud, key, note);
}

/*
 * With a cache, an address answered before is answered from it without
 * opening the debug information. Only answers made with DWARF are stored:
 * they depend on the build alone, not on which debug dirs this run had.
 */
size_t psym_binary_resolve(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
			   size_t max)
{
	const struct psym_frame *cf;
	size_t n;

	if (!b->cache_tried)
		open_cache(b);
	if (b->cache && psym_symcache_lookup(b->cache, vaddr, &cf, &n)) {
		if (n > max)
			n = max;
		memcpy(frames, cf, n * sizeof(*frames));
		return n;
	}
	n = resolve_uncached(b, vaddr, frames, max);
	if (b->cache && b->dwarf)
		psym_symcache_add(b->cache, vaddr, frames, n);
	return n;
}

int psym_binary_prepare(struct psym_binary *b, const uint64_t *vaddrs, size_t n,
			struct psym_err *e)
{
	uint64_t *miss = NULL;
	size_t nmiss = 0;
	int ret;

	if (!b->cache_tried)
		open_cache(b);
	if (b->cache) {
		miss = malloc((n ? n : 1) * sizeof(*miss));
		if (!miss)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		for (size_t i = 0; i < n; i++)
			if (!psym_symcache_has(b->cache, vaddrs[i]))
				miss[nmiss++] = vaddrs[i];
		vaddrs = miss;
		n = nmiss;
	}
	if (n && !b->debug_tried)
		find_debug(b);
	ret = 0;
	if (n && b->dwarf) {
		struct psym_err de = { 0 };

		ret = psym_dwarf_prepare(b->dwarf, vaddrs, n, &de);
		if (ret == PSYM_ENOMEM)
			psym_err_set(e, ret, "%s", de.msg);
		else if (de.code && !b->note[0])
			snprintf(b->note, sizeof(b->note), "%s", de.msg);
	}
	free(miss);
	return ret;
}

void psym_binary_cache_stats(const struct psym_binary *b, size_t *hits, size_t *misses)
{
	psym_symcache_stats(b->cache, hits, misses);
}

static size_t resolve_uncached(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
			       size_t max)
{
	const struct psym_frame *df;
	struct psym_err e = { 0 };
	size_t n = 0;

	if (!max)
		return 0;
	if (!b->debug_tried)
		find_debug(b);
	if (b->dwarf && psym_dwarf_lookup(b->dwarf, vaddr, &df, &n, &e) == 0 && n) {
		if (n > max)
			n = max;
		memcpy(frames, df, n * sizeof(*frames));
		/*
		 * The function that physically holds the code is named by the
		 * symbol table when it covers the address (as llvm-symbolizer
		 * does): it tells split parts apart (main.cold) and names code
		 * whose DWARF has lines but no function DIE.
		 */
		{
			struct psym_frame sym;

			if (psym_elf_lookup(b->elf, vaddr, &sym) == 0) {
				frames[n - 1].name = sym.name;
				frames[n - 1].linkage_name = sym.linkage_name;
			} else if (!frames[n - 1].name) {
				/* Lines but no name anywhere: pprof keeps the line. */
				frames[n - 1].name = "";
			}
		}
		return n;
	}
	if (e.code && !b->note[0])
		snprintf(b->note, sizeof(b->note), "%s", e.msg);
	if (psym_elf_lookup(b->elf, vaddr, &frames[0]) == 0)
		return 1;
	return 0;
}
