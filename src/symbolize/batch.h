/* SPDX-License-Identifier: MIT */
/*
 * Symbolizing profile files: one file (read, validate, symbolize, write
 * atomically), and a batch of them on N worker threads sharing one cache
 * of binaries, so each binary and debug file is opened and indexed once.
 * A bad input is reported and skipped; the others are written.
 */
#ifndef PSYM_BATCH_H
#define PSYM_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "fileio.h"
#include "manifest.h"
#include "pprof.h"
#include "symbolize.h"

/*
 * in -> out. *active (may be NULL) holds the open output while it is being
 * written, for a signal handler to remove its temporary file.
 */
int psym_symbolize_file(const char *in, const char *out, const struct psym_limits *lim,
			const struct psym_symbolize_opts *o, bool gzip,
			struct psym_symbolize_result *r, struct psym_out *volatile *active,
			struct psym_err *e);

struct psym_batch_opts {
	const char *const *inputs; /* profile files and directories of them */
	size_t n_inputs;
	const char *outdir; /* created when missing */
	/*
	 * Instead of inputs and outdir: explicit INPUT -> OUTPUT pairs (their
	 * directories must exist).
	 */
	const struct psym_manifest *manifest;
	/*
	 * Skip an input whose output is complete: a regular file that reads
	 * and validates as a profile. psym only ever creates an output by
	 * renaming a finished temporary file, so an output that does not parse
	 * was cut short by something else and is done again (atomically).
	 * Temporary files of killed psyms next to each output are removed.
	 */
	bool resume;
	/* Append a JSON line per input here (psym_results_write); NULL: none. */
	const char *results;
	unsigned jobs; /* worker threads (0: number of CPUs) */
	bool gzip;
	bool strict; /* unresolved file-backed locations fail a file */
	const struct psym_limits *lim;
	const struct psym_symbolize_opts *so; /* per-file summaries off unless verbose */
	/*
	 * Each input's outcome as it finishes, for the caller to word (the
	 * data of its results line: a failure's error names the input). Called
	 * on a worker thread, one call at a time. NULL: none.
	 */
	void (*job_fn)(void *ud, const struct psym_result_line *r);
	void *job_ud;
};

struct psym_batch_result {
	size_t files, written, failed;
	size_t skipped;		/* --resume: outputs already complete */
	size_t indexes_built;	/* symbol indexes built by this run */
	size_t kallsyms_parsed; /* kernel symbol tables parsed: one per boot and copy */
	int worst;		/* the error code of the worst failure, or 0 */
	struct psym_symbolize_result total;
};

int psym_batch_symbolize(const struct psym_batch_opts *o, struct psym_batch_result *r,
			 struct psym_err *e);

#endif
