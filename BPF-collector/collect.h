/* SPDX-License-Identifier: MIT */
/*
 * psym-collect's user side, shared by its files (the libbpf-tools shape:
 * collect.c = main and its steps, options.c = the command line, drain.c =
 * the drain loop, procmeta.c = process metadata (maps, build IDs),
 * sidefiles.c = OUT.d/ side files). Each part of the state has one owner
 * and goes to a function as an argument: the BPF side (struct bpfmaps,
 * drain.c), the process metadata (struct meta, procmeta.c), the kernel
 * symbols (struct ksyms, sidefiles.c); collect.c's main holds them, with
 * the options, the output and the recorders (mmaptrack, stackcopy).
 */
#ifndef PSYM_COLLECT_COLLECT_H
#define PSYM_COLLECT_COLLECT_H

#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hashtab.h"
#include "psym-int.h"
#include "mmaptrack.h"
#include "options.h"
#include "profile.h"

struct profile_bpf;
struct stackcopy;

/*
 * Timing: samples are drained every DRAIN_NS; metadata work (reading a
 * process's maps, a file's build ID) gets at most META_NS of each drain
 * and META_OPS reads, FINAL_META_NS after the end, so a deadline or a
 * signal is kept within a second whatever the host does.
 */
#define NS 1000000000LL
#define DRAIN_NS (NS / 2)
#define POLL_NS (NS / 10)
#define META_NS (NS / 10)
#define FINAL_META_NS (NS / 5)
#define META_OPS 256
#define MAX_REREADS 4	   /* re-reads of one process's maps (dlopen, JIT) */
#define MAX_EXAMPLES 5	   /* -v: examples of each kind of per-process problem */
#define MAX_PERF_MAPS 4096 /* perf maps saved */
#define BID_CACHE_MAX (1 << 16)
/* What is known of a process that samples named. */
struct pidinfo {
	int pid;
	bool gone;    /* its maps could not be read: exited */
	bool skipped; /* a sample went without its maps: metadata cap */
	uint8_t rereads;
	bool has_image;	       /* image: the one whose maps the profile builder has */
	uint64_t image;	       /* its exec's time (image.bpf.h); the fields above are its */
	uint32_t mt_gen;       /* generation of the tracked maps loaded (mmaptrack.h) */
	uint64_t reread_drain; /* the drain of the last re-read */
};

/* A file's build ID, by (device, inode, mtime): read once for all processes. */
struct bidkey {
	uint64_t dev, ino;
	int64_t sec, nsec;
};
struct bident {
	struct bidkey k;
	char id[PSYM_BUILD_ID_HEX_MAX]; /* "" when the file has none */
};

/* A mapped file whose build ID was not read: the summary names each. */
struct bidmiss {
	char path[sizeof(((struct psym_procmap *)0)->path)];
	int pid;	/* the first process it was missed for */
	uint32_t procs; /* processes it was missed for */
	bool skipped;	/* not read under the metadata cap (else unreadable) */
};
#define MAX_BID_MISSES 64   /* files named; the rest are counted */
#define BID_MISSES_SHOWN 10 /* named in the summary without -v */

/* /proc/kallsyms, read by a thread while sampling starts (read_kallsyms). */
struct ksyms {
	pthread_t t;
	bool started;
	char *buf;
	size_t len;
	bool joined; /* kstart/klimit: the kernel's range, once known */
	uint64_t kstart, klimit;
	/*
	 * Subset copies (--kallsyms subset): the table parsed and sorted once,
	 * by the reading thread; NULL when not wanted or it failed (then the
	 * full copy is written).
	 */
	bool subset;
	struct psym_kallsyms *table;
};

/* Counters of metadata work (procmeta.c), reported in the summary. */
struct metastats {
	uint64_t maps_read, maps_gone, maps_failed, maps_skipped, rereads;
	uint64_t samples_skipped; /* samples taken in while their maps were skipped (cap) */
	uint64_t exec_placed;	  /* samples taken inside an exec, placed in the image after it */
	uint64_t maps_tracked;	  /* processes whose maps came from mmaptrack */
	uint64_t bids_read, bids_cached, bids_failed, bids_skipped;
};

/* Counters of the drain (drain.c), reported in the summary. */
struct drainstats {
	uint64_t stacks_evicted, stack_sweeps, drains;
	int64_t drain_max_ns;
};

/* One count taken from a buffer, before it goes to the profile. */
struct drained {
	struct psym_sample_key key;
	uint64_t count;
};

/*
 * The BPF program's side of the drain, owned by drain.c (collect.c loads
 * the program into it): the double buffer's maps and the table of the
 * stacks read in the drain under way.
 */
struct bpfmaps {
	struct profile_bpf *skel;
	int stacks_fd[2], counts_fd[2], errors_fd;
	uint32_t stack_entries, count_entries;
	int active; /* buffer the BPF program fills */
	bool final; /* the drain under way is the last: a signal cuts nothing short */
	/* Set by SIGINT/SIGTERM (collect.c's, handed down): cut the drain short. */
	const volatile sig_atomic_t *stop;
	/* Stacks read in the drain under way, by stack id. */
	int32_t *stack_slot; /* stack_entries, -1 = not read */
	uint32_t *used_ids;
	size_t nused;
	uint64_t *stack_ips; /* PSYM_MAX_STACK per used id */
	uint8_t *stack_len;
	struct drained *drained; /* count_entries: one buffer's counts, sorted */
	uint64_t counts_full_seen;
	bool kernel_frames; /* a sample had kernel frames (the kallsyms side file) */
	struct drainstats ds;
};

/*
 * Process metadata, owned by procmeta.c: which processes' maps were
 * given to the profile builder, the build-ID cache, the budget of the
 * drain under way and the counters. The builder and the recorders are
 * borrowed (meta_profile, meta_recorders).
 */
struct meta {
	struct psym_collectprof *cp; /* the profile under way */
	struct mmaptrack *mt;	     /* NULL: --no-mmap-track */
	struct stackcopy *sc;	     /* NULL: no --stack-copy */
	bool verbose;		     /* -v: examples of problems */
	int targets[PSYM_MAX_PIDS];  /* -p's processes: build IDs read with the maps */
	int ntargets;
	int images_fd;		  /* the BPF program's pid -> image map (image.bpf.h), or -1 */
	struct psym_hashtab pids; /* pid -> struct pidinfo */
	struct pidinfo **pinfo;
	size_t npinfo;
	struct psym_hashtab bids; /* struct bidkey -> struct bident */
	struct bident **bident;
	size_t nbident;
	/* Budget of the drain under way (meta_budget). */
	int64_t until;
	int ops;
	bool final;
	const volatile sig_atomic_t *stop; /* as struct bpfmaps' */
	uint64_t drains;		   /* drains done (meta_drains_done) */
	struct metastats ms;
	int examples;	      /* -v lines printed */
	struct bidmiss *miss; /* MAX_BID_MISSES, allocated at the first */
	size_t nmiss;
	uint64_t miss_more; /* files missed beyond MAX_BID_MISSES */
};

static inline int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * NS + t.tv_nsec;
}

/*
 * procmeta.c: process metadata within each drain's budget. stop: the
 * flag a signal sets (not NULL), which cuts a budget short.
 */
void meta_init(struct meta *m, bool verbose, const int *targets, int ntargets,
	       const volatile sig_atomic_t *stop);
void meta_free(struct meta *m);
/* The recorders the maps also come from (either NULL: not used). */
void meta_recorders(struct meta *m, struct mmaptrack *mt, struct stackcopy *sc);
/* The sampling program's map of each process's image (image.bpf.h); -1: none. */
void meta_images(struct meta *m, int fd);
/* A new profile builder (a new window; NULL: none yet): each process's maps go to it afresh. */
void meta_profile(struct meta *m, struct psym_collectprof *cp);
/* The budget of a drain: until a time, META_OPS reads; final: the last one. */
void meta_budget(struct meta *m, int64_t until, bool final);
/* The run is ending: the budget left is not cut short by a signal. */
void meta_final(struct meta *m);
/* Drains done so far (a process's maps are re-read at most once per drain). */
void meta_drains_done(struct meta *m, uint64_t drains);
/*
 * -p's processes' maps now, while they run (they may exit before a
 * drain), within a budget until a time. 0 or an error (--stack-copy).
 */
int meta_first_maps(struct meta *m, const int *pids, int npids, int64_t until);
/* The maps a sample of pid's image (image.bpf.h) needs, within the drain's budget. */
void need_maps(struct meta *m, int pid, uint64_t image, const uint64_t *uips, size_t nu,
	       uint64_t count);
/* One line per mapped file left without a build ID (all of them when verbose). */
void meta_bid_misses(const struct meta *m, FILE *out, bool verbose);
/* --stack-copy's need_maps (stackcopy.h), ud the meta: maps as each sample needs them. */
int stackcopy_need_maps(void *ud, int pid, uint64_t image, uint64_t time, const uint64_t *leaf,
			size_t nleaf);
/*
 * The image a sample keyed to pid's image was taken in: the image after
 * it when the sample was taken inside the exec that ended image
 * (procmeta.c says how that is told); image itself otherwise. uips: its
 * user stack, leaf first; time: the sample's (CLOCK_MONOTONIC, 0: none);
 * count: how many samples it stands for (the summary counts those moved).
 */
uint64_t meta_exec_image(struct meta *m, int pid, uint64_t image, const uint64_t *uips, size_t nu,
			 uint64_t time, uint64_t count);
/* mmaptrack_sweep's callback, ud the meta: pid exited and its samples are in. */
void forget_pid(void *ud, int pid);

/* drain.c: moving the BPF maps' counts and stacks into the profile. */
/* The drain's table of the stacks read, for b->stack_entries ids. An error code. */
int bpfmaps_table_alloc(struct bpfmaps *b);
/* The program and the table freed. */
void bpfmaps_free(struct bpfmaps *b);
uint64_t bpf_errors(const struct bpfmaps *b, uint32_t k);
/*
 * Flip the buffers and move the idle one's samples into cp, their maps
 * through m within its budget until meta_until; final: the last drain,
 * of both buffers. mt (NULL: none) is polled first and swept after.
 */
int drain(struct bpfmaps *b, struct meta *m, struct mmaptrack *mt, struct psym_collectprof *cp,
	  int64_t meta_until, bool final);

/* sidefiles.c: kallsyms, the vDSO and perf maps in OUT.d/. */
void *read_kallsyms(void *ud);
void ksyms_join(struct ksyms *k, struct psym_collectprof *cp);
/* The kernel's range, once joined, to another profile (a new window). */
void ksyms_apply(const struct ksyms *k, struct psym_collectprof *cp);
/* What the thread read and parsed (after the join). */
void ksyms_free(struct ksyms *k);
/*
 * OUT.d/'s side files for the profile cp written to out; ks: the kallsyms
 * copy, NULL when the profile has no kernel frames (no kallsyms, no modules).
 */
void side_files(const char *out, bool verbose, const struct ksyms *ks, struct psym_collectprof *cp,
		struct psym_err *e);
/*
 * OUT.d made with mode, or checked when it exists: a directory of this
 * user (or root) that nobody else can write, never a link; else an error.
 */
int side_dir_ready(const char *out, mode_t mode, struct psym_err *e);
/* --archive: the binaries of the profile's mappings, while the processes run. */
int write_archive(const struct opts *o, struct psym_collectprof *cp, struct psym_err *e);
/* OUT.d's stack copies, when this run made none: they belong to an older profile. */
void drop_stale_stacks(const char *out);

#endif
