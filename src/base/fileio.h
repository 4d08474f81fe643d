/* SPDX-License-Identifier: MIT */
/*
 * Safe file input and atomic file output.
 *
 * Input: only regular files are opened (a FIFO, device or directory named by
 * an untrusted profile must not hang or crash psym), with a size cap.
 * Output: written to a temporary file in the destination directory, flushed,
 * fsync'd and renamed over the destination, so a crash or a full disk never
 * leaves a half-written output behind; devices, FIFOs and terminals are
 * written directly (see psym_out_open).
 */
#ifndef PSYM_FILEIO_H
#define PSYM_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/*
 * Open path read-only if it is a regular file. Never blocks on a FIFO.
 * Returns an fd >= 0, or a negative code (PSYM_ENOTREG, PSYM_EIO) with a
 * message naming the file in e.
 */
int psym_open_regular(const char *path, struct psym_err *e);

/*
 * An input the user names (a profile): a regular file as psym_open_regular
 * opens it, or a named pipe or a process substitution's pipe (<(...)),
 * opened blocking as cat(1) would. Anything else is refused.
 */
int psym_open_input(const char *path, struct psym_err *e);

/*
 * A new temporary file, already unlinked (O_TMPFILE, else mkstemp then
 * unlink), read-write, in $TMPDIR or /tmp: its space is freed when the fd
 * is closed, even if psym is killed. An fd, or a negative code with e
 * naming the directory; what says what it is for.
 */
int psym_anon_tmpfile(const char *what, struct psym_err *e);

/*
 * A private read-only copy of a regular file whose size is within
 * [min, max], in anonymous memory (populated at once from 1 MiB), never a
 * mapping of the file: one would die of SIGBUS, or change under its
 * checks, when the file is truncated or rewritten in place while in use.
 * what names the kind of file in errors ("index", "GSYM file"):
 * PSYM_EBADINPUT "WHAT 'PATH': truncated header" below min, PSYM_ELIMIT
 * "WHAT 'PATH': larger than the cap of MAX" above max, PSYM_EBADINPUT
 * "WHAT 'PATH': changed while being read" when its size moves meanwhile.
 * The caller munmaps *map of *len bytes.
 */
int psym_map_regular(const char *path, const char *what, uint64_t min, uint64_t max,
		     const void **map, size_t *len, struct psym_err *e);

/*
 * Read a whole file ("-" is standard input) into a malloc'd buffer that the
 * caller frees. Fails with PSYM_ELIMIT if it is larger than max bytes.
 */
int psym_read_file(const char *path, size_t max, unsigned char **buf, size_t *len,
		   struct psym_err *e);

/*
 * psym_read_file naming in its error the option that raises max (raise,
 * e.g. "--max-input-size N"; NULL: none). A regular file larger than max is
 * refused from its size before a byte is read; a pipe is read up to max + 1
 * bytes, never into a buffer larger than that.
 */
int psym_read_file_cap(const char *path, size_t max, const char *raise, unsigned char **buf,
		       size_t *len, struct psym_err *e);

/* psym_read_file_cap for an input the user names: pipes too (psym_open_input). */
int psym_read_input_cap(const char *path, size_t max, const char *raise, unsigned char **buf,
			size_t *len, struct psym_err *e);

/*
 * Stream the lines of an open file (fd not closed) through fn, with a fixed
 * buffer: a line longer than max_line bytes is skipped and counted in
 * *skipped (so a huge or sparse file costs time, never memory). Lines are
 * passed without their '\n' and may contain NUL bytes (len is exact). fn
 * returns 0 to go on, else that value stops the read and is returned.
 * The file may hold at most max_bytes bytes: PSYM_ELIMIT with
 * the file, its size and raise (the option that raises the cap, may be
 * NULL) named in e. A regular file is refused from its size before any
 * line is read; a file whose size is not known (/proc) or that grows is
 * refused when the cap is passed (fn has seen the lines before that).
 */
int psym_read_lines_cap(int fd, const char *name, size_t max_line, uint64_t max_bytes,
			const char *raise, int (*fn)(void *ud, const char *line, size_t len),
			void *ud, size_t *skipped, struct psym_err *e);

/*
 * Parse hex digits at *p (at most 16, no prefix) up to end; advances *p.
 * False when there is no digit or the number does not fit 64 bits.
 */
bool psym_parse_hex(const char **p, const char *end, uint64_t *out);

/*
 * Remove the files in dir named PREFIX + PID + sep + ... whose process PID
 * no longer exists: temporaries of a writer killed before its rename. A
 * live PID's files stay (its writer may still be at work).
 */
void psym_remove_stale_tmps(const char *dir, const char *prefix, char sep);

/*
 * Whether process pid (of this host and PID namespace) is gone: no such
 * process, or a zombie that will never run again. False when it may live.
 */
bool psym_pid_gone(long pid);

/* Same file (device + inode)? false if either cannot be stat'ed. */

struct stat;

/*
 * Whether a file or directory that psym keeps state in across runs (the
 * symbol cache, the per-build-ID index) may be trusted, by the rule ssh
 * and git apply: owned by the effective user or by root, and writable by
 * neither group nor others. True when it may; else why not in why (e.g.
 * "owned by uid 1001", "writable by others").
 */
bool psym_stat_trusted(const struct stat *st, char *why, size_t whysz);

/*
 * Open the directory name (relative to atfd, or AT_FDCWD) for *at() calls
 * and check it with psym_stat_trusted. A symbolic link there is followed
 * only with follow (and then the directory it names is what is checked:
 * resolved once, never again by name); else it is refused. Returns an fd,
 * or -ENOENT when there is nothing there, or another negative errno with
 * why set (-EPERM: not trusted; -ELOOP: a symlink not followed).
 */
int psym_trusted_dir_open(int atfd, const char *name, bool follow, char *why, size_t whysz);

/*
 * This process's vDSO (the image every process on this kernel maps): its
 * bytes and length; 0, or PSYM_NOENT (no vDSO, or its mapping not found
 * in /proc/self/maps).
 */
int psym_own_vdso(const void **bytes, size_t *len);

#endif
