/* SPDX-License-Identifier: MIT */
/*
 * Decoding ahead, on several threads: every CU that holds one of the
 * addresses a caller is about to look up.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "lookup.h"
#include "unit.h"

struct prep {
	struct psym_dwarf *d;
	const uint32_t *todo; /* CU indexes */
	size_t n;
	pthread_mutex_t mu; /* next and the first error */
	size_t next;
	struct psym_err first;
};

static void *prepare_worker(void *arg)
{
	struct prep *p = arg;

	for (;;) {
		struct psym_err e = { 0 };
		size_t i;
		int ret;

		pthread_mutex_lock(&p->mu);
		i = p->first.code == PSYM_ENOMEM ? p->n : p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			break;
		/* Each CU is decoded by one thread; what CUs share is locked inside. */
		ret = dw_decode_cu(p->d, &p->d->cus[p->todo[i]], &e);
		if (ret) {
			pthread_mutex_lock(&p->mu);
			if (!p->first.code || ret == PSYM_ENOMEM)
				p->first = e;
			pthread_mutex_unlock(&p->mu);
		}
	}
	return NULL;
}

int psym_dwarf_prepare(struct psym_dwarf *d, const uint64_t *addrs, size_t n, struct psym_err *e)
{
	struct prep p = { .d = d };
	pthread_t th[8];
	unsigned started = 0;
	uint32_t cands[MAX_CU_CANDIDATES];
	uint32_t *todo;
	uint8_t *want;
	size_t ntodo = 0;

	if (!d->ncus)
		return 0;
	want = calloc(d->ncus, 1);
	todo = malloc(d->ncus * sizeof(*todo));
	if (!want || !todo) {
		free(want);
		free(todo);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = dw_find_cus(d, addrs[i], cands);

		/* Overlapping CUs: all candidates (lookups take the first that knows). */
		for (size_t j = 0; j < k; j++)
			if (!d->cus[cands[j]].decoded && !want[cands[j]]) {
				want[cands[j]] = 1;
				todo[ntodo++] = cands[j];
			}
	}
	free(want);
	p.todo = todo;
	p.n = ntodo;
	pthread_mutex_init(&p.mu, NULL);
	/* This thread works too; helpers only when there is more than one CU. */
	for (unsigned t = 1; t < d->o.threads && t < ntodo; t++)
		if (pthread_create(&th[started], NULL, prepare_worker, &p) == 0)
			started++;
	prepare_worker(&p);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&p.mu);
	free(todo);
	if (p.first.code) {
		*e = p.first;
		if (p.first.code == PSYM_ENOMEM)
			return PSYM_ENOMEM;
	}
	return 0;
}
