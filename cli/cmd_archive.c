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
	struct psym_archive_opts ao = { 0 };
	struct psym_archive_printer pr = { stderr, false };
	struct psym_archive_stats st;
	struct psym_limits lim;
	struct psym_profile *p = NULL;
	struct psym_err e = { 0 };
	const char **excl = NULL, **ddirs = NULL;
	size_t nexcl = 0, nddirs = 0, max = 0;
	char *out = NULL;
	const char *out_opt = NULL;
	bool quiet = false;
	int c, ret;

	psym_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "ho:vq", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, "archive "))
			continue;
		switch (c) {
		case 'o': out_opt = optarg; break;
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
			ao.level = (int)parse_long_arg("archive ", optarg, 1, 19, "--level");
			break;
		case 'v': pr.verbose = true; break;
		case 'q': quiet = true; break;
		case 'h': fputs(archive_help, stdout); return 0;
		default: die_bad_option("archive ", argv, "ho:vq");
		}
	}
	if (argc - optind != 1)
		die_usage("archive ", "expected exactly one PROFILE");
	out = out_opt ? strdup(out_opt) : psym_archive_default_name(argv[optind]);
	if (!out) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return PSYM_EXIT_SYSTEM;
	}
	ret = load(argv[optind], &lim, &p);
	if (ret)
		goto out;
	ao.max_bytes = max;
	ao.exclude = excl;
	ao.n_exclude = nexcl;
	ao.debug_dirs = nddirs ? ddirs : NULL;
	ao.n_debug_dirs = nddirs;
	ao.event = psym_archive_print_event;
	ao.event_ud = &pr;
	ret = psym_archive_write(p, out, &ao, &st, &e);
	if (ret) {
		ret = report(&e, ret);
		goto out;
	}
	if (!quiet)
		fprintf(stderr,
			"%s: archive '%s': %zu binaries and %zu debug files for %zu mappings "
			"(%zu not found, %zu excluded, %zu without a build ID), %" PRIu64
			" bytes packed into %" PRIu64 "\n",
			progname, out, st.binaries, st.debug_files, st.mappings, st.missing,
			st.excluded, st.no_build_id, st.bytes_in, st.bytes_out);
out:
	psym_profile_free(p);
	free_list(excl, nexcl);
	free_list(ddirs, nddirs);
	free(out);
	return ret;
}
