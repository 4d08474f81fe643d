// SPDX-License-Identifier: MIT
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "unwindprof.h"
#include "ustacks.h"

/*
 * psym-collect --stack-copy: the profile holds only what was known on the
 * host; its user stacks are unwound from the side file first.
 */
static int unwind_first(struct psym_profile **p, const struct psym_symbolize_opts *o,
			const struct psym_limits *lim, struct psym_err *e)
{
	struct psym_unwindprof_opts uo = { 0 };
	struct psym_unwindprof_stats st;
	struct psym_locate_opts lo;
	struct psym_profile *np = NULL;
	FILE *log = o->quiet ? NULL : o->log;
	char *side = NULL;
	int ret;

	if (!psym_unwindprof_needed(*p))
		return 0;
	if (!o->side_dir || asprintf(&side, "%s/%s", o->side_dir, PSYM_USTACKS_NAME) < 0 ||
	    access(side, F_OK) != 0) {
		if (log)
			fprintf(log, "psym: the user stacks need unwinding, but there is no "
				     "side file " PSYM_USTACKS_NAME " next to the profile: only "
				     "kernel frames and the leaf are known\n");
		free(side);
		return 0;
	}
	psym_symbolize_locate_opts(o, &o->limits, &lo);
	uo.locate = &lo;
	uo.cfi.max_fdes = o->limits.cfi_fdes;
	uo.cfi.max_steps = o->limits.cfi_steps;
	uo.sample_steps = o->limits.unwind_sample_steps;
	uo.run_steps = o->limits.unwind_steps;
	ret = psym_unwindprof_profile(*p, side, &uo, lim, &np, &st, e);
	if (ret == 0) {
		psym_profile_free(*p);
		*p = np;
		if (log)
			psym_unwindprof_print(&st, log);
	}
	free(side);
	return ret;
}

int psym_symbolize_file(const char *in, const char *out, const struct psym_limits *lim,
			const struct psym_symbolize_opts *o, bool gzip,
			struct psym_symbolize_result *r, struct psym_out *volatile *active,
			struct psym_err *e)
{
	struct psym_profile *p = NULL;
	struct psym_out wo;
	unsigned char *buf = NULL;
	size_t len;
	int ret;

	ret = psym_profile_read(in, lim, &p, e);
	if (ret)
		goto out;
	ret = psym_profile_validate(p, e);
	if (ret) {
		psym_err_prefix(e, "'%s': invalid profile", strcmp(in, "-") ? in : "<stdin>");
		goto out;
	}
	ret = unwind_first(&p, o, lim, e);
	if (ret)
		goto out;
	ret = psym_symbolize(p, o, r, e);
	if (ret) {
		psym_err_prefix(e, "'%s'", in);
		goto out;
	}
	ret = psym_profile_encode(p, gzip, &buf, &len, e);
	if (ret)
		goto out;
	ret = psym_out_open(&wo, out, e);
	if (ret)
		goto out;
	if (active)
		*active = &wo;
	if (fwrite(buf, 1, len, wo.fp) != len) {
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", out, strerror(errno));
		if (active)
			*active = NULL;
		psym_out_abort(&wo);
		goto out;
	}
	ret = psym_out_commit(&wo, e);
	if (active)
		*active = NULL;
out:
	free(buf);
	psym_profile_free(p);
	return ret;
}

/* ---- batch ------------------------------------------------------------------- */

struct job {
	char *in, *out, *side;
	struct psym_symbolize_result r;
	struct psym_err e;
	int ret;
	bool written;
};

struct batch {
	const struct psym_batch_opts *o;
	struct psym_bincache *cache;
	struct job *jobs;
	size_t n, cap, next;
	pthread_mutex_t mu; /* next, log */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_job(struct batch *b, const char *in, struct psym_err *e)
{
	const char *base = strrchr(in, '/');
	struct stat st;
	struct job *j;

	base = base ? base + 1 : in;
	if (b->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 64;
		struct job *nj = realloc(b->jobs, ncap * sizeof(*nj));

		if (!nj)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		b->jobs = nj;
		b->cap = ncap;
	}
	j = &b->jobs[b->n];
	memset(j, 0, sizeof(*j));
	if (asprintf(&j->in, "%s", in) < 0 || asprintf(&j->out, "%s/%s", b->o->outdir, base) < 0 ||
	    asprintf(&j->side, "%s.d", in) < 0)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	b->n++;
	if (stat(j->side, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(j->side);
		j->side = NULL;
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
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*nn));

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
			ret = add_job(b, names[i], e);
		free(names[i]);
	}
	free(names);
	return ret;
}

static void *worker(void *arg)
{
	struct batch *b = arg;

	for (;;) {
		struct psym_symbolize_opts so;
		struct job *j;

		pthread_mutex_lock(&b->mu);
		j = b->next < b->n ? &b->jobs[b->next++] : NULL;
		pthread_mutex_unlock(&b->mu);
		if (!j)
			return NULL;
		so = *b->o->so;
		so.shared = b->cache;
		so.side_dir = j->side;
		so.progress = false;
		so.explain = false;
		so.quiet = true; /* one line per file instead of one per mapping */
		j->ret = psym_symbolize_file(j->in, j->out, b->o->lim, &so, b->o->gzip, &j->r, NULL,
					     &j->e);
		j->written = j->ret == 0;
		if (!j->ret && b->o->strict && j->r.unresolved_file)
			j->ret = psym_err_set(
				&j->e, PSYM_EBADINPUT,
				"'%s': %zu locations of file-backed mappings unresolved "
				"(--strict; written anyway)",
				j->in, j->r.unresolved_file);
		if (b->o->log) {
			pthread_mutex_lock(&b->mu);
			if (j->ret)
				fprintf(b->o->log, "psym: %s\n",
					j->e.msg[0] ? j->e.msg : psym_strerror(j->ret));
			else
				fprintf(b->o->log,
					"psym: '%s' -> '%s': %zu/%zu locations symbolized\n", j->in,
					j->out, j->r.resolved + j->r.kept, j->r.locations);
			pthread_mutex_unlock(&b->mu);
		}
	}
}

int psym_batch_symbolize(const struct psym_batch_opts *o, struct psym_batch_result *r,
			 struct psym_err *e)
{
	struct batch b = { .o = o };
	pthread_t tids[256];
	size_t nt = o->jobs ? o->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	size_t started = 0;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&b.mu, NULL);
	if (mkdir(o->outdir, 0777) != 0 && errno != EEXIST) {
		ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", o->outdir,
				   strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < o->n_inputs && !ret; i++) {
		struct stat st;

		if (stat(o->inputs[i], &st) == 0 && S_ISDIR(st.st_mode))
			ret = add_dir(&b, o->inputs[i], e);
		else
			ret = add_job(&b, o->inputs[i], e);
	}
	if (ret)
		goto out;
	b.cache = psym_bincache_new(o->so);
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
	for (; started < nt; started++)
		if (pthread_create(&tids[started], NULL, worker, &b) != 0)
			break;
	if (!started)
		worker(&b); /* no thread could be made: do it here */
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	r->files = b.n;
	for (size_t i = 0; i < b.n; i++) {
		struct job *j = &b.jobs[i];

		if (j->ret) {
			r->failed++;
			if (!r->worst || psym_exit_code(j->ret) > psym_exit_code(r->worst))
				r->worst = j->ret;
		}
		r->written += j->written;
		r->total.locations += j->r.locations;
		r->total.resolved += j->r.resolved;
		r->total.kept += j->r.kept;
		r->total.unresolved_file += j->r.unresolved_file;
		r->total.unresolved_other += j->r.unresolved_other;
	}
out:
	for (size_t i = 0; i < b.n; i++) {
		free(b.jobs[i].in);
		free(b.jobs[i].out);
		free(b.jobs[i].side);
	}
	free(b.jobs);
	psym_bincache_free(b.cache);
	pthread_mutex_destroy(&b.mu);
	return ret;
}
