/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "hashtab.h"

#define FIRST_SLOTS 64

struct psym_hashtab_slot {
	uint64_t hash;
	const void *key; /* NULL: empty slot */
	size_t len;
	void *value;
};

uint64_t psym_fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t hash(const struct psym_hashtab *h, const void *key, size_t len)
{
	return psym_hash_mix(psym_fnv1a(key, len, PSYM_FNV1A_INIT ^ h->seed));
}

/* A seed no input can know in advance (getrandom, else the clock). */
static uint64_t psym_hash_seed(void)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed)) {
		struct timespec ts = { 0 };

		/* No entropy yet (early boot): still not known in advance. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = psym_hash_mix((uint64_t)(uintptr_t)&ts ^ (uint64_t)ts.tv_nsec ^
				     ((uint64_t)ts.tv_sec << 32));
	}
	return seed;
}

void psym_hashtab_init(struct psym_hashtab *h, size_t max)
{
	memset(h, 0, sizeof(*h));
	h->max = max && max < SIZE_MAX / 4 ? max : SIZE_MAX / 4;
	h->seed = psym_hash_seed();
}

void psym_hashtab_free(struct psym_hashtab *h)
{
	if (!h)
		return;
	free(h->slots);
	h->slots = NULL;
	h->n = 0;
	h->mask = 0;
}

/* The slot holding key, or the empty slot where it would go. */
static struct psym_hashtab_slot *probe(struct psym_hashtab_slot *slots, size_t mask, uint64_t hv,
				       const void *key, size_t len)
{
	for (size_t i = (size_t)hv & mask;; i = (i + 1) & mask) {
		struct psym_hashtab_slot *s = &slots[i];

		if (!s->key || (s->hash == hv && s->len == len && memcmp(s->key, key, len) == 0))
			return s;
	}
}

int psym_hashtab_get(const struct psym_hashtab *h, const void *key, size_t len, void **value)
{
	struct psym_hashtab_slot *s;

	if (!h->slots)
		return PSYM_NOENT;
	s = probe(h->slots, h->mask, hash(h, key ? key : "", len), key ? key : "", len);
	if (!s->key)
		return PSYM_NOENT;
	if (value)
		*value = s->value;
	return 0;
}

static int grow(struct psym_hashtab *h, struct psym_err *e)
{
	size_t ncap = h->slots ? (h->mask + 1) * 2 : FIRST_SLOTS;
	struct psym_hashtab_slot *ns;

	if (ncap > SIZE_MAX / sizeof(*ns))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; h->slots && i <= h->mask; i++) {
		const struct psym_hashtab_slot *s = &h->slots[i];

		if (s->key)
			*probe(ns, ncap - 1, s->hash, s->key, s->len) = *s;
	}
	free(h->slots);
	h->slots = ns;
	h->mask = ncap - 1;
	return 0;
}

int psym_hashtab_put(struct psym_hashtab *h, const void *key, size_t len, void *value,
		     struct psym_err *e)
{
	struct psym_hashtab_slot *s;
	uint64_t hv;
	int ret;

	if (!key)
		key = "";
	hv = hash(h, key, len);
	if (h->slots) {
		s = probe(h->slots, h->mask, hv, key, len);
		if (s->key) {
			s->value = value;
			return 0;
		}
	}
	if (h->n >= h->max)
		return psym_err_set(e, PSYM_ELIMIT, "more than %zu entries in a hash table",
				    h->max);
	/* At most half full: short probe chains, and always an empty slot. */
	if (!h->slots || h->n + 1 > (h->mask + 1) / 2) {
		ret = grow(h, e);
		if (ret)
			return ret;
	}
	s = probe(h->slots, h->mask, hv, key, len);
	*s = (struct psym_hashtab_slot){ hv, key, len, value };
	h->n++;
	return 0;
}

size_t psym_hashtab_count(const struct psym_hashtab *h)
{
	return h->n;
}

bool psym_hashtab_next(const struct psym_hashtab *h, size_t *pos, const void **key, size_t *len,
		       void **value)
{
	for (; h->slots && *pos <= h->mask; (*pos)++) {
		const struct psym_hashtab_slot *s = &h->slots[*pos];

		if (!s->key)
			continue;
		if (key)
			*key = s->key;
		if (len)
			*len = s->len;
		if (value)
			*value = s->value;
		(*pos)++;
		return true;
	}
	return false;
}

/* ---- index sets ------------------------------------------------------------- */

void psym_idxset_init(struct psym_idxset *s)
{
	memset(s, 0, sizeof(*s));
	s->seed = psym_hash_seed();
}

void psym_idxset_free(struct psym_idxset *s)
{
	free(s->slot);
	free(s->tag);
	s->slot = NULL;
	s->tag = NULL;
	s->cap = s->n = 0;
}

int psym_idxset_reserve(struct psym_idxset *s, size_t want, psym_idxset_hash_fn fn, void *ctx)
{
	size_t ncap = s->cap ? s->cap * 2 : 1024;
	uint32_t *ns;
	uint8_t *nt;

	if (want && s->cap / 4 * 3 >= want)
		return 0;
	while (ncap / 4 * 3 < want && ncap < ((size_t)1 << 32))
		ncap *= 2;
	ns = calloc(ncap, sizeof(*ns));
	nt = malloc(ncap);
	if (!ns || !nt) {
		free(ns);
		free(nt);
		return PSYM_ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		uint32_t v = s->slot[i];
		uint64_t h;
		size_t j;

		if (!v)
			continue;
		h = fn(ctx, v - 1);
		for (j = (size_t)h & (ncap - 1); ns[j]; j = (j + 1) & (ncap - 1))
			;
		ns[j] = v;
		nt[j] = PSYM_IDXSET_TAG(h);
	}
	free(s->slot);
	free(s->tag);
	s->slot = ns;
	s->tag = nt;
	s->cap = ncap;
	return 0;
}

int psym_idxset_add(struct psym_idxset *s, uint32_t idx, uint64_t h, psym_idxset_hash_fn fn,
		    void *ctx)
{
	size_t j;

	if ((s->n + 1) * 4 > s->cap * 3 && psym_idxset_reserve(s, 0, fn, ctx))
		return PSYM_ENOMEM;
	for (j = (size_t)h & (s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
		;
	s->slot[j] = idx + 1;
	s->tag[j] = PSYM_IDXSET_TAG(h);
	s->n++;
	return 0;
}
