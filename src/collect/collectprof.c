/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "collectprof.h"

#define MAX_FRAMES 512

struct proc {
	int pid;
	struct psym_procmap *maps;
	size_t n;
	uint64_t *mapping_ids; /* profile mapping id per map, 0 = not yet */
};

struct skey {
	uint64_t hash;
	size_t len;
	unsigned char *bytes;
	pb_sample *sample;
};

struct psym_collectprof {
	struct psym_collect_meta meta;
	struct psym_profile *p;
	struct psym_builder *b;
	struct proc *procs;
	size_t nprocs;
	uint64_t kernel_mapping;
	struct skey *keys; /* open addressing */
	size_t nkeys, capkeys;
	struct psym_collect_stats st;
};

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

int psym_collectprof_new(const struct psym_collect_meta *meta, struct psym_collectprof **out,
			 struct psym_err *e)
{
	struct psym_collectprof *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	c->meta = *meta;
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
		free(c->procs[i].maps);
		free(c->procs[i].mapping_ids);
	}
	free(c->procs);
	for (size_t i = 0; i < c->capkeys; i++)
		free(c->keys[i].bytes);
	free(c->keys);
	psym_builder_free(c->b);
	psym_profile_free(c->p);
	free(c);
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

static struct proc *find_proc(struct psym_collectprof *c, int pid)
{
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid)
			return &c->procs[i];
	return NULL;
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
		struct proc *np = realloc(c->procs, (c->nprocs + 1) * sizeof(*np));

		if (!np) {
			free(copy);
			free(ids);
			return PSYM_ENOMEM;
		}
		c->procs = np;
		pr = &c->procs[c->nprocs++];
		memset(pr, 0, sizeof(*pr));
		pr->pid = pid;
	}
	free(pr->maps);
	free(pr->mapping_ids);
	pr->maps = copy;
	pr->mapping_ids = ids;
	pr->n = n;
	return 0;
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
	const struct psym_procmap *m = &pr->maps[mi];
	pb_profile *pb = c->p->pb;
	pb_mapping *nm;
	const char *name = m->path;

	if (pr->mapping_ids[mi])
		return pr->mapping_ids[mi];
	for (size_t i = 0; i < pb->n_mapping; i++) {
		pb_mapping *x = pb->mapping[i];

		if (x->memory_start == m->start && x->memory_limit == m->limit &&
		    x->file_offset == m->offset &&
		    !strcmp(psym_profile_str(c->p, x->filename), name) &&
		    !strcmp(psym_profile_str(c->p, x->build_id), m->build_id))
			return pr->mapping_ids[mi] = x->id;
	}
	nm = psym_builder_mapping(c->b, m->start, m->limit, m->offset, name, m->build_id);
	return nm ? (pr->mapping_ids[mi] = nm->id) : 0;
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
	size_t n = 0, keylen;
	unsigned char key[sizeof(locs) + 64];
	struct proc *pr = find_proc(c, pid);
	char commbuf[17];
	uint64_t h;
	pb_sample *s;

	if (nk > MAX_FRAMES)
		nk = MAX_FRAMES;
	if (nu > MAX_FRAMES)
		nu = MAX_FRAMES;
	snprintf(commbuf, sizeof(commbuf), "%s", comm ? comm : "");
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

		if (mi < 0)
			c->st.frames_unmapped++;
		locs[n] = psym_builder_location(c->b, mid, a);
		if (!locs[n])
			return psym_builder_error(c->b);
		n++;
	}
	/* One sample per (pid, tid, comm, stack): aggregate repeated adds. */
	memcpy(key, &pid, sizeof(pid));
	memcpy(key + 4, &tid, sizeof(tid));
	memcpy(key + 8, commbuf, 16);
	memcpy(key + 24, locs, n * sizeof(uint64_t));
	keylen = 24 + n * sizeof(uint64_t);
	h = fnv(key, keylen);
	if ((c->nkeys + 1) * 2 > c->capkeys) {
		size_t ncap = c->capkeys ? c->capkeys * 2 : 1024;
		struct skey *nk2 = calloc(ncap, sizeof(*nk2));

		if (!nk2)
			return PSYM_ENOMEM;
		for (size_t i = 0; i < c->capkeys; i++) {
			size_t j;

			if (!c->keys[i].bytes)
				continue;
			for (j = c->keys[i].hash & (ncap - 1); nk2[j].bytes;
			     j = (j + 1) & (ncap - 1))
				;
			nk2[j] = c->keys[i];
		}
		free(c->keys);
		c->keys = nk2;
		c->capkeys = ncap;
	}
	for (size_t j = h & (c->capkeys - 1);; j = (j + 1) & (c->capkeys - 1)) {
		struct skey *k = &c->keys[j];

		if (!k->bytes) {
			int64_t vals[2] = { (int64_t)count, (int64_t)count * c->meta.period_ns };

			s = psym_builder_sample(c->b, locs, n, vals, 2);
			k->bytes = malloc(keylen);
			if (!s || !k->bytes)
				return PSYM_ENOMEM;
			memcpy(k->bytes, key, keylen);
			k->len = keylen;
			k->hash = h;
			k->sample = s;
			c->nkeys++;
			c->st.stacks++;
			if (psym_builder_label_num(c->b, s, "pid", pid, NULL) ||
			    psym_builder_label_num(c->b, s, "tid", tid, NULL) ||
			    psym_builder_label_str(c->b, s, "comm", commbuf))
				return PSYM_ENOMEM;
			break;
		}
		if (k->hash == h && k->len == keylen && !memcmp(k->bytes, key, keylen)) {
			k->sample->value[0] += (int64_t)count;
			k->sample->value[1] += (int64_t)count * c->meta.period_ns;
			break;
		}
	}
	c->st.samples += count;
	return 0;
}
