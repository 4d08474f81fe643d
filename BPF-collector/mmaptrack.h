/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: the mappings of processes as they are created, so that a
 * process that exits before a drain keeps its mappings (issue: short-lived
 * processes were left as bare addresses).
 *
 * The kernel's own mmap path reports them: one dummy software perf event
 * per CPU with mmap2, comm_exec, task and build_id set delivers, through a
 * ring buffer per CPU, every executable mapping as it is made (address,
 * length, offset, path, and the file's build ID read by the kernel at that
 * moment, while the file is surely reachable), each exec (which starts a
 * process's mappings afresh), each fork (the child inherits its parent's
 * mappings) and each exit. This is what `perf record` uses; it needs no
 * BPF program and no kernel symbols, and works on every kernel since 5.12.
 * The images a process had before an exec are kept beside its new one,
 * each by the time of its exec (image.bpf.h), until their samples are in.
 *
 * State is small and bounded: per process only its executable mappings
 * (start, limit, offset, an interned path id and the build ID bytes), at
 * most MMAPTRACK_MAX_MAPS each; at most max_procs processes (an option);
 * paths interned once, at most max_paths. A process that exited is freed
 * after the drain that follows its exit (its samples are drained by then).
 */
#ifndef PSYM_COLLECT_MMAPTRACK_H
#define PSYM_COLLECT_MMAPTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psym-int.h"

#define MMAPTRACK_MAX_MAPS 1024
#define MMAPTRACK_MAX_IMAGES 8 /* images kept of one pid before its last exec */

struct mmaptrack;

struct mmaptrack_opts {
	const bool *cpus; /* online CPUs, indexed by CPU number */
	int maxcpu;
	uint32_t ring_pages; /* data pages per CPU ring (a power of two) */
	uint32_t max_procs;  /* processes tracked at once */
	uint32_t max_paths;  /* distinct paths remembered */
};

struct mmaptrack_stats {
	uint64_t records, lost, execs, forks, exits, maps;
	uint64_t procs_untracked; /* not tracked: max_procs reached */
	uint64_t maps_dropped;	  /* over MMAPTRACK_MAX_MAPS, or max_paths reached */
	uint64_t freed;
	/* Images left by an exec: freed once their samples were in; dropped over the cap. */
	uint64_t images_freed, images_dropped;
	uint64_t
		seeded; /* processes from before the run read from /proc (at the start, or when they forked) */
	uint64_t running; /* of those, the ones read at the start (mmaptrack_seed_running) */
	/*
	 * Build IDs the kernel did not give, read at mmap time: files read (of
	 * them, files that have none: built without one), from cache, unreadable.
	 */
	uint64_t bids_read, bids_none, bids_cached, bids_failed;
	uint32_t procs_max; /* most processes tracked at once */
};

/* Open and enable one event per online CPU. */
int mmaptrack_open(const struct mmaptrack_opts *o, struct mmaptrack **out, struct psym_err *e);
/*
 * A tracker that opens no event and reads the nrings rings at bases, laid
 * out as the kernel lays a perf ring (a struct perf_event_mmap_page, the
 * records data_size bytes on at its data_offset): how the record handling
 * is tested without root (tests/unit/mmaptrack-test). The rings stay the
 * caller's; o->cpus and o->ring_pages are not read.
 */
int mmaptrack_open_rings(const struct mmaptrack_opts *o, void *const *bases, int nrings,
			 size_t data_size, struct mmaptrack **out, struct psym_err *e);
/*
 * The processes running now, each one's maps read from /proc (with build
 * IDs, once per file), but self's and those seen from their exec or fork
 * already: called once the tracker is open, so that every later change
 * is recorded, and before the first drain, so that a process from before
 * the run that exits before any drain (an exec just before the start)
 * keeps its mappings. Kernel threads take no entry. Returns how many
 * were read.
 */
int mmaptrack_seed_running(struct mmaptrack *t, int self);
/* Take every record the rings hold. drain: the drain count (exit times are kept in it). */
void mmaptrack_poll(struct mmaptrack *t, uint64_t drain);
/*
 * The mappings of pid's image (a sample's, image.bpf.h: the time of the
 * exec it began with, 0: none seen) as recorded (malloc'd into *maps,
 * build IDs filled where the kernel gave them), and its executable's
 * path (exe, or "" unknown). An image is the one of the latest exec
 * recorded at or before that time; those left by an exec are kept until
 * the drain after it. *complete: seen from its exec or fork in this run,
 * so nothing is missing. PSYM_NOENT when that image is not tracked.
 */
int mmaptrack_maps(struct mmaptrack *t, int pid, uint64_t image, struct psym_procmap **maps,
		   size_t *n, bool *complete, char *exe, size_t exesz);
/*
 * Have the mappings of pid's image changed since generation *gen (0:
 * never seen)? *gen becomes the current one; *complete as for
 * mmaptrack_maps (false when the image is not tracked).
 */
bool mmaptrack_changed(struct mmaptrack *t, int pid, uint64_t image, uint32_t *gen, bool *complete);
/*
 * Does pid's image (as mmaptrack_maps finds it) hold addr in one of its
 * recorded mappings? False when that image is not kept.
 */
bool mmaptrack_holds(struct mmaptrack *t, int pid, uint64_t image, uint64_t addr);
/*
 * The image of pid recorded right after image (the one mmaptrack_maps
 * finds for it), when its mappings hold addr: *next its exec's time, as a
 * sample's image, and *complete whether image itself was seen whole.
 * PSYM_NOENT when image is the current one or not kept, or the next
 * image does not hold addr.
 */
int mmaptrack_next_image(struct mmaptrack *t, int pid, uint64_t image, uint64_t addr,
			 uint64_t *next, bool *complete);
/*
 * Free the processes that exited before drain - 1, and the images left
 * by an exec before it; fn is told each pid freed (so the caller can
 * forget it too).
 */
void mmaptrack_sweep(struct mmaptrack *t, uint64_t drain, void (*fn)(void *ud, int pid), void *ud);
/*
 * Samples carry their image from time on (CLOCK_MONOTONIC, when the exec
 * program was attached): an exec recorded before it starts no image of
 * its own (its samples have none either). Until called, none does.
 */
void mmaptrack_images_since(struct mmaptrack *t, uint64_t time);
void mmaptrack_stats(const struct mmaptrack *t, struct mmaptrack_stats *st);
/* Disable, unmap and free; accepts NULL. */
void mmaptrack_close(struct mmaptrack *t);

#endif
