/* SPDX-License-Identifier: MIT */
/*
 * Where indexes (index.h) live, keyed by build ID:
 *
 *   a directory   DIR/<first two hex digits>/<key>.psymidx, where the key
 *                 is <build ID>.<answer variant>.f<format version> (see
 *                 psym_index_store_key: psym versions that answer or write
 *                 differently keep their own index of a build ID side by
 *                 side in one shared store), written as a temporary file in
 *                 that directory then renamed (safe on NFS: no flock).
 *                 Concurrent builders of one key: the first creates
 *                 <key>.building with O_EXCL, holding "pid N", "host H",
 *                 "boot BOOT-ID" and "pidns NS" lines; the others see it
 *                 and answer from the DWARF. A failed build removes its
 *                 marker. A marker is taken over at once when its
 *                 builder is gone (same host, boot and PID namespace, no
 *                 such pid or a zombie) or was of an earlier boot of this
 *                 host, else once older than PSYM_STORE_BUILD_STALE
 *                 seconds (another host's, or an older psym's "N"). The store,
 *                 DIR/NN and every file read there (indexes, GSYM files,
 *                 markers) must pass psym_stat_trusted (fileio.h: the
 *                 user's or root's, writable by neither group nor others),
 *                 and be a directory or a regular file, never a link:
 *                 else they are not used, and the caller is told why.
 *   an HTTP URL   http://HOST[:PORT]/PATH: GET and PUT of
 *                 URL/<first two hex digits>/<key>.psymidx (a WebDAV
 *                 server such as nginx's dav module), bounded in time
 *                 (one deadline per run for all GETs, given up for the
 *                 run after a timeout: store_http.h) and in size
 *                 (PSYM_INDEX_MAX_FILE); fetched files are checked as they
 *                 come and streamed to a private file (store_http.h).
 *
 * Every fetched index is checked (index.h) against the build ID wanted.
 */
#ifndef PSYM_STORE_H
#define PSYM_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "index.h"
#include "storekey.h"

#define PSYM_STORE_BUILD_STALE 600 /* seconds: a .building marker older than this is stale */

struct psym_index_store;

/*
 * A store from its spec: a directory (created when missing) or an
 * http:// URL. auto_build: builds when the policy says so (binary.c).
 */
int psym_index_store_new(const char *spec, bool auto_build, struct psym_index_store **out,
			 struct psym_err *e);
void psym_index_store_free(struct psym_index_store *s);

const char *psym_index_store_name(const struct psym_index_store *s);
bool psym_index_store_auto_build(const struct psym_index_store *s);

/*
 * The index of build_id made under the answer rules variant: 0 with *out,
 * PSYM_NOENT when the store has none (note empty) or has one that cannot
 * be used (note says why: damaged, another build ID, untrusted), PSYM_EIO
 * when the store itself failed (note says why: server down, slow, not
 * HTTP): then nothing should be built for it either.
 */
int psym_index_store_get(struct psym_index_store *s, const char *build_id, const char *variant,
			 struct psym_index **out, char *note, size_t notesz);

/*
 * The GSYM file a directory store holds for build_id, put there by the
 * user (STORE/NN/BUILDID.gsym: psym never writes one), checked as the
 * store's indexes are. 0 with its path in path[pathsz]; PSYM_NOENT when
 * there is none (note empty) or it may not be used (note says why: not a
 * regular file, another user's, writable by others, in a directory that
 * is). An HTTP store holds none.
 */
int psym_index_store_gsym(struct psym_index_store *s, const char *build_id, char *path,
			  size_t pathsz, char *note, size_t notesz);

/*
 * Building: reserve build_id (0, or PSYM_NOENT when another builder holds
 * it), giving the path to write the new index to (path[pathsz]); then
 * commit it (HTTP: PUT; directory: already in place) or abandon it.
 */
int psym_index_store_begin(struct psym_index_store *s, const char *build_id, const char *variant,
			   char *path, size_t pathsz, struct psym_err *e);
int psym_index_store_commit(struct psym_index_store *s, const char *build_id, const char *variant,
			    const char *path, struct psym_err *e);
void psym_index_store_abandon(struct psym_index_store *s, const char *build_id, const char *variant,
			      const char *path);

/*
 * Second sighting (the auto-build policy): true when build_id was seen by
 * an earlier run (a marker in a directory store); marks it seen otherwise.
 */
bool psym_index_store_seen(struct psym_index_store *s, const char *build_id);

/*
 * Why an HTTP store was given up in this run (after a timeout: it is not
 * asked again), or NULL. For the end of a run: no request under way.
 */
const char *psym_index_store_given_up(const struct psym_index_store *s);

/* Indexes built through this store by this process. */
size_t psym_index_store_built(const struct psym_index_store *s);
void psym_index_store_count_built(struct psym_index_store *s);

#endif
