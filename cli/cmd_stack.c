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
	struct psym_session *s = session_new();
	struct psym_stack_args a = { 0 };
	struct psym_err e = { 0 };
	int c, ret, status = PSYM_EXIT_OK;

	while ((c = getopt_long(argc, argv, "ho:q", opts, NULL)) != -1) {
		if (session_option(s, opts, c, optarg, "stack "))
			continue;
		switch (c) {
		case OPT_JSON: a.json = true; break;
		case 'o': a.output = optarg; break;
		case OPT_GROUP_BY: a.signature = parse_group_by(optarg); break;
		case OPT_MAX_FRAMES:
			a.max_frames =
				(size_t)parse_long_arg("stack ", optarg, 1, 65536, "--max-frames");
			break;
		case 'h':
			fputs(stack_help, stdout);
			psym_session_free(s);
			return 0;
		default: die_bad_option("stack ", argv, "ho:q");
		}
	}
	if (argc - optind < 1)
		die_usage("stack ", "no core file");
	ret = psym_session_stack(s, (const char *const *)argv + optind, (size_t)(argc - optind), &a,
				 &status, &e);
	psym_session_free(s);
	return ret ? report(&e, ret) : status;
}
