/* SPDX-License-Identifier: MIT */
/*
 * Profile archives: every binary and debug file a profile's mappings name,
 * by build ID, packed from the profiled host's file system into one
 * .tar.zst, so that the profile can be symbolized where the binaries are
 * not (perf archive's job, for pprof profiles).
 *
 * Layout, readable by `psym symbolize --debug-pkg ARCHIVE` and, after a
 * plain `tar x -C DIR`, by `--debug-dir DIR` and `--binary-path DIR`:
 *   .build-id/NN/REST.debug  a separate debug file (first, so that a
 *                            reader linking binaries as REST.debug keeps it)
 *   .build-id/NN/REST        the binary itself
 *   BUILDID/BASENAME         a hard link to the binary (pprof's
 *                            --binary-path layout; readers of debug
 *                            packages ignore links)
 *
 * Where a file is looked for, each candidate's build ID checked (a file
 * of another build is never packed): /proc/PID/map_files of a sampled
 * process that is still running (the very file it mapped, even deleted or
 * in another mount namespace), /proc/PID/root + path (another mount
 * namespace), the path on the host, then DIR/.build-id/NN/REST in each
 * debug dir. Debug files: DIR/.build-id/NN/REST.debug in each debug dir
 * and under /proc/PID/root/usr/lib/debug, and their dwz alternate files.
 *
 * The tar format is written here (ustar, with pax records for long names
 * and large sizes); the output goes to a temporary file renamed into place.
 */
#ifndef PSYM_ARCHIVE_H
#define PSYM_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "pprof.h"

#define PSYM_ARCHIVE_DEFAULT_MAX ((uint64_t)4 << 30)

/* What happened to one mapping or file while packing. */
enum psym_archive_event_kind {
	PSYM_ARCHIVE_PACKED,	  /* member, src, size: a file packed */
	PSYM_ARCHIVE_NO_BUILD_ID, /* mapping_id, path: not packable */
	PSYM_ARCHIVE_EXCLUDED,	  /* mapping_id, path: under an exclude prefix */
	PSYM_ARCHIVE_MISSING,	  /* mapping_id, path, build_id: no such file on this host */
};

struct psym_archive_event {
	enum psym_archive_event_kind kind;
	uint64_t mapping_id;
	const char *path;     /* the mapping's file name */
	const char *build_id; /* MISSING */
	const char *member;   /* PACKED: its name in the archive */
	const char *src;      /* PACKED: the file it was read from */
	uint64_t size;	      /* PACKED: bytes */
};

/*
 * ev in one line (no newline): psym's words for it, for every command that
 * packs (psym archive, psym-collect --archive).
 */
void psym_archive_event_text(const struct psym_archive_event *ev, char *buf, size_t bufsz);

/*
 * The one printer of those events, for every command that packs (psym
 * archive, psym-collect --archive): ev worded as above on one "psym: "
 * line of out; a mapping not found always, the rest only when verbose.
 * Give it as psym_archive_opts.event with event_ud a struct
 * psym_archive_printer (borrowed for the write).
 */
struct psym_archive_printer {
	FILE *out;
	bool verbose;
};
void psym_archive_print_event(void *ud, const struct psym_archive_event *ev);

struct psym_archive_opts {
	uint64_t max_bytes;	    /* cap on the file bytes packed; 0 = the default */
	const char *const *exclude; /* mapping paths under these prefixes are skipped */
	size_t n_exclude;
	const char *const *debug_dirs; /* .build-id trees; NULL = /usr/lib/debug */
	size_t n_debug_dirs;
	int level; /* zstd level; 0 = 3 */
	/*
	 * Each file packed and each mapping not packed, as data, for the
	 * caller to word (psym_archive_event_text) and print. NULL: none.
	 */
	void (*event)(void *ud, const struct psym_archive_event *ev);
	void *event_ud;
};

struct psym_archive_stats {
	size_t mappings;    /* file mappings with a build ID */
	size_t binaries;    /* distinct binaries packed */
	size_t debug_files; /* separate debug (and dwz) files packed */
	size_t missing;	    /* build IDs whose binary was not found */
	size_t excluded;    /* mappings skipped by an exclude prefix */
	size_t no_build_id; /* file mappings without a build ID (not packable) */
	uint64_t bytes_in;  /* file bytes packed */
	uint64_t bytes_out; /* size of the archive */
};

/*
 * The archive name for a profile: PROFILE without .pb.gz / .pb.zst / .pb,
 * plus .tar.zst. Returns a malloc'd string or NULL.
 */
char *psym_archive_default_name(const char *profile);

/*
 * Write the archive of p's mappings to out_path. PSYM_ELIMIT (naming the
 * cap and the file) when the files exceed o->max_bytes; nothing is left
 * at out_path on failure. st may be NULL. Builds p's id indexes.
 */
int psym_archive_write(struct psym_profile *p, const char *out_path,
		       const struct psym_archive_opts *o, struct psym_archive_stats *st,
		       struct psym_err *e);

#endif
