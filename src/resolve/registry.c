/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "registry.h"

struct psym_regentry {
	char *key;
	struct psym_resolver *r;
	struct psym_reason why;
	int state;	    /* 0: not opened yet, 1: opened (r or why) */
	pthread_mutex_t mu; /* held while opening and while a caller uses it */
};

struct psym_registry {
	pthread_mutex_t mu;	 /* guards the table, not the entries */
	struct psym_hashtab tab; /* key -> entry; keys owned by the entries */
};

struct psym_registry *psym_registry_new(size_t max)
{
	struct psym_registry *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	pthread_mutex_init(&g->mu, NULL);
	psym_hashtab_init(&g->tab, max);
	return g;
}

void psym_registry_free(struct psym_registry *g)
{
	size_t pos = 0;
	void *v;

	if (!g)
		return;
	while (psym_hashtab_next(&g->tab, &pos, NULL, NULL, &v)) {
		struct psym_regentry *x = v;

		psym_resolver_free(x->r);
		pthread_mutex_destroy(&x->mu);
		free(x->key);
		free(x);
	}
	psym_hashtab_free(&g->tab);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* The entry for key, made when new; NULL with e set on failure. g->mu held. */
static struct psym_regentry *find_or_add(struct psym_registry *g, const char *key,
					 struct psym_err *e)
{
	size_t len = strlen(key);
	struct psym_regentry *x;
	void *v;

	if (psym_hashtab_get(&g->tab, key, len, &v) == 0)
		return v;
	x = calloc(1, sizeof(*x));
	if (!x || !(x->key = strdup(key))) {
		free(x);
		psym_err_set(e, PSYM_ENOMEM, "out of memory");
		return NULL;
	}
	if (psym_hashtab_put(&g->tab, x->key, len, x, e) != 0) {
		free(x->key);
		free(x);
		return NULL;
	}
	pthread_mutex_init(&x->mu, NULL);
	return x;
}

int psym_registry_get(struct psym_registry *g, const char *key, psym_open_fn open_fn, void *ud,
		      struct psym_regentry **out, struct psym_err *e)
{
	struct psym_regentry *x;
	int ret;

	pthread_mutex_lock(&g->mu);
	x = find_or_add(g, key, e);
	pthread_mutex_unlock(&g->mu);
	if (!x)
		return e->code ? e->code : PSYM_ENOMEM;
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
