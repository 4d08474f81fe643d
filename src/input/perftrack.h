/* SPDX-License-Identifier: MIT */
/*
 * The processes of a perf.data recording as its records tell them: each
 * pid's executable mappings from MMAP/MMAP2 (a new one cuts what it
 * overlaps, as the kernel does), inherited through FORK, dropped by the
 * first MMAP after a COMM exec (perf keeps them until then too) and by
 * an EXIT of the process; each thread's comm as of the
 * record being read; build IDs from MMAP2's inline one or the file's
 * build-ID table (by pid and name, then by name). Shared by the profile
 * pass and the stack-copy pass of in_perf.c.
 */
#ifndef PSYM_PERFTRACK_H
#define PSYM_PERFTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata.h"
#include "procmaps.h"

struct psym_perftrack;

int psym_perftrack_new(const struct psym_perfdata *d, struct psym_perftrack **out,
		       struct psym_err *e);
void psym_perftrack_free(struct psym_perftrack *t);

/* The records that change processes: 0, or PSYM_ENOMEM / PSYM_ELIMIT with e set. */
int psym_perftrack_mmap(struct psym_perftrack *t, const struct psym_perf_mmap *m,
			struct psym_err *e);
int psym_perftrack_comm(struct psym_perftrack *t, const struct psym_perf_comm *c,
			struct psym_err *e);
int psym_perftrack_task(struct psym_perftrack *t, const struct psym_perf_task *k,
			struct psym_err *e);

/* tid's comm now (else its process's, else ""). */
const char *psym_perftrack_comm_of(const struct psym_perftrack *t, uint32_t pid, uint32_t tid);

/* What changed about pid since the caller last took its maps. */
enum psym_perftrack_change {
	PSYM_PERFTRACK_SAME = 0,
	PSYM_PERFTRACK_MAPS,	/* mappings added */
	PSYM_PERFTRACK_NEW,	/* a new process image (exec, fork, a reused pid) */
	PSYM_PERFTRACK_UNKNOWN, /* no record of pid */
};
enum psym_perftrack_change psym_perftrack_changed(const struct psym_perftrack *t, uint32_t pid);

/*
 * pid's executable mappings (valid until the next call), marked taken;
 * *exe its executable's path (the first file mapped after it began), or
 * NULL. 0, or PSYM_ENOMEM with e set.
 */
int psym_perftrack_take(struct psym_perftrack *t, uint32_t pid, const struct psym_procmap **maps,
			size_t *n, const char **exe, struct psym_err *e);

/* The kernel's build ID (hex) from the build-ID table, or NULL. */
const char *psym_perftrack_kernel_build_id(const struct psym_perftrack *t);

#endif
