/* SPDX-License-Identifier: MIT */
/*
 * debuginfod client (libdebuginfod, optional at build time).
 *
 * Fetches debug files and executables by build ID from the servers named
 * by the caller or by $DEBUGINFOD_URLS, into the client cache. Every request
 * has a deadline (default 10 s, not libdebuginfod's 90 s), a server that is
 * down or answers 404 yields a per-request reason, and requests for
 * different build IDs run concurrently on a few threads. What comes back
 * is untrusted: callers must check its build ID and parse it as hostile ELF.
 */
#ifndef PSYM_DEBUGINFOD_H
#define PSYM_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

enum psym_debuginfod_kind {
	PSYM_DEBUGINFOD_DEBUGINFO,
	PSYM_DEBUGINFOD_EXECUTABLE,
};

struct psym_debuginfod_opts {
	const char *const *urls; /* servers; none: $DEBUGINFOD_URLS */
	size_t n_urls;
	bool offline;            /* never touch the network */
	int timeout_s;           /* per request; 0 = default (10) */
	const char *cache_dir;   /* NULL: libdebuginfod's default cache */
	int max_threads;         /* 0 = default (4) */
};

struct psym_debuginfod_req {
	const char *build_id;  /* in: lowercase hex */
	enum psym_debuginfod_kind kind;
	char *path;            /* out: malloc'd path in the cache, or NULL */
	char reason[256];      /* out: why not, when path is NULL */
};

/* True when psym was built with libdebuginfod. */
bool psym_debuginfod_built(void);

/*
 * Servers that would be used (space-separated), or NULL when none. The
 * result is buf (joined from o->urls) or the $DEBUGINFOD_URLS value.
 */
const char *psym_debuginfod_servers(const struct psym_debuginfod_opts *o, char *buf,
				    size_t bufsz);

/*
 * Run all requests (concurrently), filling path or reason in each. Returns
 * 0 even when individual requests fail (see each reason); negative only for
 * setup failures.
 */
int psym_debuginfod_fetch(const struct psym_debuginfod_opts *o,
			  struct psym_debuginfod_req *reqs, size_t n, struct psym_err *e);

/* Free the paths of the requests. */
void psym_debuginfod_reqs_free(struct psym_debuginfod_req *reqs, size_t n);

#endif
