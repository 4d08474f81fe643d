/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "array.h"
#include "builder.h"
#include "collectprof.h"
#include "hashtab.h"

#define MAX_FRAMES 512

#define MAX_PROCS (1 << 20) /* within proc.order's 29 bits */

#define LABEL_SLOTS 256
#define MAX_VALUES 2

/*
 * A process's map as kept: what psym_procmap holds, its path and build ID
 * interned (one copy per distinct string, in strs), 72 bytes instead of
 * psym_procmap's 686: a run over many processes keeps every process's maps.
 */
struct pmap {
	uint64_t start, limit, offset;
	uint64_t dev, inode;
	const char *path;     /* interned; "" for anonymous memory */
	const char *build_id; /* interned; "" until known */
	uint64_t mapping_id;  /* its profile mapping, 0 = not yet */
	bool exec;
};

/*
 * A process's maps (proc.maps points at m), held by every process whose
 * PROCESS record gave the same ones as the record before it: forked
 * workers keep their parent's layout, and 20,000 of them held 20,000
 * copies. Freed with the last process that holds them.
 */
struct pmaps {
	uint32_t refs;
	uint32_t gen; /* psym_collectprof_finish's renumbering done when c->gen */
	struct pmap m[];
};

static struct pmaps *pmaps_of(struct pmap *m)
{
	return (struct pmaps *)(void *)((char *)m - offsetof(struct pmaps, m));
}

/* Drop a hold on the maps m (NULL: none). */
static void pmaps_put(struct pmap *m)
{
	if (m && !--pmaps_of(m)->refs)
		free(pmaps_of(m));
}

struct proc {
	uint64_t samples;
	uint64_t exe_mapping; /* the executable's profile mapping, 0 = none */
	uint64_t mntns;	      /* its mount namespace when not the collector's, else 0 */
	struct pmap *maps;
	const char *exe;  /* its executable's path as the maps name it (interned), or NULL */
	const char *comm; /* the first sample's (interned), or NULL */
	int pid;
	uint32_t n;
	uint32_t tag; /* the caller's (psym_collectprof_set_tag), 0 = none */
	/* Bits, so that the tag costs no room: 64 bytes to here. */
	uint32_t order : 29; /* position in procs (psym_collectprof_finish's sort) */
	uint32_t jit : 1;    /* a sample had a frame in anonymous executable memory */
	uint32_t exe_tried : 1;
	uint32_t forgotten : 1; /* maps freed (the process exited): unknown again */
	/* How its stacks end (psym_collectprof_fp_notes): the counts of psym_collect_fpnote. */
	uint64_t fp_samples, fp_rooted, fp_leaf_only, fp_frames, fp_frames_unmapped;
};

/* A profile mapping's identity, the key of the dedup table (bytes compared; strings interned). */
struct mkey {
	uint64_t start, limit, offset;
	const char *id, *path;
};

struct psym_collectprof {
	struct psym_collect_meta meta;
	struct psym_profile *p;
	struct psym_builder *b;
	struct proc *procs; /* in the order first seen */
	size_t nprocs, capprocs;
	struct psym_idxset by_pid;	/* pid -> index in procs */
	struct psym_hashtab by_mapping; /* struct mkey -> pb_mapping */
	struct psym_arena strs;		/* interned strings and mapping keys */
	struct psym_hashtab by_str;	/* string -> its copy in strs */
	psym_collect_buildid_fn bid_fn;
	void *bid_ud;
	uint64_t kernel_mapping;
	/*
	 * (pid, tid, comm, locations) -> index in the profile's samples: the
	 * samples themselves are the keys (their first three labels are pid,
	 * tid and comm, as psym_collectprof_add makes them).
	 */
	struct psym_idxset by_stack;
	/*
	 * Each sample's hash in by_stack (its 32 bits that make the whole:
	 * stack_wide), kept to regrow it: hashing the samples again (their
	 * labels and locations, all over memory) had been an eighth of
	 * reading a large perf.data.
	 */
	uint32_t *stack_h;
	size_t cap_stack_h;
	/*
	 * Labels to share between samples (psym_builder_label.same): for each
	 * of pid, tid, comm (by its string index) and mntns, the last label
	 * made for a value, one slot a hash of it; a miss makes a new label.
	 * Samples of one process, thread or program then hold one copy of
	 * each label they have in common, not one each (56 bytes a label).
	 */
	pb_label *shared[4][LABEL_SLOTS];
	struct psym_collect_stats st;
	size_t nvals; /* values per sample: meta.ntypes, or 2 */
	/* The last PROCESS record's maps, held to be shared (struct pmaps); none when bid_fn is set. */
	struct pmap *last_maps;
	uint32_t nlast;
	uint32_t gen;
};

/* The slot of label k (0 pid, 1 tid, 2 comm, 3 mntns) of value v. */
static pb_label **shared_slot(struct psym_collectprof *c, int k, int64_t v)
{
	return &c->shared[k][((uint64_t)v * 0x9e3779b97f4a7c15ULL) >> 56 & (LABEL_SLOTS - 1)];
}

/* The label to share for label k of value v (comm: its string index, -1 new), or NULL. */
static pb_label *shared_label(struct psym_collectprof *c, int k, int64_t v)
{
	pb_label *l = *shared_slot(c, k, v);

	if (!l || (k == 2 ? v < 0 || l->str != v : l->num != v))
		return NULL;
	return l;
}

/* The one copy of s[len] (NUL added), or NULL when out of memory. */
static const char *intern(struct psym_collectprof *c, const char *s, size_t len)
{
	struct psym_err e = { 0 };
	char *copy;
	void *v;

	if (psym_hashtab_get(&c->by_str, s, len, &v) == 0)
		return v;
	copy = psym_arena_strndup(&c->strs, s, len);
	if (!copy || psym_hashtab_put(&c->by_str, copy, len, copy, &e))
		return NULL;
	return copy;
}

static uint64_t pid_hash(const struct psym_collectprof *c, int pid)
{
	uint64_t v = (uint32_t)pid;

	return psym_idxset_hash_u64s(&c->by_pid, &v, 1);
}

static uint64_t pid_rehash(void *ctx, uint32_t i)
{
	const struct psym_collectprof *c = ctx;

	return pid_hash(c, c->procs[i].pid);
}

/* The hash of a stack's key; comm is its string_table index. */
/*
 * A stack's 64-bit hash from its 32 bits: the low half, and a high half
 * (the set's tag bits) made from it, so 4 bytes a stack keep it whole.
 */
static uint64_t stack_wide(uint32_t k)
{
	return (psym_hash_mix(k) & 0xffffffff00000000ULL) | k;
}

static uint64_t stack_hash(const struct psym_idxset *set, int pid, int tid, int64_t comm,
			   const uint64_t *locs, size_t n)
{
	uint64_t h = psym_idxset_hash_u64s(
		set, (const uint64_t[3]){ (uint32_t)pid, (uint32_t)tid, (uint64_t)comm }, 3);

	return stack_wide(
		(uint32_t)psym_hash_mix(h ^ psym_hash_bytes(locs, n * sizeof(*locs), set->seed)));
}

static uint64_t stack_rehash(void *ctx, uint32_t i)
{
	const struct psym_collectprof *c = ctx;

	return stack_wide(c->stack_h[i]);
}

/* Keep sample ix's hash h (ix: the next sample). 0 or PSYM_ENOMEM. */
static int keep_stack_hash(struct psym_collectprof *c, size_t ix, uint64_t h)
{
	uint32_t *n = psym_array_grow(c->stack_h, &c->cap_stack_h, ix + 1, sizeof(*n), 0);

	if (!n)
		return PSYM_ENOMEM;
	c->stack_h = n;
	c->stack_h[ix] = (uint32_t)h;
	return 0;
}

static pb_sample *find_stack(const struct psym_collectprof *c, uint64_t h, int pid, int tid,
			     int64_t comm, const uint64_t *locs, size_t n)
{
	PSYM_IDXSET_PROBE(&c->by_stack, h, j)
	{
		pb_sample *s = c->p->pb->sample[c->by_stack.slot[j] - 1];

		if (s->n_location_id == n && s->label[0]->num == pid && s->label[1]->num == tid &&
		    s->label[2]->str == comm && !memcmp(s->location_id, locs, n * sizeof(*locs)))
			return s;
	}
	return NULL;
}

int psym_collectprof_new(const struct psym_collect_meta *meta, struct psym_collectprof **out,
			 struct psym_err *e)
{
	struct psym_collectprof *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	c->meta = *meta;
	psym_idxset_init(&c->by_pid);
	psym_hashtab_init(&c->by_mapping, 0);
	psym_arena_init(&c->strs, PSYM_ARENA_DEFAULT_CAP);
	psym_hashtab_init(&c->by_str, 0);
	psym_idxset_init(&c->by_stack);
	if (meta->max_memory) {
		struct psym_limits lim = psym_limits_or_default(NULL);

		lim.max_memory = meta->max_memory;
		ret = psym_profile_new(&lim, &c->p, e);
	} else {
		ret = psym_profile_new(NULL, &c->p, e);
	}
	if (!ret)
		ret = psym_builder_new(c->p, &c->b, e);
	if (!ret && meta->types) {
		c->nvals = meta->ntypes;
		for (size_t i = 0; i < meta->ntypes; i++)
			if (psym_builder_sample_type(c->b, meta->types[i][0], meta->types[i][1]))
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	} else if (!ret) {
		c->nvals = 2;
		if (psym_builder_sample_type(c->b, "samples", "count") ||
		    psym_builder_sample_type(c->b, "cpu", "nanoseconds"))
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (!ret && (psym_builder_comment(c->b, PSYM_COLLECT_COMMENT) ||
		     (meta->comment && psym_builder_comment(c->b, meta->comment))))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (!ret) {
		pb_profile *pb = c->p->pb;
		pb_value_type *pt = psym_arena_alloc(&c->p->arena, sizeof(*pt));

		if (!pt) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		} else {
			perftools__profiles__value_type__init(pt);
			pt->type = psym_builder_str(c->b,
						    meta->period_type ? meta->period_type : "cpu");
			pt->unit = psym_builder_str(c->b, meta->period_unit ? meta->period_unit
									    : "nanoseconds");
			if (meta->default_type)
				pb->default_sample_type =
					psym_builder_str(c->b, meta->default_type);
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
	for (size_t i = 0; i < c->nprocs; i++)
		pmaps_put(c->procs[i].maps);
	pmaps_put(c->last_maps);
	free(c->procs);
	psym_idxset_free(&c->by_pid);
	psym_hashtab_free(&c->by_mapping);
	psym_hashtab_free(&c->by_str);
	psym_arena_free(&c->strs);
	psym_idxset_free(&c->by_stack);
	free(c->stack_h);
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
		c->procs[i].order = (uint32_t)i;
		byn[i] = &c->procs[i];
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
	c->gen++;
	for (size_t i = 0; i < c->nprocs; i++) {
		struct proc *pr = &c->procs[i];
		bool done = pr->maps && pmaps_of(pr->maps)->gen == c->gen; /* shared, renumbered */

		if (pr->maps)
			pmaps_of(pr->maps)->gen = c->gen;
		for (size_t j = 0; !done && j < pr->n; j++)
			if (pr->maps[j].mapping_id && pr->maps[j].mapping_id <= n)
				pr->maps[j].mapping_id = newid[pr->maps[j].mapping_id];
		if (pr->exe_mapping && pr->exe_mapping <= n)
			pr->exe_mapping = newid[pr->exe_mapping];
	}
	for (size_t i = 0; i < c->nprocs; i++) {
		if (byn[i]->exe_mapping != 1)
			continue;
		snprintf(line, sizeof(line),
			 PSYM_COLLECT_MAIN_COMMENT "%d (%s, %" PRIu64 " of %" PRIu64 " samples)%s",
			 byn[i]->pid, byn[i]->comm ? byn[i]->comm : "", byn[i]->samples,
			 c->st.samples, c->nprocs > 1 ? ", the process with the most samples" : "");
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
	if (c->p)
		c->p->pb->duration_nanos = c->meta.duration_ns;
	return c->p;
}

struct psym_profile *psym_collectprof_take_profile(struct psym_collectprof *c)
{
	struct psym_profile *p = psym_collectprof_profile(c);

	c->p = NULL;
	return p;
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
	uint64_t h = pid_hash(c, pid);

	PSYM_IDXSET_PROBE(&c->by_pid, h, j)
	{
		struct proc *pr = &c->procs[c->by_pid.slot[j] - 1];

		if (pr->pid == pid)
			return pr;
	}
	return NULL;
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
	pmaps_put(pr->maps);
	pr->maps = NULL;
	pr->n = 0;
	pr->forgotten = true;
}

int psym_collectprof_set_tag(struct psym_collectprof *c, int pid, uint32_t tag)
{
	struct proc *pr = find_proc(c, pid);

	if (!pr)
		return PSYM_NOENT;
	pr->tag = tag;
	return 0;
}

uint32_t psym_collectprof_tag(const struct psym_collectprof *c, int pid)
{
	const struct proc *pr = find_proc(c, pid);

	return pr ? pr->tag : 0;
}

size_t psym_collectprof_jit_pids(const struct psym_collectprof *c, int *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].jit) {
			if (n < max)
				out[n] = c->procs[i].pid;
			n++;
		}
	return n;
}

/* A new process record for pid (not yet known), or NULL when out of memory or past MAX_PROCS. */
static struct proc *add_proc(struct psym_collectprof *c, int pid)
{
	struct proc *np;

	if (c->nprocs >= MAX_PROCS)
		return NULL;
	np = psym_array_grow(c->procs, &c->capprocs, c->nprocs + 1, sizeof(*np), MAX_PROCS);
	if (!np)
		return NULL;
	c->procs = np;
	if (psym_idxset_add(&c->by_pid, (uint32_t)c->nprocs, pid_hash(c, pid), pid_rehash, c))
		return NULL;
	np = &c->procs[c->nprocs++];
	memset(np, 0, sizeof(*np));
	np->pid = pid;
	return np;
}

/* m kept as a struct pmap (strings interned): 0 or PSYM_ENOMEM. */
static int keep_map(struct psym_collectprof *c, const struct psym_procmap *m, struct pmap *out)
{
	out->start = m->start;
	out->limit = m->limit;
	out->offset = m->offset;
	out->dev = m->dev;
	out->inode = m->inode;
	out->exec = m->exec;
	out->mapping_id = 0;
	/* Both fields are NUL-terminated within their sizes (read no further). */
	out->path = intern(c, m->path, strnlen(m->path, sizeof(m->path) - 1));
	out->build_id = intern(c, m->build_id, strnlen(m->build_id, sizeof(m->build_id) - 1));
	return out->path && out->build_id ? 0 : PSYM_ENOMEM;
}

/* Two maps the same but for the profile mapping found for them (the same for both). */
static bool same_map(const struct pmap *a, const struct pmap *b)
{
	return a->start == b->start && a->limit == b->limit && a->offset == b->offset &&
	       a->dev == b->dev && a->inode == b->inode && a->path == b->path &&
	       a->build_id == b->build_id && a->exec == b->exec;
}

/*
 * The new maps m[n] (held once), or the last record's equal ones in their
 * place (m dropped). Not when build IDs are asked per pid (bid_fn): the
 * held maps' would be the first process's answers.
 */
static struct pmap *share_maps(struct psym_collectprof *c, struct pmap *m, uint32_t n)
{
	bool same = c->last_maps && c->nlast == n;

	if (c->bid_fn)
		return m;
	for (size_t i = 0; same && i < n; i++)
		same = same_map(&c->last_maps[i], &m[i]);
	if (same) {
		pmaps_put(m);
		m = c->last_maps;
	} else {
		pmaps_put(c->last_maps);
		c->last_maps = m;
		c->nlast = n;
	}
	pmaps_of(m)->refs++; /* the process's hold; c->last_maps has its own */
	return m;
}

int psym_collectprof_process(struct psym_collectprof *c, int pid, const struct psym_procmap *maps,
			     size_t n)
{
	struct proc *pr;
	struct pmaps *pm;
	struct pmap *copy;

	if (n > UINT32_MAX || n > (SIZE_MAX - sizeof(*pm)) / sizeof(*copy) - 1)
		return PSYM_ELIMIT;
	pm = malloc(sizeof(*pm) + (n ? n : 1) * sizeof(*copy));
	if (!pm)
		return PSYM_ENOMEM;
	pm->refs = 1;
	pm->gen = 0;
	copy = pm->m;
	for (size_t i = 0; i < n; i++)
		if (keep_map(c, &maps[i], &copy[i])) {
			free(pm);
			return PSYM_ENOMEM;
		}
	pr = find_proc(c, pid);
	if (!pr)
		pr = add_proc(c, pid);
	if (!pr) {
		free(pm);
		return PSYM_ENOMEM;
	}
	copy = share_maps(c, copy, n);
	pmaps_put(pr->maps);
	pr->maps = copy;
	pr->n = (uint32_t)n;
	pr->forgotten = false;
	return 0;
}

int psym_collectprof_set_exe(struct psym_collectprof *c, int pid, const char *path)
{
	struct proc *pr = find_proc(c, pid);
	const char *copy;

	if (!pr)
		return PSYM_NOENT;
	copy = intern(c, path, strlen(path));
	if (!copy)
		return PSYM_ENOMEM;
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

/*
 * The build ID of m asked of the caller's function (psym_collect_buildid_fn,
 * which takes a struct psym_procmap), interned; m keeps "" when none.
 */
static void ask_build_id(struct psym_collectprof *c, int pid, struct pmap *m)
{
	struct psym_procmap full = { .start = m->start,
				     .limit = m->limit,
				     .offset = m->offset,
				     .dev = m->dev,
				     .inode = m->inode,
				     .exec = m->exec };
	const char *id;

	snprintf(full.path, sizeof(full.path), "%s", m->path);
	c->bid_fn(c->bid_ud, pid, &full);
	if (!full.build_id[0])
		return;
	id = intern(c, full.build_id, strnlen(full.build_id, sizeof(full.build_id) - 1));
	if (id)
		m->build_id = id;
}

/* The profile mapping for a process map, shared by identical ones. */
static uint64_t mapping_for(struct psym_collectprof *c, struct proc *pr, long mi)
{
	struct pmap *m = &pr->maps[mi];
	struct psym_err e = { 0 };
	struct mkey k, *copy;
	pb_mapping *nm;
	void *v;

	if (m->mapping_id)
		return m->mapping_id;
	if (!m->build_id[0] && m->path[0] == '/' && c->bid_fn)
		ask_build_id(c, pr->pid, m);
	k = (struct mkey){ m->start, m->limit, m->offset, m->build_id, m->path };
	if (psym_hashtab_get(&c->by_mapping, &k, sizeof(k), &v) == 0)
		return m->mapping_id = ((pb_mapping *)v)->id;
	nm = psym_builder_mapping(c->b, m->start, m->limit, m->offset, m->path, m->build_id);
	if (!nm)
		return 0;
	copy = psym_arena_alloc(&c->strs, sizeof(*copy));
	if (copy) {
		*copy = k;
		psym_hashtab_put(&c->by_mapping, copy, sizeof(*copy), nm, &e);
	}
	return m->mapping_id = nm->id;
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
	long mi;

	if (!nu || (c->meta.stack_depth_max && nu >= c->meta.stack_depth_max))
		return; /* no user frames, or as deep as the sampler goes: cut */
	mi = find_map(pr, ustack[nu - 1]);
	pr->fp_samples += count;
	if (nu >= 2 && mi >= 0 && root_map(pr, mi))
		pr->fp_rooted += count;
	if (nu == 1)
		pr->fp_leaf_only += count;
	pr->fp_frames += count * nu;
	pr->fp_frames_unmapped += count * unmapped;
}

/* Anonymous executable memory: JIT code, named by perf maps. */
static bool anon_exec(const struct pmap *m)
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
	int64_t vals[MAX_VALUES] = { (int64_t)count, (int64_t)count * c->meta.period_ns };

	return psym_collectprof_add_values(c, pid, tid, comm, kstack, nk, ustack, nu, count, vals);
}

int psym_collectprof_add_values(struct psym_collectprof *c, int pid, int tid, const char *comm,
				const uint64_t *kstack, size_t nk, const uint64_t *ustack,
				size_t nu, uint64_t count, const int64_t *vals)
{
	uint64_t locs[2 * MAX_FRAMES], h;
	size_t n = 0, unmapped = 0;
	struct proc *pr = find_proc(c, pid);
	char commbuf[17];
	int64_t commix;
	pb_sample *s;

	if (nk > MAX_FRAMES)
		nk = MAX_FRAMES;
	if (nu > MAX_FRAMES)
		nu = MAX_FRAMES;
	snprintf(commbuf, sizeof(commbuf), "%s", comm ? comm : "");
	if (pr) {
		if (!pr->samples && !(pr->comm = intern(c, commbuf, strlen(commbuf))))
			return PSYM_ENOMEM;
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
		/*
		 * The first user frame is the registers' IP: the leaf, or where
		 * the kernel was entered below kernel frames (the instruction an
		 * interrupt or fault stopped, the one after a syscall), never a
		 * return address; perf looks it up as it is too.
		 */
		uint64_t a = i == 0 ? ustack[i] : ustack[i] - 1;
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
	commix = psym_builder_str_find(c->b, commbuf); /* -1: new, as its sample */
	h = stack_hash(&c->by_stack, pid, tid, commix, locs, n);
	s = commix < 0 ? NULL : find_stack(c, h, pid, tid, commix, locs, n);
	if (s) {
		/* A hostile recording's periods can sum past int64: saturated. */
		for (size_t k = 0; k < c->nvals; k++)
			if (__builtin_add_overflow(s->value[k], vals[k], &s->value[k]))
				s->value[k] = vals[k] < 0 ? INT64_MIN : INT64_MAX;
	} else {
		size_t ix = c->p->pb->n_sample, nlb = pr && pr->mntns ? 4 : 3;
		int64_t key[4] = { pid, tid, commix, pr ? (int64_t)pr->mntns : 0 };
		/* pid, tid and comm first: they are the key (find_stack). */
		struct psym_builder_label lb[4] = {
			{ .key = "pid", .num = pid },
			{ .key = "tid", .num = tid },
			{ .key = "comm", .str = commbuf },
			{ .key = "mntns", .num = key[3] },
		};

		if (ix >= UINT32_MAX)
			return PSYM_ELIMIT;
		for (size_t k = 0; k < nlb; k++)
			lb[k].same = shared_label(c, (int)k, key[k]);
		s = psym_builder_sample_labels(c->b, locs, n, vals, c->nvals, lb, nlb);
		if (!s)
			return PSYM_ENOMEM;
		key[2] = s->label[2]->str;
		for (size_t k = 0; k < nlb; k++)
			*shared_slot(c, (int)k, key[k]) = s->label[k];
		if (commix < 0) /* comm is in the string table now */
			h = stack_hash(&c->by_stack, pid, tid, s->label[2]->str, locs, n);
		if (keep_stack_hash(c, ix, h) ||
		    psym_idxset_add(&c->by_stack, (uint32_t)ix, h, stack_rehash, c))
			return PSYM_ENOMEM;
		c->st.stacks++;
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
		const struct proc *pr = &c->procs[i];
		struct psym_collect_fpnote f = {
			.pid = pr->pid,
			.samples = pr->fp_samples,
			.rooted = pr->fp_rooted,
			.leaf_only = pr->fp_leaf_only,
			.frames = pr->fp_frames,
			.frames_unmapped = pr->fp_frames_unmapped,
		};

		if (!psym_collect_fp_broken(&f, min_samples))
			continue;
		snprintf(f.comm, sizeof(f.comm), "%s", pr->comm ? pr->comm : "");
		if (n < max)
			out[n] = f;
		n++;
	}
	return n;
}
