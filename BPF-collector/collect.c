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
#include "psym-int.h"
#include "profile.h"
#include "profile.skel.h"
#include "stackcopy.h"
#include "unwindprof.h"
#include "ustack.h"

/* Set by SIGINT/SIGTERM; hup by SIGHUP (--rotate: end the window now). */
static volatile sig_atomic_t stop, hup;

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
static void size_maps(struct bpfmaps *bm, const struct opts *o, int ncpu)
{
	double interval = (double)DRAIN_NS / NS;
	uint64_t per;

	if (o->duration > 0 && o->duration < interval)
		interval = o->duration;
	per = (uint64_t)((double)o->hz * ncpu * interval) + 1;
	bm->count_entries = o->count_entries ? (uint32_t)o->count_entries
					     : pow2_within(2 * per + 256, 1024, 1 << 20);
	/* The kernel rounds a stack map up to a power of two: stack ids go
	 * up to that, and the drain indexes its table by them. */
	bm->stack_entries = o->stack_entries
				    ? pow2_within((uint64_t)o->stack_entries, 1024, 1 << 22)
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
	struct psym_collectprof *cp; /* the profile under way (the window's) */
	struct psym_out out;	     /* the one file (not with --rotate) */
	bool open;		     /* out is open: aborted if the run ends before writing */
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
static int new_profile(struct output *w, struct meta *m, const struct ksyms *ks, struct psym_err *e)
{
	struct timespec t;
	int ret;

	clock_gettime(CLOCK_REALTIME, &t);
	w->meta.time_ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
	ret = psym_collectprof_new(&w->meta, &w->cp, e);
	if (!ret)
		ret = psym_collectprof_comment(w->cp, w->idline);
	if (ret)
		return ret;
	meta_profile(m, w->cp);
	ksyms_apply(ks, w->cp);
	return 0;
}

/* --rotate: the file name of the window that started at w->win_t, made o->out. */
static int window_name(struct opts *o, struct output *w, struct psym_err *e)
{
	w->win_seq = w->win_t == w->name_t ? w->win_seq + 1 : 0;
	w->name_t = w->win_t;
	o->out = w->outname;
	return rotate_name(w->pattern, w->win_t, w->win_seq, w->outname, sizeof(w->outname), e);
}

/* --format otlp: the same content as OpenTelemetry profiles (otlp.h). */
static int write_otlp(const struct psym_profile *p, FILE *fp, const char *name, struct psym_err *e)
{
	struct psym_otlp *o = NULL;
	int ret = psym_otlp_from_profile(p, NULL, PSYM_OTLP_OTEL_NAMES, &o, e);

	if (!ret)
		ret = psym_otlp_encode_fp(o, fp, name, e);
	psym_otlp_free(o);
	return ret;
}

/*
 * Write the profile cp built so far through out (open on o->out; closed
 * here whatever happens), then its side files (ks: the kallsyms copy, NULL
 * when the profile has no kernel frames). An exit code.
 */
static int write_profile(const struct opts *o, struct psym_collectprof *cp, const struct ksyms *ks,
			 struct psym_out *out, int64_t dur, bool *written)
{
	struct psym_err e = { 0 };
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret, code = PSYM_EXIT_OK;

	*written = false;
	/* Duration (pprof's Duration line) and the executables first. */
	ret = psym_collectprof_finish(cp, dur);
	if (ret)
		psym_err_set(&e, ret, "out of memory");
	if (!ret && o->otlp)
		ret = write_otlp(psym_collectprof_profile(cp), out->fp, o->out, &e);
	else if (!ret)
		ret = psym_profile_encode(psym_collectprof_profile(cp), true, &buf, &len, &e);
	if (!ret && !o->otlp && fwrite(buf, 1, len, out->fp) != len)
		ret = psym_err_set(&e, PSYM_EIO, "cannot write '%s': %s", o->out, strerror(errno));
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
	if (!o->stack_copy)
		drop_stale_stacks(o->out);
	if (!o->no_side_files)
		side_files(o->out, o->verbose, ks, cp, &e);
	if (o->archive && write_archive(o, cp, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		code = psym_exit_code(e.code);
	}
	return code;
}

/*
 * Frame pointers that lie: once per process whose stacks mostly stop
 * short of a root frame (collectprof.h), at most FP_NOTES_MAX of them,
 * with the option that unwinds without them.
 */
#define FP_NOTES_MAX 5
static void fp_notes(struct psym_collectprof *cp)
{
	struct psym_collect_fpnote f[FP_NOTES_MAX];
	size_t n = psym_collectprof_fp_notes(cp, PSYM_COLLECT_FP_MIN_SAMPLES, f, FP_NOTES_MAX);

	for (size_t i = 0; i < n && i < FP_NOTES_MAX; i++)
		fprintf(stderr,
			"psym-collect: pid %d (%s): %" PRIu64 " of %" PRIu64
			" user stacks reach no root frame (%" PRIu64
			" stop at the sampled frame, %.0f%% of frames in no mapping): its "
			"frame pointers do not hold (built without them?); --stack-copy "
			"unwinds without them\n",
			f[i].pid, f[i].comm, f[i].samples - f[i].rooted, f[i].samples,
			f[i].leaf_only,
			f[i].frames ? 100.0 * (double)f[i].frames_unmapped / (double)f[i].frames
				    : 0.0);
	if (n > FP_NOTES_MAX)
		fprintf(stderr,
			"psym-collect: and %zu more processes whose stacks reach no root frame\n",
			n - FP_NOTES_MAX);
}

/* The summary of a profile (a window) on stderr. */
static void summary(const struct opts *o, const struct bpfmaps *b, const struct meta *m,
		    struct psym_collectprof *cp, int64_t dur, bool written)
{
	uint64_t errs[PSYM_ERR_NR] = { 0 };
	struct psym_collect_stats st;

	for (uint32_t k = 0; k < PSYM_ERR_NR; k++)
		errs[k] = bpf_errors(b, k);
	psym_collectprof_stats(cp, &st);
	fprintf(stderr,
		"psym-collect: %.1fs, %" PRIu64 " samples, %" PRIu64 " processes, %" PRIu64
		" stacks -> %s\n",
		(double)dur / 1e9, st.samples, st.processes, st.stacks,
		written ? o->out : "(not written)");
	fprintf(stderr,
		"psym-collect: lost: %" PRIu64 " user stacks unreadable, %" PRIu64
		" kernel stacks unreadable, %" PRIu64 " stack-map collisions, %" PRIu64
		" samples with the counts map full, %" PRIu64 " stacks evicted; %" PRIu64
		" processes exited before their maps were read, %" PRIu64
		" not read (metadata cap: %" PRIu64 " samples without their mappings) (%" PRIu64
		" frames without a mapping)\n",
		errs[PSYM_ERR_USER_STACK], errs[PSYM_ERR_KERN_STACK], errs[PSYM_ERR_COLLISION],
		errs[PSYM_ERR_COUNTS_FULL], b->ds.stacks_evicted,
		m->ms.maps_gone + m->ms.maps_failed, m->ms.maps_skipped, m->ms.samples_skipped,
		st.frames_unmapped);
	fprintf(stderr,
		"psym-collect: metadata: %" PRIu64 " process maps read (%" PRIu64
		" re-read), build IDs: %" PRIu64 " files read, %" PRIu64 " from cache, %" PRIu64
		" unreadable, %" PRIu64 " not read (metadata cap); %" PRIu64
		" drains, longest %.0f ms\n",
		m->ms.maps_read, m->ms.rereads, m->ms.bids_read, m->ms.bids_cached,
		m->ms.bids_failed, m->ms.bids_skipped, b->ds.drains,
		(double)b->ds.drain_max_ns / 1e6);
	if (m->mt) {
		struct mmaptrack_stats ts;

		mmaptrack_stats(m->mt, &ts);
		fprintf(stderr,
			"psym-collect: mappings recorded as made: %" PRIu64 " execs, %" PRIu64
			" forks, %" PRIu64 " exits, %" PRIu64 " mmaps (%" PRIu64
			" records lost, %" PRIu64 " mappings and %" PRIu64
			" processes not kept); %" PRIu64 " running at the start read then; %" PRIu64
			" processes' maps taken from them, at most %u processes at once; "
			"build IDs the kernel did not give, read as mapped: %" PRIu64
			" files (%" PRIu64 " have none), %" PRIu64 " from cache, %" PRIu64
			" unreadable\n",
			ts.execs, ts.forks, ts.exits, ts.maps, ts.lost, ts.maps_dropped,
			ts.procs_untracked, ts.running, m->ms.maps_tracked, ts.procs_max,
			ts.bids_read, ts.bids_none, ts.bids_cached, ts.bids_failed);
		if (ts.images_dropped)
			fprintf(stderr,
				"psym-collect: %" PRIu64 " process images not kept (more than %d "
				"execs of one pid within a second): their samples have no "
				"mappings\n",
				ts.images_dropped, MMAPTRACK_MAX_IMAGES);
		if (m->ms.exec_placed)
			fprintf(stderr,
				"psym-collect: %" PRIu64 " samples taken inside an exec (at the "
				"new program's first instruction) placed in the image after it\n",
				m->ms.exec_placed);
		if (ts.lost)
			fprintf(stderr,
				"psym-collect: to lose no mmap records, raise --mmap-pages "
				"(now %ld)\n",
				o->mmap_pages);
	}
	meta_bid_misses(m, stderr, o->verbose);
	/* --stack-copy's stacks are unwound later, without frame pointers. */
	if (!o->stack_copy)
		fp_notes(cp);
	if (errs[PSYM_ERR_COLLISION] || errs[PSYM_ERR_COUNTS_FULL])
		fprintf(stderr,
			"psym-collect: to lose less, raise --stack-entries (now %u) for "
			"collisions, --count-entries (now %u) for a full counts map, or "
			"lower -F\n",
			b->stack_entries, b->count_entries);
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
 * What main holds for the run. Each part has one owner (collect.h): the
 * options, the output and the recorders here, the BPF side (drain.c), the
 * process metadata (procmeta.c), the kernel symbols (sidefiles.c). The
 * steps are given only the parts they use; only the run's own steps
 * (collect, sample_loop, finish, end_window) see them all.
 */
struct collector {
	struct opts o;
	struct output window; /* the profile under way and where it goes */
	struct bpfmaps bpf;
	struct meta meta;
	struct ksyms ks;
	struct mmaptrack *mt; /* mappings as they are made; NULL: --no-mmap-track */
	struct stackcopy *sc; /* --stack-copy */
};

/* The kallsyms copy for the side files, when the profile has kernel frames. */
static const struct ksyms *kframes(const struct collector *c)
{
	bool kernel = c->bpf.kernel_frames || (c->sc && !c->o.no_kernel);

	return kernel ? &c->ks : NULL;
}

/*
 * --rotate: write the window that ends now (its samples drained), remove
 * the old ones beyond --keep/--max-disk, and start the next with an empty
 * profile. An exit code: a window not written does not stop the run.
 */
static int end_window(struct collector *c, bool last, int *code)
{
	struct output *w = &c->window;
	struct psym_err e = { 0 };
	struct psym_out out;
	int64_t now = now_ns(), dur = now - w->win_start;
	bool written = false;
	int ret;

	w->windows++;
	/* The stack copies first: the profile, once there, is unwound whole. */
	if (c->sc && (ret = stackcopy_window_end(c->sc, &e)) != 0) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		*code = PSYM_EXIT_SYSTEM;
	}
	ret = psym_out_open(&out, w->outname, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		*code = psym_exit_code(ret);
	} else if ((ret = write_profile(&c->o, w->cp, kframes(c), &out, dur, &written)) != 0) {
		*code = ret;
	}
	summary(&c->o, &c->bpf, &c->meta, w->cp, dur, written);
	if (written)
		rotate_prune(w->pattern, w->outname, c->o.keep, c->o.max_disk, stderr);
	if (c->o.verbose)
		fprintf(stderr, "psym-collect: window %" PRIu64 " done, resident %ld kB\n",
			w->windows, rss_kb());
	if (last)
		return 0;
	/* The next window: a new profile; each process's maps are given again. */
	psym_collectprof_free(w->cp);
	w->cp = NULL;
	meta_profile(&c->meta, NULL);
	w->win_start = now_ns();
	w->win_t = time(NULL);
	ret = new_profile(w, &c->meta, &c->ks, &e);
	if (!ret && c->sc)
		ret = psym_collectprof_comment(w->cp, PSYM_USTACKS_COMMENT);
	if (!ret)
		ret = window_name(&c->o, w, &e);
	if (!ret && c->sc)
		ret = side_dir_ready(c->o.out, 0700, &e);
	if (!ret && c->sc)
		ret = stackcopy_window_start(c->sc, c->o.out, &e);
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
static int output_open(struct opts *o, struct output *w)
{
	struct psym_err e = { 0 };
	int ret = 0;

	if ((!o->no_side_files || o->stack_copy) && !o->rotate_ns)
		ret = side_dir_ready(o->out, o->stack_copy ? 0700 : 0755, &e);
	if (!ret && o->rotate_ns) {
		/* Can the first window's file be written? */
		w->pattern = o->out;
		w->win_t = time(NULL);
		ret = rotate_check(w->pattern, &e);
		if (!ret)
			ret = window_name(o, w, &e);
		if (!ret && o->stack_copy)
			ret = side_dir_ready(o->out, 0700, &e);
		if (!ret && (ret = psym_out_open(&w->out, w->outname, &e)) == 0)
			psym_out_abort(&w->out);
	} else if (!ret) {
		ret = psym_out_open(&w->out, o->out, &e);
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
	struct follow follow;	    /* whose process trees are followed */
	struct bpf_link *flinks[2]; /* their forks and exits */
};

/* The BPF program's filters and what it loads, from the options. */
static void bpf_configure(struct profile_bpf *skel, const struct opts *o, const struct follow *f)
{
	for (int i = 0; i < o->npids; i++)
		skel->rodata->filter_pids[i] = (uint32_t)o->pids[i];
	skel->rodata->n_filter_pids = (uint32_t)o->npids;
	skel->rodata->no_user = o->no_user;
	skel->rodata->no_kernel = o->no_kernel;
	skel->rodata->self_pid = (uint32_t)getpid();
	skel->rodata->follow_tree = f->n > 0 && !o->stack_copy;
	if (!skel->rodata->follow_tree) {
		/* Not needed: loaded only where they are (they need the kernel's BTF). */
		bpf_program__set_autoload(skel->progs.psym_fork, false);
		bpf_program__set_autoload(skel->progs.psym_exit, false);
	}
}

/*
 * The BPF program opened, sized for the online CPUs, loaded, and following
 * the process trees of a COMMAND or of the -p processes (not sampling
 * yet). An exit code.
 */
static int bpf_load(struct bpfmaps *bm, const struct opts *o, struct sampler *s, pid_t cmd_pid)
{
	struct psym_err e = { 0 };

	s->ncpu = online_cpus(s->cpus, 4096);
	if (s->ncpu <= 0) {
		fprintf(stderr, "psym-collect: cannot read the online CPUs\n");
		return PSYM_EXIT_SYSTEM;
	}
	size_maps(bm, o, s->ncpu);
	follow_plan(&s->follow, cmd_pid, o->pids, o->npids, !o->no_inherit);
	if (bpfmaps_table_alloc(bm)) {
		fprintf(stderr, "psym-collect: out of memory\n");
		return PSYM_EXIT_SYSTEM;
	}
	bm->skel = profile_bpf__open();
	if (!bm->skel) {
		fprintf(stderr, "psym-collect: cannot open the BPF program: %s\n", strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	bpf_configure(bm->skel, o, &s->follow);
	if (bpf_map__set_max_entries(bm->skel->maps.stacks0, bm->stack_entries) ||
	    bpf_map__set_max_entries(bm->skel->maps.stacks1, bm->stack_entries) ||
	    bpf_map__set_max_entries(bm->skel->maps.counts0, bm->count_entries) ||
	    bpf_map__set_max_entries(bm->skel->maps.counts1, bm->count_entries)) {
		fprintf(stderr, "psym-collect: cannot size the BPF maps: %s\n", strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	if (profile_bpf__load(bm->skel)) {
		fprintf(stderr,
			"psym-collect: cannot load the BPF program (needs root or "
			"CAP_BPF+CAP_PERFMON): %s\n",
			strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	bm->stacks_fd[0] = bpf_map__fd(bm->skel->maps.stacks0);
	bm->stacks_fd[1] = bpf_map__fd(bm->skel->maps.stacks1);
	bm->counts_fd[0] = bpf_map__fd(bm->skel->maps.counts0);
	bm->counts_fd[1] = bpf_map__fd(bm->skel->maps.counts1);
	bm->errors_fd = bpf_map__fd(bm->skel->maps.errors);
	if (bm->skel->rodata->follow_tree &&
	    follow_start(bm->skel->maps.follow, bm->skel->progs.psym_fork,
			 bm->skel->progs.psym_exit, &s->follow, s->flinks, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		return PSYM_EXIT_SYSTEM;
	}
	return PSYM_EXIT_OK;
}

/* The first profile, with what every profile of the run says of the host. */
static int profile_start(const struct opts *o, struct output *w, struct meta *m,
			 const struct ksyms *ks)
{
	struct psym_err e = { 0 };
	struct psym_hostid host;
	int ret;

	psym_kernel_notes_build_id("/sys/kernel/notes", w->kbid, &e);
	w->meta.period_ns = 1000000000L / o->hz;
	w->meta.stack_depth_max = PSYM_MAX_STACK;
	w->meta.kernel_build_id = w->kbid[0] ? w->kbid : NULL;
	psym_hostid_local(&host);
	psym_hostid_format(&host, w->idline, sizeof(w->idline));
	ret = new_profile(w, m, ks, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", ret == PSYM_ENOMEM ? "out of memory" : e.msg);
		return PSYM_EXIT_SYSTEM;
	}
	return PSYM_EXIT_OK;
}

/* Samples carry their process's image from now on (fd: its map, -1: they do not). */
static void images_start(struct collector *c, int fd)
{
	meta_images(&c->meta, fd);
	if (fd >= 0)
		mmaptrack_images_since(c->mt, (uint64_t)now_ns());
}

/*
 * What records beside the BPF program, opened before sampling starts: the
 * mappings as they are made (no process started after it goes unrecorded;
 * --stack-copy needs the mappings as much), and --stack-copy's own
 * program; the process metadata reads from both. An exit code.
 */
static int recorders_open(struct collector *c, const struct sampler *s)
{
	const struct opts *o = &c->o;
	struct psym_err e = { 0 };

	if (!o->no_track) {
		struct mmaptrack_opts mo = { s->cpus, 4096, (uint32_t)o->mmap_pages,
					     (uint32_t)o->max_procs, 1 << 16 };

		if (mmaptrack_open(&mo, &c->mt, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			return PSYM_EXIT_SYSTEM;
		}
	}
	meta_recorders(&c->meta, c->mt, NULL);
	/* Execs followed once the tracker records them (image.bpf.h). */
	if (!o->stack_copy)
		images_start(c, images_attach(c->bpf.skel->progs.psym_exec,
					      &c->bpf.skel->links.psym_exec,
					      c->bpf.skel->maps.images));
	if (o->stack_copy) {
		struct stackcopy_opts so = { (uint32_t)o->stack_copy,
					     o->pids,
					     o->npids,
					     o->no_kernel,
					     o->verbose,
					     o->hz,
					     s->ncpu,
					     o->out,
					     stackcopy_need_maps,
					     &c->meta,
					     &s->follow };

		if (psym_collectprof_comment(c->window.cp, PSYM_USTACKS_COMMENT) ||
		    stackcopy_open(&so, &c->window.cp, &c->sc, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg[0] ? e.msg : "out of memory");
			return PSYM_EXIT_SYSTEM;
		}
		meta_recorders(&c->meta, c->mt, c->sc);
		images_start(c, stackcopy_images(c->sc));
	}
	return PSYM_EXIT_OK;
}

/* Sampling starts: a perf event on each online CPU, prog attached to each. */
static int sampler_attach(struct sampler *s, struct bpf_program *prog, long hz)
{
	s->links = calloc(4096, sizeof(*s->links));
	if (!s->links)
		return PSYM_EXIT_SYSTEM;
	for (int cpu = 0; cpu < 4096; cpu++) {
		int fd;

		if (!s->cpus[cpu])
			continue;
		fd = perf_open(cpu, hz);
		if (fd < 0) {
			fprintf(stderr, "psym-collect: cannot open a perf event on CPU %d: %s\n",
				cpu, strerror(errno));
			return PSYM_EXIT_SYSTEM;
		}
		s->links[s->nlinks] = bpf_program__attach_perf_event(prog, fd);
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

/*
 * Sample until a signal, -d, the targets' exit or a failure (the return:
 * out of memory), draining every DRAIN_NS and ending --rotate's windows
 * (a window not written sets *code).
 */
static int sample_loop(struct collector *c, struct targets *t, int64_t start, int *code)
{
	const struct opts *o = &c->o;
	struct output *w = &c->window;
	int64_t end_at = o->duration > 0 ? start + (int64_t)(o->duration * NS) : 0;
	int64_t next_drain = start + DRAIN_NS;
	int ret = 0;

	while (!stop && !ret) {
		int64_t now = now_ns(), until = next_drain;

		if (end_at && now >= end_at)
			break;
		if (end_at && end_at < until)
			until = end_at;
		if (o->rotate_ns && w->win_start + o->rotate_ns < until)
			until = w->win_start + o->rotate_ns;
		if (until - now > POLL_NS)
			until = now + POLL_NS;
		if (wait_targets(t->pfd, t->npfd, o->npids + (t->cmd.pidfd >= 0), until - now)) {
			t->gone = true;
			break;
		}
		/* Mappings first: the samples polled next may need them. */
		mmaptrack_poll(c->mt, c->bpf.ds.drains);
		if (c->sc && (ret = stackcopy_poll(c->sc, 0)) != 0)
			break;
		now = now_ns();
		if (now >= next_drain && !stop) {
			int64_t mu = now + META_NS;

			if (end_at && mu > end_at)
				mu = end_at;
			ksyms_join(&c->ks, w->cp);
			ret = drain(&c->bpf, &c->meta, c->mt, w->cp, mu, false);
			if (ret)
				break;
			next_drain = now_ns() + DRAIN_NS;
		}
		/* --rotate: the window's end (or SIGHUP's); its samples are drained
		 * first, those taken while it is written go to the next. */
		if (o->rotate_ns && !stop && (hup || now_ns() >= w->win_start + o->rotate_ns)) {
			hup = 0;
			ksyms_join(&c->ks, w->cp);
			ret = drain(&c->bpf, &c->meta, c->mt, w->cp, now_ns() + META_NS, false);
			if (!ret)
				ret = end_window(c, false, code);
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
static void finish(struct collector *c, int ret, int *code)
{
	struct output *w = &c->window;
	struct psym_err e = { 0 };
	bool written = false;
	int64_t dur;

	ksyms_join(&c->ks, w->cp);
	if (!ret)
		ret = drain(&c->bpf, &c->meta, c->mt, w->cp, now_ns() + FINAL_META_NS, true);
	else
		meta_final(&c->meta); /* what is written next is not cut short by a signal */
	if (!ret && c->sc)
		ret = stackcopy_poll(c->sc, 0);
	dur = now_ns() - w->win_start;
	if (ret) {
		fprintf(stderr, "psym-collect: out of memory while collecting: writing what "
				"was collected\n");
		*code = PSYM_EXIT_SYSTEM;
	}
	if (c->o.rotate_ns) {
		end_window(c, true, code);
	} else {
		w->open = false;
		ret = write_profile(&c->o, w->cp, kframes(c), &w->out, dur, &written);
		if (ret)
			*code = ret;
	}
	if (c->sc && stackcopy_close(c->sc, stderr, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		*code = PSYM_EXIT_SYSTEM;
	}
	c->sc = NULL;
	meta_recorders(&c->meta, c->mt, NULL);
	if (!c->o.rotate_ns)
		summary(&c->o, &c->bpf, &c->meta, w->cp, dur, written);
}

/*
 * The run, once sampling is attached: the kallsyms copy and the command
 * started, samples taken until the end, then written. An exit code.
 */
static int collect(struct collector *c, struct sampler *s, struct targets *t)
{
	const struct opts *o = &c->o;
	int code = PSYM_EXIT_OK, ret;

	if (o->verbose)
		fprintf(stderr,
			"psym-collect: sampling %s at %ld Hz on %d CPUs (maps: %u stacks, %u "
			"counts per buffer)\n",
			o->npids ? "the given processes" : "all processes", o->hz, s->nlinks,
			c->bpf.stack_entries, c->bpf.count_entries);
	c->ks.subset = !o->kallsyms_full && !o->no_side_files;
	if (!o->no_kernel)
		c->ks.started = pthread_create(&c->ks.t, NULL, read_kallsyms, &c->ks) == 0;
	command_go(&t->cmd); /* sampling runs: the command may start */
	c->window.win_start = now_ns();
	/*
	 * System-wide, every process's maps now, while it runs: one that
	 * exec'd just before the tracker opened and exits before the first
	 * drain would have none else (the tracker saw neither its exec nor
	 * its mappings, and /proc is gone by then).
	 */
	if (c->mt && !o->npids && !o->cmd)
		mmaptrack_seed_running(c->mt, (int)getpid());
	/* The targets' maps now, while they run: they may exit before a drain. */
	ret = meta_first_maps(&c->meta, o->pids, o->npids, c->window.win_start + META_NS);
	if (!ret)
		ret = sample_loop(c, t, c->window.win_start, &code);
	/* Stop sampling, then take everything that is left. */
	sampler_stop(s);
	if (t->gone && !o->cmd)
		fprintf(stderr, "psym-collect: %s exited: stopping\n",
			o->npids > 1 ? "all target processes" : "the target process");
	finish(c, ret, &code);
	return code;
}

/* What the run holds that outlives its steps. */
static void collector_free(struct collector *c)
{
	struct psym_err e = { 0 };

	if (c->ks.started)
		pthread_join(c->ks.t, NULL);
	ksyms_free(&c->ks);
	mmaptrack_close(c->mt);
	stackcopy_close(c->sc, NULL, &e);
	bpfmaps_free(&c->bpf);
	psym_collectprof_free(c->window.cp);
	meta_free(&c->meta);
}

int main(int argc, char **argv)
{
	struct collector c = { 0 };
	struct targets t = { .cmd = COMMAND_NONE };
	struct sampler s = { 0 };
	int code;

	collect_options(argc, argv, &c.o);
	meta_init(&c.meta, c.o.verbose, c.o.pids, c.o.npids, &stop);
	c.bpf.stop = &stop;
	/* Everything that can fail is checked before sampling starts. */
	code = targets_open(&c.o, &t);
	if (code == PSYM_EXIT_OK)
		code = output_open(&c.o, &c.window);
	if (code == PSYM_EXIT_OK)
		code = bpf_load(&c.bpf, &c.o, &s, t.cmd.pid);
	if (code == PSYM_EXIT_OK)
		code = profile_start(&c.o, &c.window, &c.meta, &c.ks);
	if (code == PSYM_EXIT_OK)
		code = recorders_open(&c, &s);
	if (code == PSYM_EXIT_OK)
		code = sampler_attach(
			&s, c.sc ? stackcopy_prog(c.sc) : c.bpf.skel->progs.psym_sample, c.o.hz);
	if (code == PSYM_EXIT_OK)
		code = collect(&c, &s, &t);
	/* With a COMMAND: its exit status when all went well. */
	if (c.o.cmd) {
		int status = command_finish(&t.cmd, !t.gone);

		if (code == PSYM_EXIT_OK)
			code = status;
	}
	sampler_free(&s);
	collector_free(&c);
	targets_close(&t);
	if (c.window.open)
		psym_out_abort(&c.window.out);
	return code;
}
