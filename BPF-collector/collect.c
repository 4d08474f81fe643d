/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: a minimal BPF CPU profiler that writes an unsymbolized pprof
 * profile (addresses, mappings with build IDs) and the few side files only
 * the profiled host has (kallsyms, the vDSO, perf maps). Thin main: the
 * profile is built by libpsym's collectprof module.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
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

struct opts {
	int pids[PSYM_MAX_PIDS];
	int npids;
	long hz;
	double duration; /* 0 = until a signal */
	const char *out;
	bool no_kernel, no_user, no_side_files, verbose;
	long stack_copy; /* --stack-copy BYTES; 0: frame pointers */
};

static const char usage_text[] =
	"Usage: psym-collect [OPTIONS]\n"
	"Sample user and kernel stacks with BPF and write an unsymbolized pprof\n"
	"profile with mappings and build IDs, for `psym symbolize` elsewhere.\n\n"
	"  -p, --pid PID          profile this process (repeatable, up to 16);\n"
	"                         default: every process (system-wide)\n"
	"  -F, --frequency HZ     samples per second per CPU (default 99)\n"
	"  -d, --duration SEC     stop after SEC seconds (default: at SIGINT/SIGTERM)\n"
	"  -o, --output FILE      profile to write (default cpu.pb.gz)\n"
	"      --no-kernel        do not record kernel stacks\n"
	"      --no-user          do not record user stacks\n"
	"      --no-side-files    do not write FILE.d/ (kallsyms, vDSO, perf maps)\n"
	"      --stack-copy BYTES copy the top BYTES (64..32768, e.g. 8192) of each\n"
	"                         sampled user stack and its registers into\n"
	"                         FILE.d/ustacks.gz (mode 0600: raw stack bytes can\n"
	"                         hold secrets) for psym to unwind with the\n"
	"                         binaries' CFI: for code without frame pointers\n"
	"  -v, --verbose          report progress\n"
	"  -h, --help             show this help\n"
	"      --version          show the version\n\n"
	"Exit status: 0 success; 2 usage error; 3 system failure (BPF, I/O).\n";

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

struct run {
	struct opts o;
	struct profile_bpf *skel;
	struct psym_collectprof *cp;
	int stacks_fd, counts_fd, errors_fd, ncpus_possible;
	uint64_t stack_ids_seen, stacks_evicted, proc_rereads;
	int *seen_pids;
	size_t nseen;
	bool kernel_frames;
	int *no_maps; /* pids whose maps could not be read */
	size_t nno_maps;
	struct stackcopy *sc; /* --stack-copy */
};

static bool pid_seen(struct run *r, int pid)
{
	for (size_t i = 0; i < r->nseen; i++)
		if (r->seen_pids[i] == pid)
			return true;
	return false;
}

static void load_maps(struct run *r, int pid)
{
	struct psym_procmap *maps = NULL;
	struct psym_err e = { 0 };
	size_t n = 0;

	if (psym_procmaps_read(pid, &maps, &n, &e) != 0) {
		for (size_t i = 0; i < r->nno_maps; i++)
			if (r->no_maps[i] == pid)
				return;
		int *nm = realloc(r->no_maps, (r->nno_maps + 1) * sizeof(*nm));

		if (nm) {
			r->no_maps = nm;
			r->no_maps[r->nno_maps++] = pid;
		}
		if (r->o.verbose)
			fprintf(stderr, "psym-collect: pid %d: %s\n", pid, e.msg);
		return;
	}
	psym_procmaps_build_ids(pid, maps, n);
	psym_collectprof_process(r->cp, pid, maps, n);
	free(maps);
}

static size_t read_stack(struct run *r, int32_t id, uint64_t *ips)
{
	size_t n = 0;

	if (id < 0)
		return 0;
	if (bpf_map_lookup_elem(r->stacks_fd, &id, ips) != 0) {
		r->stacks_evicted++;
		return 0;
	}
	while (n < PSYM_MAX_STACK && ips[n])
		n++;
	return n;
}

/* Move everything counted so far into the profile. */
static int drain(struct run *r)
{
	struct psym_sample_key key;
	uint64_t kips[PSYM_MAX_STACK], uips[PSYM_MAX_STACK], count;
	int guard = PSYM_COUNT_ENTRIES * 4;

	while (guard-- > 0 && bpf_map_get_next_key(r->counts_fd, NULL, &key) == 0) {
		size_t nk, nu;
		int ret;

		if (bpf_map_lookup_and_delete_elem(r->counts_fd, &key, &count) != 0)
			continue;
		nk = read_stack(r, key.kern_stack_id, kips);
		nu = read_stack(r, key.user_stack_id, uips);
		r->stack_ids_seen += (key.kern_stack_id >= 0) + (key.user_stack_id >= 0);
		if (nk)
			r->kernel_frames = true;
		if (!pid_seen(r, (int)key.pid)) {
			int *ns = realloc(r->seen_pids, (r->nseen + 1) * sizeof(*ns));

			if (!ns)
				return PSYM_ENOMEM;
			r->seen_pids = ns;
			r->seen_pids[r->nseen++] = (int)key.pid;
			load_maps(r, (int)key.pid);
		} else if (nu && psym_collectprof_unknown(r->cp, (int)key.pid, uips, nu)) {
			/* An address outside the known mappings: dlopen and the like. */
			r->proc_rereads++;
			load_maps(r, (int)key.pid);
		}
		key.comm[PSYM_COMM_LEN - 1] = '\0';
		ret = psym_collectprof_add(r->cp, (int)key.pid, (int)key.tid, key.comm, kips, nk,
					   uips, nu, count);
		if (ret)
			return ret;
	}
	/* Keep the stack map from filling: clear it when half used. */
	if (r->stack_ids_seen > PSYM_STACK_ENTRIES / 2) {
		uint32_t id;

		while (bpf_map_get_next_key(r->stacks_fd, NULL, &id) == 0)
			bpf_map_delete_elem(r->stacks_fd, &id);
		r->stack_ids_seen = 0;
	}
	return 0;
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

/* _text and _end from /proc/kallsyms (root only), for the kernel mapping. */
static void kernel_range(uint64_t *start, uint64_t *limit)
{
	char line[512], name[256], type;
	uint64_t a;
	FILE *f = fopen("/proc/kallsyms", "r");

	*start = *limit = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && (!*start || !*limit)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			*start = a;
		else if (!strcmp(name, "_end"))
			*limit = a;
	}
	fclose(f);
	if (*limit <= *start)
		*start = *limit = 0;
}

static void side_files(struct run *r, struct psym_err *e)
{
	char dir[4096], path[4200];
	int nmaps = 0;

	snprintf(dir, sizeof(dir), "%s.d", r->o.out);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "psym-collect: cannot create '%s': %s\n", dir, strerror(errno));
		return;
	}
	if (r->kernel_frames) {
		snprintf(path, sizeof(path), "%s/kallsyms", dir);
		if (copy_file("/proc/kallsyms", path, (size_t)256 << 20, e))
			fprintf(stderr, "psym-collect: %s\n", e->msg);
	}
	snprintf(path, sizeof(path), "%s/vdso.so", dir);
	if (save_vdso(path, e))
		fprintf(stderr, "psym-collect: %s\n", e->msg);
	for (size_t i = 0; i < r->nseen; i++) {
		char src[256];
		struct stat st;
		int pid = r->seen_pids[i];

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

int main(int argc, char **argv)
{
	static bool cpus[4096];
	struct bpf_link **links = NULL;
	struct run r = { 0 };
	struct psym_collect_meta meta = { 0 };
	struct psym_err e = { 0 };
	struct psym_collect_stats st;
	struct timespec t0, t1, now;
	char kbid[PSYM_BUILD_ID_HEX_MAX] = "";
	uint64_t errs[PSYM_ERR_NR] = { 0 };
	int ncpu, nlinks = 0, ret = 0, exit_code = PSYM_EXIT_OK;

	parse_args(argc, argv, &r.o);
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	signal(SIGPIPE, SIG_IGN);

	ncpu = online_cpus(cpus, 4096);
	if (ncpu <= 0) {
		fprintf(stderr, "psym-collect: cannot read the online CPUs\n");
		return PSYM_EXIT_SYSTEM;
	}
	r.skel = profile_bpf__open();
	if (!r.skel) {
		fprintf(stderr, "psym-collect: cannot open the BPF program: %s\n", strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	for (int i = 0; i < r.o.npids; i++)
		r.skel->rodata->filter_pids[i] = (uint32_t)r.o.pids[i];
	r.skel->rodata->n_filter_pids = (uint32_t)r.o.npids;
	r.skel->rodata->no_user = r.o.no_user;
	r.skel->rodata->no_kernel = r.o.no_kernel;
	r.skel->rodata->self_pid = (uint32_t)getpid();
	if (profile_bpf__load(r.skel)) {
		fprintf(stderr,
			"psym-collect: cannot load the BPF program (needs root or "
			"CAP_BPF+CAP_PERFMON): %s\n",
			strerror(errno));
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_skel;
	}
	if (r.o.stack_copy) {
		struct stackcopy_opts so = { (uint32_t)r.o.stack_copy, r.o.pids, r.o.npids,
					     r.o.no_kernel, r.o.verbose, r.o.hz, ncpu, r.o.out };

		if (stackcopy_open(&so, &r.cp, &r.sc, &e)) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			exit_code = PSYM_EXIT_SYSTEM;
			goto out_skel;
		}
		r.kernel_frames = !r.o.no_kernel; /* for the kallsyms side file */
	}
	r.stacks_fd = bpf_map__fd(r.skel->maps.stacks);
	r.counts_fd = bpf_map__fd(r.skel->maps.counts);
	r.errors_fd = bpf_map__fd(r.skel->maps.errors);
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
	psym_kernel_notes_build_id("/sys/kernel/notes", kbid, &e);
	clock_gettime(CLOCK_REALTIME, &t0);
	meta.period_ns = 1000000000L / r.o.hz;
	meta.time_ns = (int64_t)t0.tv_sec * 1000000000 + t0.tv_nsec;
	meta.kernel_build_id = kbid[0] ? kbid : NULL;
	kernel_range(&meta.kernel_start, &meta.kernel_limit);
	meta.comment = r.sc ? PSYM_USTACKS_COMMENT : NULL;
	ret = psym_collectprof_new(&meta, &r.cp, &e);
	if (ret) {
		fprintf(stderr, "psym-collect: %s\n", e.msg);
		exit_code = PSYM_EXIT_SYSTEM;
		goto out_links;
	}
	if (r.o.verbose)
		fprintf(stderr, "psym-collect: sampling %s at %ld Hz on %d CPUs\n",
			r.o.npids ? "the given processes" : "all processes", r.o.hz, nlinks);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	while (!stop) {
		double el;

		usleep(100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - t1.tv_sec) + (double)(now.tv_nsec - t1.tv_nsec) / 1e9;
		if (r.o.duration > 0 && el >= r.o.duration)
			break;
		/* Drain about once a second so maps never fill. */
		if (((long)(el * 10)) % 10 == 0 && (ret = drain(&r)) != 0)
			break;
		if (r.sc && (ret = stackcopy_poll(r.sc, 0)) != 0)
			break;
	}
	/* Stop sampling, then take everything that is left. */
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	if (!ret)
		ret = drain(&r);
	if (!ret && r.sc)
		ret = stackcopy_poll(r.sc, 0);
	clock_gettime(CLOCK_MONOTONIC, &now);
	r.cp ? (void)0 : (void)0;
	{
		struct psym_profile *p = psym_collectprof_profile(r.cp);
		int64_t dur =
			(int64_t)(now.tv_sec - t1.tv_sec) * 1000000000 + (now.tv_nsec - t1.tv_nsec);

		p->pb->duration_nanos = dur;
		if (ret) {
			fprintf(stderr,
				"psym-collect: out of memory while collecting: writing what "
				"was collected\n");
			exit_code = PSYM_EXIT_SYSTEM;
		}
		ret = psym_profile_write(p, r.o.out, true, &e);
		if (ret) {
			fprintf(stderr, "psym-collect: %s\n", e.msg);
			exit_code = PSYM_EXIT_SYSTEM;
		} else if (!r.o.no_side_files) {
			side_files(&r, &e);
		}
		for (uint32_t k = 0; k < PSYM_ERR_NR; k++) {
			uint64_t *vals =
				calloc((size_t)libbpf_num_possible_cpus(), sizeof(uint64_t));

			if (vals && bpf_map_lookup_elem(r.errors_fd, &k, vals) == 0)
				for (int c = 0; c < libbpf_num_possible_cpus(); c++)
					errs[k] += vals[c];
			free(vals);
		}
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
			ret ? "(not written)" : r.o.out);
		fprintf(stderr,
			"psym-collect: lost: %" PRIu64 " user stacks unreadable, %" PRIu64
			" kernel stacks unreadable, %" PRIu64 " stack-map collisions, %" PRIu64
			" samples with the counts map full, %" PRIu64 " stacks evicted; %zu "
			"processes exited before their maps were read (%" PRIu64
			" frames without a mapping)\n",
			errs[PSYM_ERR_USER_STACK], errs[PSYM_ERR_KERN_STACK],
			errs[PSYM_ERR_COLLISION], errs[PSYM_ERR_COUNTS_FULL], r.stacks_evicted,
			r.nno_maps, st.frames_unmapped);
	}
out_links:
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	free(links);
out_skel:
	stackcopy_close(r.sc, NULL, &e);
	profile_bpf__destroy(r.skel);
	psym_collectprof_free(r.cp);
	free(r.seen_pids);
	free(r.no_maps);
	return exit_code;
}
