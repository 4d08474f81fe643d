/* SPDX-License-Identifier: MIT */
/*
 * Test driver for a debuginfod session: all requests in one fetch.
 *   debuginfod-fetch --built          exit 0 when built with libdebuginfod
 *   debuginfod-fetch URL SECONDS [x:]BUILDID...
 * One session (server URL, deadline SECONDS), one psym_debuginfod_fetch of
 * every build ID (x: asks for the executable, else the debug file); prints
 * one line per request, in order: "path P" or "reason R".
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfod.h"

int main(int argc, char **argv)
{
	struct psym_debuginfod_opts o = { 0 };
	struct psym_debuginfod_req *reqs;
	struct psym_debuginfod *s = NULL;
	struct psym_err e = { 0 };
	const char *url;
	size_t n;
	int ret = 0;

	if (argc == 2 && !strcmp(argv[1], "--built"))
		return psym_debuginfod_built() ? 0 : 1;
	if (argc < 4) {
		fprintf(stderr, "usage: debuginfod-fetch URL SECONDS [x:]BUILDID...\n");
		return 2;
	}
	url = argv[1];
	o.urls = &url;
	o.n_urls = 1;
	o.timeout_s = atoi(argv[2]);
	n = (size_t)(argc - 3);
	reqs = calloc(n, sizeof(*reqs));
	if (!reqs)
		return 3;
	for (size_t i = 0; i < n; i++) {
		const char *a = argv[3 + i];

		reqs[i].kind = PSYM_DEBUGINFOD_DEBUGINFO;
		if (!strncmp(a, "x:", 2)) {
			reqs[i].kind = PSYM_DEBUGINFOD_EXECUTABLE;
			a += 2;
		}
		reqs[i].build_id = a;
	}
	if (psym_debuginfod_new(&o, &s, &e) != 0 || psym_debuginfod_fetch(s, reqs, n, &e) != 0) {
		fprintf(stderr, "debuginfod-fetch: %s\n", e.msg);
		ret = 3;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (reqs[i].path)
			printf("path %s\n", reqs[i].path);
		else
			printf("reason %s\n", reqs[i].reason);
	}
out:
	psym_debuginfod_reqs_free(reqs, n);
	free(reqs);
	psym_debuginfod_free(s);
	return ret;
}
