/* SPDX-License-Identifier: MIT */
/*
 * The pprof Profile message packed by code written for its schema.
 *
 * protobuf-c packs any message by walking its descriptor field by field,
 * and computes every nested message's size anew at each level; for a
 * symbolized profile of a million locations that is most of the time spent
 * writing it. These two functions know profile.proto's fields and do the
 * same work directly. Their output is byte for byte what
 * protobuf_c_message_get_packed_size() and protobuf_c_message_pack() give
 * for the same message (proto3 rules: zero scalars, empty strings and NULL
 * messages left out; repeated scalars packed; unknown fields kept, after
 * the known ones), which the unit tests check against protobuf-c itself.
 */
#ifndef PSYM_PPROFPACK_H
#define PSYM_PPROFPACK_H

#include <stddef.h>
#include <stdint.h>

#include "pbtypes.h"

/* Bytes psym_pprof_pack() writes for p. */
size_t psym_pprof_packed_size(const pb_profile *p);

/* Write p to out, which holds psym_pprof_packed_size(p) bytes; returns the bytes written. */
size_t psym_pprof_pack(const pb_profile *p, uint8_t *out);

/*
 * Pack p into a buffer grown as it is written (the same bytes as
 * psym_pprof_pack), walking the profile once; hint: bytes to start with (0:
 * start small). *outp is malloc'd: the caller frees it. 0, or -1 when out of
 * memory.
 */
int psym_pprof_pack_alloc(const pb_profile *p, size_t hint, uint8_t **outp, size_t *lenp);

/*
 * Pack p (the same bytes again) in pieces of about chunk bytes, cut between
 * elements, each handed to flush as soon as it is full: the whole encoding
 * is never in memory at once. 0, -1 when out of memory, or what flush
 * returned when it was not 0.
 */
int psym_pprof_pack_stream(const pb_profile *p, size_t chunk,
			   int (*flush)(void *ctx, const uint8_t *buf, size_t len), void *ctx);

/*
 * A profile whose samples and locations are not messages (lean.h keeps
 * them as bytes and records): pb holds every other field (its own samples
 * and locations are not written); the owner of the rest writes it,
 * element by element, with the psym_pack_put_* calls below, when the
 * packer reaches fields 2 and 4. Both return 0, or what a put returned.
 */
struct psym_pack_out;
struct psym_pack_parts {
	const pb_profile *pb;
	int (*samples)(struct psym_pack_out *w, const void *arg);
	int (*locations)(struct psym_pack_out *w, const void *arg);
	const void *arg;
};

/* A Sample, given as its message's bytes (without tag and length). 0 or -1. */
int psym_pack_put_sample_bytes(struct psym_pack_out *w, const uint8_t *msg, size_t len);

/* A Location message. 0 or -1. */
int psym_pack_put_location(struct psym_pack_out *w, const pb_location *m);

/*
 * A Location of these id, mapping_id and address (no other field) whose
 * Lines are already encoded (nbytes of psym_pprof_put_line()'s output at
 * lines). 0 or -1.
 */
int psym_pack_put_location_lines(struct psym_pack_out *w, uint64_t id, uint64_t mapping_id,
				 uint64_t address, const uint8_t *lines, size_t nbytes);

/* As psym_pprof_pack_stream, for the parts (arg: a struct psym_pack_parts). */
int psym_pprof_pack_parts_stream(const void *arg, size_t chunk,
				 int (*flush)(void *ctx, const uint8_t *buf, size_t len),
				 void *ctx);
/* ... and into one malloc'd buffer, as psym_pprof_pack_alloc. */
int psym_pprof_pack_parts_alloc(const struct psym_pack_parts *parts, uint8_t **outp, size_t *lenp);

/* The most bytes psym_pprof_put_line() writes. */
#define PSYM_PPROF_LINE_MAX 35

/*
 * One Line of a location, as a delimited field 4 of it (tag, length and
 * message): what packing a pb_line with these values and no unknown fields
 * gives. Returns the bytes written.
 */
size_t psym_pprof_put_line(uint8_t *out, uint64_t function_id, int64_t line, int64_t column);

#endif
