/* SPDX-License-Identifier: MIT */
/*
 * psym-collect --stack-copy: the user side of ustack.bpf.c. Loads that
 * program, drains its ring buffer into OUT.d/ustacks.gz (ustacks.h: the
 * registers, stack bytes and kernel stack of every sample, and each
 * process's mappings with build IDs) and into the provisional profile
 * (kernel frames + the user leaf, marked as needing unwinding).
 */
#ifndef PSYM_COLLECT_STACKCOPY_H
#define PSYM_COLLECT_STACKCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "psym-int.h"

struct bpf_program;
struct follow;
struct stackcopy;

struct stackcopy_opts {
	uint32_t bytes; /* stack bytes per sample (<= PSYM_USTACK_MAX) */
	const int *pids;
	int npids;
	bool no_kernel, verbose;
	long hz;
	int ncpus;
	const char *out; /* the profile: the side file goes to OUT.d/ */
	/*
	 * Called before each sample is written: give the maps of pid (with
	 * stackcopy_process) when it has none yet, when they changed or
	 * when the sample is of another image (image.bpf.h); time: the
	 * sample's (CLOCK_MONOTONIC, 0: none); leaf: the sampled user
	 * address (nleaf 0: none). 0 or an error.
	 */
	int (*need_maps)(void *ud, int pid, uint64_t image, uint64_t time, const uint64_t *leaf,
			 size_t nleaf);
	void *ud;
	/* Whose process trees alone are sampled (command.h); none: the pids. */
	const struct follow *follow;
};

/* *cp is the profile builder once sampling runs (read at each poll). */
int stackcopy_open(const struct stackcopy_opts *o, struct psym_collectprof **cp,
		   struct stackcopy **out, struct psym_err *e);
/*
 * pid's maps (build IDs filled), its executable (NULL or "": unknown) and
 * its mount namespace (0: the collector's), into the side file and the
 * provisional profile.
 */
int stackcopy_process(struct stackcopy *sc, int pid, const struct psym_procmap *maps, size_t n,
		      const char *exe, uint64_t mntns);
/*
 * --rotate: the window's side file finished (gzip closed, then renamed to
 * OUT.d/ustacks.gz: never seen half-written), and the next window's begun
 * for its profile out (OUT.d/ made when missing). Nothing is polled
 * between the two, so no sample falls between windows; each window's
 * processes are given again (stackcopy_process) before their first
 * sample in it. 0 or an error.
 */
int stackcopy_window_end(struct stackcopy *sc, struct psym_err *e);
int stackcopy_window_start(struct stackcopy *sc, const char *out, struct psym_err *e);
/* The program to attach to each CPU's perf event. */
struct bpf_program *stackcopy_prog(struct stackcopy *sc);
/* Its program's map of each process's image (image.bpf.h), -1: execs not followed. */
int stackcopy_images(const struct stackcopy *sc);
/* Move what the ring buffer holds into the files; 0 or a negative code. */
int stackcopy_poll(struct stackcopy *sc, int timeout_ms);
/*
 * Close the side file (an error when it could not be written), print one
 * summary line to log (samples, bytes, drops) unless NULL, free sc.
 */
int stackcopy_close(struct stackcopy *sc, FILE *log, struct psym_err *e);

#endif
