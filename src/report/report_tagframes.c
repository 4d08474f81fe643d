/* SPDX-License-Identifier: MIT */
/*
 * pprof's -tagroot and -tagleaf: each sample gets one pseudo frame per
 * label key, above its root or below its leaf, named by the sample's
 * values of that label (string values, then numeric ones scaled as
 * pprof's measurement.ScaledLabel writes them, joined by ","; "" when
 * the sample has none) with the key as its file. Frames of equal name and
 * key share one function and one location (no mapping, no address), with
 * ids after the profile's largest, in the order first met: the profile
 * then reads as pprof's does after its driver's addLabelNodes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define MAX_KEYS 64
#define MAX_VALUE 4096 /* bytes of one pseudo frame's name */

struct tagframes {
	struct psym_profile *p;
	struct psym_hashtab locs; /* "name\0key" -> new location index + 1 */
	struct psym_hashtab strs; /* new string -> its index + 1 */
	pb_location **loc;	  /* the new locations and functions */
	pb_function **fn;
	size_t n, cap;
	char **st; /* new strings */
	size_t nst, stcap;
	uint64_t next_loc, next_fn;
	char buf[MAX_VALUE]; /* one frame's name */
};

/* KEYS (comma-separated, empties dropped) into keys[]; the count. */
static size_t split_keys(char *s, const char **keys)
{
	size_t n = 0;

	for (char *k = strtok(s, ","); k && n < MAX_KEYS; k = strtok(NULL, ","))
		keys[n++] = k;
	return n;
}

static const char *pstr(const pb_profile *pb, int64_t i)
{
	return i > 0 && (size_t)i < pb->n_string_table ? pb->string_table[i] : "";
}

/* pprof's formatLabelValues for key k of s, joined by ",", into buf. */
static bool label_values(const pb_profile *pb, const pb_sample *s, const char *k, char *buf,
			 size_t sz)
{
	size_t o = 0;
	bool any = false, units = false;

	buf[0] = '\0';
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->n_label; i++) {
			const pb_label *l = s->label[i];
			char v[64];
			const char *val = v;

			if (strcmp(pstr(pb, l->key), k))
				continue;
			if (pass == 0 && l->str) {
				val = pstr(pb, l->str);
			} else if (pass == 1 && !l->str && (l->num || l->num_unit)) {
				psym_rpt_scaled_label(v, sizeof(v), l->num, pstr(pb, l->num_unit),
						      units ? "minimum" : "");
			} else {
				if (pass == 0 && !l->str && l->num_unit)
					units = true; /* pprof pads the others with "" */
				continue;
			}
			o += (size_t)snprintf(buf + (o < sz ? o : sz), o < sz ? sz - o : 0, "%s%s",
					      any ? "," : "", val);
			any = true;
		}
	}
	if (o >= sz)
		buf[sz - 1] = '\0';
	return any;
}

/* The index of string s in the profile, added after the table if new; -1: no memory. */
static int64_t intern(struct tagframes *t, const char *s, struct psym_err *e)
{
	void *v;
	char *c;

	if (!s[0])
		return 0;
	if (!psym_hashtab_get(&t->strs, s, strlen(s), &v))
		return (int64_t)(uintptr_t)v - 1;
	if (t->nst == t->stcap) {
		size_t nc = t->stcap ? t->stcap * 2 : 64;
		char **ns = realloc(t->st, nc * sizeof(*ns));

		if (!ns)
			return -1;
		t->st = ns;
		t->stcap = nc;
	}
	c = psym_arena_strdup(&t->p->arena, s);
	if (!c)
		return -1;
	t->st[t->nst++] = c;
	if (psym_hashtab_put(&t->strs, c, strlen(c),
			     (void *)(uintptr_t)(t->p->pb->n_string_table + t->nst), e))
		return -1;
	return (int64_t)(t->p->pb->n_string_table + t->nst - 1);
}

/* The id of the pseudo location named name with file key; 0: no memory. */
static uint64_t pseudo_loc(struct tagframes *t, const char *name, const char *key,
			   struct psym_err *e)
{
	size_t nl = strlen(name), kl = strlen(key);
	char *hk = psym_arena_alloc(&t->p->arena, nl + kl + 2);
	pb_location *l;
	pb_function *f;
	pb_line *ln;
	void *v;

	if (!hk)
		return 0;
	memcpy(hk, name, nl + 1);
	memcpy(hk + nl + 1, key, kl + 1);
	if (!psym_hashtab_get(&t->locs, hk, nl + kl + 2, &v))
		return t->loc[(uintptr_t)v - 1]->id;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 16;
		pb_location **a = realloc(t->loc, nc * sizeof(*a));
		pb_function **b = a ? realloc(t->fn, nc * sizeof(*b)) : NULL;

		if (a)
			t->loc = a;
		if (!b)
			return 0;
		t->fn = b;
		t->cap = nc;
	}
	l = psym_arena_alloc(&t->p->arena, sizeof(*l));
	f = psym_arena_alloc(&t->p->arena, sizeof(*f));
	ln = psym_arena_alloc(&t->p->arena, sizeof(*ln));
	l = l && f && ln ? l : NULL;
	if (!l)
		return 0;
	*f = (pb_function)PERFTOOLS__PROFILES__FUNCTION__INIT;
	*ln = (pb_line)PERFTOOLS__PROFILES__LINE__INIT;
	*l = (pb_location)PERFTOOLS__PROFILES__LOCATION__INIT;
	f->id = t->next_fn++;
	f->name = intern(t, name, e);
	f->filename = intern(t, key, e);
	if (f->name < 0 || f->filename < 0)
		return 0;
	ln->function_id = f->id;
	l->id = t->next_loc++;
	l->line = psym_arena_alloc(&t->p->arena, sizeof(*l->line));
	if (!l->line)
		return 0;
	l->line[0] = ln;
	l->n_line = 1;
	t->loc[t->n] = l;
	t->fn[t->n] = f;
	if (psym_hashtab_put(&t->locs, hk, nl + kl + 2, (void *)(uintptr_t)(++t->n), e))
		return 0;
	return l->id;
}

/* The pseudo frames of keys for s (in pprof's order) into ids; false: no memory. */
static bool frames(struct tagframes *t, const pb_sample *s, const char **keys, size_t n,
		   uint64_t *ids, bool *match, struct psym_err *e)
{
	for (size_t i = 0; i < n; i++) {
		const char *k = keys[n - 1 - i];

		if (label_values(t->p->pb, s, k, t->buf, sizeof(t->buf)))
			*match = true;
		ids[i] = pseudo_loc(t, t->buf, k, e);
		if (!ids[i])
			return false;
	}
	return true;
}

/* Append t's new strings, functions and locations to the profile's arrays. */
static int commit(struct tagframes *t)
{
	pb_profile *pb = t->p->pb;
	char **st = psym_arena_calloc(&t->p->arena, pb->n_string_table + t->nst, sizeof(*st));
	pb_function **fn = psym_arena_calloc(&t->p->arena, pb->n_function + t->n, sizeof(*fn));
	pb_location **loc = psym_arena_calloc(&t->p->arena, pb->n_location + t->n, sizeof(*loc));

	if (!st || !fn || !loc)
		return PSYM_ENOMEM;
	memcpy(st, pb->string_table, pb->n_string_table * sizeof(*st));
	memcpy(st + pb->n_string_table, t->st, t->nst * sizeof(*st));
	memcpy(fn, pb->function, pb->n_function * sizeof(*fn));
	memcpy(fn + pb->n_function, t->fn, t->n * sizeof(*fn));
	memcpy(loc, pb->location, pb->n_location * sizeof(*loc));
	memcpy(loc + pb->n_location, t->loc, t->n * sizeof(*loc));
	pb->string_table = st;
	pb->n_string_table += t->nst;
	pb->function = fn;
	pb->n_function += t->n;
	pb->location = loc;
	pb->n_location += t->n;
	return 0;
}

static int add_frames(struct tagframes *t, const char **rk, size_t nr, const char **lk, size_t nl,
		      bool *rootm, bool *leafm, struct psym_err *e)
{
	pb_profile *pb = t->p->pb;
	uint64_t ids[2 * MAX_KEYS];

	for (size_t i = 0; i < pb->n_location; i++)
		if (pb->location[i]->id >= t->next_loc)
			t->next_loc = pb->location[i]->id + 1;
	for (size_t i = 0; i < pb->n_function; i++)
		if (pb->function[i]->id >= t->next_fn)
			t->next_fn = pb->function[i]->id + 1;
	for (size_t i = 0; i < pb->n_sample; i++) {
		pb_sample *s = pb->sample[i];
		uint64_t *nid;

		if (!frames(t, s, rk, nr, ids, rootm, e) ||
		    !frames(t, s, lk, nl, ids + nr, leafm, e))
			return PSYM_ENOMEM;
		nid = psym_arena_calloc(&t->p->arena, s->n_location_id + nr + nl + 1, sizeof(*nid));
		if (!nid)
			return PSYM_ENOMEM;
		memcpy(nid, ids + nr, nl * sizeof(*nid));
		memcpy(nid + nl, s->location_id, s->n_location_id * sizeof(*nid));
		memcpy(nid + nl + s->n_location_id, ids, nr * sizeof(*nid));
		s->location_id = nid;
		s->n_location_id += nr + nl;
	}
	return commit(t);
}

int psym_report_tag_frames(struct psym_profile *p, const char *root_keys, const char *leaf_keys,
			   FILE *warn, struct psym_err *e)
{
	struct tagframes *t = calloc(1, sizeof(*t));
	const char *rk[MAX_KEYS], *lk[MAX_KEYS];
	char *rs = strdup(root_keys ? root_keys : ""), *ls = strdup(leaf_keys ? leaf_keys : "");
	size_t nr, nl;
	bool rootm = false, leafm = false;
	int ret;

	if (!t || !rs || !ls) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory adding label frames");
		goto out_free;
	}
	t->p = p;
	t->next_loc = t->next_fn = 1;
	nr = split_keys(rs, rk);
	nl = split_keys(ls, lk);
	psym_hashtab_init(&t->locs, 0);
	psym_hashtab_init(&t->strs, 0);
	ret = add_frames(t, rk, nr, lk, nl, &rootm, &leafm, e);
	if (ret && !e->msg[0])
		psym_err_set(e, ret, "out of memory adding label frames");
	if (!ret)
		ret = psym_profile_index(p, e);
	if (!ret && warn && root_keys && root_keys[0] && !rootm)
		fprintf(warn, "psym: TagRoot expression matched no samples\n");
	if (!ret && warn && leaf_keys && leaf_keys[0] && !leafm)
		fprintf(warn, "psym: TagLeaf expression matched no samples\n");
	psym_hashtab_free(&t->locs);
	psym_hashtab_free(&t->strs);
	free(t->loc);
	free(t->fn);
	free(t->st);
out_free:
	free(t);
	free(rs);
	free(ls);
	return ret;
}
