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

/* ---- symbolize ------------------------------------------------------------ */

/* Batch job options (psym_symbolize_args: manifest, resume, results). */
enum {
	OPT_MANIFEST = OPT_NEXT + 500,
	OPT_RESUME,
	OPT_RESULTS,
	OPT_FORMAT
};

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
	struct psym_session *s;
	struct psym_symbolize_args a;
	const char *main_binary; /* --main-binary */
	bool in_place;
	char **ins; /* the IN arguments */
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
 * The command line into o (o->s to be freed). False after --help
 * (printed); a usage error exits 2.
 */
static bool symbolize_parse(int argc, char **argv, struct symbolize_cli *o)
{
	static const char shortopts[] = "ho:qj:";
	int c;

	*o = (struct symbolize_cli){ .s = session_new(), .a = { .gzip = true } };
	while ((c = getopt_long(argc, argv, shortopts, symbolize_options, NULL)) != -1) {
		if (c == OPT_MAIN_BINARY)
			o->main_binary = optarg;
		if (session_option(o->s, symbolize_options, c, optarg, "symbolize "))
			continue;
		switch (c) {
		case 'o': o->a.output = optarg; break;
		case OPT_IN_PLACE: o->in_place = true; break;
		case OPT_RAW: o->a.gzip = false; break;
		case OPT_STRICT: o->a.strict = true; break;
		case 'j':
			o->a.jobs = (unsigned)parse_long_arg("symbolize ", optarg, 1, 256, "-j");
			break;
		case OPT_MANIFEST: o->a.manifest = optarg; break;
		case OPT_RESUME: o->a.resume = true; break;
		case OPT_RESULTS: o->a.results = optarg; break;
		case 'h': fputs(symbolize_help, stdout); return false;
		default: die_bad_option("symbolize ", argv, shortopts);
		}
	}
	o->ins = argv + optind;
	o->nins = argc - optind;
	return true;
}

/* What does not go together, as usage errors (exit 2). */
static void symbolize_check(struct symbolize_cli *o)
{
	struct stat st;
	const char *in, *out = o->a.output;

	if (o->a.manifest) {
		if (o->nins > 0 || o->a.output || o->in_place)
			die_usage("symbolize ", "--manifest names the inputs and outputs: no IN, "
						"-o or --in-place");
	} else if (o->a.resume || o->a.results) {
		die_usage("symbolize ", "--resume and --results go with --manifest");
	} else if (o->nins < 1) {
		die_usage("symbolize ", "no input profile");
	}
	if (o->main_binary && (stat(o->main_binary, &st) != 0 || !S_ISREG(st.st_mode)))
		die_usage("symbolize ", "--main-binary '%s': %s", o->main_binary,
			  errno && stat(o->main_binary, &st) != 0 ? strerror(errno)
								  : "not a regular file");
	o->a.inputs = (const char *const *)o->ins;
	o->a.n_inputs = (size_t)o->nins;
	if (o->a.manifest)
		return;
	if (o->a.jobs || o->nins > 1 || is_dir(o->ins[0])) {
		if (o->in_place || !o->a.output)
			die_usage("symbolize ", "several inputs: give -o OUTDIR (not --in-place)");
		return;
	}
	in = o->ins[0];
	if (o->in_place) {
		if (out)
			die_usage("symbolize ", "--in-place and -o exclude each other");
		if (strcmp(in, "-") == 0)
			die_usage("symbolize ", "--in-place needs a file, not stdin");
		o->a.output = out = in;
	}
	if (!out)
		die_usage("symbolize ", "no output: give -o FILE (or --in-place)");
	if (!o->in_place && strcmp(in, "-") && strcmp(out, "-") &&
	    (strcmp(in, out) == 0 || psym_same_file(in, out)))
		die_usage("symbolize ", "output '%s' is the input: use --in-place to overwrite it",
			  out);
}

int cmd_symbolize(int argc, char **argv)
{
	struct symbolize_cli o;
	struct psym_err e = { 0 };
	int status = PSYM_EXIT_OK, ret;

	if (!symbolize_parse(argc, argv, &o)) {
		psym_session_free(o.s);
		return PSYM_EXIT_OK;
	}
	symbolize_check(&o);
	ret = psym_session_symbolize(o.s, &o.a, &active_out, &status, &e);
	psym_session_free(o.s);
	return ret ? report(&e, ret) : status;
}
