/* SPDX-License-Identifier: MIT */
/*
 * Profile builder: appends to a psym_profile while interning strings,
 * functions (by name, system_name, filename, start_line) and locations (by
 * mapping and address), so writers never emit duplicates.
 *
 * A builder may start from a profile that was read from disk (the
 * symbolizer does): existing strings and functions are indexed first and
 * reused. All memory comes from the profile's arena. The builder must not be
 * used after the profile is freed; psym_builder_free() releases only the
 * builder's own hash tables.
 */
#ifndef PSYM_BUILDER_H
#define PSYM_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "pprof.h"

struct psym_builder;

int psym_builder_new(struct psym_profile *p, struct psym_builder **out, struct psym_err *e);
void psym_builder_free(struct psym_builder *b);

/*
 * Room for what symbolizing nlocations locations usually adds (strings,
 * functions), so the sets are not rehashed as they fill: done by
 * psym_builder_new() for the profile's own locations; a lean profile
 * (lean.h) keeps its locations out of the message. 0 or PSYM_ENOMEM.
 */
int psym_builder_reserve(struct psym_builder *b, size_t nlocations);

/* Index of s in string_table, adding it if new. Negative on error. */
int64_t psym_builder_str(struct psym_builder *b, const char *s);
/* Index of s in string_table when it is there, else -1 (nothing added). */
int64_t psym_builder_str_find(struct psym_builder *b, const char *s);

/* Id of the function with these fields, adding it if new; 0 on error. */
uint64_t psym_builder_function(struct psym_builder *b, const char *name, const char *system_name,
			       const char *filename, int64_t start_line);

/* The same, its strings given as string_table indexes (from psym_builder_str; negative: fails). */
uint64_t psym_builder_function_ix(struct psym_builder *b, int64_t name, int64_t system_name,
				  int64_t filename, int64_t start_line);

/* Append a mapping; returns it (id assigned) or NULL on error. */
pb_mapping *psym_builder_mapping(struct psym_builder *b, uint64_t start, uint64_t limit,
				 uint64_t offset, const char *filename, const char *build_id);

/* Id of the location (mapping_id may be 0), adding it if new; 0 on error. */
uint64_t psym_builder_location(struct psym_builder *b, uint64_t mapping_id, uint64_t address);

/* Append a Line to a location. Returns 0 or a negative code. */
int psym_builder_add_line(struct psym_builder *b, pb_location *loc, uint64_t function_id,
			  int64_t line, int64_t column);

/* What a Line holds, for psym_builder_set_line_chain(). */
struct psym_line_val {
	uint64_t function_id;
	int64_t line, column;
};

/* The most Lines one location may get from psym_builder_set_line_chain(). */
#define PSYM_BUILDER_MAX_CHAIN 256

/*
 * Give loc the n Lines v (replacing any it had). Equal Lines, and equal
 * chains of Lines, are shared between the locations that have them (a
 * million symbolized locations hold a few hundred thousand distinct
 * chains): the Lines and the array loc->line then points to are read-only,
 * to be replaced as a whole, never written in place. 0, PSYM_ENOMEM or
 * PSYM_ELIMIT (also in psym_builder_error()).
 */
int psym_builder_set_line_chain(struct psym_builder *b, pb_location *loc,
				const struct psym_line_val *v, size_t n);

/*
 * A location of mapping m got the frames of one symbolization: the
 * builder, the sole writer of the has_* flags, marks m as having
 * functions, and filenames / line numbers / inline frames when the
 * innermost frame has a file / a line, or there are several frames.
 */
void psym_builder_mapping_resolved(struct psym_builder *b, pb_mapping *m, bool filename, bool line,
				   bool inlined);

/* Append a value type to sample_type. */
int psym_builder_sample_type(struct psym_builder *b, const char *type, const char *unit);

/* Append a sample; its location ids and values are copied. */
pb_sample *psym_builder_sample(struct psym_builder *b, const uint64_t *locs, size_t nlocs,
			       const int64_t *values, size_t nvalues);
int psym_builder_label_str(struct psym_builder *b, pb_sample *s, const char *key, const char *str);

/* A label for psym_builder_sample_labels: a string label, or a number (str NULL). */
struct psym_builder_label {
	const char *key;
	const char *str;
	int64_t num;
	const char *unit; /* of num, or NULL */
	/*
	 * An equal label of an earlier sample of this profile, or NULL: when
	 * set, the sample points at it and the fields above are not read
	 * (a label is never changed once made: samples may share it).
	 */
	pb_label *same;
};

/*
 * psym_builder_sample with its labels, the sample, its arrays and its
 * labels in one piece of the arena (a profile of many samples: about 300
 * bytes a sample of three labels, not 370; 56 bytes less for each label
 * shared through .same). Strings are added in the order the _label_str
 * and _label_num calls would add them.
 */
pb_sample *psym_builder_sample_labels(struct psym_builder *b, const uint64_t *locs, size_t nlocs,
				      const int64_t *values, size_t nvalues,
				      const struct psym_builder_label *labels, size_t nlabels);
int psym_builder_label_num(struct psym_builder *b, pb_sample *s, const char *key, int64_t num,
			   const char *unit);

int psym_builder_comment(struct psym_builder *b, const char *text);

/* Error of the last failed call: PSYM_ENOMEM or PSYM_ELIMIT. */
int psym_builder_error(const struct psym_builder *b);

#endif
