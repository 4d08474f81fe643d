/* SPDX-License-Identifier: MIT */
/*
 * The session's jobs (psym.h): symbolize one profile or a batch, unwind
 * and symbolize cores. Each reads what the inputs need of the packages,
 * starts the session, runs the library's driver and says the outcome on
 * the session's stream, as the command line has always said it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive.h"
#include "batch.h"
#include "binary.h"
#include "build.h"
#include "elffile.h"
#include "index.h"
#include "manifest.h"
#include "session.h"
#include "sidenames.h"
#include "stack.h"

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The progress line, on a terminal only. */
static void progress_on(struct psym_session *s)
{
	if (!isatty(fileno(s->say.out)))
		return;
	clock_gettime(CLOCK_MONOTONIC, &s->say.start);
	s->so.progress = psym_say_progress;
	s->so.progress_ud = &s->say;
}

/* Said once for the run: the index store stopped taking builds. */
static void say_store(const struct psym_session *s)
{
	const char *why = psym_index_store_given_up(s->store);

	if (why)
		fprintf(s->say.out, "psym: warning: %s\n", why);
}

/* Batch: many profiles, one output directory, binaries shared. */
static int batch(struct psym_session *s, const struct psym_symbolize_args *a,
		 const struct psym_manifest *m, int *status, struct psym_err *e)
{
	const struct psym_symbolize_opts *so = &s->so;
	FILE *err = s->say.out;
	struct psym_batch_opts bo = {
		.inputs = a->inputs,
		.n_inputs = a->n_inputs,
		.outdir = a->output,
		.jobs = a->jobs,
		.gzip = a->gzip,
		.strict = a->strict,
		.lim = &s->lim,
		.so = so,
		.manifest = m,
		.resume = a->resume,
		.results = a->results,
		.job_fn = psym_say_job,
		.job_ud = (void *)so,
	};
	struct psym_batch_result br;
	int ret = psym_batch_symbolize(&bo, &br, e);

	if (ret)
		return ret;
	/* Said once for the batch: its profiles' lines carry no warnings. */
	say_store(s);
	if (!so->quiet && a->resume)
		fprintf(err,
			"psym: %zu/%zu profiles written, %zu skipped (complete), %zu failed; "
			"%zu/%zu locations symbolized\n",
			br.written, br.files, br.skipped, br.failed,
			br.total.resolved + br.total.kept, br.total.locations);
	else if (!so->quiet)
		fprintf(err,
			"psym: %zu/%zu profiles written, %zu failed; %zu/%zu locations "
			"symbolized\n",
			br.written, br.files, br.failed, br.total.resolved + br.total.kept,
			br.total.locations);
	if (!so->quiet && br.total.unverified)
		fprintf(err,
			"psym: %zu mapping%s without a build ID in %s profile%s matched by path "
			"alone: unverified (--explain names them)\n",
			br.total.unverified, br.total.unverified == 1 ? "" : "s",
			br.files == 1 ? "the" : "their", br.files == 1 ? "" : "s");
	if (!so->quiet && br.indexes_built)
		fprintf(err, "psym: %zu index build%s started in '%s'\n", br.indexes_built,
			br.indexes_built == 1 ? "" : "s", psym_index_store_name(s->store));
	if (!so->quiet && br.kallsyms_parsed)
		fprintf(err, "psym: %zu kallsyms cop%s parsed (shared by boot and content)\n",
			br.kallsyms_parsed, br.kallsyms_parsed == 1 ? "y" : "ies");
	*status = br.failed ? psym_exit_code(br.worst) : PSYM_EXIT_OK;
	return 0;
}

/* One profile, IN to OUT, with psym-collect's IN.d/. */
static int one(struct psym_session *s, const struct psym_symbolize_args *a,
	       struct psym_out *volatile *active, int *status, struct psym_err *e)
{
	struct psym_symbolize_opts *so = &s->so;
	struct psym_symbolize_result res = { 0 };
	const char *in = a->inputs[0], *out = a->output;
	FILE *err = s->say.out;
	char *side = NULL;
	int ret;

	/* The collector's side files sit next to its profile: IN.d/. */
	if (strcmp(in, "-") && (side = psym_side_dir(in)) && is_dir(side))
		so->side_dir = side;
	if (!so->out_format && (ends_with(out, ".otlp") || ends_with(out, ".otlp.pb")))
		so->out_format = "otlp";
	ret = psym_symbolize_file(in, out, &s->lim, so, a->gzip, &res, active, e);
	so->side_dir = NULL;
	free(side);
	if (ret)
		return ret;
	if (!so->quiet)
		psym_say_summary(&res, so->explain, err);
	psym_symbolize_result_free(&res);
	if (!so->quiet)
		fprintf(err,
			"psym: %zu/%zu locations symbolized (%zu kept, %zu unresolved in "
			"files, %zu in other mappings)\n",
			res.resolved + res.kept, res.locations, res.kept, res.unresolved_file,
			res.unresolved_other);
	if (!so->quiet && res.indexes_built)
		fprintf(err, "psym: %zu index build%s started in '%s'\n", res.indexes_built,
			res.indexes_built == 1 ? "" : "s", psym_index_store_name(s->store));
	*status = a->strict && res.unresolved_file ? PSYM_EXIT_PARTIAL : PSYM_EXIT_OK;
	return 0;
}

int psym_session_symbolize(struct psym_session *s, const struct psym_symbolize_args *a,
			   struct psym_out *volatile *active, int *status, struct psym_err *e)
{
	struct psym_manifest m = { 0 };
	const char **mins = NULL;
	int ret = 0;

	*status = PSYM_EXIT_OK;
	if (a->manifest) {
		ret = psym_manifest_read(a->manifest, s->lim.max_input, &m, e);
		if (!ret && !(mins = calloc(m.n + 1, sizeof(*mins))))
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		for (size_t i = 0; !ret && i < m.n; i++)
			mins[i] = m.v[i].in;
	}
	if (!ret)
		ret = mins ? psym_session_want(s, PSYM_WANT_PROFILES, mins, m.n, e)
			   : psym_session_want(s, PSYM_WANT_PROFILES, a->inputs, a->n_inputs, e);
	if (!ret)
		ret = psym_session_start(s, PSYM_START_PERF_MAPS, e);
	if (!ret) {
		progress_on(s);
		if (a->manifest || a->jobs || a->n_inputs > 1 || is_dir(a->inputs[0]))
			ret = batch(s, a, a->manifest ? &m : NULL, status, e);
		else
			ret = one(s, a, active, status, e);
	}
	if (!ret && *status == PSYM_EXIT_OK && s->say.partial)
		*status = PSYM_EXIT_PARTIAL;
	free(mins);
	psym_manifest_free(&m);
	return ret;
}

/* ---- cores ------------------------------------------------------------------ */

static void say_cores(const struct psym_session *s, const struct psym_stack_result *res,
		      bool written)
{
	bool explain = s->so.explain;

	for (size_t i = 0; i < res->ncores; i++) {
		const struct psym_stack_core *sc = &res->cores[i];

		if (sc->error)
			fprintf(s->say.out, "psym: %s\n", sc->error);
		if (explain && sc->libs[0])
			fprintf(s->say.out, "psym: '%s': shared libraries: %s\n", sc->name,
				sc->libs);
		/* --explain: where each thread stopped early (the text says it inline). */
		for (size_t t = 0; explain && written && t < sc->nthreads; t++)
			if (sc->threads[t].stop != PSYM_UNWIND_END)
				fprintf(s->say.out,
					"psym: '%s' thread %" PRIu32 ": unwinding stopped %s\n",
					sc->name, sc->threads[t].tid, sc->threads[t].why);
	}
}

int psym_session_stack(struct psym_session *s, const char *const *cores, size_t n,
		       const struct psym_stack_args *a, int *status, struct psym_err *e)
{
	struct psym_symbolize_opts *so = &s->so;
	struct psym_stack_opts o = {
		.so = so,
		.max_frames = a->max_frames,
		.signature = a->signature,
		.core = { .max_input = s->lim.max_input, .max_decompressed = s->limits.core_bytes },
	};
	struct psym_stack_result res = { 0 };
	int ret;

	*status = PSYM_EXIT_OK;
	ret = psym_session_want(s, PSYM_WANT_CORES, cores, n, e);
	if (!ret)
		ret = psym_session_start(s, 0, e);
	if (ret)
		return ret;
	/*
	 * The per-mapping summary is symbolize's; stack says what it found in
	 * its output, and once which files left frames as addresses (its
	 * notes only with --explain).
	 */
	if (!so->explain)
		so->note_fn = NULL;
	/* Stack's names keep a clone's suffix unless told otherwise. */
	if (!s->demangle_given)
		so->demangle = PSYM_DEMANGLE_CLONES;
	ret = psym_stack_run(cores, n, &o, &s->lim, &res, e);
	if (ret)
		goto out;
	if (!so->quiet)
		psym_say_unnamed_maps(&res.sym, "the cores", s->say.out);
	say_store(s);
	say_cores(s, &res, a->json || a->output);
	if (a->output && res.profile) {
		ret = psym_profile_write(res.profile, a->output, true, e);
		if (ret)
			goto out;
	}
	if (a->json)
		psym_stack_print_json(&res, stdout);
	else if (!a->output)
		psym_stack_print_text(&res, so->explain, stdout);
	/* Standard output's errors are the caller's (psym's finish_stdout). */
	if (res.failed)
		*status = PSYM_EXIT_BADINPUT;
	else if (res.partial)
		*status = PSYM_EXIT_PARTIAL;
out:
	psym_stack_result_free(&res);
	return ret;
}

/* ---- indexes -------------------------------------------------------------- */

_Static_assert(PSYM_BUILD_ID_HEX_LEN == PSYM_BUILD_ID_HEX_MAX, "psym.h's build ID length");

int psym_session_index(struct psym_session *s, const char *path, struct psym_index_info *info,
		       struct psym_err *e)
{
	struct psym_binary_opts bo = { .inlines = true, .discriminators = true };
	struct psym_index_built built;
	struct psym_elf *elf = NULL;
	struct psym_binary *b = NULL;
	int ret;

	ret = psym_session_want(s, PSYM_WANT_ALL, NULL, 0, e);
	if (!ret)
		ret = psym_session_start(s,
					 PSYM_START_NO_INDEX_BUILD | PSYM_START_NO_MEMORY_CAP |
						 PSYM_START_NO_CACHE,
					 e);
	if (ret)
		return ret;
	if (!s->store)
		return psym_err_set(e, PSYM_EUSAGE,
				    "index: no cache directory for the default store: give "
				    "--index-store");
	if (!path)
		return 0;
	bo.locate = &s->lo;
	bo.limits = &s->limits;
	ret = psym_elf_open(path, bo.locate->elf_limits, &elf, e);
	if (!ret)
		ret = psym_binary_new(elf, &bo, &b, e);
	if (!ret)
		ret = psym_index_build(b, s->store, true, &built, e);
	psym_binary_free(b);
	if (ret)
		return ret;
	*info = (struct psym_index_info){ .size = built.size,
					  .seconds = built.seconds,
					  .records = built.groups };
	snprintf(info->build_id, sizeof(info->build_id), "%s", built.build_id);
	return 0;
}

int psym_index_check(const char *path, struct psym_index_info *info, struct psym_err *e)
{
	struct psym_index *x = NULL;
	size_t groups = 0;
	int ret = psym_index_open(path, NULL, NULL, &x, e);

	if (!ret)
		ret = psym_index_verify(x, &groups, e);
	if (!ret) {
		*info = (struct psym_index_info){ .records = groups };
		snprintf(info->build_id, sizeof(info->build_id), "%s", psym_index_build_id(x));
		snprintf(info->source, sizeof(info->source), "%s", psym_index_source(x));
	}
	psym_index_close(x);
	return ret;
}

/* ---- archives ----------------------------------------------------------------- */

int psym_archive(const struct psym_archive_args *a, const struct psym_limits *lim, int *status,
		 struct psym_err *e)
{
	struct psym_archive_printer pr = { stderr, a->verbose };
	struct psym_archive_opts ao = {
		.max_bytes = a->max_bytes,
		.exclude = a->exclude,
		.n_exclude = a->n_exclude,
		.debug_dirs = a->n_debug_dirs ? a->debug_dirs : NULL,
		.n_debug_dirs = a->n_debug_dirs,
		.level = a->level,
		.event = psym_archive_print_event,
		.event_ud = &pr,
	};
	struct psym_archive_stats st;
	struct psym_profile *p = NULL;
	char *out = a->output ? strdup(a->output) : psym_archive_default_name(a->profile);
	int ret;

	*status = PSYM_EXIT_OK;
	if (!out)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ret = psym_profile_load(a->profile, lim, &p, e);
	if (!ret && e->code) {
		/* Read in part: said, and the run ends with exit 1. */
		fprintf(stderr, "psym: %s: the records before it were read\n", e->msg);
		*e = (struct psym_err){ 0 };
		*status = PSYM_EXIT_PARTIAL;
	}
	if (!ret)
		ret = psym_archive_write(p, out, &ao, &st, e);
	if (!ret && !a->quiet)
		fprintf(stderr,
			"psym: archive '%s': %zu binaries and %zu debug files for %zu mappings "
			"(%zu not found, %zu excluded, %zu without a build ID), %" PRIu64
			" bytes packed into %" PRIu64 "\n",
			out, st.binaries, st.debug_files, st.mappings, st.missing, st.excluded,
			st.no_build_id, st.bytes_in, st.bytes_out);
	psym_profile_free(p);
	free(out);
	return ret;
}
