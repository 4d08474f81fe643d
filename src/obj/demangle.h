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

#endif
