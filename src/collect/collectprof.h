/* SPDX-License-Identifier: MIT */
/*
 * The collector's profile builder: turns plain tuples (pid, tid, comm,
 * kernel stack, user stack, count) plus each process's mappings into an
 * unsymbolized pprof profile. No BPF here: unit tests drive it directly.
 *
 * Stacks are leaf first, as bpf_get_stackid returns them. Every frame but
 * the first of each part is a return address and is recorded as address - 1
 * (inside the call instruction), the rule written into the profile's
 * comment; the first user frame is the registers' IP even below kernel
 * frames (where the kernel was entered). Kernel frames come first (above
 * user frames). Locations are deduplicated per
 * (mapping, address), mappings per (start, limit, offset, path, build ID).
 */
#ifndef PSYM_COLLECTPROF_H
#define PSYM_COLLECTPROF_H

#include <stddef.h>
#include <stdint.h>

#include "pprof.h"
#include "procmaps.h"

struct psym_collectprof;

struct psym_collect_meta {
	int64_t period_ns; /* sampling period */
	int64_t time_ns;   /* start, ns since the epoch */
	int64_t duration_ns;
	const char *kernel_build_id;	     /* from /sys/kernel/notes, or NULL */
	uint64_t kernel_start, kernel_limit; /* [kernel.kallsyms] range, 0 = auto */
	const char *comment; /* one more comment (e.g. stacks need unwinding), or NULL */
	/* The sampler's user stack depth: a stack that deep may be cut; 0: none. */
	size_t stack_depth_max;
	size_t max_memory; /* cap on the profile's memory (psym_limits'), 0 = the arena's default */
	/*
	 * The sample types as {type, unit} string pairs, ntypes of them, for
	 * psym_collectprof_add_values (a perf.data of many events); NULL:
	 * samples/count and cpu/nanoseconds. period_type/unit (NULL: cpu,
	 * nanoseconds) and default_type (NULL: none) go with them.
	 */
	const char *const (*types)[2];
	size_t ntypes;
	const char *period_type, *period_unit, *default_type;
};

#define PSYM_COLLECT_COMMENT "psym-collect: caller frames are recorded as return address - 1"
/* How psym_collectprof_finish's comment naming mapping 1's process starts. */
#define PSYM_COLLECT_MAIN_COMMENT "psym-collect: mapping 1 is the executable of pid "

/*
 * Asked for the build ID of a file-backed mapping the first time a sample
 * needs it (once per process and mapping): fill m->build_id or leave it
 * empty. Lets the caller read only what samples need, through its cache.
 */
typedef void (*psym_collect_buildid_fn)(void *ud, int pid, struct psym_procmap *m);

int psym_collectprof_new(const struct psym_collect_meta *meta, struct psym_collectprof **out,
			 struct psym_err *e);
void psym_collectprof_free(struct psym_collectprof *c);

/* The kernel's range when it is known only after collection started. */
void psym_collectprof_set_kernel_range(struct psym_collectprof *c, uint64_t start, uint64_t limit);

/* Where build IDs come from when the maps given have none (default: none). */
void psym_collectprof_set_buildid_fn(struct psym_collectprof *c, psym_collect_buildid_fn fn,
				     void *ud);

/* One more Profile.comment line (the host identity, see hostid.h). */
int psym_collectprof_comment(struct psym_collectprof *c, const char *text);

/* Has pid's maps (psym_collectprof_process was called for it)? */
bool psym_collectprof_known(const struct psym_collectprof *c, int pid);

/*
 * Free pid's maps (it exited and its samples are in): a later sample of
 * that pid is of a new process (a reused pid), whose maps must be given
 * again. What was built from the old maps stays.
 */
void psym_collectprof_forget(struct psym_collectprof *c, int pid);

/*
 * A number the caller keeps with pid's record (known or forgotten), 0
 * meaning none: e.g. what it made of the process's maps, found again
 * with the record instead of through a table of its own. set_tag:
 * PSYM_NOENT when pid has no record; _tag: 0 then.
 */
int psym_collectprof_set_tag(struct psym_collectprof *c, int pid, uint32_t tag);
uint32_t psym_collectprof_tag(const struct psym_collectprof *c, int pid);

/*
 * The pids whose samples had frames in anonymous executable memory (JIT
 * code: their perf maps are worth saving), in the order first seen; at
 * most max written to out. Returns how many there are in all.
 */
size_t psym_collectprof_jit_pids(const struct psym_collectprof *c, int *out, size_t max);

/*
 * The executable mappings of a process (copied). Called again after a
 * re-read (e.g. dlopen): the newest set is used for later samples.
 */
int psym_collectprof_process(struct psym_collectprof *c, int pid, const struct psym_procmap *maps,
			     size_t n);

/*
 * pid's executable, as its maps name it (readlink of /proc/PID/exe), after
 * psym_collectprof_process: its mapping is made at the process's first
 * sample and written first. PSYM_NOENT when pid is not known.
 */
int psym_collectprof_set_exe(struct psym_collectprof *c, int pid, const char *path);

/*
 * pid ran in another mount namespace than the collector's (a container),
 * this one (its inode, psym_procmaps_mntns_other; 0: the same): its
 * samples get the label mntns=INODE, which tells psym symbolize that the
 * mapping paths are the container's, not the host's.
 */
void psym_collectprof_set_mntns(struct psym_collectprof *c, int pid, uint64_t mntns);

/* One distinct stack and how many times it was seen. */
int psym_collectprof_add(struct psym_collectprof *c, int pid, int tid, const char *comm,
			 const uint64_t *kstack, size_t nk, const uint64_t *ustack, size_t nu,
			 uint64_t count);

/*
 * The same with one value per sample type (meta.ntypes of them, or 2:
 * the count and count * period_ns), summed into an equal stack's; count
 * is how many samples that is (the processes' order, the stats).
 */
int psym_collectprof_add_values(struct psym_collectprof *c, int pid, int tid, const char *comm,
				const uint64_t *kstack, size_t nk, const uint64_t *ustack,
				size_t nu, uint64_t count, const int64_t *vals);

/*
 * User addresses of pid that no known mapping holds (so the caller knows
 * to re-read /proc/PID/maps): true when any of them is outside.
 */
bool psym_collectprof_unknown(struct psym_collectprof *c, int pid, const uint64_t *ustack,
			      size_t nu);

/*
 * After the last sample: record the duration, and put the executables
 * first (pprof's convention: mapping 1 is the main binary), those of the
 * processes with the most samples first, with a comment naming the
 * process mapping 1 belongs to. Mapping ids are renumbered; add nothing
 * after this.
 */
int psym_collectprof_finish(struct psym_collectprof *c, int64_t duration_ns);

/* The profile (owned by c until psym_collectprof_free; NULL once taken). */
struct psym_profile *psym_collectprof_profile(struct psym_collectprof *c);

/*
 * The profile, handed over to the caller (who frees it with
 * psym_profile_free), after psym_collectprof_finish: c keeps no pointer
 * to it, and psym_collectprof_free then frees only the builder's own
 * tables. For a caller that goes on with the profile and not the
 * builder (psym symbolize's unwinding): no encoded copy is made.
 */
struct psym_profile *psym_collectprof_take_profile(struct psym_collectprof *c);

struct psym_collect_stats {
	uint64_t samples, stacks, processes, frames_unmapped, processes_without_maps;
};
void psym_collectprof_stats(const struct psym_collectprof *c, struct psym_collect_stats *s);

/*
 * How one process's user stacks end, counted in samples (stacks as deep
 * as meta.stack_depth_max are left out: they may be cut). A stack
 * reaches a root when it has a caller and its outermost frame lies in
 * the process's executable or libc, where every walk of intact frame
 * pointers ends (_start, __libc_start_call_main, clone, start_thread).
 */
struct psym_collect_fpnote {
	int pid;
	char comm[17];			  /* its first sample's */
	uint64_t samples;		  /* with user frames */
	uint64_t rooted;		  /* of them: reaching a root */
	uint64_t leaf_only;		  /* of them: the sampled frame alone */
	uint64_t frames, frames_unmapped; /* user frames, those in no mapping */
};
/*
 * Frame pointers that lie: at least min_samples, fewer than half of them
 * rooted, and frames lost (half of the stacks stop at the sampled frame,
 * or a tenth of the frames are in no mapping).
 */
bool psym_collect_fp_broken(const struct psym_collect_fpnote *f, uint64_t min_samples);
/* Fewer samples of a process say nothing of its frame pointers. */
#define PSYM_COLLECT_FP_MIN_SAMPLES 10
/*
 * The processes whose stacks psym_collect_fp_broken calls broken, in the
 * order first seen; at most max written to out. Returns how many in all.
 */
size_t psym_collectprof_fp_notes(const struct psym_collectprof *c, uint64_t min_samples,
				 struct psym_collect_fpnote *out, size_t max);

#endif
