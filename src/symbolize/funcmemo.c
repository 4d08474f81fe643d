/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "builder.h"
#include "funcmemo.h"
#include "hashtab.h"

struct entry {
	const char *name, *linkage_name, *file;
	int64_t start_line;
	uint64_t obj; /* the object the strings are of (psym_funcmemo_next_object) */
	uint64_t id;  /* never 0 */
};

#define STRMEMO 4096 /* a power of two */
#define LASTMEMO 16  /* frames counted from the outermost */

/*
 * The table: entries in the order remembered, found through an index set
 * (4 + 1 bytes a slot: a million-address run remembers some 100k
 * functions, and slots of whole entries were most of its fresh pages).
 */
struct psym_funcmemo {
	struct entry *ent;
	size_t n, cap; /* entries, and room for them */
	struct psym_idxset set;
	uint32_t now; /* the generation of the object being resolved */
	uint64_t obj; /* and its name (psym_funcmemo_next_object) */
	struct {
		const char *p;
		int64_t ix;
		uint32_t gen;
	} str[STRMEMO];
	struct {
		struct entry s;
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
	psym_idxset_init(&m->set);
	return m;
}

void psym_funcmemo_free(struct psym_funcmemo *m)
{
	if (!m)
		return;
	psym_idxset_free(&m->set);
	free(m->ent);
	free(m);
}

static uint64_t hash5(uint64_t obj, const char *name, const char *linkage_name, const char *file,
		      int64_t start_line)
{
	uint64_t h = (uintptr_t)name * 0x9e3779b97f4a7c15ULL;

	h ^= obj * 0x94d049bb133111ebULL;
	h ^= (uintptr_t)linkage_name * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uintptr_t)file * 0x165667b19e3779f9ULL;
	h ^= (uint64_t)start_line * 0xff51afd7ed558ccdULL;
	return psym_hash_mix(h); /* the index set takes low bits and the top byte */
}

static uint64_t ent_hash(void *ctx, uint32_t i)
{
	const struct entry *s = &((struct psym_funcmemo *)ctx)->ent[i];

	return hash5(s->obj, s->name, s->linkage_name, s->file, s->start_line);
}

static bool same(const struct entry *s, uint64_t obj, const struct psym_frame *f)
{
	return s->obj == obj && s->name == f->name && s->linkage_name == f->linkage_name &&
	       s->file == f->file && s->start_line == f->start_line;
}

void psym_funcmemo_next_object(struct psym_funcmemo *m, uint64_t obj)
{
	if (!m)
		return;
	m->now++; /* 0 is never current: calloc'd entries never match */
	m->obj = obj;
}

static void set_last(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth, uint64_t id)
{
	if (depth >= LASTMEMO)
		return;
	m->last[depth].s =
		(struct entry){ f->name, f->linkage_name, f->file, f->start_line, m->obj, id };
	m->last[depth].gen = m->now;
}

uint64_t psym_funcmemo_get(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth)
{
	if (!m)
		return 0;
	if (depth < LASTMEMO && m->last[depth].gen == m->now && same(&m->last[depth].s, m->obj, f))
		return m->last[depth].s.id;
	{
		uint64_t h = hash5(m->obj, f->name, f->linkage_name, f->file, f->start_line);

		PSYM_IDXSET_PROBE(&m->set, h, j)
		{
			const struct entry *s = &m->ent[m->set.slot[j] - 1];

			if (same(s, m->obj, f)) {
				set_last(m, f, depth, s->id);
				return s->id;
			}
		}
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

void psym_funcmemo_put(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth,
		       uint64_t id)
{
	if (!m || !id)
		return;
	set_last(m, f, depth, id);
	if (m->n >= MEMO_MAX_ENTRIES)
		return;
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		struct entry *ne = realloc(m->ent, ncap * sizeof(*ne));

		if (!ne)
			return;
		m->ent = ne;
		m->cap = ncap;
	}
	m->ent[m->n] =
		(struct entry){ f->name, f->linkage_name, f->file, f->start_line, m->obj, id };
	if (psym_idxset_add(&m->set, (uint32_t)m->n,
			    hash5(m->obj, f->name, f->linkage_name, f->file, f->start_line),
			    ent_hash, m))
		return; /* forgotten */
	m->n++;
}
