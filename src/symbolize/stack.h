/* SPDX-License-Identifier: MIT */
/*
 * psym stack: the backtraces of every thread of ELF core dumps (core.h).
 * Each thread is unwound offline (unwind.h: CFI from .eh_frame and
 * .debug_frame, the frame-pointer fallback, signal frames, the step
 * budgets) over the core's memory, with the files the core had mapped
 * located as for profiles (locate.h: the core's paths, --binary-path,
 * --sysroot, debug dirs, build-ID trees, --debug-pkg, debuginfod) by the
 * build IDs read from the core; the vDSO is the core's own image
 * (AT_SYSINFO_EHDR, read from its memory), located by its build ID as a
 * profile's [vdso] is, for its CFI and its names. The threads become one pprof profile, one
 * sample per thread (labels core, pid, tid, signal, crashed, comm), which
 * the symbolize driver (symbolize.h) gives functions, files, lines and
 * inline frames; the text and JSON outputs are read from it.
 *
 * Addresses are those a profile records: the innermost frame's pc, every
 * caller's return address - 1, a signal frame's pc as it is.
 */
#ifndef PSYM_STACK_H
#define PSYM_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"
#include "pprof.h"
#include "symbolize.h"
#include "unwind.h"

struct psym_stack_opts {
	const struct psym_symbolize_opts *so; /* discovery, limits, inlines, explain */
	struct psym_core_limits core;
	size_t max_frames;  /* per thread; 0: 256 */
	size_t max_stack;   /* bytes of a thread's stack read at most; 0: 8 MiB */
	unsigned signature; /* --group-by signature: frames in it (0: no signature label) */
};

struct psym_stack_thread {
	uint32_t tid;
	int signal;
	bool crashed;	/* the thread the signal was for (the core's first) */
	size_t sample;	/* its sample: the profile's sample[sample] */
	size_t nframes; /* addresses unwound */
	enum psym_unwind_stop stop;
	char why[420]; /* where and why unwinding stopped (not END) */
	/* Frames from the address guessed on (the sample's location_id[guessed..];
	 * 0: none) were found through the frame pointer where a frame had no CFI,
	 * and guess_why says which frame and why it had none. */
	size_t guessed;
	char guess_why[420];
};

struct psym_stack_core {
	char *name;
	char *error; /* the core could not be read: why (the rest is empty) */
	uint32_t pid;
	char comm[17];
	char *executable; /* the mapped file holding AT_ENTRY, or NULL */
	int signal;
	uint64_t fault_addr;
	bool has_fault_addr;
	uint16_t machine;
	char partial[256]; /* the core was read in part: where it stopped */
	char libs[320];	   /* no NT_FILE: where the shared libraries came from ("" with NT_FILE) */
	struct psym_stack_thread *threads; /* the crashed one first */
	size_t nthreads;
};

struct psym_stack_result {
	struct psym_profile *profile; /* symbolized; NULL when no core was read */
	/* Per location of the profile (by position): its address in its file as
	 * psym addr -e takes it (ELF virtual address), UINT64_MAX: not known. */
	uint64_t *module_addr;
	struct psym_stack_core *cores;
	size_t ncores;
	size_t failed;	/* cores not read */
	size_t partial; /* cores read in part, or with a thread that stopped early */
	struct psym_symbolize_result sym;
};

/*
 * Read, unwind and symbolize the cores at paths. 0 with r filled (a core
 * that could not be read is reported in its entry, not as an error), or a
 * negative code (out of memory, a cap of the profile) with e set.
 */
int psym_stack_run(const char *const *paths, size_t n, const struct psym_stack_opts *o,
		   const struct psym_limits *lim, struct psym_stack_result *r, struct psym_err *e);
void psym_stack_result_free(struct psym_stack_result *r);

/* One block per thread, the crashed one first, one frame per line (as eu-stack -i). */
void psym_stack_print_text(const struct psym_stack_result *r, bool explain, FILE *out);
/* One JSON object per core, one per line. */
void psym_stack_print_json(const struct psym_stack_result *r, FILE *out);

#endif
