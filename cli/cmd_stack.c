/* SPDX-License-Identifier: MIT */
/* psym stack: backtraces of every thread of core dumps (stack.h). */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	OPT_GROUP_BY = OPT_NEXT + 700,
	OPT_MAX_FRAMES,
};

static const char stack_help[] =
	"Usage: psym stack [OPTIONS] CORE...\n"
	"Print the backtrace of every thread of ELF core dumps (ulimit -c, gcore,\n"
	"systemd-coredump's .zst/.xz), unwound with the binaries' CFI and\n"
	"symbolized with inline frames: the crashed thread first, marked with the\n"
	"signal, one frame per line (number, address, function, file:line:column,\n"
	"module).\n"
	"Caller addresses are return address - 1 (inside the call).\n\n"
	"      --json                 one JSON object per core (schema in psym(1))\n"
	"  -o, --output FILE          also write a pprof profile (gzip), one sample per\n"
	"                             thread, labels core, pid, tid, signal, crashed,\n"
	"                             comm\n"
	"      --group-by signature[:N]  add the label signature: the first N (5)\n"
	"                             frames of the crashed thread\n"
	"      --max-frames N         frames per thread (default 256)\n"
	"      --explain              where each file was looked for, and why a\n"
	"                             thread's unwinding stopped early\n"
	"  -q, --quiet                no summary on stderr\n"
	"      --no-inlines           physical functions only\n"
	"      --no-demangle          keep mangled names\n" INDEX_HELP DISCOVERY_HELP LIMIT_HELP
	"\nExit status: 0, 1 when a core was read or unwound only in part, 2 when\n"
	"a core could not be read.\n";

/* The build IDs --debug-pkg must extract: those of the cores' files. */
static int cores_wants(char **paths, size_t n, const struct psym_core_limits *cl,
		       struct discovery *d)
{
	for (size_t i = 0; i < n; i++) {
		struct psym_err e = { 0 };
		struct psym_core *c;

		if (psym_core_open(paths[i], cl, &c, &e))
			continue; /* said when it is read for good */
		for (size_t f = 0; f < c->nfiles; f++)
			if (idset_add(&d->want, c->files[f].build_id)) {
				psym_core_free(c);
				return PSYM_ENOMEM;
			}
		psym_core_free(c);
	}
	return 0;
}

static unsigned parse_group_by(const char *arg)
{
	if (!strcmp(arg, "signature"))
		return 5;
	if (!strncmp(arg, "signature:", 10))
		return (unsigned)parse_long_arg("stack ", arg + 10, 1, 256,
						"--group-by signature:N");
	die_usage("stack ", "--group-by '%s': only 'signature' or 'signature:N'", arg);
}

int cmd_stack(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, OPT_JSON },
					      { "output", required_argument, NULL, 'o' },
					      { "group-by", required_argument, NULL, OPT_GROUP_BY },
					      { "max-frames", required_argument, NULL,
						OPT_MAX_FRAMES },
					      { "explain", no_argument, NULL, OPT_EXPLAIN },
					      { "quiet", no_argument, NULL, 'q' },
					      { "no-inlines", no_argument, NULL, OPT_NO_INLINES },
					      { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
					      INDEX_OPTIONS,
					      DISCOVERY_OPTIONS,
					      LIMIT_OPTIONS,
					      { 0 } };
	struct psym_symbolize_opts so = {
		.explain_fn = print_explain,
		.explain_ud = stderr,
		.note_fn = print_note,
		.note_ud = stderr,
		.demangle = PSYM_DEMANGLE_CLONES,
	};
	struct psym_stack_opts o = { .so = &so };
	struct psym_stack_result res = { 0 };
	struct psym_limits lim;
	struct psym_err e = { 0 };
	struct discovery d;
	struct index_cli ic = { 0 };
	struct psym_index_store *store = NULL;
	char *symcache = NULL;
	const char *out = NULL;
	bool json = false;
	int c, ret, exit_code = PSYM_EXIT_OK;

	psym_limits_default(&lim);
	discovery_init(&d);
	while ((c = getopt_long(argc, argv, "ho:q", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, "stack ") ||
		    discovery_option(c, optarg, &d, "stack ") || index_option(c, optarg, &ic))
			continue;
		switch (c) {
		case OPT_JSON: json = true; break;
		case 'o': out = optarg; break;
		case OPT_GROUP_BY: o.signature = parse_group_by(optarg); break;
		case OPT_MAX_FRAMES:
			o.max_frames =
				(size_t)parse_long_arg("stack ", optarg, 1, 65536, "--max-frames");
			break;
		case OPT_EXPLAIN: so.explain = true; break;
		case 'q': so.quiet = true; break;
		case OPT_NO_INLINES: so.no_inlines = true; break;
		case OPT_NO_DEMANGLE: so.demangle = PSYM_DEMANGLE_NONE; break;
		case 'h': fputs(stack_help, stdout); return 0;
		default: die_bad_option("stack ", argv, "ho:q");
		}
	}
	if (argc - optind < 1)
		die_usage("stack ", "no core file");
	o.core.max_input = lim.max_input;
	o.core.max_decompressed = d.limits.core_bytes;
	if (d.n_pkgs) {
		ret = cores_wants(argv + optind, (size_t)(argc - optind), &o.core, &d);
		if (ret) {
			exit_code = report(&e, psym_err_set(&e, ret, "out of memory"));
			goto out;
		}
	}
	ret = discovery_finish(&d, &e);
	if (ret) {
		exit_code = report(&e, ret);
		goto out;
	}
	so.locate = &d.lo;
	so.limits = d.limits;
	so.limits.memory = lim.max_memory;
	/* The answer cache and the indexes, as symbolize has them. */
	symcache = discovery_symcache(&d);
	so.cache_dir = symcache;
	if (index_store_open(&ic, d.cache_opt, true, &store)) {
		exit_code = PSYM_EXIT_BADINPUT;
		goto out;
	}
	so.index_store = store;
	/*
	 * The per-mapping summary is symbolize's; stack says what it found in its
	 * output, and once which files left frames as addresses (its notes only
	 * with --explain).
	 */
	if (!so.explain)
		so.note_fn = NULL;
	ret = psym_stack_run((const char *const *)argv + optind, (size_t)(argc - optind), &o, &lim,
			     &res, &e);
	if (ret) {
		exit_code = report(&e, ret);
		goto out;
	}
	if (!so.quiet)
		hint_unnamed_maps(&res.sym, "the cores");
	if (psym_index_store_given_up(store))
		fprintf(stderr, "psym: warning: %s\n", psym_index_store_given_up(store));
	for (size_t i = 0; i < res.ncores; i++) {
		const struct psym_stack_core *sc = &res.cores[i];

		if (sc->error)
			fprintf(stderr, "psym: %s\n", sc->error);
		if (so.explain && sc->libs[0])
			fprintf(stderr, "psym: '%s': shared libraries: %s\n", sc->name, sc->libs);
		/* --explain: where each thread stopped early (the text says it inline). */
		for (size_t t = 0; so.explain && (json || out) && t < sc->nthreads; t++)
			if (sc->threads[t].stop != PSYM_UNWIND_END)
				fprintf(stderr,
					"psym: '%s' thread %" PRIu32 ": unwinding stopped %s\n",
					sc->name, sc->threads[t].tid, sc->threads[t].why);
	}
	if (out && res.profile) {
		ret = psym_profile_write(res.profile, out, true, &e);
		if (ret) {
			exit_code = report(&e, ret);
			goto out;
		}
	}
	if (json)
		psym_stack_print_json(&res, stdout);
	else if (!out)
		psym_stack_print_text(&res, so.explain, stdout);
	/* Standard output's errors are finish_stdout's (main.c). */
	if (res.failed)
		exit_code = PSYM_EXIT_BADINPUT;
	else if (res.partial)
		exit_code = PSYM_EXIT_PARTIAL;
out:
	psym_stack_result_free(&res);
	psym_index_store_free(store);
	free(symcache);
	discovery_free(&d);
	return exit_code;
}
