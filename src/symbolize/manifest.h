/* SPDX-License-Identifier: MIT */
/*
 * Batch job files that an outside engine (Dask, a Slurm array, a Kubernetes
 * indexed job) hands to psym and takes back:
 *
 * - a manifest: one "INPUT<TAB>OUTPUT" pair a line, read from a file or
 *   standard input; empty lines and lines starting with '#' are skipped;
 * - results: one JSON object a line per input (see psym_results_line), each
 *   line written with a single write() to a file opened with O_APPEND, so
 *   several psym processes on one host can share the file.
 *
 * The manifest is untrusted input: every line is checked and the first bad
 * one is reported as "NAME:LINE: problem".
 */
#ifndef PSYM_MANIFEST_H
#define PSYM_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Longest manifest line (two paths and a tab). */
#define PSYM_MANIFEST_MAX_LINE 8192

struct psym_manifest_entry {
	char *in, *out; /* owned by the manifest */
	size_t line;	/* 1-based line number in the manifest */
};

struct psym_manifest {
	struct psym_manifest_entry *v;
	size_t n;
	char *name; /* for messages ("<stdin>" for standard input) */
};

/*
 * Parse len bytes of manifest text (name is used in messages). At most
 * max_entries pairs. Refused, with "NAME:LINE: ..." in e (PSYM_EBADINPUT):
 * a line without exactly one tab, an empty side, a NUL or other control
 * byte, a line longer than PSYM_MANIFEST_MAX_LINE, "-" on either side, an
 * output that is also its line's input, two lines with one output, an
 * output that another line reads. On error m is left empty.
 */
int psym_manifest_parse(const char *buf, size_t len, const char *name, size_t max_entries,
			struct psym_manifest *m, struct psym_err *e);

/*
 * Read and parse path ("-" = standard input), at most max_bytes bytes;
 * then the parser's path checks again by identity, as the files are
 * now: an output names the file its directory (dev, inode) has under its
 * last component, an input the file its resolved path names, so that
 * "out.pb.gz" and "link/out.pb.gz" are one output. Refused the same way.
 */
int psym_manifest_read(const char *path, size_t max_bytes, struct psym_manifest *m,
		       struct psym_err *e);

void psym_manifest_free(struct psym_manifest *m);

/* ---- results -------------------------------------------------------------- */

enum psym_result_status {
	PSYM_RESULT_OK,
	PSYM_RESULT_SKIPPED, /* --resume: the output was already complete */
	PSYM_RESULT_FAILED,
};

struct psym_result_line {
	const char *input, *output;
	size_t line; /* manifest line, 0 when there is no manifest */
	enum psym_result_status status;
	const char *error; /* NULL unless failed */
	const char *note;  /* NULL, or e.g. why an existing output was redone */
	bool written;	   /* an output was renamed into place by this run */
	size_t locations, resolved, unresolved;
	size_t unverified;    /* mappings matched by path alone (no build ID to check) */
	size_t indexes_built; /* symbol indexes built for this input's binaries */
	double seconds;
};

/*
 * Open path for appending results lines ("-" = standard output). A last
 * line left without its newline (a killed run) is ended first, so the
 * lines appended now are whole lines. Returns an fd >= 0 or a negative
 * code with e set.
 */
int psym_results_open(const char *path, struct psym_err *e);

/*
 * Append one JSON line:
 * {"input":..,"output":..,"line":N,"status":"ok|skipped|failed",
 *  "error":null|"..","note":null|"..","written":true|false,
 *  "locations":N,"resolved":N,"unresolved":N,"unverified":N,
 *  "indexes_built":N,
 *  "seconds":S,"host":"..","pid":N}
 * Bytes of paths that are not UTF-8 are written as \u00XX escapes.
 * One write() call per line, so O_APPEND keeps lines of concurrent writers
 * whole (on a local filesystem; NFS does not honour O_APPEND atomically).
 */
int psym_results_write(int fd, const struct psym_result_line *r, struct psym_err *e);

#endif
