/* SPDX-License-Identifier: MIT */
/*
 * psym-collect --rotate: the names of the windows' files, made from a
 * strftime pattern in UTC (-o 'DIR/cpu-%Y%m%dT%H%M%SZ.pb.gz'), and the
 * removal of the oldest ones (--keep, --max-disk). Only files whose name
 * the pattern could have made are ever removed, with their side
 * directory (NAME.d/), and the shared copies no window links any more.
 */
#ifndef PSYM_COLLECT_ROTATE_H
#define PSYM_COLLECT_ROTATE_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "psym-int.h"

/* A usable pattern: no '%' in its directory, a conversion in its file name. */
int rotate_check(const char *pattern, struct psym_err *e);
/*
 * The name of the window that started at t; seq > 0 (a second window in
 * the same second) adds "-SEQ" after the last conversion. 0, or PSYM_ELIMIT
 * when it does not fit n.
 */
int rotate_name(const char *pattern, time_t t, int seq, char *out, size_t n, struct psym_err *e);
/*
 * Remove the oldest window files (by modification time) until at most
 * keep remain (0: any number) and they and their side directories take
 * at most max_bytes (0: any size; a file linked into several side
 * directories, as the shared copies are, counts once); newest (the file
 * just written) stays. When windows were removed, so are the shared
 * copies (PSYM_SIDE_SHARED) that no side directory links any more.
 * Each removal is said on log. Returns how many windows were removed.
 */
int rotate_prune(const char *pattern, const char *newest, long keep, uint64_t max_bytes, FILE *log);

#endif
