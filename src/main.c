/* SPDX-License-Identifier: MIT */
/*
 * psym: offline pprof post-processor. Thin main: parse arguments, call
 * libpsym, print, return a documented exit code (see psym --help).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "psym.h"
#include "report.h"
#include "crashlog.h"

static const char *progname = "psym";

static void die_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void die_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s--help' for more information.\n", progname,
		cmd ? cmd : "");
	exit(PSYM_EXIT_BADINPUT);
}

static int report(const struct psym_err *e, int code)
{
	fprintf(stderr, "%s: %s\n", progname, e->msg[0] ? e->msg : psym_strerror(code));
	return psym_exit_code(code);
}

/* Parse a byte size with optional K/M/G suffix (powers of 1024). */
static bool parse_size(const char *s, size_t *out)
{
	unsigned long long v;

	if (!psym_parse_size(s, &v) || v > SIZE_MAX)
		return false;
	*out = (size_t)v;
	return true;
}

/* Options shared by every command that reads a profile. */
enum {
	OPT_MAX_INPUT = 1000,
	OPT_MAX_PROFILE,
	OPT_MAX_MEMORY,
	OPT_JSON,
	OPT_RAW,
	OPT_IN_PLACE,
	OPT_NEXT, /* first free value for command-specific options */
};

#define LIMIT_OPTIONS                                                        \
	{ "max-input-size", required_argument, NULL, OPT_MAX_INPUT },         \
	{ "max-profile-size", required_argument, NULL, OPT_MAX_PROFILE },     \
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },            \
	{ "help", no_argument, NULL, 'h' }

#define READER_LIMIT_HELP                                                          \
	"      --limit NAME=N         raise (or lower) a cap on what one input may\n"  \
	"                             cost: ELF sections/symbols, DWARF depth/entries/\n" \
	"                             rows/section bytes, perf map entries, kallsyms\n" \
	"                             symbols, .deb bytes/files; --limit help lists\n" \
	"                             them\n"

#define LIMIT_HELP                                                                 \
	"      --max-input-size N     refuse input files larger than N bytes (default 1G)\n" \
	"      --max-profile-size N   refuse profiles that decompress to more than N bytes\n" \
	"                             (default 512M)\n"                                  \
	"      --max-memory N         memory cap for one profile (default 8G)\n"       \
	"  -h, --help                 show this help\n"

static bool limit_option(int c, const char *arg, struct psym_limits *lim,
			 const char *cmd)
{
	size_t *dst;

	switch (c) {
	case OPT_MAX_INPUT: dst = &lim->max_input; break;
	case OPT_MAX_PROFILE: dst = &lim->max_profile; break;
	case OPT_MAX_MEMORY: dst = &lim->max_memory; break;
	default: return false;
	}
	if (!parse_size(arg, dst))
		die_usage(cmd, "invalid size '%s'", arg);
	return true;
}

/* Read and validate; prints the error and returns an exit code on failure. */
static int load(const char *path, const struct psym_limits *lim,
		struct psym_profile **p)
{
	struct psym_err e = { 0 };
	int ret;

	ret = psym_profile_read(path, lim, p, &e);
	if (!ret) {
		ret = psym_profile_validate(*p, &e);
		if (ret) {
			psym_err_prefix(&e, "'%s': invalid profile",
					strcmp(path, "-") ? path : "<stdin>");
			psym_profile_free(*p);
			*p = NULL;
		}
	}
	return ret ? report(&e, ret) : 0;
}

/* ---- show ----------------------------------------------------------------- */

static const char show_help[] =
	"Usage: psym show [OPTIONS] FILE\n"
	"Print a readable dump of a pprof profile (gzip'd or raw; - for stdin):\n"
	"header, sample and period types, mappings with build IDs and has_* flags,\n"
	"locations with their lines, samples with labels.\n\n"
	"      --json                 print JSON instead, for scripts\n"
	LIMIT_HELP;

static int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON }, LIMIT_OPTIONS, { 0 }
	};
	struct psym_limits lim;
	struct psym_profile *p = NULL;
	bool json = false;
	int c, ret;

	psym_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, "show "))
			continue;
		switch (c) {
		case OPT_JSON: json = true; break;
		case 'h': fputs(show_help, stdout); return 0;
		default: die_usage("show ", "invalid option");
		}
	}
	if (argc - optind != 1)
		die_usage("show ", "expected exactly one FILE");
	ret = load(argv[optind], &lim, &p);
	if (ret)
		return ret;
	ret = json ? psym_show_json(p, stdout) : psym_show_text(p, stdout);
	psym_profile_free(p);
	if (fflush(stdout) != 0 || ret) {
		fprintf(stderr, "%s: cannot write to standard output: %s\n", progname,
			strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	return 0;
}

/* ---- check ---------------------------------------------------------------- */

static const char check_help[] =
	"Usage: psym check [OPTIONS] FILE...\n"
	"Validate pprof profiles the way pprof does. Exit 0 when every FILE is\n"
	"valid, 2 when one is not (the first problem of each is printed).\n\n"
	"  -q, --quiet                print nothing for valid files\n"
	LIMIT_HELP;

static int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' }, LIMIT_OPTIONS, { 0 }
	};
	struct psym_limits lim;
	bool quiet = false;
	int c, worst = 0;

	psym_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, "check "))
			continue;
		switch (c) {
		case 'q': quiet = true; break;
		case 'h': fputs(check_help, stdout); return 0;
		default: die_usage("check ", "invalid option");
		}
	}
	if (argc - optind < 1)
		die_usage("check ", "expected at least one FILE");
	for (int i = optind; i < argc; i++) {
		struct psym_profile *p = NULL;
		int ret = load(argv[i], &lim, &p);

		if (ret) {
			if (ret > worst)
				worst = ret;
			continue;
		}
		if (!quiet)
			printf("%s: ok (%zu samples, %zu locations, %zu mappings, %zu functions)\n",
			       argv[i], p->pb->n_sample, p->pb->n_location, p->pb->n_mapping,
			       p->pb->n_function);
		psym_profile_free(p);
	}
	return worst;
}

/* ---- symbolize ------------------------------------------------------------ */

static const char symbolize_help[] =
	"Usage: psym symbolize [OPTIONS] IN -o OUT\n"
	"       psym symbolize [OPTIONS] [-j N] IN... -o OUTDIR\n"
	"Rewrite a profile with Function and Line entries filled in from the\n"
	"binaries its mappings name, checked by build ID. With several inputs, a\n"
	"directory of profiles or -j, every profile is written to OUTDIR under its\n"
	"own name; binaries and debug files are opened once for all of them; a bad\n"
	"input is reported and skipped.\n\n"
	"  -o, --output FILE          where to write (- for stdout); written to a\n"
	"                             temporary file and renamed into place\n"
	"      --in-place             overwrite IN (only with this option)\n"
	"  -j, --jobs N               batch: N profiles at once (default: CPUs)\n"
	"      --cache DIR            persistent symbol cache: addresses answered\n"
	"                             from DWARF before are answered from DIR without\n"
	"                             reading it again (default $XDG_CACHE_HOME/psym/\n"
	"                             symbols or ~/.cache/psym/symbols)\n"
	"      --no-cache             neither read nor write the symbol cache\n"
	"      --raw                  write an uncompressed protobuf (default: gzip)\n"
	"\nFinding binaries (in this order):\n"
	"      --main-binary FILE     use FILE for the first mapping\n"
	"      --binary-path DIR[:DIR...]  search DIR/BUILDID/BASENAME, DIR/BUILDID/*,\n"
	"                             DIR/BUILDID, DIR/PATH/BUILDID, DIR/BASENAME,\n"
	"                             DIR/PATH; then $PPROF_BINARY_PATH the same way\n"
	"      --sysroot DIR          look for each mapping's own path under DIR\n"
	"                             (default /); '..' never leaves DIR\n"
	"\nDebug information (lines, inline frames; looked for in this order):\n"
	"      --debug-dir DIR        search DIR/.build-id/NN/REST.debug and\n"
	"                             DIR/<binary's dir>/<debuglink> (repeatable;\n"
	"                             /usr/lib/debug is always searched last)\n"
	"      --debug-pkg FILE.deb   use a Debian -dbg/-dbgsym package (repeatable;\n"
	"                             extracted once into the cache)\n"
	"      --debuginfod URL       ask this debuginfod server (repeatable;\n"
	"                             default: $DEBUGINFOD_URLS)\n"
	"      --debuginfod-timeout S seconds per request (default 10)\n"
	"      --offline              never use the network\n"
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
	"                             default /tmp); PID from each sample's pid label\n"
	"      --pid PID              the process of a single-process profile\n"
	"\nWhat to do:\n"
	"      --force                replace lines that locations already have\n"
	"      --no-inlines           only the function that contains the code\n"
	"      --no-demangle          keep mangled names\n"
	"      --adjust-callers       the producer recorded return addresses: look\n"
	"                             up address-1 for locations that are never a\n"
	"                             sample's leaf (psym-collect does not need it)\n"
	"\nReporting (on stderr):\n"
	"      --explain              list every file tried for each mapping\n"
	"      --strict               exit 1 when a location of a file-backed\n"
	"                             mapping stays unresolved\n"
	"  -q, --quiet                no per-mapping summary\n"
	READER_LIMIT_HELP
	LIMIT_HELP;

/* --limit NAME=N for the readers of binaries, debug info, maps, packages. */
static void reader_limit_option(const char *arg, struct psym_reader_limits *rl, const char *cmd)
{
	struct psym_err e = { 0 };

	if (!strcmp(arg, "help")) {
		printf("Limits (--limit NAME=N, N with K/M/G; current values):\n");
		psym_reader_limits_print(rl, stdout);
		exit(0);
	}
	if (psym_reader_limits_set(rl, arg, &e) != 0)
		die_usage(cmd, "%s", e.msg);
}

static struct psym_out *volatile active_out;

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void on_signal(int sig)
{
	struct psym_out *o = active_out;

	if (o && o->tmp)
		unlink(o->tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

enum {
	OPT_BINARY_PATH = OPT_NEXT,
	OPT_SYSROOT,
	OPT_MAIN_BINARY,
	OPT_FORCE,
	OPT_EXPLAIN,
	OPT_STRICT,
	OPT_DEBUG_DIR,
	OPT_DEBUG_PKG,
	OPT_DEBUGINFOD,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_OFFLINE,
	OPT_NO_INLINES,
	OPT_NO_DEMANGLE,
	OPT_ADJUST_CALLERS,
	OPT_KALLSYMS,
	OPT_VDSO,
	OPT_PERF_MAP,
	OPT_PERF_MAP_DIR,
	OPT_PID,
	OPT_BUILD_ID,
	OPT_LIMIT,
	OPT_VMLINUX,
	OPT_JOBS,
	OPT_CACHE,
	OPT_NO_CACHE,
	OPT_FILTER,
};

/* $XDG_CACHE_HOME/psym or ~/.cache/psym (malloc'd), NULL if neither is set. */
static char *cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *d = NULL;

	if (x && *x) {
		if (asprintf(&d, "%s/psym", x) < 0)
			d = NULL;
	} else if (home && *home) {
		if (asprintf(&d, "%s/.cache/psym", home) < 0)
			d = NULL;
	}
	return d;
}

static int mkdir_p(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	return mkdir(buf, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* Append one string to *list, taking ownership of it (freed if it cannot be kept). */
static void add_owned(char *s, const char ***list, size_t *n)
{
	const char **nl = s ? realloc(*list, (*n + 1) * sizeof(**list)) : NULL;

	if (!nl) {
		free(s);
		return;
	}
	*list = nl;
	(*list)[(*n)++] = s;
}

/* Append one strdup'd string (URLs and file names may contain ':'). */
static void add_one(const char *arg, const char ***list, size_t *n)
{
	add_owned(strdup(arg), list, n);
}

/* Split a colon-separated list into *list (appending). Strings are strdup'd. */
static void add_path_list(const char *arg, const char ***list, size_t *n)
{
	char *copy = strdup(arg), *save = NULL, *tok;

	if (!copy)
		return;
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
		add_one(tok, list, n);
	free(copy);
}

/* A whole decimal number in [lo, hi], or a usage error naming what it is. */
static long parse_long_arg(const char *cmd, const char *arg, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < lo || v > hi)
		die_usage(cmd, "invalid %s '%s'", what, arg);
	return v;
}

static void free_list(const char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)list[i]);
	free(list);
}

static int cmd_symbolize(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, OPT_IN_PLACE },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "binary-path", required_argument, NULL, OPT_BINARY_PATH },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "main-binary", required_argument, NULL, OPT_MAIN_BINARY },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "explain", no_argument, NULL, OPT_EXPLAIN },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "debug-pkg", required_argument, NULL, OPT_DEBUG_PKG },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "no-inlines", no_argument, NULL, OPT_NO_INLINES },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "adjust-callers", no_argument, NULL, OPT_ADJUST_CALLERS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "vdso", required_argument, NULL, OPT_VDSO },
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "jobs", required_argument, NULL, 'j' },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "perf-map", required_argument, NULL, OPT_PERF_MAP },
		{ "perf-map-dir", required_argument, NULL, OPT_PERF_MAP_DIR },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		LIMIT_OPTIONS, { 0 }
	};
	struct psym_symbolize_opts so = { .log = stderr };
	const char **pmaps = NULL, **pmdirs = NULL;
	size_t n_pmaps = 0, n_pmdirs = 0;
	char *side = NULL;
	struct psym_debuginfod_opts dio = { 0 };
	const char **ddirs = NULL, **pkgs = NULL, **urls = NULL;
	size_t n_ddirs = 0, n_pkgs = 0, n_urls = 0;
	struct psym_symbolize_result res;
	struct psym_limits lim;
	struct psym_profile *p = NULL;
	struct psym_err e = { 0 };
	const char *in, *out = NULL, **bpath = NULL, *env;
	size_t n_bpath = 0;
	bool in_place = false, raw = false, strict = false;
	unsigned jobs = 0;
	const char *cache_opt = NULL;
	char *symcache = NULL;
	bool no_cache = false;
	int c, ret, exit_code = PSYM_EXIT_OK;

	psym_limits_default(&lim);
	psym_reader_limits_default(&so.limits);
	while ((c = getopt_long(argc, argv, "ho:qj:", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, "symbolize "))
			continue;
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_IN_PLACE: in_place = true; break;
		case OPT_RAW: raw = true; break;
		case OPT_BINARY_PATH: add_path_list(optarg, &bpath, &n_bpath); break;
		case OPT_SYSROOT: so.sysroot = optarg; break;
		case OPT_MAIN_BINARY: so.main_binary = optarg; break;
		case OPT_FORCE: so.force = true; break;
		case OPT_EXPLAIN: so.explain = true; break;
		case OPT_STRICT: strict = true; break;
		case 'q': so.quiet = true; break;
		case OPT_DEBUG_DIR: add_path_list(optarg, &ddirs, &n_ddirs); break;
		case OPT_DEBUG_PKG: add_one(optarg, &pkgs, &n_pkgs); break;
		case OPT_DEBUGINFOD: add_one(optarg, &urls, &n_urls); break;
		case OPT_DEBUGINFOD_TIMEOUT:
			dio.timeout_s = (int)parse_long_arg("symbolize ", optarg, 1, 3600, "timeout");
			break;
		case OPT_OFFLINE: dio.offline = true; break;
		case OPT_NO_INLINES: so.no_inlines = true; break;
		case OPT_NO_DEMANGLE: so.no_demangle = true; break;
		case OPT_ADJUST_CALLERS: so.adjust_callers = true; break;
		case OPT_KALLSYMS: so.kallsyms = optarg; break;
		case OPT_LIMIT: reader_limit_option(optarg, &so.limits, "symbolize "); break;
		case OPT_VDSO: so.vdso = optarg; break;
		case OPT_VMLINUX: so.vmlinux = optarg; break;
		case OPT_CACHE: cache_opt = optarg; break;
		case OPT_NO_CACHE: no_cache = true; break;
		case 'j': jobs = (unsigned)parse_long_arg("symbolize ", optarg, 1, 256, "jobs"); break;
		case OPT_PERF_MAP: add_one(optarg, &pmaps, &n_pmaps); break;
		case OPT_PERF_MAP_DIR: add_one(optarg, &pmdirs, &n_pmdirs); break;
		case OPT_PID:
			so.pid = (int)parse_long_arg("symbolize ", optarg, 1, INT32_MAX, "pid");
			break;
		case 'h': fputs(symbolize_help, stdout); return 0;
		default: die_usage("symbolize ", "invalid option");
		}
	}
	/* Decompressed DWARF counts against the profile's memory cap too. */
	so.limits.memory = lim.max_memory;
	/* Debian debug packages become debug dirs (extracted into the cache). */
	for (size_t i = 0; i < n_pkgs; i++) {
		char *cache = cache_dir(), *debs = NULL, *root = NULL;

		if (!cache || asprintf(&debs, "%s/debs", cache) < 0 || mkdir_p(debs) != 0 ||
		    psym_deb_extract_debug(pkgs[i], debs, &so.limits.deb, &root, &e) != 0) {
			if (!e.msg[0])
				psym_err_set(&e, PSYM_EIO, "cannot create the cache for '%s'", pkgs[i]);
			free(cache);
			free(debs);
			exit_code = report(&e, e.code ? e.code : PSYM_EIO);
			goto out;
		}
		add_owned(root, &ddirs, &n_ddirs);
		free(cache);
		free(debs);
	}
	add_path_list("/usr/lib/debug", &ddirs, &n_ddirs);
	if (!n_pmdirs)
		add_one("/tmp", &pmdirs, &n_pmdirs);
	so.perf_maps = pmaps;
	so.n_perf_maps = n_pmaps;
	so.perf_map_dirs = pmdirs;
	so.n_perf_map_dirs = n_pmdirs;
	so.debug_dirs = ddirs;
	so.n_debug_dirs = n_ddirs;
	dio.urls = urls;
	dio.n_urls = n_urls;
	{
		char sbuf[4096];

		if (!dio.offline && psym_debuginfod_servers(&dio, sbuf, sizeof(sbuf)))
			so.debuginfod = &dio;
	}
	env = getenv("PPROF_BINARY_PATH");
	if (env && *env)
		add_path_list(env, &bpath, &n_bpath);
	so.binary_path = bpath;
	so.n_binary_path = n_bpath;
	so.progress = isatty(STDERR_FILENO);
	if (argc - optind < 1)
		die_usage("symbolize ", "no input profile");
	if (!no_cache) {
		char *base = cache_opt ? strdup(cache_opt) : cache_dir();

		if (base && (cache_opt ? asprintf(&symcache, "%s", base) :
					 asprintf(&symcache, "%s/symbols", base)) < 0)
			symcache = NULL;
		free(base);
		so.cache_dir = symcache;
	}
	if (jobs || argc - optind > 1 || is_dir(argv[optind])) {
		/* Batch: many profiles, one output directory, binaries shared. */
		struct psym_batch_opts bo = {
			.inputs = (const char *const *)argv + optind,
			.n_inputs = (size_t)(argc - optind),
			.outdir = out,
			.jobs = jobs,
			.gzip = !raw,
			.strict = strict,
			.lim = &lim,
			.so = &so,
			.log = so.quiet ? NULL : stderr,
		};
		struct psym_batch_result br;

		if (in_place || !out)
			die_usage("symbolize ", "several inputs: give -o OUTDIR (not --in-place)");
		ret = psym_batch_symbolize(&bo, &br, &e);
		if (ret)
			goto fail;
		if (!so.quiet)
			fprintf(stderr, "psym: %zu/%zu profiles written, %zu failed; %zu/%zu locations "
				"symbolized\n", br.written, br.files, br.failed,
				br.total.resolved + br.total.kept, br.total.locations);
		exit_code = br.failed ? psym_exit_code(br.worst) : PSYM_EXIT_OK;
		goto out;
	}
	in = argv[optind];
	/* The collector's side files sit next to its profile: IN.d/. */
	if (strcmp(in, "-") && asprintf(&side, "%s.d", in) >= 0 && is_dir(side))
		so.side_dir = side;
	if (in_place) {
		if (out)
			die_usage("symbolize ", "--in-place and -o exclude each other");
		if (strcmp(in, "-") == 0)
			die_usage("symbolize ", "--in-place needs a file, not stdin");
		out = in;
	}
	if (!out)
		die_usage("symbolize ", "no output: give -o FILE (or --in-place)");
	if (!in_place && strcmp(in, "-") && strcmp(out, "-") &&
	    (strcmp(in, out) == 0 || psym_same_file(in, out)))
		die_usage("symbolize ", "output '%s' is the input: use --in-place to overwrite it",
			  out);
	ret = psym_symbolize_file(in, out, &lim, &so, !raw, &res, &active_out, &e);
	if (ret)
		goto fail;
	if (!so.quiet)
		fprintf(stderr, "psym: %zu/%zu locations symbolized (%zu kept, %zu unresolved in "
			"files, %zu in other mappings)\n", res.resolved + res.kept, res.locations,
			res.kept, res.unresolved_file, res.unresolved_other);
	exit_code = strict && res.unresolved_file ? PSYM_EXIT_PARTIAL : PSYM_EXIT_OK;
	goto out;
fail:
	exit_code = report(&e, ret);
out:
	psym_profile_free(p);
	free_list(bpath, n_bpath);
	free_list(ddirs, n_ddirs);
	free_list(pkgs, n_pkgs);
	free_list(urls, n_urls);
	free_list(pmaps, n_pmaps);
	free_list(pmdirs, n_pmdirs);
	free(side);
	free(symcache);
	return exit_code;
}

/* ---- addr ------------------------------------------------------------------ */

static const char addr_help[] =
	"Usage: psym addr -e BINARY [OPTIONS] [ADDRESS...]\n"
	"Symbolize addresses of BINARY (ELF virtual addresses, hex, as addr2line\n"
	"takes them; read from standard input when none are given), with inline\n"
	"frames, in addr2line -f -i -C style or JSON.\n\n"
	"  -e, --exe FILE             the binary\n"
	"      --build-id ID          the binary with this build ID, found in the debug\n"
	"                             dirs (.build-id trees) or with debuginfod\n"
	"      --filter               copy standard input to standard output, filling in\n"
	"                             sanitizer frames (#N 0x... (module+0x...)),\n"
	"                             backtrace_symbols lines (prog(+0x...)[0x...]) and\n"
	"                             module+0xoffset frames; other lines unchanged\n"
	"      --json                 one JSON object per address, frames innermost\n"
	"                             first (FunctionName, FileName, Line, Column,\n"
	"                             StartLine)\n"
	"  -a, --addresses            print each address before its frames\n"
	"      --debug-dir DIR        also search DIR for separate debug files\n"
	"      --no-inlines           only the function that contains the code\n"
	"      --no-demangle          keep mangled names\n"
	READER_LIMIT_HELP
	"  -h, --help                 show this help\n";

static void print_addr(FILE *out, uint64_t addr, const struct psym_frame *fr, size_t n,
		       bool json, bool show_addr, bool demangle)
{
	if (json) {
		fprintf(out, "{\"Address\":\"0x%" PRIx64 "\",\"Symbol\":[", addr);
	} else if (show_addr) {
		fprintf(out, "0x%016" PRIx64 "\n", addr);
	}
	if (n == 0) {
		if (json)
			fprintf(out, "{\"FunctionName\":\"??\",\"FileName\":\"??\",\"Line\":0,"
				"\"Column\":0,\"StartLine\":0}");
		else
			fprintf(out, "??\n??:0\n");
	}
	for (size_t i = 0; i < n; i++) {
		const char *sys = fr[i].linkage_name ? fr[i].linkage_name : fr[i].name;
		char *dem = demangle ? psym_demangle(sys) : NULL;
		const char *name = dem ? dem : (demangle ? fr[i].name : sys);

		if (json) {
			fprintf(out, "%s{\"FunctionName\":", i ? "," : "");
			psym_json_string(out, name && *name ? name : "??");
			fprintf(out, ",\"FileName\":");
			psym_json_string(out, fr[i].file ? fr[i].file : "??");
			fprintf(out, ",\"Line\":%" PRId64 ",\"Column\":%" PRId64
				",\"StartLine\":%" PRId64 "}", fr[i].line, fr[i].column,
				fr[i].start_line);
		} else {
			fprintf(out, "%s\n%s:%" PRId64 "\n", name && *name ? name : "??",
				fr[i].file ? fr[i].file : "??", fr[i].line);
		}
		free(dem);
	}
	if (json)
		fprintf(out, "]}\n");
}

static int cmd_addr(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "exe", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "addresses", no_argument, NULL, 'a' },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "no-inlines", no_argument, NULL, OPT_NO_INLINES },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "build-id", required_argument, NULL, OPT_BUILD_ID },
		{ "filter", no_argument, NULL, OPT_FILTER },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct psym_reader_limits rl;
	struct psym_frame frames[256];
	struct psym_debuginfod_opts dio = { 0 };
	const char *build_id = NULL, **urls = NULL;
	size_t n_urls = 0;
	bool filter = false;
	struct psym_binary_opts bo = { .inlines = true };
	struct psym_binary *bin = NULL;
	struct psym_elf *elf = NULL;
	struct psym_err e = { 0 };
	const char *exe = NULL, **ddirs = NULL;
	size_t n_ddirs = 0;
	bool json = false, show_addr = false, demangle = true;
	int c, ret;

	psym_reader_limits_default(&rl);
	bo.limits = &rl;
	bo.elf_limits = &rl.elf;
	while ((c = getopt_long(argc, argv, "he:aCfi", opts, NULL)) != -1) {
		switch (c) {
		case 'e': exe = optarg; break;
		case OPT_JSON: json = true; break;
		case 'a': show_addr = true; break;
		case 'C': case 'f': case 'i': break; /* addr2line habits: always on */
		case OPT_DEBUG_DIR: add_path_list(optarg, &ddirs, &n_ddirs); break;
		case OPT_NO_INLINES: bo.inlines = false; break;
		case OPT_NO_DEMANGLE: demangle = false; break;
		case OPT_BUILD_ID: build_id = optarg; break;
		case OPT_FILTER: filter = true; break;
		case OPT_DEBUGINFOD: add_one(optarg, &urls, &n_urls); break;
		case OPT_OFFLINE: dio.offline = true; break;
		case OPT_LIMIT: reader_limit_option(optarg, &rl, "addr "); break;
		case 'h': fputs(addr_help, stdout); return 0;
		default: die_usage("addr ", "invalid option");
		}
	}
	add_path_list("/usr/lib/debug", &ddirs, &n_ddirs);
	bo.debug_dirs = ddirs;
	bo.n_debug_dirs = n_ddirs;
	dio.urls = urls;
	dio.n_urls = n_urls;
	{
		char sbuf[4096];

		if (!dio.offline && psym_debuginfod_servers(&dio, sbuf, sizeof(sbuf)))
			bo.debuginfod = &dio;
	}
	if (filter) {
		struct psym_crashlog_opts co = { .binary = &bo, .demangle = demangle };

		ret = psym_crashlog_filter(stdin, stdout, &co, &e);
		free_list(ddirs, n_ddirs);
		free_list(urls, n_urls);
		return ret ? report(&e, ret) : 0;
	}
	if (!exe && !build_id)
		die_usage("addr ", "no binary: give -e FILE or --build-id ID");
	if (!exe) {
		/* Find the binary (or its debug file) by build ID. */
		char path[4200];

		if (!psym_build_id_valid(build_id))
			die_usage("addr ", "'%s' is not a build ID", build_id);
		ret = PSYM_NOENT;
		for (size_t i = 0; i < n_ddirs && ret; i++) {
			static const char *const sfx[] = { "", ".debug" };

			for (int k = 0; k < 2 && ret; k++)
				if (psym_build_id_path(ddirs[i], build_id, sfx[k], path, sizeof(path)))
					ret = psym_elf_open(path, &rl.elf, &elf, &e) ? PSYM_NOENT : 0;
		}
		if (ret && bo.debuginfod) {
			struct psym_debuginfod_req r = { .build_id = build_id,
							 .kind = PSYM_DEBUGINFOD_EXECUTABLE };

			if (psym_debuginfod_fetch(&dio, &r, 1, &e) == 0 && r.path)
				ret = psym_elf_open(r.path, &rl.elf, &elf, &e) ? PSYM_NOENT : 0;
			psym_debuginfod_reqs_free(&r, 1);
		}
		if (ret) {
			free_list(ddirs, n_ddirs);
			free_list(urls, n_urls);
			psym_err_set(&e, PSYM_EBADINPUT, "no binary with build ID %s in the debug dirs%s",
				     build_id, bo.debuginfod ? " or on the debuginfod servers" : "");
			return report(&e, PSYM_EBADINPUT);
		}
	} else {
		ret = psym_elf_open(exe, &rl.elf, &elf, &e);
	}
	if (!ret)
		ret = psym_binary_new(elf, &bo, &bin, &e);
	if (ret) {
		free_list(ddirs, n_ddirs);
		free_list(urls, n_urls);
		return report(&e, ret);
	}
	for (int i = optind;; i++) {
		char line[256], *end;
		const char *arg;
		uint64_t a;

		if (optind < argc) {
			if (i >= argc)
				break;
			arg = argv[i];
		} else {
			if (!fgets(line, sizeof(line), stdin))
				break;
			line[strcspn(line, " \t\r\n")] = '\0';
			if (!line[0])
				continue;
			arg = line;
		}
		errno = 0;
		a = strtoull(arg, &end, 16);
		if (errno || end == arg || *end) {
			fprintf(stderr, "%s: '%s': not a hex address\n", progname, arg);
			continue;
		}
		print_addr(stdout, a, frames, psym_binary_resolve(bin, a, frames, 256), json,
			   show_addr, demangle);
	}
	/* Debug info that could not be read: said once, like llvm-symbolizer. */
	if (psym_binary_debug_note(bin) && psym_binary_debug_note(bin)[0])
		fprintf(stderr, "%s: warning: %s\n", progname, psym_binary_debug_note(bin));
	psym_binary_free(bin);
	free_list(ddirs, n_ddirs);
	free_list(urls, n_urls);
	if (fflush(stdout) != 0)
		return PSYM_EXIT_SYSTEM;
	return 0;
}

/* ---- top, folded, flame ------------------------------------------------------ */

#define REPORT_HELP                                                                  \
	"      --sample-index N|NAME  which value to use (default: the profile's\n"   \
	"                             default sample type, else the last one)\n"     \
	LIMIT_HELP

static const char top_help[] =
	"Usage: psym top [OPTIONS] FILE\n"
	"Flat and cumulative values of the top functions, like pprof -top. Inline\n"
	"frames count as their own functions; recursion counts once per sample.\n\n"
	"  -n, --nodes N              show the top N rows (default: all)\n"
	"      --cum                  sort by cumulative value\n"
	"      --lines                one row per function and source line\n"
	"      --files                one row per source file\n"
	REPORT_HELP;

static const char folded_help[] =
	"Usage: psym folded [OPTIONS] FILE\n"
	"Collapsed stacks, root first (\"a;b;c VALUE\"), inline frames expanded,\n"
	"for flamegraph.pl, speedscope and inferno.\n\n"
	"      --lines                frames as \"function file:line\"\n"
	"      --comm                 start each stack with the sample's comm label\n"
	"      --pid                  start each stack with the sample's pid label\n"
	REPORT_HELP;

static const char flame_help[] =
	"Usage: psym flame [OPTIONS] FILE -o flame.svg\n"
	"A self-contained SVG flame graph (click to zoom, search; readable without\n"
	"scripts), frames colored by kind: user, kernel, JIT, unknown.\n\n"
	"  -o, --output FILE          the SVG (written atomically; - for stdout)\n"
	"      --title TEXT           title of the graph\n"
	"      --comm, --pid          start each stack with that label\n"
	REPORT_HELP;

enum {
	OPT_SAMPLE_INDEX = OPT_NEXT + 100,
	OPT_CUM,
	OPT_LINES,
	OPT_FILES,
	OPT_COMM,
	OPT_PIDFRAME,
	OPT_TITLE,
};

static int cmd_report(int argc, char **argv, int which)
{
	static const struct option opts[] = {
		{ "sample-index", required_argument, NULL, OPT_SAMPLE_INDEX },
		{ "nodes", required_argument, NULL, 'n' },
		{ "cum", no_argument, NULL, OPT_CUM },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "files", no_argument, NULL, OPT_FILES },
		{ "comm", no_argument, NULL, OPT_COMM },
		{ "pid", no_argument, NULL, OPT_PIDFRAME },
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, OPT_TITLE },
		LIMIT_OPTIONS, { 0 }
	};
	static const char *const names[] = { "top ", "folded ", "flame " };
	static const char *const helps[] = { top_help, folded_help, flame_help };
	struct psym_report_opts ro = { .sample_index = -1 };
	struct psym_limits lim;
	struct psym_profile *p = NULL;
	struct psym_err e = { 0 };
	const char *out = NULL, *title = NULL;
	int c, ret;

	psym_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "hn:o:", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, names[which]))
			continue;
		switch (c) {
		case OPT_SAMPLE_INDEX: {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!errno && *end == '\0' && end != optarg && v >= 0)
				ro.sample_index = v;
			else
				ro.sample_name = optarg;
			break;
		}
		case 'n':
			ro.max_rows = (size_t)parse_long_arg(names[which], optarg, 1, LONG_MAX, "number");
			break;
		case OPT_CUM: ro.sort_cum = true; break;
		case OPT_LINES: ro.by = PSYM_BY_LINE; break;
		case OPT_FILES: ro.by = PSYM_BY_FILE; break;
		case OPT_COMM: ro.comm_frame = true; break;
		case OPT_PIDFRAME: ro.pid_frame = true; break;
		case 'o': out = optarg; break;
		case OPT_TITLE: title = optarg; break;
		case 'h': fputs(helps[which], stdout); return 0;
		default: die_usage(names[which], "invalid option");
		}
	}
	if (argc - optind != 1)
		die_usage(names[which], "expected exactly one FILE");
	if (which == 2 && !out)
		die_usage(names[which], "no output: give -o FILE.svg");
	ret = load(argv[optind], &lim, &p);
	if (ret)
		return ret;
	if (which == 2) {
		struct psym_out o;

		ret = psym_out_open(&o, out, &e);
		if (!ret) {
			active_out = &o;
			ret = psym_report_flame(p, &ro, title ? title : argv[optind], o.fp, &e);
			if (ret)
				psym_out_abort(&o);
			else
				ret = psym_out_commit(&o, &e);
			active_out = NULL;
		}
	} else {
		ret = which == 0 ? psym_report_top(p, &ro, stdout, &e)
				 : psym_report_folded(p, &ro, stdout, &e);
		if (!ret && fflush(stdout) != 0)
			ret = psym_err_set(&e, PSYM_EIO, "cannot write to standard output: %s",
					   strerror(errno));
	}
	psym_profile_free(p);
	if (ret) {
		if (ret != PSYM_EIO && ret != PSYM_ENOMEM)
			psym_err_prefix(&e, "'%s'", argv[optind]);
		return report(&e, ret);
	}
	return 0;
}

static int cmd_top(int argc, char **argv)
{
	return cmd_report(argc, argv, 0);
}

static int cmd_folded(int argc, char **argv)
{
	return cmd_report(argc, argv, 1);
}

static int cmd_flame(int argc, char **argv)
{
	return cmd_report(argc, argv, 2);
}

/* ---- dispatch ------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{ "symbolize", cmd_symbolize, "fill function names, files and lines into a profile" },
	{ "show", cmd_show, "print a readable (or --json) dump of a profile" },
	{ "check", cmd_check, "validate profiles" },
	{ "addr", cmd_addr, "symbolize addresses of one binary (addr2line style or JSON)" },
	{ "top", cmd_top, "top functions (flat and cumulative), like pprof -top" },
	{ "folded", cmd_folded, "collapsed stacks for flame graph tools" },
	{ "flame", cmd_flame, "write an SVG flame graph" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: psym COMMAND [OPTIONS] ...\n"
		"Symbolize and inspect pprof profiles.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n'psym COMMAND --help' describes each command.\n\n"
		"Exit status:\n"
		"  0  success\n"
		"  1  partial result (e.g. unresolved frames under --strict)\n"
		"  2  usage error or bad input\n"
		"  3  system or I/O failure\n");
}

int main(int argc, char **argv)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return PSYM_EXIT_BADINPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("psym %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			char prog[64];

			snprintf(prog, sizeof(prog), "psym %s", commands[i].name);
			argv[1] = prog;
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "%s: unknown command '%s'\nTry 'psym --help'.\n", progname, argv[1]);
	return PSYM_EXIT_BADINPUT;
}
