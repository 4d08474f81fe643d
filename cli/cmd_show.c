/* SPDX-License-Identifier: MIT */
/* psym show and psym check. */
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

/* ---- show ----------------------------------------------------------------- */

static const char show_help[] =
	"Usage: psym show [OPTIONS] FILE\n"
	"Print a readable dump of a pprof profile (gzip'd or raw; - for stdin):\n"
	"header, sample and period types, mappings with build IDs and has_* flags,\n"
	"locations with their lines, samples with labels.\n\n"
	"      --json                 print JSON instead, for scripts\n" LIMIT_HELP;

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, OPT_JSON },
					      LIMIT_OPTIONS,
					      { 0 } };
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
		default: die_bad_option("show ", argv, "h");
		}
	}
	if (argc - optind != 1)
		die_usage("show ", "expected exactly one FILE");
	ret = load(argv[optind], &lim, &p);
	if (ret)
		return ret;
	ret = psym_show(p, json ? PSYM_SHOW_JSON : PSYM_SHOW_TEXT, stdout);
	psym_profile_free(p);
	(void)ret; /* its only error is standard output's: finish_stdout's (main.c) */
	return 0;
}

/* ---- check ---------------------------------------------------------------- */

static const char check_help[] =
	"Usage: psym check [OPTIONS] FILE...\n"
	"Validate pprof profiles the way pprof does. Exit 0 when every FILE is\n"
	"valid, 2 when one is not (the first problem of each is printed).\n\n"
	"  -q, --quiet                print nothing for valid files\n" LIMIT_HELP;

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = { { "quiet", no_argument, NULL, 'q' },
					      LIMIT_OPTIONS,
					      { 0 } };
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
		default: die_bad_option("check ", argv, "hq");
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
		if (!quiet) {
			printf("%s: ok ", argv[i]);
			psym_show(p, PSYM_SHOW_COUNTS, stdout);
			putchar('\n');
		}
		psym_profile_free(p);
	}
	return worst;
}
