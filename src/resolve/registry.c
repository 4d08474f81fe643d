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
	struct psym_reason_kept why; /* at its length: a run can have an entry per mapping */
	int state;		     /* 0: not opened yet (or closed again), 1: opened (r or why) */
	pthread_mutex_t mu;	     /* held while opening and while a caller uses it */
	struct psym_registry *g;
	/* Opened resolvers, most recently released first; g->mu guards these. */
	struct psym_regentry *prev, *next;
	bool listed;
	bool evicted;	 /* closed for the cap: opened again on the next get */
	uint64_t serial; /* this opening's number (psym_regentry_serial) */
};

struct psym_registry {
	pthread_mutex_t mu;	 /* guards the table and the list, not the entries */
	struct psym_hashtab tab; /* key -> entry; keys owned by the entries */
	struct psym_regentry *head, *tail;
	size_t nopen, max_open;
	size_t reopened; /* objects closed for the cap and opened again */
	uint64_t opens;	 /* resolvers opened so far: the last serial given */
};

struct psym_registry *psym_registry_new(size_t max)
{
	struct psym_registry *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	pthread_mutex_init(&g->mu, NULL);
	psym_hashtab_init(&g->tab, max);
	g->max_open = PSYM_REGISTRY_DEFAULT_OPEN;
	return g;
}

void psym_registry_set_max_open(struct psym_registry *g, size_t max_open)
{
	pthread_mutex_lock(&g->mu);
	g->max_open = max_open ? max_open : PSYM_REGISTRY_DEFAULT_OPEN;
	pthread_mutex_unlock(&g->mu);
}

size_t psym_registry_reopened(struct psym_registry *g)
{
	size_t n;

	pthread_mutex_lock(&g->mu);
	n = g->reopened;
	pthread_mutex_unlock(&g->mu);
	return n;
}

/* g->mu held. */
static void unlink_entry(struct psym_registry *g, struct psym_regentry *x)
{
	if (!x->listed)
		return;
	if (x->prev)
		x->prev->next = x->next;
	else
		g->head = x->next;
	if (x->next)
		x->next->prev = x->prev;
	else
		g->tail = x->prev;
	x->prev = x->next = NULL;
	x->listed = false;
	g->nopen--;
}

/* g->mu held. */
static void push_front(struct psym_registry *g, struct psym_regentry *x)
{
	x->prev = NULL;
	x->next = g->head;
	if (g->head)
		g->head->prev = x;
	g->head = x;
	if (!g->tail)
		g->tail = x;
	x->listed = true;
	g->nopen++;
}

/*
 * Over the cap: close the least recently used resolvers that nobody holds
 * (they are opened again if asked for). g->mu held; entries are only
 * tried, so the lock order (entry, then registry) cannot deadlock.
 */
static void evict(struct psym_registry *g, struct psym_regentry *keep)
{
	struct psym_regentry *y = g->tail;

	while (g->nopen > g->max_open && y) {
		struct psym_regentry *prev = y->prev;

		if (y != keep && pthread_mutex_trylock(&y->mu) == 0) {
			unlink_entry(g, y);
			psym_resolver_free(y->r);
			y->r = NULL;
			y->state = 0;
			y->evicted = true;
			pthread_mutex_unlock(&y->mu);
		}
		y = prev;
	}
}

void psym_registry_finish(struct psym_registry *g)
{
	size_t pos = 0;
	void *v;

	if (!g)
		return;
	while (psym_hashtab_next(&g->tab, &pos, NULL, NULL, &v)) {
		struct psym_regentry *x = v;

		pthread_mutex_lock(&x->mu);
		if (x->r)
			psym_resolver_finish(x->r);
		pthread_mutex_unlock(&x->mu);
	}
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
		psym_reason_kept_free(&x->why);
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
	x->g = g;
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
		bool again = x->evicted;
		struct psym_reason why = { 0 };

		ret = open_fn(ud, &x->r, &why, e);
		psym_reason_keep(&x->why, &why);
		if (ret < 0 && ret != PSYM_NOENT) {
			x->r = NULL;
			pthread_mutex_unlock(&x->mu);
			return ret;
		}
		if (ret == PSYM_NOENT)
			x->r = NULL;
		x->state = 1;
		x->evicted = false;
		if (x->r) {
			/* Only opened resolvers count against the cap. */
			pthread_mutex_lock(&g->mu);
			push_front(g, x);
			x->serial = ++g->opens;
			g->reopened += again;
			evict(g, x);
			pthread_mutex_unlock(&g->mu);
		}
	}
	*out = x;
	return 0;
}

struct psym_resolver *psym_regentry_resolver(const struct psym_regentry *x)
{
	return x->r;
}

void psym_regentry_reason(const struct psym_regentry *x, struct psym_reason *why)
{
	psym_reason_unkeep(&x->why, why);
}

uint64_t psym_regentry_serial(const struct psym_regentry *x)
{
	return x->r ? x->serial : 0;
}

void psym_regentry_release(struct psym_regentry *x)
{
	if (!x)
		return;
	if (x->listed) {
		struct psym_registry *g = x->g;

		pthread_mutex_lock(&g->mu);
		if (x->listed && g->head != x) {
			unlink_entry(g, x);
			push_front(g, x);
		}
		pthread_mutex_unlock(&g->mu);
	}
	pthread_mutex_unlock(&x->mu);
}
