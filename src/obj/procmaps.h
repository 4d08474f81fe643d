/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/maps: parse the executable mappings of a process (bounded; the
 * text may come from another machine or change while it is read).
 */
#ifndef PSYM_PROCMAPS_H
#define PSYM_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid.h"
#include "error.h"

struct psym_procmap {
	uint64_t start, limit, offset;
	uint64_t dev, inode; /* as the maps line gives them (major << 32 | minor) */
	char path[512];	     /* "" for anonymous memory */
	char build_id[PSYM_BUILD_ID_HEX_MAX]; /* filled by psym_procmaps_build_ids */
	bool exec;
};

/* At most this many mappings are kept per process. */
#define PSYM_PROCMAPS_MAX 4096

/*
 * Parse maps text (NUL-terminated or len bytes); keeps only executable
 * mappings. *out is malloc'd (caller frees), *n its length. Malformed lines
 * are skipped. Returns 0 or a negative code.
 */
int psym_procmaps_parse(const char *text, size_t len, struct psym_procmap **out, size_t *n,
			struct psym_err *e);

/*
 * Read and parse /proc/PID/maps. PSYM_NOENT (with a message in e) when the
 * process is gone.
 */
int psym_procmaps_read(int pid, struct psym_procmap **out, size_t *n, struct psym_err *e);

/*
 * Build ID of an open ELF file read with pread only (header, program
 * headers, PT_NOTE segments of at most 64 KiB each): no mapping of the
 * file, a few small reads, for the collector that reads the files of live
 * processes. The build ID a mapping records: the GNU one, else Go's in the
 * "go:" form (buildid.h). 0, PSYM_NOENT (no build ID note, not an ELF of
 * this machine's byte order) or PSYM_EIO.
 */
int psym_procmaps_fd_build_id(int fd, char out[PSYM_BUILD_ID_HEX_MAX]);

/*
 * Fill build IDs of all file-backed mappings (tools that want them all; the
 * collector reads only the mappings its samples need), reading the ELF through
 * /proc/PID/map_files/START-END (works for deleted files and containers),
 * else /proc/PID/root/PATH. GNU build IDs, else Go's ("go:" form).
 */
void psym_procmaps_build_ids(int pid, struct psym_procmap *maps, size_t n);

/*
 * The inode of pid's mount namespace (/proc/PID/ns/mnt) when it is not
 * the caller's own (a container: its paths are not the host's); 0 when it
 * is the same, or either cannot be read. Two stat calls.
 */
uint64_t psym_procmaps_mntns_other(int pid);

#endif
