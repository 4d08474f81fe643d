/* SPDX-License-Identifier: MIT */
/*
 * Persistent symbol cache: for one binary (keyed by build ID, else by path,
 * size and mtime), the frames each looked-up address resolved to, inline
 * chains and "nothing here" answers included. A later run answers those
 * addresses from the cache without opening the DWARF at all.
 *
 * File DIR/vN/KEY.psc (N = PSYM_SYMCACHE_VERSION): a fixed header (magic,
 * version, counts, CRC-32 of everything after the header), entries sorted by
 * address, frames (32-bit string offsets, lines, columns), string table;
 * read whole into memory (not mapped: a file truncated or rewritten in place
 * under a mapping would kill psym with SIGBUS) and checked before use: a
 * truncated, corrupted or foreign file is ignored (and rewritten). New answers are
 * merged into a fresh file written to a temporary name, fsync'ed and
 * renamed, so concurrent psym processes never see a partial file (the last
 * writer wins; a cache only ever loses entries, never gains wrong ones).
 * Temporaries left by a writer that was killed are removed by the next
 * writer of the same key.
 *
 * Trust (format 3): every file names its key (the object's build ID, or the
 * hash of its path, size, mtime and inode) in its header, and a file that
 * names another is ignored with a warning: a file copied or planted under
 * our build ID's name never answers. DIR (a symbolic link there is resolved
 * once), DIR/vN (never a symbolic link) and the file must be owned by the
 * user (or root) and not writable by group or others (psym_stat_trusted,
 * as ssh and git decide); else the cache is ignored with a warning and not
 * written. Writes go through the checked directory's fd (openat with
 * O_EXCL|O_NOFOLLOW, renameat), so a root run never writes through a link.
 */
#ifndef PSYM_SYMCACHE_H
#define PSYM_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"

struct psym_symcache;

/* Format version: its own directory, and in every file's header. */
#define PSYM_SYMCACHE_VERSION 4

/*
 * Open the cache of the binary with this key in dir (created on first
 * write). variant separates answers that depend on options (inlines on or
 * off). A missing or bad file is an empty cache; *note (may be NULL) says
 * why a file was ignored. Returns 0 or PSYM_ENOMEM.
 */
int psym_symcache_open(const char *dir, const char *key, const char *variant,
		       struct psym_symcache **out, const char **note, struct psym_err *e);

/*
 * After open: whether a file was there but damaged (truncated, corrupt, not
 * a cache file, changed while read) rather than absent or written by another
 * version or with other options; the caller says so, then symbolizes from
 * the binaries. The path of the cache file, for that message.
 */
bool psym_symcache_damaged(const struct psym_symcache *c);
const char *psym_symcache_path(const struct psym_symcache *c);

/*
 * Frames cached for vaddr: 1 and *n (0 = known to resolve to nothing), or 0
 * when the address is not in the cache. Strings live until close.
 */
int psym_symcache_lookup(struct psym_symcache *c, uint64_t vaddr, const struct psym_frame **frames,
			 size_t *n);

/* Whether vaddr has an answer in the cache (no effect on the statistics). */
bool psym_symcache_has(const struct psym_symcache *c, uint64_t vaddr);

/*
 * Remember the answer for vaddr. The frames are copied, their strings are
 * not: they must stay valid until psym_symcache_save() (a binary saves its
 * cache before its DWARF and symbols are closed).
 */
int psym_symcache_add(struct psym_symcache *c, uint64_t vaddr, const struct psym_frame *frames,
		      size_t n);

/*
 * The run is over (the driver's finish step, never a destructor): write
 * what was added, merged with the file, once: the added answers are then
 * let go (a later lookup misses them) and nothing more is added. 0 or an
 * error (the file is left as it was). NULL is fine.
 */
int psym_symcache_save(struct psym_symcache *c, struct psym_err *e);

/* Free everything; writes nothing (what was added and not saved is lost). NULL is fine. */
void psym_symcache_close(struct psym_symcache *c);

/* Hits and misses so far (for reports). */
void psym_symcache_stats(const struct psym_symcache *c, size_t *hits, size_t *misses);

/* The cache key of a file: its build ID, else "f-" + a hash of path, size, mtime. */
int psym_symcache_key(const char *build_id, const char *path, char *key, size_t keysz);

#endif
