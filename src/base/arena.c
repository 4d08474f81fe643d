/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "error.h"

struct psym_arena_chunk {
	struct psym_arena_chunk *next;
	size_t size; /* usable bytes in data[] */
	size_t pos;
	bool own; /* made for one block, which fills it: nothing else lives here */
	_Alignas(16) unsigned char data[];
};

#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNK_MAX ((size_t)16 << 20)

static void *pbc_alloc(void *ud, size_t n)
{
	return psym_arena_alloc(ud, n);
}

/*
 * Everything is freed with the arena, except blocks that got a chunk of
 * their own (own: a chunk that was filled later by other blocks, its
 * first one freed, would lose them): protobuf-c frees its scratch (the table of a message's scanned
 * fields, 32 bytes a field: tens of MB for a profile of a million
 * locations) as soon as it has unpacked, and that memory goes back now.
 */
static void pbc_free(void *ud, void *p)
{
	struct psym_arena *a = ud;

	for (struct psym_arena_chunk **pp = &a->head; p && *pp; pp = &(*pp)->next) {
		struct psym_arena_chunk *c = *pp;

		if (c->data != p)
			continue;
		if (c->own) {
			*pp = c->next;
			a->used -= c->size;
			free(c);
		}
		return;
	}
}

void psym_arena_init(struct psym_arena *a, size_t cap)
{
	memset(a, 0, sizeof(*a));
	a->cap = cap ? cap : PSYM_ARENA_DEFAULT_CAP;
	a->pbc.alloc = pbc_alloc;
	a->pbc.free = pbc_free;
	a->pbc.allocator_data = a;
}

void psym_arena_free(struct psym_arena *a)
{
	struct psym_arena_chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->used = 0;
}

void psym_arena_reset(struct psym_arena *a)
{
	struct psym_arena_chunk *c, *next;

	if (!a->head)
		return;
	for (c = a->head->next; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head->next = NULL;
	a->head->pos = 0;
	a->head->own = false;
	a->used = a->head->size;
}

void *psym_arena_alloc(struct psym_arena *a, size_t n)
{
	struct psym_arena_chunk *c = a->head;
	size_t want, sz;
	void *p;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - 32)
		goto over;
	n = (n + 15) & ~(size_t)15;
	if (c && c->size - c->pos >= n) {
		p = c->data + c->pos;
		c->pos += n;
		return p;
	}
	/* Chunks grow with the arena, up to CHUNK_MAX; big requests get their own. */
	sz = a->used / 4;
	if (sz < CHUNK_MIN)
		sz = CHUNK_MIN;
	if (sz > CHUNK_MAX)
		sz = CHUNK_MAX;
	want = n > sz ? n : sz;
	if (want > a->cap || a->used > a->cap - want) {
		if (n <= a->cap && a->used <= a->cap - n)
			want = n;
		else
			goto over;
	}
	c = malloc(sizeof(*c) + want);
	if (!c) {
		a->oom = true;
		return NULL;
	}
	c->size = want;
	c->pos = n;
	c->own = n == want;
	a->used += want;
	if (a->head && n == want) {
		/* A dedicated block: keep the current chunk in front. */
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = a->head;
		a->head = c;
	}
	return c->data;
over:
	a->over_limit = true;
	return NULL;
}

void *psym_arena_calloc(struct psym_arena *a, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		a->over_limit = true;
		return NULL;
	}
	p = psym_arena_alloc(a, n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

char *psym_arena_strndup(struct psym_arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = psym_arena_alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *psym_arena_strdup(struct psym_arena *a, const char *s)
{
	return psym_arena_strndup(a, s, strlen(s));
}

char *psym_arena_printf(struct psym_arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = psym_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

int psym_arena_grow(struct psym_arena *a, void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return PSYM_ELIMIT;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return PSYM_ELIMIT;
	p = psym_arena_alloc(a, ncap * elem);
	if (!p)
		return psym_arena_error(a);
	if (*arr && *cap)
		memcpy(p, *arr, *cap * elem);
	*arr = p;
	*cap = ncap;
	return 0;
}

int psym_arena_error(const struct psym_arena *a)
{
	return a->over_limit ? PSYM_ELIMIT : PSYM_ENOMEM;
}
