/* SPDX-License-Identifier: MIT */
/*
 * perf.data as an input (issue 50): its records through the collector's
 * profile builder, as perf_to_profile lays them out: per event a
 * "EVENT_sample" count and an "EVENT_event" value (the periods: in
 * nanoseconds for cpu-clock and task-clock), the last event's the
 * default; labels pid, tid and comm (the thread's as of the sample);
 * each process's mappings as its MMAP records gave them until the sample,
 * its executable first; kernel frames in one [kernel.kallsyms] mapping
 * with the build ID of the file's table. A --call-graph dwarf recording
 * also hands its stack copies to the unwinder (in->stacks), with perf's
 * own callchain kept in the profile meanwhile.
 */
#include "config.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectprof.h"
#include "in_perf.h"
#include "perfdata.h"
#include "perfmap.h"
#include "perftrack.h"
#include "unwindprof.h"
#include "unwregs.h"

#define MAX_FRAMES 512
#define MAX_JITDUMPS 1024 /* jitdump comments in one profile */

/* What stays with the input: the reader (over in->buf or in->fd) for the stack pass. */
struct perf_state {
	struct psym_perfdata *d;
	uint16_t machine;
};

/* One pass over the records: the profile's, or the stack copies'. */
struct pass {
	struct psym_perfdata *d;
	struct psym_perftrack *t;
	struct psym_err *e;
	/* The profile pass. */
	struct psym_collectprof *c;
	int64_t *vals;
	size_t nvals;
	uint64_t first, last; /* sample times */
	size_t njitdumps;
	char last_jitdump[4200]; /* the last jitdump comment: a file mapped again is said once */
	/* The stack pass. */
	const struct psym_ustacks_reader_ops *ops;
	void *ops_ud;
	uint16_t machine;
	uint64_t k[MAX_FRAMES], u[MAX_FRAMES];
};

bool psym_perf_sniff(const unsigned char *buf, size_t len)
{
	return psym_perfdata_sniff(buf, len);
}

/*
 * A JIT's jitdump (jit-PID.dump, mapped so that perf records where it
 * is): said in the profile for the JIT resolver, which reads it when it
 * is still the file the recording mapped (perfmap.h).
 */
static int jitdump_mmap(struct pass *p, const struct psym_perf_mmap *m)
{
	struct psym_jitdump_rec r = {
		.pid = (int)m->pid,
		.has_inode = m->has_inode,
		.maj = m->maj,
		.min = m->min,
		.ino = m->ino,
		.path = m->filename,
	};
	char line[sizeof(p->last_jitdump)];

	if (!p->c || m->pid == 0 || m->pid > INT32_MAX || m->filename[0] != '/' ||
	    !psym_jitdump_name_pid(m->filename) || p->njitdumps >= MAX_JITDUMPS ||
	    !psym_jitdump_comment(&r, line, sizeof(line)) || !strcmp(line, p->last_jitdump))
		return 0;
	memcpy(p->last_jitdump, line, sizeof(line));
	p->njitdumps++;
	return psym_collectprof_comment(p->c, line)
		       ? psym_err_set(p->e, PSYM_ENOMEM, "out of memory")
		       : 0;
}

static int on_mmap(void *ud, const struct psym_perf_mmap *m)
{
	struct pass *p = ud;
	int ret = jitdump_mmap(p, m);

	return ret ? ret : psym_perftrack_mmap(p->t, m, p->e);
}

static int on_comm(void *ud, const struct psym_perf_comm *c)
{
	struct pass *p = ud;

	return psym_perftrack_comm(p->t, c, p->e);
}

static int on_task(void *ud, const struct psym_perf_task *k)
{
	struct pass *p = ud;

	return psym_perftrack_task(p->t, k, p->e);
}

/*
 * The callchain's kernel and user parts, leaf first, its context markers
 * dropped (guest and hypervisor frames with them); without a callchain,
 * the sample's IP. A user part that is empty gets user_ip when nonzero.
 */
static void split(struct pass *p, const struct psym_perf_sample *s, uint64_t user_ip, size_t *nk,
		  size_t *nu)
{
	int ctx = (s->misc & 7) == PSYM_PERF_MISC_KERNEL ? 1 : (s->misc & 7) == 2 ? 2 : 0;

	*nk = *nu = 0;
	if (!s->callchain) {
		if (ctx == 1)
			p->k[(*nk)++] = s->ip;
		else if (ctx == 2)
			p->u[(*nu)++] = s->ip;
	}
	for (size_t i = 0; s->callchain && i < s->nr_callchain; i++) {
		uint64_t a = s->callchain[i];

		if (a >= PSYM_PERF_CONTEXT_MAX)
			ctx = a == PSYM_PERF_CONTEXT_KERNEL ? 1
			      : a == PSYM_PERF_CONTEXT_USER ? 2
							    : 0;
		else if (ctx == 1 && *nk < MAX_FRAMES)
			p->k[(*nk)++] = a;
		else if (ctx == 2 && *nu < MAX_FRAMES)
			p->u[(*nu)++] = a;
	}
	if (!*nu && user_ip)
		p->u[(*nu)++] = user_ip;
}

/* The user IP of a sample taken in the kernel, from its user registers. */
static uint64_t regs_ip(const struct psym_perf_sample *s, uint16_t machine)
{
	unsigned bit = machine == EM_AARCH64 ? 32 : 8; /* perf's PC / IP */
	uint64_t mask = s->attr->sample_regs_user;

	if (!s->regs_abi || !(mask & ((uint64_t)1 << bit)) || (s->misc & 7) == 2)
		return 0;
	return s->regs[__builtin_popcountll(mask & (((uint64_t)1 << bit) - 1))];
}

/* Tell the builder of pid's mappings when they changed since its last sample. */
static int sync_profile(struct pass *p, uint32_t pid)
{
	enum psym_perftrack_change ch = psym_perftrack_changed(p->t, pid);
	const struct psym_procmap *maps;
	const char *exe;
	size_t n;
	int ret;

	if (ch == PSYM_PERFTRACK_SAME || ch == PSYM_PERFTRACK_UNKNOWN)
		return 0;
	if (ch == PSYM_PERFTRACK_NEW)
		psym_collectprof_forget(p->c, (int)pid);
	ret = psym_perftrack_take(p->t, pid, &maps, &n, &exe, p->e);
	if (!ret)
		ret = psym_collectprof_process(p->c, (int)pid, maps, n);
	if (!ret && exe)
		ret = psym_collectprof_set_exe(p->c, (int)pid, exe);
	if (ret < 0)
		return psym_err_set(p->e, ret, "out of memory");
	return 0;
}

static int on_sample(void *ud, const struct psym_perf_sample *s)
{
	struct pass *p = ud;
	size_t nk, nu;
	int ret = sync_profile(p, s->pid);

	if (ret)
		return ret;
	split(p, s, regs_ip(s, p->machine), &nk, &nu);
	memset(p->vals, 0, p->nvals * sizeof(*p->vals));
	p->vals[2 * s->attr_index] = 1;
	p->vals[2 * s->attr_index + 1] = (int64_t)s->period;
	if (s->time && (!p->first || s->time < p->first))
		p->first = s->time;
	if (s->time > p->last)
		p->last = s->time;
	ret = psym_collectprof_add_values(p->c, (int)s->pid, (int)s->tid,
					  psym_perftrack_comm_of(p->t, s->pid, s->tid), p->k, nk,
					  p->u, nu, 1, p->vals);
	if (ret < 0)
		return psym_err_set(p->e, ret, "cannot add a sample: %s", psym_strerror(ret));
	return 0;
}

/* EVENT_sample/count and EVENT_event/UNIT per event, as perf_to_profile names them. */
static int sample_types(struct psym_perfdata *d, const char *(**types)[2], char **names,
			size_t *ntypes, struct psym_err *e)
{
	size_t na, len = 0;
	const struct psym_perf_attr *a = psym_perfdata_attrs(d, &na);
	const char *(*t)[2] = calloc(2 * na, sizeof(*t));
	char *s;

	for (size_t i = 0; i < na; i++)
		len += 2 * strlen(a[i].name) + 16;
	s = *names = malloc(len);
	if (!t || !s) {
		free(t);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < na; i++) {
		bool clock = (a[i].type == 1 && a[i].config <= 1); /* cpu-clock, task-clock */

		t[2 * i][0] = s;
		s += sprintf(s, "%s_sample", a[i].name) + 1;
		t[2 * i][1] = "count";
		t[2 * i + 1][0] = s;
		s += sprintf(s, "%s_event", a[i].name) + 1;
		t[2 * i + 1][1] = clock ? "nanoseconds" : "count";
	}
	*types = t;
	*ntypes = 2 * na;
	return 0;
}

static bool wants_unwinding(struct psym_perfdata *d)
{
	size_t na;
	const struct psym_perf_attr *a = psym_perfdata_attrs(d, &na);

	for (size_t i = 0; i < na; i++)
		if ((a[i].sample_type & PSYM_PERF_SAMPLE_REGS_USER) &&
		    (a[i].sample_type & PSYM_PERF_SAMPLE_STACK_USER))
			return true;
	return false;
}

static int new_builder(struct pass *p, const struct psym_limits *lim, struct psym_err *e)
{
	const struct psym_perf_info *info = psym_perfdata_info(p->d);
	struct psym_collect_meta meta = { 0 };
	const char *(*types)[2] = NULL;
	char *names = NULL, line[4096];
	size_t na;
	const struct psym_perf_attr *a = psym_perfdata_attrs(p->d, &na);
	int ret = sample_types(p->d, &types, &names, &meta.ntypes, e);

	if (ret)
		return ret;
	meta.types = (const char *const(*)[2])types;
	meta.period_type = types[1][0];
	meta.period_unit = types[1][1];
	meta.period_ns = a[0].freq ? 0 : (int64_t)a[0].period;
	meta.default_type = types[meta.ntypes - 1][0];
	meta.kernel_build_id = psym_perftrack_kernel_build_id(p->t);
	meta.max_memory = lim ? lim->max_memory : 0;
	if (wants_unwinding(p->d))
		meta.comment = PSYM_USTACKS_COMMENT;
	ret = psym_collectprof_new(&meta, &p->c, e);
	free(types);
	free(names);
	if (ret)
		return ret;
	p->nvals = meta.ntypes;
	p->vals = calloc(p->nvals, sizeof(*p->vals));
	if (!p->vals)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (info->version[0]) {
		snprintf(line, sizeof(line), "perf-version:%s", info->version);
		ret = psym_collectprof_comment(p->c, line);
	}
	if (!ret && info->cmdline[0]) {
		snprintf(line, sizeof(line), "perf-command:%s", info->cmdline);
		ret = psym_collectprof_comment(p->c, line);
	}
	return ret ? psym_err_set(e, ret, "out of memory") : 0;
}

static uint16_t machine_of(const struct psym_perfdata *d)
{
	const char *arch = psym_perfdata_info(d)->arch;

	return !strcmp(arch, "aarch64") || !strcmp(arch, "arm64") ? EM_AARCH64 : EM_X86_64;
}

/*
 * Read the records into the profile; a bad record ends the reading with
 * e set, and the profile is made of what came before it (ret kept).
 */
static int build(struct pass *p, const struct psym_limits *lim, struct psym_profile **out,
		 struct psym_err *e)
{
	static const struct psym_perf_tool tool = {
		.sample = on_sample, .mmap = on_mmap, .comm = on_comm, .task = on_task
	};
	struct psym_err e2 = { 0 };
	int ret, ret2;

	ret = psym_perftrack_new(p->d, &p->t, e);
	if (!ret)
		ret = new_builder(p, lim, e);
	if (ret)
		return ret;
	ret = psym_perfdata_run(p->d, &tool, p, e);
	if (ret && ret != PSYM_EBADINPUT)
		return ret;
	ret2 = psym_collectprof_finish(p->c, (int64_t)(p->last - p->first));
	if (ret2)
		return psym_err_set(e, ret2, "out of memory");
	*out = psym_collectprof_take_profile(p->c);
	ret2 = psym_profile_validate(*out, &e2);
	if (ret2) {
		psym_profile_free(*out);
		*out = NULL;
		*e = e2;
		return ret2;
	}
	return ret;
}

/* The stack pass: PROCESS records as processes change, SAMPLE records with their copies. */
static int stack_sync(struct pass *p, uint32_t pid)
{
	enum psym_perftrack_change ch = psym_perftrack_changed(p->t, pid);
	const struct psym_procmap *maps;
	const char *exe;
	size_t n;
	int ret;

	if (ch == PSYM_PERFTRACK_SAME || ch == PSYM_PERFTRACK_UNKNOWN)
		return 0;
	ret = psym_perftrack_take(p->t, pid, &maps, &n, &exe, p->e);
	if (!ret)
		ret = p->ops->process(p->ops_ud, (int)pid, maps, n);
	if (!ret && exe && p->ops->exe)
		ret = p->ops->exe(p->ops_ud, (int)pid, exe);
	return ret;
}

/* perf's user registers (sample_regs_user's bits, perf's numbering) in DWARF's. */
static void convert_regs(const struct psym_perf_sample *s, uint16_t machine,
			 struct psym_unwind_regs *r)
{
	/* x86-64: perf's AX BX CX DX SI DI BP SP IP, then R8..R15 at 16..23. */
	static const int8_t x86[24] = { 0,  3,	2,  1,	4, 5, 6,  7,  16, -1, -1, -1,
					-1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15 };
	uint64_t mask = s->attr->sample_regs_user;
	size_t k = 0;

	memset(r, 0, sizeof(*r));
	r->machine = machine;
	if (!s->regs_abi)
		return;
	for (unsigned bit = 0; bit < 64 && k < s->nregs; bit++) {
		int to = -1;

		if (!(mask & ((uint64_t)1 << bit)))
			continue;
		if (machine == EM_AARCH64)
			to = bit < PSYM_CFI_NREGS ? (int)bit : -1; /* x0..x30, sp, pc */
		else if (bit < sizeof(x86))
			to = x86[bit];
		if (to >= 0) {
			r->r[to] = s->regs[k];
			r->valid |= (uint64_t)1 << to;
		}
		k++;
	}
}

static int stack_sample(void *ud, const struct psym_perf_sample *s)
{
	struct pass *p = ud;
	struct psym_ustack_sample us = { 0 };
	size_t nk, nu;
	int ret = stack_sync(p, s->pid);

	if (ret)
		return ret;
	split(p, s, 0, &nk, &nu);
	us.pid = s->pid;
	us.tid = s->tid;
	us.cpu = s->cpu;
	us.time_ns = s->time;
	snprintf(us.comm, sizeof(us.comm), "%s", psym_perftrack_comm_of(p->t, s->pid, s->tid));
	convert_regs(s, p->machine, &us.regs);
	us.kstack = p->k;
	us.nk = nk < PSYM_USTACKS_MAX_KSTACK ? nk : PSYM_USTACKS_MAX_KSTACK;
	us.stack = s->stack;
	us.stack_len = s->dyn_size;
	memset(p->vals, 0, p->nvals * sizeof(*p->vals));
	p->vals[2 * s->attr_index] = 1;
	p->vals[2 * s->attr_index + 1] = (int64_t)s->period;
	us.values = p->vals;
	us.nvalues = p->nvals;
	return p->ops->sample(p->ops_ud, &us);
}

static int perf_stacks(void *ud, const struct psym_ustacks_reader_ops *ops, void *ops_ud,
		       struct psym_err *e)
{
	static const struct psym_perf_tool tool = {
		.sample = stack_sample, .mmap = on_mmap, .comm = on_comm, .task = on_task
	};
	struct perf_state *st = ud;
	struct pass *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	p->d = st->d;
	p->e = e;
	p->ops = ops;
	p->ops_ud = ops_ud;
	p->machine = st->machine;
	psym_perfdata_attrs(p->d, &p->nvals);
	p->nvals *= 2;
	p->vals = calloc(p->nvals, sizeof(*p->vals));
	ret = p->vals ? psym_perftrack_new(p->d, &p->t, e)
		      : psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (!ret)
		ret = psym_perfdata_run(p->d, &tool, p, e);
	psym_perftrack_free(p->t);
	free(p->vals);
	free(p);
	return ret;
}

static void perf_free_state(void *state, void *stacks_ud)
{
	struct perf_state *st = state;

	(void)stacks_ud; /* the same */
	if (st)
		psym_perfdata_free(st->d);
	free(st);
}

/* The profile of the reader d (taken over: kept in in->state or freed). */
static int perf_read_from(struct psym_perfdata *d, const struct psym_limits *lim,
			  struct psym_input *in, struct psym_err *e)
{
	struct pass *p = calloc(1, sizeof(*p));
	struct perf_state *st = calloc(1, sizeof(*st));
	int ret;

	if (!p || !st) {
		psym_perfdata_free(d);
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	st->d = d;
	/* A quarter of the profile's cap for the time ordering, PSYM_PERF_QUEUE_CAP at most. */
	if (lim && lim->max_memory && lim->max_memory / 4 < PSYM_PERF_QUEUE_CAP)
		psym_perfdata_set_queue_cap(d, lim->max_memory / 4);
	st->machine = machine_of(st->d);
	p->d = st->d;
	p->e = e;
	p->machine = st->machine;
	ret = build(p, lim, &in->profile, e);
	/*
	 * Read in part: the samples before the bad record are kept, the
	 * record said once (psym_input.partial); none read is an error.
	 */
	if (ret < 0 && ret != PSYM_ENOMEM && in->profile && in->profile->pb->n_sample) {
		in->partial = *e;
		*e = (struct psym_err){ 0 };
		ret = 0;
	}
	if (in->profile && wants_unwinding(st->d)) {
		in->stacks = perf_stacks;
		in->stacks_ud = st;
	}
	if (in->profile) {
		in->state = st;
		st = NULL;
	}
out:
	if (p) {
		psym_collectprof_free(p->c);
		psym_perftrack_free(p->t);
		free(p->vals);
	}
	free(p);
	perf_free_state(st, NULL);
	return ret;
}

static int perf_read(const unsigned char *buf, size_t len, bool was_gzip, unsigned flags,
		     const struct psym_limits *lim, struct psym_input *in, struct psym_err *e)
{
	struct psym_perfdata *d;
	int ret;

	(void)was_gzip;
	(void)flags;
	ret = psym_perfdata_open(buf, len, in->name, &d, e);
	return ret ? ret : perf_read_from(d, lim, in, e);
}

/* A regular file: its records streamed (pipe mode, rare in a file, is read whole). */
static int perf_read_fd(int fd, uint64_t size, const unsigned char *head, size_t hlen,
			unsigned flags, const struct psym_limits *lim, struct psym_input *in,
			struct psym_err *e)
{
	struct psym_perfdata *d;
	int ret;

	(void)flags;
	if (psym_perfdata_is_pipe(head, hlen))
		return 1;
	ret = psym_perfdata_open_fd(fd, size, in->name, &d, e);
	return ret ? ret : perf_read_from(d, lim, in, e);
}

const struct psym_input_kind psym_input_perf = {
	.name = "perf.data",
	.sniff = psym_perf_sniff,
	.read = perf_read,
	.read_fd = perf_read_fd,
	.write = NULL,
	.free_state = perf_free_state,
};
