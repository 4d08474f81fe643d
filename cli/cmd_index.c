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

bool index_option(int c, const char *arg, struct index_cli *ic)
{
	switch (c) {
	case OPT_INDEX_STORE: ic->store = arg; return true;
	case OPT_NO_INDEX: ic->off = true; return true;
	case OPT_NO_INDEX_BUILD: ic->no_build = true; return true;
	case OPT_GSYM: ic->gsym = arg; return true;
	default: return false;
	}
}

int index_store_open(const struct index_cli *ic, const char *cache_opt, bool auto_build,
		     struct psym_index_store **out)
{
	struct psym_err e = { 0 };
	char *base, *dir = NULL;
	int ret;
	const char *env = getenv("PSYM_INDEX_STORE");
	const char *spec = ic->store ? ic->store : env && *env ? env : NULL;

	*out = NULL;
	auto_build = auto_build && !ic->no_build;
	if (ic->off || (!ic->store && spec && strcmp(spec, "off") == 0))
		return 0;
	if (spec) {
		ret = psym_index_store_new(spec, auto_build, out, &e);
		if (ret) {
			fprintf(stderr, "%s: --index-store: %s\n", progname, e.msg);
			return 1;
		}
		return 0;
	}
	/* The default: quietly none when there is no cache directory to use. */
	base = cache_opt ? strdup(cache_opt) : cache_dir();
	if (base && mkdir_p(base) == 0 && asprintf(&dir, "%s/index", base) >= 0)
		psym_index_store_new(dir, auto_build, out, &e);
	free(dir);
	free(base);
	return 0;
}

/* --verify: each file checked whole. */
static int verify_files(char **files, size_t n)
{
	int worst = 0;

	for (size_t i = 0; i < n; i++) {
		struct psym_index *x = NULL;
		struct psym_err e = { 0 };
		size_t groups;
		int ret = psym_index_open(files[i], NULL, NULL, &x, &e);

		if (!ret)
			ret = psym_index_verify(x, &groups, &e);
		if (ret) {
			fprintf(stderr, "%s: %s\n", progname, e.msg);
			worst = psym_exit_code(ret);
		} else {
			printf("%s: ok: build ID %s, %zu function records, made from '%s'\n",
			       files[i], psym_index_build_id(x), groups, psym_index_source(x));
		}
		psym_index_close(x);
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
	struct psym_binary_opts bo = { .inlines = true, .discriminators = true };
	struct psym_index_store *store = NULL;
	struct index_cli ic = { 0 };
	struct discovery d;
	struct psym_err e = { 0 };
	size_t nbad = 0;
	size_t nbadinput = 0;
	bool verify = false;
	int c, ret;

	discovery_init(&d);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (discovery_option(c, optarg, &d, "index ") || index_option(c, optarg, &ic))
			continue;
		switch (c) {
		case 'h': fputs(index_help, stdout); return 0;
		case 'V': verify = true; break;
		default: die_bad_option("index ", argv, "h");
		}
	}
	if (optind >= argc)
		die_usage("index ", "no file to index");
	if (ic.off)
		die_usage("index ", "--no-index: nothing to do");
	if (verify) {
		discovery_free(&d);
		return verify_files(argv + optind, (size_t)(argc - optind));
	}
	d.want_all = true;
	ret = discovery_finish(&d, &e);
	if (ret) {
		ret = report(&e, ret);
		goto out;
	}
	if (index_store_open(&ic, d.cache_opt, false, &store)) {
		ret = PSYM_EXIT_BADINPUT;
		goto out;
	}
	if (!store) {
		fprintf(stderr,
			"%s: index: no cache directory for the default store: give "
			"--index-store\n",
			progname);
		ret = PSYM_EXIT_BADINPUT;
		goto out;
	}
	bo.locate = &d.lo;
	bo.limits = &d.limits;
	for (int i = optind; i < argc; i++) {
		struct psym_index_built info;
		struct psym_elf *elf = NULL;
		struct psym_binary *b = NULL;

		e = (struct psym_err){ 0 };
		ret = psym_elf_open(argv[i], bo.locate->elf_limits, &elf, &e);
		if (!ret)
			ret = psym_binary_new(elf, &bo, &b, &e);
		if (!ret)
			ret = psym_index_build(b, store, true, &info, &e);
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
		psym_binary_free(b);
	}
	/* Every file refused as bad input (not an ELF, unreadable): 2, as for any bad input. */
	ret = !nbad				     ? PSYM_EXIT_OK
	      : nbadinput == (size_t)(argc - optind) ? PSYM_EXIT_BADINPUT
						     : PSYM_EXIT_PARTIAL;
out:
	psym_index_store_free(store);
	discovery_free(&d);
	return ret;
}
