/* SPDX-License-Identifier: MIT */
/* psym addr's answers made in address order (addr_order.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "addr_order.h"

#define TEXT_MAX ((size_t)4 << 20) /* bytes of kept input text in one chunk */

#define STAGE ((size_t)256 << 10) /* the answers go out in writes of this size */

/* An input's answer in out, by its place. */
struct input {
	size_t out, len;
};

/*
 * An input as sorted: what answering it reads (its key, line, text as an
 * offset in the chunk's text), and its place. Read in key order, one after
 * the other: a field by place (in[idx]) cost a cache miss an input.
 */
struct order {
	uint64_t key;
	size_t lineno;
	uint32_t text;
	uint32_t idx : 31;
	uint32_t overlong : 1;
};

struct addr_order {
	struct input *in;
	struct order *ord, *tmp; /* tmp: the sort's copy */
	uint64_t *keys, *ktmp;	 /* the sort's keys and scratch */
	unsigned ibits;		 /* bits of a place in the chunk */
	size_t n, max;
	char *text;
	size_t tlen, tcap;
	char *out; /* the answers, in key order */
	size_t olen, ocap;
	bool nomem; /* out could not grow */
};

struct addr_order *addr_order_new(size_t max)
{
	struct addr_order *q = calloc(1, sizeof(*q));

	if (q && (!(q->in = calloc(max ? max : 1, sizeof(*q->in))) ||
		  !(q->ord = calloc(max ? max : 1, sizeof(*q->ord))) ||
		  !(q->tmp = calloc(max ? max : 1, sizeof(*q->tmp))) ||
		  !(q->keys = calloc(max ? max : 1, sizeof(*q->keys))) ||
		  !(q->ktmp = calloc(max ? max : 1, sizeof(*q->ktmp))))) {
		addr_order_free(q);
		return NULL;
	}
	if (q) {
		q->max = max ? max : 1;
		while (q->ibits < 32 && ((size_t)1 << q->ibits) < q->max)
			q->ibits++;
	}
	return q;
}

void addr_order_free(struct addr_order *q)
{
	if (!q)
		return;
	free(q->in);
	free(q->ord);
	free(q->tmp);
	free(q->keys);
	free(q->ktmp);
	free(q->text);
	free(q->out);
	free(q);
}

bool addr_order_add(struct addr_order *q, const char *text, size_t lineno, bool overlong,
		    uint64_t key)
{
	size_t len = strlen(text) + 1;

	if (q->n == q->max || q->n >= INT32_MAX || len > TEXT_MAX - q->tlen)
		return false;
	if (q->tlen + len > q->tcap) {
		size_t cap = q->tcap ? q->tcap : 4096;
		char *t;

		while (cap < q->tlen + len)
			cap *= 2;
		if (!(t = realloc(q->text, cap)))
			return false;
		q->text = t;
		q->tcap = cap;
	}
	memcpy(q->text + q->tlen, text, len);
	q->ord[q->n] = (struct order){
		.key = key,
		.lineno = lineno,
		.text = (uint32_t)q->tlen,
		.idx = (uint32_t)q->n,
		.overlong = overlong,
	};
	q->tlen += len;
	q->n++;
	return true;
}

static int by_key(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The kept inputs in key order, ties in input order: by psym's radix sort
 * (sort.h) of the keys less the lowest, each with its place in the low
 * bits, when they fit beside it (a binary's addresses do); else qsort.
 */
static void sort_by_key(struct addr_order *q)
{
	uint64_t lo = UINT64_MAX, hi = 0, mask = ((uint64_t)1 << q->ibits) - 1;

	for (size_t i = 0; i < q->n; i++) {
		lo = q->ord[i].key < lo ? q->ord[i].key : lo;
		hi = q->ord[i].key > hi ? q->ord[i].key : hi;
	}
	if (q->n < 2)
		return;
	if ((hi - lo) >> (64 - q->ibits)) {
		qsort(q->ord, q->n, sizeof(*q->ord), by_key);
		return;
	}
	for (size_t i = 0; i < q->n; i++)
		q->keys[i] = (q->ord[i].key - lo) << q->ibits | i;
	psym_sort_u64_with(q->keys, q->n, q->ibits, q->ktmp);
	for (size_t i = 0; i < q->n; i++)
		q->tmp[i] = q->ord[q->keys[i] & mask];
	memcpy(q->ord, q->tmp, q->n * sizeof(*q->ord));
}

/* The answers' stream writes here: onto the end of q->out, kept from chunk to chunk. */
static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
	struct addr_order *q = cookie;

	if (len > q->ocap - q->olen) {
		size_t cap = q->ocap ? q->ocap : 65536;
		char *o;

		while (cap - q->olen < len && cap <= SIZE_MAX / 2)
			cap *= 2;
		if (cap - q->olen < len || !(o = realloc(q->out, cap))) {
			q->nomem = true;
			return -1;
		}
		q->out = o;
		q->ocap = cap;
	}
	memcpy(q->out + q->olen, buf, len);
	q->olen += len;
	return (ssize_t)len;
}

/* The answers in input order, gathered into writes of STAGE bytes. */
static void write_in_order(struct addr_order *q, FILE *out)
{
	char *stage = malloc(STAGE);
	size_t used = 0;

	for (size_t i = 0; i < q->n && !ferror(out); i++) {
		const char *a = q->out + q->in[i].out;
		size_t len = q->in[i].len;

		if (!stage || len > STAGE) {
			fwrite(stage, 1, used, out);
			used = 0;
			fwrite(a, 1, len, out);
			continue;
		}
		if (len > STAGE - used) {
			fwrite(stage, 1, used, out);
			used = 0;
		}
		memcpy(stage + used, a, len);
		used += len;
	}
	if (used)
		fwrite(stage, 1, used, out);
	free(stage);
}

void addr_order_flush(struct addr_order *q, addr_answer_fn fn, void *ud, FILE *out)
{
	static const cookie_io_functions_t io = { .write = out_write };
	FILE *ms = q->n ? fopencookie(q, "w", io) : NULL;
	char fbuf[16384];

	q->olen = 0;
	q->nomem = false;
	if (!ms) {
		/* No memory to reorder: in input order, as they came. */
		for (size_t i = 0; i < q->n; i++)
			fn(ud, q->text + q->ord[i].text, q->ord[i].lineno, q->ord[i].overlong,
			   q->ord[i].key, out);
		q->n = q->tlen = 0;
		return;
	}
	setvbuf(ms, fbuf, _IOFBF, sizeof(fbuf));
	sort_by_key(q);
	for (size_t k = 0; k < q->n; k++) {
		const struct order *o = &q->ord[k];
		size_t start = q->olen;

		fn(ud, q->text + o->text, o->lineno, o->overlong, o->key, ms);
		fflush(ms);
		q->in[o->idx].out = start;
		q->in[o->idx].len = q->olen - start;
	}
	if (fclose(ms) == 0 && !q->nomem)
		write_in_order(q, out);
	else
		fputs("psym: out of memory for the answers\n", stderr);
	q->n = q->tlen = 0;
}
