/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary.h"
#include "buildid.h"
#include "gnunames.h"
#include "htlhash.h"
#include "layout.h"
#include "objtab.h"
#include "sort.h"
#include "source.h"

struct psym_binary {
	const struct psym_binary_opts *o;
	struct psym_elf *elf;
	struct psym_dwarf *dwarf;
	uint64_t dwarf_bias; /* binary address - DWARF address (prelinked binaries) */
	char *dwarf_path;
	char note[1024];
	struct psym_reason alt_why; /* why the DWARF's alternate file is missing (code NONE: not) */
	char dwarf_note[1024];	    /* DWARF found that covers no code: what it was, or "" */
	bool debug_tried;
	struct psym_dwo_finder finder;	 /* split DWARF: the locator's .dwo / .dwp rules */
	struct psym_layout layout;	 /* the index's and cache's addresses are relative to it */
	char variant[64];		 /* answer rules and layout: the index's key */
	char key[PSYM_BUILD_ID_HEX_MAX]; /* psym_binary_key, or "" */
	/* The answer sources beside the DWARF (source.h), as psym_sources[]. */
	void *src[PSYM_SOURCES_MAX];
	bool src_tried[PSYM_SOURCES_MAX];
	struct psym_source_env env;
	/* Its entry in the located-object table (NULL, NULL: none). */
	struct psym_objtab *tab;
	struct psym_located *x;
	/* Without one: the entry its files tried are recorded in (NULL, NULL: none). */
	struct psym_objtab *log_tab;
	struct psym_located *log_x;
	struct psym_gnu_names *gnu; /* gnu_names: what GNU addr2line remembers, lazily */
	struct psym_elf *dbg_elf;   /* the debug file the DWARF came from (adopted), or NULL */
};

static void finder_dwo(void *ctx, const char *comp_dir, const char *dwo_name, psym_dwo_cand_fn fn,
		       void *ud);
static void finder_dwp(void *ctx, psym_dwo_cand_fn fn, void *ud);
static void finder_tried(void *ctx, bool dwp, const char *path, const struct psym_reason *why);
static void env_tried(void *ud, enum psym_tryrole role, const char *path,
		      const struct psym_reason *why);
static void env_used(void *ud, enum psym_tryrole role, const char *path, const char *detail,
		     unsigned flags);
static void env_note(void *ud, const char *msg, bool replace);

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
	psym_elf_layout(elf, &b->layout);
	psym_answer_variant(b->variant, sizeof(b->variant), o->inlines, &b->layout);
	if (psym_elf_build_id(elf))
		snprintf(b->key, sizeof(b->key), "%s", psym_elf_build_id(elf));
	else if (psym_elf_go_build_id(elf))
		psym_go_build_id_key(psym_elf_go_build_id(elf), b->key);
	b->finder = (struct psym_dwo_finder){
		.ctx = b,
		.dwo = finder_dwo,
		.dwp = finder_dwp,
		.tried = finder_tried,
		.elf_limits = o->locate ? o->locate->elf_limits : NULL,
	};
	b->env = (struct psym_source_env){
		.elf = elf,
		.o = o,
		.tried = env_tried,
		.used = env_used,
		.note = env_note,
		.ud = b,
	};
	*out = b;
	return 0;
}

static void find_debug(struct psym_binary *b);

void psym_answer_variant(char *buf, size_t bufsz, bool inlines, const struct psym_layout *l)
{
	snprintf(buf, bufsz, "%c" PSYM_ANSWER_REV "-" PACKAGE_VERSION "-%s", inlines ? 'i' : 'n',
		 l->tag);
}

void psym_binary_free(struct psym_binary *b)
{
	if (!b)
		return;
	for (size_t i = 0; psym_sources[i]; i++)
		if (b->src[i])
			psym_sources[i]->close(b->src[i]);
	psym_gnu_names_free(b->gnu);
	psym_dwarf_close(b->dwarf);
	psym_elf_close(b->elf);
	free(b->dwarf_path);
	free(b);
}

void psym_binary_set_entry(struct psym_binary *b, struct psym_objtab *t, struct psym_located *x)
{
	b->tab = t;
	b->x = x;
	/*
	 * No build ID of its own, known by the OTel eBPF profiler's htlhash
	 * (the locator checked the file by it): caches and the index store
	 * name it by that.
	 */
	if (!b->key[0] && x)
		psym_htlhash_key(x->build_id, b->key);
}

void psym_binary_set_log(struct psym_binary *b, struct psym_objtab *t, struct psym_located *x)
{
	b->log_tab = t;
	b->log_x = x;
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

const struct psym_reason *psym_binary_alt_why(const struct psym_binary *b)
{
	return b->alt_why.code != PSYM_R_NONE ? &b->alt_why : NULL;
}

const char *psym_binary_debug_note(const struct psym_binary *b)
{
	if (b->note[0])
		return b->note;
	return psym_elf_symbols_error(b->elf);
}

/*
 * A file tried once the binary was opened (why: refused, NULL: used), as
 * data in its table entry: --explain says it from there (objtab.h).
 */
static void tried(const struct psym_binary *b, enum psym_tryrole role, const char *path,
		  const struct psym_reason *why)
{
	if (b->x)
		psym_objtab_tried(b->tab, b->x, role, path, why);
	else
		psym_objtab_tried(b->log_tab, b->log_x, role, path, why);
}

/* An error's message as the reason a file was refused. */
static void tried_err(const struct psym_binary *b, enum psym_tryrole role, const char *path,
		      const struct psym_err *e)
{
	struct psym_reason why = { 0 };

	psym_reason_set(&why, PSYM_R_BAD_FILE, "%s", e->msg);
	tried(b, role, path, &why);
}

/*
 * The debug file (binary set) or the alternate file (k set), through the
 * table's entry; a binary without one (a kernel module's file) has the
 * candidates recorded in the entry it records into (psym_binary_set_log).
 */
static int locate_side(const struct psym_binary *b, struct psym_elf *binary,
		       const struct psym_alt_key *k, struct psym_elf **out, struct psym_reason *why,
		       struct psym_err *e)
{
	struct psym_locate_opts o = *b->o->locate;
	struct psym_cands c = { 0 };
	int ret;

	if (b->x || !b->log_x) {
		if (binary)
			return psym_objtab_locate_debug(b->tab, b->x, &o, binary, out, why, e);
		return psym_objtab_locate_alt(b->tab, b->x, &o, k, out, why, e);
	}
	o.cands = &c;
	if (binary)
		ret = psym_objtab_locate_debug(NULL, NULL, &o, binary, out, why, e);
	else
		ret = psym_objtab_locate_alt(NULL, NULL, &o, k, out, why, e);
	for (size_t i = 0; i < c.n; i++)
		psym_objtab_candidate(b->log_tab, b->log_x, c.v[i].path, c.v[i].verdict);
	psym_cands_free(&c);
	return ret;
}

/* Note why the alternate file is missing: for the summary, --explain and addr's warning. */
static void alt_missing(struct psym_binary *b, const char *path, enum psym_reason_code code,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void alt_missing(struct psym_binary *b, const char *path, enum psym_reason_code code,
			const char *fmt, ...)
{
	va_list ap;

	b->alt_why.code = code != PSYM_R_NONE ? code : PSYM_R_NOT_FOUND;
	va_start(ap, fmt);
	vsnprintf(b->alt_why.detail, sizeof(b->alt_why.detail), fmt, ap);
	va_end(ap);
	tried(b, PSYM_TRY_ALT, path, &b->alt_why);
	if (!b->note[0])
		snprintf(b->note, sizeof(b->note), "%s", b->alt_why.detail);
}

/*
 * dwz / DWARF 5 supplementary files: the alternate file that the DWARF of
 * elf names, found by the locator (its build ID checked) and handed to the
 * DWARF reader. Without it, what lives there is absent (names fall back
 * to the symbol table) and the reason is noted.
 */
static void find_alt(struct psym_binary *b, const struct psym_elf *elf)
{
	char path[PATH_MAX], bid[PSYM_BUILD_ID_HEX_MAX], dir[PATH_MAX], *slash;
	struct psym_alt_key k = { .path = path, .build_id = bid };
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	struct psym_elf *alt = NULL;
	int ret = psym_dwarf_altlink(elf, path, sizeof(path), bid, sizeof(bid), &e);

	if (ret == PSYM_NOENT)
		return;
	if (ret) {
		alt_missing(b, psym_elf_path(elf), PSYM_R_BAD_FILE, "%s: alternate file not used",
			    e.msg);
		return;
	}
	if (!b->o->locate) {
		alt_missing(b, path, PSYM_R_NOT_FOUND,
			    "alternate file '%s' (build ID %s) not searched", path, bid);
		return;
	}
	/* A relative link is from the debug file's directory. */
	if (realpath(psym_elf_path(elf), dir) && (slash = strrchr(dir, '/'))) {
		*slash = '\0';
		k.debug_dir = dir[0] ? dir : "/";
	}
	ret = locate_side(b, NULL, &k, &alt, &why, &e);
	if (ret) {
		if (ret == PSYM_NOENT)
			alt_missing(b, path, why.code, "alternate file '%s' (build ID %s): %s",
				    path, bid, psym_reason_text(&why));
		else
			alt_missing(b, path, PSYM_R_ERROR, "alternate file '%s': %s", path, e.msg);
		return;
	}
	ret = psym_dwarf_set_alt(b->dwarf, alt, &e);
	if (ret) {
		alt_missing(b, psym_elf_path(alt), PSYM_R_BAD_FILE, "%s", e.msg);
		psym_elf_close(alt);
		return;
	}
	tried(b, PSYM_TRY_ALT, psym_elf_path(alt), NULL);
	psym_elf_adopt(b->elf, alt); /* closed with b->elf, after the DWARF */
}

/* ---- split DWARF: the locator's candidates for the DWARF reader ---------- */

static const struct psym_locate_opts no_locate;

static const struct psym_locate_opts *locate_opts(const struct psym_binary *b)
{
	return b->o->locate ? b->o->locate : &no_locate;
}

struct cand_adapter {
	psym_dwo_cand_fn fn;
	void *ud;
};

static bool adapt(void *ud, const char *path, enum psym_cand_rule rule)
{
	struct cand_adapter *a = ud;

	(void)rule;
	return a->fn(a->ud, path);
}

static void finder_dwo(void *ctx, const char *comp_dir, const char *dwo_name, psym_dwo_cand_fn fn,
		       void *ud)
{
	struct psym_binary *b = ctx;
	struct cand_adapter a = { fn, ud };

	psym_objtab_split_candidates(locate_opts(b), psym_elf_path(b->elf), comp_dir, dwo_name,
				     adapt, &a);
}

static void finder_dwp(void *ctx, psym_dwo_cand_fn fn, void *ud)
{
	struct psym_binary *b = ctx;
	struct cand_adapter a = { fn, ud };

	psym_objtab_split_candidates(locate_opts(b), psym_elf_path(b->elf), NULL, NULL, adapt, &a);
}

/* Each split file's verdict: into the table's entry only (--explain reads it there). */
static void finder_tried(void *ctx, bool dwp, const char *path, const struct psym_reason *why)
{
	struct psym_binary *b = ctx;

	psym_objtab_tried(b->tab, b->x, dwp ? PSYM_TRY_DWP : PSYM_TRY_DWO, path, why);
}

void psym_binary_news(const struct psym_binary *b, const struct psym_objtab_try **tried, size_t *n,
		      size_t *lost)
{
	psym_objtab_news(b->tab, b->x, tried, n, lost);
}

size_t psym_binary_split_status(const struct psym_binary *b, size_t *units, struct psym_reason *why)
{
	*units = 0;
	memset(why, 0, sizeof(*why));
	return b->dwarf ? psym_dwarf_split_status(b->dwarf, units, why) : 0;
}

size_t psym_binary_split_note(const struct psym_binary *b, char *buf, size_t bufsz)
{
	struct psym_reason why;
	size_t skel, missing;

	buf[0] = '\0';
	if (!b->dwarf)
		return 0;
	missing = psym_dwarf_split_status(b->dwarf, &skel, &why);
	if (missing)
		snprintf(buf, bufsz,
			 "split DWARF: %zu of %zu units used without their split unit (no inline "
			 "frames): %s",
			 missing, skel, psym_reason_text(&why));
	return missing;
}

/* Open the DWARF of elf (b->elf or one it adopted); true when it has some. */
static bool try_dwarf(struct psym_binary *b, const struct psym_elf *elf)
{
	const char *path = psym_elf_path(elf);
	const struct psym_reader_limits *l = b->o->limits;
	struct psym_dwarf_opts dopt = {
		.inlines = b->o->inlines,
		.discriminators = b->o->discriminators,
		.gnu_lines = b->o->gnu_names,
		.max_depth = l ? l->dwarf_depth : 0,
		.max_entries = l ? l->dwarf_entries : 0,
		.max_rows = l ? l->dwarf_rows : 0,
		.max_section = l ? l->dwarf_section_bytes : 0,
		.max_ratio = l ? l->dwarf_compress_ratio : 0,
		.max_memory = l ? l->memory : 0,
		.threads = b->o->threads,
		.split = &b->finder,
	};
	struct psym_err e = { 0 };
	int ret = psym_dwarf_open(elf, &dopt, &b->dwarf, &e);

	b->dwarf_bias = psym_elf_bias_from(b->elf, elf);

	if (ret == 0) {
		b->dwarf_path = strdup(path);
		find_alt(b, elf);
		return true;
	}
	if (ret < 0) {
		snprintf(b->note, sizeof(b->note), "%s", e.msg);
		tried_err(b, PSYM_TRY_DWARF, path, &e);
	} else if (e.msg[0] && !b->dwarf_note[0]) {
		snprintf(b->dwarf_note, sizeof(b->dwarf_note), "%s", e.msg);
		tried_err(b, PSYM_TRY_DWARF, path, &e);
	}
	b->dwarf = NULL;
	return false;
}

/* A separate debug file (verified by the locator): symbols merged, DWARF opened. */
static bool use_debug_file(struct psym_binary *b, struct psym_elf *dbg)
{
	struct psym_err e = { 0 };

	if (psym_elf_add_symbols(b->elf, dbg, &e) != 0)
		tried_err(b, PSYM_TRY_SYMBOLS, psym_elf_path(dbg), &e);
	psym_elf_adopt(b->elf, dbg);
	if (!try_dwarf(b, dbg))
		return false;
	b->dbg_elf = dbg;
	return true;
}

/*
 * The symbols GNU addr2line names functions by: those of the debug file
 * the DWARF came from when it has some (binutils' stash), else the
 * binary's; *q gets vaddr in that file's addresses.
 */
static struct psym_elf *gnu_sym_elf(struct psym_binary *b, uint64_t vaddr, uint64_t *q)
{
	if (b->dbg_elf && psym_elf_gnu_symbol(b->dbg_elf, vaddr - b->dwarf_bias, NULL, NULL)) {
		*q = vaddr - b->dwarf_bias;
		return b->dbg_elf;
	}
	*q = vaddr;
	return b->elf;
}

/* ---- the answer sources beside the DWARF (source.h) ---------------------- */

static void env_tried(void *ud, enum psym_tryrole role, const char *path,
		      const struct psym_reason *why)
{
	tried(ud, role, path, why);
}

static void env_used(void *ud, enum psym_tryrole role, const char *path, const char *detail,
		     unsigned flags)
{
	const struct psym_binary *b = ud;

	if (b->x)
		psym_objtab_used(b->tab, b->x, role, path, detail, flags);
	else
		psym_objtab_used(b->log_tab, b->log_x, role, path, detail, flags);
}

static void env_note(void *ud, const char *msg, bool replace)
{
	struct psym_binary *b = ud;

	if (replace || !b->note[0])
		snprintf(b->note, sizeof(b->note), "%s", msg);
}

/* Source i found for the binary, tried once; true when it answers. */
static bool open_source(struct psym_binary *b, size_t i)
{
	if (b->src_tried[i])
		return b->src[i] != NULL;
	b->src_tried[i] = true;
	return psym_sources[i]->open_found(&b->env, &b->src[i]) == 0;
}

/* The file the user named for a source (by its option), or NULL. */
static const char *named_file(const struct psym_binary_opts *o, const struct psym_source_ops *ops)
{
	for (size_t i = 0; ops->option && i < o->n_named; i++)
		if (!strcmp(o->named[i].option, ops->option))
			return o->named[i].path;
	return NULL;
}

/* A source the user named, answering instead of the DWARF. */
static bool open_named_source(struct psym_binary *b)
{
	for (size_t i = 0; psym_sources[i]; i++) {
		const struct psym_source_ops *ops = psym_sources[i];
		const char *path = ops->open_named ? named_file(b->o, ops) : NULL;

		if (path && !b->src[i] && ops->open_named(&b->env, path, &b->src[i]) == 0) {
			b->src_tried[i] = true;
			return true;
		}
	}
	return false;
}

/* The first source found for a binary without DWARF. */
static bool open_found_source(struct psym_binary *b)
{
	for (size_t i = 0; psym_sources[i]; i++)
		if (psym_sources[i]->open_found && open_source(b, i))
			return true;
	return false;
}

bool psym_binary_source_item(const struct psym_binary *b, struct psym_resitem *it)
{
	for (size_t i = 0; psym_sources[i]; i++)
		if (b->src[i]) {
			*it = (struct psym_resitem){ 0 };
			psym_sources[i]->describe(b->src[i], it);
			return true;
		}
	return false;
}

const struct psym_sym *psym_binary_symbol(struct psym_binary *b, uint64_t vaddr)
{
	/*
	 * Answers from elsewhere (an index) never opened the debug file, whose
	 * .symtab a stripped binary's lookups use: bring it in, so that symbols
	 * are the same whoever answered.
	 */
	if (!b->debug_tried)
		find_debug(b);
	return psym_elf_symbol(b->elf, vaddr);
}

static void find_debug(struct psym_binary *b)
{
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	struct psym_elf *mini = NULL, *dbg = NULL;

	b->debug_tried = true;
	if (open_named_source(b))
		return;
	if (psym_elf_has_dwarf(b->elf) && try_dwarf(b, b->elf))
		return;
	if (b->o->locate) {
		int ret = locate_side(b, b->elf, NULL, &dbg, &why, &e);

		if (ret == 0 && use_debug_file(b, dbg))
			return;
		if (ret == PSYM_NOENT && why.code == PSYM_R_DEBUGINFOD && !b->note[0])
			snprintf(b->note, sizeof(b->note), "%s", psym_reason_text(&why));
	}
	if (open_found_source(b))
		return;
	/* MiniDebugInfo: a symbol table at least. */
	if (psym_elf_open_minidebuginfo(b->elf, &mini, &e) == 0) {
		tried(b, PSYM_TRY_MINIDEBUG, psym_elf_path(b->elf), NULL);
		psym_elf_add_symbols(b->elf, mini, &e);
		psym_elf_adopt(b->elf, mini);
	}
	if (!b->note[0])
		snprintf(b->note, sizeof(b->note), "%s",
			 b->dwarf_note[0] ? b->dwarf_note : "no debug information found");
}

/* The source answering a binary without DWARF, when it is the binary's own table. */
static int own_table(const struct psym_binary *b)
{
	if (b->dwarf)
		return -1;
	for (size_t i = 0; psym_sources[i]; i++)
		if (b->src[i])
			return psym_sources[i]->of_binary ? (int)i : -1;
	return -1;
}

/*
 * Only answers made with DWARF may be kept (resolve_cached.c): they depend
 * on the build alone, not on which debug dirs this run had. Not without
 * the alternate file, nor once a split unit was missing: a later run that
 * finds them answers better. A binary without DWARF found whose own table
 * answers (.gopclntab) has answers of the build alone too; that a debug
 * file found later would answer from DWARF instead changes little, as Go
 * writes both from the same data (bench/GO.md). Not a table whose inline
 * trees were not found: kept nowhere, each run reads it and warns.
 */
bool psym_binary_answers_final(const struct psym_binary *b)
{
	if (!b->dwarf) {
		int i = own_table(b);
		struct psym_resitem it = { 0 };

		if (i < 0)
			return false;
		psym_sources[i]->describe(b->src[i], &it);
		return !(it.flags & PSYM_RESITEM_NO_INLINES);
	}
	return b->alt_why.code == PSYM_R_NONE && !psym_dwarf_split_status(b->dwarf, NULL, NULL);
}

int psym_binary_prepare(struct psym_binary *b, const uint64_t *vaddrs, size_t n, struct psym_err *e)
{
	uint64_t *miss = NULL;
	int ret;

	if (n && !b->debug_tried)
		find_debug(b);
	ret = 0;
	if (n && b->dwarf && b->dwarf_bias) {
		uint64_t *shifted = malloc(n * sizeof(*shifted));

		if (!shifted) {
			free(miss);
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < n; i++)
			shifted[i] = vaddrs[i] - b->dwarf_bias;
		free(miss);
		vaddrs = miss = shifted;
	}
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

/* The answer from the DWARF and the symbol table (no index). */
static size_t resolve_dwarf(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
			    size_t max)
{
	const struct psym_frame *df;
	/* Cleared, not zeroed whole: 1 KiB twice a lookup was a tenth of a Go lookup. */
	struct psym_err e;
	size_t n = 0;

	e.code = 0;
	e.msg[0] = '\0';
	if (!max)
		return 0;
	if (!b->debug_tried)
		find_debug(b);
	if (b->dwarf && psym_dwarf_lookup(b->dwarf, vaddr - b->dwarf_bias, &df, &n, &e) == 0 && n) {
		if (n > max)
			n = max;
		memcpy(frames, df, n * sizeof(*frames));
		/*
		 * The function that physically holds the code is named by the
		 * symbol table when it covers the address (as llvm-symbolizer
		 * does): it tells split parts apart (main.cold) and names code
		 * whose DWARF has lines but no function DIE. A symbol without
		 * a size (a label, an alias) does not rename a DWARF function.
		 * When that frame has no file (a DWARF 2 inlined call gives no
		 * call file), a local symbol's STT_FILE names it, as
		 * llvm-symbolizer does.
		 */
		if (b->o->gnu_names) {
			if (!b->gnu)
				b->gnu = psym_gnu_names_new();
			uint64_t q;
			struct psym_elf *se = gnu_sym_elf(b, vaddr, &q);

			psym_gnu_names_apply(b->gnu, se, q, se == b->elf ? b->dwarf_bias : 0,
					     frames, n, psym_dwarf_gnu_frames(b->dwarf));
		} else {
			const struct psym_sym *sym = psym_elf_symbol(b->elf, vaddr);

			if (sym && (sym->size || !frames[n - 1].name)) {
				frames[n - 1].name = sym->name;
				frames[n - 1].linkage_name = sym->linkage;
			} else if (!frames[n - 1].name) {
				/* Lines but no name anywhere: pprof keeps the line. */
				frames[n - 1].name = "";
			}
			if (sym && sym->file && !frames[n - 1].file)
				frames[n - 1].file = sym->file;
		}
		return n;
	}
	if (e.code && !b->note[0])
		snprintf(b->note, sizeof(b->note), "%s", e.msg);
	/* The sources beside it: those open, and those that fill its gaps. */
	for (size_t i = 0; psym_sources[i]; i++) {
		if (psym_sources[i]->fills_gaps)
			open_source(b, i);
		if (!b->src[i])
			continue;
		e.code = 0;
		e.msg[0] = '\0';
		n = 0;
		if (psym_sources[i]->lookup(b->src[i], vaddr, frames, max, &n, &e) == 0 && n)
			return n;
		if (e.code && !b->note[0])
			snprintf(b->note, sizeof(b->note), "%s", e.msg);
		if (n)
			return n;
	}
	if (b->o->gnu_names) {
		/* As addr2line: GNU's nearest symbol (gnusyms.c), its file, no line. */
		uint64_t q;
		struct psym_elf *se = gnu_sym_elf(b, vaddr, &q);
		const char *file = NULL, *s = psym_elf_gnu_symbol(se, q, NULL, &file);

		if (!s)
			return 0;
		frames[0] = (struct psym_frame){ .name = s, .linkage_name = s, .file = file };
		return 1;
	}
	if (psym_elf_lookup(b->elf, vaddr, &frames[0]) == 0)
		return 1;
	return 0;
}

/* ---- what an index is built from (src/index/build.c) --------------------- */

const char *psym_binary_variant(const struct psym_binary *b)
{
	return b->variant;
}

const char *psym_binary_key(const struct psym_binary *b)
{
	return b->key[0] ? b->key : NULL;
}

const struct psym_layout *psym_binary_layout(const struct psym_binary *b)
{
	return &b->layout;
}

/* The boundaries of the sources that fill the DWARF's gaps, added to v. */
static int add_source_bounds(struct psym_binary *b, uint64_t **v, size_t *n, struct psym_err *e)
{
	for (size_t i = 0; psym_sources[i]; i++) {
		uint64_t *g = NULL, *nv;
		size_t ng = 0;
		int ret;

		if (!psym_sources[i]->fills_gaps || !psym_sources[i]->boundaries ||
		    !open_source(b, i))
			continue;
		ret = psym_sources[i]->boundaries(b->src[i], &g, &ng, e);
		if (ret)
			return ret;
		nv = realloc(*v, (*n + ng + 1) * sizeof(*nv));
		if (!nv) {
			free(g);
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
		memcpy(nv + *n, g, ng * sizeof(*g));
		*v = nv;
		*n += ng;
		free(g);
	}
	return 0;
}

/* The DWARF's boundaries and those of the sources filling its gaps. */
static int dwarf_bounds(struct psym_binary *b, uint64_t **v, size_t *n, struct psym_err *e)
{
	int ret;

	if (!b->dwarf)
		return psym_err_set(e, PSYM_NOENT, "no DWARF (%s)",
				    b->note[0] ? b->note : "not found");
	if (b->alt_why.code != PSYM_R_NONE)
		return psym_err_set(e, PSYM_NOENT, "%s", b->alt_why.detail);
	ret = psym_dwarf_boundaries(b->dwarf, b->dwarf_bias, v, n, e);
	if (ret)
		return ret;
	if (psym_dwarf_split_status(b->dwarf, NULL, NULL)) {
		char split[1400];

		free(*v);
		*v = NULL;
		psym_binary_split_note(b, split, sizeof(split));
		return psym_err_set(e, PSYM_NOENT, "%s", split);
	}
	/* Where a source answers for code the DWARF lacks, its steps too. */
	ret = add_source_bounds(b, v, n, e);
	if (ret) {
		free(*v);
		*v = NULL;
	}
	return ret;
}

/* The steps of the binary's own table answering instead of DWARF (source i). */
static int own_table_bounds(struct psym_binary *b, size_t i, uint64_t **v, size_t *n,
			    struct psym_err *e)
{
	if (!psym_sources[i]->boundaries)
		return psym_err_set(e, PSYM_NOENT, "no DWARF, and %s gives no boundaries",
				    psym_sources[i]->kind);
	return psym_sources[i]->boundaries(b->src[i], v, n, e);
}

int psym_binary_boundaries(struct psym_binary *b, uint64_t **out, size_t *np, struct psym_err *e)
{
	const struct psym_symtab *t;
	uint64_t *v = NULL;
	size_t n = 0, nsym, k;
	int ret;

	*out = NULL;
	*np = 0;
	if (!b->debug_tried)
		find_debug(b);
	if (!b->dwarf && own_table(b) >= 0)
		ret = own_table_bounds(b, (size_t)own_table(b), &v, &n, e);
	else
		ret = dwarf_bounds(b, &v, &n, e);
	if (ret)
		return ret;
	t = psym_elf_symtab(b->elf);
	nsym = psym_symtab_count(t);
	{
		uint64_t *nv = realloc(v, (n + 2 * nsym + 1) * sizeof(*nv));

		if (!nv) {
			free(v);
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
		v = nv;
	}
	for (size_t i = 0; i < nsym; i++) {
		v[n++] = psym_symtab_at(t, i)->addr;
		v[n++] = psym_symtab_at(t, i)->end;
	}
	v[n++] = 0;
	ret = psym_sort_u64(v, n);
	if (ret) {
		free(v);
		return psym_err_set(e, ret, "out of memory");
	}
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	*out = v;
	*np = k;
	return 0;
}

size_t psym_binary_resolve_dwarf(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
				 size_t max)
{
	return resolve_dwarf(b, vaddr, frames, max);
}

size_t psym_binary_resolve(struct psym_binary *b, uint64_t vaddr, struct psym_frame *frames,
			   size_t max)
{
	return resolve_dwarf(b, vaddr, frames, max);
}
