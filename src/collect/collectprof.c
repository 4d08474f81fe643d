/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "collectprof.h"
#include "hashtab.h"

#define MAX_FRAMES 512

#define MAX_PROCS (1 << 20)

struct proc {
	int pid;
	bool jit; /* a sample had a frame in anonymous executable memory */
	struct psym_procmap *maps;
	size_t n;
	uint64_t *mapping_ids; /* profile mapping id per map, 0 = not yet */
	char *exe;	       /* its executable's path as the maps name it, or NULL */
	bool exe_tried;
	uint64_t exe_mapping; /* the executable's profile mapping, 0 = none */
	uint64_t samples;
	char comm[17];		       /* the first sample's */
	size_t order;		       /* position in procs (psym_collectprof_finish's sort) */
	bool forgotten;		       /* maps freed (the process exited): unknown again */
	uint64_t mntns;		       /* its mount namespace when not the collector's, else 0 */
	struct psym_collect_fpnote fp; /* how its stacks end (psym_collectprof_fp_notes) */
};

/* A profile mapping's identity, the key of the dedup table (bytes compared). */
struct mkey {
	uint64_t start, limit, offset;
	char id[PSYM_BUILD_ID_HEX_MAX];
	char path[sizeof(((struct psym_procmap *)0)->path)];
};

struct psym_collectprof {
	struct psym_collect_meta meta;
	struct psym_profile *p;
	struct psym_builder *b;
	struct proc **procs; /* in the order first seen */
	size_t nprocs;
	struct psym_hashtab by_pid;	/* pid -> struct proc */
	struct psym_hashtab by_mapping; /* struct mkey -> pb_mapping */
	struct mkey **mkeys;
	size_t nmkeys;
	psym_collect_buildid_fn bid_fn;
	void *bid_ud;
	uint64_t kernel_mapping;
	struct psym_hashtab by_stack; /* (pid, tid, comm, locations) -> pb_sample; keys owned */
	struct psym_collect_stats st;
};

int psym_collectprof_new(const struct psym_collect_meta *meta, struct psym_collectprof **out,
			 struct psym_err *e)
{
	struct psym_collectprof *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	c->meta = *meta;
	psym_hashtab_init(&c->by_pid, MAX_PROCS);
	psym_hashtab_init(&c->by_mapping, 0);
	psym_hashtab_init(&c->by_stack, 0);
	ret = psym_profile_new(NULL, &c->p, e);
	if (!ret)
		ret = psym_builder_new(c->p, &c->b, e);
	if (!ret && (psym_builder_sample_type(c->b, "samples", "count") ||
		     psym_builder_sample_type(c->b, "cpu", "nanoseconds") ||
		     psym_builder_comment(c->b, PSYM_COLLECT_COMMENT) ||
		     (meta->comment && psym_builder_comment(c->b, meta->comment))))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (!ret) {
		pb_profile *pb = c->p->pb;
		pb_value_type *pt = psym_arena_alloc(&c->p->arena, sizeof(*pt));

		if (!pt) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		} else {
			perftools__profiles__value_type__init(pt);
			pt->type = psym_builder_str(c->b, "cpu");
			pt->unit = psym_builder_str(c->b, "nanoseconds");
			pb->period_type = pt;
			pb->period = meta->period_ns;
			pb->time_nanos = meta->time_ns;
			pb->duration_nanos = meta->duration_ns;
		}
	}
	if (ret) {
		psym_collectprof_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void psym_collectprof_free(struct psym_collectprof *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nprocs; i++) {
		free(c->procs[i]->maps);
		free(c->procs[i]->mapping_ids);
		free(c->procs[i]->exe);
		free(c->procs[i]);
	}
	free(c->procs);
	psym_hashtab_free(&c->by_pid);
	psym_hashtab_free(&c->by_mapping);
	for (size_t i = 0; i < c->nmkeys; i++)
		free(c->mkeys[i]);
	free(c->mkeys);
	{
		size_t pos = 0;
		const void *k;

		while (psym_hashtab_next(&c->by_stack, &pos, &k, NULL, NULL))
			free((void *)k);
		psym_hashtab_free(&c->by_stack);
	}
	psym_builder_free(c->b);
	psym_profile_free(c->p);
	free(c);
}

/* Processes by samples, most first (first seen first among equals). */
static int cmp_samples(const void *a, const void *b)
{
	const struct proc *x = *(struct proc *const *)a, *y = *(struct proc *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int psym_collectprof_finish(struct psym_collectprof *c, int64_t duration_ns)
{
	pb_profile *pb = c->p->pb;
	size_t n = pb->n_mapping, pos = 0;
	struct proc **byn = NULL;
	pb_mapping **order = NULL;
	uint64_t *newid = NULL;
	bool *placed = NULL;
	char line[600];
	int ret = 0;

	c->meta.duration_ns = duration_ns;
	pb->duration_nanos = duration_ns;
	if (!n || !c->nprocs)
		return 0;
	for (size_t k = 0; k < n; k++)
		if (pb->mapping[k]->id != k + 1)
			return 0; /* ids not the builder's 1..n: leave the order */
	byn = malloc(c->nprocs * sizeof(*byn));
	order = malloc(n * sizeof(*order));
	newid = calloc(n + 1, sizeof(*newid));
	placed = calloc(n + 1, sizeof(*placed));
	if (!byn || !order || !newid || !placed) {
		ret = PSYM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->nprocs; i++) {
		c->procs[i]->order = i;
		byn[i] = c->procs[i];
	}
	qsort(byn, c->nprocs, sizeof(*byn), cmp_samples);
	/* Executables first, of the processes with the most samples first;
	 * then every other mapping in the order it was met. */
	for (size_t i = 0; i < c->nprocs; i++) {
		uint64_t id = byn[i]->exe_mapping;

		if (!byn[i]->samples || !id || id > n || placed[id])
			continue;
		placed[id] = true;
		order[pos++] = pb->mapping[id - 1];
	}
	if (!pos)
		goto out; /* no executable known (maps unread): keep the order */
	for (size_t k = 0; k < n; k++)
		if (!placed[k + 1])
			order[pos++] = pb->mapping[k];
	for (size_t k = 0; k < n; k++) {
		newid[order[k]->id] = k + 1;
		pb->mapping[k] = order[k];
	}
	for (size_t k = 0; k < n; k++)
		pb->mapping[k]->id = k + 1;
	for (size_t i = 0; i < pb->n_location; i++) {
		uint64_t m = pb->location[i]->mapping_id;

		if (m && m <= n)
			pb->location[i]->mapping_id = newid[m];
	}
	if (c->kernel_mapping && c->kernel_mapping <= n)
		c->kernel_mapping = newid[c->kernel_mapping];
	for (size_t i = 0; i < c->nprocs; i++) {
		struct proc *pr = c->procs[i];

		for (size_t j = 0; j < pr->n; j++)
			if (pr->mapping_ids[j] && pr->mapping_ids[j] <= n)
				pr->mapping_ids[j] = newid[pr->mapping_ids[j]];
		if (pr->exe_mapping && pr->exe_mapping <= n)
			pr->exe_mapping = newid[pr->exe_mapping];
	}
	for (size_t i = 0; i < c->nprocs; i++) {
		if (byn[i]->exe_mapping != 1)
			continue;
		snprintf(line, sizeof(line),
			 PSYM_COLLECT_MAIN_COMMENT "%d (%s, %" PRIu64 " of %" PRIu64 " samples)%s",
			 byn[i]->pid, byn[i]->comm, byn[i]->samples, c->st.samples,
			 c->nprocs > 1 ? ", the process with the most samples" : "");
		if (psym_builder_comment(c->b, line))
			ret = PSYM_ENOMEM;
		break;
	}
out:
	free(byn);
	free(order);
	free(newid);
	free(placed);
	return ret;
}

struct psym_profile *psym_collectprof_profile(struct psym_collectprof *c)
{
	c->p->pb->duration_nanos = c->meta.duration_ns;
	return c->p;
}

void psym_collectprof_stats(const struct psym_collectprof *c, struct psym_collect_stats *s)
{
	*s = c->st;
	s->processes = c->nprocs;
}

void psym_collectprof_set_buildid_fn(struct psym_collectprof *c, psym_collect_buildid_fn fn,
				     void *ud)
{
	c->bid_fn = fn;
	c->bid_ud = ud;
}

void psym_collectprof_set_kernel_range(struct psym_collectprof *c, uint64_t start, uint64_t limit)
{
	if (!c->kernel_mapping) { /* not yet used: the mapping is made on first use */
		c->meta.kernel_start = start;
		c->meta.kernel_limit = limit;
	}
}

int psym_collectprof_comment(struct psym_collectprof *c, const char *text)
{
	return psym_builder_comment(c->b, text) ? PSYM_ENOMEM : 0;
}

static struct proc *find_proc(const struct psym_collectprof *c, int pid)
{
	void *v;

	return psym_hashtab_get(&c->by_pid, &pid, sizeof(pid), &v) == 0 ? v : NULL;
}

bool psym_collectprof_known(const struct psym_collectprof *c, int pid)
{
	const struct proc *pr = find_proc(c, pid);

	return pr && !pr->forgotten;
}

void psym_collectprof_forget(struct psym_collectprof *c, int pid)
{
	struct proc *pr = find_proc(c, pid);

	if (!pr)
		return;
	free(pr->maps);
	free(pr->mapping_ids);
	pr->maps = NULL;
	pr->mapping_ids = NULL;
	pr->n = 0;
	pr->forgotten = true;
}

size_t psym_collectprof_jit_pids(const struct psym_collectprof *c, int *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i]->jit) {
			if (n < max)
				out[n] = c->procs[i]->pid;
			n++;
		}
	return n;
}

int psym_collectprof_process(struct psym_collectprof *c, int pid, const struct psym_procmap *maps,
			     size_t n)
{
	struct proc *pr = find_proc(c, pid);
	struct psym_procmap *copy = malloc((n ? n : 1) * sizeof(*copy));
	uint64_t *ids = calloc(n ? n : 1, sizeof(*ids));

	if (!copy || !ids) {
		free(copy);
		free(ids);
		return PSYM_ENOMEM;
	}
	if (n)
		memcpy(copy, maps, n * sizeof(*copy));
	if (!pr) {
		struct proc **np = realloc(c->procs, (c->nprocs + 1) * sizeof(*np));
		struct psym_err e = { 0 };

		if (np)
			c->procs = np;
		pr = np ? calloc(1, sizeof(*pr)) : NULL;
		if (pr) {
			pr->pid = pid;
			if (psym_hashtab_put(&c->by_pid, &pr->pid, sizeof(pr->pid), pr, &e)) {
				free(pr);
				pr = NULL;
			}
		}
		if (!pr) {
			free(copy);
			free(ids);
			return PSYM_ENOMEM;
		}
		c->procs[c->nprocs++] = pr;
	}
	free(pr->maps);
	free(pr->mapping_ids);
	pr->maps = copy;
	pr->mapping_ids = ids;
	pr->n = n;
	pr->forgotten = false;
	return 0;
}

int psym_collectprof_set_exe(struct psym_collectprof *c, int pid, const char *path)
{
	struct proc *pr = find_proc(c, pid);
	char *copy;

	if (!pr)
		return PSYM_NOENT;
	copy = strdup(path);
	if (!copy)
		return PSYM_ENOMEM;
	free(pr->exe);
	pr->exe = copy;
	pr->exe_tried = false;
	return 0;
}

void psym_collectprof_set_mntns(struct psym_collectprof *c, int pid, uint64_t mntns)
{
	struct proc *pr = find_proc(c, pid);

	if (pr)
		pr->mntns = mntns;
}

static long find_map(const struct proc *pr, uint64_t a)
{
	for (size_t i = 0; pr && i < pr->n; i++)
		if (a >= pr->maps[i].start && a < pr->maps[i].limit)
			return (long)i;
	return -1;
}

bool psym_collectprof_unknown(struct psym_collectprof *c, int pid, const uint64_t *ustack,
			      size_t nu)
{
	struct proc *pr = find_proc(c, pid);

	for (size_t i = 0; i < nu; i++)
		if (find_map(pr, ustack[i]) < 0)
			return true;
	return false;
}

/* The profile mapping for a process map, shared by identical ones. */
static uint64_t mapping_for(struct psym_collectprof *c, struct proc *pr, long mi)
{
	struct psym_procmap *m = &pr->maps[mi];
	struct psym_err e = { 0 };
	struct mkey *k, **nk;
	pb_mapping *nm;
	void *v;

	if (pr->mapping_ids[mi])
		return pr->mapping_ids[mi];
	if (!m->build_id[0] && m->path[0] == '/' && c->bid_fn)
		c->bid_fn(c->bid_ud, pr->pid, m);
	k = calloc(1, sizeof(*k));
	if (!k)
		return 0;
	k->start = m->start;
	k->limit = m->limit;
	k->offset = m->offset;
	/* Both fields are NUL-terminated within their (equal) sizes. */
	memcpy(k->id, m->build_id, strnlen(m->build_id, sizeof(k->id) - 1));
	memcpy(k->path, m->path, strnlen(m->path, sizeof(k->path) - 1));
	if (psym_hashtab_get(&c->by_mapping, k, sizeof(*k), &v) == 0) {
		free(k);
		return pr->mapping_ids[mi] = ((pb_mapping *)v)->id;
	}
	nk = realloc(c->mkeys, (c->nmkeys + 1) * sizeof(*nk));
	if (!nk) {
		free(k);
		return 0;
	}
	c->mkeys = nk;
	nm = psym_builder_mapping(c->b, m->start, m->limit, m->offset, m->path, m->build_id);
	if (!nm || psym_hashtab_put(&c->by_mapping, k, sizeof(*k), nm, &e)) {
		free(k);
		return nm ? (pr->mapping_ids[mi] = nm->id) : 0;
	}
	c->mkeys[c->nmkeys++] = k;
	return pr->mapping_ids[mi] = nm->id;
}

/*
 * Can a walk end in map mi: the process's executable (_start, or the
 * entry of a statically linked runtime) or libc (__libc_start_call_main,
 * clone, clone3, start_thread)? Any file when the executable is unknown.
 */
static bool root_map(const struct proc *pr, long mi)
{
	const char *path = pr->maps[mi].path, *base = strrchr(path, '/');

	if (path[0] != '/')
		return false;
	if (!pr->exe || !strcmp(path, pr->exe))
		return true;
	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5);
}

/* How a user stack of count samples of pr ends: rooted, cut at the leaf, unmapped frames. */
static void fp_account(struct psym_collectprof *c, struct proc *pr, const uint64_t *ustack,
		       size_t nu, size_t unmapped, uint64_t count)
{
	struct psym_collect_fpnote *f = &pr->fp;
	long mi;

	if (!nu || (c->meta.stack_depth_max && nu >= c->meta.stack_depth_max))
		return; /* no user frames, or as deep as the sampler goes: cut */
	mi = find_map(pr, ustack[nu - 1]);
	f->samples += count;
	if (nu >= 2 && mi >= 0 && root_map(pr, mi))
		f->rooted += count;
	if (nu == 1)
		f->leaf_only += count;
	f->frames += count * nu;
	f->frames_unmapped += count * unmapped;
}

/* Anonymous executable memory: JIT code, named by perf maps. */
static bool anon_exec(const struct psym_procmap *m)
{
	return m->path[0] == '\0' || !strncmp(m->path, "[anon", 5) || !strcmp(m->path, "//anon");
}

static uint64_t kernel_mapping(struct psym_collectprof *c)
{
	pb_mapping *m;

	if (c->kernel_mapping)
		return c->kernel_mapping;
	m = psym_builder_mapping(
		c->b, c->meta.kernel_start ? c->meta.kernel_start : 0xffff800000000000ULL,
		c->meta.kernel_limit ? c->meta.kernel_limit : UINT64_MAX, 0, "[kernel.kallsyms]",
		c->meta.kernel_build_id);
	if (m)
		c->kernel_mapping = m->id;
	return c->kernel_mapping;
}

int psym_collectprof_add(struct psym_collectprof *c, int pid, int tid, const char *comm,
			 const uint64_t *kstack, size_t nk, const uint64_t *ustack, size_t nu,
			 uint64_t count)
{
	uint64_t locs[2 * MAX_FRAMES];
	size_t n = 0, keylen, unmapped = 0;
	unsigned char key[sizeof(locs) + 64];
	struct proc *pr = find_proc(c, pid);
	char commbuf[17];
	void *v;
	pb_sample *s;

	if (nk > MAX_FRAMES)
		nk = MAX_FRAMES;
	if (nu > MAX_FRAMES)
		nu = MAX_FRAMES;
	snprintf(commbuf, sizeof(commbuf), "%s", comm ? comm : "");
	if (pr) {
		if (!pr->samples)
			memcpy(pr->comm, commbuf, sizeof(pr->comm));
		pr->samples += count;
		/* The executable's mapping even when no sample is in its own
		 * code: it is written first (psym_collectprof_finish). */
		for (size_t i = 0; pr->exe && !pr->exe_tried && i < pr->n; i++)
			if (!strcmp(pr->maps[i].path, pr->exe))
				pr->exe_mapping = mapping_for(c, pr, (long)i);
		pr->exe_tried = true;
	}
	/* Leaf first: kernel frames above user frames. */
	for (size_t i = 0; i < nk; i++) {
		uint64_t a = i ? kstack[i] - 1 : kstack[i];
		uint64_t mid = kernel_mapping(c);

		locs[n] = psym_builder_location(c->b, mid, a);
		if (!locs[n])
			return psym_builder_error(c->b);
		n++;
	}
	for (size_t i = 0; i < nu; i++) {
		/* The first user frame is a leaf only when no kernel frame is above it. */
		uint64_t a = (i == 0 && nk == 0) ? ustack[i] : ustack[i] - 1;
		long mi = find_map(pr, ustack[i]);
		uint64_t mid = mi >= 0 ? mapping_for(c, pr, mi) : 0;

		if (mi < 0) {
			c->st.frames_unmapped++;
			unmapped++;
		} else if (anon_exec(&pr->maps[mi]))
			pr->jit = true;
		locs[n] = psym_builder_location(c->b, mid, a);
		if (!locs[n])
			return psym_builder_error(c->b);
		n++;
	}
	if (pr)
		fp_account(c, pr, ustack, nu, unmapped, count);
	/* One sample per (pid, tid, comm, stack): aggregate repeated adds. */
	memcpy(key, &pid, sizeof(pid));
	memcpy(key + 4, &tid, sizeof(tid));
	memcpy(key + 8, commbuf, 16);
	memcpy(key + 24, locs, n * sizeof(uint64_t));
	keylen = 24 + n * sizeof(uint64_t);
	if (psym_hashtab_get(&c->by_stack, key, keylen, &v) == 0) {
		s = v;
		s->value[0] += (int64_t)count;
		s->value[1] += (int64_t)count * c->meta.period_ns;
	} else {
		int64_t vals[2] = { (int64_t)count, (int64_t)count * c->meta.period_ns };
		unsigned char *copy = malloc(keylen);
		struct psym_err e = { 0 };

		s = psym_builder_sample(c->b, locs, n, vals, 2);
		if (!s || !copy) {
			free(copy);
			return PSYM_ENOMEM;
		}
		memcpy(copy, key, keylen);
		if (psym_hashtab_put(&c->by_stack, copy, keylen, s, &e)) {
			free(copy);
			return e.code;
		}
		c->st.stacks++;
		if (psym_builder_label_num(c->b, s, "pid", pid, NULL) ||
		    psym_builder_label_num(c->b, s, "tid", tid, NULL) ||
		    psym_builder_label_str(c->b, s, "comm", commbuf) ||
		    (pr && pr->mntns &&
		     psym_builder_label_num(c->b, s, "mntns", (int64_t)pr->mntns, NULL)))
			return PSYM_ENOMEM;
	}
	c->st.samples += count;
	return 0;
}

bool psym_collect_fp_broken(const struct psym_collect_fpnote *f, uint64_t min_samples)
{
	if (f->samples < min_samples || f->rooted * 2 >= f->samples)
		return false;
	/* Frames lost: walks that stop at the sampled frame, or wander off. */
	return f->leaf_only * 2 >= f->samples || f->frames_unmapped * 10 >= f->frames;
}

size_t psym_collectprof_fp_notes(const struct psym_collectprof *c, uint64_t min_samples,
				 struct psym_collect_fpnote *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nprocs; i++) {
		const struct proc *pr = c->procs[i];

		if (!psym_collect_fp_broken(&pr->fp, min_samples))
			continue;
		if (n < max) {
			out[n] = pr->fp;
			out[n].pid = pr->pid;
			memcpy(out[n].comm, pr->comm, sizeof(out[n].comm));
		}
		n++;
	}
	return n;
}
