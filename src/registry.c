/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

struct psym_regentry {
	char *key;
	uint64_t hash;
	struct psym_resolver *r;
	struct psym_reason why;
	int state;              /* 0: not opened yet, 1: opened (r or why) */
	pthread_mutex_t mu;     /* held while opening and while a caller uses it */
};

struct psym_registry {
	pthread_mutex_t mu;     /* guards the table, not the entries */
	struct psym_regentry **slots;
	size_t cap, n;          /* cap: a power of two, at most half full */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

struct psym_registry *psym_registry_new(void)
{
	struct psym_registry *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	pthread_mutex_init(&g->mu, NULL);
	return g;
}

void psym_registry_free(struct psym_registry *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->cap; i++) {
		struct psym_regentry *x = g->slots[i];

		if (!x)
			continue;
		psym_resolver_free(x->r);
		pthread_mutex_destroy(&x->mu);
		free(x->key);
		free(x);
	}
	free(g->slots);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

static bool grow(struct psym_registry *g)
{
	size_t cap = g->cap ? g->cap * 2 : 64;
	struct psym_regentry **s = calloc(cap, sizeof(*s));

	if (!s)
		return false;
	for (size_t i = 0; i < g->cap; i++) {
		struct psym_regentry *x = g->slots[i];
		size_t j;

		if (!x)
			continue;
		for (j = x->hash & (cap - 1); s[j]; j = (j + 1) & (cap - 1))
			;
		s[j] = x;
	}
	free(g->slots);
	g->slots = s;
	g->cap = cap;
	return true;
}

/* The entry for key, made when new; NULL when out of memory. g->mu held. */
static struct psym_regentry *find_or_add(struct psym_registry *g, const char *key)
{
	uint64_t h = hash_str(key);
	struct psym_regentry *x;
	size_t j;

	if ((g->n + 1) * 2 > g->cap && !grow(g))
		return NULL;
	for (j = h & (g->cap - 1); g->slots[j]; j = (j + 1) & (g->cap - 1))
		if (g->slots[j]->hash == h && strcmp(g->slots[j]->key, key) == 0)
			return g->slots[j];
	x = calloc(1, sizeof(*x));
	if (!x || !(x->key = strdup(key))) {
		free(x);
		return NULL;
	}
	x->hash = h;
	pthread_mutex_init(&x->mu, NULL);
	g->slots[j] = x;
	g->n++;
	return x;
}

int psym_registry_get(struct psym_registry *g, const char *key, psym_open_fn open_fn, void *ud,
		      struct psym_regentry **out, struct psym_err *e)
{
	struct psym_regentry *x;
	int ret;

	pthread_mutex_lock(&g->mu);
	x = find_or_add(g, key);
	pthread_mutex_unlock(&g->mu);
	if (!x)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	pthread_mutex_lock(&x->mu); /* waits while another thread opens or uses it */
	if (x->state == 0) {
		memset(&x->why, 0, sizeof(x->why));
		ret = open_fn(ud, &x->r, &x->why, e);
		if (ret < 0 && ret != PSYM_NOENT) {
			x->r = NULL;
			pthread_mutex_unlock(&x->mu);
			return ret;
		}
		if (ret == PSYM_NOENT)
			x->r = NULL;
		x->state = 1;
	}
	*out = x;
	return 0;
}

struct psym_resolver *psym_regentry_resolver(const struct psym_regentry *x)
{
	return x->r;
}

const struct psym_reason *psym_regentry_reason(const struct psym_regentry *x)
{
	return &x->why;
}

void psym_regentry_release(struct psym_regentry *x)
{
	if (x)
		pthread_mutex_unlock(&x->mu);
}
