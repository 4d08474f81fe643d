/* SPDX-License-Identifier: MIT */
/* The stack-copy side file unwound into a collector profile. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "reason.h"
#include "space.h"
#include "arch.h"
#include "unwindprof.h"
#include "ustacks.h"

#define DEFAULT_MAX_FRAMES 512
#define MAX_FILES 65536

/* An object opened once for every process that maps it. */
struct obj {
	char *path, *build_id;
	struct psym_elf *elf; /* NULL: not found */
};

struct proc {
	int pid;
	struct psym_space *space;
};

struct run {
	const struct psym_unwindprof_opts *o;
	struct psym_collectprof *c;
	struct psym_unwindprof_stats *st;
	struct obj *objs;
	size_t nobjs, capobjs;
	struct proc *procs;
	size_t nprocs, capprocs;
	uint64_t *pcs, *ustack;
	struct psym_err *e;
};

static struct psym_elf *find_obj(struct run *r, const struct psym_procmap *m)
{
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	struct obj *o;

	for (size_t i = 0; i < r->nobjs; i++)
		if (!strcmp(r->objs[i].path, m->path) && !strcmp(r->objs[i].build_id, m->build_id))
			return r->objs[i].elf;
	if (r->nobjs == MAX_FILES)
		return NULL;
	if (r->nobjs == r->capobjs) {
		size_t n = r->capobjs ? r->capobjs * 2 : 32;
		struct obj *p = realloc(r->objs, n * sizeof(*p));

		if (!p)
			return NULL;
		r->objs = p;
		r->capobjs = n;
	}
	o = &r->objs[r->nobjs];
	o->path = strdup(m->path);
	o->build_id = strdup(m->build_id);
	o->elf = NULL;
	if (!o->path || !o->build_id) {
		free(o->path);
		free(o->build_id);
		return NULL;
	}
	r->nobjs++;
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
	if (!o->elf)
		r->st->files_missing++;
	return o->elf;
}

static int on_process(void *ud, int pid, const struct psym_procmap *maps, size_t n)
{
	struct run *r = ud;
	struct proc *p = NULL;
	int ret;

	ret = psym_collectprof_process(r->c, pid, maps, n);
	if (ret < 0)
		return psym_err_set(r->e, ret, "out of memory");
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i].pid == pid)
			p = &r->procs[i];
	if (!p) {
		if (r->nprocs == r->capprocs) {
			size_t k = r->capprocs ? r->capprocs * 2 : 16;
			struct proc *q = realloc(r->procs, k * sizeof(*q));

			if (!q)
				return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
			r->procs = q;
			r->capprocs = k;
		}
		p = &r->procs[r->nprocs++];
		p->pid = pid;
	} else {
		psym_space_free(p->space);
	}
	p->space = NULL;
	ret = psym_space_new(&r->o->cfi, &p->space, r->e);
	if (ret < 0)
		return ret;
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
	const struct psym_unwind_arch *a = psym_unwind_arch_of(s->regs.machine);
	struct psym_unwind_stack stk = { a ? s->regs.r[a->sp] : 0, s->stack, s->stack_len };
	struct psym_unwind_result res;
	struct proc *p = NULL;
	size_t max = r->o->max_frames ? r->o->max_frames : DEFAULT_MAX_FRAMES;
	int ret;

	r->st->samples++;
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i].pid == (int)s->pid)
			p = &r->procs[i];
	if (!p) {
		r->st->no_maps++;
		res.n = 0;
		if (a && (s->regs.valid & ((uint64_t)1 << a->pc)))
			r->pcs[res.n++] = s->regs.r[a->pc];
	} else {
		psym_unwind(&s->regs, &stk, psym_space_find, p->space, r->pcs, max, &res);
		r->st->stops[res.stop]++;
		r->st->cfi_frames += res.cfi_frames;
		r->st->fp_frames += res.fp_frames;
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
	r.pcs = calloc(max, sizeof(*r.pcs));
	r.ustack = calloc(max, sizeof(*r.ustack));
	if (!r.pcs || !r.ustack) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	ret = psym_ustacks_read(path, &ops, &r, e);
out:
	for (size_t i = 0; i < r.nprocs; i++)
		psym_space_free(r.procs[i].space);
	for (size_t i = 0; i < r.nobjs; i++) {
		psym_elf_close(r.objs[i].elf);
		free(r.objs[i].path);
		free(r.objs[i].build_id);
	}
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
	fprintf(out, "; %zu/%zu files found\n", st->files - st->files_missing, st->files);
}
