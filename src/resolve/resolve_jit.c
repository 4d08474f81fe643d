/* SPDX-License-Identifier: MIT */
/*
 * The JIT resolver: perf maps and jitdump files, one table per process,
 * each loaded once, on the first address of that process. An address no
 * sample names (its process unknown) is looked up in the profile's only
 * process, else in the one process whose tables cover it; when several
 * do, it is not guessed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objtab.h"
#include "resolvers.h"

/* Processes whose tables are loaded to place an address without a process. */
#define MAX_GUESS_PIDS 256

struct jit_table {
	int pid;
	struct psym_perfmap *pm; /* NULL: none found */
	struct psym_reason why;
};

struct jit_resolver {
	struct psym_resolver base;
	struct psym_objtab *tab; /* the processes' files, as the plan located them */
	struct psym_located *x;
	const struct psym_locate_opts *lo;
	const struct psym_perfmap_limits *lim;
	const char *const *files;
	size_t nfiles;
	const struct psym_jitdump_rec *recs; /* the jitdumps the recording mapped */
	size_t nrecs;
	int pid; /* every address's process (a single-process profile), or 0 */
	const struct psym_skipped *sk; /* NULL: malformed lines not said */
	struct jit_table *t;
	size_t nt;
	size_t used;	 /* tables that answered something */
	char last[4200]; /* the last file loaded, for the summary */
	/* Addresses without a process (no sample), for --explain. */
	size_t by_only, by_cover, unplaced;
	int only_pid, cover_pid; /* the last process each rule chose */
	char unplaced_why[256];	 /* why the last unplaced one was not guessed */
};

static struct jit_resolver *from(struct psym_resolver *r)
{
	return (struct jit_resolver *)r;
}

static int jit_to_vaddr(struct psym_resolver *r, const struct psym_mapinfo *m, uint64_t addr,
			uint64_t *vaddr)
{
	(void)r;
	(void)m;
	*vaddr = addr;
	return 0;
}

/* Add one perf map or jitdump file, saying how many lines were skipped. */
static int add_file(struct jit_resolver *j, struct jit_table *t, const char *path, bool jitdump)
{
	struct psym_err e = { 0 };
	size_t before = psym_perfmap_malformed(t->pm);
	int ret = jitdump ? psym_perfmap_add_jitdump(t->pm, path, &e)
			  : psym_perfmap_add_file(t->pm, path, &e);
	size_t bad = psym_perfmap_malformed(t->pm) - before;

	if (ret) {
		psym_reason_set(&t->why, PSYM_R_BAD_FILE, "%s", e.msg);
		return ret;
	}
	if (bad && j->sk && j->sk->fn)
		j->sk->fn(j->sk->ud, path, bad, jitdump);
	snprintf(j->last, sizeof(j->last), "%s", path);
	return 0;
}

struct found_ctx {
	struct jit_resolver *j;
	struct jit_table *t;
	size_t found;
	bool jitdump; /* one was loaded */
};

static bool found_file(void *ud, const char *path, bool jitdump)
{
	struct found_ctx *c = ud;

	if (add_file(c->j, c->t, path, jitdump) != 0)
		return false;
	c->found++;
	c->jitdump |= jitdump;
	return true;
}

/* The jitdump the recording mapped for pid, when it is still that file. */
static void add_recorded(struct found_ctx *c, int pid)
{
	char why[sizeof(c->t->why.detail)];

	for (size_t i = 0; i < c->j->nrecs && !c->jitdump; i++) {
		const struct psym_jitdump_rec *r = &c->j->recs[i];

		if (r->pid != pid)
			continue;
		if (psym_jitdump_check(r, why, sizeof(why)) != 0)
			psym_reason_set(&c->t->why, PSYM_R_NO_PERF_MAP, "%s", why);
		else
			found_file(c, r->path, true);
	}
}

static struct jit_table *table(struct jit_resolver *j, int pid)
{
	struct psym_err e = { 0 };
	struct found_ctx c = { .j = j };
	struct jit_table *n;

	for (size_t i = 0; i < j->nt; i++)
		if (j->t[i].pid == pid)
			return &j->t[i];
	n = realloc(j->t, (j->nt + 1) * sizeof(*n));
	if (!n)
		return NULL;
	j->t = n;
	c.t = &j->t[j->nt++];
	memset(c.t, 0, sizeof(*c.t));
	c.t->pid = pid;
	if (psym_perfmap_new(j->lim, &c.t->pm, &e) != 0) {
		psym_reason_set(&c.t->why, PSYM_R_ERROR, "%s", e.msg);
		return c.t;
	}
	for (size_t i = 0; i < j->nfiles; i++) {
		size_t len = strlen(j->files[i]);

		if (add_file(j, c.t, j->files[i],
			     len > 5 && !strcmp(j->files[i] + len - 5, ".dump")) == 0)
			c.found++;
	}
	psym_objtab_perf_maps(j->tab, j->x, j->lo, pid, found_file, &c);
	add_recorded(&c, pid);
	if (!c.found) {
		psym_perfmap_free(c.t->pm);
		c.t->pm = NULL;
		if (c.t->why.code == PSYM_R_NONE)
			psym_reason_set(&c.t->why, PSYM_R_NO_PERF_MAP, "no perf map for pid %d",
					pid);
	}
	return c.t;
}

/* Look addr up in pid's tables: 0, PSYM_NOENT with why, or none at all (no memory). */
static int lookup_in(struct jit_resolver *j, int pid, uint64_t addr, struct psym_frame *f,
		     struct psym_reason *why)
{
	struct jit_table *t = table(j, pid);

	if (!t) {
		psym_reason_set(why, PSYM_R_ERROR, "out of memory");
		return PSYM_ENOMEM;
	}
	if (!t->pm) {
		*why = t->why;
		return PSYM_NOENT;
	}
	if (psym_perfmap_lookup(t->pm, addr, f) != 0) {
		psym_reason_set(why, PSYM_R_NO_SYMBOL, NULL);
		return PSYM_NOENT;
	}
	return 0;
}

/*
 * An address that no sample names: the profile's only process, else the
 * one process whose perf maps or jitdumps cover it (files given for every
 * process first: they cover it in all). Never a guess between several.
 */
static int lookup_unknown_pid(struct jit_resolver *j, const struct psym_lookup_ctx *ctx,
			      uint64_t addr, struct psym_frame *f, struct psym_reason *why)
{
	struct psym_frame cand;
	int found = 0, ret;
	size_t nfound = 0;

	if (ctx->npids == 1) {
		ret = lookup_in(j, ctx->pids[0], addr, f, why);
		if (ret == 0) {
			j->by_only++;
			j->only_pid = ctx->pids[0];
		}
		return ret;
	}
	if (j->nfiles && lookup_in(j, 0, addr, f, why) == 0)
		return 0;
	if (ctx->npids > MAX_GUESS_PIDS) {
		psym_reason_set(why, PSYM_R_NO_PERF_MAP,
				"no sample names its process, and the profile has %zu processes "
				"(more than %d to search)",
				ctx->npids, MAX_GUESS_PIDS);
		goto unplaced;
	}
	for (size_t i = 0; i < ctx->npids && nfound < 2; i++) {
		struct psym_reason r = { 0 };

		ret = lookup_in(j, ctx->pids[i], addr, nfound ? &cand : f, &r);
		if (ret == PSYM_ENOMEM) {
			*why = r;
			return ret;
		}
		if (ret == 0 && nfound++ == 0)
			found = ctx->pids[i];
		else if (ret == 0)
			psym_reason_set(why, PSYM_R_NO_PERF_MAP,
					"no sample names its process, and the perf maps of pids "
					"%d and %d both cover it: not guessed",
					found, ctx->pids[i]);
	}
	if (nfound == 1) {
		j->by_cover++;
		j->cover_pid = found;
		return 0;
	}
	if (nfound == 0)
		psym_reason_set(why, PSYM_R_NO_SYMBOL,
				"no sample names its process, and no perf map of the profile's "
				"%zu processes covers it",
				ctx->npids);
unplaced:
	if (why->code == PSYM_R_NO_PERF_MAP) {
		j->unplaced++;
		snprintf(j->unplaced_why, sizeof(j->unplaced_why), "%.200s", why->detail);
	}
	return PSYM_NOENT;
}

static int jit_lookup(struct psym_resolver *r, const struct psym_lookup_ctx *ctx, uint64_t addr,
		      struct psym_frames *out, struct psym_reason *why)
{
	struct jit_resolver *j = from(r);
	int pid = j->pid ? j->pid : ctx->pid, ret;

	if (!pid && ctx->npids)
		ret = lookup_unknown_pid(j, ctx, addr, &out->f[0], why);
	else
		ret = lookup_in(j, pid, addr, &out->f[0], why);
	if (ret == PSYM_ENOMEM)
		return ret; /* an error, not "not found": the run stops */
	if (ret)
		return PSYM_NOENT;
	out->n = 1;
	return 0;
}

/* The perf maps read, and how locations no sample names were placed. */
static void jit_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct jit_resolver *j = from(r);
	struct psym_resitem tried = { .role = PSYM_RES_TRIED };

	/* The perf maps tried since the last describe, recorded in its entry. */
	psym_objtab_news(j->tab, j->x, &tried.tried, &tried.ntried, &tried.lost);
	if (tried.ntried || tried.lost)
		psym_resdesc_add(d, &tried);
	psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_PERFMAP,
						    .path = j->last[0] ? j->last : NULL,
						    .total = j->nt });
	if (j->by_only)
		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_PROCESS,
							    .flags = PSYM_RESITEM_ONLY,
							    .n = j->by_only,
							    .pid = j->only_pid });
	if (j->by_cover)
		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_PROCESS,
							    .n = j->by_cover,
							    .pid = j->cover_pid });
	if (j->unplaced)
		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_UNPLACED,
							    .n = j->unplaced,
							    .note = j->unplaced_why });
}

static void jit_destroy(struct psym_resolver *r)
{
	struct jit_resolver *j = from(r);

	for (size_t i = 0; i < j->nt; i++)
		psym_perfmap_free(j->t[i].pm);
	free(j->t);
	free(j);
}

static const struct psym_resolver_ops jit_ops = {
	.kind = "jit",
	.needs_pid = true,
	.to_vaddr = jit_to_vaddr,
	.lookup = jit_lookup,
	.describe = jit_describe,
	.destroy = jit_destroy,
};

int psym_jit_resolver_new(struct psym_objtab *t, struct psym_located *x,
			  const struct psym_locate_opts *lo, const struct psym_perfmap_limits *lim,
			  const char *const *files, size_t nfiles, int pid,
			  const struct psym_jitdump_rec *recs, size_t nrecs,
			  const struct psym_skipped *sk, struct psym_resolver **out,
			  struct psym_err *e)
{
	struct jit_resolver *j = calloc(1, sizeof(*j));

	if (!j)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	j->base.ops = &jit_ops;
	j->tab = t;
	j->x = x;
	j->lo = lo;
	j->lim = lim;
	j->files = files;
	j->nfiles = nfiles;
	j->recs = recs;
	j->nrecs = nrecs;
	j->pid = pid;
	j->sk = sk;
	*out = &j->base;
	return 0;
}
