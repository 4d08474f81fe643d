/* SPDX-License-Identifier: MIT */
/*
 * A crash's signature skips the machinery that reports a crash rather than
 * causes it: abort, raise and the pthread_kill under them, assert and
 * fortify failures, malloc's consistency checks, the C++ terminate handlers
 * and throw helpers, the sanitizers' report paths (glibc, musl, libstdc++,
 * the ASan/UBSan/TSan/MSan runtimes). Only a leading run of such frames is
 * skipped, as crash reporters do (Socorro's "irrelevant" list, Sentry's
 * grouping rules): the same names further down the stack are part of the
 * crash. The one list psym(1) documents under psym stack.
 */
#ifndef PSYM_CRASHSIG_H
#define PSYM_CRASHSIG_H

#include <stdbool.h>

/*
 * Whether the function name (as a profile holds it: demangled with its
 * parameters, or plain, maybe with " [clone .cold]") is crash-reporting
 * machinery a signature skips. NULL or "" is not.
 */
bool psym_crashsig_skip(const char *name);

#endif
