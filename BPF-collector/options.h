/* SPDX-License-Identifier: MIT */
/*
 * psym-collect's command line: its options (struct opts), the help text,
 * and their checks. A usage error is one line on stderr and exit 2; --help
 * and --version print and exit 0.
 */
#ifndef PSYM_COLLECT_OPTIONS_H
#define PSYM_COLLECT_OPTIONS_H

#include <stdbool.h>
#include <linux/types.h> /* profile.h's __u32 */
#include <stdint.h>

#include "profile.h"
#include "psym-int.h"

#define MAX_EXCLUDES 64 /* --exclude-path */

struct opts {
	int pids[PSYM_MAX_PIDS];
	int npids;
	bool no_inherit; /* --no-inherit: -p's processes only, not their children */
	long hz;
	double duration; /* 0 = until a signal */
	const char *out;
	long stack_entries, count_entries; /* 0: sized from -F and the CPUs */
	bool no_kernel, no_user, no_side_files, verbose;
	bool kallsyms_full;		   /* --kallsyms full: not the subset */
	long stack_copy;		   /* --stack-copy BYTES; 0: frame pointers */
	bool archive;			   /* --archive: OUT's binaries in OUT.tar.zst */
	bool otlp;			   /* --format otlp: OpenTelemetry profiles */
	bool no_track;			   /* --no-mmap-track: /proc/PID/maps only */
	long max_procs;			   /* --max-procs: processes whose mappings are tracked */
	long mmap_pages;		   /* --mmap-pages: ring pages per CPU for mmap records */
	const char *exclude[MAX_EXCLUDES]; /* --exclude-path */
	int nexclude;
	char **cmd;	   /* -- COMMAND [ARGS]: run it and profile its process tree */
	int64_t rotate_ns; /* --rotate: one profile per window of this length; 0: one */
	long keep;	   /* --keep: windows kept; 0: all */
	uint64_t max_disk; /* --max-disk: bytes the windows may take; 0: any */
};

/* argv into o (its strings borrowed from argv); exits on a usage error, --help, --version. */
void collect_options(int argc, char **argv, struct opts *o);

#endif
