/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: a minimal BPF CPU profiler that writes an unsymbolized pprof
 * profile (addresses, mappings with build IDs) and the few side files only
 * the profiled host has (kallsyms, the vDSO, perf maps). Thin main: the
 * profile is built by libpsym's collectprof module.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hashtab.h"
#include "hostid.h"
#include "kmodules.h"
#include "psym.h"
#include "profile.h"
#include "profile.skel.h"
#include "stackcopy.h"
#include "unwindprof.h"
#include "ustack.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

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
#define MAX_REREADS 4	 /* re-reads of one process's maps (dlopen, JIT) */
#define MAX_EXAMPLES 5	 /* -v: examples of each kind of per-process problem */
#define MAX_PERF_MAPS 4096 /* perf maps saved */
#define BID_CACHE_MAX (1 << 16)

struct opts {
	int pids[PSYM_MAX_PIDS];
	int npids;
	long hz;
	double duration; /* 0 = until a signal */
	const char *out;
	long stack_entries, count_entries; /* 0: sized from -F and the CPUs */
	bool no_kernel, no_user, no_side_files, verbose;
	long stack_copy; /* --stack-copy BYTES; 0: frame pointers */
};

static const char usage_text[] =
	"Usage: psym-collect [OPTIONS]\n"
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
	"  -v, --verbose          report progress and a few examples of what was lost\n"
	"  -h, --help             show this help\n"
	"      --version          show the version\n\n"
	"Exit status: 0 success; 2 usage error (or no such -p process); 3 system\n"
	"failure (BPF, I/O).\n";

static void die_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "psym-collect: %s%s%s%s\nTry 'psym-collect --help'.\n", msg,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	exit(PSYM_EXIT_BADINPUT);
}

static long parse_long(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		die_usage(what, s);
	return v;
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
					    { "verbose", no_argument, NULL, 'v' },
					    { "help", no_argument, NULL, 'h' },
					    { "version", no_argument, NULL, O_VERSION },
					    { 0 } };
	int c;

	memset(o, 0, sizeof(*o));
	o->hz = 99;
	o->out = "cpu.pb.gz";
	while ((c = getopt_long(argc, argv, "p:F:d:o:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o->npids == PSYM_MAX_PIDS)
				die_usage("too many -p options (at most 16)", NULL);
			o->pids[o->npids++] = (int)parse_long(optarg, 1, 4194304, "invalid PID");
			break;
		case 'F': o->hz = parse_long(optarg, 1, 100000, "invalid frequency"); break;
		case 'd':
			o->duration = (double)parse_long(optarg, 1, 86400 * 7, "invalid duration");
			break;
		case 'o': o->out = optarg; break;
		case O_NO_KERNEL: o->no_kernel = true; break;
		case O_NO_USER: o->no_user = true; break;
		case O_NO_SIDE: o->no_side_files = true; break;
		case O_STACKS:
			o->stack_entries =
				parse_long(optarg, 1024, 1 << 22, "invalid --stack-entries (1024..4194304)");
			break;
		case O_COUNTS:
			o->count_entries =
				parse_long(optarg, 1024, 1 << 22, "invalid --count-entries (1024..4194304)");
			break;
		case O_STACK_COPY:
			o->stack_copy = parse_long(optarg, 64, PSYM_USTACK_MAX, "invalid --stack-copy");
			break;
		case 'v': o->verbose = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case O_VERSION: printf("psym-collect %s\n", PACKAGE_VERSION); exit(0);
		default: die_usage("invalid option", NULL);
		}
	}
	if (optind != argc)
		die_usage("unexpected argument", argv[optind]);
	if (o->no_kernel && o->no_user)
		die_usage("--no-kernel and --no-user leave nothing to record", NULL);
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

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * NS + t.tv_nsec;
}

/* What is known of a process that samples named. */
struct pidinfo {
	int pid;
	bool gone;	/* its maps could not be read: exited */
	bool skipped;	/* a sample went without its maps: metadata cap */
	uint8_t rereads;
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
};

/* Per-run counters of metadata work, reported in the summary. */
struct metastats {
	uint64_t maps_read, maps_gone, maps_failed, maps_skipped, rereads;
	uint64_t bids_read, bids_cached, bids_failed, bids_skipped;
	uint64_t stacks_evicted, stack_sweeps, drains;
	int64_t drain_max_ns;
};

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
};

static void example(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* -v: a few examples of per-process problems; the rest are counted. */
static void example(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->o.verbose || r->examples > MAX_EXAMPLES)
		return;
	if (r->examples++ == MAX_EXAMPLES) {
		fprintf(stderr, "psym-collect: (more of these are only counted in the summary)\n");
		return;
	}
	fputs("psym-collect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* May the drain under way do one more piece of metadata work? */
static bool budget_ok(struct run *r)
{
	if (r->meta_ops <= 0 || (stop && !r->final))
		return false;
	if (now_ns() >= r->meta_until)
		return false;
	r->meta_ops--;
	return true;
}

static struct pidinfo *pid_info(struct run *r, int pid)
{
	struct psym_err e = { 0 };
	struct pidinfo *pi, **np;
	void *v;

	if (psym_hashtab_get(&r->pids, &pid, sizeof(pid), &v) == 0)
		return v;
	np = realloc(r->pinfo, (r->npinfo + 1) * sizeof(*np));
	if (!np)
		return NULL;
	r->pinfo = np;
	pi = calloc(1, sizeof(*pi));
	if (!pi)
		return NULL;
	pi->pid = pid;
	if (psym_hashtab_put(&r->pids, &pi->pid, sizeof(pi->pid), pi, &e)) {
		free(pi);
		return NULL;
	}
	r->pinfo[r->npinfo++] = pi;
	return pi;
}

/* Read pid's maps into the profile builder (no build IDs yet: see file_build_id). */
static void load_maps(struct run *r, struct pidinfo *pi)
{
	struct psym_procmap *maps = NULL;
	struct psym_err e = { 0 };
	size_t n = 0;
	int ret = psym_procmaps_read(pi->pid, &maps, &n, &e);

	if (ret == PSYM_NOENT) {
		pi->gone = true;
		r->ms.maps_gone++;
		example(r, "pid %d exited before its maps were read", pi->pid);
		return;
	}
	if (ret) {
		pi->gone = true;
		r->ms.maps_failed++;
		example(r, "pid %d: %s", pi->pid, e.msg);
		return;
	}
	r->ms.maps_read++;
	if (psym_collectprof_process(r->cp, pi->pid, maps, n) != 0)
		r->ms.maps_failed++;
	free(maps);
}

/*
 * The build ID of a mapped file, asked for by the profile builder the
 * first time a sample needs the mapping: one stat through
 * /proc/PID/map_files, then the cache by (device, inode, mtime); on a miss
 * the file's notes are read with pread (no mapping of the file).
 */
static void file_build_id(void *ud, int pid, struct psym_procmap *m)
{
	struct run *r = ud;
	struct psym_err e = { 0 };
	char path[sizeof(m->path) + 64];
	struct bident *b, **nb;
	struct bidkey k;
	struct stat st;
	size_t len = strlen(m->path);
	void *v;
	int fd;

	if (!budget_ok(r)) {
		r->ms.bids_skipped++;
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
		 m->limit);
	if (stat(path, &st) != 0) {
		if (len > 10 && !strcmp(m->path + len - 10, " (deleted)"))
			goto failed;
		snprintf(path, sizeof(path), "/proc/%d/root%s", pid, m->path);
		if (stat(path, &st) != 0)
			goto failed;
	}
	if (!S_ISREG(st.st_mode))
		goto failed;
	memset(&k, 0, sizeof(k));
	k.dev = st.st_dev;
	k.ino = st.st_ino;
	k.sec = st.st_mtim.tv_sec;
	k.nsec = st.st_mtim.tv_nsec;
	if (psym_hashtab_get(&r->bids, &k, sizeof(k), &v) == 0) {
		b = v;
		snprintf(m->build_id, sizeof(m->build_id), "%s", b->id);
		r->ms.bids_cached++;
		return;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		goto failed;
	b->k = k;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || psym_procmaps_fd_build_id(fd, b->id) < 0)
		b->id[0] = '\0';
	if (fd >= 0)
		close(fd);
	r->ms.bids_read++;
	snprintf(m->build_id, sizeof(m->build_id), "%s", b->id);
	nb = r->nbident < BID_CACHE_MAX ? realloc(r->bident, (r->nbident + 1) * sizeof(*nb))
					: NULL;
	if (!nb || psym_hashtab_put(&r->bids, &b->k, sizeof(b->k), b, &e)) {
		free(b);
		return;
	}
	r->bident = nb;
	r->bident[r->nbident++] = b;
	return;
failed:
	r->ms.bids_failed++;
	example(r, "pid %d: cannot read the build ID of '%s'", pid, m->path);
}

/* The maps a sample of pid needs, within the drain's budget. */
static void need_maps(struct run *r, int pid, const uint64_t *uips, size_t nu)
{
	struct pidinfo *pi;

	if (!nu)
		return; /* a kernel-only stack: no process metadata needed */
	pi = pid_info(r, pid);
	if (!pi || pi->gone)
		return;
	if (!psym_collectprof_known(r->cp, pid)) {
		if (budget_ok(r)) {
			load_maps(r, pi);
		} else if (!pi->skipped) {
			pi->skipped = true;
			r->ms.maps_skipped++;
		}
	} else if (pi->rereads < MAX_REREADS && pi->reread_drain != r->ms.drains &&
		   psym_collectprof_unknown(r->cp, pid, uips, 1) && budget_ok(r)) {
		/* The leaf (the one frame never guessed by an unwinder) outside
		 * the known mappings: dlopen, new JIT code. Once per drain. */
		pi->reread_drain = r->ms.drains;
		pi->rereads++;
		r->ms.rereads++;
		load_maps(r, pi);
	}
}

/* Stack id of buffer b, read once per drain; its frames and count. */
static size_t read_stack(struct run *r, int b, int32_t id, const uint64_t **ips)
{
	uint64_t *slot;
	size_t n = 0;

	*ips = NULL;
	if (id < 0 || (uint32_t)id >= r->stack_entries)
		return 0;
	if (r->stack_slot[id] >= 0) {
		*ips = r->stack_ips + (size_t)r->stack_slot[id] * PSYM_MAX_STACK;
		return r->stack_len[r->stack_slot[id]];
	}
	slot = r->stack_ips + r->nused * PSYM_MAX_STACK;
	if (bpf_map_lookup_elem(r->stacks_fd[b], &id, slot) != 0) {
		r->ms.stacks_evicted++;
		return 0;
	}
	while (n < PSYM_MAX_STACK && slot[n])
		n++;
	r->stack_slot[id] = (int32_t)r->nused;
	r->stack_len[r->nused] = (uint8_t)n;
	r->used_ids[r->nused++] = (uint32_t)id;
	*ips = slot;
	return n;
}

static int add_sample(struct run *r, int b, struct psym_sample_key *key, uint64_t count)
{
	const uint64_t *kips, *uips;
	size_t nk = read_stack(r, b, key->kern_stack_id, &kips);
	size_t nu = read_stack(r, b, key->user_stack_id, &uips);

	if (nk)
		r->kernel_frames = true;
	need_maps(r, (int)key->pid, uips, nu);
	key->comm[PSYM_COMM_LEN - 1] = '\0';
	return psym_collectprof_add(r->cp, (int)key->pid, (int)key->tid, key->comm, kips, nk, uips,
				    nu, count);
}

static uint64_t bpf_errors(struct run *r, uint32_t k)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (vals && bpf_map_lookup_elem(r->errors_fd, &k, vals) == 0)
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
	free(vals);
	return sum;
}

/* Delete every stack of buffer b (stacks whose count was dropped linger). */
static void sweep_stacks(struct run *r, int b)
{
	uint32_t id;

	r->ms.stack_sweeps++;
	while (bpf_map_get_next_key(r->stacks_fd[b], NULL, &id) == 0 && !(stop && !r->final))
		if (bpf_map_delete_elem(r->stacks_fd[b], &id) != 0)
			break;
}

/* Move buffer b's counts into the profile and free its stacks. */
static int drain_buffer(struct run *r, int b)
{
	enum { BATCH = 512 };
	static struct psym_sample_key keys[BATCH];
	static uint64_t vals[BATCH];
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint64_t full;
	int ret = 0, guard = (int)r->count_entries * 2 + 16;
	bool batch = true, more = true, first = true;
	uint32_t in = 0, outb = 0;

	while (more && guard > 0) {
		uint32_t n = BATCH;
		int err;

		if (batch) {
			err = bpf_map_lookup_and_delete_batch(r->counts_fd[b], first ? NULL : &in,
							      &outb, keys, vals, &n, &bo);
			if (err && errno != ENOENT) {
				if (first && n == 0) {
					batch = false; /* not supported here: one by one */
					continue;
				}
				n = 0;
				more = false;
			}
			if (err)
				more = false;
			first = false;
			in = outb;
		} else {
			n = 0;
			while (n < BATCH && bpf_map_get_next_key(r->counts_fd[b], NULL, &keys[n]) == 0) {
				if (bpf_map_lookup_and_delete_elem(r->counts_fd[b], &keys[n],
								   &vals[n]) == 0)
					n++;
				else
					break;
			}
			more = n == BATCH;
		}
		guard -= (int)n + 1;
		for (uint32_t i = 0; i < n && !ret; i++)
			ret = add_sample(r, b, &keys[i], vals[i]);
		if (ret)
			break;
	}
	/* Free the stacks this drain used; they are all the buffer held
	 * unless a count was dropped (counts map full): then sweep it all. */
	full = bpf_errors(r, PSYM_ERR_COUNTS_FULL);
	if (full != r->counts_full_seen) {
		r->counts_full_seen = full;
		sweep_stacks(r, b);
	} else {
		for (size_t i = 0; i < r->nused && !(stop && !r->final); i++)
			bpf_map_delete_elem(r->stacks_fd[b], &r->used_ids[i]);
	}
	for (size_t i = 0; i < r->nused; i++)
		r->stack_slot[r->used_ids[i]] = -1;
	r->nused = 0;
	return ret;
}

/*
 * Flip the buffers, then drain the one no sample goes to any more. A BPF
 * program that read the old `active` runs to its end within microseconds:
 * the short wait covers it.
 */
static int drain(struct run *r, int64_t meta_until)
{
	int64_t t0 = now_ns(), dt;
	int b = r->active, ret;

	r->meta_until = meta_until;
	r->meta_ops = META_OPS;
	if (!r->final) {
		r->active = !r->active;
		__atomic_store_n(&r->skel->bss->active, (uint32_t)r->active, __ATOMIC_SEQ_CST);
		usleep(2000);
	}
	ret = drain_buffer(r, b);
	if (!ret && r->final)
		ret = drain_buffer(r, !b);
	r->ms.drains++;
	dt = now_ns() - t0;
	if (dt > r->ms.drain_max_ns)
		r->ms.drain_max_ns = dt;
	return ret;
}

/* Copy src (a /proc file) to dst atomically, at most max bytes. */
static int copy_file(const char *src, const char *dst, size_t max, struct psym_err *e)
{
	struct psym_out o;
	char buf[1 << 16];
	size_t total = 0, n;
	FILE *in = fopen(src, "r");
	int ret;

	if (!in)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s': %s", src, strerror(errno));
	ret = psym_out_open(&o, dst, e);
	if (ret) {
		fclose(in);
		return ret;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && total < max) {
		if (fwrite(buf, 1, n, o.fp) != n) {
			fclose(in);
			psym_out_abort(&o);
			return psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", dst,
					    strerror(errno));
		}
		total += n;
	}
	fclose(in);
	return psym_out_commit(&o, e);
}

/* Our own vDSO: the same image every process on this kernel maps. */
static int save_vdso(const char *dst, struct psym_err *e)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[512];
	uint64_t start = 0, limit = 0;
	struct psym_out o;
	FILE *f;
	int ret;

	if (!base)
		return psym_err_set(e, PSYM_EIO, "no vDSO in this process");
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return psym_err_set(e, PSYM_EIO, "cannot read /proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &limit) == 2)
			break;
	fclose(f);
	if (start != base || limit <= start || limit - start > (1 << 20))
		return psym_err_set(e, PSYM_EIO, "cannot find the vDSO mapping");
	ret = psym_out_open(&o, dst, e);
	if (ret)
		return ret;
	if (fwrite((const void *)(uintptr_t)start, 1, limit - start, o.fp) != limit - start) {
		psym_out_abort(&o);
		return psym_err_set(e, PSYM_EIO, "cannot write '%s'", dst);
	}
	return psym_out_commit(&o, e);
}

/* One kallsyms line ("addr type name"): _text or _end's address. */
static void kallsyms_line(const char *p, size_t n, uint64_t *start, uint64_t *limit)
{
	uint64_t a;
	const char *q = p, *end = p + n;

	if (n > 6 && !memcmp(end - 6, " _text", 6)) {
		if (psym_parse_hex(&q, end, &a))
			*start = a;
	} else if (n > 5 && !memcmp(end - 5, " _end", 5)) {
		if (psym_parse_hex(&q, end, &a))
			*limit = a;
	}
}

/*
 * /proc/kallsyms read by a thread while sampling starts (the kernel takes
 * a quarter of a second to print it): the copy saved with the profile, and
 * _text and _end for the kernel mapping.
 */

#define KALLSYMS_MAX ((size_t)256 << 20)

static void *read_kallsyms(void *ud)
{
	struct ksyms *k = ud;
	size_t cap = 0;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	while (fd >= 0) {
		ssize_t got;

		if (k->len + 65536 > cap) {
			size_t ncap = cap ? cap * 2 : (size_t)16 << 20;
			char *nb = ncap <= KALLSYMS_MAX ? realloc(k->buf, ncap) : NULL;

			if (!nb)
				break;
			k->buf = nb;
			cap = ncap;
		}
		got = read(fd, k->buf + k->len, 65536);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		k->len += (size_t)got;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* _text and _end (0, 0 when either is missing). */
static void kernel_range(const struct ksyms *k, uint64_t *start, uint64_t *limit)
{
	const char *p = k->buf, *end = k->buf + k->len, *nl;

	*start = *limit = 0;
	while (p && p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		kallsyms_line(p, (size_t)(nl - p), start, limit);
		p = nl + 1;
	}
	if (*limit <= *start)
		*start = *limit = 0;
}

/* Wait for the kallsyms thread; hand the kernel's range to the builder once. */
static void ksyms_join(struct ksyms *k, struct psym_collectprof *cp)
{
	uint64_t start, limit;

	if (!k->started)
		return;
	pthread_join(k->t, NULL);
	k->started = false;
	kernel_range(k, &start, &limit);
	psym_collectprof_set_kernel_range(cp, start, limit);
}

static int write_buf(const char *dst, const char *buf, size_t len, struct psym_err *e)
{
	struct psym_out o;
	int ret = psym_out_open(&o, dst, e);

	if (ret)
		return ret;
	if (len && fwrite(buf, 1, len, o.fp) != len) {
		psym_out_abort(&o);
		return psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", dst, strerror(errno));
	}
	return psym_out_commit(&o, e);
}

/* Remove what an earlier run left in dir: side files never mix runs or hosts. */
static void clear_side_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t len = strlen(n);

		if (!strcmp(n, "kallsyms") || !strcmp(n, "vdso.so") || !strcmp(n, "modules") ||
		    (!strncmp(n, "perf-", 5) && len > 9 && !strcmp(n + len - 4, ".map")) ||
		    (!strncmp(n, "jit-", 4) && len > 9 && !strcmp(n + len - 5, ".dump")))
			unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}

static void side_files(struct run *r, struct psym_err *e)
{
	char dir[4096], path[4200];
	int nmaps = 0, *jit = NULL;
	size_t njit;

	snprintf(dir, sizeof(dir), "%s.d", r->o.out);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "psym-collect: cannot create '%s': %s\n", dir, strerror(errno));
		return;
	}
	clear_side_dir(dir);
	if (r->kernel_frames && r->ks.len) {
		snprintf(path, sizeof(path), "%s/kallsyms", dir);
		if (write_buf(path, r->ks.buf, r->ks.len, e))
			fprintf(stderr, "psym-collect: %s\n", e->msg);
		if (psym_collect_modules(NULL, dir, e)) /* kmodules.h */
			fprintf(stderr, "psym-collect: %s\n", e->msg);
	}
	snprintf(path, sizeof(path), "%s/vdso.so", dir);
	if (save_vdso(path, e))
		fprintf(stderr, "psym-collect: %s\n", e->msg);
	/* Perf maps only of processes with samples in anonymous code (JIT). */
	njit = psym_collectprof_jit_pids(r->cp, NULL, 0);
	if (njit > MAX_PERF_MAPS)
		njit = MAX_PERF_MAPS;
	jit = njit ? calloc(njit, sizeof(*jit)) : NULL;
	if (jit)
		psym_collectprof_jit_pids(r->cp, jit, njit);
	for (size_t i = 0; jit && i < njit; i++) {
		char src[256];
		struct stat st;
		int pid = jit[i];

		snprintf(src, sizeof(src), "/proc/%d/root/tmp/perf-%d.map", pid, pid);
		if (stat(src, &st) != 0 || !S_ISREG(st.st_mode)) {
			snprintf(src, sizeof(src), "/tmp/perf-%d.map", pid);
			if (stat(src, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
		}
		snprintf(path, sizeof(path), "%s/perf-%d.map", dir, pid);
		if (copy_file(src, path, (size_t)1 << 30, e))
			fprintf(stderr, "psym-collect: %s\n", e->msg);
		else
			nmaps++;
	}
	free(jit);
	if (r->o.verbose)
		fprintf(stderr, "psym-collect: side files in '%s' (%d perf maps)\n", dir, nmaps);
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

int main(int argc, char **argv)
{
	static bool cpus[4096];
	struct bpf_link **links = NULL;
	struct run r = { 0 };
	struct psym_collect_meta meta = { 0 };
	struct psym_err e = { 0 };
	struct psym_collect_stats st;
	struct psym_hostid host;
	struct psym_out out = { 0 };
	struct pollfd pfd[PSYM_MAX_PIDS];
	struct sigaction sa = { .sa_handler = on_stop };
	struct timespec t0;
	char kbid[PSYM_BUILD_ID_HEX_MAX] = "", idline[256];
	uint64_t errs[PSYM_ERR_NR] = { 0 };
	unsigned char *buf = NULL;
	size_t len = 0;
	int64_t start, end_at = 0, next_drain;
	int ncpu, nlinks = 0, npfd = 0, ret = 0, exit_code = PSYM_EXIT_OK;
	bool out_open = false, targets_gone = false, written = false;

	parse_args(argc, argv, &r.o);
	psym_hashtab_init(&r.pids, 0);
	psym_hashtab_init(&r.bids, BID_CACHE_MAX);
	/* No SA_RESTART: a signal ends the wait at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Everything that can fail is checked before sampling starts. */
	check_pids(&r.o);
	for (int i = 0; i < r.o.npids; i++) {
		int fd = (int)syscall(SYS_pidfd_open, r.o.pids[i], 0);

		if (fd < 0) {
			if (errno == ESRCH) {
				fprintf(stderr, "psym-collect: no process with PID %d\n", r.o.pids[i]);
				return PSYM_EXIT_BADINPUT;
			}
			break; /* no pidfds here: run until -d or a signal */
		}
		pfd[npfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	ret = psym_out_open(&out, r.o.out, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		exit_code = psym_exit_code(ret);
		goto out_pfd;
	}
	out_open = true;
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
	psym_kernel_notes_build_id("/sys/kernel/notes", kbid, &e);
	clock_gettime(CLOCK_REALTIME, &t0);
	meta.period_ns = 1000000000L / r.o.hz;
	meta.time_ns = (int64_t)t0.tv_sec * 1000000000 + t0.tv_nsec;
	meta.kernel_build_id = kbid[0] ? kbid : NULL;
	ret = psym_collectprof_new(&meta, &r.cp, &e);
	psym_hostid_local(&host);
	psym_hostid_format(&host, idline, sizeof(idline));
	if (!ret)
		ret = psym_collectprof_comment(r.cp, idline);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", ret == PSYM_ENOMEM ? "out of memory" : e.msg);
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_skel;
	}
	psym_collectprof_set_buildid_fn(r.cp, file_build_id, &r);
	if (r.o.stack_copy) {
		struct stackcopy_opts so = { (uint32_t)r.o.stack_copy, r.o.pids, r.o.npids,
					     r.o.no_kernel, r.o.verbose, r.o.hz, ncpu, r.o.out };

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
	start = now_ns();
	if (r.o.duration > 0)
		end_at = start + (int64_t)(r.o.duration * NS);
	/* The targets' maps now, while they run: they may exit before a drain. */
	r.meta_until = start + META_NS;
	r.meta_ops = META_OPS;
	for (int i = 0; i < r.o.npids; i++) {
		struct pidinfo *pi = pid_info(&r, r.o.pids[i]);

		if (pi && budget_ok(&r))
			load_maps(&r, pi);
	}
	next_drain = start + DRAIN_NS;
	while (!stop) {
		int64_t now = now_ns(), until = next_drain;

		if (end_at && now >= end_at)
			break;
		if (end_at && end_at < until)
			until = end_at;
		if (until - now > POLL_NS)
			until = now + POLL_NS;
		if (wait_targets(pfd, npfd, r.o.npids, until - now)) {
			targets_gone = true;
			break;
		}
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
	}
	/* Stop sampling, then take everything that is left. */
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	if (targets_gone)
		fprintf(stderr, "psym-collect: %s exited: stopping\n",
			r.o.npids > 1 ? "all target processes" : "the target process");
	r.final = true;
	ksyms_join(&r.ks, r.cp);
	if (!ret)
		ret = drain(&r, now_ns() + FINAL_META_NS);
	if (!ret && r.sc)
		ret = stackcopy_poll(r.sc, 0);
	{
		int64_t dur = now_ns() - start;

		if (ret) {
			fprintf(stderr,
				"psym-collect: out of memory while collecting: writing what "
				"was collected\n");
			exit_code = PSYM_EXIT_SYSTEM;
		}
		meta.duration_ns = dur;
		psym_collectprof_profile(r.cp)->pb->duration_nanos = dur;
		ret = psym_profile_encode(psym_collectprof_profile(r.cp), true, &buf, &len, &e);
		if (!ret && fwrite(buf, 1, len, out.fp) != len)
			ret = psym_err_set(&e, PSYM_EIO, "cannot write '%s': %s", r.o.out,
					   strerror(errno));
		if (!ret) {
			out_open = false;
			ret = psym_out_commit(&out, &e);
		}
		if (ret) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			exit_code = PSYM_EXIT_SYSTEM;
		} else {
			written = true;
			if (!r.o.no_side_files)
				side_files(&r, &e);
		}
		for (uint32_t k = 0; k < PSYM_ERR_NR; k++)
			errs[k] = bpf_errors(&r, k);
		if (r.sc && stackcopy_close(r.sc, stderr, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			exit_code = PSYM_EXIT_SYSTEM;
		}
		r.sc = NULL;
		psym_collectprof_stats(r.cp, &st);
		fprintf(stderr,
			"psym-collect: %.1fs, %" PRIu64 " samples, %" PRIu64 " processes, %" PRIu64
			" stacks -> %s\n",
			(double)dur / 1e9, st.samples, st.processes, st.stacks,
			written ? r.o.out : "(not written)");
		fprintf(stderr,
			"psym-collect: lost: %" PRIu64 " user stacks unreadable, %" PRIu64
			" kernel stacks unreadable, %" PRIu64 " stack-map collisions, %" PRIu64
			" samples with the counts map full, %" PRIu64 " stacks evicted; %" PRIu64
			" processes exited before their maps were read, %" PRIu64
			" not read (metadata cap) (%" PRIu64 " frames without a mapping)\n",
			errs[PSYM_ERR_USER_STACK], errs[PSYM_ERR_KERN_STACK],
			errs[PSYM_ERR_COLLISION], errs[PSYM_ERR_COUNTS_FULL], r.ms.stacks_evicted,
			r.ms.maps_gone + r.ms.maps_failed, r.ms.maps_skipped, st.frames_unmapped);
		fprintf(stderr,
			"psym-collect: metadata: %" PRIu64 " process maps read (%" PRIu64
			" re-read), build IDs: %" PRIu64 " files read, %" PRIu64 " from cache, %" PRIu64
			" unreadable, %" PRIu64 " not read (metadata cap); %" PRIu64
			" drains, longest %.0f ms\n",
			r.ms.maps_read, r.ms.rereads, r.ms.bids_read, r.ms.bids_cached,
			r.ms.bids_failed, r.ms.bids_skipped, r.ms.drains,
			(double)r.ms.drain_max_ns / 1e6);
		if (errs[PSYM_ERR_COLLISION] || errs[PSYM_ERR_COUNTS_FULL])
			fprintf(stderr,
				"psym-collect: to lose less, raise --stack-entries (now %u) for "
				"collisions, --count-entries (now %u) for a full counts map, or "
				"lower -F\n",
				r.stack_entries, r.count_entries);
	}
out_links:
	if (r.ks.started)
		pthread_join(r.ks.t, NULL);
	free(r.ks.buf);
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	free(links);
out_skel:
	stackcopy_close(r.sc, NULL, &e);
	profile_bpf__destroy(r.skel);
	psym_collectprof_free(r.cp);
out_pfd:
	if (out_open)
		psym_out_abort(&out);
	for (int i = 0; i < npfd; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	free(buf);
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
