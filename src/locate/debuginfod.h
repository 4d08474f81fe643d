/* SPDX-License-Identifier: MIT */
/*
 * debuginfod client (libdebuginfod, optional at build time).
 *
 * Fetches debug files and executables by build ID from the servers named
 * by the caller or by $DEBUGINFOD_URLS, into libdebuginfod's cache.
 *
 * One session per run (a batch is one run): made once, before any thread
 * that could use it or call getenv() starts, it fixes the servers, the
 * deadline and the cache directory, and owns a bounded pool of
 * libdebuginfod clients that all requests of the run share.
 *
 * Deadline: the session's timeout bounds the whole lookup phase, not each
 * request. The clock starts at the first request that is handed to
 * libdebuginfod; when it passes, transfers under way are aborted and every
 * later request gets the reason "debuginfod deadline (S s) passed" without
 * contacting anything (a file already in the cache is still returned).
 * When the servers do not answer in time, they are not asked again in
 * this session. libdebuginfod asks all servers of $DEBUGINFOD_URLS
 * together for each request and has no per-client server list, so "the
 * servers" are one unit here: one that hangs stops the others too.
 *
 * What comes back is untrusted. Every file handed out (downloaded now or
 * found in the cache) is checked first: an ELF file whose build ID is the
 * one asked for, at most max_bytes long. A file that fails is deleted from
 * libdebuginfod's cache, where elfutils and gdb would otherwise take it
 * without asking a server, and the request gets the reason. A transfer
 * past max_bytes is aborted. Callers still parse the file as hostile ELF.
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

/* Default and maximum of psym_debuginfod_opts.timeout_s and .max_threads. */
#define PSYM_DEBUGINFOD_TIMEOUT_DEFAULT 30
#define PSYM_DEBUGINFOD_THREADS_DEFAULT 4
#define PSYM_DEBUGINFOD_THREADS_MAX 16
/* Default of psym_debuginfod_opts.max_bytes (--limit debuginfod-bytes). */
#define PSYM_DEBUGINFOD_BYTES_DEFAULT (2ULL << 30)

struct psym_debuginfod_opts {
	const char *const *urls; /* servers; none: $DEBUGINFOD_URLS */
	size_t n_urls;
	bool offline;		      /* never touch the network */
	int timeout_s;		      /* for all requests of the session together;
				  * 0 = default (30) */
	const char *cache_dir;	      /* NULL: $DEBUGINFOD_CACHE_PATH, else
				  * libdebuginfod's default cache */
	int max_threads;	      /* requests in flight at once, for the whole
				  * session; 0 = default (4), at most 16 */
	unsigned long long max_bytes; /* one file's size; 0 = default (2 GiB) */
};

struct psym_debuginfod_req {
	const char *build_id; /* in: lowercase hex */
	enum psym_debuginfod_kind kind;
	char *path;	  /* out: malloc'd path in the cache, or NULL */
	char reason[256]; /* out: why not, when path is NULL */
};

/* A session: servers, deadline, client pool. Opaque. */
struct psym_debuginfod;

/* True when psym was built with libdebuginfod. */
bool psym_debuginfod_built(void);

/*
 * Servers that would be used (space-separated), or NULL when none. The
 * result is buf (joined from o->urls) or the $DEBUGINFOD_URLS value.
 * Reads the environment: call it before threads start.
 */
const char *psym_debuginfod_servers(const struct psym_debuginfod_opts *o, char *buf, size_t bufsz);

/*
 * Make a session from o (not kept: the session copies what it needs).
 * Sets libdebuginfod's environment (DEBUGINFOD_URLS, _TIMEOUT, _MAXTIME,
 * _CACHE_PATH) here and never later, so call it while no other thread of
 * the process runs (before a batch's workers start). An offline session,
 * one without servers, or one of a build without libdebuginfod is valid:
 * its requests just get the reason. Returns 0 or PSYM_ENOMEM.
 */
int psym_debuginfod_new(const struct psym_debuginfod_opts *o, struct psym_debuginfod **out,
			struct psym_err *e);

/* Ends the session's clients. No request may be running. Accepts NULL. */
void psym_debuginfod_free(struct psym_debuginfod *s);

/*
 * Run all n requests, up to the session's max_threads at once (the pool is
 * shared with every other call running at the same time: safe to call from
 * several threads), filling path or reason in each; path and reason are
 * cleared first. Returns when every request has its answer, at the latest
 * about a second after the deadline. Returns 0 even when requests fail
 * (see each reason); negative only for setup failures (PSYM_ENOMEM).
 * The caller frees the paths with psym_debuginfod_reqs_free.
 */
int psym_debuginfod_fetch(struct psym_debuginfod *s, struct psym_debuginfod_req *reqs, size_t n,
			  struct psym_err *e);

/* Free the paths of the requests. */
void psym_debuginfod_reqs_free(struct psym_debuginfod_req *reqs, size_t n);

#endif
