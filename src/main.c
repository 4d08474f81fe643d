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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psym.h"

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
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case '\0': break;
	default: return false;
	}
	if (*end || (shift && v > (ULLONG_MAX >> shift)))
		return false;
	*out = (size_t)(v << shift);
	return *out > 0;
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
	"Rewrite a profile with Function and Line entries filled in from the\n"
	"binaries its mappings name, checked by build ID.\n\n"
	"  -o, --output FILE          where to write (- for stdout); written to a\n"
	"                             temporary file and renamed into place\n"
	"      --in-place             overwrite IN (only with this option)\n"
	"      --raw                  write an uncompressed protobuf (default: gzip)\n"
	"\nFinding binaries (in this order):\n"
	"      --main-binary FILE     use FILE for the first mapping\n"
	"      --binary-path DIR[:DIR...]  search DIR/BUILDID/BASENAME, DIR/BUILDID/*,\n"
	"                             DIR/BUILDID, DIR/PATH/BUILDID, DIR/BASENAME,\n"
	"                             DIR/PATH; then $PPROF_BINARY_PATH the same way\n"
	"      --sysroot DIR          look for each mapping's own path under DIR\n"
	"                             (default /); '..' never leaves DIR\n"
	"\nWhat to do:\n"
	"      --force                replace lines that locations already have\n"
	"\nReporting (on stderr):\n"
	"      --explain              list every file tried for each mapping\n"
	"      --strict               exit 1 when a location of a file-backed\n"
	"                             mapping stays unresolved\n"
	"  -q, --quiet                no per-mapping summary\n"
	LIMIT_HELP;

static struct psym_out *volatile active_out;

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
};

/* Split a colon-separated list into *list (appending). Strings are strdup'd. */
static void add_path_list(const char *arg, const char ***list, size_t *n)
{
	char *copy = strdup(arg), *save = NULL, *tok;

	if (!copy)
		return;
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		const char **nl = realloc(*list, (*n + 1) * sizeof(**list));
		char *d = strdup(tok);

		if (!nl || !d) {
			free(d);
			if (nl)
				*list = nl;
			break;
		}
		*list = nl;
		(*list)[(*n)++] = d;
	}
	free(copy);
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
		LIMIT_OPTIONS, { 0 }
	};
	struct psym_symbolize_opts so = { .log = stderr };
	struct psym_symbolize_result res;
	struct psym_limits lim;
	struct psym_profile *p = NULL;
	struct psym_err e = { 0 };
	const char *in, *out = NULL, **bpath = NULL, *env;
	size_t n_bpath = 0;
	bool in_place = false, raw = false, strict = false;
	int c, ret;

	psym_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "ho:q", opts, NULL)) != -1) {
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
		case 'h': fputs(symbolize_help, stdout); return 0;
		default: die_usage("symbolize ", "invalid option");
		}
	}
	env = getenv("PPROF_BINARY_PATH");
	if (env && *env)
		add_path_list(env, &bpath, &n_bpath);
	so.binary_path = bpath;
	so.n_binary_path = n_bpath;
	so.progress = isatty(STDERR_FILENO);
	if (argc - optind != 1)
		die_usage("symbolize ", "expected exactly one input profile");
	in = argv[optind];
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
	ret = load(in, &lim, &p);
	if (ret) {
		free_list(bpath, n_bpath);
		return ret;
	}
	ret = psym_symbolize(p, &so, &res, &e);
	if (ret) {
		psym_err_prefix(&e, "'%s'", in);
		goto fail;
	}
	{
		struct psym_out o;
		unsigned char *buf;
		size_t len;

		ret = psym_profile_encode(p, !raw, &buf, &len, &e);
		if (ret)
			goto fail;
		ret = psym_out_open(&o, out, &e);
		if (ret) {
			free(buf);
			goto fail;
		}
		active_out = &o;
		if (fwrite(buf, 1, len, o.fp) != len) {
			ret = psym_err_set(&e, PSYM_EIO, "cannot write '%s': %s", out,
					   strerror(errno));
			active_out = NULL;
			psym_out_abort(&o);
			free(buf);
			goto fail;
		}
		free(buf);
		ret = psym_out_commit(&o, &e);
		active_out = NULL;
		if (ret)
			goto fail;
	}
	psym_profile_free(p);
	free_list(bpath, n_bpath);
	if (!so.quiet)
		fprintf(stderr, "psym: %zu/%zu locations symbolized (%zu kept, %zu unresolved in "
			"files, %zu in other mappings)\n", res.resolved + res.kept, res.locations,
			res.kept, res.unresolved_file, res.unresolved_other);
	if (strict && res.unresolved_file)
		return PSYM_EXIT_PARTIAL;
	return 0;
fail:
	psym_profile_free(p);
	free_list(bpath, n_bpath);
	return report(&e, ret);
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
