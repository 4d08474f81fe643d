/* SPDX-License-Identifier: MIT */
/*
 * pprof profiles: read (gzip or raw, auto-detected), validate, write.
 *
 * The profile is the protobuf-c message itself, allocated from the profile's
 * arena, so fields psym does not know survive a read/write round trip. All
 * memory of a profile is released by psym_profile_free().
 */
#ifndef PSYM_PPROF_H
#define PSYM_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "compress.h"
#include "error.h"
#include "pbtypes.h"

/* *l, or the defaults when l is NULL. */
static inline struct psym_limits psym_limits_or_default(const struct psym_limits *l)
{
	struct psym_limits d;

	if (l)
		return *l;
	psym_limits_default(&d);
	return d;
}

/* Sorted id -> message index, for mappings, locations and functions. */
struct psym_idindex {
	size_t n;
	bool dense;    /* id == position + 1 for all: no table needed */
	uint64_t *ids; /* sorted ids (NULL when dense) */
	uint32_t *pos; /* position of ids[i] in the message array */
};

struct psym_profile {
	struct psym_arena arena;
	pb_profile *pb;
	bool was_gzip;
	/* Filled by psym_profile_index() (called by validate). */
	struct psym_idindex mapping_ix, location_ix, function_ix;
};

/* A new empty profile (string_table = {""}), for writers. */
int psym_profile_new(const struct psym_limits *lim, struct psym_profile **out, struct psym_err *e);

/*
 * Decode an uncompressed pprof message msg[len] into a new profile (the
 * gzip layer and the legacy formats are profread.h's). name is used in
 * messages; was_gzip is recorded for writers that keep the input's form.
 */
int psym_profile_decode(const unsigned char *msg, size_t len, const char *name,
			const struct psym_limits *lim, bool was_gzip, struct psym_profile **out,
			struct psym_err *e);

/*
 * Check the profile the way pprof does and build the id indexes. Reports the
 * first violation naming message, field and index (PSYM_EBADPROFILE).
 */
int psym_profile_validate(struct psym_profile *p, struct psym_err *e);

/* (Re)build the id indexes only; fails on duplicate or zero ids. */
int psym_profile_index(struct psym_profile *p, struct psym_err *e);

/*
 * The pieces of psym_profile_validate(), in its order, for a reader that
 * keeps samples and locations out of p->pb (lean.h): the same rules and
 * the same messages. _head: the string table, value types and top-level
 * string indexes (nsample: the profile's samples); _index_locs: the id
 * indexes, the locations' ids read from nloc records of stride bytes
 * starting at loc_ids (NULL: from p->pb); _objects: mappings and
 * functions; _location and _sample: element i (nloc: locations indexed).
 */
int psym_profile_validate_head(const struct psym_profile *p, size_t nsample, struct psym_err *e);
int psym_profile_index_locs(struct psym_profile *p, const void *loc_ids, size_t stride, size_t nloc,
			    struct psym_err *e);
int psym_profile_validate_objects(const struct psym_profile *p, struct psym_err *e);
int psym_profile_validate_location(const struct psym_profile *p, size_t i, uint64_t mapping_id,
				   pb_line *const *line, size_t n_line, struct psym_err *e);
int psym_profile_validate_sample(const struct psym_profile *p, size_t i, const pb_sample *s,
				 size_t nloc, struct psym_err *e);

/* Position of id in an index, or -1 (not checked against any array). */
long psym_idindex_find(const struct psym_idindex *ix, uint64_t id);

/*
 * A field numbered 0 among m's unknown fields (reachable through a
 * non-minimal tag varint): psym would write a file no reader accepts.
 * _field0: the kind of the first message of pb with one, or NULL.
 */
bool psym_pb_has_field0(const ProtobufCMessage *m);
const char *psym_profile_field0(const pb_profile *pb);

/*
 * Write what pack() packs to fp (name: for errors): raw, or compressed
 * as gzip members of a few MiB each, on a pool of threads (one per core)
 * while pack goes on, written in order. pack calls flush with each piece (profile.proto's pack_stream
 * shape, pprofpack.h) and returns 0, -1 (out of memory) or flush's code.
 */
typedef int (*psym_pack_fn)(const void *arg, size_t chunk,
			    int (*flush)(void *ctx, const uint8_t *buf, size_t len), void *ctx);
int psym_profile_stream_fp(psym_pack_fn pack, const void *arg, bool gzip, FILE *fp,
			   const char *name, struct psym_err *e);

/* Lookups by id through the indexes; NULL when absent. */
pb_mapping *psym_profile_mapping(const struct psym_profile *p, uint64_t id);
pb_location *psym_profile_location(const struct psym_profile *p, uint64_t id);
pb_function *psym_profile_function(const struct psym_profile *p, uint64_t id);

/* Position of the mapping with this id in pb->mapping, or -1. */
long psym_profile_mapping_pos(const struct psym_profile *p, uint64_t id);

/* Position of the location with this id in pb->location, or -1. */
long psym_profile_location_pos(const struct psym_profile *p, uint64_t id);

/* Position of the function with this id in pb->function, or -1. */
long psym_profile_function_pos(const struct psym_profile *p, uint64_t id);

/* string_table[idx], or "" when idx is out of range. */
const char *psym_profile_str(const struct psym_profile *p, int64_t idx);

/*
 * Encode to a malloc'd buffer (caller frees): protobuf-c's bytes for the
 * message; with gzip, those bytes as gzip members of a few MiB each.
 */
int psym_profile_encode(const struct psym_profile *p, bool gzip, unsigned char **buf, size_t *len,
			struct psym_err *e);

/*
 * Encode and write to fp (name: for errors): the same bytes as
 * psym_profile_encode, written piece by piece through
 * psym_profile_stream_fp (compressed on a pool of threads, never held
 * whole).
 */
int psym_profile_write_fp(const struct psym_profile *p, bool gzip, FILE *fp, const char *name,
			  struct psym_err *e);

#endif
