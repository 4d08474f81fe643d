/* SPDX-License-Identifier: MIT */
/*
 * The registry opens each key once (also under threads), remembers
 * "not found" with its reason, and retries after an error; with many keys
 * it stays linear (200,000 distinct keys, the hostile-mappings case).
 * An object closed for the cap is finished before it is destroyed (issue
 * 49: its index policy and answer cache ran only for objects still open
 * at the end), also under threads.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "tap.h"

struct counting {
	struct psym_resolver base;
	int id;
	bool finished;
	char name[32];
};

/* unfinished: resolvers destroyed without finish. */
static int opens, destroys, finishes, unfinished;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void destroy(struct psym_resolver *r)
{
	pthread_mutex_lock(&mu);
	destroys++;
	unfinished += !((struct counting *)r)->finished;
	pthread_mutex_unlock(&mu);
	free(r);
}

static void finish(struct psym_resolver *r)
{
	pthread_mutex_lock(&mu);
	finishes++;
	((struct counting *)r)->finished = true;
	pthread_mutex_unlock(&mu);
}

static void describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct counting *c = (struct counting *)r;

	snprintf(c->name, sizeof(c->name), "counting %d", c->id);
	psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_BINARY, .path = c->name });
}

static const struct psym_resolver_ops ops = {
	.kind = "test", .describe = describe, .finish = finish, .destroy = destroy
};

/* ud: 0 found, 1 not found, 2 error. */
static int open_fn(void *ud, struct psym_resolver **out, struct psym_reason *why,
		   struct psym_err *e)
{
	int mode = *(int *)ud;
	struct counting *c;

	pthread_mutex_lock(&mu);
	opens++;
	pthread_mutex_unlock(&mu);
	if (mode == 1) {
		psym_reason_set(why, PSYM_R_NOT_FOUND, "'%s': not found", "x");
		return PSYM_NOENT;
	}
	if (mode == 2)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	c = calloc(1, sizeof(*c));
	c->base.ops = &ops;
	c->id = opens;
	*out = &c->base;
	return 0;
}

static struct psym_registry *shared;

static void *worker(void *arg)
{
	int found = 0;

	(void)arg;
	for (int i = 0; i < 1000; i++) {
		struct psym_regentry *x;
		struct psym_err e = { 0 };
		char key[32];

		snprintf(key, sizeof(key), "k%d", i % 50);
		if (psym_registry_get(shared, key, open_fn, &found, &x, &e) == 0)
			psym_regentry_release(x);
	}
	return NULL;
}

int main(void)
{
	struct psym_registry *g = psym_registry_new(0);
	struct psym_regentry *x;
	struct psym_err e = { 0 };
	int found = 0, missing = 1, failing = 2;
	pthread_t t[4];
	struct psym_resdesc d = { 0 };
	struct psym_reason why = { 0 };

	ok(psym_registry_get(g, "a", open_fn, &found, &x, &e) == 0, "get a new key");
	ok(psym_regentry_resolver(x) != NULL, "it has a resolver");
	psym_resolver_describe(psym_regentry_resolver(x), &d);
	is_str(d.n ? d.item[0].path : NULL, "counting 1",
	       "the resolver answers through the interface");
	psym_regentry_release(x);
	ok(psym_registry_get(g, "a", open_fn, &found, &x, &e) == 0, "get it again");
	psym_regentry_release(x);
	is_int(opens, 1, "opened once");

	ok(psym_registry_get(g, "b", open_fn, &missing, &x, &e) == 0,
	   "a missing object is no error");
	ok(psym_regentry_resolver(x) == NULL, "no resolver");
	psym_regentry_reason(x, &why);
	is_int((int)why.code, PSYM_R_NOT_FOUND, "with its reason");
	is_str(psym_reason_text(&why), "'x': not found", "reason text");
	psym_regentry_release(x);
	ok(psym_registry_get(g, "b", open_fn, &found, &x, &e) == 0 &&
		   psym_regentry_resolver(x) == NULL,
	   "not found is remembered for the registry's life");
	psym_regentry_release(x);
	is_int(opens, 2, "not reopened");

	ok(psym_registry_get(g, "c", open_fn, &failing, &x, &e) == PSYM_ENOMEM,
	   "an error is returned");
	ok(psym_registry_get(g, "c", open_fn, &found, &x, &e) == 0 && psym_regentry_resolver(x),
	   "and retried on the next get");
	psym_regentry_release(x);

	/* Many distinct keys: linear, and every one kept. */
	opens = 0;
	for (int i = 0; i < 200000; i++) {
		char key[32];

		snprintf(key, sizeof(key), "/lib/m%d.so\n%x", i, i);
		if (psym_registry_get(g, key, open_fn, &missing, &x, &e) != 0)
			break;
		psym_regentry_release(x);
	}
	is_int(opens, 200000, "200,000 distinct keys opened once each");
	psym_registry_free(g);
	is_int(destroys, 2, "free destroys every resolver");

	/* Four threads on 50 keys: each opened exactly once. */
	opens = destroys = finishes = unfinished = 0;
	shared = psym_registry_new(0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	is_int(opens, 50, "threads: each key opened once");
	psym_registry_free(shared);
	is_int(destroys, 50, "threads: each resolver destroyed once");

	/* A cap of 3 open objects: the least recently used are closed. */
	opens = destroys = finishes = unfinished = 0;
	g = psym_registry_new(0);
	psym_registry_set_max_open(g, 3);
	for (int i = 0; i < 5; i++) {
		char key[8];

		snprintf(key, sizeof(key), "o%d", i);
		if (psym_registry_get(g, key, open_fn, &found, &x, &e) == 0)
			psym_regentry_release(x);
	}
	is_int(opens, 5, "cap: five objects opened");
	is_int(destroys, 2, "cap: the two least recently used closed");
	is_int(finishes, 2, "cap: ... each finished (its run is over)");
	is_int(unfinished, 0, "cap: ... before it was destroyed");
	ok(psym_registry_get(g, "o4", open_fn, &found, &x, &e) == 0 && psym_regentry_resolver(x),
	   "cap: a recent one is still open");
	is_int((int)psym_regentry_serial(x), 5, "cap: the fifth opening");
	psym_regentry_release(x);
	is_int(opens, 5, "cap: ... without opening it again");
	ok(psym_registry_get(g, "o0", open_fn, &found, &x, &e) == 0 && psym_regentry_resolver(x),
	   "cap: a closed one is opened again when asked for");
	is_int(opens, 6, "cap: ... once");
	/* Its strings may now sit where another's were: a new serial says so. */
	is_int((int)psym_regentry_serial(x), 6, "cap: opened again under a serial of its own");
	is_int((int)psym_registry_reopened(g), 1, "cap: counted as reopened");
	{
		struct psym_regentry *y;

		/* o0 is held: opening more closes others, never the held one. */
		for (int i = 5; i < 9; i++) {
			char key[8];

			snprintf(key, sizeof(key), "o%d", i);
			if (psym_registry_get(g, key, open_fn, &found, &y, &e) == 0)
				psym_regentry_release(y);
		}
		ok(psym_regentry_resolver(x) != NULL, "cap: a held object is never closed");
		psym_regentry_release(x);
	}
	ok(psym_registry_get(g, "o9", open_fn, &missing, &x, &e) == 0 && !psym_regentry_resolver(x),
	   "cap: a missing object");
	psym_regentry_release(x);
	psym_registry_free(g);
	is_int(opens - destroys, 1, "cap: every opened object destroyed once (o9 has none)");

	/* Threads under a cap smaller than the keys: no deadlock, no double free. */
	opens = destroys = finishes = unfinished = 0;
	shared = psym_registry_new(0);
	psym_registry_set_max_open(shared, 7);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ok(opens > 50, "threads under a cap: objects reopened (%d opens)", opens);
	is_int(unfinished, 0, "threads under a cap: each one closed was finished first");
	psym_registry_free(shared);
	is_int(opens - destroys, 0, "threads under a cap: each open destroyed once");
	psym_registry_free(NULL);
	return tap_done();
}
