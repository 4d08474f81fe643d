/* SPDX-License-Identifier: MIT */
/* Demangling of Itanium C++ and Rust (legacy and v0) names, via libiberty. */
#ifndef PSYM_DEMANGLE_H
#define PSYM_DEMANGLE_H

/*
 * A malloc'd demangled form of name (caller frees), or NULL when name is
 * not mangled or cannot be demangled. libiberty's recursion limit stays on,
 * so hostile names cannot exhaust the stack. libiberty's answer, except
 * that an inheriting constructor is named after its own class, as LLVM's
 * demangler and gdb name it (Derived::Derived, not Derived::Base).
 */
char *psym_demangle(const char *name);

/*
 * libiberty's answer as it is, as GNU addr2line -C prints it (an
 * inheriting constructor after its base: Derived::Base); malloc'd or NULL.
 */
char *psym_demangle_gnu(const char *name);

/*
 * How a function is named from its system (linkage) name, as pprof's
 * -symbolize=demangle=MODE names it: SIMPLE (pprof's default) without
 * parameters, template arguments, return type and clone suffixes;
 * TEMPLATES keeps the template arguments; FULL is the whole signature
 * without clone suffixes; NONE keeps the system name.
 */
enum psym_demangle_mode {
	PSYM_DEMANGLE_SIMPLE = 0,
	PSYM_DEMANGLE_TEMPLATES,
	PSYM_DEMANGLE_FULL,
	PSYM_DEMANGLE_NONE,
	PSYM_DEMANGLE_CLONES, /* FULL with clone suffixes (psym_demangle): crash stacks */
};

/* MODE from "default", "templates", "full" or "none"; -1: none of them. */
int psym_demangle_mode_parse(const char *s);

/*
 * pprof's name for a function whose system name is sys, in mode: a
 * mangled name demangled and simplified; any other name that looks like
 * demangled C++ (has "::", "<>" or "[]") with its parentheses (SIMPLE,
 * TEMPLATES) and angle brackets (SIMPLE) removed, as pprof's heuristic
 * does. A malloc'd string (caller frees), or NULL when the name is sys
 * itself (or memory is short).
 */
char *psym_demangle_as(const char *sys, enum psym_demangle_mode mode);

#endif
