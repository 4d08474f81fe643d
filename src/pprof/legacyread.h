/* SPDX-License-Identifier: MIT */
/*
 * Internal to the legacy pprof reader (legacy.c: the formats; legacymaps.c:
 * lines, the maps section, the profile built). Not part of libpsym's API.
 */
#ifndef PSYM_LEGACYREAD_H
#define PSYM_LEGACYREAD_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "legacy.h"

#define LINE_MAX_BYTES ((size_t)1 << 20)

/* Text lines, as Go's bufio.Scanner gives them ----------------------- */

struct scan {
	const char *p, *end;
	char *tok;
	size_t cap;
	bool have;     /* tok is the current line */
	bool too_long; /* a line over LINE_MAX_BYTES: an error */
};

/* ---- what is read ------------------------------------------------------ */

struct lsample {
	int64_t v[4];
	size_t nv;
	size_t first, n; /* addresses: addrs[first .. first + n) */
	bool has_bytes;
	int64_t bytes; /* heap: the "bytes" label (block size) */
};

struct lmap {
	uint64_t start, limit, offset;
	char *file, *build_id;
	bool fake;
};

struct legacy {
	const char *name;
	struct psym_err *e;
	size_t mem, max_mem; /* bytes of the arrays below, and their cap */
	struct lsample *s;
	size_t ns, caps;
	uint64_t *addrs;
	size_t na, capa;
	struct lmap *m;
	size_t nm, capm;
	/* the profile's description */
	const char *types[4][2];
	size_t ntypes;
	const char *ptype[2];
	int64_t period, duration;
	regex_t re_maps, re_brief;
	bool dup_leaf; /* cpu, thread: the leaf may be recorded twice */
	/* The maps section's "NAME=VALUE" lines: $NAME replaced after them. */
	char **attr; /* "$NAME", VALUE pairs */
	size_t nattr;
	char *sub; /* a line with them replaced */
	/* Java profiles (legacyjava.c): the symbol section, in its order. */
	bool java;
	struct ljsym *js;
	size_t njs, capjs;
	char *junit; /* the "resolution" attribute: the second value's unit */
};

/* One line of a Java profile's symbol section: "0xADDR FUNCTION (FILE:LINE)". */
struct ljsym {
	uint64_t addr;
	size_t idx; /* its place in the section */
	char *func, *file;
	const char *ffile; /* its function's file: the first line of that name gives it */
	int64_t line;
};

#define MAX_ATTRS 256

bool psym_legacy_scan_next(struct scan *s);
const char *psym_legacy_scan_text(const struct scan *s);
char *psym_legacy_trim(char *s);
bool psym_legacy_space_or_comment(const char *l);
bool psym_legacy_map_sentinel(const char *l);
bool psym_legacy_starts(const char *s, const char *prefix);
int psym_legacy_grow(struct legacy *L, void **arr, size_t *cap, size_t need, size_t size);
int psym_legacy_add_addr(struct legacy *L, uint64_t a);
int psym_legacy_add_sample(struct legacy *L, const int64_t *v, size_t nv, size_t first);
int psym_legacy_malformed(struct legacy *L, const char *what, const char *line);
int psym_legacy_hex_addresses(struct legacy *L, const char *s, bool adjust_all,
			      bool adjust_callers);
int psym_legacy_maps_from(struct legacy *L, struct scan *s);
int psym_legacy_additional_sections(struct legacy *L, struct scan *s);
struct psym_builder;
/* The profile's sample types, period type, period and duration from L: 0, or -1 (out of memory). */
int psym_legacy_period(struct legacy *L, struct psym_builder *b, struct psym_profile *p);
/* The error of a build that ran out of memory (the builder's cap, or malloc). */
int psym_legacy_nomem(struct legacy *L, struct psym_builder *b, const struct psym_limits *lim);
int psym_legacy_build(struct legacy *L, const struct psym_limits *lim, struct psym_profile **out);
int64_t psym_legacy_to_i64(double x);
int64_t psym_legacy_scale_heap(int64_t count, int64_t size, int64_t rate, int64_t *osize);

/* Java profiles (legacyjava.c) */
int psym_legacy_java_text(struct legacy *L, const unsigned char *buf, size_t len);
int psym_legacy_java_symbols(struct legacy *L, const char *p, const char *end);
int psym_legacy_java_build(struct legacy *L, const struct psym_limits *lim,
			   struct psym_profile **out);
void psym_legacy_java_free(struct legacy *L);

#endif
