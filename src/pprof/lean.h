/* SPDX-License-Identifier: MIT */
/*
 * A profile read for symbolizing: the samples and locations are not
 * unpacked into protobuf-c messages.
 *
 * psym symbolize reads a profile, gives its locations Lines and writes it
 * back; it never changes a sample. Unpacked, a million locations and their
 * samples are about 125 MB of messages before a single one is symbolized.
 * Here every field but the samples and the locations is the usual message
 * (psym_lean_profile(), with no samples and no locations); each sample
 * stays the bytes it was read as, checked by the same rules as
 * psym_profile_validate() and written back as they were; each location
 * is a small record (lean.c's alone: the type is opaque) whose Lines,
 * once symbolized, are the bytes they will be written as, equal runs of
 * them shared. A location that comes with Lines, is_folded or fields psym
 * does not know is kept as a message, so nothing of the input is lost.
 * The output (psym_lean_write_fp) is what psym_profile_write_fp() writes
 * for the same profile.
 */
#ifndef PSYM_LEAN_H
#define PSYM_LEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pprof.h"

/* Opaque: its records and buffers are lean.c's alone. */
struct psym_lean;
struct psym_builder;
struct psym_line_val;

/*
 * Read and decode a profile from path ("-": stdin), with
 * psym_profile_read()'s messages; legacy formats are read through it. Not
 * validated: psym_lean_validate() must come before any other use.
 */
int psym_lean_read(const char *path, const struct psym_limits *lim, struct psym_lean **out,
		   struct psym_err *e);

/* From a buffer in memory (gzip or raw); name: for messages. Not validated. */
int psym_lean_parse(const unsigned char *buf, size_t len, const char *name,
		    const struct psym_limits *lim, struct psym_lean **out, struct psym_err *e);

/*
 * The same from a decoded (not gzip) message that lean takes over: msg
 * is malloc'd, and freed here or kept by *out (no copy is made).
 * was_gzip: the file was, for writers that keep the input's form.
 */
int psym_lean_adopt(unsigned char *msg, size_t len, bool was_gzip, const char *name,
		    const struct psym_limits *lim, struct psym_lean **out, struct psym_err *e);

/*
 * psym_profile_validate()'s checks, in its order and with its messages,
 * and the locations' mappings found.
 */
int psym_lean_validate(struct psym_lean *lp, struct psym_err *e);

/*
 * A complete profile as a lean one (then to validate), and a validated
 * lean one as a complete profile (validated): for code that edits samples.
 */
int psym_lean_from_profile(const struct psym_profile *p, const struct psym_limits *lim,
			   struct psym_lean **out, struct psym_err *e);
int psym_lean_to_profile(const struct psym_lean *lp, const struct psym_limits *lim,
			 struct psym_profile **out, struct psym_err *e);

void psym_lean_free(struct psym_lean *lp);

/*
 * Everything but the samples and the locations: string table, mappings,
 * functions and the rest, as a profile (its pb has no samples and no
 * locations). Borrowed: lives as long as lp; a builder may add to it.
 */
struct psym_profile *psym_lean_profile(const struct psym_lean *lp);

size_t psym_lean_nsamples(const struct psym_lean *lp);
size_t psym_lean_nlocations(const struct psym_lean *lp);

/* Position of the location with this id, or -1. */
long psym_lean_location_pos(const struct psym_lean *lp, uint64_t id);

/* Location i's id and address. */
uint64_t psym_lean_location_id(const struct psym_lean *lp, size_t i);
uint64_t psym_lean_location_address(const struct psym_lean *lp, size_t i);

/* Location i's mapping, as its position in the profile's mappings; -1: mapping_id 0. */
long psym_lean_location_mapping(const struct psym_lean *lp, size_t i);

/* Location i had Lines when it was read. */
bool psym_lean_has_lines(const struct psym_lean *lp, size_t i);

/*
 * A hint: location i is about to be read and given Lines (a driver going
 * through the locations out of profile order asks early).
 */
void psym_lean_prefetch(const struct psym_lean *lp, size_t i);

/*
 * Give location i these Lines (replacing any it had, or any this run gave
 * it). Most locations are records: the Lines are encoded once, equal to
 * the chain of a location set shortly before, shared with it. A location
 * kept as a message (it came with Lines, is_folded or fields psym does
 * not know) gets them through b, a builder of psym_lean_profile(lp), as
 * psym_builder_set_line_chain() gives them. 0, PSYM_ENOMEM or PSYM_ELIMIT.
 */
int psym_lean_set_lines(struct psym_lean *lp, struct psym_builder *b, size_t i,
			const struct psym_line_val *v, size_t n);

/*
 * Each sample unpacked in turn (a scratch message, valid during the call);
 * stops at fn's first nonzero return, which it returns.
 */
int psym_lean_foreach_sample(struct psym_lean *lp,
			     int (*fn)(void *ud, size_t i, const pb_sample *s), void *ud,
			     struct psym_err *e);

/*
 * Write the profile to fp (name: for errors), gzip or raw: once decoded,
 * the bytes psym_profile_write_fp() writes for the same profile.
 */
int psym_lean_write_fp(const struct psym_lean *lp, bool gzip, FILE *fp, const char *name,
		       struct psym_err *e);

/* Encode to a malloc'd buffer (raw protobuf). */
int psym_lean_encode(const struct psym_lean *lp, unsigned char **buf, size_t *len,
		     struct psym_err *e);

#endif
