/* SPDX-License-Identifier: MIT */
/* The located-object table (objtab.h). */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "buildid.h"
#include "hashtab.h"
#include "objtab.h"

/* Candidates recorded per object: a hostile search path cannot grow it without bound. */
#define MAX_TRIED 256

struct psym_objtab {
	pthread_mutex_t mu;
	struct psym_hashtab by_key;
	struct psym_located **x; /* in the order added */
	size_t n, cap, max;
	size_t held, max_held; /* located files open in the table, and the cap */
};

struct psym_objtab *psym_objtab_new(size_t max)
{
	struct psym_objtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_init(&t->mu, NULL);
	psym_hashtab_init(&t->by_key, max);
	t->max = max;
	t->max_held = PSYM_OBJTAB_DEFAULT_HELD;
	return t;
}

void psym_objtab_set_max_held(struct psym_objtab *t, size_t max_held)
{
	t->max_held = max_held ? max_held : 1;
}

static void free_entry(struct psym_located *x)
{
	for (size_t i = 0; i < x->ntried; i++) {
		free(x->tried[i].path);
		free(x->tried[i].verdict);
	}
	free(x->tried);
	psym_elf_close(x->elf);
	free((char *)x->path);
	free((char *)x->build_id);
	free((char *)x->named);
	free((char *)x->key);
	free((char *)x->file);
	free(x);
}

void psym_objtab_free(struct psym_objtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free_entry(t->x[i]);
	free(t->x);
	psym_hashtab_free(&t->by_key);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

enum psym_map_class psym_objkey_classify(const char *name, char *clean, size_t cleansz)
{
	bool deleted;

	return psym_mapping_classify(name, clean, cleansz, &deleted);
}

/* The one key string: what makes two mappings the same object. */
static char *key_string(enum psym_map_class cls, const char *path, const char *bid,
			const char *named)
{
	char *key;

	if (asprintf(&key, "%d\n%s\n%s\n%s", (int)cls, named ? named : "", path, bid) < 0)
		return NULL;
	/* Build IDs compare in any case. */
	psym_build_id_lower(key + strlen(key) - strlen(bid));
	return key;
}

int psym_objtab_add(struct psym_objtab *t, enum psym_map_class cls, const char *path,
		    const char *build_id, const char *named, struct psym_located **out,
		    struct psym_err *e)
{
	struct psym_located *x = NULL, **arr;
	void *v;
	char *key;
	int ret;

	if (cls != PSYM_MAP_FILE || !path)
		path = "";
	if (!build_id)
		build_id = "";
	key = key_string(cls, path, build_id, named);
	if (!key)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	pthread_mutex_lock(&t->mu);
	if (psym_hashtab_get(&t->by_key, key, strlen(key), &v) == 0) {
		free(key);
		*out = v;
		ret = 0;
		goto unlock;
	}
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	x = calloc(1, sizeof(*x));
	if (!x)
		goto fail;
	x->cls = cls;
	x->key = key;
	x->path = strdup(path);
	x->build_id = strdup(build_id);
	x->named = named ? strdup(named) : NULL;
	if (!x->path || !x->build_id || (named && !x->named))
		goto fail;
	arr = psym_array_grow(t->x, &t->cap, t->n + 1, sizeof(*arr), 0);
	if (!arr)
		goto fail;
	t->x = arr;
	ret = psym_hashtab_put(&t->by_key, x->key, strlen(x->key), x, e);
	if (ret)
		goto fail;
	t->x[t->n++] = x;
	*out = x;
	ret = 0;
	e->code = 0;
	e->msg[0] = '\0';
	goto unlock;
fail:
	if (x)
		free_entry(x);
	else
		free(key);
unlock:
	pthread_mutex_unlock(&t->mu);
	return ret;
}

/* The locator's explain callback: every candidate goes into the entry. */
static void record(void *ud, const char *path, const char *verdict)
{
	struct psym_located *x = ud;
	struct psym_objtab_try *p;
	size_t cap = x->ntried;

	if (x->ntried == MAX_TRIED)
		return;
	p = psym_array_grow(x->tried, &cap, x->ntried + 1, sizeof(*p), MAX_TRIED);
	if (!p)
		return;
	x->tried = p;
	p[x->ntried].path = strdup(path);
	p[x->ntried].verdict = strdup(verdict);
	if (!p[x->ntried].path || !p[x->ntried].verdict) {
		free(p[x->ntried].path);
		free(p[x->ntried].verdict);
		return;
	}
	x->ntried++;
}

static const struct psym_locate_opts no_locate;

static int locate_entry(struct psym_objtab *t, struct psym_located *x,
			const struct psym_locate_opts *lo, struct psym_err *e)
{
	struct psym_locate_opts o = lo ? *lo : no_locate;
	struct psym_objkey k = {
		.path = x->path,
		.build_id = *x->build_id ? x->build_id : NULL,
		.named = x->named,
	};
	int ret;

	o.explain = record;
	o.explain_ud = x;
	memset(&x->why, 0, sizeof(x->why));
	switch (x->cls) {
	case PSYM_MAP_FILE: ret = psym_locate_binary(&o, &k, &x->elf, &x->why, e); break;
	case PSYM_MAP_VDSO: ret = psym_locate_vdso(&o, &x->elf, &x->why, e); break;
	default:
		/* Located by its resolver when opened (objtab.h). */
		ret = 0;
		break;
	}
	if (ret < 0)
		return ret; /* not remembered: the next pass tries again */
	x->located = true;
	x->status = ret;
	if (x->elf) {
		x->file = strdup(psym_elf_path(x->elf));
		if (!x->file)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if (t->held < t->max_held) {
			t->held++;
		} else {
			psym_elf_close(x->elf); /* opened again when taken */
			x->elf = NULL;
		}
	}
	return 0;
}

int psym_objtab_locate_one(struct psym_objtab *t, struct psym_located *x,
			   const struct psym_locate_opts *lo, struct psym_err *e)
{
	int ret = 0;

	pthread_mutex_lock(&t->mu);
	if (!x->located)
		ret = locate_entry(t, x, lo, e);
	pthread_mutex_unlock(&t->mu);
	return ret;
}

int psym_objtab_locate(struct psym_objtab *t, const struct psym_locate_opts *lo, struct psym_err *e)
{
	int ret = 0;

	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->n && !ret; i++)
		if (!t->x[i]->located)
			ret = locate_entry(t, t->x[i], lo, e);
	pthread_mutex_unlock(&t->mu);
	return ret;
}

int psym_objtab_take_elf(struct psym_objtab *t, struct psym_located *x,
			 const struct psym_elf_limits *lim, struct psym_elf **out,
			 struct psym_reason *why, struct psym_err *e)
{
	int ret = 0;

	*out = NULL;
	pthread_mutex_lock(&t->mu);
	if (!x->located || x->status) {
		*why = x->why;
		ret = x->located ? x->status : PSYM_NOENT;
	} else if (!x->taken && x->elf) {
		*out = x->elf;
		x->elf = NULL;
		x->taken = true;
		t->held--;
	} else if (x->file) {
		ret = psym_elf_open(x->file, lim, out, e);
	} else {
		psym_reason_set(why, PSYM_R_NOT_FOUND, "not a file");
		ret = PSYM_NOENT;
	}
	pthread_mutex_unlock(&t->mu);
	return ret;
}

struct psym_elf *psym_objtab_elf(struct psym_located *x)
{
	return x->elf;
}

size_t psym_objtab_count(const struct psym_objtab *t)
{
	return t->n;
}

struct psym_located *psym_objtab_at(struct psym_objtab *t, size_t i)
{
	return i < t->n ? t->x[i] : NULL;
}
