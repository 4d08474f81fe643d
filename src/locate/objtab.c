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
#include "search.h"

/* Candidates recorded per object: a hostile search path cannot grow it without bound. */
#define MAX_TRIED 256

struct psym_objtab {
	pthread_mutex_t mu;
	struct psym_idxset by_key; /* key -> index in x: 5 bytes a slot, not a hash table's 32 */
	struct psym_located **x;   /* in the order added */
	size_t n, cap, max;
	size_t held, max_held; /* located files open in the table, and the cap */
	bool drop_tried;       /* psym_objtab_keep_tried(t, false) */
};

struct psym_objtab *psym_objtab_new(size_t max)
{
	struct psym_objtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_init(&t->mu, NULL);
	psym_idxset_init(&t->by_key);
	t->max = max;
	t->max_held = PSYM_OBJTAB_DEFAULT_HELD;
	return t;
}

void psym_objtab_set_max_held(struct psym_objtab *t, size_t max_held)
{
	t->max_held = max_held ? max_held : 1;
}

bool psym_located_unverified(const struct psym_located *x)
{
	return x->cls == PSYM_MAP_FILE && !*x->build_id && !x->named;
}

void psym_objtab_keep_tried(struct psym_objtab *t, bool keep)
{
	t->drop_tried = !keep;
}

/* A try's path and verdict are one allocation (path first). */
static void free_tries(struct psym_objtab_try *tried, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tried[i].path);
	free(tried);
}

static void free_side(struct psym_locside *s)
{
	free_tries(s->tried, s->ntried);
	free((char *)s->file);
	memset(s, 0, sizeof(*s));
}

/* A side allocated (the table's lock held or the entry private), or NULL. */
static void free_side_ptr(struct psym_locside *s)
{
	if (s)
		free_side(s);
	free(s);
}

/* The side *sp, allocated empty when not yet; NULL when out of memory. */
static struct psym_locside *side_get(struct psym_locside **sp)
{
	if (!*sp)
		*sp = calloc(1, sizeof(**sp));
	return *sp;
}

static void free_entry(struct psym_located *x)
{
	free_tries(x->tried, x->ntried);
	psym_reason_kept_free(&x->why);
	free_side_ptr(x->debug);
	free_side_ptr(x->alt);
	free_side_ptr(x->later);
	free_side_ptr(x->kallsyms);
	/* key (path its tail), build_id and named are one allocation (key first). */
	for (size_t i = 0; i < x->nkmods; i++) {
		free(x->kmods[i].name);
		free_side(&x->kmods[i].side);
	}
	free(x->kmods);
	for (size_t i = 0; i < x->nperfmaps; i++)
		free(x->perfmaps[i].path);
	free(x->perfmaps);
	psym_elf_close(x->elf);
	free((char *)x->key);
	free((char *)x->file);
	free((char *)x->index);
	free(x);
}

void psym_objtab_free(struct psym_objtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free_entry(t->x[i]);
	free(t->x);
	psym_idxset_free(&t->by_key);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

static uint64_t key_hash(const struct psym_objtab *t, const char *key)
{
	return psym_idxset_hash_bytes(&t->by_key, key, strlen(key));
}

static uint64_t key_rehash(void *ctx, uint32_t i)
{
	const struct psym_objtab *t = ctx;

	return key_hash(t, t->x[i]->key);
}

/* The entry whose key string is key (hash h), or NULL. t->mu held. */
static struct psym_located *find_key(const struct psym_objtab *t, const char *key, uint64_t h)
{
	PSYM_IDXSET_PROBE(&t->by_key, h, j)
	{
		struct psym_located *x = t->x[t->by_key.slot[j] - 1];

		if (!strcmp(x->key, key))
			return x;
	}
	return NULL;
}

enum psym_map_class psym_objkey_classify(const char *name, char *clean, size_t cleansz)
{
	bool deleted;

	return psym_mapping_classify(name, clean, cleansz, &deleted);
}

/*
 * The one key string: what makes two mappings the same object. The path
 * is its last part, and the entry's path points there; the build ID (as
 * given) and the named file follow it in the same allocation (an entry
 * per mapping of a profile: one allocation, not four, and one copy of
 * the path).
 */
static char *key_string(enum psym_map_class cls, const char *path, const char *bid,
			const char *named)
{
	size_t lp = strlen(path), lb = strlen(bid), ln = named ? strlen(named) : 0;
	size_t lk = 14 + ln + lp + lb; /* an int in at most 11, three \n */
	char *key = malloc(lk + 1 + lb + 1 + ln + 1), *p;
	int n;

	if (!key)
		return NULL;
	n = snprintf(key, lk + 1, "%d\n%s\n%s\n%s", (int)cls, named ? named : "", bid, path);
	if (n < 0 || (size_t)n > lk) {
		free(key);
		return NULL;
	}
	/* GNU build IDs compare in any case; Go's (base64) are case-sensitive. */
	if (!psym_build_id_is_go(bid)) {
		char c = key[n - lp - 1];

		key[n - lp - 1] = '\0'; /* the build ID alone */
		psym_build_id_lower(key + n - lp - 1 - lb);
		key[n - lp - 1] = c;
	}
	p = key + n + 1;
	memcpy(p, bid, lb + 1);
	p += lb + 1;
	memcpy(p, named ? named : "", ln + 1);
	return key;
}

int psym_objtab_add(struct psym_objtab *t, enum psym_map_class cls, const char *path,
		    const char *build_id, const char *named, struct psym_located **out,
		    struct psym_err *e)
{
	struct psym_located *x = NULL, **arr;
	char *key;
	uint64_t h;
	int ret;

	if (cls != PSYM_MAP_FILE || !path)
		path = "";
	if (!build_id)
		build_id = "";
	key = key_string(cls, path, build_id, named);
	if (!key)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	pthread_mutex_lock(&t->mu);
	h = key_hash(t, key);
	x = find_key(t, key, h);
	if (x) {
		free(key);
		*out = x;
		ret = 0;
		goto unlock;
	}
	if ((t->max && t->n >= t->max) || t->n >= UINT32_MAX - 1) {
		free(key);
		ret = psym_err_set(e, PSYM_ELIMIT, "more than %zu entries in a hash table",
				   t->max ? t->max : (size_t)UINT32_MAX - 1);
		goto unlock;
	}
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	x = calloc(1, sizeof(*x));
	if (!x)
		goto fail;
	x->cls = cls;
	x->key = key;
	x->path = key + strlen(key) - strlen(path);
	x->build_id = key + strlen(key) + 1;
	x->named = named ? x->build_id + strlen(x->build_id) + 1 : NULL;
	arr = psym_array_grow(t->x, &t->cap, t->n + 1, sizeof(*arr), 0);
	if (!arr)
		goto fail;
	t->x = arr;
	if (psym_idxset_add(&t->by_key, (uint32_t)t->n, h, key_rehash, t))
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

/* One candidate and its verdict onto a list (at most MAX_TRIED). */
static void push_try(struct psym_objtab_try **tried, size_t *n, const char *path,
		     const char *verdict)
{
	struct psym_objtab_try *p;
	size_t cap = *n;

	if (*n == MAX_TRIED)
		return;
	p = psym_array_grow(*tried, &cap, *n + 1, sizeof(*p), MAX_TRIED);
	if (!p)
		return;
	*tried = p;
	{
		size_t lp = strlen(path) + 1, lv = strlen(verdict) + 1;
		char *b = malloc(lp + lv);

		if (!b)
			return;
		memcpy(b, path, lp);
		memcpy(b + lp, verdict, lv);
		p[*n] = (struct psym_objtab_try){ .path = b, .verdict = b + lp };
	}
	(*n)++;
}

/* A search's candidates into the entry (c emptied). */
static void record(struct psym_located *x, struct psym_cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		push_try(&x->tried, &x->ntried, c->v[i].path, c->v[i].verdict);
	psym_cands_free(c);
}

static const struct psym_locate_opts no_locate;

/*
 * The kernel: its vmlinux image (not for a module's mapping: modules are
 * placed through kallsyms) as the entry's file, and the kallsyms copy.
 */
static int locate_kernel(const struct psym_locate_opts *o, struct psym_located *x,
			 const struct psym_objkey *k, struct psym_reason *why, struct psym_err *e)
{
	struct psym_locside *ksd;
	char ks[4200];
	int ret = PSYM_NOENT;

	if (x->cls == PSYM_MAP_KERNEL) {
		ret = psym_locate_vmlinux(o, k->build_id, &x->elf, &x->text, why, e);
		if (ret < 0)
			return ret;
	} else {
		psym_reason_set(why, PSYM_R_NOT_FOUND, "a kernel module: no vmlinux");
	}
	ksd = side_get(&x->kallsyms);
	if (!ksd)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	memset(&ksd->why, 0, sizeof(ksd->why));
	ksd->status = psym_locate_kallsyms(o, k->build_id, ks, sizeof(ks), &ksd->why);
	ksd->located = true;
	if (ksd->status == 0) {
		ksd->file = strdup(ks);
		if (!ksd->file)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	return ret;
}

static int locate_entry(struct psym_objtab *t, struct psym_located *x,
			const struct psym_locate_opts *lo, struct psym_err *e)
{
	struct psym_locate_opts o = lo ? *lo : no_locate;
	struct psym_objkey k = {
		.path = x->path,
		.build_id = *x->build_id ? x->build_id : NULL,
		.named = x->named,
	};
	/* Searched into a whole reason, kept at its length (one per entry). */
	struct psym_reason why = { 0 };
	struct psym_cands cands = { 0 };
	int ret;

	o.cands = t->drop_tried ? NULL : &cands;
	switch (x->cls) {
	case PSYM_MAP_FILE:
		/* No path (psym addr --build-id): any file with the build ID. */
		if (!*x->path && !x->named && k.build_id)
			ret = psym_locate_by_build_id(&o, k.build_id, &x->elf, &why, e);
		else
			ret = psym_locate_binary(&o, &k, &x->elf, &why, e);
		break;
	case PSYM_MAP_VDSO: ret = psym_locate_vdso(&o, k.build_id, &x->elf, &why, e); break;
	case PSYM_MAP_KERNEL:
	case PSYM_MAP_KMODULE: ret = locate_kernel(&o, x, &k, &why, e); break;
	default:
		/* Located by its resolver when opened (objtab.h). */
		ret = 0;
		break;
	}
	record(x, &cands);
	if (ret < 0)
		return ret; /* not remembered: the next pass tries again */
	x->located = true;
	x->status = ret;
	psym_reason_keep(&x->why, &why);
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
		psym_reason_unkeep(&x->why, why);
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

/* ---- files an opened object names: located through the table, once ----- */

/* A search of a side file: its answer and candidates, for the side record. */
struct side_rec {
	struct psym_locside s;
};

static void later_push(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
		       const char *path, const char *verdict, bool used, unsigned flags);

/*
 * A search's candidates (c emptied): kept for the side record, and for
 * --explain in the entry's later record (without an entry: not kept).
 */
static void record_side(struct side_rec *r, struct psym_objtab *t, struct psym_located *x,
			struct psym_cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		push_try(&r->s.tried, &r->s.ntried, c->v[i].path, c->v[i].verdict);
		if (t && x)
			later_push(t, x, PSYM_TRY_CANDIDATE, c->v[i].path, c->v[i].verdict, false,
				   0);
	}
	psym_cands_free(c);
}

/*
 * What an earlier search of side s found: 1 with the answer (the file
 * opened again, or the reason), 0 when not searched yet.
 */
static int side_known(struct psym_objtab *t, struct psym_locside *const *sp,
		      const struct psym_locate_opts *lo, struct psym_elf **out,
		      struct psym_reason *why, struct psym_err *e, int *ret)
{
	const struct psym_locside *s;
	char *file = NULL;
	bool known;

	pthread_mutex_lock(&t->mu);
	s = *sp;
	known = s && s->located;
	if (known) {
		*ret = s->status;
		*why = s->why;
		if (!*ret && !(file = strdup(s->file)))
			*ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	pthread_mutex_unlock(&t->mu);
	if (known && file)
		*ret = psym_elf_open(file, lo->elf_limits, out, e);
	free(file);
	return known;
}

/* A search's answer into side s (unless another thread's came first). */
static int side_keep(struct psym_objtab *t, struct psym_locside **sp, struct side_rec *r, int ret,
		     struct psym_elf *found, const struct psym_reason *why, struct psym_err *e)
{
	struct psym_locside *s;

	r->s.located = true;
	r->s.status = ret;
	if (ret == PSYM_NOENT)
		r->s.why = *why;
	if (found && !(r->s.file = strdup(psym_elf_path(found)))) {
		free_side(&r->s);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	pthread_mutex_lock(&t->mu);
	s = side_get(sp); /* out of memory: not remembered, searched again next time */
	if (s && !s->located) {
		*s = r->s;
		memset(&r->s, 0, sizeof(r->s));
	}
	pthread_mutex_unlock(&t->mu);
	free_side(&r->s);
	return 0;
}

enum side_kind {
	SIDE_DEBUG,
	SIDE_ALT
};

static int locate_side(struct psym_objtab *t, struct psym_located *x, enum side_kind kind,
		       const struct psym_locate_opts *lo, struct psym_elf *binary,
		       const struct psym_alt_key *ak, struct psym_elf **out,
		       struct psym_reason *why, struct psym_err *e)
{
	struct side_rec r = { 0 };
	struct psym_locside **s = !x ? NULL : kind == SIDE_DEBUG ? &x->debug : &x->alt;
	struct psym_locate_opts o = *lo;
	struct psym_cands cands = { 0 };
	int ret;

	*out = NULL;
	memset(why, 0, sizeof(*why));
	if (t && s && side_known(t, s, lo, out, why, e, &ret))
		return ret;
	/* Without an entry, the caller's record (if any) has them. */
	if (t && x)
		o.cands = &cands;
	if (kind == SIDE_DEBUG)
		ret = psym_locate_debug(&o, binary, out, why, e);
	else
		ret = psym_locate_alt(&o, ak, out, why, e);
	record_side(&r, t, x, &cands);
	if (ret < 0 || !t || !s) {
		free_side(&r.s); /* an error is not remembered: the next need searches again */
		return ret;
	}
	if (side_keep(t, s, &r, ret, *out, why, e)) {
		psym_elf_close(*out);
		*out = NULL;
		return e->code;
	}
	return ret;
}

int psym_objtab_locate_debug(struct psym_objtab *t, struct psym_located *x,
			     const struct psym_locate_opts *lo, struct psym_elf *binary,
			     struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	return locate_side(t, x, SIDE_DEBUG, lo, binary, NULL, out, why, e);
}

int psym_objtab_locate_alt(struct psym_objtab *t, struct psym_located *x,
			   const struct psym_locate_opts *lo, const struct psym_alt_key *k,
			   struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	return locate_side(t, x, SIDE_ALT, lo, NULL, k, out, why, e);
}

bool psym_objtab_split_candidates(const struct psym_locate_opts *lo, const char *binary_path,
				  const char *comp_dir, const char *dwo_name, psym_cand_fn fn,
				  void *ud)
{
	struct psym_dwo_key k = {
		.binary_path = binary_path,
		.comp_dir = comp_dir,
		.dwo_name = dwo_name,
	};

	if (!dwo_name)
		return psym_locate_dwp_candidates(lo, binary_path, fn, ud);
	return psym_locate_dwo_candidates(lo, &k, fn, ud);
}

/* One file tried onto x's later record; the table's lock is held. */
static void later_push_locked(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
			      const char *path, const char *verdict, bool used, unsigned flags)
{
	struct psym_locside *s = t->drop_tried ? NULL : side_get(&x->later);
	size_t n;

	if (!s)
		return;
	n = s->ntried;
	push_try(&s->tried, &s->ntried, path, verdict);
	if (s->ntried > n) {
		s->tried[n].role = role;
		s->tried[n].used = used;
		s->tried[n].flags = flags;
	} else {
		s->lost++;
	}
}

/* The same, taking the table's lock. */
static void later_push(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
		       const char *path, const char *verdict, bool used, unsigned flags)
{
	pthread_mutex_lock(&t->mu);
	later_push_locked(t, x, role, path, verdict, used, flags);
	pthread_mutex_unlock(&t->mu);
}

void psym_objtab_tried(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
		       const char *path, const struct psym_reason *why)
{
	if (t && x)
		later_push(t, x, role, path, why ? psym_reason_text(why) : "", !why, 0);
}

void psym_objtab_used(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
		      const char *path, const char *detail, unsigned flags)
{
	if (t && x)
		later_push(t, x, role, path, detail ? detail : "", true, flags);
}

void psym_objtab_candidate(struct psym_objtab *t, struct psym_located *x, const char *path,
			   const char *verdict)
{
	if (t && x)
		later_push(t, x, PSYM_TRY_CANDIDATE, path, verdict, false, 0);
}

void psym_objtab_refused(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
			 const char *path, const struct psym_reason *why, unsigned flags)
{
	if (t && x)
		later_push(t, x, role, path, why ? psym_reason_text(why) : "", false, flags);
}

void psym_objtab_news(struct psym_objtab *t, struct psym_located *x,
		      const struct psym_objtab_try **tried, size_t *n, size_t *lost)
{
	*tried = NULL;
	*n = *lost = 0;
	if (!t || !x)
		return;
	pthread_mutex_lock(&t->mu);
	if (x->later) {
		struct psym_locside *s = x->later;

		*tried = s->tried ? s->tried + s->told : NULL;
		*n = s->ntried - s->told;
		*lost = s->lost;
		s->told = s->ntried;
		s->lost = 0;
	}
	pthread_mutex_unlock(&t->mu);
}

void psym_objtab_set_index(struct psym_objtab *t, struct psym_located *x, const char *path)
{
	char *p;

	if (!t || !x)
		return;
	p = strdup(path);
	pthread_mutex_lock(&t->mu);
	if (p && !x->index) {
		x->index = p;
		p = NULL;
	}
	pthread_mutex_unlock(&t->mu);
	free(p);
}

/* ---- kernel modules: each one's .ko under the kernel entry ------------ */

/* Distinct modules kept under one kernel entry (a kernel has a few hundred). */
#define MAX_KMODS 4096

void psym_locside_push(struct psym_locside *s, const char *path, const char *verdict)
{
	push_try(&s->tried, &s->ntried, path, verdict);
}

void psym_locside_free(struct psym_locside *s)
{
	free_side(s);
}

/* The module's record in x, or NULL; the table's lock is held. */
static struct psym_objtab_kmod *kmod_of(struct psym_located *x, const char *module)
{
	for (size_t i = 0; i < x->nkmods; i++)
		if (strcmp(x->kmods[i].name, module) == 0)
			return &x->kmods[i];
	return NULL;
}

int psym_objtab_kmod_known(struct psym_objtab *t, struct psym_located *x, const char *module,
			   char *file, size_t filesz, struct psym_reason *why)
{
	struct psym_objtab_kmod *k;
	int known = 0;

	if (!t || !x || !filesz)
		return 0;
	pthread_mutex_lock(&t->mu);
	k = kmod_of(x, module);
	if (k && k->side.located) {
		known = 1;
		snprintf(file, filesz, "%s", k->side.file ? k->side.file : "");
		*why = k->side.why;
	}
	pthread_mutex_unlock(&t->mu);
	return known;
}

int psym_objtab_kmod_keep(struct psym_objtab *t, struct psym_located *x, const char *module,
			  struct psym_locside *s, struct psym_err *e)
{
	struct psym_objtab_kmod *v;
	size_t cap;
	char *name;
	int ret = 0;

	if (!t || !x) {
		free_side(s);
		return 0;
	}
	name = strdup(module);
	if (!name) {
		free_side(s);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	s->located = true;
	pthread_mutex_lock(&t->mu);
	if (kmod_of(x, module) || x->nkmods == MAX_KMODS)
		goto unlock; /* another search came first, or past the cap: searched again */
	cap = x->nkmods;
	v = psym_array_grow(x->kmods, &cap, x->nkmods + 1, sizeof(*v), MAX_KMODS);
	if (!v) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto unlock;
	}
	x->kmods = v;
	v[x->nkmods].name = name;
	v[x->nkmods].side = *s;
	x->nkmods++;
	name = NULL;
	memset(s, 0, sizeof(*s));
unlock:
	pthread_mutex_unlock(&t->mu);
	free(name);
	free_side(s);
	return ret;
}

int psym_objtab_kallsyms(struct psym_objtab *t, struct psym_located *x, char *buf, size_t bufsz,
			 struct psym_reason *why)
{
	int ret;

	pthread_mutex_lock(&t->mu);
	if (!x->kallsyms || !x->kallsyms->located) {
		psym_reason_set(why, PSYM_R_NO_KALLSYMS, "not located");
		ret = PSYM_NOENT;
	} else if (x->kallsyms->status) {
		*why = x->kallsyms->why;
		ret = x->kallsyms->status;
	} else {
		ret = snprintf(buf, bufsz, "%s", x->kallsyms->file) < (int)bufsz ? 0 : PSYM_NOENT;
		if (ret)
			psym_reason_set(why, PSYM_R_NO_KALLSYMS, "path too long");
	}
	pthread_mutex_unlock(&t->mu);
	return ret;
}

/* ---- JIT code: perf maps per process ------------------------------------ */

#define MAX_PERFMAPS (1u << 20) /* records per entry: pids times files, bounded */

struct pm_rec {
	struct psym_located *x;
	int pid;
	int ret;
	struct psym_cands cands; /* the search's: the missing ones so far */
};

static bool push_perfmap(struct psym_located *x, int pid, const char *path, bool jitdump,
			 bool missing)
{
	struct psym_objtab_perfmap *p;
	size_t cap = x->nperfmaps;

	p = psym_array_grow(x->perfmaps, &cap, x->nperfmaps + 1, sizeof(*p), MAX_PERFMAPS);
	if (!p)
		return false;
	x->perfmaps = p;
	if (x->nperfmaps && p[x->nperfmaps - 1].pid > pid)
		x->perfmaps_unsorted = true;
	p[x->nperfmaps] = (struct psym_objtab_perfmap){
		.pid = pid,
		.jitdump = jitdump,
		.missing = missing,
	};
	if (path && !(p[x->nperfmaps].path = strdup(path)))
		return false;
	x->nperfmaps++;
	return true;
}

/* Candidates that are not there: recorded in their place, said when reached. */
static void pm_missing(struct pm_rec *r)
{
	for (size_t i = 0; i < r->cands.n; i++)
		if (!r->ret && !push_perfmap(r->x, r->pid, r->cands.v[i].path, false, true))
			r->ret = PSYM_ENOMEM;
	psym_cands_free(&r->cands);
}

/* Every file that exists: recorded (the loader decides which one is used). */
static bool pm_found(void *ud, const char *path, bool jitdump)
{
	struct pm_rec *r = ud;

	pm_missing(r); /* the missing ones before it */
	if (!r->ret && !push_perfmap(r->x, r->pid, path, jitdump, false))
		r->ret = PSYM_ENOMEM;
	return false;
}

/*
 * The first record of pid, or x->nperfmaps. Records of one pid are
 * together; the plan adds pids in increasing order (binary search), a pid
 * located later may come after a larger one (then a scan).
 */
static size_t pid_first(const struct psym_located *x, int pid)
{
	size_t lo;

	if (x->perfmaps_unsorted) {
		for (size_t i = 0; i < x->nperfmaps; i++)
			if (x->perfmaps[i].pid == pid)
				return i;
		return x->nperfmaps;
	}
	lo = PSYM_LOWER_BOUND(0, x->nperfmaps, i, x->perfmaps[i].pid >= pid);
	return lo < x->nperfmaps && x->perfmaps[lo].pid == pid ? lo : x->nperfmaps;
}

/* Locate pid's files into x; the table's lock is held. */
static int locate_pid(struct psym_located *x, const struct psym_locate_opts *lo, int pid)
{
	struct psym_locate_opts o = *lo;
	struct pm_rec r = { .x = x, .pid = pid };

	if (pid <= 0 || pid_first(x, pid) < x->nperfmaps)
		return 0;
	o.cands = &r.cands;
	psym_locate_perf_maps(&o, pid, pm_found, &r);
	pm_missing(&r);
	if (!r.ret && !push_perfmap(x, pid, NULL, false, false)) /* located: a mark */
		r.ret = PSYM_ENOMEM;
	return r.ret;
}

int psym_objtab_locate_perf_maps(struct psym_objtab *t, struct psym_located *x,
				 const struct psym_locate_opts *lo, const int *pids, size_t npids,
				 struct psym_err *e)
{
	int ret = 0;

	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < npids && !ret; i++)
		ret = locate_pid(x, lo, pids[i]);
	pthread_mutex_unlock(&t->mu);
	return ret ? psym_err_set(e, ret, "out of memory") : 0;
}

void psym_objtab_perf_maps(struct psym_objtab *t, struct psym_located *x,
			   const struct psym_locate_opts *lo, int pid, psym_perfmap_fn fn, void *ud)
{
	bool done[2] = { false, false };

	if (pid <= 0)
		return;
	/* fn loads files; it never calls back into the table. */
	pthread_mutex_lock(&t->mu);
	locate_pid(x, lo, pid); /* out of memory: what was recorded is used */
	for (size_t i = pid_first(x, pid); i < x->nperfmaps && x->perfmaps[i].pid == pid; i++) {
		struct psym_objtab_perfmap *p = &x->perfmaps[i];

		if (!p->path || done[p->jitdump])
			continue;
		/* Recorded for --explain as the search went: up to the file that loads. */
		if (p->missing) {
			later_push_locked(t, x, PSYM_TRY_PERFMAP, p->path,
					  psym_reason_name(PSYM_R_NOT_FOUND), false, 0);
			continue;
		}
		if (fn(ud, p->path, p->jitdump)) {
			done[p->jitdump] = true;
			if (!p->jitdump)
				later_push_locked(t, x, PSYM_TRY_PERFMAP, p->path, "", true, 0);
		}
	}
	pthread_mutex_unlock(&t->mu);
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
