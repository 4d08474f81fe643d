/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing hash table from byte-string keys to pointers, for
 * sets and maps whose keys come from untrusted input (module paths in a
 * crash log, names in a profile).
 *
 * Hash: 64-bit FNV-1a (Fowler/Noll/Vo: for each byte, h ^= byte, then
 * h *= 0x100000001b3; start value 0xcbf29ce484222325), with the start
 * value xor'ed with a per-table random seed, then a 64-bit finalizer so
 * the low bits that pick the slot depend on every byte. FNV-1a is not a
 * keyed hash: the seed keeps an input from being built offline so that its
 * keys share one probe chain. Linear probing in a power-of-two array kept
 * at most half full; entries are never removed.
 *
 * Ownership: keys and values are borrowed. The caller keeps each key's
 * bytes alive and unchanged as long as the table, and frees keys and
 * values itself (psym_hashtab_next walks the entries; the order depends on
 * the seed, so it must never decide what psym prints).
 *
 * Caps: at most max entries (PSYM_ELIMIT past it), so one input cannot make
 * the table grow without bound.
 */
#ifndef PSYM_HASHTAB_H
#define PSYM_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"

#define PSYM_FNV1A_INIT 0xcbf29ce484222325ULL

/* Plain FNV-1a of n bytes at p, continuing from h (PSYM_FNV1A_INIT first). */
uint64_t psym_fnv1a(const void *p, size_t n, uint64_t h);

struct psym_hashtab_slot;

struct psym_hashtab {
	struct psym_hashtab_slot *slots; /* NULL until the first put */
	size_t n, mask, max;
	uint64_t seed;
};

/* An empty table of at most max entries (0: no cap but SIZE_MAX / 4). */
void psym_hashtab_init(struct psym_hashtab *h, size_t max);
/* Free the table itself (not keys or values). Accepts NULL; h can be reused after init. */
void psym_hashtab_free(struct psym_hashtab *h);

/* The value stored under key (len bytes, may hold NUL): 0, or PSYM_NOENT. */
int psym_hashtab_get(const struct psym_hashtab *h, const void *key, size_t len, void **value);

/*
 * Store value under key (borrowed, see above), replacing the value of an
 * equal key. 0, PSYM_ENOMEM, or PSYM_ELIMIT (max entries reached); e says
 * which. The table is unchanged on failure.
 */
int psym_hashtab_put(struct psym_hashtab *h, const void *key, size_t len, void *value,
		     struct psym_err *e);

size_t psym_hashtab_count(const struct psym_hashtab *h);

/*
 * Walk the entries: start with *pos = 0; each call that returns true gives
 * one entry (key, len, value may be NULL when not wanted).
 */
bool psym_hashtab_next(const struct psym_hashtab *h, size_t *pos, const void **key, size_t *len,
		       void **value);

/* MurmurHash3's 64-bit finalizer: every output bit depends on every input bit. */
static inline uint64_t psym_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/*
 * An index set: open addressing over uint32 indices into an array the
 * caller owns (a profile's strings, functions, locations), for tables
 * whose entries already live in such an array. The caller hashes with
 * psym_idxset_hash_bytes / _u64s (seeded per set, so inputs cannot be
 * built to share one probe chain) and compares entries itself while
 * probing:
 *
 *	PSYM_IDXSET_PROBE(set, h, j)
 *		if (equal(array[set->slot[j] - 1], key)) return set->slot[j] - 1;
 *
 * At most 3/4 full; entries are never removed.
 */
struct psym_idxset {
	uint32_t *slot; /* index + 1; 0 = empty; NULL until the first reserve */
	uint8_t *tag;	/* per slot: bits of its entry's hash (PSYM_IDXSET_TAG) */
	size_t cap, n;	/* cap: a power of two */
	uint64_t seed;
};

/* The hash of an index's entry, as the caller computes it, for regrowing. */
typedef uint64_t (*psym_idxset_hash_fn)(void *ctx, uint32_t idx);

void psym_idxset_init(struct psym_idxset *s);
void psym_idxset_free(struct psym_idxset *s);
/* Room for want entries in all (0: double). 0 or PSYM_ENOMEM. */
int psym_idxset_reserve(struct psym_idxset *s, size_t want, psym_idxset_hash_fn fn, void *ctx);
/* Add idx (not yet in the set) with hash h, growing as needed. 0 or PSYM_ENOMEM. */
int psym_idxset_add(struct psym_idxset *s, uint32_t idx, uint64_t h, psym_idxset_hash_fn fn,
		    void *ctx);

/* Bits of a hash that the slot's position does not use, kept per slot. */
#define PSYM_IDXSET_TAG(h) ((uint8_t)((uint64_t)(h) >> 56))

/*
 * The slots whose entry may have hash h: an entry whose tag differs is
 * passed over without the caller's comparison (which mostly means a
 * cache miss on the entry itself).
 */
#define PSYM_IDXSET_PROBE(s, h, j)                                                                 \
	for (size_t j = (s)->cap ? (size_t)(h) & ((s)->cap - 1) : 0; (s)->cap && (s)->slot[j];     \
	     j = (j + 1) & ((s)->cap - 1))                                                         \
		if ((s)->tag[j] == PSYM_IDXSET_TAG(h))

/* A hash of n bytes from seed, eight bytes a step. */
static inline uint64_t psym_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = (PSYM_FNV1A_INIT ^ seed) + n * 0x9e3779b97f4a7c15ULL, w;

	/* Eight bytes a step (names are long: a byte a step was most of the
	 * cost of interning them), each step mixed before the next. */
	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, b, n);
	h = (h ^ w) * 0x94d049bb133111ebULL;
	return psym_hash_mix(h);
}

static inline uint64_t psym_idxset_hash_bytes(const struct psym_idxset *s, const void *p, size_t n)
{
	return psym_hash_bytes(p, n, s->seed);
}

static inline uint64_t psym_idxset_hash_u64s(const struct psym_idxset *s, const uint64_t *v,
					     size_t n)
{
	uint64_t h = s->seed;

	for (size_t i = 0; i < n; i++)
		h = psym_hash_mix(h ^ (v[i] + 0x9e3779b97f4a7c15ULL * (i + 1)));
	return h;
}

#endif
