/* SPDX-License-Identifier: MIT */
/*
 * Crash-log filter: reads text (sanitizer reports with unsymbolized frames
 * "#3 0x... (/path/bin+0x1139) (BuildId: ...)", glibc backtrace_symbols
 * lines "./prog(+0x1139)[0x55...]" or "./prog(func+0x15)[0x...]", and
 * "module+0xoffset" frames) and writes it back with function, file and
 * line filled in, inline frames included. Modules are found like every
 * other binary (locate.h). Lines it cannot resolve are written unchanged
 * and counted. Return addresses (sanitizer frames after #0, every
 * backtrace_symbols frame) are looked up as address - 1.
 *
 * Each distinct module (path and build ID) is opened once and remembered in
 * a hash table; past 1 Mi modules or 256 MiB of their names, lines naming
 * new modules are written unchanged.
 */
#ifndef PSYM_CRASHLOG_H
#define PSYM_CRASHLOG_H

#include <stdbool.h>
#include <stdio.h>

#include "binary.h"
#include "objtab.h"
#include "reason.h"
#include "resdesc.h"

/* What the filter has to say of a module, as data: the caller words it (cli/). */
enum psym_crashlog_ev_kind {
	PSYM_CRASHLOG_LOCATED,	/* module: located when first named (--explain):
				 * module->tried holds every candidate */
	PSYM_CRASHLOG_NOT_OPEN, /* module, why or msg: no file for it (-v) */
	PSYM_CRASHLOG_DESC,	/* desc: what its file gave, after its first lookup (-v) */
	PSYM_CRASHLOG_TRIED,	/* path, verdict: a split-DWARF file its lookups tried
				 * (--explain; before its DESC, and after later lookups) */
};

struct psym_crashlog_ev {
	enum psym_crashlog_ev_kind kind;
	const struct psym_located *module; /* LOCATED, NOT_OPEN */
	const struct psym_reason *why;	   /* NOT_OPEN: not found, with why... */
	const char *msg;		   /* ...or an error, with msg */
	const struct psym_resdesc *desc;   /* DESC */
	const char *path, *verdict;	   /* TRIED */
};

/* The counts of a run. */
struct psym_crashlog_result {
	size_t resolved;	/* frames filled in */
	size_t unresolved;	/* frames left as they were */
	struct psym_reason why; /* the last reason a module was not found */
};

struct psym_crashlog_opts {
	const struct psym_binary_opts *binary; /* its locate options find modules */
	bool demangle;
	const char *named; /* -e FILE: used for modules with its base name, or NULL */
	bool verbose;	   /* events: each module's file (or why none) */
	bool explain;	   /* events: each module's candidates, as located */
	/* Called with each event (verbose, explain); NULL: none. */
	void (*event)(void *ud, const struct psym_crashlog_ev *ev);
	void *event_ud;
	struct psym_crashlog_result *result; /* out: the counts, or NULL */
};

/* Writes nothing but the filtered text to out. */
int psym_crashlog_filter(FILE *in, FILE *out, const struct psym_crashlog_opts *o,
			 struct psym_err *e);

#endif
