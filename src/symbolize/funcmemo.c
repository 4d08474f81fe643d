/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "builder.h"
#include "funcmemo.h"

struct slot {
	const char *name, *linkage_name, *file;
	int64_t start_line;
	uint64_t id; /* 0: empty */
};

#define STRMEMO 4096 /* a power of two */
#define LASTMEMO 16  /* frames counted from the outermost */

struct psym_funcmemo {
	struct slot *slot;
	size_t cap, n; /* cap: a power of two */
	uint32_t now;  /* the object being resolved (psym_funcmemo_next_object) */
	struct {
		const char *p;
		int64_t ix;
		uint32_t gen;
	} str[STRMEMO];
	struct {
		struct slot s;
		uint32_t gen;
	} last[LASTMEMO];
};

/* Grows to this many entries at most; later functions are not remembered. */
#define MEMO_MAX_ENTRIES ((size_t)1 << 24)

struct psym_funcmemo *psym_funcmemo_new(void)
{
	struct psym_funcmemo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = 1024;
	m->slot = calloc(m->cap, sizeof(*m->slot));
	if (!m->slot) {
		free(m);
		return NULL;
	}
	return m;
}

void psym_funcmemo_free(struct psym_funcmemo *m)
{
	if (!m)
		return;
	free(m->slot);
	free(m);
}

static size_t hash4(const char *name, const char *linkage_name, const char *file,
		    int64_t start_line)
{
	uint64_t h = (uintptr_t)name * 0x9e3779b97f4a7c15ULL;

	h ^= (uintptr_t)linkage_name * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uintptr_t)file * 0x165667b19e3779f9ULL;
	h ^= (uint64_t)start_line * 0xff51afd7ed558ccdULL;
	return (size_t)(h ^ (h >> 31));
}

static bool same(const struct slot *s, const struct psym_frame *f)
{
	return s->name == f->name && s->linkage_name == f->linkage_name && s->file == f->file &&
	       s->start_line == f->start_line;
}

void psym_funcmemo_next_object(struct psym_funcmemo *m)
{
	if (m)
		m->now++; /* 0 is never current: calloc'd entries never match */
}

static void set_last(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth, uint64_t id)
{
	if (depth >= LASTMEMO)
		return;
	m->last[depth].s = (struct slot){ f->name, f->linkage_name, f->file, f->start_line, id };
	m->last[depth].gen = m->now;
}

uint64_t psym_funcmemo_get(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth)
{
	if (!m)
		return 0;
	if (depth < LASTMEMO && m->last[depth].gen == m->now && same(&m->last[depth].s, f))
		return m->last[depth].s.id;
	for (size_t j = hash4(f->name, f->linkage_name, f->file, f->start_line) & (m->cap - 1);
	     m->slot[j].id; j = (j + 1) & (m->cap - 1))
		if (same(&m->slot[j], f)) {
			set_last(m, f, depth, m->slot[j].id);
			return m->slot[j].id;
		}
	return 0;
}

int64_t psym_funcmemo_str(struct psym_funcmemo *m, struct psym_builder *b, const char *s)
{
	size_t k = (size_t)(((uintptr_t)s >> 4) ^ ((uintptr_t)s >> 16)) & (STRMEMO - 1);
	int64_t ix;

	if (m && m->str[k].p == s && m->str[k].gen == m->now)
		return m->str[k].ix;
	ix = psym_builder_str(b, s);
	if (m && ix >= 0) {
		m->str[k].p = s;
		m->str[k].ix = ix;
		m->str[k].gen = m->now;
	}
	return ix;
}

static void insert(struct slot *tab, size_t cap, const struct slot *s)
{
	size_t j = hash4(s->name, s->linkage_name, s->file, s->start_line) & (cap - 1);

	while (tab[j].id)
		j = (j + 1) & (cap - 1);
	tab[j] = *s;
}

void psym_funcmemo_put(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth,
		       uint64_t id)
{
	if (!m || !id)
		return;
	set_last(m, f, depth, id);
	if (m->n >= MEMO_MAX_ENTRIES)
		return;
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap * 2;
		struct slot *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slot[i].id)
				insert(ns, ncap, &m->slot[i]);
		free(m->slot);
		m->slot = ns;
		m->cap = ncap;
	}
	insert(m->slot, m->cap,
	       &(struct slot){ f->name, f->linkage_name, f->file, f->start_line, id });
	m->n++;
}
