/* SPDX-License-Identifier: MIT */
/* The stack-copy side file unwound into a collector profile. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "objtab.h"
#include "reason.h"
#include "space.h"
#include "arch.h"
#include "cfiset.h"
#include "profread.h"
#include "unwindprof.h"
#include "ustacks.h"

#define DEFAULT_MAX_FRAMES 512
#define MAX_FILES 65536

/* A mapping of a space, as psym_space_add takes it. */
struct smap {
	uint64_t start, end, offset;
	const struct psym_elf *elf;
};

/*
 * A space and the mappings it was made of. Processes whose PROCESS
 * records give the same mappings of the same objects (forked workers,
 * one program run many times without address randomization) share one:
 * a space is a function of its mappings, its CFI the run's (cfis).
 */
struct shared_space {
	struct psym_space *space;
	struct smap *maps;
	size_t n;
};

struct unwind_run {
	size_t ntypes; /* the input's own sample types (samples' values), 0: the collector's */
	const struct psym_unwindprof_opts *o;
	struct psym_collectprof *c;
	struct psym_unwindprof_stats *st;
	struct psym_objtab *objs; /* each object located and opened once (objtab.h) */
	struct psym_cfiset cfis;  /* the objects' CFI, once per run */
	/* A process's space (index in spaces + 1) is its record's tag in c. */
	struct shared_space *spaces;
	size_t nspaces, capspaces;
	struct psym_idxset space_by_maps; /* mappings -> index in spaces */
	struct smap *scratch;		  /* a PROCESS record's mappings with objects */
	size_t capscratch;
	struct psym_unwind_budget budget;
	uint64_t *pcs, *ustack;
	struct psym_err *e;
};

/*
 * The file of a mapping, found by the same rules and the same located-object
 * table as symbolize's: the mapping classified into a typed key (a
 * [vdso], or a file by its absolute path and build ID, compared in any
 * case), located once for every process that maps it. *out is NULL when
 * it was not found (counted) or is no file. 0 or a negative error.
 */
static int find_obj(struct unwind_run *r, const struct psym_procmap *m, struct psym_elf **out)
{
	struct psym_located *x;
	char clean[4096];
	enum psym_map_class cls = psym_objkey_classify(m->path, clean, sizeof(clean));
	size_t before = psym_objtab_count(r->objs);
	int ret;

	*out = NULL;
	if (cls != PSYM_MAP_VDSO && (cls != PSYM_MAP_FILE || m->path[0] != '/'))
		return 0;
	if (cls == PSYM_MAP_VDSO && !r->o->locate)
		return 0;
	ret = psym_objtab_add(r->objs, cls, clean, m->build_id, NULL, &x, r->e);
	if (ret == PSYM_ELIMIT)
		return 0; /* past MAX_FILES: unwound by frame pointers there */
	if (!ret)
		ret = psym_objtab_locate_one(r->objs, x, r->o->locate, r->e);
	if (ret)
		return ret;
	*out = psym_objtab_elf(x);
	if (psym_objtab_count(r->objs) != before) {
		r->st->files++;
		if (!*out) {
			r->st->files_missing++;
			if (r->st->nmissing < sizeof(r->st->missing) / sizeof(r->st->missing[0]))
				snprintf(r->st->missing[r->st->nmissing++],
					 sizeof(r->st->missing[0]), "%.120s (%.120s)", m->path,
					 x->why.code ? psym_reason_kept_text(&x->why)
						     : "build ID differs or unreadable");
		}
	}
	return 0;
}

static uint64_t maps_hash(const struct unwind_run *r, const struct smap *m, size_t n)
{
	return psym_hash_bytes(m, n * sizeof(*m), r->space_by_maps.seed);
}

static uint64_t maps_rehash(void *ctx, uint32_t i)
{
	const struct unwind_run *r = ctx;

	return maps_hash(r, r->spaces[i].maps, r->spaces[i].n);
}

/* A new space of the n mappings m (copied), added to r->spaces. */
static int new_space(struct unwind_run *r, const struct smap *m, size_t n, uint64_t h)
{
	struct shared_space *sp, *q;
	int ret;

	if (r->nspaces >= UINT32_MAX - 1)
		return psym_err_set(r->e, PSYM_ELIMIT, "too many processes");
	q = psym_array_grow(r->spaces, &r->capspaces, r->nspaces + 1, sizeof(*q), 0);
	if (!q)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	r->spaces = q;
	sp = &r->spaces[r->nspaces];
	memset(sp, 0, sizeof(*sp));
	sp->maps = malloc((n ? n : 1) * sizeof(*m));
	if (!sp->maps)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	memcpy(sp->maps, m, n * sizeof(*m));
	sp->n = n;
	r->nspaces++; /* freed with the run from here on */
	ret = psym_space_new(&r->o->cfi, &sp->space, r->e);
	if (ret < 0)
		return ret;
	psym_space_set_cfi_source(sp->space, psym_cfiset_get, &r->cfis);
	for (size_t i = 0; i < n; i++) {
		ret = psym_space_add(sp->space, m[i].start, m[i].end, m[i].offset, m[i].elf, NULL,
				     r->e);
		if (ret < 0)
			return ret;
	}
	if (psym_idxset_add(&r->space_by_maps, (uint32_t)(r->nspaces - 1), h, maps_rehash, r))
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	return 0;
}

/* The space of the n mappings m (index in spaces + 1): an equal one, else a new one. */
static int space_of(struct unwind_run *r, const struct smap *m, size_t n, uint32_t *out)
{
	uint64_t h = maps_hash(r, m, n);
	int ret;

	PSYM_IDXSET_PROBE(&r->space_by_maps, h, j)
	{
		uint32_t i = r->space_by_maps.slot[j] - 1;

		if (r->spaces[i].n == n && !memcmp(r->spaces[i].maps, m, n * sizeof(*m))) {
			*out = i + 1;
			return 0;
		}
	}
	ret = new_space(r, m, n, h);
	if (ret < 0)
		return ret;
	*out = (uint32_t)r->nspaces;
	return 0;
}

static int on_process(void *ud, int pid, const struct psym_procmap *maps, size_t n)
{
	struct unwind_run *r = ud;
	struct smap *sm;
	size_t ns = 0;
	uint32_t space;
	int ret;

	ret = psym_collectprof_process(r->c, pid, maps, n);
	if (ret < 0)
		return psym_err_set(r->e, ret, "out of memory");
	sm = psym_array_grow(r->scratch, &r->capscratch, n ? n : 1, sizeof(*sm), 0);
	if (!sm)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	r->scratch = sm;
	for (size_t i = 0; i < n; i++) {
		struct psym_elf *elf;

		ret = find_obj(r, &maps[i], &elf);
		if (ret < 0)
			return ret;
		if (elf)
			sm[ns++] =
				(struct smap){ maps[i].start, maps[i].limit, maps[i].offset, elf };
	}
	ret = space_of(r, sm, ns, &space);
	if (ret < 0)
		return ret;
	/* The record was made above: it is there to tag. */
	if (psym_collectprof_set_tag(r->c, pid, space))
		return psym_err_set(r->e, PSYM_EINTERNAL, "no record of pid %d", pid);
	return 0;
}

/* pid's executable (an EXE record): its mapping goes first (pprof's mapping 1). */
static int on_exe(void *ud, int pid, const char *path)
{
	struct unwind_run *r = ud;
	int ret = psym_collectprof_set_exe(r->c, pid, path);

	/* PSYM_NOENT: no PROCESS record before it, nothing to place. */
	return ret == PSYM_ENOMEM ? psym_err_set(r->e, ret, "out of memory") : 0;
}

/* pid ran in a container (a MNTNS record): its samples say so. */
static int on_mntns(void *ud, int pid, uint64_t inode)
{
	psym_collectprof_set_mntns(((struct unwind_run *)ud)->c, pid, inode);
	return 0;
}

static int on_sample(void *ud, const struct psym_ustack_sample *s)
{
	struct unwind_run *r = ud;
	const struct psym_unwind_arch *a = psym_unwind_arch_of(s->regs.machine);
	struct psym_unwind_stack stk = { a ? s->regs.r[a->sp] : 0, s->stack, s->stack_len };
	struct psym_unwind_result res;
	uint32_t space = psym_collectprof_tag(r->c, (int)s->pid);
	size_t max = r->o->max_frames ? r->o->max_frames : DEFAULT_MAX_FRAMES;
	int ret;

	r->st->samples++;
	if (s->stack_len > r->st->max_stack_len)
		r->st->max_stack_len = s->stack_len;
	if (!space) {
		r->st->no_maps++;
		res.n = 0;
		if (a && (s->regs.valid & ((uint64_t)1 << a->pc)))
			r->pcs[res.n++] = s->regs.r[a->pc];
	} else {
		psym_unwind_budgeted(&s->regs, &stk, psym_space_find, r->spaces[space - 1].space,
				     r->pcs, max, &r->budget, &res);
		r->st->stops[res.stop]++;
		r->st->cfi_frames += res.cfi_frames;
		r->st->fp_frames += res.fp_frames;
		r->st->steps += res.steps;
		/* The run's budget, once spent, is the news; else the first sample's. */
		if (res.stop == PSYM_UNWIND_BUDGET &&
		    (!r->st->budget_why[0] ||
		     (r->budget.run_steps && r->budget.run_used >= r->budget.run_steps)))
			snprintf(r->st->budget_why, sizeof(r->st->budget_why), "%s", res.why);
	}
	r->st->frames += res.n;
	/* The builder takes return addresses (it subtracts one from callers). */
	for (size_t i = 0; i < res.n; i++)
		r->ustack[i] = i ? r->pcs[i] + 1 : r->pcs[i];
	if (s->values && s->nvalues == r->ntypes)
		ret = psym_collectprof_add_values(r->c, (int)s->pid, (int)s->tid, s->comm,
						  s->kstack, s->nk, r->ustack, res.n, 1, s->values);
	else
		ret = psym_collectprof_add(r->c, (int)s->pid, (int)s->tid, s->comm, s->kstack,
					   s->nk, r->ustack, res.n, 1);
	if (ret < 0)
		return psym_err_set(r->e, ret, "cannot add a sample: %s", psym_strerror(ret));
	return 0;
}

/*
 * Read the side file at path, or the records src delivers when path is
 * NULL, and add every sample to c. 0, or a negative code with e set (a
 * malformed side file names the file and the record).
 */
static int unwind_run(const char *path, const struct psym_unwindprof_src *src,
		      const struct psym_unwindprof_opts *o, struct psym_collectprof *c,
		      size_t ntypes, struct psym_unwindprof_stats *st, struct psym_err *e)
{
	static const struct psym_ustacks_reader_ops ops = { on_process, on_sample, on_exe,
							    on_mntns };
	size_t max = o->max_frames ? o->max_frames : DEFAULT_MAX_FRAMES;
	struct unwind_run r = { .ntypes = ntypes, .o = o, .c = c, .st = st, .e = e };
	int ret;

	memset(st, 0, sizeof(*st));
	r.budget.sample_steps = o->sample_steps;
	r.budget.run_steps = o->run_steps;
	psym_cfiset_init(&r.cfis, &o->cfi);
	psym_idxset_init(&r.space_by_maps);
	r.pcs = calloc(max, sizeof(*r.pcs));
	r.ustack = calloc(max, sizeof(*r.ustack));
	r.objs = psym_objtab_new(MAX_FILES);
	if (r.objs)
		psym_objtab_set_max_held(r.objs, MAX_FILES); /* borrowed until the end */
	if (!r.pcs || !r.ustack || !r.objs) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	ret = path ? psym_ustacks_read(path, &ops, &r, e) : src->fn(src->ud, &ops, &r, e);
out:
	/* Spaces first: they borrow the objects' CFI. */
	for (size_t i = 0; i < r.nspaces; i++) {
		psym_space_free(r.spaces[i].space);
		free(r.spaces[i].maps);
	}
	free(r.spaces);
	psym_idxset_free(&r.space_by_maps);
	psym_cfiset_free(&r.cfis);
	free(r.scratch);
	psym_objtab_free(r.objs);
	free(r.pcs);
	free(r.ustack);
	return ret;
}

bool psym_unwindprof_needed(const struct psym_profile *p)
{
	for (size_t i = 0; i < p->pb->n_comment; i++) {
		const char *c = psym_profile_str(p, p->pb->comment[i]);

		if (c && !strcmp(c, PSYM_USTACKS_COMMENT))
			return true;
	}
	return false;
}

int psym_unwindprof_profile(const struct psym_profile *in, const char *side_file,
			    const struct psym_unwindprof_opts *o, const struct psym_limits *lim,
			    struct psym_profile **out, struct psym_unwindprof_stats *st,
			    struct psym_err *e)
{
	return psym_unwindprof_profile_from(in, side_file, NULL, o, lim, out, st, e);
}

/*
 * An input with sample types of its own (perf.data: each event's count
 * and period) keeps them: meta takes them (types, freed by the caller).
 * The collector's own pair is made anew.
 */
static int own_types(const struct psym_profile *in, struct psym_collect_meta *meta,
		     const char *(**types)[2], struct psym_err *e)
{
	size_t n = in->pb->n_sample_type;
	const char *(*t)[2];

	if (n == 2 && !strcmp(psym_profile_str(in, in->pb->sample_type[0]->type), "samples") &&
	    !strcmp(psym_profile_str(in, in->pb->sample_type[1]->type), "cpu"))
		return 0;
	if (!n)
		return 0;
	t = calloc(n, sizeof(*t));
	if (!t)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		t[i][0] = psym_profile_str(in, in->pb->sample_type[i]->type);
		t[i][1] = psym_profile_str(in, in->pb->sample_type[i]->unit);
		if (!t[i][0] || !t[i][1]) {
			free(t);
			return psym_err_set(e, PSYM_EBADPROFILE, "a sample type with no name");
		}
	}
	meta->types = (const char *const(*)[2])t;
	meta->ntypes = n;
	if (in->pb->period_type) {
		meta->period_type = psym_profile_str(in, in->pb->period_type->type);
		meta->period_unit = psym_profile_str(in, in->pb->period_type->unit);
	}
	if (in->pb->default_sample_type)
		meta->default_type = psym_profile_str(in, in->pb->default_sample_type);
	*types = t;
	return 0;
}

int psym_unwindprof_profile_from(const struct psym_profile *in, const char *side_file,
				 const struct psym_unwindprof_src *src,
				 const struct psym_unwindprof_opts *o,
				 const struct psym_limits *lim, struct psym_profile **out,
				 struct psym_unwindprof_stats *st, struct psym_err *e)
{
	struct psym_collect_meta meta = { 0 };
	struct psym_collectprof *c = NULL;
	const char *(*types)[2] = NULL;
	int ret;

	*out = NULL;
	meta.period_ns = in->pb->period;
	meta.time_ns = in->pb->time_nanos;
	meta.duration_ns = in->pb->duration_nanos;
	meta.max_memory = lim ? lim->max_memory : 0;
	for (size_t i = 0; i < in->pb->n_mapping; i++) {
		const pb_mapping *m = in->pb->mapping[i];
		const char *f = psym_profile_str(in, m->filename);

		if (f && !strcmp(f, "[kernel.kallsyms]")) {
			const char *b = psym_profile_str(in, m->build_id);

			meta.kernel_start = m->memory_start;
			meta.kernel_limit = m->memory_limit;
			meta.kernel_build_id = b && *b ? b : NULL;
		}
	}
	ret = own_types(in, &meta, &types, e);
	if (!ret)
		ret = psym_collectprof_new(&meta, &c, e);
	if (ret)
		goto out;
	/* The input's comments (the host identity) but those made anew. */
	for (size_t i = 0; i < in->pb->n_comment; i++) {
		const char *t = psym_profile_str(in, in->pb->comment[i]);

		if (!t || !strcmp(t, PSYM_COLLECT_COMMENT) || !strcmp(t, PSYM_USTACKS_COMMENT) ||
		    !strncmp(t, PSYM_COLLECT_MAIN_COMMENT, strlen(PSYM_COLLECT_MAIN_COMMENT)))
			continue;
		ret = psym_collectprof_comment(c, t);
		if (ret) {
			ret = psym_err_set(e, ret, "out of memory");
			goto out;
		}
	}
	ret = unwind_run(side_file, src, o, c, meta.ntypes, st, e);
	if (ret)
		goto out;
	/*
	 * As psym-collect does: each process's executable first, that of the
	 * process with the most samples as mapping 1 (the side file's EXE
	 * records name them), and a comment saying whose it is.
	 */
	ret = psym_collectprof_finish(c, in->pb->duration_nanos);
	if (ret) {
		ret = psym_err_set(e, ret, "out of memory");
		goto out;
	}
	/*
	 * The profile itself, detached from the builder (whose tables go
	 * now), checked as a decoded one is: no encoded copy is made and
	 * decoded again, which held the profile twice at its peak.
	 */
	*out = psym_collectprof_take_profile(c);
	psym_collectprof_free(c);
	c = NULL;
	ret = psym_profile_validate(*out, e);
	if (ret) {
		psym_profile_free(*out);
		*out = NULL;
	}
out:
	psym_collectprof_free(c);
	free(types);
	return ret;
}
