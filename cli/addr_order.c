/* SPDX-License-Identifier: MIT */
/* psym addr's answers made in address order (addr_order.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "addr_order.h"

#define TEXT_MAX ((size_t)4 << 20) /* bytes of kept input text in one chunk */

/* An input's answer in the memory stream. */
struct input {
	long out, len;
};

/* An input as kept and sorted (what answering it reads, in the order it is read). */
struct order {
	uint64_t key;
	size_t text, lineno; /* text: offset in the chunk's text */
	uint32_t idx;	     /* its place in the input */
	bool overlong;
};

struct addr_order {
	struct input *in;
	struct order *ord;
	size_t n, max;
	char *text;
	size_t tlen, tcap;
};

struct addr_order *addr_order_new(size_t max)
{
	struct addr_order *q = calloc(1, sizeof(*q));

	if (q && (!(q->in = calloc(max ? max : 1, sizeof(*q->in))) ||
		  !(q->ord = calloc(max ? max : 1, sizeof(*q->ord))))) {
		free(q->in);
		free(q);
		return NULL;
	}
	if (q)
		q->max = max ? max : 1;
	return q;
}

void addr_order_free(struct addr_order *q)
{
	if (!q)
		return;
	free(q->in);
	free(q->ord);
	free(q->text);
	free(q);
}

bool addr_order_add(struct addr_order *q, const char *text, size_t lineno, bool overlong,
		    uint64_t key)
{
	size_t len = strlen(text) + 1;

	if (q->n == q->max || q->n == UINT32_MAX || len > TEXT_MAX - q->tlen)
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
	q->ord[q->n] = (struct order){ .key = key,
				       .text = q->tlen,
				       .lineno = lineno,
				       .idx = (uint32_t)q->n,
				       .overlong = overlong };
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

void addr_order_flush(struct addr_order *q, addr_answer_fn fn, void *ud, FILE *out)
{
	size_t size = 0;
	char *buf = NULL;
	FILE *ms = q->n ? open_memstream(&buf, &size) : NULL;
	long end = 0;

	if (!ms) {
		/* No memory to reorder: in input order, as they came. */
		for (size_t i = 0; i < q->n; i++)
			fn(ud, q->text + q->ord[i].text, q->ord[i].lineno, q->ord[i].overlong, out);
		q->n = q->tlen = 0;
		return;
	}
	qsort(q->ord, q->n, sizeof(*q->ord), by_key);
	for (size_t k = 0; k < q->n; k++) {
		const struct order *o = &q->ord[k];
		long start = end;

		fn(ud, q->text + o->text, o->lineno, o->overlong, ms);
		end = ftell(ms);
		q->in[o->idx] = (struct input){ start, end - start };
	}
	if (fclose(ms) == 0 && buf) {
		for (size_t i = 0; i < q->n && !ferror(out); i++)
			fwrite(buf + q->in[i].out, 1, (size_t)q->in[i].len, out);
	} else {
		fputs("psym: out of memory for the answers\n", stderr);
	}
	free(buf);
	q->n = q->tlen = 0;
}
