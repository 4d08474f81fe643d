/* SPDX-License-Identifier: MIT */
/* A perf.data recording's processes: mappings, comms, build IDs. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "array.h"
#include "hashtab.h"
#include "perftrack.h"

#define MAX_PROCS ((size_t)1 << 20)
#define MAX_THREADS ((size_t)1 << 22)
#define MAX_STRINGS ((size_t)1 << 22)

struct tmap {
	uint64_t start, end, pgoff;
	const char *path, *bid; /* interned; bid NULL: none */
};

struct proc {
	uint32_t pid; /* the key */
	struct tmap *maps;
	size_t n, cap;
	const char *exe; /* interned, or NULL */
	bool want_exe;	 /* the next file mapping is the executable */
	/*
	 * A COMM exec came: the old image's mappings stand until the new
	 * image's first MMAP (samples in execve between the two still have
	 * the old image's user registers, as perf keeps its maps).
	 */
	bool exec_pending;
	enum psym_perftrack_change change;
};

struct thread {
	uint32_t tid; /* the key */
	char comm[17];
};

struct psym_perftrack {
	struct psym_hashtab procs, threads, strs, bids;
	struct psym_arena arena; /* interned strings, build-ID keys */
	const char *kernel_bid;
	const char *name; /* the recording's, for messages (the reader's) */
	struct psym_procmap *scratch;
	size_t capscratch;
};

static const char *intern(struct psym_perftrack *t, const char *s)
{
	void *v;
	char *c;

	if (!psym_hashtab_get(&t->strs, s, strlen(s), &v))
		return v;
	c = psym_arena_strdup(&t->arena, s);
	if (!c || psym_hashtab_put(&t->strs, c, strlen(c), c, NULL))
		return NULL;
	return c;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * n] = 0;
}

/* The build-ID table by "PID NAME" and by "NAME" (user files), the kernel's apart. */
static int index_build_ids(struct psym_perftrack *t, const struct psym_perfdata *d,
			   struct psym_err *e)
{
	size_t n;
	const struct psym_perf_build_id *b = psym_perfdata_build_ids(d, &n);

	for (size_t i = 0; i < n; i++) {
		char h[2 * PSYM_PERF_BUILD_ID_MAX + 1];
		const char *id, *k1, *k2;
		void *v;

		if (!b[i].len)
			continue;
		hex(b[i].id, b[i].len, h);
		id = intern(t, h);
		if (!id)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if ((b[i].misc & 7) == PSYM_PERF_MISC_KERNEL &&
		    !strcmp(b[i].filename, "[kernel.kallsyms]")) {
			t->kernel_bid = id;
			continue;
		}
		if ((b[i].misc & 7) != PSYM_PERF_MISC_USER && (b[i].misc & 7) != 0)
			continue; /* guests' and modules' */
		k1 = psym_arena_printf(&t->arena, "%d %s", (int)b[i].pid, b[i].filename);
		k2 = intern(t, b[i].filename);
		if (!k1 || !k2 || psym_hashtab_put(&t->bids, k1, strlen(k1), (void *)id, e))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if (psym_hashtab_get(&t->bids, k2, strlen(k2), &v) &&
		    psym_hashtab_put(&t->bids, k2, strlen(k2), (void *)id, e))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	return 0;
}

int psym_perftrack_new(const struct psym_perfdata *d, struct psym_perftrack **out,
		       struct psym_err *e)
{
	struct psym_perftrack *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!t)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	psym_hashtab_init(&t->procs, MAX_PROCS);
	psym_hashtab_init(&t->threads, MAX_THREADS);
	psym_hashtab_init(&t->strs, MAX_STRINGS);
	psym_hashtab_init(&t->bids, MAX_STRINGS);
	psym_arena_init(&t->arena, (size_t)1 << 30);
	t->name = psym_perfdata_name(d);
	ret = index_build_ids(t, d, e);
	if (ret) {
		psym_perftrack_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

void psym_perftrack_free(struct psym_perftrack *t)
{
	size_t pos = 0;
	void *v;

	if (!t)
		return;
	while (psym_hashtab_next(&t->procs, &pos, NULL, NULL, &v)) {
		free(((struct proc *)v)->maps);
		free(v);
	}
	pos = 0;
	while (psym_hashtab_next(&t->threads, &pos, NULL, NULL, &v))
		free(v);
	psym_hashtab_free(&t->procs);
	psym_hashtab_free(&t->threads);
	psym_hashtab_free(&t->strs);
	psym_hashtab_free(&t->bids);
	psym_arena_free(&t->arena);
	free(t->scratch);
	free(t);
}

static struct proc *find_proc(const struct psym_perftrack *t, uint32_t pid)
{
	void *v;

	return psym_hashtab_get(&t->procs, &pid, sizeof(pid), &v) ? NULL : v;
}

/* pid's record, made empty (a new process image) when new or asked to be. */
static struct proc *get_proc(struct psym_perftrack *t, uint32_t pid, bool fresh, struct psym_err *e)
{
	struct proc *p = find_proc(t, pid);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			psym_err_set(e, PSYM_ENOMEM, "out of memory");
			return NULL;
		}
		p->pid = pid;
		if (psym_hashtab_put(&t->procs, &p->pid, sizeof(p->pid), p, e)) {
			free(p);
			return NULL;
		}
		fresh = true;
	}
	if (fresh) {
		p->n = 0;
		p->exec_pending = false;
		p->exe = NULL;
		p->want_exe = true;
		p->change = PSYM_PERFTRACK_NEW;
	}
	return p;
}

static struct thread *get_thread(struct psym_perftrack *t, uint32_t tid, struct psym_err *e)
{
	void *v;
	struct thread *th;

	if (!psym_hashtab_get(&t->threads, &tid, sizeof(tid), &v))
		return v;
	th = calloc(1, sizeof(*th));
	if (!th) {
		psym_err_set(e, PSYM_ENOMEM, "out of memory");
		return NULL;
	}
	th->tid = tid;
	if (psym_hashtab_put(&t->threads, &th->tid, sizeof(th->tid), th, e)) {
		free(th);
		return NULL;
	}
	return th;
}

/* Room for k more mappings of p. */
static int room(const struct psym_perftrack *t, struct proc *p, size_t k, struct psym_err *e)
{
	struct tmap *m;

	if (p->n + k > PSYM_PROCMAPS_MAX)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': process %u: more than %d mappings",
				    t->name, p->pid, PSYM_PROCMAPS_MAX);
	m = psym_array_grow(p->maps, &p->cap, p->n + k, sizeof(*m), PSYM_PROCMAPS_MAX);
	if (!m)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	p->maps = m;
	return 0;
}

/* Cut what overlaps [s, e) out of p's mappings (its pieces outside stay). */
static int cut(const struct psym_perftrack *t, struct proc *p, uint64_t s, uint64_t end,
	       struct psym_err *e)
{
	for (size_t i = 0; i < p->n; i++) {
		struct tmap *m = &p->maps[i], right;

		if (m->end <= s || m->start >= end)
			continue;
		right = *m;
		right.pgoff += end > m->start ? end - m->start : 0;
		right.start = end;
		if (m->start < s) {
			m->end = s; /* the left piece stays here */
			if (right.end > end) {
				int ret = room(t, p, 1, e);

				if (ret)
					return ret;
				p->maps[p->n++] = right;
			}
		} else if (m->end > end) {
			*m = right;
		} else {
			p->maps[i--] = p->maps[--p->n];
		}
	}
	return 0;
}

/* One of the ELF files perf inject --jit writes per JIT code object (jitted-PID-N.so). */
static bool jitted(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	return !strncmp(b, "jitted-", 7) && n > 10 && !strcmp(b + n - 3, ".so");
}

int psym_perftrack_mmap(struct psym_perftrack *t, const struct psym_perf_mmap *m,
			struct psym_err *e)
{
	struct proc *p;
	struct tmap nm = { m->start, m->start + m->len, m->pgoff, NULL, NULL };
	int ret;

	if (m->pid == UINT32_MAX || !m->exec || !m->len || nm.end < nm.start)
		return 0; /* the kernel's and modules' (one kernel mapping), data */
	p = get_proc(t, m->pid, false, e);
	if (!p)
		return e->code;
	if (p->exec_pending) {
		get_proc(t, m->pid, true, e); /* the new image begins: emptied */
		p->exec_pending = false;
	}
	nm.path = intern(t, m->filename);
	if (!nm.path)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (m->build_id_len) {
		char h[2 * PSYM_PERF_BUILD_ID_MAX + 1];

		hex(m->build_id, m->build_id_len, h);
		nm.bid = intern(t, h);
	} else {
		char key[600];
		void *v;

		snprintf(key, sizeof(key), "%d %s", (int)m->pid, m->filename);
		/* This process's entry, else any of the same name. */
		if (!psym_hashtab_get(&t->bids, key, strlen(key), &v) ||
		    !psym_hashtab_get(&t->bids, m->filename, strlen(m->filename), &v))
			nm.bid = v;
	}
	ret = cut(t, p, nm.start, nm.end, e);
	if (!ret)
		ret = room(t, p, 1, e);
	if (ret == PSYM_ELIMIT && jitted(m->filename))
		return psym_err_set(
			e, ret,
			"'%s': process %u: more than %d mappings at the record at offset "
			"%" PRIu64 " (perf inject --jit's jitted-*.so files: give psym "
			"the recording from before perf inject, it reads the jitdump "
			"itself)",
			t->name, p->pid, PSYM_PROCMAPS_MAX, m->offset);
	if (ret)
		return ret;
	p->maps[p->n++] = nm;
	if (p->want_exe && m->filename[0] == '/') {
		p->exe = nm.path;
		p->want_exe = false;
	}
	if (p->change == PSYM_PERFTRACK_SAME)
		p->change = PSYM_PERFTRACK_MAPS;
	return 0;
}

int psym_perftrack_comm(struct psym_perftrack *t, const struct psym_perf_comm *c,
			struct psym_err *e)
{
	struct thread *th = get_thread(t, c->tid, e);

	if (!th)
		return e->code;
	snprintf(th->comm, sizeof(th->comm), "%s", c->comm);
	if (c->exec) {
		struct proc *p = get_proc(t, c->pid, false, e);

		if (!p)
			return e->code;
		p->exec_pending = true;
	}
	return 0;
}

int psym_perftrack_task(struct psym_perftrack *t, const struct psym_perf_task *k,
			struct psym_err *e)
{
	struct thread *th, *parent;
	struct proc *p, *pp;

	if (!k->fork) {
		/* The process is gone (its main thread exits last): its mappings go. */
		if (k->pid == k->tid && (p = find_proc(t, k->pid)) != NULL) {
			free(p->maps);
			p->maps = NULL;
			p->n = p->cap = 0;
		}
		return 0;
	}
	parent = get_thread(t, k->ptid, e);
	th = parent ? get_thread(t, k->tid, e) : NULL;
	if (!th)
		return e->code;
	memcpy(th->comm, parent->comm, sizeof(th->comm));
	if (k->pid == k->ppid)
		return 0; /* a new thread */
	p = get_proc(t, k->pid, true, e);
	if (!p)
		return e->code;
	pp = find_proc(t, k->ppid);
	if (pp && pp->n) {
		int ret = room(t, p, pp->n, e);

		if (ret)
			return ret;
		memcpy(p->maps, pp->maps, pp->n * sizeof(*p->maps));
		p->n = pp->n;
		p->exe = pp->exe;
		p->want_exe = pp->want_exe;
	}
	return 0;
}

const char *psym_perftrack_comm_of(const struct psym_perftrack *t, uint32_t pid, uint32_t tid)
{
	void *v;

	if (!psym_hashtab_get(&t->threads, &tid, sizeof(tid), &v) ||
	    !psym_hashtab_get(&t->threads, &pid, sizeof(pid), &v))
		return ((struct thread *)v)->comm;
	return "";
}

enum psym_perftrack_change psym_perftrack_changed(const struct psym_perftrack *t, uint32_t pid)
{
	const struct proc *p = find_proc(t, pid);

	return p ? p->change : PSYM_PERFTRACK_UNKNOWN;
}

int psym_perftrack_take(struct psym_perftrack *t, uint32_t pid, const struct psym_procmap **maps,
			size_t *n, const char **exe, struct psym_err *e)
{
	struct proc *p = find_proc(t, pid);
	struct psym_procmap *m;

	*maps = NULL;
	*n = 0;
	*exe = NULL;
	if (!p)
		return 0;
	m = psym_array_grow(t->scratch, &t->capscratch, p->n ? p->n : 1, sizeof(*m),
			    PSYM_PROCMAPS_MAX);
	if (!m)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	t->scratch = m;
	for (size_t i = 0; i < p->n; i++) {
		memset(&m[i], 0, sizeof(m[i]));
		m[i].start = p->maps[i].start;
		m[i].limit = p->maps[i].end;
		m[i].offset = p->maps[i].pgoff;
		m[i].exec = true;
		snprintf(m[i].path, sizeof(m[i].path), "%s", p->maps[i].path);
		if (p->maps[i].bid)
			snprintf(m[i].build_id, sizeof(m[i].build_id), "%s", p->maps[i].bid);
	}
	p->change = PSYM_PERFTRACK_SAME;
	*maps = m;
	*n = p->n;
	*exe = p->exe;
	return 0;
}

const char *psym_perftrack_kernel_build_id(const struct psym_perftrack *t)
{
	return t->kernel_bid;
}
