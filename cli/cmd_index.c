/* SPDX-License-Identifier: MIT */
/* psym index: build per-build-ID indexes; the --index-store options of other commands. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char index_help[] =
	"Usage: psym index [OPTIONS] FILE...\n"
	"       psym index --verify INDEX...\n"
	"Build the index of each binary or debug file: every answer psym gives for\n"
	"its addresses (functions, inline frames, lines, columns, discriminators),\n"
	"keyed by its build ID, so that later runs of symbolize and addr answer\n"
	"without reading its DWARF. Prints one line per file: the build ID, the\n"
	"index's size in bytes and the seconds taken.\n\n"
	"      --index-store STORE    where to put them: a directory (default\n"
	"                             CACHE/index) or an http:// URL (PUT)\n"
	"      --verify               check index files whole instead (checksums,\n"
	"                             every record); one line each, exit 2 if bad\n" DISCOVERY_HELP
	"  -h, --help                 show this help\n";

/* --verify: each file checked whole. */
static int verify_files(char **files, size_t n)
{
	int worst = 0;

	for (size_t i = 0; i < n; i++) {
		struct psym_index_info info;
		struct psym_err e = { 0 };
		int ret = psym_index_check(files[i], &info, &e);

		if (ret) {
			fprintf(stderr, "%s: %s\n", progname, e.msg);
			worst = psym_exit_code(ret);
		} else {
			printf("%s: ok: build ID %s, %zu function records, made from '%s'\n",
			       files[i], info.build_id, info.records, info.source);
		}
	}
	return worst;
}

int cmd_index(int argc, char **argv)
{
	static const struct option opts[] = { INDEX_OPTIONS,
					      DISCOVERY_OPTIONS,
					      { "verify", no_argument, NULL, 'V' },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	struct psym_session *s = session_new();
	struct psym_err e = { 0 };
	size_t nbad = 0, nbadinput = 0;
	bool verify = false, off = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == OPT_NO_INDEX)
			off = true;
		if (session_option(s, opts, c, optarg, "index "))
			continue;
		switch (c) {
		case 'h':
			fputs(index_help, stdout);
			psym_session_free(s);
			return 0;
		case 'V': verify = true; break;
		default: die_bad_option("index ", argv, "h");
		}
	}
	if (optind >= argc)
		die_usage("index ", "no file to index");
	if (off)
		die_usage("index ", "--no-index: nothing to do");
	if (verify) {
		psym_session_free(s);
		return verify_files(argv + optind, (size_t)(argc - optind));
	}
	ret = psym_session_index(s, NULL, NULL, &e);
	if (ret) {
		psym_session_free(s);
		return report(&e, ret);
	}
	for (int i = optind; i < argc; i++) {
		struct psym_index_info info;

		e = (struct psym_err){ 0 };
		ret = psym_session_index(s, argv[i], &info, &e);
		if (ret) {
			/* The reader's message names the file already, most of the time. */
			if (strstr(e.msg, argv[i]))
				fprintf(stderr, "%s: index: %s\n", progname, e.msg);
			else
				fprintf(stderr, "%s: index: '%s': %s\n", progname, argv[i],
					e.msg[0] ? e.msg : psym_strerror(ret));
			nbad++;
			if (psym_exit_code(ret) == PSYM_EXIT_BADINPUT)
				nbadinput++;
		} else {
			printf("%s %llu %.2f\n", info.build_id, (unsigned long long)info.size,
			       info.seconds);
			fflush(stdout);
		}
	}
	psym_session_free(s);
	/* Every file refused as bad input (not an ELF, unreadable): 2, as for any bad input. */
	return !nbad				      ? PSYM_EXIT_OK
	       : nbadinput == (size_t)(argc - optind) ? PSYM_EXIT_BADINPUT
						      : PSYM_EXIT_PARTIAL;
}
