/* SPDX-License-Identifier: MIT */
/*
 * psym-collect's user side, shared by its files (the libbpf-tools shape:
 * collect.c = main and its steps, options.c = the command line, drain.c =
 * the drain loop, procmeta.c = process metadata (maps, build IDs),
 * sidefiles.c = OUT.d/ side files).
 */
#ifndef PSYM_COLLECT_COLLECT_H
#define PSYM_COLLECT_COLLECT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hashtab.h"
#include "psym.h"
#include "mmaptrack.h"
#include "options.h"
#include "profile.h"

/* Set by SIGINT/SIGTERM; hup by SIGHUP (--rotate: end the window now). */
extern volatile sig_atomic_t stop, hup;

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

/* /proc/kallsyms, read by a thread while sampling starts (read_kallsyms). */
struct ksyms {
	pthread_t t;
	bool started;
	char *buf;
	size_t len;
	bool joined; /* kstart/klimit: the kernel's range, once known */
	uint64_t kstart, klimit;
};

/* Per-run counters of metadata work, reported in the summary. */
struct metastats {
	uint64_t maps_read, maps_gone, maps_failed, maps_skipped, rereads;
	uint64_t maps_tracked; /* processes whose maps came from mmaptrack */
	uint64_t bids_read, bids_cached, bids_failed, bids_skipped;
	uint64_t stacks_evicted, stack_sweeps, drains;
	int64_t drain_max_ns;
};

/*
 * What the collector's files share while sampling. The output (the file,
 * each profile's metadata, --rotate's windows), the targets and the BPF
 * links are collect.c's own (struct output, targets, sampler there).
 */
struct run {
	struct opts o;
	struct profile_bpf *skel;
	struct psym_collectprof *cp;
	int stacks_fd[2], counts_fd[2], errors_fd;
	uint32_t stack_entries, count_entries;
	int active; /* buffer the BPF program fills */
	bool kernel_frames;
	struct psym_hashtab pids; /* pid -> struct pidinfo */
	struct pidinfo **pinfo;
	size_t npinfo;
	struct psym_hashtab bids; /* struct bidkey -> struct bident */
	struct bident **bident;
	size_t nbident;
	/* Metadata budget of the drain under way. */
	int64_t meta_until;
	int meta_ops;
	bool final;
	/* Stacks read in the drain under way, by stack id. */
	int32_t *stack_slot; /* stack_entries, -1 = not read */
	uint32_t *used_ids;
	size_t nused;
	uint64_t *stack_ips; /* PSYM_MAX_STACK per used id */
	uint8_t *stack_len;
	uint64_t counts_full_seen;
	struct metastats ms;
	int examples; /* -v lines printed */
	struct ksyms ks;
	struct stackcopy *sc; /* --stack-copy */
	struct mmaptrack *mt; /* mappings as they are made; NULL: --no-mmap-track */
};

static inline int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * NS + t.tv_nsec;
}

/* procmeta.c: process metadata within each drain's budget. */
void example(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool budget_ok(struct run *r);
struct pidinfo *pid_info(struct run *r, int pid);
void load_maps(struct run *r, struct pidinfo *pi);
void file_build_id(void *ud, int pid, struct psym_procmap *m);
void need_maps(struct run *r, int pid, const uint64_t *uips, size_t nu);
/* --stack-copy's need_maps (stackcopy.h): maps as each sample needs them. */
int stackcopy_need_maps(void *ud, int pid, const uint64_t *leaf, size_t nleaf);
/* mmaptrack_sweep's callback: pid exited and its samples are in. */
void forget_pid(void *ud, int pid);

/* drain.c: moving the BPF maps' counts and stacks into the profile. */
uint64_t bpf_errors(struct run *r, uint32_t k);
int drain(struct run *r, int64_t meta_until);

/* sidefiles.c: kallsyms, the vDSO and perf maps in OUT.d/. */
void *read_kallsyms(void *ud);
void ksyms_join(struct ksyms *k, struct psym_collectprof *cp);
/* The kernel's range, once joined, to another profile (a new window). */
void ksyms_apply(const struct ksyms *k, struct psym_collectprof *cp);
void side_files(struct run *r, struct psym_err *e);
/*
 * OUT.d made with mode, or checked when it exists: a directory of this
 * user (or root) that nobody else can write, never a link; else an error.
 */
int side_dir_ready(const char *out, mode_t mode, struct psym_err *e);
/* --archive: the binaries of the profile's mappings, while the processes run. */
int write_archive(struct run *r, struct psym_err *e);
/* OUT.d's stack copies, when this run made none: they belong to an older profile. */
void drop_stale_stacks(const char *out);

#endif
