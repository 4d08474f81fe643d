/* SPDX-License-Identifier: MIT */
/* psym top, folded and flame. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* ---- top, folded, flame ------------------------------------------------------ */

#define FILTER_HELP                                                                                \
	"Filters (as pprof's options of the same names; REs have Go's (RE2) syntax\n"              \
	"and run in linear time; back-references and lookaround are refused):\n"                   \
	"      --focus RE             only samples with a frame whose function, file or\n"         \
	"                             binary matches RE\n"                                         \
	"      --ignore RE            drop samples with such a frame\n"                            \
	"      --hide RE              drop the frames that match RE\n"                             \
	"      --show RE              keep only the frames that match RE\n"                        \
	"      --tagfocus [KEY=]RE,RE|[KEY=]RANGE  only samples with a label that matches\n"       \
	"                             (RANGE on numeric labels: 100, 1kb:, :4ms, 10:20)\n"         \
	"      --tagignore SAME       drop samples with such a label\n"                            \
	"      --comms LIST, --comm=LIST  only samples of these comm labels (a,b,...)\n"           \
	"      --pids LIST, --pid=LIST    only samples of these process IDs\n"

#define DIFF_HELP                                                                                  \
	"      --diff-base BASE       show the change from profile BASE (pprof's\n"                \
	"                             -diff_base: BASE's values subtracted, percentages\n"         \
	"                             of BASE's total)\n"                                          \
	"      --base BASE            subtract profile BASE (pprof's -base): stacks\n"             \
	"                             that cancel go, percentages of what is left\n"               \
	"      --normalize            with --base or --diff-base: first scale FILE's\n"            \
	"                             values so its total is BASE's (pprof's -normalize)\n"

#define GRAN_HELP                                                                                  \
	"      --filefunctions        one node per function and source file\n"                     \
	"      --addresses            one node per address (and inline frame), named\n"            \
	"                             \"ADDRESS function file:line\"\n"

#define REPORT_HELP                                                                                \
	"      --sample-index N|NAME  which value to use (default: the profile's\n"                \
	"                             default sample type, else the last one)\n"                   \
	"      --tagroot KEYS, --tagleaf KEYS  pprof's -tagroot/-tagleaf: a frame per\n"           \
	"                             label key (comma-separated) above each stack's\n"            \
	"                             root (below its leaf), named by its values\n"                \
	"      --demangle MODE        rename every function from its system name as\n"             \
	"                             pprof's -symbolize=demangle=MODE: default (no\n"             \
	"                             parameters, no template arguments), templates,\n"            \
	"                             full, none (the system name); without it only\n"             \
	"                             functions named by their system name are\n"                  \
	"                             simplified, as pprof does\n" DIFF_HELP FILTER_HELP           \
		LIMIT_HELP

#define TRIM_HELP                                                                                  \
	"      --nodefraction F       leave out nodes whose cumulative value is under\n"           \
	"                             F * total (pprof's -nodefraction)\n"                         \
	"      --edgefraction F       leave out calls under F * total (-edgefraction)\n"

static const char top_help[] =
	"Usage: psym top [OPTIONS] FILE\n"
	"Flat and cumulative values of the top functions, printed as pprof -top\n"
	"prints them (units, scaling, \"(inline)\" marks, \"[binary]\" and \"<unknown>\"\n"
	"for unsymbolized code). Inline frames count as their own functions;\n"
	"recursion counts once per sample.\n\n"
	"  -n, --nodes N, --nodecount N  show the top N rows (default: all)\n"
	"      --cum                  sort by cumulative value\n"
	"      --lines                one row per function and source line\n"
	"      --files                one row per source file\n" GRAN_HELP TRIM_HELP
	"                             (default 0 both: every function; pprof's own\n"
	"                             defaults are 0.005 and 0.001)\n" REPORT_HELP;

static const char folded_help[] =
	"Usage: psym folded [OPTIONS] FILE\n"
	"Collapsed stacks, root first (\"a;b;c VALUE\"), inline frames expanded,\n"
	"for flamegraph.pl, speedscope and inferno.\n\n"
	"      --lines                frames as \"function file:line\"\n"
	"      --files                frames as source files\n" GRAN_HELP
	"      --comm                 start each stack with the sample's comm label\n"
	"      --pid                  start each stack with the sample's pid label\n"
	"  -n, --nodecount N          keep only the frames of the top N functions (as\n"
	"                             psym top -n N ranks them; --cum: by cumulative)\n" REPORT_HELP;

static const char flame_help[] =
	"Usage: psym flame [OPTIONS] FILE -o flame.svg\n"
	"A self-contained SVG flame graph (click to zoom, search; readable without\n"
	"scripts), frames colored by kind: user (red to orange), inlined (yellow),\n"
	"JIT (green), kernel (blue), unknown (grey).\n\n"
	"  -o, --output FILE          the SVG (written atomically; - for stdout)\n"
	"      --title TEXT           title of the graph\n"
	"      --lines                frames as \"function file:line\"\n"
	"      --files                frames as source files\n" GRAN_HELP
	"      --comm, --pid          start each stack with that label\n"
	"  -n, --nodecount N          keep only the frames of the top N functions\n"
	"                             (also --nodes N)\n"
	"      --cum                  with -n: rank functions by cumulative value\n" REPORT_HELP;

static const char traces_help[] =
	"Usage: psym traces [OPTIONS] FILE\n"
	"Every sample's stack, leaf first, with its labels and value, as pprof\n"
	"-traces prints them (samples with the same stack and labels merged, as\n"
	"pprof merges them).\n\n"
	"      --lines                frames as \"function file:line\"\n"
	"      --files                frames as source files\n" GRAN_HELP REPORT_HELP;

static const char tree_help[] =
	"Usage: psym tree [OPTIONS] FILE\n"
	"The call graph as text, printed as pprof -tree prints it: each function with\n"
	"its callers above it and its callees below, each call's value and share.\n"
	"By default trimmed as pprof trims it: psym tree FILE equals\n"
	"go tool pprof -tree FILE (-nodecount=80 -nodefraction=0.005 -edgefraction=0.001).\n\n"
	"  -n, --nodecount N          show the top N functions (default 80; 0: all)\n" TRIM_HELP
	"                             (defaults 0.005 and 0.001)\n"
	"      --cum                  sort by cumulative value\n"
	"      --lines                one node per function and source line\n"
	"      --files                one node per source file\n" GRAN_HELP REPORT_HELP;

static const char peek_help[] =
	"Usage: psym peek [OPTIONS] REGEX FILE\n"
	"The callers and callees of the functions whose name matches REGEX, printed\n"
	"as pprof -peek prints them (nothing trimmed, as pprof: psym peek RE FILE\n"
	"equals go tool pprof -peek RE FILE). Exits 2 when nothing matches.\n\n"
	"      --cum                  sort by cumulative value\n"
	"      --lines                one node per function and source line\n"
	"      --files                one node per source file\n" GRAN_HELP REPORT_HELP;

static const char list_help[] =
	"Usage: psym list [OPTIONS] REGEX FILE\n"
	"The source of the functions whose name matches REGEX, each line with its\n"
	"flat and cumulative value, printed as pprof -list prints it (psym list RE\n"
	"FILE equals go tool pprof -list RE FILE). Source files are read where the\n"
	"profile's lines name them; each file not found is said on stderr.\n\n"
	"      --source-path DIRS     read source files only inside these directories\n"
	"                             (':'-separated; default: any file named, looked\n"
	"                             for from the current directory up, as pprof)\n"
	"      --trim-path PREFIXES   cut these prefixes (':'-separated) off the\n"
	"                             files' names first (default: a guess from the\n"
	"                             source path's last directory; -trim_path)\n" REPORT_HELP;

static const char graph_help[] =
	"Usage: psym graph [OPTIONS] FILE [-o graph.svg]\n"
	"The call graph as Graphviz draws it, written as pprof -dot writes it: each\n"
	"function a box sized by its flat value and coloured by its cumulative one,\n"
	"each call an arrow with its value, label boxes under the functions. By\n"
	"default trimmed as pprof trims it: psym graph FILE equals go tool pprof -dot\n"
	"FILE (-nodecount=80 -nodefraction=0.005 -edgefraction=0.001).\n\n"
	"  -o, --output FILE          write FILE (atomically; default: stdout)\n"
	"      --format dot|svg|png   DOT (default), or drawn by Graphviz's dot\n"
	"                             (default: from -o's extension)\n"
	"      --title TEXT           the graph's name (default: the main binary's)\n"
	"  -n, --nodecount N          show the top N functions (default 80; 0: all)\n" TRIM_HELP
	"                             (defaults 0.005 and 0.001)\n"
	"      --lines                one node per function and source line\n"
	"      --files                one node per source file\n" GRAN_HELP REPORT_HELP;

/* Which report cmd_report makes. */
enum report_kind {
	R_TOP,
	R_FOLDED,
	R_FLAME,
	R_TRACES,
	R_TREE,
	R_PEEK,
	R_LIST,
	R_GRAPH,
};

/* A fraction of the total, 0 to 1, or a usage error. */
static double parse_fraction(const char *cmd, const char *arg, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || end == arg || !(v >= 0 && v <= 1))
		die_usage(cmd, "invalid %s '%s': a number from 0 to 1", what, arg);
	return v;
}

enum {
	OPT_SAMPLE_INDEX = OPT_NEXT + 100,
	OPT_CUM,
	OPT_LINES,
	OPT_FILES,
	OPT_COMM,
	OPT_PIDFRAME,
	OPT_TITLE,
	OPT_FOCUS,
	OPT_IGNORE,
	OPT_HIDE,
	OPT_SHOW,
	OPT_TAGFOCUS,
	OPT_TAGIGNORE,
	OPT_COMMS,
	OPT_PIDS,
	OPT_DIFF_BASE,
	OPT_NODEFRACTION,
	OPT_EDGEFRACTION,
	OPT_SOURCE_PATH,
	OPT_TRIM_PATH,
	OPT_BASE,
	OPT_NORMALIZE,
	OPT_ADDRESSES,
	OPT_FILEFUNCTIONS,
	OPT_TAGROOT,
	OPT_TAGLEAF,
	OPT_FORMAT,
};

/* pprof: an empty filter is no filter. */
static const char *nonempty(const char *s)
{
	return *s ? s : NULL;
}

static const struct option report_opts[] = {
	{ "sample-index", required_argument, NULL, OPT_SAMPLE_INDEX },
	{ "nodes", required_argument, NULL, 'n' },
	{ "cum", no_argument, NULL, OPT_CUM },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "files", no_argument, NULL, OPT_FILES },
	{ "nodecount", required_argument, NULL, 'n' },
	{ "comm", optional_argument, NULL, OPT_COMM },
	{ "pid", optional_argument, NULL, OPT_PIDFRAME },
	{ "comms", required_argument, NULL, OPT_COMMS },
	{ "pids", required_argument, NULL, OPT_PIDS },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "show", required_argument, NULL, OPT_SHOW },
	{ "tagfocus", required_argument, NULL, OPT_TAGFOCUS },
	{ "tagignore", required_argument, NULL, OPT_TAGIGNORE },
	{ "diff-base", required_argument, NULL, OPT_DIFF_BASE },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "addresses", no_argument, NULL, OPT_ADDRESSES },
	{ "filefunctions", no_argument, NULL, OPT_FILEFUNCTIONS },
	{ "nodefraction", required_argument, NULL, OPT_NODEFRACTION },
	{ "edgefraction", required_argument, NULL, OPT_EDGEFRACTION },
	{ "source-path", required_argument, NULL, OPT_SOURCE_PATH },
	{ "trim-path", required_argument, NULL, OPT_TRIM_PATH },
	{ "output", required_argument, NULL, 'o' },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "demangle", required_argument, NULL, OPT_DEMANGLE },
	{ "tagroot", required_argument, NULL, OPT_TAGROOT },
	{ "tagleaf", required_argument, NULL, OPT_TAGLEAF },
	{ "format", required_argument, NULL, OPT_FORMAT },
	LIMIT_OPTIONS,
	{ 0 }
};

static const char *const names[] = { "top ",  "folded ", "flame ", "traces ",
				     "tree ", "peek ",	 "list ",  "graph " };
static const char *const helps[] = { top_help,	folded_help, flame_help, traces_help,
				     tree_help, peek_help,   list_help,	 graph_help };

/* What the command line asks of a report. */
struct rargs {
	struct psym_report_opts ro;
	struct psym_limits lim;
	struct psym_list_opts lo;
	const char *out, *title, *base, *regex;
	bool subtract;	/* base is pprof's -base, not -diff_base */
	bool normalize; /* scale FILE to base's total first */
	bool nf_set, ef_set, n_set;
	enum psym_demangle_mode demangle; /* how functions are renamed */
	bool demangle_force;		  /* --demangle given */
	const char *tagroot, *tagleaf;	  /* label keys for pseudo frames */
	const char *format;		  /* graph: dot, svg or png */
};

/* The graph's format: --format, else -o's extension, else DOT. */
static const char *graph_format(const struct rargs *a)
{
	static const char *const fmts[] = { "dot", "svg", "png" };
	const char *f = a->format;

	if (!f && a->out) {
		const char *dot = strrchr(a->out, '.');

		for (size_t i = 0; dot && i < sizeof(fmts) / sizeof(fmts[0]); i++)
			if (!strcmp(dot + 1, fmts[i]))
				f = fmts[i];
		if (dot && !strcmp(dot + 1, "gv"))
			f = "dot";
	}
	if (!f)
		return "dot";
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (!strcmp(f, fmts[i]))
			return fmts[i];
	die_usage("graph ", "unknown --format '%s': dot, svg or png", f);
	return NULL;
}

/* The options and operands; 1 when --help was printed. optind: at FILE. */
static int parse_report_args(int argc, char **argv, enum report_kind which, struct rargs *a)
{
	int c;

	psym_limits_default(&a->lim);
	a->ro.sample_index = -1;
	while ((c = getopt_long(argc, argv, "hn:o:", report_opts, NULL)) != -1) {
		if (limit_option(c, optarg, &a->lim, names[which]))
			continue;
		switch (c) {
		case OPT_SAMPLE_INDEX: {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!errno && *end == '\0' && end != optarg && v >= 0)
				a->ro.sample_index = v;
			else
				a->ro.sample_name = optarg;
			break;
		}
		case 'n':
			a->ro.max_rows =
				(size_t)parse_long_arg(names[which], optarg, 0, LONG_MAX, "-n");
			a->n_set = true;
			break;
		case OPT_NODEFRACTION:
			a->ro.node_fraction =
				parse_fraction(names[which], optarg, "--nodefraction");
			a->nf_set = true;
			break;
		case OPT_EDGEFRACTION:
			a->ro.edge_fraction =
				parse_fraction(names[which], optarg, "--edgefraction");
			a->ef_set = true;
			break;
		case OPT_CUM: a->ro.sort_cum = true; break;
		case OPT_LINES: a->ro.by = PSYM_BY_LINE; break;
		case OPT_FILES: a->ro.by = PSYM_BY_FILE; break;
		case OPT_ADDRESSES: a->ro.by = PSYM_BY_ADDRESS; break;
		case OPT_FILEFUNCTIONS: a->ro.by = PSYM_BY_FILEFUNCTION; break;
		/* perf's --comm=LIST / --pid=LIST filter; bare, a frame per label. */
		case OPT_COMM:
			if (optarg)
				a->ro.filter.comms = nonempty(optarg);
			else
				a->ro.comm_frame = true;
			break;
		case OPT_PIDFRAME:
			if (optarg)
				a->ro.filter.pids = nonempty(optarg);
			else
				a->ro.pid_frame = true;
			break;
		case OPT_COMMS: a->ro.filter.comms = nonempty(optarg); break;
		case OPT_PIDS: a->ro.filter.pids = nonempty(optarg); break;
		case OPT_FOCUS: a->ro.filter.focus = nonempty(optarg); break;
		case OPT_IGNORE: a->ro.filter.ignore = nonempty(optarg); break;
		case OPT_HIDE: a->ro.filter.hide = nonempty(optarg); break;
		case OPT_SHOW: a->ro.filter.show = nonempty(optarg); break;
		case OPT_TAGFOCUS: a->ro.filter.tagfocus = nonempty(optarg); break;
		case OPT_TAGIGNORE: a->ro.filter.tagignore = nonempty(optarg); break;
		case OPT_DIFF_BASE:
		case OPT_BASE:
			if (a->base && a->subtract != (c == OPT_BASE))
				die_usage(names[which],
					  "--base and --diff-base cannot both be given");
			a->base = optarg;
			a->subtract = c == OPT_BASE;
			break;
		case OPT_NORMALIZE: a->normalize = true; break;
		case OPT_SOURCE_PATH: a->lo.source_path = optarg; break;
		case OPT_TRIM_PATH: a->lo.trim_path = optarg; break;
		case 'o': a->out = optarg; break;
		case OPT_TITLE: a->title = optarg; break;
		case OPT_TAGROOT: a->tagroot = optarg; break;
		case OPT_TAGLEAF: a->tagleaf = optarg; break;
		case OPT_FORMAT: a->format = optarg; break;
		case OPT_DEMANGLE:
			a->demangle = parse_demangle_arg(names[which], optarg);
			a->demangle_force = true;
			break;
		case 'h': fputs(helps[which], stdout); return 1;
		default: die_bad_option(names[which], argv, "hn:o:");
		}
	}
	if (which == R_PEEK || which == R_LIST) {
		if (argc - optind != 2)
			die_usage(names[which], "expected REGEX and FILE");
		a->regex = argv[optind++];
	} else if (argc - optind != 1) {
		die_usage(names[which], "expected exactly one FILE");
	}
	/* pprof -peek and -traces trim nothing; an option that would do nothing is refused. */
	if ((which == R_PEEK || which == R_TRACES || which == R_LIST) &&
	    (a->nf_set || a->ef_set || a->n_set))
		die_usage(names[which],
			  "%sshows everything, as pprof does: no --nodecount, "
			  "--nodefraction or --edgefraction",
			  names[which]);
	if ((which == R_FOLDED || which == R_FLAME) && (a->nf_set || a->ef_set))
		die_usage(names[which],
			  "--nodefraction and --edgefraction are for the graph reports "
			  "(top, tree); %skeeps whole stacks (see --nodecount)",
			  names[which]);
	if (a->format && which != R_GRAPH)
		die_usage(names[which], "--format is for psym graph");
	if (which == R_GRAPH)
		a->format = graph_format(a);
	if (which == R_TREE || which == R_GRAPH) {
		/* pprof's defaults for its graph views. */
		if (!a->n_set)
			a->ro.max_rows = 80;
		if (!a->nf_set)
			a->ro.node_fraction = 0.005;
		if (!a->ef_set)
			a->ro.edge_fraction = 0.001;
	}
	if (a->normalize && !a->base)
		die_usage(names[which], "--normalize needs --base or --diff-base");
	if (which == R_LIST && (a->ro.by == PSYM_BY_ADDRESS || a->ro.by == PSYM_BY_FILEFUNCTION))
		die_usage(names[which],
			  "list is by source line: no --addresses or --filefunctions");
	if (which != R_LIST && (a->lo.source_path || a->lo.trim_path))
		die_usage(names[which], "--source-path and --trim-path are for psym list");
	if (which == R_FLAME && !a->out)
		die_usage(names[which], "no output: give -o FILE.svg");
	return 0;
}

/* FILE (and its diff base), merged as pprof merges its inputs for traces. */
static int load_input(const char *file, const struct rargs *a, enum report_kind which,
		      struct psym_profile **pp)
{
	struct psym_err e = { 0 };
	int ret;

	ret = load(file, &a->lim, pp);
	if (!ret && a->demangle_force && psym_report_demangle(*pp, a->demangle, true, &e)) {
		psym_profile_free(*pp);
		return report(&e, PSYM_ENOMEM);
	}
	if (ret)
		return ret;
	if (a->base) {
		/* pprof's -diff_base: BASE negated and labelled, merged after FILE
		   (-base: negated only); -normalize scales FILE first. */
		struct psym_profile *in[2] = { *pp, NULL }, *m = NULL;
		const char *inames[2] = { file, a->base };
		const enum psym_merge_role role[2] = { PSYM_MERGE_ADD,
						       a->subtract ? PSYM_MERGE_SUBTRACT
								   : PSYM_MERGE_DIFF_BASE };

		ret = load(a->base, &a->lim, &in[1]);
		if (!ret && a->demangle_force)
			ret = psym_report_demangle(in[1], a->demangle, true, &e);
		if (ret) {
			psym_profile_free(*pp);
			return ret;
		}
		ret = a->normalize ? psym_profile_normalize(in[0], file, in[1], a->base, &e) : 0;
		if (!ret)
			ret = psym_profile_merge(in, inames, role, 2, &a->lim, &m, &e);
		psym_profile_free(in[0]);
		psym_profile_free(in[1]);
		if (ret)
			return report(&e, ret);
		*pp = m;
	}
	if (which == R_TRACES && !a->base) {
		/* pprof merges even one profile: its samples' order, duplicates summed. */
		struct psym_profile *m = NULL;
		const char *iname = file;

		ret = psym_profile_merge(pp, &iname, NULL, 1, &a->lim, &m, &e);
		psym_profile_free(*pp);
		if (ret)
			return report(&e, ret);
		*pp = m;
	}
	/* As pprof: after the merge, before the filters. */
	if ((a->tagroot || a->tagleaf) &&
	    (ret = psym_report_tag_frames(*pp, a->tagroot, a->tagleaf, stderr, &e))) {
		psym_profile_free(*pp);
		return report(&e, ret);
	}
	return 0;
}

/* The flame graph, to a file written atomically or to stdout. */
static int write_flame(struct psym_profile *p, const struct rargs *a, const char *file,
		       struct psym_err *e)
{
	struct psym_out o;
	int ret = psym_out_open(&o, a->out, e);

	if (!ret) {
		active_out = &o;
		ret = psym_report_flame(p, &a->ro, a->title ? a->title : file, o.fp, e);
		if (ret)
			psym_out_abort(&o);
		else
			ret = psym_out_commit(&o, e);
		active_out = NULL;
	}
	/* Standard output's errors are finish_stdout's (main.c). */
	if (ret == PSYM_EIO && !strcmp(a->out, "-") && ferror(stdout))
		ret = 0;
	return ret;
}

extern char **environ;

/* Graphviz's dot -Tfmt drawing the DOT text dot[0..n) into fd. */
static int run_dot(const char *fmt, const char *text, size_t n, int fd, struct psym_err *e)
{
	char tflag[16];
	char *argv[] = { "dot", tflag, NULL };
	posix_spawn_file_actions_t fa;
	int pfd[2], err, st;
	pid_t pid;

	snprintf(tflag, sizeof(tflag), "-T%s", fmt);
	if (pipe2(pfd, O_CLOEXEC))
		return psym_err_set(e, PSYM_EIO, "cannot make a pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[0], 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	err = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[0]);
	if (err) {
		close(pfd[1]);
		if (err == ENOENT)
			return psym_err_set(e, PSYM_EIO,
					    "graphviz's 'dot' not found: install graphviz, "
					    "or write DOT (--format dot)");
		return psym_err_set(e, PSYM_EIO, "cannot run 'dot': %s", strerror(err));
	}
	for (size_t off = 0; off < n;) {
		ssize_t w = write(pfd[1], text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* dot went away: its status says why */
		off += (size_t)w;
	}
	close(pfd[1]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return psym_err_set(e, PSYM_EIO, "cannot wait for 'dot': %s",
					    strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return psym_err_set(e, PSYM_EIO, "'dot -T%s' failed (status %d)", fmt,
				    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

/* The graph as DOT, or drawn by dot; to a file written atomically or to stdout. */
static int write_graph(struct psym_profile *p, const struct rargs *a, struct psym_err *e)
{
	const char *title = a->title, *path = a->out ? a->out : "-";
	struct psym_out o;
	int ret;

	ret = psym_out_open(&o, path, e);
	if (ret)
		return ret;
	active_out = &o;
	if (!strcmp(a->format, "dot")) {
		ret = psym_report_dot(p, &a->ro, title, o.fp, e);
	} else {
		char *text = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&text, &n);

		ret = m ? psym_report_dot(p, &a->ro, title, m, e)
			: psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if (m && fclose(m) && !ret)
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if (!ret && fflush(o.fp))
			ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", path,
					   strerror(errno));
		if (!ret)
			ret = run_dot(a->format, text, n, fileno(o.fp), e);
		free(text);
	}
	if (ret)
		psym_out_abort(&o);
	else
		ret = psym_out_commit(&o, e);
	active_out = NULL;
	/* Standard output's errors are finish_stdout's (main.c). */
	if (ret == PSYM_EIO && !strcmp(path, "-") && ferror(stdout))
		ret = 0;
	return ret;
}

static int cmd_report(int argc, char **argv, enum report_kind which)
{
	struct rargs a = { 0 };
	struct psym_profile *p = NULL;
	struct psym_err e = { 0 };
	int ret;

	if (parse_report_args(argc, argv, which, &a))
		return 0;
	ret = load_input(argv[optind], &a, which, &p);
	if (ret)
		return ret;
	/* Mostly raw addresses: say what would give them names (stderr, once). */
	hint_unsymbolized(p, &a.ro, argv[optind]);
	if (which == R_FLAME) {
		ret = write_flame(p, &a, argv[optind], &e);
	} else if (which == R_GRAPH) {
		ret = write_graph(p, &a, &e);
	} else {
		switch (which) {
		case R_TOP:
			ret = psym_report_top(p, &a.ro, stdout, &e);
			if (!ret)
				psym_report_fp_note(p, stderr);
			break;
		case R_TRACES: ret = psym_report_traces(p, &a.ro, stdout, &e); break;
		case R_TREE: ret = psym_report_tree(p, &a.ro, stdout, &e); break;
		case R_PEEK: ret = psym_report_peek(p, &a.ro, a.regex, stdout, &e); break;
		case R_LIST:
			a.lo.regex = a.regex;
			ret = psym_report_list(p, &a.ro, &a.lo, stdout, stderr, &e);
			break;
		default: ret = psym_report_folded(p, &a.ro, stdout, &e); break;
		}
		/* Standard output's errors are finish_stdout's (main.c). */
		if (ret == PSYM_EIO && ferror(stdout))
			ret = 0;
	}
	psym_profile_free(p);
	if (ret) {
		if (ret != PSYM_EIO && ret != PSYM_ENOMEM)
			psym_err_prefix(&e, "'%s'", argv[optind]);
		return report(&e, ret);
	}
	return 0;
}

int cmd_top(int argc, char **argv)
{
	return cmd_report(argc, argv, R_TOP);
}

int cmd_folded(int argc, char **argv)
{
	return cmd_report(argc, argv, R_FOLDED);
}

int cmd_flame(int argc, char **argv)
{
	return cmd_report(argc, argv, R_FLAME);
}

int cmd_traces(int argc, char **argv)
{
	return cmd_report(argc, argv, R_TRACES);
}

int cmd_tree(int argc, char **argv)
{
	return cmd_report(argc, argv, R_TREE);
}

int cmd_peek(int argc, char **argv)
{
	return cmd_report(argc, argv, R_PEEK);
}

int cmd_list(int argc, char **argv)
{
	return cmd_report(argc, argv, R_LIST);
}

int cmd_graph(int argc, char **argv)
{
	return cmd_report(argc, argv, R_GRAPH);
}
