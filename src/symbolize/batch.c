// SPDX-License-Identifier: MIT
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "bincache.h"
#include "input.h"
#include "otlp.h"
#include "profread.h"
#include "sidenames.h"
#include "store.h"
#include "unwindprof.h"
#include "ustacks.h"
#include "array.h"

/* A note of psym_symbolize_file (not with quiet). */
static void note(const struct psym_symbolize_opts *o, const struct psym_note *n)
{
	if (o->note_fn && !o->quiet)
		o->note_fn(o->note_ud, n);
}

/* A side file refused (a symbolic link out of the side directory): one warning. */
static void side_refused(void *ud, const char *path, const char *why)
{
	note(ud, &(struct psym_note){ .kind = PSYM_NOTE_SIDE_REFUSED, .name = path, .why = why });
}

/*
 * psym-collect --stack-copy: the profile holds only what was known on the
 * host; its user stacks are unwound from the side file first. An input
 * that carries its stack copies itself (perf.data's --call-graph dwarf)
 * hands them over as in->stacks.
 */
static int unwind_first(struct psym_lean **lpp, const struct psym_input *in,
			const struct psym_symbolize_opts *o, const struct psym_limits *lim,
			struct psym_err *e)
{
	struct psym_unwindprof_src src = { in ? in->stacks : NULL, in ? in->stacks_ud : NULL };
	struct psym_unwindprof_opts uo = { 0 };
	struct psym_unwindprof_stats st;
	struct psym_locate_opts lo;
	struct psym_profile *p = NULL, *np = NULL;
	struct psym_lean *nlp = NULL;
	char *side = NULL;
	const char *why;
	int ret;

	if (!psym_unwindprof_needed(psym_lean_profile(*lpp)))
		return 0;
	/* The input's own copies, else the side file (a link out of IN.d/ refused). */
	if (!src.fn && o->side_dir &&
	    asprintf(&side, "%s/%s", o->side_dir, PSYM_USTACKS_NAME) >= 0 &&
	    psym_side_file_refused(o->side_dir, side, &why)) {
		free(side); /* said by side_refused */
		return 0;
	}
	if (!src.fn && (!side || access(side, F_OK) != 0)) {
		note(o, &(struct psym_note){ .kind = PSYM_NOTE_NO_USTACKS,
					     .name = PSYM_USTACKS_NAME });
		free(side);
		return 0;
	}
	psym_symbolize_locate_opts(o, &lo);
	uo.locate = &lo;
	uo.cfi.max_fdes = o->limits.cfi_fdes;
	uo.cfi.max_steps = o->limits.cfi_steps;
	uo.sample_steps = o->limits.unwind_sample_steps;
	uo.run_steps = o->limits.unwind_steps;
	/* Unwinding rewrites samples: it works on the whole profile. */
	ret = psym_lean_to_profile(*lpp, lim, &p, e);
	if (!ret)
		ret = psym_unwindprof_profile_from(p, src.fn ? NULL : side, &src, &uo, lim, &np,
						   &st, e);
	if (!ret)
		ret = psym_lean_from_profile(np, lim, &nlp, e);
	if (!ret)
		ret = psym_lean_validate(nlp, e);
	if (ret == 0) {
		psym_lean_free(*lpp);
		*lpp = nlp;
		nlp = NULL;
		note(o, &(struct psym_note){ .kind = PSYM_NOTE_UNWOUND, .unwound = &st });
	}
	psym_lean_free(nlp);
	psym_profile_free(np);
	psym_profile_free(p);
	free(side);
	return ret;
}

/* The symbolized profile as OTLP: the input's own write-back, or converted. */
static int write_otlp(const struct psym_input *input, const struct psym_lean *lp,
		      const struct psym_limits *lim, FILE *fp, const char *out, struct psym_err *e)
{
	struct psym_profile *p = NULL;
	int ret = psym_lean_to_profile(lp, lim, &p, e);

	if (!ret)
		ret = psym_otlp_write_input(input, p, lim, fp, out, e);
	psym_profile_free(p);
	return ret;
}

int psym_symbolize_file(const char *in, const char *out, const struct psym_limits *lim,
			const struct psym_symbolize_opts *o, bool gzip,
			struct psym_symbolize_result *r, struct psym_out *volatile *active,
			struct psym_err *e)
{
	struct psym_input *input = NULL;
	struct psym_lean *p = NULL;
	struct psym_out wo;
	int ret;

	memset(r, 0, sizeof(*r));
	/* Any input the table knows; the driver sees its lean profile. */
	ret = psym_input_read(in, PSYM_INPUT_LEAN, lim, &input, e);
	if (ret)
		goto out;
	p = psym_input_take_lean(input);
	ret = psym_lean_validate(p, e);
	if (ret) {
		psym_err_prefix(e, "'%s': invalid profile", strcmp(in, "-") ? in : "<stdin>");
		goto out;
	}
	if (o->side_dir)
		psym_side_dir_check(o->side_dir, side_refused, (void *)o);
	ret = unwind_first(&p, input, o, lim, e);
	if (ret)
		goto out;
	ret = psym_symbolize(p, o, r, e);
	if (ret) {
		psym_err_prefix(e, "'%s'", in);
		goto out;
	}
	ret = psym_out_open(&wo, out, e);
	if (ret)
		goto out;
	if (active)
		*active = &wo;
	if (o->out_format && !strcmp(o->out_format, "otlp"))
		ret = write_otlp(input, p, lim, wo.fp, out, e);
	else
		ret = psym_lean_write_fp(p, gzip, wo.fp, out, e);
	if (ret) {
		if (active)
			*active = NULL;
		psym_out_abort(&wo);
		goto out;
	}
	ret = psym_out_commit(&wo, e);
	if (active)
		*active = NULL;
out:
	if (ret)
		psym_symbolize_result_free(r); /* no summary of a run that failed */
	psym_lean_free(p);
	psym_input_free(input);
	return ret;
}

/* ---- batch ------------------------------------------------------------------- */

struct job {
	char *in, *out, *side;
	size_t line; /* in the manifest, or 0 */
	struct psym_symbolize_result r;
	struct psym_err e;
	int ret;
	bool written;
	bool skipped; /* --resume: the output was complete */
	/*
	 * Index builds this input's run started (psym_symbolize_result's
	 * count, from the store's), carried to its results line and the
	 * batch's total.
	 */
	size_t indexes_built;
	double seconds;
	char note[1100]; /* why an existing output was redone, or "" */
};

struct batch {
	const struct psym_batch_opts *o;
	struct psym_bincache *cache;
	struct job *jobs;
	size_t n, cap, next;
	int results_fd;	 /* -1: none */
	int results_ret; /* first failure to write a results line */
	struct psym_err results_e;
	pthread_mutex_t mu; /* next, job_fn, results */
	size_t finished;    /* jobs done */
	struct job *last;   /* the last one done: reported after the index builds */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* in -> out (NULL: OUTDIR/basename of in); line: manifest line or 0. */
static int add_job(struct batch *b, const char *in, const char *out, size_t line,
		   struct psym_err *e)
{
	const char *base = strrchr(in, '/');
	struct stat st;
	struct job *j;

	base = base ? base + 1 : in;
	j = psym_array_grow(b->jobs, &b->cap, b->n + 1, sizeof(*j), 0);
	if (!j)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	b->jobs = j;
	j = &b->jobs[b->n];
	memset(j, 0, sizeof(*j));
	j->line = line;
	if (asprintf(&j->in, "%s", in) < 0 ||
	    (out ? asprintf(&j->out, "%s", out) : asprintf(&j->out, "%s/%s", b->o->outdir, base)) <
		    0 ||
	    !(j->side = psym_side_dir(in)))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	b->n++;
	if (stat(j->side, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(j->side);
		j->side = NULL;
	}
	if (out) {
		/* The manifest reader refused repeated outputs already. */
		if (psym_same_file(in, out))
			return psym_err_set(e, PSYM_EUSAGE, "%s:%zu: output '%s' is the input '%s'",
					    b->o->manifest->name, line, out, in);
		return 0;
	}
	/* Two inputs with one name would overwrite each other's output. */
	for (size_t i = 0; i + 1 < b->n; i++)
		if (strcmp(b->jobs[i].out, j->out) == 0)
			return psym_err_set(e, PSYM_EUSAGE,
					    "'%s' and '%s' would both be written to '%s'",
					    b->jobs[i].in, in, j->out);
	if (psym_same_file(in, j->out))
		return psym_err_set(e, PSYM_EUSAGE, "output '%s' is the input '%s'", j->out, in);
	return 0;
}

/* Files of a directory (not recursive, no dot files, no directories), sorted. */
static int add_dir(struct batch *b, const char *dir, struct psym_err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!d)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			break;
		}
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		{
			char **nn = psym_array_grow(names, &cap, n + 1, sizeof(*nn), 0);

			if (!nn) {
				free(path);
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				break;
			}
			names = nn;
		}
		names[n++] = path;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!ret)
			ret = add_job(b, names[i], NULL, 0, e);
		free(names[i]);
	}
	free(names);
	return ret;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * --resume: is j's output complete? It is when it is a regular file that
 * reads and validates as a profile: psym renames an output into place only
 * after writing, flushing and fsync'ing all of it, so a file that does not
 * parse was cut short by another writer (a copy, a crash of a tool that
 * writes in place) and is redone. The temporaries of killed psyms next to a
 * complete output are removed here (a redone one's go in psym_out_open).
 */
static bool output_complete(struct job *j, const struct psym_limits *lim)
{
	struct psym_profile *p = NULL;
	struct psym_err e = { 0 };
	struct stat st;
	char *dir, *slash, prefix[512];
	const char *base;
	int ret;

	if (stat(j->out, &st) != 0 || !S_ISREG(st.st_mode))
		return false; /* missing; a directory or device fails when written */
	ret = psym_input_read_profile(j->out, lim, &p, &e);
	if (!ret)
		ret = psym_profile_validate(p, &e);
	psym_profile_free(p);
	if (ret) {
		snprintf(j->note, sizeof(j->note), "redone: the existing output was incomplete: %s",
			 e.msg[0] ? e.msg : psym_strerror(ret));
		return false;
	}
	dir = strdup(j->out);
	if (!dir)
		return true;
	slash = strrchr(dir, '/');
	base = slash ? slash + 1 : dir;
	if (slash)
		*slash = '\0';
	if (snprintf(prefix, sizeof(prefix), ".%s.psym-tmp-", base) < (int)sizeof(prefix))
		psym_remove_stale_tmps(slash ? (*dir ? dir : "/") : ".", prefix, '-');
	free(dir);
	return true;
}

/*
 * A FIFO or socket named by one line would block the whole batch: opening
 * a FIFO waits for its other end, as cat(1) does, which one profile at a
 * time (psym symbolize IN -o OUT) wants and a batch of many does not. An
 * input FIFO or socket, and a socket or a FIFO with no reader as output,
 * fail that line alone. An output FIFO whose reader is there is written,
 * as a batch always wrote one: *probe then holds a write end open until
 * the job is done, so the reader sees no end of file between this check
 * and the job's own open. Regular files, devices and missing outputs go on.
 */
static int job_files_ok(struct job *j, int *probe)
{
	const char *side[2] = { "input", "output" };
	const char *path[2] = { j->in, j->out };
	struct stat st;

	*probe = -1;
	for (int i = 0; i < 2; i++) {
		if (stat(path[i], &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
			continue;
		if (i == 1 && S_ISFIFO(st.st_mode)) {
			*probe = open(path[i], O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
			if (*probe >= 0)
				continue;
			if (errno == ENXIO)
				return psym_err_set(&j->e, PSYM_ENOTREG,
						    "'%s': the output is a FIFO with no reader: a "
						    "batch does not wait for one",
						    path[i]);
			return psym_err_set(&j->e, PSYM_EIO, "cannot open '%s': %s", path[i],
					    strerror(errno));
		}
		return psym_err_set(&j->e, PSYM_ENOTREG,
				    "'%s': the %s is a %s: a batch reads and writes files", path[i],
				    side[i], S_ISFIFO(st.st_mode) ? "FIFO" : "socket");
	}
	return 0;
}

static void do_job(struct batch *b, struct job *j)
{
	struct psym_symbolize_opts so = *b->o->so;
	int probe;

	j->ret = job_files_ok(j, &probe);
	if (j->ret)
		return;
	if (b->o->resume && output_complete(j, b->o->lim)) {
		j->skipped = true;
		goto out_probe;
	}
	so.shared = b->cache;
	so.side_dir = j->side;
	so.progress = NULL;
	so.explain = false;
	so.quiet = true; /* one line per file instead of one per mapping */
	j->ret = psym_symbolize_file(j->in, j->out, b->o->lim, &so, b->o->gzip, &j->r, NULL, &j->e);
	j->written = j->ret == 0;
	j->indexes_built = j->r.indexes_built;
	if (!j->ret && b->o->strict && j->r.unresolved_file)
		j->ret = psym_err_set(&j->e, PSYM_EBADINPUT,
				      "'%s': %zu locations of file-backed mappings unresolved "
				      "(--strict; written anyway)",
				      j->in, j->r.unresolved_file);
out_probe:
	if (probe >= 0)
		close(probe);
}

/* Under b->mu: a finished job's outcome, to the caller and as a results line. */
static void report_job(struct batch *b, struct job *j)
{
	const char *err = j->ret ? (j->e.msg[0] ? j->e.msg : psym_strerror(j->ret)) : NULL;
	struct psym_result_line rl = {
		.input = j->in,
		.output = j->out,
		.line = j->line,
		.status = j->ret       ? PSYM_RESULT_FAILED
			  : j->skipped ? PSYM_RESULT_SKIPPED
				       : PSYM_RESULT_OK,
		.error = err,
		.note = j->note[0] ? j->note : NULL,
		.written = j->written,
		.locations = j->r.locations,
		.resolved = j->r.resolved + j->r.kept,
		.unresolved = j->r.unresolved_file + j->r.unresolved_other,
		.unverified = j->r.unverified,
		.indexes_built = j->indexes_built,
		.seconds = j->seconds,
	};

	if (b->o->job_fn)
		b->o->job_fn(b->o->job_ud, &rl);
	if (b->results_fd >= 0 && !b->results_ret)
		b->results_ret = psym_results_write(b->results_fd, &rl, &b->results_e);
}

static void *worker(void *arg)
{
	struct batch *b = arg;

	for (;;) {
		struct job *j;
		double t0;

		pthread_mutex_lock(&b->mu);
		j = b->next < b->n ? &b->jobs[b->next++] : NULL;
		pthread_mutex_unlock(&b->mu);
		if (!j)
			return NULL;
		t0 = now();
		do_job(b, j);
		j->seconds = now() - t0;
		pthread_mutex_lock(&b->mu);
		if (++b->finished < b->n)
			report_job(b, j);
		else
			b->last = j;
		pthread_mutex_unlock(&b->mu);
	}
}

int psym_batch_symbolize(const struct psym_batch_opts *o, struct psym_batch_result *r,
			 struct psym_err *e)
{
	struct batch b = { .o = o, .results_fd = -1 };
	struct psym_locate_opts lo;
	pthread_t tids[256];
	size_t nt = o->jobs ? o->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	size_t started = 0, built;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&b.mu, NULL);
	if (o->manifest) {
		for (size_t i = 0; i < o->manifest->n && !ret; i++)
			ret = add_job(&b, o->manifest->v[i].in, o->manifest->v[i].out,
				      o->manifest->v[i].line, e);
		if (ret)
			goto out;
	} else if (mkdir(o->outdir, 0777) != 0 && errno != EEXIST) {
		ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", o->outdir,
				   strerror(errno));
		goto out;
	}
	for (size_t i = 0; !o->manifest && i < o->n_inputs && !ret; i++) {
		struct stat st;

		if (stat(o->inputs[i], &st) == 0 && S_ISDIR(st.st_mode))
			ret = add_dir(&b, o->inputs[i], e);
		else
			ret = add_job(&b, o->inputs[i], NULL, 0, e);
	}
	if (ret)
		goto out;
	if (o->results) {
		ret = psym_results_open(o->results, e);
		if (ret < 0)
			goto out;
		b.results_fd = ret;
		ret = 0;
	}
	psym_symbolize_locate_opts(o->so, &lo);
	b.cache = psym_bincache_new(&(struct psym_bincache_opts){
		.locate = &lo,
		.limits = o->so->limits,
		.explain = o->so->explain,
		.inlines = !o->so->no_inlines,
		.cache_dir = o->so->cache_dir,
		.index_store = o->so->index_store,
	});
	if (!b.cache) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	if (nt < 1)
		nt = 1;
	if (nt > sizeof(tids) / sizeof(tids[0]))
		nt = sizeof(tids) / sizeof(tids[0]);
	if (nt > b.n)
		nt = b.n ? b.n : 1;
	built = psym_index_store_built(o->so->index_store);
	for (; started < nt; started++)
		if (pthread_create(&tids[started], NULL, worker, &b) != 0)
			break;
	if (!started)
		worker(&b); /* no thread could be made: do it here */
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	/*
	 * The shared binaries' index builds: here, once every run is over,
	 * on this thread, for those still open; those closed for the open cap
	 * were finished when closed, on the worker that closed them. Both
	 * are counted on the last job's results line, held back until now,
	 * so that the lines of a cluster's results add up to its builds.
	 */
	{
		psym_bincache_finish(b.cache);
		built = psym_index_store_built(o->so->index_store) - built;
		if (b.last) {
			b.last->indexes_built += built;
			report_job(&b, b.last);
		} else {
			r->indexes_built += built;
		}
	}
	r->files = b.n;
	for (size_t i = 0; i < b.n; i++) {
		struct job *j = &b.jobs[i];

		if (j->ret) {
			r->failed++;
			if (!r->worst || psym_exit_code(j->ret) > psym_exit_code(r->worst))
				r->worst = j->ret;
		}
		r->written += j->written;
		r->skipped += j->skipped;
		r->indexes_built += j->indexes_built;
		r->total.locations += j->r.locations;
		r->total.resolved += j->r.resolved;
		r->total.kept += j->r.kept;
		r->total.unresolved_file += j->r.unresolved_file;
		r->total.unresolved_other += j->r.unresolved_other;
		r->total.unverified += j->r.unverified;
	}
	if (b.results_ret) {
		/* The engine would lose track of inputs: the run fails. */
		*e = b.results_e;
		psym_err_prefix(e, "'%s'", o->results);
		ret = b.results_ret;
	}
out:
	if (b.results_fd > STDERR_FILENO && close(b.results_fd) != 0 && !ret)
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", o->results,
				   strerror(errno));
	for (size_t i = 0; i < b.n; i++) {
		free(b.jobs[i].in);
		free(b.jobs[i].out);
		free(b.jobs[i].side);
	}
	free(b.jobs);
	r->kallsyms_parsed = psym_bincache_kallsyms_parsed(b.cache);
	psym_bincache_free(b.cache);
	pthread_mutex_destroy(&b.mu);
	return ret;
}
