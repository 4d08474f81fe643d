/* SPDX-License-Identifier: MIT */
/* The words of a resolver's description (resdesc.h). */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "objtab.h"
#include "resdesc.h"

/* A debug file in place of a missing binary is said so. */
#define DEBUG_ONLY_NOTE " (a debug file standing in for the binary)"

/* Appends to buf (truncating); *n: the length so far. */
static void add(char *buf, size_t bufsz, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= bufsz)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, bufsz - *n, fmt, ap);
	va_end(ap);
	*n += k < 0 ? 0 : (size_t)k < bufsz - *n ? (size_t)k : bufsz - *n - 1;
}

/* The first item of role with every flag of want and none of deny; NULL: none. */
static const struct psym_resitem *find(const struct psym_resdesc *d, enum psym_resrole role,
				       unsigned want, unsigned deny)
{
	for (size_t i = 0; i < d->n && i < PSYM_RESDESC_MAX_ITEMS; i++) {
		const struct psym_resitem *it = &d->item[i];

		if (it->role == role && (it->flags & want) == want && !(it->flags & deny))
			return it;
	}
	return NULL;
}

static const char *why_text(const struct psym_resitem *it)
{
	if (it->why)
		return psym_reason_text(it->why);
	return it->note ? it->note : "";
}

static const char *str(const char *s)
{
	return s ? s : "";
}

const char *psym_resdesc_path(const struct psym_resdesc *d)
{
	const struct psym_resitem *bin = find(d, PSYM_RES_BINARY, 0, 0);

	return bin ? bin->path : NULL;
}

size_t psym_resdesc_ntried(const struct psym_resdesc *d)
{
	const struct psym_resitem *it = find(d, PSYM_RES_TRIED, 0, 0);

	return it && it->tried ? it->ntried : 0;
}

/* The words of a file used, by what it was tried for. */
static void used_words(const struct psym_objtab_try *t, char *buf, size_t bufsz)
{
	size_t n = 0;

	switch (t->role) {
	case PSYM_TRY_DWP: add(buf, bufsz, &n, "split DWARF package used"); break;
	case PSYM_TRY_DWO: add(buf, bufsz, &n, "split unit used (dwo id matches)"); break;
	case PSYM_TRY_ALT: add(buf, bufsz, &n, "alternate DWARF file used"); break;
	case PSYM_TRY_MINIDEBUG:
		add(buf, bufsz, &n, "symbols from .gnu_debugdata (MiniDebugInfo)");
		break;
	case PSYM_TRY_SOURCE: add(buf, bufsz, &n, "%s", str(t->verdict)); break; /* its own */
	case PSYM_TRY_INDEX: add(buf, bufsz, &n, "index used for every answer"); break;
	case PSYM_TRY_PERFMAP: add(buf, bufsz, &n, "perf map used"); break;
	case PSYM_TRY_KALLSYMS:
		add(buf, bufsz, &n, "kernel symbols used%s",
		    t->flags & PSYM_TRY_PARSED_BEFORE
			    ? " (parsed before for the same boot and content)"
		    : t->flags & PSYM_TRY_SUBSET
			    ? " (the profile's subset: other addresses get no name)"
			    : "");
		break;
	case PSYM_TRY_KMOD:
		if (t->verdict && *t->verdict)
			add(buf, bufsz, &n, "kernel module used (from package '%s')", t->verdict);
		else
			add(buf, bufsz, &n, "kernel module used");
		break;
	case PSYM_TRY_CANDIDATE:
	case PSYM_TRY_DWARF:
	case PSYM_TRY_SYMBOLS:
	case PSYM_TRY_INDEX_STORE:
	case PSYM_TRY_CACHE:
	default: add(buf, bufsz, &n, "%s", str(t->verdict)); break;
	}
}

/* The words of a file refused: what its flags say, else the search's verdict or the reason. */
static void refused_words(const struct psym_objtab_try *t, char *buf, size_t bufsz)
{
	size_t n = 0;

	if (t->role == PSYM_TRY_INDEX && (t->flags & PSYM_TRY_NO_DISCRIMINATORS))
		add(buf, bufsz, &n, "index made without discriminators: not used");
	else if (t->role == PSYM_TRY_INDEX_STORE && (t->flags & PSYM_TRY_NOT_ASKED))
		add(buf, bufsz, &n,
		    "index store not asked: the GSYM file named with --gsym answers");
	else
		add(buf, bufsz, &n, "%s", str(t->verdict));
}

void psym_resdesc_tried(const struct psym_resdesc *d, size_t i, const char **path, char *verdict,
			size_t verdictsz)
{
	const struct psym_resitem *it = find(d, PSYM_RES_TRIED, 0, 0);
	const struct psym_objtab_try *t;

	*path = "";
	if (!verdictsz)
		return;
	verdict[0] = '\0';
	if (!it || !it->tried || i >= it->ntried)
		return;
	t = &it->tried[i];
	*path = t->path;
	if (t->used)
		used_words(t, verdict, verdictsz);
	else
		refused_words(t, verdict, verdictsz);
}

/* What an answer source gives, in its own words ("lines from the GSYM file 'P'"); false: none. */
static bool source_words(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const struct psym_resitem *it = find(d, PSYM_RES_SOURCE, 0, 0);
	size_t n = 0;

	buf[0] = '\0';
	if (!it)
		return false;
	add(buf, bufsz, &n, "%s", str(it->note));
	return true;
}

static void file_summary(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const struct psym_resitem *bin = find(d, PSYM_RES_BINARY, 0, 0);
	const struct psym_resitem *dwi = find(d, PSYM_RES_DWARF, 0, 0);
	const struct psym_resitem *alti = find(d, PSYM_RES_ALT, 0, 0);
	const struct psym_resitem *split = find(d, PSYM_RES_SPLIT, 0, 0);
	const struct psym_resitem *idx = find(d, PSYM_RES_INDEX, PSYM_RESITEM_USED, 0);
	const char *path = bin && bin->path ? bin->path : "", *dw = dwi ? dwi->path : NULL;
	const char *as = bin && (bin->flags & PSYM_RESITEM_DEBUG_ONLY) ? DEBUG_ONLY_NOTE : "";
	const char *alt = alti ? why_text(alti) : "";
	char src[PATH_MAX + 64];
	bool has_src = source_words(d, src, sizeof(src));
	size_t n = 0;

	if (find(d, PSYM_RES_CACHE, PSYM_RESITEM_USED, 0)) {
		add(buf, bufsz, &n, "from '%s'%s, from the symbol cache", path, as);
		return;
	}
	if (idx) {
		add(buf, bufsz, &n, "from '%s'%s, from the index '%s' (answers of '%s')", path, as,
		    str(idx->path), str(idx->of));
		return;
	}
	if (!dw && has_src)
		add(buf, bufsz, &n, "from '%s'%s, %s", path, as, src);
	else if (dw && strcmp(dw, path) != 0)
		add(buf, bufsz, &n, "from '%s'%s, lines from '%s'%s%s", path, as, dw,
		    alti ? "; " : "", alt);
	else if (dw)
		add(buf, bufsz, &n, "from '%s'%s, with lines%s%s", path, as, alti ? "; " : "", alt);
	else if (dwi && dwi->note)
		add(buf, bufsz, &n, "from '%s'%s, no lines: %s", path, as, dwi->note);
	else
		add(buf, bufsz, &n, "from '%s'%s, no lines: no DWARF", path, as);
	if (dw && split && split->n)
		add(buf, bufsz, &n,
		    "; split DWARF: %zu of %zu units used without their split unit (no inline "
		    "frames): %s",
		    split->n, split->total, why_text(split));
}

void psym_resdesc_summary(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const struct psym_resitem *vm = find(d, PSYM_RES_VMLINUX, 0, 0);
	const struct psym_resitem *ks = find(d, PSYM_RES_KALLSYMS, 0, 0);
	const struct psym_resitem *pm = find(d, PSYM_RES_PERFMAP, 0, 0);
	size_t n = 0;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (vm || ks) {
		const char *ksp = ks ? ks->path : NULL;

		if (vm)
			add(buf, bufsz, &n, "from '%s'%s%s%s", str(vm->path), ksp ? " and '" : "",
			    str(ksp), ksp ? "'" : "");
		else if (ksp)
			add(buf, bufsz, &n, "from '%s'", ksp);
		else
			add(buf, bufsz, &n, "%s", why_text(ks));
	} else if (pm) {
		if (pm->path)
			add(buf, bufsz, &n, "from '%s'%s", pm->path,
			    pm->total > 1 ? " and others" : "");
		else
			add(buf, bufsz, &n, "no perf map");
	} else {
		file_summary(d, buf, bufsz);
	}
}

/* A JIT resolver's --explain: how locations no sample names were placed. */
static void jit_explain(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const struct psym_resitem *only = find(d, PSYM_RES_PROCESS, PSYM_RESITEM_ONLY, 0);
	const struct psym_resitem *cover = find(d, PSYM_RES_PROCESS, 0, PSYM_RESITEM_ONLY);
	const struct psym_resitem *un = find(d, PSYM_RES_UNPLACED, 0, 0);
	size_t n = 0;

	if (only && only->n)
		add(buf, bufsz, &n,
		    "%zu location(s) no sample names looked up in pid %d, the profile's "
		    "only process",
		    only->n, only->pid);
	if (cover && cover->n)
		add(buf, bufsz, &n,
		    "%s%zu location(s) no sample names looked up in the only process "
		    "whose perf maps cover them (pid %d the last)",
		    n ? "\n    " : "", cover->n, cover->pid);
	if (un && un->n)
		add(buf, bufsz, &n, "%s%zu location(s) left unresolved: %s", n ? "\n    " : "",
		    un->n, why_text(un));
}

void psym_resdesc_explain(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const struct psym_resitem *bin = find(d, PSYM_RES_BINARY, 0, 0);
	const struct psym_resitem *dw = find(d, PSYM_RES_DWARF, 0, 0);
	const struct psym_resitem *idx = find(d, PSYM_RES_INDEX, 0, PSYM_RESITEM_DAMAGED);
	const struct psym_resitem *tried = find(d, PSYM_RES_TRIED, 0, 0);
	char src[PATH_MAX + 64];
	size_t n = 0;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (find(d, PSYM_RES_PERFMAP, 0, 0)) {
		jit_explain(d, buf, bufsz);
		return;
	}
	if (!bin)
		return; /* the kernel: its summary says it all */
	if (idx)
		add(buf, bufsz, &n,
		    "answers from the index '%s' (build ID %s, %llu bytes, made from "
		    "'%s'); no DWARF read",
		    str(idx->path), str(idx->build_id), (unsigned long long)idx->size,
		    str(idx->of));
	if (bin->flags & PSYM_RESITEM_DEBUG_ONLY)
		add(buf, bufsz, &n,
		    "%s'%s' is a debug file standing in for the binary: its segments' "
		    "file offsets recovered from their addresses and alignment, "
		    "symbols from its .symtab",
		    n ? "\n    " : "", str(bin->path));
	if (dw && dw->path)
		add(buf, bufsz, &n, "%sDWARF: %zu of %zu compile units decoded so far",
		    n ? "\n    " : "", dw->n, dw->total);
	if (dw && dw->path && source_words(d, src, sizeof(src)))
		add(buf, bufsz, &n, "%s%s where the DWARF has no function", n ? "\n    " : "", src);
	if (tried && tried->lost)
		add(buf, bufsz, &n,
		    "%s%zu more files tried than the located-object table keeps (not listed)",
		    n ? "\n    " : "", tried->lost);
}

/* A source answering without inline frames (Go's table): said once, not left to --explain. */
static void no_inlines_warning(const struct psym_resdesc *d, char *buf, size_t bufsz, size_t *n)
{
	const struct psym_resitem *src = find(d, PSYM_RES_SOURCE, PSYM_RESITEM_NO_INLINES, 0);

	if (src)
		add(buf, bufsz, n, "%s'%s': %s: inlined calls are missing from its answers",
		    *n ? "\n" : "", str(psym_resdesc_path(d)), str(src->note));
}

void psym_resdesc_warning(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const struct psym_resitem *cache = find(d, PSYM_RES_CACHE, PSYM_RESITEM_DAMAGED, 0);
	const struct psym_resitem *idx = find(d, PSYM_RES_INDEX, PSYM_RESITEM_DAMAGED, 0);
	const char *path = str(psym_resdesc_path(d));
	size_t n = 0;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (cache)
		add(buf, bufsz, &n, "symbol cache '%s' ignored (%s): symbolized from '%s'",
		    str(cache->path), why_text(cache), path);
	else if (idx)
		add(buf, bufsz, &n, "%s: symbolized from '%s' instead", why_text(idx), path);
	no_inlines_warning(d, buf, bufsz, &n);
}

void psym_resdesc_addr_warnings(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const struct psym_resitem *idx = find(d, PSYM_RES_INDEX, PSYM_RESITEM_DAMAGED, 0);
	const struct psym_resitem *dw = find(d, PSYM_RES_DWARF, 0, 0);
	size_t n = 0;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (idx)
		add(buf, bufsz, &n, "%s: answered from the debug information", why_text(idx));
	/* Debug info that could not be read: said once, like llvm-symbolizer. */
	if (dw && dw->note && dw->note[0])
		add(buf, bufsz, &n, "%s%s", n ? "\n" : "", dw->note);
	no_inlines_warning(d, buf, bufsz, &n);
}
