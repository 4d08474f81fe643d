/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "registry.h"

struct psym_regentry {
	struct psym_resolver *r;
	struct psym_reason_kept why; /* at its length: a run can have an entry per mapping */
	int state;		     /* 0: not opened yet (or closed again), 1: opened (r or why) */
	pthread_mutex_t mu;	     /* held while opening and while a caller uses it */
	struct psym_registry *g;
	/* Opened resolvers, most recently released first; g->mu guards these. */
	struct psym_regentry *prev, *next;
	bool listed;
	bool evicted;		       /* closed for the cap: opened again on the next get */
	struct psym_regentry *closing; /* the next one evict() took off the list */
	uint64_t serial;	       /* this opening's number (psym_regentry_serial) */
	char key[];		       /* in the same allocation */
};

struct psym_registry {
	pthread_mutex_t mu;	    /* guards the table and the list, not the entries */
	struct psym_regentry **all; /* in the order added */
	size_t n, cap, max;
	struct psym_idxset tab; /* key -> index in all */
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
	psym_idxset_init(&g->tab);
	g->max = max;
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
 * Over the cap: take the least recently used resolvers that nobody holds
 * off the list, each locked, chained by ->closing (close_evicted closes
 * them). g->mu held; entries are only tried, so the lock order (entry,
 * then registry) cannot deadlock.
 */
static struct psym_regentry *evict(struct psym_registry *g, struct psym_regentry *keep)
{
	struct psym_regentry *y = g->tail, *out = NULL;

	while (g->nopen > g->max_open && y) {
		struct psym_regentry *prev = y->prev;

		if (y != keep && pthread_mutex_trylock(&y->mu) == 0) {
			unlink_entry(g, y);
			y->closing = out;
			out = y;
		}
		y = prev;
	}
	return out;
}

/*
 * Close what evict took, g->mu not held (finish may write a file or start
 * an index build): each one's run is over as far as it goes, so it acts
 * on what it learned (psym_resolver_finish: its answer cache written, its
 * index policy) before it is freed; opened again if asked for.
 */
static void close_evicted(struct psym_regentry *y)
{
	while (y) {
		struct psym_regentry *next = y->closing;

		y->closing = NULL;
		psym_resolver_finish(y->r);
		psym_resolver_free(y->r);
		y->r = NULL;
		y->state = 0;
		y->evicted = true;
		pthread_mutex_unlock(&y->mu);
		y = next;
	}
}

void psym_registry_finish(struct psym_registry *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		struct psym_regentry *x = g->all[i];

		pthread_mutex_lock(&x->mu);
		if (x->r)
			psym_resolver_finish(x->r);
		pthread_mutex_unlock(&x->mu);
	}
}

void psym_registry_free(struct psym_registry *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		struct psym_regentry *x = g->all[i];

		psym_resolver_free(x->r);
		psym_reason_kept_free(&x->why);
		pthread_mutex_destroy(&x->mu);
		free(x);
	}
	free(g->all);
	psym_idxset_free(&g->tab);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

static uint64_t key_hash(const struct psym_registry *g, const char *key, size_t len)
{
	return psym_idxset_hash_bytes(&g->tab, key, len);
}

static uint64_t key_rehash(void *ctx, uint32_t i)
{
	const struct psym_registry *g = ctx;

	return key_hash(g, g->all[i]->key, strlen(g->all[i]->key));
}

/* The entry for key, made when new; NULL with e set on failure. g->mu held. */
static struct psym_regentry *find_or_add(struct psym_registry *g, const char *key,
					 struct psym_err *e)
{
	size_t len = strlen(key);
	uint64_t h = key_hash(g, key, len);
	struct psym_regentry *x, **arr;

	PSYM_IDXSET_PROBE(&g->tab, h, j)
	{
		x = g->all[g->tab.slot[j] - 1];
		if (!strcmp(x->key, key))
			return x;
	}
	if ((g->max && g->n >= g->max) || g->n >= UINT32_MAX - 1) {
		psym_err_set(e, PSYM_ELIMIT, "more than %zu entries in a hash table",
			     g->max ? g->max : (size_t)UINT32_MAX - 1);
		return NULL;
	}
	arr = psym_array_grow(g->all, &g->cap, g->n + 1, sizeof(*arr), 0);
	if (!arr) {
		psym_err_set(e, PSYM_ENOMEM, "out of memory");
		return NULL;
	}
	g->all = arr;
	x = calloc(1, sizeof(*x) + len + 1);
	if (!x || psym_idxset_add(&g->tab, (uint32_t)g->n, h, key_rehash, g)) {
		free(x);
		psym_err_set(e, PSYM_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(x->key, key, len + 1);
	pthread_mutex_init(&x->mu, NULL);
	x->g = g;
	g->all[g->n++] = x;
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
			struct psym_regentry *closed;

			/* Only opened resolvers count against the cap. */
			pthread_mutex_lock(&g->mu);
			push_front(g, x);
			x->serial = ++g->opens;
			g->reopened += again;
			closed = evict(g, x);
			pthread_mutex_unlock(&g->mu);
			close_evicted(closed);
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
