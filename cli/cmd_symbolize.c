/* SPDX-License-Identifier: MIT */
/* psym symbolize: one profile, or a batch. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "textesc.h"

/* ---- the summary: progress line and per-mapping table ---------------------- */

/*
 * Profiles with more mappings than this get a summary (counts and the
 * mappings with the most unresolved locations) instead of a line per
 * mapping; --explain always lists every mapping.
 */
#define SUMMARY_ALL_UP_TO 20
#define SUMMARY_WORST 10

struct progress_line {
	FILE *out;
	struct timespec start, last;
	bool shown;
};

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The library's progress callback: a line on a terminal, redrawn in place. */
static void progress_cb(void *ud, size_t mi, size_t nm, size_t resolved)
{
	struct progress_line *pl = ud;
	struct timespec now;

	if (!nm) {
		if (pl->shown)
			fprintf(pl->out, "\r\033[K");
		pl->shown = false;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (elapsed(&pl->start, &now) < 1.0 || elapsed(&pl->last, &now) < 0.2)
		return;
	pl->last = now;
	pl->shown = true;
	fprintf(pl->out, "\rpsym: symbolizing mapping %zu/%zu, %zu locations resolved ", mi + 1, nm,
		resolved);
	fflush(pl->out);
}

static size_t unresolved(const struct psym_mapsum *x)
{
	return x->todo - x->done;
}

static void mapping_line(const struct psym_mapsum *x, FILE *out)
{
	const char *nm = *x->name ? x->name : "(no name)";

	if (!x->todo && !x->kept)
		return; /* no location of the profile is in it: nothing to say */
	if (!x->todo)
		fprintf(out,
			"psym: mapping %" PRIu64 " '%s': %zu locations already symbolized, kept\n",
			x->id, x->name, x->kept);
	else if (x->cls == PSYM_MAP_FILE && x->opened)
		fprintf(out, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations %s%s%s\n", x->id,
			x->name, x->done, x->todo, x->from, x->kept ? " (others kept)" : "",
			x->unverified ? "; unverified: the profile has no build ID for it" : "");
	else if (x->cls == PSYM_MAP_FILE) {
		const char *why = psym_reason_kept_text(&x->why), *hint = hint_for_mapping(x);

		if (hint && strstr(why, "--binary-path"))
			hint = NULL; /* the reason gives its own advice */
		fprintf(out, "psym: mapping %" PRIu64 " '%s': 0/%zu locations: %s%s%s\n", x->id,
			x->name, x->todo, why, hint ? "; " : "", hint ? hint : "");
	} else if (x->done < x->todo && x->why.code != PSYM_R_NONE &&
		   x->why.code != PSYM_R_NO_SYMBOL)
		fprintf(out, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s): %s\n", x->id,
			nm, x->done, x->todo, psym_map_class_name(x->cls),
			psym_reason_kept_text(&x->why));
	else
		fprintf(out, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s)\n", x->id, nm,
			x->done, x->todo, psym_map_class_name(x->cls));
}

/* Worst first: most unresolved, then profile order. */
static int cmp_worst(const void *a, const void *b)
{
	const struct psym_mapsum *const *x = a, *const *y = b;

	if (unresolved(*x) != unresolved(*y))
		return unresolved(*x) > unresolved(*y) ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

static int cmp_order(const void *a, const void *b)
{
	const struct psym_mapsum *const *x = a, *const *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Every mapping's line, or with many: counts and the worst. */
/* --explain, worded from the run's data (symbolize.h): ud is the stream. */
void print_explain(void *ud, const struct psym_explain_ev *ev)
{
	const struct psym_located *x = ev->obj;
	FILE *out = ud;
	char more[4400];

	switch (ev->kind) {
	case PSYM_EXPLAIN_OBJECT:
		fprintf(out, "psym: object '%s'%s%s (%s, mapping %" PRIu64 "):\n",
			x->cls == PSYM_MAP_FILE ? x->path : "[vdso]",
			*x->build_id ? " build ID " : "", x->build_id, psym_map_class_name(x->cls),
			ev->mapping_id);
		for (size_t i = 0; i < x->ntried; i++)
			fprintf(out, "    tried '%s': %s\n", x->tried[i].path, x->tried[i].verdict);
		if (x->file)
			fprintf(out, "    located: '%s'%s\n", x->file,
				x->index ? " (with a symbol index)" : "");
		else
			fprintf(out, "    not located: %s\n", psym_reason_kept_text(&x->why));
		break;
	case PSYM_EXPLAIN_TRIED: fprintf(out, "    tried '%s': %s\n", ev->path, ev->verdict); break;
	case PSYM_EXPLAIN_MAPPING:
		fprintf(out, "psym: mapping %" PRIu64 " '%s'%s%s:\n", ev->mapping_id, ev->name,
			*ev->build_id ? " build ID " : "", ev->build_id);
		break;
	case PSYM_EXPLAIN_DESC:
		psym_resdesc_explain(ev->desc, more, sizeof(more));
		if (more[0])
			fprintf(out, "    %s\n", more);
		break;
	}
}

/*
 * The unwinding's counts: one summary line (samples, frames, stop reasons,
 * missing files), then a line for each stop reason other than "end" and
 * for the files not found, saying what it means and what to do about it.
 */
static void print_unwound(const struct psym_unwindprof_stats *st, FILE *out)
{
	fprintf(out, "psym: unwound %zu samples, %zu frames (%zu by CFI, %zu by frame pointer);",
		st->samples, st->frames, st->cfi_frames, st->fp_frames);
	for (int i = 0; i < PSYM_UNWIND_NSTOPS; i++)
		if (st->stops[i])
			fprintf(out, " %s %zu", psym_unwind_stop_name(i), st->stops[i]);
	if (st->no_maps)
		fprintf(out, "; %zu samples of processes without mappings", st->no_maps);
	fprintf(out, "; %zu/%zu files found", st->files - st->files_missing, st->files);
	if (st->budget_why[0])
		fprintf(out, "; unwinding cut short: %s", st->budget_why);
	fputc('\n', out);
	if (st->stops[PSYM_UNWIND_OUT_OF_STACK])
		fprintf(out,
			"psym:   out-of-stack %zu: the caller's frame lay beyond the stack bytes "
			"psym-collect copied (%zu at most); %s\n",
			st->stops[PSYM_UNWIND_OUT_OF_STACK], st->max_stack_len,
			st->files_missing
				? "first give the files not found (below): without their CFI the "
				  "unwinder guessed with frame pointers, and a larger --stack-copy "
				  "BYTES may not help"
				: "record with a larger --stack-copy BYTES to reach it");
	if (st->stops[PSYM_UNWIND_BAD_RULE])
		fprintf(out,
			"psym:   bad-rule %zu: code with no CFI (.eh_frame, .debug_frame) psym "
			"could apply and no frame pointer; the binary or its debug file must be "
			"found (see the files below)\n",
			st->stops[PSYM_UNWIND_BAD_RULE]);
	if (st->stops[PSYM_UNWIND_NO_PROGRESS])
		fprintf(out,
			"psym:   no-progress %zu: a frame did not move the stack pointer up (bad "
			"CFI or a corrupt stack): unwinding stopped there\n",
			st->stops[PSYM_UNWIND_NO_PROGRESS]);
	if (st->stops[PSYM_UNWIND_DEPTH])
		fprintf(out, "psym:   depth %zu: the frame cap was reached\n",
			st->stops[PSYM_UNWIND_DEPTH]);
	if (st->files_missing) {
		fprintf(out,
			"psym:   %zu of %zu files not found: their frames cannot be unwound by "
			"CFI (give them with --binary-path, --sysroot or --debug-dir)",
			st->files_missing, st->files);
		for (size_t i = 0; i < st->nmissing; i++)
			fprintf(out, "%s%s", i ? ", " : ": ", st->missing[i]);
		fprintf(out, "%s\n", st->files_missing > st->nmissing ? ", ..." : "");
	}
}

/* A run's warnings and notes, worded from its data (symbolize.h): ud is the stream. */
void print_note(void *ud, const struct psym_note *n)
{
	FILE *out = ud;
	char more[4400];

	switch (n->kind) {
	case PSYM_NOTE_WARNING:
		psym_resdesc_warning(n->desc, more, sizeof(more));
		for (char *w = more, *nl; *w; w = nl ? nl + 1 : w + strlen(w)) {
			nl = strchr(w, '\n');
			fprintf(out, "psym: warning: %.*s\n",
				(int)(nl ? (size_t)(nl - w) : strlen(w)), w);
		}
		break;
	case PSYM_NOTE_SKIPPED:
		fprintf(out, "psym: '%s': %zu malformed %s skipped\n", n->name, n->skipped,
			n->records ? "records" : "lines");
		break;
	case PSYM_NOTE_SIDE_REFUSED:
		fputs("psym: warning: side file '", out);
		psym_text_puts(out, n->name);
		fprintf(out, "' refused: %s\n", n->why);
		break;
	case PSYM_NOTE_NO_USTACKS:
		fprintf(out,
			"psym: the user stacks need unwinding, but there is no side file %s next "
			"to the profile: only kernel frames and the leaf are known\n",
			n->name);
		break;
	case PSYM_NOTE_UNWOUND: print_unwound(n->unwound, out); break;
	case PSYM_NOTE_MAIN_BINARY:
		if (n->same_build_id)
			fprintf(out,
				"psym: --main-binary applies to mapping %" PRIu64
				" '%s' (same build ID)\n",
				n->mapping_id, n->name);
		else
			fprintf(out,
				"psym: --main-binary applies to mapping %" PRIu64
				" '%s', the first user-space mapping\n",
				n->mapping_id, n->name);
		break;
	}
}

/* A batch's input done (batch.h): a failure always, the others without -q. */
static void print_job(void *ud, const struct psym_result_line *r)
{
	const struct psym_symbolize_opts *so = ud;

	if (r->status == PSYM_RESULT_FAILED)
		fprintf(stderr, "psym: %s\n", r->error);
	else if (so->quiet)
		return;
	else if (r->status == PSYM_RESULT_SKIPPED)
		fprintf(stderr, "psym: '%s' -> '%s': already complete, skipped\n", r->input,
			r->output);
	else
		fprintf(stderr, "psym: '%s' -> '%s': %zu/%zu locations symbolized%s%s\n", r->input,
			r->output, r->resolved, r->locations, r->note ? "; " : "",
			r->note ? r->note : "");
}

static void print_summary(const struct psym_symbolize_result *r, bool all, FILE *out)
{
	const struct psym_mapsum **v;
	size_t shown = r->nmaps, full = 0, partial = 0, none = 0;

	if (r->nmaps > SUMMARY_ALL_UP_TO && !all) {
		v = malloc(r->nmaps * sizeof(*v));
		if (!v)
			goto plain;
		for (size_t i = 0; i < r->nmaps; i++) {
			const struct psym_mapsum *x = &r->maps[i];

			v[i] = x;
			if (!x->todo)
				continue;
			if (x->done == x->todo)
				full++;
			else if (x->done)
				partial++;
			else
				none++;
		}
		qsort(v, r->nmaps, sizeof(*v), cmp_worst);
		shown = 0;
		while (shown < SUMMARY_WORST && shown < r->nmaps && unresolved(v[shown]))
			shown++;
		qsort(v, shown, sizeof(*v), cmp_order);
		fprintf(out,
			"psym: %zu mappings: %zu fully resolved, %zu in part, %zu not at all%s\n",
			r->nmaps, full, partial, none,
			shown ? "; those with the most unresolved locations:" : "");
		for (size_t i = 0; i < shown; i++)
			mapping_line(v[i], out);
		free(v);
		if (shown < r->nmaps && shown)
			fprintf(out,
				"psym: %zu more mappings not listed (--explain lists every one)\n",
				r->nmaps - shown);
		else if (shown < r->nmaps)
			fprintf(out, "psym: (--explain lists every mapping)\n");
		goto nomap;
	}
plain:
	for (size_t i = 0; i < r->nmaps; i++)
		mapping_line(&r->maps[i], out);
nomap:
	if (r->no_mapping)
		fprintf(out, "psym: %zu locations have no mapping: left as addresses\n",
			r->no_mapping);
	if (r->unverified)
		fprintf(out,
			"psym: %zu mapping%s without a build ID in the profile, matched to the "
			"file at %s path alone: unverified (a file rebuilt since the profile "
			"was taken answers wrongly)\n",
			r->unverified, r->unverified == 1 ? "" : "s",
			r->unverified == 1 ? "its" : "their");
}

/* ---- symbolize ------------------------------------------------------------ */

/* Batch job options (psym_batch_opts.manifest/resume/results). */
enum {
	OPT_MANIFEST = OPT_NEXT + 500,
	OPT_RESUME,
	OPT_RESULTS,
	OPT_FORMAT
};

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static const char symbolize_help[] =
	"Usage: psym symbolize [OPTIONS] IN -o OUT\n"
	"       psym symbolize [OPTIONS] [-j N] IN... -o OUTDIR\n"
	"       psym symbolize [OPTIONS] [-j N] --manifest FILE [--resume]\n"
	"Rewrite a profile with Function and Line entries filled in from the\n"
	"binaries its mappings name, checked by build ID. With several inputs, a\n"
	"directory of profiles or -j, every profile is written to OUTDIR under its\n"
	"own name; binaries and debug files are opened once for all of them; a bad\n"
	"input is reported and skipped.\n\n"
	"  -o, --output FILE          where to write (- for stdout); written to a\n"
	"                             temporary file and renamed into place\n"
	"      --in-place             overwrite IN (only with this option)\n"
	"  -j, --jobs N               batch: N profiles at once (default: CPUs)\n"
	"      --manifest FILE        batch of INPUT<TAB>OUTPUT lines (- for stdin;\n"
	"                             empty lines and #comments skipped)\n"
	"      --resume               skip inputs whose output is complete (a file\n"
	"                             that reads as a valid profile); redo the others\n"
	"      --results FILE         append one JSON line per input (status, counts,\n"
	"                             seconds, host, pid) to FILE (- for stdout)\n" INDEX_HELP
	"      --raw                  write an uncompressed protobuf (default: gzip)\n"
	"      --format FMT           pprof (default) or otlp: OpenTelemetry profiles\n"
	"                             (opentelemetry-proto " PSYM_OTLP_VERSION "), raw; the\n"
	"                             default for an OUT ending in .otlp or .otlp.pb\n"
	"      --main-binary FILE     use FILE for the first user-space mapping\n" DISCOVERY_HELP
	"\nKernel, JIT and vDSO frames (IN.d/ from psym-collect is used when present):\n"
	"      --kallsyms FILE        copy of /proc/kallsyms from the profiled host\n"
	"      --vdso FILE            the profiled host's vDSO image\n"
	"      --vmlinux FILE         kernel image with symbols/DWARF (default: found\n"
	"                             by the kernel's build ID in the debug dirs,\n"
	"                             debuginfod, /usr/lib/debug/boot); relocated\n"
	"                             by _text for KASLR\n"
	"      --perf-map FILE        perf map or jitdump for anonymous (JIT) code\n"
	"                             (repeatable)\n"
	"      --perf-map-dir DIR     where perf-PID.map / jit-PID.dump are (repeatable;\n"
	"                             default /tmp, for a psym-collect profile only\n"
	"                             when recorded on this machine); PID from each\n"
	"                             sample's pid label\n"
	"      --pid PID              the process of a single-process profile\n"
	"\nWhat to do:\n"
	"      --force                replace lines that locations already have\n"
	"      --no-inlines           only the function that contains the code\n"
	"      --demangle MODE        function names as pprof writes them: default\n"
	"                             (no parameters, no template arguments),\n"
	"                             templates (no parameters), full, none (the\n"
	"                             mangled name); the mangled name is always the\n"
	"                             system name\n"
	"      --no-demangle          the same as --demangle none\n"
	"      --adjust-callers       the producer recorded return addresses: look\n"
	"                             up address-1 for locations that are never a\n"
	"                             sample's leaf (psym-collect does not need it)\n"
	"\nReporting (on stderr):\n"
	"      --explain              list every file tried for each mapping\n"
	"      --strict               exit 1 when a location of a file-backed\n"
	"                             mapping stays unresolved\n"
	"  -q, --quiet                no per-mapping summary\n" LIMIT_HELP;

/* psym symbolize's command line, parsed (symbolize_parse). */
struct symbolize_cli {
	struct psym_symbolize_opts so;
	struct discovery d;
	struct index_cli ic;
	struct psym_limits lim;
	const char **pmaps, **pmdirs; /* --perf-map, --perf-map-dir */
	size_t n_pmaps, n_pmdirs;
	const char *out;	   /* -o */
	const char *kallsyms;	   /* --kallsyms */
	const char *vdso;	   /* --vdso */
	const char *vmlinux;	   /* --vmlinux */
	const char *manifest_path; /* --manifest */
	const char *results;	   /* --results */
	bool in_place, raw, strict, resume;
	unsigned jobs; /* -j; 0: not given */
	char **ins;    /* the IN arguments */
	int nins;
};

static const struct option symbolize_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "in-place", no_argument, NULL, OPT_IN_PLACE },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "main-binary", required_argument, NULL, OPT_MAIN_BINARY },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "no-inlines", no_argument, NULL, OPT_NO_INLINES },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "demangle", required_argument, NULL, OPT_DEMANGLE },
	{ "adjust-callers", no_argument, NULL, OPT_ADJUST_CALLERS },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "vdso", required_argument, NULL, OPT_VDSO },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "jobs", required_argument, NULL, 'j' },
	INDEX_OPTIONS,
	{ "perf-map", required_argument, NULL, OPT_PERF_MAP },
	{ "perf-map-dir", required_argument, NULL, OPT_PERF_MAP_DIR },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "manifest", required_argument, NULL, OPT_MANIFEST },
	{ "resume", no_argument, NULL, OPT_RESUME },
	{ "results", required_argument, NULL, OPT_RESULTS },
	DISCOVERY_OPTIONS,
	LIMIT_OPTIONS,
	{ 0 }
};

/*
 * The command line into o (to be freed with symbolize_cli_free). False
 * after --help (printed); a usage error exits 2.
 */
static bool symbolize_parse(int argc, char **argv, struct symbolize_cli *o)
{
	static const char shortopts[] = "ho:qj:";
	int c;

	*o = (struct symbolize_cli){ .so = {
					     .explain_fn = print_explain,
					     .explain_ud = stderr,
					     .note_fn = print_note,
					     .note_ud = stderr,
				     } };
	psym_limits_default(&o->lim);
	discovery_init(&o->d);
	while ((c = getopt_long(argc, argv, shortopts, symbolize_options, NULL)) != -1) {
		if (limit_option(c, optarg, &o->lim, "symbolize ") ||
		    discovery_option(c, optarg, &o->d, "symbolize ") ||
		    index_option(c, optarg, &o->ic))
			continue;
		switch (c) {
		case 'o': o->out = optarg; break;
		case OPT_IN_PLACE: o->in_place = true; break;
		case OPT_RAW: o->raw = true; break;
		case OPT_FORMAT:
			if (strcmp(optarg, "pprof") && strcmp(optarg, "otlp"))
				die_usage("symbolize ", "--format: pprof or otlp, not '%s'",
					  optarg);
			o->so.out_format = optarg;
			break;
		case OPT_MAIN_BINARY: o->so.main_binary = optarg; break;
		case OPT_FORCE: o->so.force = true; break;
		case OPT_EXPLAIN: o->so.explain = true; break;
		case OPT_STRICT: o->strict = true; break;
		case 'q': o->so.quiet = true; break;
		case OPT_NO_INLINES: o->so.no_inlines = true; break;
		case OPT_NO_DEMANGLE: o->so.demangle = PSYM_DEMANGLE_NONE; break;
		case OPT_DEMANGLE: o->so.demangle = parse_demangle_arg("symbolize ", optarg); break;
		case OPT_ADJUST_CALLERS: o->so.adjust_callers = true; break;
		case OPT_KALLSYMS: o->kallsyms = optarg; break;
		case OPT_VDSO: o->vdso = optarg; break;
		case OPT_VMLINUX: o->vmlinux = optarg; break;
		case 'j':
			o->jobs = (unsigned)parse_long_arg("symbolize ", optarg, 1, 256, "-j");
			break;
		case OPT_MANIFEST: o->manifest_path = optarg; break;
		case OPT_RESUME: o->resume = true; break;
		case OPT_RESULTS: o->results = optarg; break;
		case OPT_PERF_MAP: add_one(optarg, &o->pmaps, &o->n_pmaps); break;
		case OPT_PERF_MAP_DIR: add_one(optarg, &o->pmdirs, &o->n_pmdirs); break;
		case OPT_PID:
			o->so.pid =
				(int)parse_long_arg("symbolize ", optarg, 1, INT32_MAX, "--pid");
			break;
		case 'h': fputs(symbolize_help, stdout); return false;
		default: die_bad_option("symbolize ", argv, shortopts);
		}
	}
	o->ins = argv + optind;
	o->nins = argc - optind;
	return true;
}

static void symbolize_cli_free(struct symbolize_cli *o)
{
	discovery_free(&o->d);
	free_list(o->pmaps, o->n_pmaps);
	free_list(o->pmdirs, o->n_pmdirs);
}

/* What the run holds besides its options (symbolize_setup, symbolize_run_free). */
struct symbolize_run {
	struct psym_manifest manifest; /* --manifest */
	char **mins;		       /* the manifest's inputs, NULL-terminated */
	char *symcache;		       /* the answer cache's directory, or NULL */
	struct psym_index_store *store;
	struct progress_line pline; /* on a terminal */
};

static void symbolize_run_free(struct symbolize_run *run)
{
	free(run->symcache);
	free(run->mins);
	psym_manifest_free(&run->manifest);
	psym_index_store_free(run->store);
}

/*
 * The inputs: --manifest's (read into run), else the IN arguments; a
 * usage error for what does not go with them. 0 or an error.
 */
static int symbolize_inputs(const struct symbolize_cli *o, struct symbolize_run *run,
			    struct psym_err *e)
{
	int ret;

	if (o->manifest_path) {
		if (o->nins > 0 || o->out || o->in_place)
			die_usage("symbolize ", "--manifest names the inputs and outputs: no IN, "
						"-o or --in-place");
		ret = psym_manifest_read(o->manifest_path, o->lim.max_input, &run->manifest, e);
		if (ret)
			return ret;
		run->mins = calloc(run->manifest.n + 1, sizeof(*run->mins));
		if (!run->mins)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		for (size_t i = 0; i < run->manifest.n; i++)
			run->mins[i] = run->manifest.v[i].in;
	} else if (o->resume || o->results) {
		die_usage("symbolize ", "--resume and --results go with --manifest");
	} else if (o->nins < 1) {
		die_usage("symbolize ", "no input profile");
	}
	if (o->so.main_binary) {
		struct stat st;

		if (stat(o->so.main_binary, &st) != 0 || !S_ISREG(st.st_mode))
			die_usage("symbolize ", "--main-binary '%s': %s", o->so.main_binary,
				  errno && stat(o->so.main_binary, &st) != 0
					  ? strerror(errno)
					  : "not a regular file");
	}
	return 0;
}

/*
 * The discovery options finished (with --debug-pkg, only what the
 * profiles' mappings need is extracted) and symbolize's own files added to
 * them. 0 or an error.
 */
static int symbolize_discovery(struct symbolize_cli *o, const struct symbolize_run *run,
			       struct psym_err *e)
{
	int ret;

	if (o->d.n_pkgs) {
		ret = run->mins ? inputs_wants(run->mins, run->manifest.n, &o->lim, o->kallsyms,
					       &o->d, e)
				: inputs_wants(o->ins, (size_t)o->nins, &o->lim, o->kallsyms, &o->d,
					       e);
		if (ret)
			return ret;
	}
	ret = discovery_finish(&o->d, e);
	if (ret)
		return ret;
	if (!o->n_pmdirs) {
		add_one("/tmp", &o->pmdirs, &o->n_pmdirs);
		o->so.perf_map_dirs_default = true;
	}
	o->so.perf_maps = o->pmaps;
	o->so.n_perf_maps = o->n_pmaps;
	/* The one set of discovery options, with symbolize's own files. */
	o->d.lo.perf_map_dirs = o->pmdirs;
	o->d.lo.n_perf_map_dirs = o->n_pmdirs;
	o->d.lo.kallsyms = o->kallsyms;
	o->d.lo.vdso = o->vdso;
	o->d.lo.vmlinux = o->vmlinux;
	o->so.locate = &o->d.lo;
	o->so.limits = o->d.limits;
	/* Decompressed DWARF counts against the profile's memory cap too. */
	o->so.limits.memory = o->lim.max_memory;
	return 0;
}

/*
 * Everything before the first profile is read: inputs, discovery, the
 * progress line, the answer cache and the index store. An exit code (0:
 * ready), its message printed.
 */
static int symbolize_setup(struct symbolize_cli *o, struct symbolize_run *run)
{
	struct psym_err e = { 0 };
	/* As given: discovery_finish may fill in the default. */
	const char *cache_opt = o->d.cache_opt;
	int ret;

	ret = symbolize_inputs(o, run, &e);
	if (!ret)
		ret = symbolize_discovery(o, run, &e);
	if (ret)
		return report(&e, ret);
	if (isatty(STDERR_FILENO)) {
		run->pline.out = stderr;
		clock_gettime(CLOCK_MONOTONIC, &run->pline.start);
		o->so.progress = progress_cb;
		o->so.progress_ud = &run->pline;
	}
	run->symcache = discovery_symcache(&o->d);
	o->so.cache_dir = run->symcache;
	if (index_store_open(&o->ic, cache_opt, true, &run->store))
		return PSYM_EXIT_BADINPUT;
	o->so.index_store = run->store;
	return PSYM_EXIT_OK;
}

/* Batch: many profiles, one output directory, binaries shared. An exit code. */
static int symbolize_batch(struct symbolize_cli *o, struct symbolize_run *run)
{
	struct psym_batch_opts bo = {
		.inputs = (const char *const *)o->ins,
		.n_inputs = (size_t)o->nins,
		.outdir = o->out,
		.jobs = o->jobs,
		.gzip = !o->raw,
		.strict = o->strict,
		.lim = &o->lim,
		.so = &o->so,
		.manifest = o->manifest_path ? &run->manifest : NULL,
		.resume = o->resume,
		.results = o->results,
		.job_fn = print_job,
		.job_ud = &o->so,
	};
	struct psym_batch_result br;
	struct psym_err e = { 0 };
	int ret;

	if (!o->manifest_path && (o->in_place || !o->out))
		die_usage("symbolize ", "several inputs: give -o OUTDIR (not --in-place)");
	ret = psym_batch_symbolize(&bo, &br, &e);
	if (ret)
		return report(&e, ret);
	/* Said once for the batch: its profiles' lines carry no warnings. */
	if (psym_index_store_given_up(run->store))
		fprintf(stderr, "psym: warning: %s\n", psym_index_store_given_up(run->store));
	if (!o->so.quiet && o->resume)
		fprintf(stderr,
			"psym: %zu/%zu profiles written, %zu skipped (complete), %zu failed; "
			"%zu/%zu locations symbolized\n",
			br.written, br.files, br.skipped, br.failed,
			br.total.resolved + br.total.kept, br.total.locations);
	else if (!o->so.quiet)
		fprintf(stderr,
			"psym: %zu/%zu profiles written, %zu failed; %zu/%zu locations "
			"symbolized\n",
			br.written, br.files, br.failed, br.total.resolved + br.total.kept,
			br.total.locations);
	if (!o->so.quiet && br.total.unverified)
		fprintf(stderr,
			"psym: %zu mapping%s without a build ID in %s profile%s matched by path "
			"alone: unverified (--explain names them)\n",
			br.total.unverified, br.total.unverified == 1 ? "" : "s",
			br.files == 1 ? "the" : "their", br.files == 1 ? "" : "s");
	if (!o->so.quiet && br.indexes_built)
		fprintf(stderr, "psym: %zu index build%s started in '%s'\n", br.indexes_built,
			br.indexes_built == 1 ? "" : "s", psym_index_store_name(run->store));
	if (!o->so.quiet && br.kallsyms_parsed)
		fprintf(stderr, "psym: %zu kallsyms cop%s parsed (shared by boot and content)\n",
			br.kallsyms_parsed, br.kallsyms_parsed == 1 ? "y" : "ies");
	return br.failed ? psym_exit_code(br.worst) : PSYM_EXIT_OK;
}

/* One profile, IN to OUT (or --in-place), with psym-collect's IN.d/. An exit code. */
static int symbolize_one(struct symbolize_cli *o, struct symbolize_run *run)
{
	struct psym_symbolize_result res = { 0 };
	struct psym_err e = { 0 };
	const char *in = o->ins[0], *out = o->out;
	char *side = NULL;
	int ret;

	/* The collector's side files sit next to its profile: IN.d/. */
	if (strcmp(in, "-") && (side = psym_side_dir(in)) && is_dir(side))
		o->so.side_dir = side;
	if (o->in_place) {
		if (out)
			die_usage("symbolize ", "--in-place and -o exclude each other");
		if (strcmp(in, "-") == 0)
			die_usage("symbolize ", "--in-place needs a file, not stdin");
		out = in;
	}
	if (!out)
		die_usage("symbolize ", "no output: give -o FILE (or --in-place)");
	if (!o->in_place && strcmp(in, "-") && strcmp(out, "-") &&
	    (strcmp(in, out) == 0 || psym_same_file(in, out)))
		die_usage("symbolize ", "output '%s' is the input: use --in-place to overwrite it",
			  out);
	if (!o->so.out_format && (ends_with(out, ".otlp") || ends_with(out, ".otlp.pb")))
		o->so.out_format = "otlp";
	ret = psym_symbolize_file(in, out, &o->lim, &o->so, !o->raw, &res, &active_out, &e);
	if (ret) {
		ret = report(&e, ret);
		goto out;
	}
	if (!o->so.quiet)
		print_summary(&res, o->so.explain, stderr);
	psym_symbolize_result_free(&res);
	if (!o->so.quiet)
		fprintf(stderr,
			"psym: %zu/%zu locations symbolized (%zu kept, %zu unresolved in "
			"files, %zu in other mappings)\n",
			res.resolved + res.kept, res.locations, res.kept, res.unresolved_file,
			res.unresolved_other);
	if (!o->so.quiet && res.indexes_built)
		fprintf(stderr, "psym: %zu index build%s started in '%s'\n", res.indexes_built,
			res.indexes_built == 1 ? "" : "s", psym_index_store_name(run->store));
	ret = o->strict && res.unresolved_file ? PSYM_EXIT_PARTIAL : PSYM_EXIT_OK;
out:
	o->so.side_dir = NULL;
	free(side);
	return ret;
}

int cmd_symbolize(int argc, char **argv)
{
	struct symbolize_cli o;
	struct symbolize_run run = { { 0 } };
	int exit_code = PSYM_EXIT_OK;

	if (!symbolize_parse(argc, argv, &o))
		goto out;
	exit_code = symbolize_setup(&o, &run);
	if (exit_code != PSYM_EXIT_OK)
		goto out;
	if (o.manifest_path || o.jobs || o.nins > 1 || is_dir(o.ins[0]))
		exit_code = symbolize_batch(&o, &run);
	else
		exit_code = symbolize_one(&o, &run);
out:
	symbolize_cli_free(&o);
	symbolize_run_free(&run);
	return exit_code;
}
