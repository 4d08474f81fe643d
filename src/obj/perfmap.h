/* SPDX-License-Identifier: MIT */
/*
 * JIT symbols: perf maps (/tmp/perf-PID.map: "START SIZE name", hex, the
 * name is the rest of the line; Linux tools/perf/Documentation/
 * jit-interface.txt) and jitdump files (jit-PID.dump: JIT_CODE_LOAD and
 * JIT_CODE_MOVE records).
 *
 * Files are read in one streaming pass with a fixed line buffer, so a huge
 * or sparse file costs time, not memory; malformed lines are skipped and
 * counted; entries and name bytes are capped. Later entries win over
 * earlier overlapping ones (code is recompiled and re-emitted).
 */
#ifndef PSYM_PERFMAP_H
#define PSYM_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"

struct psym_perfmap;

struct psym_perfmap_limits {
	size_t max_entries;    /* default 16 million */
	size_t max_name_bytes; /* default 1 GiB */
	size_t max_file_bytes; /* size of one perf map or jitdump file, default 1 GiB */
};

int psym_perfmap_new(const struct psym_perfmap_limits *lim, struct psym_perfmap **out,
		     struct psym_err *e);
void psym_perfmap_free(struct psym_perfmap *m);

/*
 * Add a perf map file (regular files only) / one held in memory. A file
 * larger than max_file_bytes is refused (PSYM_ELIMIT) before it is read.
 */
int psym_perfmap_add_file(struct psym_perfmap *m, const char *path, struct psym_err *e);
int psym_perfmap_add_text(struct psym_perfmap *m, const char *text, size_t len, const char *name,
			  struct psym_err *e);

/* Add a jitdump file (at most max_file_bytes) / buffer (JIT_CODE_LOAD, JIT_CODE_MOVE). */
int psym_perfmap_add_jitdump(struct psym_perfmap *m, const char *path, struct psym_err *e);
int psym_perfmap_add_jitdump_mem(struct psym_perfmap *m, const unsigned char *buf, size_t len,
				 const char *name, struct psym_err *e);

/*
 * A jitdump the recording mapped (perf.data's MMAP2 of jit-PID.dump, the
 * file a JIT writes and maps so that perf sees it), carried in the
 * profile as one comment: "perf-jitdump:PID MAJ:MIN:INO PATH" (the
 * recorded file's device and inode, "-" when the record has a build ID
 * instead). The file at PATH is used only when it is that file.
 */
#define PSYM_JITDUMP_COMMENT "perf-jitdump:"

struct psym_jitdump_rec {
	int pid; /* the process that mapped it, as the recording names it */
	bool has_inode;
	uint32_t maj, min;
	uint64_t ino;
	const char *path; /* borrowed from the comment */
};

/* The process of a jitdump named jit-PID.dump (any directory), or 0. */
int psym_jitdump_name_pid(const char *path);
/* The comment for r into buf; false when it does not fit. */
bool psym_jitdump_comment(const struct psym_jitdump_rec *r, char *buf, size_t n);
/* Parse such a comment (path borrowed from s); false: not one, or its path is not jit-PID.dump. */
bool psym_jitdump_comment_parse(const char *s, struct psym_jitdump_rec *r);
/*
 * Is the file at r->path the jitdump the recording mapped: a regular file
 * on the recorded device and inode (when recorded), with a jitdump header
 * naming the pid its name says (the JIT's own: r->pid is the recording's,
 * another one in a container)? 0, or PSYM_NOENT with why (a sentence).
 */
int psym_jitdump_check(const struct psym_jitdump_rec *r, char *why, size_t whysz);

/*
 * Name of the code at addr (the latest entry covering it). Returns 0 with
 * frame->name set (borrowed, lives as long as m), or PSYM_NOENT.
 */
int psym_perfmap_lookup(struct psym_perfmap *m, uint64_t addr, struct psym_frame *frame);

size_t psym_perfmap_malformed(const struct psym_perfmap *m);

#endif
