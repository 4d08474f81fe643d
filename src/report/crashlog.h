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

struct psym_crashlog_opts {
	const struct psym_binary_opts *binary; /* its locate options find modules */
	bool demangle;
	const char *named;  /* -e FILE: used for modules with its base name, or NULL */
	FILE *log;	    /* one line about unresolved frames; NULL: none */
	bool verbose;	    /* on log: each module's file (or why none) and the counts */
	bool explain;	    /* on log: a header per module before its candidates */
	size_t *unresolved; /* out: frames left unresolved, or NULL */
};

int psym_crashlog_filter(FILE *in, FILE *out, const struct psym_crashlog_opts *o,
			 struct psym_err *e);

#endif
