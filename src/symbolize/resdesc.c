/* SPDX-License-Identifier: MIT */
/* The words of a resolver's description (resdesc.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

static bool is(const struct psym_resdesc *d, const char *kind)
{
	return d->kind && strcmp(d->kind, kind) == 0;
}

static void file_summary(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	const char *path = d->path ? d->path : "", *dw = d->dwarf_path;
	const char *as = d->debug_only ? DEBUG_ONLY_NOTE : "";
	const char *alt = d->alt_note ? d->alt_note : "";
	size_t n = 0;

	if (d->from_symcache) {
		add(buf, bufsz, &n, "from '%s'%s, from the symbol cache", path, as);
		return;
	}
	if (d->index_path && d->index_answered) {
		add(buf, bufsz, &n, "from '%s'%s, from the index '%s' (answers of '%s')", path, as,
		    d->index_path, d->index_source);
		return;
	}
	if (!dw && d->source_note)
		add(buf, bufsz, &n, "from '%s'%s, %s", path, as, d->source_note);
	else if (dw && strcmp(dw, path) != 0)
		add(buf, bufsz, &n, "from '%s'%s, lines from '%s'%s%s", path, as, dw,
		    d->alt_note ? "; " : "", alt);
	else if (dw)
		add(buf, bufsz, &n, "from '%s'%s, with lines%s%s", path, as,
		    d->alt_note ? "; " : "", alt);
	else if (d->debug_note)
		add(buf, bufsz, &n, "from '%s'%s, no lines: %s", path, as, d->debug_note);
	else
		add(buf, bufsz, &n, "from '%s'%s, no lines: no DWARF", path, as);
	if (dw && d->split_missing)
		add(buf, bufsz, &n,
		    "; split DWARF: %zu of %zu units used without their split unit (no inline "
		    "frames): %s",
		    d->split_missing, d->split_units, psym_reason_text(&d->split_why));
}

void psym_resdesc_summary(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	size_t n = 0;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (is(d, "kernel")) {
		if (d->vmlinux_path)
			add(buf, bufsz, &n, "from '%s'%s%s%s", d->vmlinux_path,
			    d->kallsyms_path ? " and '" : "",
			    d->kallsyms_path ? d->kallsyms_path : "", d->kallsyms_path ? "'" : "");
		else if (d->kallsyms_path)
			add(buf, bufsz, &n, "from '%s'", d->kallsyms_path);
		else
			add(buf, bufsz, &n, "%s",
			    d->kernel_why ? psym_reason_text(d->kernel_why) : "");
	} else if (is(d, "jit")) {
		if (d->perfmap_path)
			add(buf, bufsz, &n, "from '%s'%s", d->perfmap_path,
			    d->perfmaps > 1 ? " and others" : "");
		else
			add(buf, bufsz, &n, "no perf map");
	} else {
		file_summary(d, buf, bufsz);
	}
}

void psym_resdesc_explain(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	size_t n = 0;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (is(d, "jit")) {
		if (d->by_only)
			add(buf, bufsz, &n,
			    "%zu location(s) no sample names looked up in pid %d, the profile's "
			    "only process",
			    d->by_only, d->only_pid);
		if (d->by_cover)
			add(buf, bufsz, &n,
			    "%s%zu location(s) no sample names looked up in the only process "
			    "whose perf maps cover them (pid %d the last)",
			    n ? "\n    " : "", d->by_cover, d->cover_pid);
		if (d->unplaced)
			add(buf, bufsz, &n, "%s%zu location(s) left unresolved: %s",
			    n ? "\n    " : "", d->unplaced, d->unplaced_why ? d->unplaced_why : "");
		return;
	}
	if (is(d, "kernel"))
		return;
	if (d->index_path)
		add(buf, bufsz, &n,
		    "answers from the index '%s' (build ID %s, %llu bytes, made from "
		    "'%s'); no DWARF read",
		    d->index_path, d->index_build_id, (unsigned long long)d->index_size,
		    d->index_source);
	if (d->debug_only)
		add(buf, bufsz, &n,
		    "%s'%s' is a debug file standing in for the binary: its segments' "
		    "file offsets recovered from their addresses and alignment, "
		    "symbols from its .symtab",
		    n ? "\n    " : "", d->path ? d->path : "");
	if (d->dwarf_path)
		add(buf, bufsz, &n, "%sDWARF: %zu of %zu compile units decoded so far",
		    n ? "\n    " : "", d->decoded, d->units);
	if (d->source_note && d->dwarf_path)
		add(buf, bufsz, &n, "%s%s where the DWARF has no function", n ? "\n    " : "",
		    d->source_note);
}

void psym_resdesc_warning(const struct psym_resdesc *d, char *buf, size_t bufsz)
{
	size_t n = 0;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (d->symcache_damage)
		add(buf, bufsz, &n, "symbol cache '%s' ignored (%s): symbolized from '%s'",
		    d->symcache_path ? d->symcache_path : "", d->symcache_damage,
		    d->path ? d->path : "");
	else if (d->index_damage)
		add(buf, bufsz, &n, "%s: symbolized from '%s' instead", d->index_damage,
		    d->path ? d->path : "");
}
