/* SPDX-License-Identifier: MIT */
/* psym archive: a profile's binaries and debug files in one .tar.zst. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	OPT_EXCLUDE = OPT_NEXT + 100,
	OPT_MAX_SIZE,
	OPT_LEVEL
};

static const char archive_help[] =
	"Usage: psym archive [OPTIONS] PROFILE\n"
	"Pack every binary and separate debug file that PROFILE's mappings name, by\n"
	"build ID, from this host into one .tar.zst, to symbolize elsewhere with\n"
	"`psym symbolize --debug-pkg ARCHIVE` (or `tar x -C DIR` and --debug-dir DIR\n"
	"or --binary-path DIR). Run it where the profile was collected: files are\n"
	"taken from the sampled processes' own view while they run\n"
	"(/proc/PID/map_files, /proc/PID/root: other mount namespaces), from their\n"
	"paths, and from the .build-id trees of the debug dirs. Every file's build ID\n"
	"is checked; mappings without a build ID cannot be packed.\n\n"
	"  -o, --output FILE          the archive (default: PROFILE without .pb.gz,\n"
	"                             plus .tar.zst)\n"
	"      --exclude-path PREFIX  do not pack mappings whose path is under PREFIX\n"
	"                             (repeatable; e.g. /usr to pack only your own)\n"
	"      --max-size BYTES       refuse to pack more than BYTES of files (default\n"
	"                             4G; suffixes K, M, G)\n"
	"      --debug-dir DIR        .build-id tree to take debug files from\n"
	"                             (repeatable; default /usr/lib/debug)\n"
	"      --level N              zstd level, 1..19 (default 3)\n"
	"  -v, --verbose              name each file packed and each mapping skipped\n"
	"  -q, --quiet                print no summary\n" LIMIT_HELP;

int cmd_archive(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "exclude-path", required_argument, NULL, OPT_EXCLUDE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "level", required_argument, NULL, OPT_LEVEL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		LIMIT_OPTIONS,
		{ 0 }
	};
	struct psym_archive_args a = { 0 };
	struct psym_limits lim;
	struct psym_err e = { 0 };
	const char **excl = NULL, **ddirs = NULL;
	size_t nexcl = 0, nddirs = 0, max = 0;
	int c, ret, status;

	psym_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "ho:vq", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, "archive "))
			continue;
		switch (c) {
		case 'o': a.output = optarg; break;
		case OPT_EXCLUDE:
			if (!*optarg)
				die_usage("archive ", "empty --exclude-path");
			add_one(optarg, &excl, &nexcl);
			break;
		case OPT_MAX_SIZE:
			if (!parse_size(optarg, &max) || max == 0)
				die_usage("archive ", "invalid --max-size '%s'", optarg);
			break;
		case OPT_DEBUG_DIR: add_one(optarg, &ddirs, &nddirs); break;
		case OPT_LEVEL:
			a.level = (int)parse_long_arg("archive ", optarg, 1, 19, "--level");
			break;
		case 'v': a.verbose = true; break;
		case 'q': a.quiet = true; break;
		case 'h': fputs(archive_help, stdout); return 0;
		default: die_bad_option("archive ", argv, "ho:vq");
		}
	}
	if (argc - optind != 1)
		die_usage("archive ", "expected exactly one PROFILE");
	a.profile = argv[optind];
	a.max_bytes = max;
	a.exclude = excl;
	a.n_exclude = nexcl;
	a.debug_dirs = ddirs;
	a.n_debug_dirs = nddirs;
	ret = psym_archive(&a, &lim, &status, &e);
	free_list(excl, nexcl);
	free_list(ddirs, nddirs);
	return ret ? report(&e, ret) : status;
}
