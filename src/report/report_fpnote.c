/* SPDX-License-Identifier: MIT */
/*
 * Frame pointers that lie (issue 42): a process built without frame
 * pointers gives stacks that stop at the sampled frame or wander into no
 * mapping. Told from the profile as collectprof.h's rule tells it in the
 * collector, with the names psym symbolize gave: a stack reaches a root
 * when its outermost user frame is a process's or a thread's entry.
 * Only samples with a pid label are judged (psym-collect's): other
 * profilers' stacks (Java's, Go's) end where their runtimes start.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "collectprof.h"
#include "hashtab.h"
#include "report.h"
#include "textesc.h"

#define MAX_PROCS (1 << 20)
/* As deep as the collector's sampler goes: such a stack may be cut. */
#define DEPTH_CUT 127

/* Where every walk of intact frames ends: the entries of processes and threads. */
static const char *const roots[] = {
	"_start",
	"__libc_start_main",
	"__libc_start_main_impl",
	"__libc_start_call_main",
	"__libc_start_main_alias_2",
	"clone",
	"clone3",
	"__clone",
	"__clone3",
	"__clone_internal",
	"start_thread",
	"thread_start",
	"_dl_start",
	"_dl_start_user",
	"runtime.goexit",
	"runtime.goexit.abi0",
	"runtime.mstart",
	"runtime.mstart.abi0",
	"runtime.rt0_go",
	"runtime.rt0_go.abi0",
};

enum outer {
	OUTER_ROOT,
	OUTER_OTHER,  /* a named frame that is no entry, or no mapping at all */
	OUTER_UNNAMED /* in a mapping but not symbolized: not judged */
};

static enum outer outer_kind(const struct psym_profile *p, const pb_location *l)
{
	const pb_function *fn;
	const char *name;

	if (!l || (!l->mapping_id && !l->n_line))
		return OUTER_OTHER; /* a frame in no mapping: the walk wandered off */
	if (!l->n_line)
		return OUTER_UNNAMED;
	/* The last line is the caller the others were inlined into. */
	fn = psym_profile_function(p, l->line[l->n_line - 1]->function_id);
	name = fn ? psym_profile_str(p, fn->name) : "";
	if (!name[0])
		return OUTER_UNNAMED;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(name, roots[i]))
			return OUTER_ROOT;
	return OUTER_OTHER;
}

static bool kernel_loc(const struct psym_profile *p, const pb_location *l)
{
	const pb_mapping *m = l->mapping_id ? psym_profile_mapping(p, l->mapping_id) : NULL;

	if (m && !strncmp(psym_profile_str(p, m->filename), "[kernel", 7))
		return true;
	return l->address >= 0xffff800000000000ULL;
}

/* The sample's pid and comm labels (pid 0, comm "": none). */
static void sample_proc(const struct psym_profile *p, const pb_sample *s, int *pid,
			const char **comm)
{
	*pid = 0;
	*comm = "";
	for (size_t j = 0; j < s->n_label; j++) {
		const char *k = psym_profile_str(p, s->label[j]->key);

		if (!strcmp(k, "pid") && s->label[j]->num > 0 && s->label[j]->num <= INT32_MAX)
			*pid = (int)s->label[j]->num;
		else if (!strcmp(k, "comm") && s->label[j]->str)
			*comm = psym_profile_str(p, s->label[j]->str);
	}
}

struct procs {
	struct psym_hashtab by_pid; /* pid -> struct psym_collect_fpnote */
	struct psym_collect_fpnote **f;
	size_t n, cap;
};

static struct psym_collect_fpnote *proc_get(struct procs *ps, int pid, const char *comm)
{
	struct psym_collect_fpnote *f, **nf;
	struct psym_err e = { 0 };
	void *v;

	if (psym_hashtab_get(&ps->by_pid, &pid, sizeof(pid), &v) == 0)
		return v;
	nf = psym_array_grow(ps->f, &ps->cap, ps->n + 1, sizeof(*nf), MAX_PROCS);
	if (!nf)
		return NULL;
	ps->f = nf;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->pid = pid;
	psym_text_escape_buf(f->comm, sizeof(f->comm), comm, strlen(comm));
	if (psym_hashtab_put(&ps->by_pid, &f->pid, sizeof(f->pid), f, &e)) {
		free(f);
		return NULL;
	}
	ps->f[ps->n++] = f;
	return f;
}

/*
 * What a location is to the rule, found once per location (a profile's
 * stacks share their frames): LOC_KERNEL, or a user frame with its mark
 * (no mapping, and how it would end a stack).
 */
enum {
	LOC_UNSEEN,
	LOC_KERNEL,
	LOC_USER = 1 << 2,    /* | outer kind */
	LOC_UNMAPPED = 1 << 3 /* a user frame in no mapping, with no name */
};

static uint8_t loc_class(const struct psym_profile *p, uint64_t id, uint8_t *memo)
{
	long i = psym_profile_location_pos(p, id);
	const pb_location *l = i >= 0 ? p->pb->location[i] : NULL;
	uint8_t c;

	if (i >= 0 && memo[i])
		return memo[i];
	if (l && kernel_loc(p, l))
		c = LOC_KERNEL;
	else
		c = LOC_USER | (uint8_t)outer_kind(p, l) |
		    /* A named frame with no mapping is no loss (Java's, a legacy profile's). */
		    (!l || (!l->mapping_id && !l->n_line) ? LOC_UNMAPPED : 0);
	if (i >= 0)
		memo[i] = c;
	return c;
}

/* One sample into its process's counts; -1: out of memory. */
static int account(const struct psym_profile *p, const pb_sample *s, uint8_t *memo,
		   struct procs *ps)
{
	struct psym_collect_fpnote *f;
	uint64_t v = s->n_value && s->value[0] > 0 ? (uint64_t)s->value[0] : 0;
	size_t nu = 0, unmapped = 0;
	uint8_t c, outer = 0;
	const char *comm;
	int pid;

	/* Only a profiler's samples of a process (psym-collect's pid label). */
	if (!v)
		return 0;
	sample_proc(p, s, &pid, &comm);
	if (!pid)
		return 0;
	for (size_t li = 0; li < s->n_location_id; li++) {
		c = loc_class(p, s->location_id[li], memo);
		if (c == LOC_KERNEL)
			continue;
		nu++;
		unmapped += (c & LOC_UNMAPPED) != 0;
		outer = c;
	}
	if (!nu || nu >= DEPTH_CUT || (outer & 3) == OUTER_UNNAMED)
		return 0;
	f = proc_get(ps, pid, comm);
	if (!f)
		return -1;
	f->samples += v;
	if (nu >= 2 && (outer & 3) == OUTER_ROOT)
		f->rooted += v;
	if (nu == 1)
		f->leaf_only += v;
	f->frames += v * nu;
	f->frames_unmapped += v * unmapped;
	return 0;
}

bool psym_report_fp_note(const struct psym_profile *p, FILE *err)
{
	struct procs ps = { 0 };
	const struct psym_collect_fpnote *worst = NULL;
	size_t nbroken = 0;
	char who[64] = "";

	uint8_t *memo = calloc(p->pb->n_location ? p->pb->n_location : 1, 1);

	if (!memo)
		return false; /* out of memory: a note is not worth failing for */
	psym_hashtab_init(&ps.by_pid, MAX_PROCS);
	for (size_t i = 0; i < p->pb->n_sample; i++)
		if (account(p, p->pb->sample[i], memo, &ps))
			break;
	free(memo);
	for (size_t i = 0; i < ps.n; i++) {
		if (!psym_collect_fp_broken(ps.f[i], PSYM_COLLECT_FP_MIN_SAMPLES))
			continue;
		nbroken++;
		if (!worst || ps.f[i]->samples > worst->samples)
			worst = ps.f[i];
	}
	if (worst) {
		snprintf(who, sizeof(who), "pid %d (%s): ", worst->pid, worst->comm);
		fprintf(err,
			"psym: note: %s%" PRIu64 " of %" PRIu64
			" stacks reach no root frame (_start, __libc_start_call_main, clone, "
			"start_thread), %" PRIu64
			" stop at the sampled frame, %.0f%% of frames in no mapping: its frame "
			"pointers do not hold (built without them?); psym-collect --stack-copy "
			"unwinds without them",
			who, worst->samples - worst->rooted, worst->samples, worst->leaf_only,
			worst->frames
				? 100.0 * (double)worst->frames_unmapped / (double)worst->frames
				: 0.0);
		if (nbroken > 1)
			fprintf(err, " (and %zu more processes)", nbroken - 1);
		fputc('\n', err);
	}
	for (size_t i = 0; i < ps.n; i++)
		free(ps.f[i]);
	free(ps.f);
	psym_hashtab_free(&ps.by_pid);
	return worst != NULL;
}
