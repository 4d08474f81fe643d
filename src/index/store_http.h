/* SPDX-License-Identifier: MIT */
/*
 * The HTTP side of the index store (store.h): a small HTTP/1.1 client over
 * plain sockets, GET and PUT of one file per request (Connection: close),
 * every request bounded by a deadline and every body by a size cap, both
 * named in the errors; bodies are streamed, never buffered whole. No TLS, no redirects, no chunked bodies (a WebDAV
 * server serving static files sends Content-Length).
 */
#ifndef PSYM_STORE_HTTP_H
#define PSYM_STORE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "index.h"

#define PSYM_STORE_HTTP_TIMEOUT 10 /* seconds: a run's GETs together; one PUT */

struct psym_http_url {
	char host[256];
	char port[8];
	char path[1024]; /* without the trailing slash; "" for the root */
};

int psym_http_parse_url(const char *url, struct psym_http_url *u, struct psym_err *e);

/*
 * Where a GET's body goes as it arrives: put gets each piece in order, with
 * the Content-Length (-1: none given), and returns 0 to go on or an error
 * (set in e) that stops the transfer at once.
 */
struct psym_http_sink {
	int (*put)(void *arg, const uint8_t *p, size_t n, int64_t content_len, struct psym_err *e);
	void *arg;
};

/*
 * GET path below u, handing its body of at most max bytes to sink (never
 * held whole in memory), its length in *len: 0, PSYM_NOENT on 404, or an
 * error saying what went wrong (the sink's, when it stopped it).
 * timeout_ms bounds it all. *no_server (may be NULL) tells whether the
 * error is that the server could not be reached or did not answer in time.
 */
int psym_http_get(const struct psym_http_url *u, const char *path, uint64_t max, int timeout_ms,
		  const struct psym_http_sink *sink, uint64_t *len, bool *no_server,
		  struct psym_err *e);
/* PUT len bytes from fd to path below u: 0, or an error with the server's status. */
int psym_http_put(const struct psym_http_url *u, const char *path, int fd, uint64_t len,
		  int timeout_ms, bool *no_server, struct psym_err *e);

/*
 * An HTTP index store for one run (a batch is one run), shared by its
 * threads. One deadline for the run, as debuginfod has: all its GETs
 * together get PSYM_INDEX_STORE_TIMEOUT seconds (default
 * PSYM_STORE_HTTP_TIMEOUT), the clock running only while one is under way
 * (a run that reads DWARF between GETs loses no time), and a GET gets only
 * what is left. A server that cannot be reached or does not answer in time,
 * or a run whose time is spent, gives the store up for the rest of the run:
 * the GET that did so says so once (its note), the later ones return
 * PSYM_EIO with an empty note and contact nothing. Each PUT is bounded by
 * the timeout on its own, and is refused once the store was given up.
 */
struct psym_http_store;

int psym_http_store_new(const char *spec, struct psym_http_store **out, struct psym_err *e);
void psym_http_store_free(struct psym_http_store *h);
/* 0 while the store is used, or PSYM_EIO saying it was given up in this run. */
int psym_http_store_up(const struct psym_http_store *h, struct psym_err *e);
/*
 * Why the store was given up (the warning its GET gave), or NULL: for the
 * end of a run, when no request is under way.
 */
const char *psym_http_store_why(const struct psym_http_store *h);

/*
 * The store's GET and PUT of one build ID's index (store.h). A fetched
 * index is checked as it comes: the transfer stops at the first byte of
 * the magic that is wrong, or once the header (its first 1024 bytes) is in
 * and wrong (format, checksum, size against Content-Length, build ID,
 * answer rules), or at the first byte past the size the header gives. The
 * body goes to a private unlinked file (mkdtemp, O_EXCL, O_NOFOLLOW), which
 * is then mapped and checked as any index file.
 */
int psym_http_store_get(struct psym_http_store *h, const char *build_id, const char *variant,
			struct psym_index **out, char *note, size_t notesz);
int psym_http_store_put(struct psym_http_store *h, const char *build_id, const char *variant,
			const char *file, struct psym_err *e);

#endif
