/* SPDX-License-Identifier: MIT */
/*
 * Test driver for the debug-file finder and the debuginfod client:
 *   debug-lookup [-d DEBUGDIR]... [-b BINARY] [-l DEBUGLINK -c CRC]
 *                [-u URL]... [-o] [-t SECONDS] [-C CACHE] [-x] [-E] BUILDID|-
 * Prints the debug file found locally, else fetched with debuginfod (-E:
 * fetch the executable instead), else "none: REASON". -x explains.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psym-int.h"

/* -x: the candidates the search recorded, in order. */
static void show(struct psym_cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		printf("  %s: %s\n", c->v[i].path, c->v[i].verdict);
	psym_cands_free(c);
}

int main(int argc, char **argv)
{
	const char *dirs[16], *urls[8];
	struct psym_locate_opts o = { .debug_dirs = dirs };
	struct psym_reason why = { 0 };
	struct psym_elf *elf = NULL;
	struct psym_debuginfod_opts dopt = { .urls = urls };
	struct psym_debug_key k = { 0 };
	struct psym_err e = { 0 };
	struct psym_cands cands = { 0 };
	bool exe = false;
	const char *binary = NULL;
	int c, ret;

	while ((c = getopt(argc, argv, "d:b:l:c:u:ot:C:xE")) != -1) {
		switch (c) {
		case 'd':
			if (o.n_debug_dirs < 16)
				dirs[o.n_debug_dirs++] = optarg;
			break;
		case 'b': binary = optarg; break;
		case 'l': k.debuglink = optarg; break;
		case 'c': k.debuglink_crc = (uint32_t)strtoul(optarg, NULL, 16); break;
		case 'u':
			if (dopt.n_urls < 8)
				urls[dopt.n_urls++] = optarg;
			break;
		case 'o': dopt.offline = true; break;
		case 't': dopt.timeout_s = atoi(optarg); break;
		case 'C': dopt.cache_dir = optarg; break;
		case 'x': o.cands = &cands; break;
		case 'E': exe = true; break;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return 2;
	if (strcmp(argv[optind], "-"))
		k.build_id = argv[optind];
	if (!exe) {
		ret = psym_locate_debug_file(&o, k.build_id, binary, k.debuglink, k.debuglink_crc,
					     &elf, &why, &e);
		show(&cands);
		if (ret < 0) {
			fprintf(stderr, "debug-lookup: %s\n", e.msg);
			return 3;
		}
		if (ret == 0) {
			printf("local: %s\n", psym_elf_path(elf));
			psym_elf_close(elf);
			return 0;
		}
	}
	if (k.build_id) {
		struct psym_debuginfod_req r = {
			.build_id = k.build_id,
			.kind = exe ? PSYM_DEBUGINFOD_EXECUTABLE : PSYM_DEBUGINFOD_DEBUGINFO,
		};

		struct psym_debuginfod *s = NULL;

		if (psym_debuginfod_new(&dopt, &s, &e) != 0 ||
		    psym_debuginfod_fetch(s, &r, 1, &e) != 0) {
			fprintf(stderr, "debug-lookup: %s\n", e.msg);
			psym_debuginfod_free(s);
			return 3;
		}
		psym_debuginfod_free(s);
		if (r.path) {
			printf("debuginfod: %s\n", r.path);
			psym_debuginfod_reqs_free(&r, 1);
			return 0;
		}
		printf("none: %s\n", r.reason);
		return 1;
	}
	printf("none: not found\n");
	return 1;
}
