/* SPDX-License-Identifier: MIT */
/* psym merge. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char merge_help[] =
	"Usage: psym merge [OPTIONS] FILE... -o OUT\n"
	"Merge profiles into one, as go tool pprof does with several inputs: the\n"
	"sample types must be the same; mappings, functions and locations are\n"
	"unified, samples with the same stack and labels summed, durations added.\n\n"
	"  -o, --output FILE          the merged profile (written atomically; - for stdout)\n"
	"      --raw                  write an uncompressed protobuf (default: gzip)\n" LIMIT_HELP;

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = { { "output", required_argument, NULL, 'o' },
					      { "raw", no_argument, NULL, OPT_RAW },
					      LIMIT_OPTIONS,
					      { 0 } };
	struct psym_limits lim;
	struct psym_profile **in = NULL, *out = NULL;
	struct psym_err e = { 0 };
	const char *outpath = NULL;
	const char **names;
	bool raw = false;
	size_t n;
	int c, ret = 0;

	psym_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (limit_option(c, optarg, &lim, "merge "))
			continue;
		switch (c) {
		case 'o': outpath = optarg; break;
		case OPT_RAW: raw = true; break;
		case 'h': fputs(merge_help, stdout); return 0;
		default: die_bad_option("merge ", argv, "ho:");
		}
	}
	if (argc - optind < 1)
		die_usage("merge ", "expected at least one FILE");
	if (!outpath)
		die_usage("merge ", "no output: give -o FILE");
	n = (size_t)(argc - optind);
	names = (const char **)(argv + optind);
	in = calloc(n, sizeof(*in));
	if (!in) {
		psym_err_set(&e, PSYM_ENOMEM, "out of memory");
		return report(&e, PSYM_ENOMEM);
	}
	for (size_t i = 0; i < n && !ret; i++)
		ret = load(names[i], &lim, &in[i]); /* prints its error */
	if (!ret) {
		ret = psym_profile_merge(in, names, NULL, n, &lim, &out, &e);
		if (!ret)
			ret = psym_profile_write(out, outpath, !raw, &e);
		if (ret)
			ret = report(&e, ret);
	}
	for (size_t i = 0; i < n; i++)
		psym_profile_free(in[i]);
	free(in);
	psym_profile_free(out);
	return ret;
}
