/* SPDX-License-Identifier: MIT */
/*
 * The HTTP side of the index store (store.h): a small HTTP/1.1 client over
 * plain sockets, GET and PUT of one file per request (Connection: close),
 * every request bounded by a deadline and every body by a size cap, both
 * named in the errors. No TLS, no redirects, no chunked bodies (a WebDAV
 * server serving static files sends Content-Length).
 */
#ifndef PSYM_STORE_HTTP_H
#define PSYM_STORE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "index.h"

struct psym_http_url {
	char host[256];
	char port[8];
	char path[1024]; /* without the trailing slash; "" for the root */
};

int psym_http_parse_url(const char *url, struct psym_http_url *u, struct psym_err *e);

/*
 * GET path below u into *body (malloc'd) of at most max bytes: 0, PSYM_NOENT
 * on 404, or an error saying what went wrong. timeout_ms bounds it all.
 */
int psym_http_get(const struct psym_http_url *u, const char *path, uint64_t max, int timeout_ms,
		  uint8_t **body, size_t *len, struct psym_err *e);
/* PUT len bytes from fd to path below u: 0, or an error with the server's status. */
int psym_http_put(const struct psym_http_url *u, const char *path, int fd, uint64_t len,
		  int timeout_ms, struct psym_err *e);

/* The store's GET and PUT of one build ID's index (store.h). */
int psym_http_store_get(const struct psym_http_url *u, const char *spec, const char *build_id,
			const char *variant, struct psym_index **out, char *note, size_t notesz);
int psym_http_store_put(const struct psym_http_url *u, const char *spec, const char *build_id,
			const char *variant, const char *file, struct psym_err *e);

#endif
