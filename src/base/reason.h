/* SPDX-License-Identifier: MIT */
/*
 * Why an object was not found, or a frame stayed an address: a code and
 * one line of detail. The summary, --explain and JSON output all speak
 * from the same reason, so they cannot disagree.
 */
#ifndef PSYM_REASON_H
#define PSYM_REASON_H

#include <stdarg.h>
#include <stddef.h>

#define PSYM_REASONS(X)                                                                            \
	X(NONE, "no reason")                                                                       \
	X(NOT_FOUND, "not found")                                                                  \
	X(NOT_REGULAR, "not a regular file")                                                       \
	X(BAD_FILE, "unreadable or not an ELF file")                                               \
	X(BUILD_ID_MISMATCH, "build ID mismatch")                                                  \
	X(NO_BUILD_ID, "file has no build ID to check")                                            \
	X(CRC_MISMATCH, "debuglink CRC mismatch")                                                  \
	X(OUTSIDE_ROOT, "leads outside the sysroot")                                               \
	X(DEBUGINFOD, "debuginfod")                                                                \
	X(NO_DEBUG_INFO, "no debug information")                                                   \
	X(NO_KALLSYMS, "no kernel symbols")                                                        \
	X(NO_VMLINUX, "no vmlinux")                                                                \
	X(KASLR_UNKNOWN, "kernel load address unknown")                                            \
	X(NO_PERF_MAP, "no perf map")                                                              \
	X(NO_VDSO, "no vDSO image")                                                                \
	X(NOT_CODE, "no code in this kind of mapping")                                             \
	X(NO_ADDRESS, "address outside the object's segments")                                     \
	X(NO_SYMBOL, "no symbol or line covers the address")                                       \
	X(DWO_NOT_FOUND, "split DWARF .dwo not found")                                             \
	X(DWO_MISMATCH, "split DWARF unit with another dwo id")                                    \
	X(DWP_BAD, "corrupt .dwp package")                                                         \
	X(ERROR, "error")

enum psym_reason_code {
#define PSYM_REASON_ENUM(n, s) PSYM_R_##n,
	PSYM_REASONS(PSYM_REASON_ENUM)
#undef PSYM_REASON_ENUM
	PSYM_R_COUNT
};

/*
 * A reason. `rank` orders reasons by how much they tell a user (a build ID
 * mismatch tells more than "not found"): psym_reason_offer keeps the most
 * telling one of a search.
 */
struct psym_reason {
	enum psym_reason_code code;
	int rank;
	char detail[1024]; /* one line: subject first, then what was wrong */
};

/*
 * A reason kept for long, one per object or mapping of a run (there can be
 * hundreds of thousands): the detail on the heap at its length, not in a
 * 1 KiB array. psym_reason_keep never fails: out of memory, the detail is
 * dropped and the text is the code's name.
 */
struct psym_reason_kept {
	enum psym_reason_code code;
	int rank;
	char *detail; /* owned; NULL: none */
};

/* Keep r in k (k's old detail freed). */
void psym_reason_keep(struct psym_reason_kept *k, const struct psym_reason *r);
/* The kept reason as a reason again. */
void psym_reason_unkeep(const struct psym_reason_kept *k, struct psym_reason *out);
/* The detail, or the code's name. Borrowed from k. */
const char *psym_reason_kept_text(const struct psym_reason_kept *k);
/* Frees the detail and clears k. */
void psym_reason_kept_free(struct psym_reason_kept *k);

/* The short name of a code ("not found"). */
const char *psym_reason_name(enum psym_reason_code c);

/* Set r to code with printf-style detail. */
void psym_reason_set(struct psym_reason *r, enum psym_reason_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Replace r when rank is higher than r's (a more telling reason). */
void psym_reason_offer(struct psym_reason *r, enum psym_reason_code code, int rank, const char *fmt,
		       ...) __attribute__((format(printf, 4, 5)));

/* The detail, or the code's name when there is no detail. Borrowed from r. */
const char *psym_reason_text(const struct psym_reason *r);

#endif
