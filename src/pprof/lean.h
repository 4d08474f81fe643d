/* SPDX-License-Identifier: MIT */
/*
 * A profile read for symbolizing: the samples and locations are not
 * unpacked into protobuf-c messages.
 *
 * psym symbolize reads a profile, gives its locations Lines and writes it
 * back; it never changes a sample. Unpacked, a million locations and their
 * samples are about 125 MB of messages before a single one is symbolized.
 * Here every field but the samples and the locations is the usual message
 * (p->pb, with n_sample and n_location 0); each sample stays the bytes it
 * was read as, checked by the same rules as psym_profile_validate() and
 * written back as they were; each location is a small record whose Lines,
 * once symbolized, are the bytes they will be written as, equal runs of
 * them shared. A location that comes with Lines, is_folded or fields psym
 * does not know is kept as a message (psym_lean_full()), so nothing of the
 * input is lost. The output (psym_lean_write_fp) is what
 * psym_profile_write_fp() writes for the same profile.
 */
#ifndef PSYM_LEAN_H
#define PSYM_LEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pprof.h"

struct psym_lean_loc {
	uint64_t id, address;
	uint64_t lines;	 /* offset of its Line bytes in the pool, or (full) its pb_location index */
	int32_t mapping; /* position in p->pb->mapping; -1: mapping_id 0 */
	uint32_t nbytes; /* of its Line bytes; LEAN_FULL: kept as a message */
};

#define PSYM_LEAN_FULL 0x80000000u

struct psym_lean_span {
	size_t off, len; /* a sample's bytes (its message, without tag and length) in raw */
};

struct psym_lean {
	struct psym_profile *p; /* all but samples and locations; its location_ix: loc's ids */
	unsigned char *raw;	/* the samples' bytes, which sample[] points into */
	size_t nraw;
	struct psym_lean_span *sample;
	size_t nsample;
	struct psym_lean_loc *loc;
	size_t nloc;
	pb_location **full; /* kept as messages (in p's arena) */
	size_t nfull, capfull;
	uint8_t *pool; /* the Line bytes of symbolized locations */
	size_t npool, cappool;
	uint64_t *recent;	   /* a few chains by hash: (offset << 16 | bytes) + 1, 0 empty */
	struct psym_arena scratch; /* one sample at a time */
	size_t memory, max_memory; /* malloc'd here, against the profile's cap */
};

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

/* Position of the location with this id, or -1. */
long psym_lean_location_pos(const struct psym_lean *lp, uint64_t id);

/* Location i kept as a message (it came with Lines, is_folded or unknown fields), or NULL. */
static inline pb_location *psym_lean_full(const struct psym_lean *lp, size_t i)
{
	return lp->loc[i].nbytes & PSYM_LEAN_FULL ? lp->full[lp->loc[i].lines] : NULL;
}

/* Location i had Lines when it was read (only full ones can). */
static inline bool psym_lean_has_lines(const struct psym_lean *lp, size_t i)
{
	const pb_location *f = lp->nfull ? psym_lean_full(lp, i) : NULL;

	return f && f->n_line;
}

/*
 * Give location i (not a full one) these Lines (replacing any this run
 * gave it): encoded once, equal to the chain of a location set shortly
 * before, shared with it. 0, PSYM_ENOMEM or PSYM_ELIMIT.
 */
struct psym_line_val;
int psym_lean_set_lines(struct psym_lean *lp, size_t i, const struct psym_line_val *v, size_t n);

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
