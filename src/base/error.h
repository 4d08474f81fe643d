/* SPDX-License-Identifier: MIT */
/*
 * One error convention for all of libpsym.
 *
 * Action functions return 0 on success or a negative PSYM_E* code. Lookups
 * that find nothing return PSYM_NOENT (positive, not an error). The detailed
 * one-line message for the last error lives in a struct psym_err owned by
 * the caller, never in static state.
 */
#ifndef PSYM_ERROR_H
#define PSYM_ERROR_H

#include <stddef.h>

/* X(name, exit-code class, message) */
#define PSYM_ERRORS(X)                                                                             \
	X(OK, 0, "success")                                                                        \
	X(NOMEM, 3, "out of memory")                                                               \
	X(LIMIT, 2, "size limit exceeded")                                                         \
	X(IO, 3, "input/output error")                                                             \
	X(USAGE, 2, "invalid usage")                                                               \
	X(BADGZIP, 2, "corrupt gzip data")                                                         \
	X(BADPROTO, 2, "not a valid protocol buffer")                                              \
	X(BADPROFILE, 2, "invalid profile")                                                        \
	X(BADELF, 2, "invalid ELF file")                                                           \
	X(BADDWARF, 2, "invalid DWARF data")                                                       \
	X(BADINPUT, 2, "invalid input")                                                            \
	X(NOTREG, 2, "not a regular file")                                                         \
	X(UNSUPPORTED, 2, "unsupported")                                                           \
	X(BPF, 3, "BPF failure")                                                                   \
	X(INTERNAL, 3, "internal error")

enum psym_error {
#define PSYM_X_ENUM(name, cls, msg) PSYM__IDX_##name,
	PSYM_ERRORS(PSYM_X_ENUM)
#undef PSYM_X_ENUM
	PSYM__NERRORS
};

/* Negative error codes: PSYM_ENOMEM == -1, ... */
#define PSYM_X_DEF(name, cls, msg) PSYM_E##name = -PSYM__IDX_##name,
enum {
	PSYM_ERRORS(PSYM_X_DEF)
};
#undef PSYM_X_DEF

/* Positive "nothing found" result of a lookup: not an error. */
#define PSYM_NOENT 1

/* Exit codes of the programs (documented in psym(1)). */
enum psym_exit {
	PSYM_EXIT_OK = 0,
	PSYM_EXIT_PARTIAL = 1,
	PSYM_EXIT_BADINPUT = 2,
	PSYM_EXIT_SYSTEM = 3,
};

struct psym_err {
	int code;	/* last negative code, 0 if none */
	char msg[1024]; /* one line, no trailing newline */
};

/* Generic text of a code (0 or negative). Never NULL. */
const char *psym_strerror(int code);

/* Exit code class for an error code. */
int psym_exit_code(int code);

/*
 * Record an error with a printf-style message and return the code, so that
 * callers can write `return psym_err_set(e, PSYM_EIO, "...")`. e may be NULL.
 */
int psym_err_set(struct psym_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the current message with "prefix: " (e.g. the file name). */
void psym_err_prefix(struct psym_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void psym_err_clear(struct psym_err *e);

#endif
