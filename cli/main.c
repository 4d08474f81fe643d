/* SPDX-License-Identifier: MIT */
/*
 * psym: offline pprof post-processor. Thin main: find the command, let it
 * parse its arguments and call libpsym; return a documented exit code.
 */
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
	{ "index", cmd_index, "build per-build-ID indexes of binaries (answers without DWARF)" },
	{ "top", cmd_top, "top functions (flat and cumulative), like pprof -top" },
	{ "folded", cmd_folded, "collapsed stacks for flame graph tools" },
	{ "flame", cmd_flame, "write an SVG flame graph" },
	{ "traces", cmd_traces, "every sample's stack and labels, like pprof -traces" },
	{ "tree", cmd_tree, "the call graph as text, like pprof -tree" },
	{ "graph", cmd_graph, "the call graph as DOT (or SVG, PNG via Graphviz), like pprof -dot" },
	{ "peek", cmd_peek, "callers and callees of matching functions, like pprof -peek" },
	{ "list", cmd_list,
	  "source lines of matching functions with their values, like pprof -list" },
	{ "archive", cmd_archive, "pack a profile's binaries and debug files (.tar.zst)" },
	{ "stack", cmd_stack, "backtraces of every thread of core dumps (text, --json, -o pprof)" },
	{ "merge", cmd_merge, "merge profiles into one, as pprof does with several inputs" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: psym COMMAND [OPTIONS] ...\n"
		     "Symbolize and inspect pprof profiles.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'psym COMMAND --help' (or 'psym help COMMAND') describes each command.\n\n"
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
	opterr = 0; /* each command words its own one-line error (die_bad_option) */
	/* Run as addr2line (a link named so, or NAME-addr2line): that tool's defaults. */
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t bl = strlen(base);

	if (!strcmp(base, "addr2line") || (bl > 10 && !strcmp(base + bl - 10, "-addr2line")))
		return finish_stdout(cmd_addr2line(argc, argv));
	if (argc < 2) {
		usage(stderr);
		return PSYM_EXIT_BADINPUT;
	}
	/* "psym help CMD" is "psym CMD --help", as git and go have it. */
	if (!strcmp(argv[1], "help") && argc > 2) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			if (strcmp(argv[2], commands[i].name) == 0) {
				char prog[64], help[] = "--help";
				char *hv[] = { prog, help, NULL };

				snprintf(prog, sizeof(prog), "psym %s", commands[i].name);
				optind = 1;
				return finish_stdout(commands[i].fn(2, hv));
			}
		}
		fprintf(stderr, "%s: no command '%s' to describe\nTry 'psym --help'.\n", progname,
			argv[2]);
		return PSYM_EXIT_BADINPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("psym %s\n", PACKAGE_VERSION);
		printf("reads and writes OTLP profiles of opentelemetry-proto %s\n",
		       PSYM_OTLP_VERSION);
		return finish_stdout(0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			char prog[64];

			snprintf(prog, sizeof(prog), "psym %s", commands[i].name);
			argv[1] = prog;
			return finish_stdout(commands[i].fn(argc - 1, argv + 1));
		}
	}
	fprintf(stderr, "%s: unknown command '%s'\nTry 'psym --help'.\n", progname, argv[1]);
	return PSYM_EXIT_BADINPUT;
}
