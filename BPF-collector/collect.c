/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: a minimal BPF CPU profiler that writes an unsymbolized pprof
 * profile (addresses, mappings with build IDs) and the few side files only
 * the profiled host has (kallsyms, the vDSO, perf maps). Thin main: the
 * profile is built by libpsym's collectprof module. This file holds the
 * options, setup and summary; the drain loop, process metadata and side
 * files are in drain.c, procmeta.c and sidefiles.c (collect.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
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

static const char usage_text[] =
	"Usage: psym-collect [OPTIONS] [-- COMMAND [ARGS]]\n"
	"Sample user and kernel stacks with BPF and write an unsymbolized pprof\n"
	"profile with mappings and build IDs, for `psym symbolize` elsewhere.\n\n"
	"  -p, --pid PID          profile this process (repeatable, up to 16) and stop\n"
	"                         when all of them have exited; default: every\n"
	"                         process (system-wide)\n"
	"  -F, --frequency HZ     samples per second per CPU (default 99)\n"
	"  -d, --duration SEC     stop after SEC seconds (default: at SIGINT/SIGTERM)\n"
	"  -o, --output FILE      profile to write (default cpu.pb.gz)\n"
	"      --no-kernel        do not record kernel stacks\n"
	"      --no-user          do not record user stacks\n"
	"      --no-side-files    do not write FILE.d/ (kallsyms, vDSO, perf maps)\n"
	"      --stack-entries N  stack map size per buffer (default: from -F and the\n"
	"                         CPU count); raise it when the summary reports\n"
	"                         stack-map collisions\n"
	"      --count-entries N  counts map size per buffer (default: the same);\n"
	"                         raise it when samples are lost to a full counts map\n"
	"      --stack-copy BYTES copy the top BYTES (64..32768, e.g. 8192) of each\n"
	"                         sampled user stack and its registers into\n"
	"                         FILE.d/ustacks.gz (mode 0600: raw stack bytes can\n"
	"                         hold secrets) for psym to unwind with the\n"
	"                         binaries' CFI: for code without frame pointers\n"
	"      --no-mmap-track    read each process's maps from /proc only (a process\n"
	"                         that exits before a drain then loses its mappings)\n"
	"      --max-procs N      processes whose mappings are recorded as they are\n"
	"                         made, at once (default 16384)\n"
	"      --mmap-pages N     ring buffer pages per CPU for those records (a power\n"
	"                         of two, default 64); raise it when the summary\n"
	"                         reports lost mmap records\n"
	"      --archive          also pack every binary and debug file the profile's\n"
	"                         mappings name (by build ID, from the processes' own\n"
	"                         view: other mount namespaces too) into OUT without\n"
	"                         .pb.gz, plus .tar.zst, for `psym symbolize\n"
	"                         --debug-pkg` where the binaries are not\n"
	"      --exclude-path P   with --archive: leave out mappings under P\n"
	"                         (repeatable, e.g. /usr)\n"
	"      --rotate DURATION  write one complete profile per window of DURATION\n"
	"                         (e.g. 10m; units ms, s, m, h; at least 100ms) until\n"
	"                         SIGINT/SIGTERM (which finish the window); -o is\n"
	"                         then a strftime pattern in UTC (default\n"
	"                         cpu-%Y%m%dT%H%M%SZ.pb.gz); SIGHUP ends a window early\n"
	"      --keep N           with --rotate: keep the newest N windows' files\n"
	"      --max-disk SIZE    with --rotate: remove the oldest windows' files (and\n"
	"                         side directories) beyond SIZE bytes (K, M, G)\n"
	"  -- COMMAND [ARGS]      run COMMAND and profile it and the processes it\n"
	"                         starts, until it exits; exit with its status\n"
	"                         (128+N when killed by signal N)\n"
	"  -v, --verbose          report progress and a few examples of what was lost\n"
	"  -h, --help             show this help\n"
	"      --version          show the version\n\n"
	"Exit status: 0 success; 2 usage error (or no such -p process); 3 system\n"
	"failure (BPF, I/O); with a COMMAND, its exit status when all went well.\n";

/* One line, as every error: what is wrong, then where help is. */
static void die_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "psym-collect: %s%s%s%s (see 'psym-collect --help')\n", msg,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	exit(PSYM_EXIT_BADINPUT);
}

/* A whole number in [lo, hi], or a usage error naming the option and its range. */
static long parse_long(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr,
			"psym-collect: invalid %s '%s': a whole number from %ld to %ld (see "
			"'psym-collect --help')\n",
			what, s, lo, hi);
		exit(PSYM_EXIT_BADINPUT);
	}
	return v;
}

/* --rotate's DURATION: a number with ms, s (default), m or h; 100 ms to 7 days. */
static int64_t parse_duration(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 }, { "m", 60e9 }, { "h", 3600e9 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!errno && end != s && v > 0)
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].unit) && v * units[i].ns >= 1e8 &&
			    v * units[i].ns <= 7 * 86400e9)
				return (int64_t)(v * units[i].ns);
	die_usage("invalid --rotate DURATION (100ms to 7 days, e.g. 10m, 1h)", s);
	return 0;
}

/* getopt_long returned '?' (its own message is off: opterr = 0). */
static void die_bad_option(char **argv, const char *shortopts)
{
	char msg[200];

	psym_bad_option_text(msg, sizeof(msg), argv, shortopts);
	die_usage(msg, NULL);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	enum {
		O_NO_KERNEL = 1000,
		O_NO_USER,
		O_NO_SIDE,
		O_STACKS,
		O_COUNTS,
		O_STACK_COPY,
		O_ARCHIVE,
		O_EXCLUDE,
		O_NO_TRACK,
		O_MAX_PROCS,
		O_MMAP_PAGES,
		O_ROTATE,
		O_KEEP,
		O_MAX_DISK,
		O_VERSION
	};
	static const struct option lo[] = { { "pid", required_argument, NULL, 'p' },
					    { "frequency", required_argument, NULL, 'F' },
					    { "duration", required_argument, NULL, 'd' },
					    { "output", required_argument, NULL, 'o' },
					    { "no-kernel", no_argument, NULL, O_NO_KERNEL },
					    { "no-user", no_argument, NULL, O_NO_USER },
					    { "no-side-files", no_argument, NULL, O_NO_SIDE },
					    { "stack-entries", required_argument, NULL, O_STACKS },
					    { "count-entries", required_argument, NULL, O_COUNTS },
					    { "stack-copy", required_argument, NULL, O_STACK_COPY },
					    { "archive", no_argument, NULL, O_ARCHIVE },
					    { "no-mmap-track", no_argument, NULL, O_NO_TRACK },
					    { "max-procs", required_argument, NULL, O_MAX_PROCS },
					    { "mmap-pages", required_argument, NULL, O_MMAP_PAGES },
					    { "exclude-path", required_argument, NULL, O_EXCLUDE },
					    { "rotate", required_argument, NULL, O_ROTATE },
					    { "keep", required_argument, NULL, O_KEEP },
					    { "max-disk", required_argument, NULL, O_MAX_DISK },
					    { "verbose", no_argument, NULL, 'v' },
					    { "help", no_argument, NULL, 'h' },
					    { "version", no_argument, NULL, O_VERSION },
					    { 0 } };
	bool out_given = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->hz = 99;
	o->out = "cpu.pb.gz";
	o->max_procs = 16384;
	o->mmap_pages = 64;
	opterr = 0;
	/* "+": options end at the first word of the command. */
	while ((c = getopt_long(argc, argv, "+p:F:d:o:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o->npids == PSYM_MAX_PIDS)
				die_usage("too many -p options (at most 16)", NULL);
			o->pids[o->npids++] = (int)parse_long(optarg, 1, 4194304, "PID");
			break;
		case 'F': o->hz = parse_long(optarg, 1, 100000, "frequency (-F)"); break;
		case 'd':
			o->duration =
				(double)parse_long(optarg, 1, 86400 * 7, "duration (-d, seconds)");
			break;
		case 'o':
			o->out = optarg;
			out_given = true;
			break;
		case O_NO_KERNEL: o->no_kernel = true; break;
		case O_NO_USER: o->no_user = true; break;
		case O_NO_SIDE: o->no_side_files = true; break;
		case O_STACKS:
			o->stack_entries = parse_long(optarg, 1024, 1 << 22, "--stack-entries");
			break;
		case O_COUNTS:
			o->count_entries = parse_long(optarg, 1024, 1 << 22, "--count-entries");
			break;
		case O_STACK_COPY:
			o->stack_copy = parse_long(optarg, 64, PSYM_USTACK_MAX, "--stack-copy");
			break;
		case O_ARCHIVE: o->archive = true; break;
		case O_NO_TRACK: o->no_track = true; break;
		case O_MAX_PROCS:
			o->max_procs = parse_long(optarg, 64, 1 << 22, "--max-procs");
			break;
		case O_MMAP_PAGES:
			o->mmap_pages = parse_long(optarg, 1, 1 << 16, "--mmap-pages");
			if (o->mmap_pages & (o->mmap_pages - 1))
				die_usage("--mmap-pages must be a power of two", optarg);
			break;
		case O_EXCLUDE:
			if (o->nexclude == MAX_EXCLUDES)
				die_usage("too many --exclude-path options (at most 64)", NULL);
			if (!*optarg)
				die_usage("empty --exclude-path", NULL);
			o->exclude[o->nexclude++] = optarg;
			break;
		case O_ROTATE: o->rotate_ns = parse_duration(optarg); break;
		case O_KEEP: o->keep = parse_long(optarg, 1, 1000000, "--keep"); break;
		case O_MAX_DISK: {
			unsigned long long v;

			if (!psym_parse_size(optarg, &v))
				die_usage("invalid --max-disk (a size such as 500M)", optarg);
			o->max_disk = v;
			break;
		}
		case 'v': o->verbose = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case O_VERSION: printf("psym-collect %s\n", PACKAGE_VERSION); exit(0);
		default: die_bad_option(argv, "p:F:d:o:vh");
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->cmd && o->npids)
		die_usage("-p and a COMMAND exclude each other", NULL);
	if ((o->keep || o->max_disk) && !o->rotate_ns)
		die_usage("--keep and --max-disk apply to --rotate", NULL);
	if (o->rotate_ns && o->stack_copy)
		die_usage("--rotate with --stack-copy is not supported yet", NULL);
	if (o->rotate_ns && o->cmd)
		die_usage("--rotate and a COMMAND exclude each other", NULL);
	if (o->rotate_ns && !out_given)
		o->out = "cpu-%Y%m%dT%H%M%SZ.pb.gz";
	if (o->no_kernel && o->no_user)
		die_usage("--no-kernel and --no-user leave nothing to record", NULL);
	if (o->nexclude && !o->archive)
		die_usage("--exclude-path applies to --archive", NULL);
	if (o->no_user && o->stack_copy)
		die_usage("--stack-copy copies user stacks: not with --no-user", NULL);
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

/* A new profile builder for the next window (or the only one). */
static int new_profile(struct run *r, struct psym_err *e)
{
	struct timespec t;
	int ret;

	clock_gettime(CLOCK_REALTIME, &t);
	r->meta.time_ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
	ret = psym_collectprof_new(&r->meta, &r->cp, e);
	if (!ret)
		ret = psym_collectprof_comment(r->cp, r->idline);
	if (ret)
		return ret;
	psym_collectprof_set_buildid_fn(r->cp, file_build_id, r);
	ksyms_apply(&r->ks, r->cp);
	return 0;
}

/* --rotate: the file name of the window that started at r->win_t. */
static int window_name(struct run *r, struct psym_err *e)
{
	r->win_seq = r->win_t == r->name_t ? r->win_seq + 1 : 0;
	r->name_t = r->win_t;
	r->o.out = r->outname;
	return rotate_name(r->pattern, r->win_t, r->win_seq, r->outname, sizeof(r->outname), e);
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
static int end_window(struct run *r, bool last, int *code)
{
	struct psym_err e = { 0 };
	struct psym_out out;
	int64_t now = now_ns(), dur = now - r->win_start;
	bool written = false;
	int ret;

	r->windows++;
	ret = psym_out_open(&out, r->outname, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		*code = psym_exit_code(ret);
	} else if ((ret = write_profile(r, &out, dur, &written)) != 0) {
		*code = ret;
	}
	summary(r, dur, written);
	if (written)
		rotate_prune(r->pattern, r->outname, r->o.keep, r->o.max_disk, stderr);
	if (r->o.verbose)
		fprintf(stderr, "psym-collect: window %" PRIu64 " done, resident %ld kB\n",
			r->windows, rss_kb());
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
	r->win_start = now_ns();
	r->win_t = time(NULL);
	ret = new_profile(r, &e);
	if (!ret)
		ret = window_name(r, &e);
	if (ret)
		fprintf(stderr, "psym-collect: %s\n", ret == PSYM_ENOMEM ? "out of memory" : e.msg);
	return ret;
}

int main(int argc, char **argv)
{
	static bool cpus[4096];
	struct bpf_link **links = NULL;
	struct run r = { 0 };
	struct psym_err e = { 0 };
	struct psym_hostid host;
	struct psym_out out = { 0 };
	struct pollfd pfd[PSYM_MAX_PIDS + 1];
	struct command cmd = COMMAND_NONE;
	struct bpf_link *flinks[2] = { NULL, NULL };
	struct sigaction sa = { .sa_handler = on_stop }, sh = { .sa_handler = on_hup };
	int64_t start, end_at = 0, next_drain;
	int ncpu, nlinks = 0, npfd = 0, ret = 0, exit_code = PSYM_EXIT_OK;
	bool out_open = false, targets_gone = false, written = false;

	parse_args(argc, argv, &r.o);
	psym_hashtab_init(&r.pids, 0);
	psym_hashtab_init(&r.bids, BID_CACHE_MAX);
	/* First, so that a failure below lets it go without running it. */
	if (r.o.cmd && command_start(r.o.cmd, &cmd, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		return PSYM_EXIT_SYSTEM;
	}
	if (cmd.pidfd >= 0)
		pfd[npfd++] = (struct pollfd){ .fd = cmd.pidfd, .events = POLLIN };
	/* No SA_RESTART: a signal ends the wait at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r.o.rotate_ns) {
		sigemptyset(&sh.sa_mask);
		sigaction(SIGHUP, &sh, NULL);
	}
	signal(SIGPIPE, SIG_IGN);

	/* Everything that can fail is checked before sampling starts. */
	check_pids(&r.o);
	for (int i = 0; i < r.o.npids; i++) {
		int fd = (int)syscall(SYS_pidfd_open, r.o.pids[i], 0);

		if (fd < 0) {
			if (errno == ESRCH) {
				fprintf(stderr, "psym-collect: no process with PID %d\n",
					r.o.pids[i]);
				return PSYM_EXIT_BADINPUT;
			}
			break; /* no pidfds here: run until -d or a signal */
		}
		pfd[npfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	if ((!r.o.no_side_files || r.o.stack_copy) && !r.o.rotate_ns &&
	    (ret = side_dir_ready(r.o.out, r.o.stack_copy ? 0700 : 0755, &e)) != 0) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		exit_code = psym_exit_code(ret);
		goto out_pfd;
	}
	if (r.o.rotate_ns) {
		/* Can the first window's file be written? */
		r.pattern = r.o.out;
		r.win_t = time(NULL);
		ret = rotate_check(r.pattern, &e);
		if (!ret)
			ret = window_name(&r, &e);
		if (!ret && (ret = psym_out_open(&out, r.outname, &e)) == 0)
			psym_out_abort(&out);
	} else {
		ret = psym_out_open(&out, r.o.out, &e);
		out_open = !ret;
	}
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		exit_code = psym_exit_code(ret);
		goto out_pfd;
	}
	ncpu = online_cpus(cpus, 4096);
	if (ncpu <= 0) {
		fprintf(stderr, "psym-collect: cannot read the online CPUs\n");
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_pfd;
	}
	size_maps(&r, ncpu);
	r.stack_slot = malloc(r.stack_entries * sizeof(*r.stack_slot));
	r.used_ids = malloc(r.stack_entries * sizeof(*r.used_ids));
	r.stack_len = malloc(r.stack_entries);
	r.stack_ips = malloc((size_t)r.stack_entries * PSYM_MAX_STACK * sizeof(uint64_t));
	if (!r.stack_slot || !r.used_ids || !r.stack_len || !r.stack_ips) {
		fprintf(stderr, "psym-collect: out of memory\n");
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_pfd;
	}
	memset(r.stack_slot, 0xff, r.stack_entries * sizeof(*r.stack_slot));
	r.skel = profile_bpf__open();
	if (!r.skel) {
		fprintf(stderr, "psym-collect: cannot open the BPF program: %s\n", strerror(errno));
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_pfd;
	}
	for (int i = 0; i < r.o.npids; i++)
		r.skel->rodata->filter_pids[i] = (uint32_t)r.o.pids[i];
	r.skel->rodata->n_filter_pids = (uint32_t)r.o.npids;
	r.skel->rodata->no_user = r.o.no_user;
	r.skel->rodata->no_kernel = r.o.no_kernel;
	r.skel->rodata->self_pid = (uint32_t)getpid();
	r.skel->rodata->follow_tree = r.o.cmd && !r.o.stack_copy;
	if (!r.skel->rodata->follow_tree) {
		/* Not needed: loaded only where they are (they need the kernel's BTF). */
		bpf_program__set_autoload(r.skel->progs.psym_fork, false);
		bpf_program__set_autoload(r.skel->progs.psym_exit, false);
	}
	if (bpf_map__set_max_entries(r.skel->maps.stacks0, r.stack_entries) ||
	    bpf_map__set_max_entries(r.skel->maps.stacks1, r.stack_entries) ||
	    bpf_map__set_max_entries(r.skel->maps.counts0, r.count_entries) ||
	    bpf_map__set_max_entries(r.skel->maps.counts1, r.count_entries)) {
		fprintf(stderr, "psym-collect: cannot size the BPF maps: %s\n", strerror(errno));
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_skel;
	}
	if (profile_bpf__load(r.skel)) {
		fprintf(stderr,
			"psym-collect: cannot load the BPF program (needs root or "
			"CAP_BPF+CAP_PERFMON): %s\n",
			strerror(errno));
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_skel;
	}
	r.stacks_fd[0] = bpf_map__fd(r.skel->maps.stacks0);
	r.stacks_fd[1] = bpf_map__fd(r.skel->maps.stacks1);
	r.counts_fd[0] = bpf_map__fd(r.skel->maps.counts0);
	r.counts_fd[1] = bpf_map__fd(r.skel->maps.counts1);
	r.errors_fd = bpf_map__fd(r.skel->maps.errors);
	if (r.skel->rodata->follow_tree &&
	    follow_start(r.skel->maps.follow, r.skel->progs.psym_fork, r.skel->progs.psym_exit,
			 cmd.pid, flinks, &e)) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_skel;
	}
	psym_kernel_notes_build_id("/sys/kernel/notes", r.kbid, &e);
	r.meta.period_ns = 1000000000L / r.o.hz;
	r.meta.kernel_build_id = r.kbid[0] ? r.kbid : NULL;
	psym_hostid_local(&host);
	psym_hostid_format(&host, r.idline, sizeof(r.idline));
	ret = new_profile(&r, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", ret == PSYM_ENOMEM ? "out of memory" : e.msg);
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_skel;
	}
	/* Before sampling starts: no process started after it goes unrecorded
	 * (both modes: --stack-copy needs the mappings as much). */
	if (!r.o.no_track) {
		struct mmaptrack_opts mo = { cpus, 4096, (uint32_t)r.o.mmap_pages,
					     (uint32_t)r.o.max_procs, 1 << 16 };

		if (mmaptrack_open(&mo, &r.mt, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			exit_code = PSYM_EXIT_SYSTEM;
			goto out_skel;
		}
	}
	if (r.o.stack_copy) {
		struct stackcopy_opts so = { (uint32_t)r.o.stack_copy,
					     r.o.pids,
					     r.o.npids,
					     r.o.no_kernel,
					     r.o.verbose,
					     r.o.hz,
					     ncpu,
					     r.o.out,
					     stackcopy_need_maps,
					     &r,
					     cmd.pid };

		if (psym_collectprof_comment(r.cp, PSYM_USTACKS_COMMENT) ||
		    stackcopy_open(&so, &r.cp, &r.sc, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg[0] ? e.msg : "out of memory");
			exit_code = PSYM_EXIT_SYSTEM;
			goto out_skel;
		}
		r.kernel_frames = !r.o.no_kernel; /* for the kallsyms side file */
	}
	links = calloc(4096, sizeof(*links));
	if (!links) {
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_skel;
	}
	for (int cpu = 0; cpu < 4096; cpu++) {
		int fd;

		if (!cpus[cpu])
			continue;
		fd = perf_open(cpu, r.o.hz);
		if (fd < 0) {
			fprintf(stderr, "psym-collect: cannot open a perf event on CPU %d: %s\n",
				cpu, strerror(errno));
			exit_code = PSYM_EXIT_SYSTEM;
			goto out_links;
		}
		links[nlinks] = bpf_program__attach_perf_event(
			r.sc ? stackcopy_prog(r.sc) : r.skel->progs.psym_sample, fd);
		if (!links[nlinks]) {
			fprintf(stderr, "psym-collect: cannot attach to CPU %d: %s\n", cpu,
				strerror(errno));
			close(fd);
			exit_code = PSYM_EXIT_SYSTEM;
			goto out_links;
		}
		nlinks++;
	}
	if (r.o.verbose)
		fprintf(stderr,
			"psym-collect: sampling %s at %ld Hz on %d CPUs (maps: %u stacks, %u "
			"counts per buffer)\n",
			r.o.npids ? "the given processes" : "all processes", r.o.hz, nlinks,
			r.stack_entries, r.count_entries);
	if (!r.o.no_kernel)
		r.ks.started = pthread_create(&r.ks.t, NULL, read_kallsyms, &r.ks) == 0;
	command_go(&cmd); /* sampling runs: the command may start */
	start = now_ns();
	r.win_start = start;
	if (r.o.duration > 0)
		end_at = start + (int64_t)(r.o.duration * NS);
	/* The targets' maps now, while they run: they may exit before a drain. */
	r.meta_until = start + META_NS;
	r.meta_ops = META_OPS;
	for (int i = 0; i < r.o.npids; i++) {
		struct pidinfo *pi = pid_info(&r, r.o.pids[i]);

		if (r.sc && !ret)
			ret = stackcopy_need_maps(&r, r.o.pids[i], NULL, 0);
		else if (pi && budget_ok(&r))
			load_maps(&r, pi);
	}
	next_drain = start + DRAIN_NS;
	while (!stop && !ret) {
		int64_t now = now_ns(), until = next_drain;

		if (end_at && now >= end_at)
			break;
		if (end_at && end_at < until)
			until = end_at;
		if (r.o.rotate_ns && r.win_start + r.o.rotate_ns < until)
			until = r.win_start + r.o.rotate_ns;
		if (until - now > POLL_NS)
			until = now + POLL_NS;
		if (wait_targets(pfd, npfd, r.o.npids + (cmd.pidfd >= 0), until - now)) {
			targets_gone = true;
			break;
		}
		/* Mappings first: the samples polled next may need them. */
		mmaptrack_poll(r.mt, r.ms.drains);
		if (r.sc && (ret = stackcopy_poll(r.sc, 0)) != 0)
			break;
		now = now_ns();
		if (now >= next_drain && !stop) {
			int64_t mu = now + META_NS;

			if (end_at && mu > end_at)
				mu = end_at;
			ksyms_join(&r.ks, r.cp);
			ret = drain(&r, mu);
			if (ret)
				break;
			next_drain = now_ns() + DRAIN_NS;
		}
		/* --rotate: the window's end (or SIGHUP's); its samples are drained
		 * first, those taken while it is written go to the next. */
		if (r.o.rotate_ns && !stop && (hup || now_ns() >= r.win_start + r.o.rotate_ns)) {
			hup = 0;
			ksyms_join(&r.ks, r.cp);
			ret = drain(&r, now_ns() + META_NS);
			if (!ret)
				ret = end_window(&r, false, &exit_code);
			if (ret)
				break;
			next_drain = now_ns() + DRAIN_NS;
		}
	}
	/* Stop sampling, then take everything that is left. */
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	if (targets_gone && !r.o.cmd)
		fprintf(stderr, "psym-collect: %s exited: stopping\n",
			r.o.npids > 1 ? "all target processes" : "the target process");
	r.final = true;
	ksyms_join(&r.ks, r.cp);
	if (!ret)
		ret = drain(&r, now_ns() + FINAL_META_NS);
	if (!ret && r.sc)
		ret = stackcopy_poll(r.sc, 0);
	{
		int64_t dur = now_ns() - (r.o.rotate_ns ? r.win_start : start);

		if (ret) {
			fprintf(stderr,
				"psym-collect: out of memory while collecting: writing what "
				"was collected\n");
			exit_code = PSYM_EXIT_SYSTEM;
		}
		if (r.o.rotate_ns) {
			end_window(&r, true, &exit_code);
		} else {
			out_open = false;
			ret = write_profile(&r, &out, dur, &written);
			if (ret)
				exit_code = ret;
		}
		if (r.sc && stackcopy_close(r.sc, stderr, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			exit_code = PSYM_EXIT_SYSTEM;
		}
		r.sc = NULL;
		if (!r.o.rotate_ns)
			summary(&r, dur, written);
	}
out_links:
	if (r.o.cmd) {
		int status = command_finish(&cmd, !targets_gone);

		if (exit_code == PSYM_EXIT_OK)
			exit_code = status;
	}
	if (r.ks.started)
		pthread_join(r.ks.t, NULL);
	free(r.ks.buf);
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	free(links);
out_skel:
	bpf_link__destroy(flinks[0]);
	bpf_link__destroy(flinks[1]);
	mmaptrack_close(r.mt);
	stackcopy_close(r.sc, NULL, &e);
	profile_bpf__destroy(r.skel);
	psym_collectprof_free(r.cp);
out_pfd:
	command_finish(&cmd, true); /* after a failure: let it go unrun */
	if (out_open)
		psym_out_abort(&out);
	for (int i = 0; i < npfd; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	for (size_t i = 0; i < r.npinfo; i++)
		free(r.pinfo[i]);
	free(r.pinfo);
	for (size_t i = 0; i < r.nbident; i++)
		free(r.bident[i]);
	free(r.bident);
	psym_hashtab_free(&r.pids);
	psym_hashtab_free(&r.bids);
	free(r.stack_slot);
	free(r.used_ids);
	free(r.stack_len);
	free(r.stack_ips);
	return exit_code;
}
