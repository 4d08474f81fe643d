/* SPDX-License-Identifier: MIT */
/* psym top, folded and flame. */
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

/* The options and operands into r; 1 when --help was printed. optind: at FILE. */
static int parse_report_args(int argc, char **argv, enum psym_report_kind which,
			     struct psym_report *r, const char **regex)
{
	struct psym_err e = { 0 };
	int c, ret;

	while ((c = getopt_long(argc, argv, "hn:o:", report_opts, NULL)) != -1) {
		const struct option *o = report_opts;

		if (c == 'h') {
			fputs(helps[which], stdout);
			return 1;
		}
		while (o->name && o->val != c)
			o++;
		ret = o->name ? psym_report_set(r, o->name, optarg, &e) : PSYM_NOENT;
		if (ret == PSYM_NOENT)
			die_bad_option(names[which], argv, "hn:o:");
		if (ret)
			die_usage(names[which], "%s", e.msg);
	}
	if (which == PSYM_REPORT_PEEK || which == PSYM_REPORT_LIST) {
		if (argc - optind != 2)
			die_usage(names[which], "expected REGEX and FILE");
		*regex = argv[optind++];
	} else if (argc - optind != 1) {
		die_usage(names[which], "expected exactly one FILE");
	}
	if (psym_report_check(r, &e))
		die_usage(names[which], "%s", e.msg);
	return 0;
}

static int cmd_report(int argc, char **argv, enum psym_report_kind which)
{
	struct psym_report *r = psym_report_new(which);
	struct psym_err e = { 0 };
	const char *regex = NULL;
	int ret, status = PSYM_EXIT_OK;

	if (!r) {
		psym_err_set(&e, PSYM_ENOMEM, "out of memory");
		return report(&e, PSYM_ENOMEM);
	}
	if (parse_report_args(argc, argv, which, r, &regex)) {
		psym_report_free(r);
		return 0;
	}
	ret = psym_report_run(r, regex, argv[optind], &active_out, &status, &e);
	psym_report_free(r);
	return ret ? report(&e, ret) : status;
}

int cmd_top(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_TOP);
}

int cmd_folded(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_FOLDED);
}

int cmd_flame(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_FLAME);
}

int cmd_traces(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_TRACES);
}

int cmd_tree(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_TREE);
}

int cmd_peek(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_PEEK);
}

int cmd_list(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_LIST);
}

int cmd_graph(int argc, char **argv)
{
	return cmd_report(argc, argv, PSYM_REPORT_GRAPH);
}
