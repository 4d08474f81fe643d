/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: a minimal BPF CPU profiler that writes an unsymbolized pprof
 * profile (addresses, mappings with build IDs) and the few side files only
 * the profiled host has (kallsyms, the vDSO, perf maps). Thin main: the
 * profile is built by libpsym's collectprof module. This file holds main
 * and its steps (targets, output, BPF setup, the sampling loop, writing and
 * the summary); the command line is options.c's, the drain loop, process
 * metadata and side files are in drain.c, procmeta.c and sidefiles.c
 * (collect.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.h"
#include "command.h"
#include "rotate.h"
#include "hashtab.h"
#include "hostid.h"
#include "kmodules.h"
#include "psym.h"
#include "profile.h"
#include "profile.skel.h"
#include "stackcopy.h"
#include "unwindprof.h"
#include "ustack.h"

volatile sig_atomic_t stop, hup;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_hup(int sig)
{
	(void)sig;
	hup = 1;
}

/* Online CPUs from /sys/devices/system/cpu/online ("0-3,5"). */
static int online_cpus(bool *cpus, int max)
{
	char buf[1024], *p = buf;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int n = 0;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return -1;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long i = a; i <= b && i < max; i++, n++)
			cpus[i] = true;
		if (*p == ',')
			p++;
	}
	return n;
}

static int perf_open(int cpu, long hz)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(a),
		.sample_freq = (uint64_t)hz,
		.freq = 1,
	};

	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The smallest power of two >= v, within [lo, hi]. */
static uint32_t pow2_within(uint64_t v, uint32_t lo, uint32_t hi)
{
	uint32_t p = lo;

	while (p < v && p < hi)
		p *= 2;
	return p;
}

/*
 * Map sizes. One buffer holds one drain interval (or the whole run when
 * -d is shorter): at most hz * ncpu * interval samples, each with two
 * stacks. The counts map gets twice that; the stack map 16 times the
 * stacks, so a new stack rarely lands in a used bucket (a collision loses
 * the stack).
 */
static void size_maps(struct run *r, int ncpu)
{
	double interval = (double)DRAIN_NS / NS;
	uint64_t per;

	if (r->o.duration > 0 && r->o.duration < interval)
		interval = r->o.duration;
	per = (uint64_t)((double)r->o.hz * ncpu * interval) + 1;
	r->count_entries = r->o.count_entries ? (uint32_t)r->o.count_entries
					      : pow2_within(2 * per + 256, 1024, 1 << 20);
	/* The kernel rounds a stack map up to a power of two: stack ids go
	 * up to that, and the drain indexes its table by them. */
	r->stack_entries = r->o.stack_entries
				   ? pow2_within((uint64_t)r->o.stack_entries, 1024, 1 << 22)
				   : pow2_within(16 * 2 * per, 8192, 1 << 15);
}

/* Does every -p process exist? Exit 2 naming the first that does not. */
static void check_pids(const struct opts *o)
{
	for (int i = 0; i < o->npids; i++)
		if (kill(o->pids[i], 0) != 0 && errno == ESRCH) {
			fprintf(stderr, "psym-collect: no process with PID %d\n", o->pids[i]);
			exit(PSYM_EXIT_BADINPUT);
		}
}

/*
 * Wait until the next event: a signal, the timeout, or (with -p) the exit
 * of a target (its pidfd becomes readable). Returns true when all targets
 * have exited.
 */
static bool wait_targets(struct pollfd *pfd, int npfd, int npids, int64_t timeout_ns)
{
	int live = 0;

	if (timeout_ns < 0)
		timeout_ns = 0;
	if (npfd > 0)
		poll(pfd, (nfds_t)npfd, (int)(timeout_ns / 1000000));
	else
		usleep((useconds_t)(timeout_ns / 1000));
	for (int i = 0; i < npfd; i++) {
		if (pfd[i].fd < 0)
			continue;
		if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
			close(pfd[i].fd);
			pfd[i].fd = -1;
			continue;
		}
		live++;
	}
	return npids > 0 && npfd == npids && live == 0;
}

/*
 * Where the profiles go: the one file (opened before sampling, so that a
 * run that could not write it does not start) or --rotate's windows, and
 * the metadata each profile carries.
 */
struct output {
	struct psym_out out; /* the one file (not with --rotate) */
	bool open;	     /* out is open: aborted if the run ends before writing */
	struct psym_collect_meta meta;
	char kbid[PSYM_BUILD_ID_HEX_MAX];
	char idline[256];
	int64_t win_start; /* sampling's start, or the window's with --rotate */
	/* --rotate: the pattern (-o), the window under way and its file's name. */
	const char *pattern;
	time_t win_t, name_t;
	int win_seq;
	uint64_t windows;
	char outname[4096];
};

/* A new profile builder for the next window (or the only one). */
static int new_profile(struct run *r, struct output *w, struct psym_err *e)
{
	struct timespec t;
	int ret;

	clock_gettime(CLOCK_REALTIME, &t);
	w->meta.time_ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
	ret = psym_collectprof_new(&w->meta, &r->cp, e);
	if (!ret)
		ret = psym_collectprof_comment(r->cp, w->idline);
	if (ret)
		return ret;
	psym_collectprof_set_buildid_fn(r->cp, file_build_id, r);
	ksyms_apply(&r->ks, r->cp);
	return 0;
}

/* --rotate: the file name of the window that started at w->win_t, made r->o.out. */
static int window_name(struct run *r, struct output *w, struct psym_err *e)
{
	w->win_seq = w->win_t == w->name_t ? w->win_seq + 1 : 0;
	w->name_t = w->win_t;
	r->o.out = w->outname;
	return rotate_name(w->pattern, w->win_t, w->win_seq, w->outname, sizeof(w->outname), e);
}

/*
 * Write the profile built so far through out (open on r->o.out; closed
 * here whatever happens), then its side files. An exit code.
 */
static int write_profile(struct run *r, struct psym_out *out, int64_t dur, bool *written)
{
	struct psym_err e = { 0 };
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret, code = PSYM_EXIT_OK;

	*written = false;
	/* Duration (pprof's Duration line) and the executables first. */
	ret = psym_collectprof_finish(r->cp, dur);
	if (ret)
		psym_err_set(&e, ret, "out of memory");
	if (!ret)
		ret = psym_profile_encode(psym_collectprof_profile(r->cp), true, &buf, &len, &e);
	if (!ret && fwrite(buf, 1, len, out->fp) != len)
		ret = psym_err_set(&e, PSYM_EIO, "cannot write '%s': %s", r->o.out,
				   strerror(errno));
	free(buf);
	if (ret) {
		psym_out_abort(out);
	} else {
		ret = psym_out_commit(out, &e);
	}
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		return PSYM_EXIT_SYSTEM;
	}
	*written = true;
	if (!r->sc)
		drop_stale_stacks(r->o.out);
	if (!r->o.no_side_files)
		side_files(r, &e);
	if (r->o.archive && write_archive(r, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		code = psym_exit_code(e.code);
	}
	return code;
}

/* The summary of a profile (a window) on stderr. */
static void summary(struct run *r, int64_t dur, bool written)
{
	uint64_t errs[PSYM_ERR_NR] = { 0 };
	struct psym_collect_stats st;

	for (uint32_t k = 0; k < PSYM_ERR_NR; k++)
		errs[k] = bpf_errors(r, k);
	psym_collectprof_stats(r->cp, &st);
	fprintf(stderr,
		"psym-collect: %.1fs, %" PRIu64 " samples, %" PRIu64 " processes, %" PRIu64
		" stacks -> %s\n",
		(double)dur / 1e9, st.samples, st.processes, st.stacks,
		written ? r->o.out : "(not written)");
	fprintf(stderr,
		"psym-collect: lost: %" PRIu64 " user stacks unreadable, %" PRIu64
		" kernel stacks unreadable, %" PRIu64 " stack-map collisions, %" PRIu64
		" samples with the counts map full, %" PRIu64 " stacks evicted; %" PRIu64
		" processes exited before their maps were read, %" PRIu64
		" not read (metadata cap) (%" PRIu64 " frames without a mapping)\n",
		errs[PSYM_ERR_USER_STACK], errs[PSYM_ERR_KERN_STACK], errs[PSYM_ERR_COLLISION],
		errs[PSYM_ERR_COUNTS_FULL], r->ms.stacks_evicted,
		r->ms.maps_gone + r->ms.maps_failed, r->ms.maps_skipped, st.frames_unmapped);
	fprintf(stderr,
		"psym-collect: metadata: %" PRIu64 " process maps read (%" PRIu64
		" re-read), build IDs: %" PRIu64 " files read, %" PRIu64 " from cache, %" PRIu64
		" unreadable, %" PRIu64 " not read (metadata cap); %" PRIu64
		" drains, longest %.0f ms\n",
		r->ms.maps_read, r->ms.rereads, r->ms.bids_read, r->ms.bids_cached,
		r->ms.bids_failed, r->ms.bids_skipped, r->ms.drains,
		(double)r->ms.drain_max_ns / 1e6);
	if (r->mt) {
		struct mmaptrack_stats ts;

		mmaptrack_stats(r->mt, &ts);
		fprintf(stderr,
			"psym-collect: mappings recorded as made: %" PRIu64 " execs, %" PRIu64
			" forks, %" PRIu64 " exits, %" PRIu64 " mmaps (%" PRIu64
			" records lost, %" PRIu64 " mappings and %" PRIu64
			" processes not kept); %" PRIu64
			" processes' maps taken from them, at most %u processes at once; "
			"build IDs the kernel did not give, read as mapped: %" PRIu64
			" files, %" PRIu64 " from cache, %" PRIu64 " unreadable\n",
			ts.execs, ts.forks, ts.exits, ts.maps, ts.lost, ts.maps_dropped,
			ts.procs_untracked, r->ms.maps_tracked, ts.procs_max, ts.bids_read,
			ts.bids_cached, ts.bids_failed);
		if (ts.lost)
			fprintf(stderr,
				"psym-collect: to lose no mmap records, raise --mmap-pages "
				"(now %ld)\n",
				r->o.mmap_pages);
	}
	if (errs[PSYM_ERR_COLLISION] || errs[PSYM_ERR_COUNTS_FULL])
		fprintf(stderr,
			"psym-collect: to lose less, raise --stack-entries (now %u) for "
			"collisions, --count-entries (now %u) for a full counts map, or "
			"lower -F\n",
			r->stack_entries, r->count_entries);
}

/* This process's resident set, from /proc/self/statm; -1 unknown. */
static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = -1, size;

	if (f) {
		if (fscanf(f, "%ld %ld", &size, &pages) != 2)
			pages = -1;
		fclose(f);
	}
	return pages < 0 ? -1 : pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * --rotate: write the window that ends now (its samples drained), remove
 * the old ones beyond --keep/--max-disk, and start the next with an empty
 * profile. An exit code: a window not written does not stop the run.
 */
static int end_window(struct run *r, struct output *w, bool last, int *code)
{
	struct psym_err e = { 0 };
	struct psym_out out;
	int64_t now = now_ns(), dur = now - w->win_start;
	bool written = false;
	int ret;

	w->windows++;
	ret = psym_out_open(&out, w->outname, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		*code = psym_exit_code(ret);
	} else if ((ret = write_profile(r, &out, dur, &written)) != 0) {
		*code = ret;
	}
	summary(r, dur, written);
	if (written)
		rotate_prune(w->pattern, w->outname, r->o.keep, r->o.max_disk, stderr);
	if (r->o.verbose)
		fprintf(stderr, "psym-collect: window %" PRIu64 " done, resident %ld kB\n",
			w->windows, rss_kb());
	if (last)
		return 0;
	/* The next window: a new profile; each process's maps are given again. */
	psym_collectprof_free(r->cp);
	r->cp = NULL;
	for (size_t i = 0; i < r->npinfo; i++)
		free(r->pinfo[i]);
	free(r->pinfo);
	r->pinfo = NULL;
	r->npinfo = 0;
	psym_hashtab_free(&r->pids);
	psym_hashtab_init(&r->pids, 0);
	w->win_start = now_ns();
	w->win_t = time(NULL);
	ret = new_profile(r, w, &e);
	if (!ret)
		ret = window_name(r, w, &e);
	if (ret)
		fprintf(stderr, "psym-collect: %s\n", ret == PSYM_ENOMEM ? "out of memory" : e.msg);
	return ret;
}

/* What ends the run besides a signal and -d: the command, the -p processes. */
struct targets {
	struct command cmd;
	struct pollfd pfd[PSYM_MAX_PIDS + 1]; /* pidfds: readable when one exits */
	int npfd;
	bool gone; /* all of them exited */
};

/*
 * The command started (held before its exec until sampling runs), the
 * signals caught, each -p process checked and watched. An exit code.
 */
static int targets_open(const struct opts *o, struct targets *t)
{
	struct sigaction sa = { .sa_handler = on_stop }, sh = { .sa_handler = on_hup };
	struct psym_err e = { 0 };

	/* First, so that a failure below lets it go without running it. */
	if (o->cmd && command_start(o->cmd, &t->cmd, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		return PSYM_EXIT_SYSTEM;
	}
	if (t->cmd.pidfd >= 0)
		t->pfd[t->npfd++] = (struct pollfd){ .fd = t->cmd.pidfd, .events = POLLIN };
	/* No SA_RESTART: a signal ends the wait at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o->rotate_ns) {
		sigemptyset(&sh.sa_mask);
		sigaction(SIGHUP, &sh, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	check_pids(o);
	for (int i = 0; i < o->npids; i++) {
		int fd = (int)syscall(SYS_pidfd_open, o->pids[i], 0);

		if (fd < 0) {
			if (errno == ESRCH) {
				fprintf(stderr, "psym-collect: no process with PID %d\n",
					o->pids[i]);
				return PSYM_EXIT_BADINPUT;
			}
			break; /* no pidfds here: run until -d or a signal */
		}
		t->pfd[t->npfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	return PSYM_EXIT_OK;
}

/* Let a command that never ran go, and close the pidfds. */
static void targets_close(struct targets *t)
{
	command_finish(&t->cmd, true);
	for (int i = 0; i < t->npfd; i++)
		if (t->pfd[i].fd >= 0)
			close(t->pfd[i].fd);
}

/*
 * Can the output be written? OUT.d/ made (or checked), and OUT opened (or
 * with --rotate, the first window's file tried). An exit code.
 */
static int output_open(struct run *r, struct output *w)
{
	struct psym_err e = { 0 };
	int ret = 0;

	if ((!r->o.no_side_files || r->o.stack_copy) && !r->o.rotate_ns)
		ret = side_dir_ready(r->o.out, r->o.stack_copy ? 0700 : 0755, &e);
	if (!ret && r->o.rotate_ns) {
		/* Can the first window's file be written? */
		w->pattern = r->o.out;
		w->win_t = time(NULL);
		ret = rotate_check(w->pattern, &e);
		if (!ret)
			ret = window_name(r, w, &e);
		if (!ret && (ret = psym_out_open(&w->out, w->outname, &e)) == 0)
			psym_out_abort(&w->out);
	} else if (!ret) {
		ret = psym_out_open(&w->out, r->o.out, &e);
		w->open = !ret;
	}
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		return psym_exit_code(ret);
	}
	return PSYM_EXIT_OK;
}

/* The BPF side: the online CPUs, and once attached, one perf link on each. */
struct sampler {
	bool cpus[4096];
	int ncpu;
	struct bpf_link **links;
	int nlinks;
	struct bpf_link *flinks[2]; /* -- COMMAND: its tree's forks and exits */
};

/* The drain's table of the stacks read, by stack id (collect.h). An exit code. */
static int stack_table_alloc(struct run *r)
{
	r->stack_slot = malloc(r->stack_entries * sizeof(*r->stack_slot));
	r->used_ids = malloc(r->stack_entries * sizeof(*r->used_ids));
	r->stack_len = malloc(r->stack_entries);
	r->stack_ips = malloc((size_t)r->stack_entries * PSYM_MAX_STACK * sizeof(uint64_t));
	if (!r->stack_slot || !r->used_ids || !r->stack_len || !r->stack_ips) {
		fprintf(stderr, "psym-collect: out of memory\n");
		return PSYM_EXIT_SYSTEM;
	}
	memset(r->stack_slot, 0xff, r->stack_entries * sizeof(*r->stack_slot));
	return PSYM_EXIT_OK;
}

/* The BPF program's filters and what it loads, from the options. */
static void bpf_configure(struct run *r)
{
	for (int i = 0; i < r->o.npids; i++)
		r->skel->rodata->filter_pids[i] = (uint32_t)r->o.pids[i];
	r->skel->rodata->n_filter_pids = (uint32_t)r->o.npids;
	r->skel->rodata->no_user = r->o.no_user;
	r->skel->rodata->no_kernel = r->o.no_kernel;
	r->skel->rodata->self_pid = (uint32_t)getpid();
	r->skel->rodata->follow_tree = r->o.cmd && !r->o.stack_copy;
	if (!r->skel->rodata->follow_tree) {
		/* Not needed: loaded only where they are (they need the kernel's BTF). */
		bpf_program__set_autoload(r->skel->progs.psym_fork, false);
		bpf_program__set_autoload(r->skel->progs.psym_exit, false);
	}
}

/*
 * The BPF program opened, sized for the online CPUs, loaded, and with a
 * COMMAND following its process tree (not sampling yet). An exit code.
 */
static int bpf_load(struct run *r, struct sampler *s, pid_t cmd_pid)
{
	struct psym_err e = { 0 };
	int ret;

	s->ncpu = online_cpus(s->cpus, 4096);
	if (s->ncpu <= 0) {
		fprintf(stderr, "psym-collect: cannot read the online CPUs\n");
		return PSYM_EXIT_SYSTEM;
	}
	size_maps(r, s->ncpu);
	ret = stack_table_alloc(r);
	if (ret)
		return ret;
	r->skel = profile_bpf__open();
	if (!r->skel) {
		fprintf(stderr, "psym-collect: cannot open the BPF program: %s\n", strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	bpf_configure(r);
	if (bpf_map__set_max_entries(r->skel->maps.stacks0, r->stack_entries) ||
	    bpf_map__set_max_entries(r->skel->maps.stacks1, r->stack_entries) ||
	    bpf_map__set_max_entries(r->skel->maps.counts0, r->count_entries) ||
	    bpf_map__set_max_entries(r->skel->maps.counts1, r->count_entries)) {
		fprintf(stderr, "psym-collect: cannot size the BPF maps: %s\n", strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	if (profile_bpf__load(r->skel)) {
		fprintf(stderr,
			"psym-collect: cannot load the BPF program (needs root or "
			"CAP_BPF+CAP_PERFMON): %s\n",
			strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	r->stacks_fd[0] = bpf_map__fd(r->skel->maps.stacks0);
	r->stacks_fd[1] = bpf_map__fd(r->skel->maps.stacks1);
	r->counts_fd[0] = bpf_map__fd(r->skel->maps.counts0);
	r->counts_fd[1] = bpf_map__fd(r->skel->maps.counts1);
	r->errors_fd = bpf_map__fd(r->skel->maps.errors);
	if (r->skel->rodata->follow_tree &&
	    follow_start(r->skel->maps.follow, r->skel->progs.psym_fork, r->skel->progs.psym_exit,
			 cmd_pid, s->flinks, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		return PSYM_EXIT_SYSTEM;
	}
	return PSYM_EXIT_OK;
}

/* The first profile, with what every profile of the run says of the host. */
static int profile_start(struct run *r, struct output *w)
{
	struct psym_err e = { 0 };
	struct psym_hostid host;
	int ret;

	psym_kernel_notes_build_id("/sys/kernel/notes", w->kbid, &e);
	w->meta.period_ns = 1000000000L / r->o.hz;
	w->meta.kernel_build_id = w->kbid[0] ? w->kbid : NULL;
	psym_hostid_local(&host);
	psym_hostid_format(&host, w->idline, sizeof(w->idline));
	ret = new_profile(r, w, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", ret == PSYM_ENOMEM ? "out of memory" : e.msg);
		return PSYM_EXIT_SYSTEM;
	}
	return PSYM_EXIT_OK;
}

/*
 * What records beside the BPF program, opened before sampling starts: the
 * mappings as they are made (no process started after it goes unrecorded;
 * --stack-copy needs the mappings as much), and --stack-copy's own
 * program. An exit code.
 */
static int recorders_open(struct run *r, const struct sampler *s, pid_t cmd_pid)
{
	struct psym_err e = { 0 };

	if (!r->o.no_track) {
		struct mmaptrack_opts mo = { s->cpus, 4096, (uint32_t)r->o.mmap_pages,
					     (uint32_t)r->o.max_procs, 1 << 16 };

		if (mmaptrack_open(&mo, &r->mt, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			return PSYM_EXIT_SYSTEM;
		}
	}
	if (r->o.stack_copy) {
		struct stackcopy_opts so = { (uint32_t)r->o.stack_copy,
					     r->o.pids,
					     r->o.npids,
					     r->o.no_kernel,
					     r->o.verbose,
					     r->o.hz,
					     s->ncpu,
					     r->o.out,
					     stackcopy_need_maps,
					     r,
					     cmd_pid };

		if (psym_collectprof_comment(r->cp, PSYM_USTACKS_COMMENT) ||
		    stackcopy_open(&so, &r->cp, &r->sc, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg[0] ? e.msg : "out of memory");
			return PSYM_EXIT_SYSTEM;
		}
		r->kernel_frames = !r->o.no_kernel; /* for the kallsyms side file */
	}
	return PSYM_EXIT_OK;
}

/* Sampling starts: a perf event on each online CPU, the program attached to each. */
static int sampler_attach(struct run *r, struct sampler *s)
{
	s->links = calloc(4096, sizeof(*s->links));
	if (!s->links)
		return PSYM_EXIT_SYSTEM;
	for (int cpu = 0; cpu < 4096; cpu++) {
		int fd;

		if (!s->cpus[cpu])
			continue;
		fd = perf_open(cpu, r->o.hz);
		if (fd < 0) {
			fprintf(stderr, "psym-collect: cannot open a perf event on CPU %d: %s\n",
				cpu, strerror(errno));
			return PSYM_EXIT_SYSTEM;
		}
		s->links[s->nlinks] = bpf_program__attach_perf_event(
			r->sc ? stackcopy_prog(r->sc) : r->skel->progs.psym_sample, fd);
		if (!s->links[s->nlinks]) {
			fprintf(stderr, "psym-collect: cannot attach to CPU %d: %s\n", cpu,
				strerror(errno));
			close(fd);
			return PSYM_EXIT_SYSTEM;
		}
		s->nlinks++;
	}
	return PSYM_EXIT_OK;
}

/* Sampling stops (the links let go); the follow links stay until the end. */
static void sampler_stop(struct sampler *s)
{
	for (int i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	s->nlinks = 0;
}

static void sampler_free(struct sampler *s)
{
	sampler_stop(s);
	free(s->links);
	bpf_link__destroy(s->flinks[0]);
	bpf_link__destroy(s->flinks[1]);
}

/* The targets' maps now, while they run: they may exit before a drain. */
static int first_maps(struct run *r, int64_t start)
{
	int ret = 0;

	r->meta_until = start + META_NS;
	r->meta_ops = META_OPS;
	for (int i = 0; i < r->o.npids; i++) {
		struct pidinfo *pi = pid_info(r, r->o.pids[i]);

		if (r->sc && !ret)
			ret = stackcopy_need_maps(r, r->o.pids[i], NULL, 0);
		else if (pi && budget_ok(r))
			load_maps(r, pi);
	}
	return ret;
}

/*
 * Sample until a signal, -d, the targets' exit or a failure (the return:
 * out of memory), draining every DRAIN_NS and ending --rotate's windows
 * (a window not written sets *code).
 */
static int sample_loop(struct run *r, struct output *w, struct targets *t, int64_t start, int *code)
{
	int64_t end_at = r->o.duration > 0 ? start + (int64_t)(r->o.duration * NS) : 0;
	int64_t next_drain = start + DRAIN_NS;
	int ret = 0;

	while (!stop && !ret) {
		int64_t now = now_ns(), until = next_drain;

		if (end_at && now >= end_at)
			break;
		if (end_at && end_at < until)
			until = end_at;
		if (r->o.rotate_ns && w->win_start + r->o.rotate_ns < until)
			until = w->win_start + r->o.rotate_ns;
		if (until - now > POLL_NS)
			until = now + POLL_NS;
		if (wait_targets(t->pfd, t->npfd, r->o.npids + (t->cmd.pidfd >= 0), until - now)) {
			t->gone = true;
			break;
		}
		/* Mappings first: the samples polled next may need them. */
		mmaptrack_poll(r->mt, r->ms.drains);
		if (r->sc && (ret = stackcopy_poll(r->sc, 0)) != 0)
			break;
		now = now_ns();
		if (now >= next_drain && !stop) {
			int64_t mu = now + META_NS;

			if (end_at && mu > end_at)
				mu = end_at;
			ksyms_join(&r->ks, r->cp);
			ret = drain(r, mu);
			if (ret)
				break;
			next_drain = now_ns() + DRAIN_NS;
		}
		/* --rotate: the window's end (or SIGHUP's); its samples are drained
		 * first, those taken while it is written go to the next. */
		if (r->o.rotate_ns && !stop && (hup || now_ns() >= w->win_start + r->o.rotate_ns)) {
			hup = 0;
			ksyms_join(&r->ks, r->cp);
			ret = drain(r, now_ns() + META_NS);
			if (!ret)
				ret = end_window(r, w, false, code);
			if (ret)
				break;
			next_drain = now_ns() + DRAIN_NS;
		}
	}
	return ret;
}

/*
 * After sampling: everything that is left taken (ret: the run failed
 * already), then the profile written (or --rotate's last window) and the
 * summary.
 */
static void finish(struct run *r, struct output *w, int ret, int *code)
{
	struct psym_err e = { 0 };
	bool written = false;
	int64_t dur;

	r->final = true;
	ksyms_join(&r->ks, r->cp);
	if (!ret)
		ret = drain(r, now_ns() + FINAL_META_NS);
	if (!ret && r->sc)
		ret = stackcopy_poll(r->sc, 0);
	dur = now_ns() - w->win_start;
	if (ret) {
		fprintf(stderr, "psym-collect: out of memory while collecting: writing what "
				"was collected\n");
		*code = PSYM_EXIT_SYSTEM;
	}
	if (r->o.rotate_ns) {
		end_window(r, w, true, code);
	} else {
		w->open = false;
		ret = write_profile(r, &w->out, dur, &written);
		if (ret)
			*code = ret;
	}
	if (r->sc && stackcopy_close(r->sc, stderr, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		*code = PSYM_EXIT_SYSTEM;
	}
	r->sc = NULL;
	if (!r->o.rotate_ns)
		summary(r, dur, written);
}

/*
 * The run, once sampling is attached: the kallsyms copy and the command
 * started, samples taken until the end, then written. An exit code.
 */
static int collect(struct run *r, struct output *w, struct sampler *s, struct targets *t)
{
	int code = PSYM_EXIT_OK, ret;

	if (r->o.verbose)
		fprintf(stderr,
			"psym-collect: sampling %s at %ld Hz on %d CPUs (maps: %u stacks, %u "
			"counts per buffer)\n",
			r->o.npids ? "the given processes" : "all processes", r->o.hz, s->nlinks,
			r->stack_entries, r->count_entries);
	if (!r->o.no_kernel)
		r->ks.started = pthread_create(&r->ks.t, NULL, read_kallsyms, &r->ks) == 0;
	command_go(&t->cmd); /* sampling runs: the command may start */
	w->win_start = now_ns();
	ret = first_maps(r, w->win_start);
	if (!ret)
		ret = sample_loop(r, w, t, w->win_start, &code);
	/* Stop sampling, then take everything that is left. */
	sampler_stop(s);
	if (t->gone && !r->o.cmd)
		fprintf(stderr, "psym-collect: %s exited: stopping\n",
			r->o.npids > 1 ? "all target processes" : "the target process");
	finish(r, w, ret, &code);
	return code;
}

/* What the run holds that outlives its steps: process metadata, stack tables. */
static void run_free(struct run *r)
{
	struct psym_err e = { 0 };

	if (r->ks.started)
		pthread_join(r->ks.t, NULL);
	free(r->ks.buf);
	mmaptrack_close(r->mt);
	stackcopy_close(r->sc, NULL, &e);
	profile_bpf__destroy(r->skel);
	psym_collectprof_free(r->cp);
	for (size_t i = 0; i < r->npinfo; i++)
		free(r->pinfo[i]);
	free(r->pinfo);
	for (size_t i = 0; i < r->nbident; i++)
		free(r->bident[i]);
	free(r->bident);
	psym_hashtab_free(&r->pids);
	psym_hashtab_free(&r->bids);
	free(r->stack_slot);
	free(r->used_ids);
	free(r->stack_len);
	free(r->stack_ips);
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	struct output w = { 0 };
	struct targets t = { .cmd = COMMAND_NONE };
	struct sampler s = { 0 };
	int code;

	collect_options(argc, argv, &r.o);
	psym_hashtab_init(&r.pids, 0);
	psym_hashtab_init(&r.bids, BID_CACHE_MAX);
	/* Everything that can fail is checked before sampling starts. */
	code = targets_open(&r.o, &t);
	if (code == PSYM_EXIT_OK)
		code = output_open(&r, &w);
	if (code == PSYM_EXIT_OK)
		code = bpf_load(&r, &s, t.cmd.pid);
	if (code == PSYM_EXIT_OK)
		code = profile_start(&r, &w);
	if (code == PSYM_EXIT_OK)
		code = recorders_open(&r, &s, t.cmd.pid);
	if (code == PSYM_EXIT_OK)
		code = sampler_attach(&r, &s);
	if (code == PSYM_EXIT_OK)
		code = collect(&r, &w, &s, &t);
	/* With a COMMAND: its exit status when all went well. */
	if (r.o.cmd) {
		int status = command_finish(&t.cmd, !t.gone);

		if (code == PSYM_EXIT_OK)
			code = status;
	}
	sampler_free(&s);
	run_free(&r);
	targets_close(&t);
	if (w.open)
		psym_out_abort(&w.out);
	return code;
}
