/* SPDX-License-Identifier: MIT */
/*
 * The per-build-ID symbol index: one file per object that holds every
 * answer psym's file resolver gives for it (binary.h), so that later runs
 * answer any address without the DWARF.
 *
 * The file is mapped, not parsed whole. Layout (all integers little
 * endian; doc/DESIGN.md has the full description):
 *
 *   header   1024 bytes: magic "PSYMIDX\n", version, flags, the build ID
 *            and the answer variant (psym's answer rules), the file the
 *            answers were made from, section offsets, CRC32 of itself and
 *            of the chunk-checksum table
 *   FUNCS    one record per group of consecutive address runs (at most
 *            256 runs, one outermost function): its size, a node table
 *            (the inline tree: name, linkage name, start line, start file
 *            and start address, and the call site in the parent) and its
 *            runs, delta-encoded (address,
 *            innermost node, file, line, column, discriminator)
 *   STRS     NUL-terminated strings, each once (id = offset + 1; 0: NULL)
 *   FILES    u32 string id per file (file id = index + 1; 0: no file)
 *   ADDRS    u32 or u64 start of each group (less the base), sorted
 *
 * Addresses (version 3 on) are relative to the layout of the file the
 * answers are for (psym_layout_rel, layout.h), so that every file of the
 * build ID placed that way shifted gets them; indexes are keyed by the
 * layout too (in the variant), as other layouts answer otherwise.
 *   OFFS     u32 offset of each group's record in FUNCS
 *   CRCS     u32 CRC32 of each 64 KiB chunk of everything above, checked
 *            the first time a lookup touches the chunk
 *
 * Nothing is used before it is checked: the header and the CRC table at
 * open, a chunk on first touch; every offset and count is bounds-checked
 * as well. A damaged file gives an error (never a wrong answer).
 */
#ifndef PSYM_INDEX_H
#define PSYM_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"

/* 4: frames of call sites keep their discriminators (DW_AT_GNU_discriminator). */
#define PSYM_INDEX_VERSION 4
#define PSYM_INDEX_SUFFIX ".psymidx"
/* The largest index file read or written (also the HTTP store's cap). */
#define PSYM_INDEX_MAX_FILE ((uint64_t)2 << 30)

/* What the answers hold (header flags). */
enum {
	PSYM_INDEX_INLINES = 1,	       /* inline frames */
	PSYM_INDEX_DISCRIMINATORS = 2, /* line discriminators in frames[0] */
};

/* ---- writing ----------------------------------------------------------- */

struct psym_index_writer;

struct psym_index_meta {
	const char *build_id; /* lowercase hex */
	const char *variant;  /* answer rules, e.g. "i3-0.1" */
	const char *source;   /* the file the answers came from (provenance) */
	uint32_t flags;	      /* PSYM_INDEX_* */
};

int psym_index_writer_new(const struct psym_index_meta *m, struct psym_index_writer **out,
			  struct psym_err *e);
void psym_index_writer_free(struct psym_index_writer *w);

/*
 * The answer from addr (relative to the layout) up to the next call's address
 * (increasing): n frames,
 * innermost first (n == 0: nothing known there). Strings are borrowed until
 * psym_index_writer_finish. Equal neighbouring answers are merged.
 */
int psym_index_writer_add(struct psym_index_writer *w, uint64_t addr, const struct psym_frame *f,
			  size_t n, struct psym_err *e);

/*
 * Close the last run at end and write the file to path: a temporary file
 * in its directory, fsync'd, then renamed over path. *size gets the bytes.
 */
int psym_index_writer_finish(struct psym_index_writer *w, uint64_t end, const char *path,
			     uint64_t *size, struct psym_err *e);

/* Runs and groups written so far (for tests and bench). */
void psym_index_writer_stats(const struct psym_index_writer *w, size_t *runs, size_t *groups);

/* ---- reading ----------------------------------------------------------- */

struct psym_index;

/*
 * Map and check an index file (a regular file): header, version, sizes,
 * the CRC table, the build ID (when build_id is not NULL it must match)
 * and the variant (when not NULL it must match). The problem is in e.
 */
int psym_index_open(const char *path, const char *build_id, const char *variant,
		    struct psym_index **out, struct psym_err *e);
/* The same over bytes in memory (borrowed; fuzzing). name is for messages. */
int psym_index_open_mem(const void *buf, size_t len, const char *name, const char *build_id,
			const char *variant, struct psym_index **out, struct psym_err *e);
/* The same over a malloc'd buffer that the index takes (also on failure). */
int psym_index_open_owned(void *buf, size_t len, const char *name, const char *build_id,
			  const char *variant, struct psym_index **out, struct psym_err *e);
/*
 * The same over a read-only mapping of len bytes that the index takes
 * (munmapped at close, also on failure). name is for messages.
 */
int psym_index_open_map(const void *map, size_t len, const char *name, const char *build_id,
			const char *variant, struct psym_index **out, struct psym_err *e);
void psym_index_close(struct psym_index *x);

/*
 * Frames for vaddr (relative to the layout, as written), innermost first, into f[max] with *n set: 0 (*n may be
 * 0: nothing known there), or PSYM_EBADINPUT when the part of the file
 * this address needs is damaged (e says which); the caller then stops using
 * the index. With discriminators false, frames[0] gets none. Strings live
 * as long as the index.
 */
int psym_index_lookup(struct psym_index *x, uint64_t vaddr, bool discriminators,
		      struct psym_frame *f, size_t max, size_t *n, struct psym_err *e);

/*
 * Check all of it now: every chunk's checksum and every function record,
 * string and file it names. 0, or the first problem in e. *groups gets
 * the number of records.
 */
int psym_index_verify(struct psym_index *x, size_t *groups, struct psym_err *e);

const char *psym_index_path(const struct psym_index *x);
const char *psym_index_build_id(const struct psym_index *x);
/* The file the answers were made from when it was built. */
const char *psym_index_source(const struct psym_index *x);
uint32_t psym_index_flags(const struct psym_index *x);
uint64_t psym_index_size(const struct psym_index *x);

#endif
