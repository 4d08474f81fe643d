/* SPDX-License-Identifier: MIT */
/* The stack-copy side file unwound into a collector profile. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "reason.h"
#include "space.h"
#include "unwindprof.h"
#include "ustacks.h"

#define DEFAULT_MAX_FRAMES 512
#define MAX_FILES 65536

/* An object opened once for every process that maps it, its CFI indexed once. */
struct obj {
	char *key; /* path, NUL, build ID: the objs table's key */
	size_t keylen;
	struct psym_elf *elf; /* NULL: not found */
	struct psym_cfi *cfi; /* NULL: none, or not yet (cfi_tried) */
	bool cfi_tried;
};

struct proc {
	int pid; /* the procs table's key */
	struct psym_space *space;
};

struct run {
	const struct psym_unwindprof_opts *o;
	struct psym_collectprof *c;
	struct psym_unwindprof_stats *st;
	struct obj **objs;
	size_t nobjs, capobjs;
	struct psym_hashtab obj_by_key, obj_by_elf;
	struct proc **procs;
	size_t nprocs, capprocs;
	struct psym_hashtab proc_by_pid;
	struct psym_unwind_budget budget;
	uint64_t *pcs, *ustack;
	struct psym_err *e;
};

/* The CFI of an object of this run, indexed at its first use (space.h). */
static struct psym_cfi *obj_cfi(void *ud, const struct psym_elf *elf)
{
	struct run *r = ud;
	struct psym_err e = { 0 };
	void *v;
	struct obj *o;

	if (psym_hashtab_get(&r->obj_by_elf, &elf, sizeof(elf), &v) != 0)
		return NULL;
	o = v;
	if (!o->cfi_tried) {
		o->cfi_tried = true;
		if (psym_cfi_open(o->elf, &r->o->cfi, &o->cfi, &e) < 0)
			o->cfi = NULL;
	}
	return o->cfi;
}

static struct psym_elf *find_obj(struct run *r, const struct psym_procmap *m)
{
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	size_t plen = strlen(m->path), blen = strlen(m->build_id);
	char *key;
	void *v;
	struct obj *o;

	key = malloc(plen + blen + 2);
	if (!key)
		return NULL;
	memcpy(key, m->path, plen + 1);
	memcpy(key + plen + 1, m->build_id, blen + 1);
	if (psym_hashtab_get(&r->obj_by_key, key, plen + blen + 1, &v) == 0) {
		free(key);
		return ((struct obj *)v)->elf;
	}
	if (r->nobjs == MAX_FILES)
		goto free_key;
	if (r->nobjs == r->capobjs) {
		size_t n = r->capobjs ? r->capobjs * 2 : 32;
		struct obj **p = realloc(r->objs, n * sizeof(*p));

		if (!p)
			goto free_key;
		r->objs = p;
		r->capobjs = n;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		goto free_key;
	o->key = key;
	o->keylen = plen + blen + 1;
	if (psym_hashtab_put(&r->obj_by_key, o->key, o->keylen, o, &e) != 0) {
		free(o);
		goto free_key;
	}
	r->objs[r->nobjs++] = o;
	r->st->files++;
	if (!strcmp(m->path, "[vdso]")) {
		if (r->o->locate)
			psym_locate_vdso(r->o->locate, &o->elf, &why, &e);
	} else if (m->path[0] == '/') {
		struct psym_objkey k = { .path = m->path,
					 .build_id = m->build_id[0] ? m->build_id : NULL };

		if (r->o->locate)
			psym_locate_binary(r->o->locate, &k, &o->elf, &why, &e);
		else
			psym_elf_open(m->path, NULL, &o->elf, &e);
		/* A file whose build ID is not the recorded one is not used. */
		if (o->elf && m->build_id[0] && psym_elf_build_id(o->elf) &&
		    strcmp(psym_elf_build_id(o->elf), m->build_id)) {
			psym_elf_close(o->elf);
			o->elf = NULL;
		}
	}
	if (o->elf && psym_hashtab_put(&r->obj_by_elf, &o->elf, sizeof(o->elf), o, &e) != 0) {
		psym_elf_close(o->elf); /* its CFI could not be found again */
		o->elf = NULL;
	}
	if (!o->elf)
		r->st->files_missing++;
	return o->elf;
free_key:
	free(key);
	return NULL;
}

static struct proc *find_proc(struct run *r, int pid)
{
	void *v;

	return psym_hashtab_get(&r->proc_by_pid, &pid, sizeof(pid), &v) == 0 ? v : NULL;
}

static int on_process(void *ud, int pid, const struct psym_procmap *maps, size_t n)
{
	struct run *r = ud;
	struct proc *p;
	int ret;

	ret = psym_collectprof_process(r->c, pid, maps, n);
	if (ret < 0)
		return psym_err_set(r->e, ret, "out of memory");
	p = find_proc(r, pid);
	if (!p) {
		if (r->nprocs == r->capprocs) {
			size_t k = r->capprocs ? r->capprocs * 2 : 16;
			struct proc **q = realloc(r->procs, k * sizeof(*q));

			if (!q)
				return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
			r->procs = q;
			r->capprocs = k;
		}
		p = calloc(1, sizeof(*p));
		if (!p)
			return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
		p->pid = pid;
		ret = psym_hashtab_put(&r->proc_by_pid, &p->pid, sizeof(p->pid), p, r->e);
		if (ret) {
			free(p);
			return ret;
		}
		r->procs[r->nprocs++] = p;
	} else {
		psym_space_free(p->space);
	}
	p->space = NULL;
	ret = psym_space_new(&r->o->cfi, &p->space, r->e);
	if (ret < 0)
		return ret;
	psym_space_set_cfi_source(p->space, obj_cfi, r);
	for (size_t i = 0; i < n; i++) {
		struct psym_elf *elf = find_obj(r, &maps[i]);

		if (elf) {
			ret = psym_space_add(p->space, maps[i].start, maps[i].limit, maps[i].offset,
					     elf, NULL, r->e);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static int on_sample(void *ud, const struct psym_ustack_sample *s)
{
	struct run *r = ud;
	struct psym_unwind_stack stk = { s->regs.r[PSYM_X86_RSP], s->stack, s->stack_len };
	struct psym_unwind_result res;
	struct proc *p = find_proc(r, (int)s->pid);
	size_t max = r->o->max_frames ? r->o->max_frames : DEFAULT_MAX_FRAMES;
	int ret;

	r->st->samples++;
	if (!p) {
		r->st->no_maps++;
		res.n = 0;
		if (s->regs.valid & (1u << PSYM_X86_RA))
			r->pcs[res.n++] = s->regs.r[PSYM_X86_RA];
	} else {
		psym_unwind_budgeted(&s->regs, &stk, psym_space_find, p->space, r->pcs, max,
				     &r->budget, &res);
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
	ret = psym_collectprof_add(r->c, (int)s->pid, (int)s->tid, s->comm, s->kstack, s->nk,
				   r->ustack, res.n, 1);
	if (ret < 0)
		return psym_err_set(r->e, ret, "cannot add a sample: %s", psym_strerror(ret));
	return 0;
}

int psym_unwindprof_run(const char *path, const struct psym_unwindprof_opts *o,
			struct psym_collectprof *c, struct psym_unwindprof_stats *st,
			struct psym_err *e)
{
	static const struct psym_ustacks_reader_ops ops = { on_process, on_sample };
	size_t max = o->max_frames ? o->max_frames : DEFAULT_MAX_FRAMES;
	struct run r = { .o = o, .c = c, .st = st, .e = e };
	int ret;

	memset(st, 0, sizeof(*st));
	r.budget.sample_steps = o->sample_steps;
	r.budget.run_steps = o->run_steps;
	psym_hashtab_init(&r.obj_by_key, 0);
	psym_hashtab_init(&r.obj_by_elf, 0);
	psym_hashtab_init(&r.proc_by_pid, 0);
	r.pcs = calloc(max, sizeof(*r.pcs));
	r.ustack = calloc(max, sizeof(*r.ustack));
	if (!r.pcs || !r.ustack) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	ret = psym_ustacks_read(path, &ops, &r, e);
out:
	/* Spaces first: they borrow the objects' CFI. */
	for (size_t i = 0; i < r.nprocs; i++) {
		psym_space_free(r.procs[i]->space);
		free(r.procs[i]);
	}
	for (size_t i = 0; i < r.nobjs; i++) {
		psym_cfi_close(r.objs[i]->cfi);
		psym_elf_close(r.objs[i]->elf);
		free(r.objs[i]->key);
		free(r.objs[i]);
	}
	psym_hashtab_free(&r.obj_by_key);
	psym_hashtab_free(&r.obj_by_elf);
	psym_hashtab_free(&r.proc_by_pid);
	free(r.procs);
	free(r.objs);
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
	struct psym_collect_meta meta = { 0 };
	struct psym_collectprof *c = NULL;
	unsigned char *buf = NULL;
	size_t len;
	int ret;

	*out = NULL;
	meta.period_ns = in->pb->period;
	meta.time_ns = in->pb->time_nanos;
	meta.duration_ns = in->pb->duration_nanos;
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
	ret = psym_collectprof_new(&meta, &c, e);
	if (ret)
		goto out;
	ret = psym_unwindprof_run(side_file, o, c, st, e);
	if (ret)
		goto out;
	/* Detach the profile from the builder: encode, decode, validate. */
	ret = psym_profile_encode(psym_collectprof_profile(c), false, &buf, &len, e);
	if (ret)
		goto out;
	ret = psym_profile_parse(buf, len, side_file, lim, out, e);
	if (ret)
		goto out;
	ret = psym_profile_validate(*out, e);
	if (ret) {
		psym_profile_free(*out);
		*out = NULL;
	}
out:
	free(buf);
	psym_collectprof_free(c);
	return ret;
}

void psym_unwindprof_print(const struct psym_unwindprof_stats *st, FILE *out)
{
	fprintf(out, "psym: unwound %zu samples, %zu frames (%zu by CFI, %zu by frame pointer);",
		st->samples, st->frames, st->cfi_frames, st->fp_frames);
	for (int i = 0; i < PSYM_UNWIND_NSTOPS; i++)
		if (st->stops[i])
			fprintf(out, " %s %zu", psym_unwind_stop_name(i), st->stops[i]);
	if (st->no_maps)
		fprintf(out, "; %zu samples of processes without mappings", st->no_maps);
	fprintf(out, "; %zu/%zu files found", st->files - st->files_missing, st->files);
	if (st->budget_why[0])
		fprintf(out, "; unwinding cut short: %s", st->budget_why);
	fputc('\n', out);
}
