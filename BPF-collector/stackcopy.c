/* SPDX-License-Identifier: MIT */
/* psym-collect --stack-copy: ring buffer -> side file + provisional profile. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "command.h"
#include "sidenames.h"
#include "stackcopy.h"
#include "profile.h"
#include "ustack.h"
#include "ustack.skel.h"
#include "unwindprof.h"
#include "ustacks.h"

struct stackcopy {
	struct ustack_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *flinks[2]; /* -- COMMAND: fork and exit programs */
	struct psym_ustacks_writer *w;
	struct psym_collectprof **cp;
	int (*need_maps)(void *ud, int pid, uint64_t image, uint64_t time, const uint64_t *leaf,
			 size_t nleaf);
	void *ud;
	uint64_t events, bytes, lost_between, gz_bytes, windows;
	uint32_t copy_bytes;
	int images_fd; /* pid -> image (image.bpf.h), -1: not attached */
	bool verbose;
	int err;
	struct psym_err e;
	char path[4200], tmp[4210]; /* the side file, and its name until finished */
};

int stackcopy_process(struct stackcopy *sc, int pid, const struct psym_procmap *maps, size_t n,
		      const char *exe, uint64_t mntns)
{
	int ret;

	psym_collectprof_process(*sc->cp, pid, maps, n);
	psym_collectprof_set_mntns(*sc->cp, pid, mntns);
	ret = psym_ustacks_process(sc->w, pid, maps, n, &sc->e);
	if (!ret && mntns)
		ret = psym_ustacks_mntns(sc->w, pid, mntns, &sc->e);
	if (ret || !exe || !exe[0])
		return ret;
	/* Its executable, named as the maps name it: written first, both in
	 * this provisional profile and in the one psym unwinds offline. */
	psym_collectprof_set_exe(*sc->cp, pid, exe);
	return psym_ustacks_exe(sc->w, pid, exe, &sc->e);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct stackcopy *sc = ctx;
	const struct psym_ustack_event *ev = data;
	struct psym_ustack_sample s = { 0 };
	uint64_t leaf, kstack[PSYM_USTACK_KFRAMES];
	int ret;

	if (size < PSYM_USTACK_HDR || ev->stack_len > size - PSYM_USTACK_HDR ||
	    ev->nk > PSYM_USTACK_KFRAMES)
		return 0;
	if (!sc->w) {
		/* Between windows, when the next one's file could not be made. */
		sc->lost_between++;
		return 0;
	}
	sc->events++;
	sc->bytes += size;
	s.pid = ev->pid;
	s.tid = ev->tid;
	s.cpu = ev->cpu;
	s.time_ns = ev->time_ns;
	memcpy(s.comm, ev->comm, 16);
	s.comm[15] = 0;
	for (int i = 0; i < PSYM_USTACK_NREGS; i++)
		s.regs.r[i] = ev->regs[i];
	s.regs.valid = ev->valid;
#ifdef __aarch64__
	s.regs.machine = EM_AARCH64;
#else
	s.regs.machine = EM_X86_64;
#endif
	for (uint32_t i = 0; i < ev->nk; i++)
		kstack[i] = ev->kstack[i];
	s.kstack = kstack;
	s.nk = ev->nk;
	s.stack = ev->stack;
	s.stack_len = ev->stack_len;
	leaf = ev->regs[PSYM_USTACK_PC];
	/* The process's maps before its first sample, again when they changed. */
	if ((ret = sc->need_maps(sc->ud, (int)ev->pid, ev->image, ev->time_ns, &leaf,
				 ev->valid ? 1 : 0)) != 0)
		return sc->err = ret;
	ret = psym_ustacks_sample(sc->w, &s, &sc->e);
	if (!ret)
		ret = psym_collectprof_add(*sc->cp, (int)ev->pid, (int)ev->tid, s.comm, kstack,
					   ev->nk, &leaf, ev->valid ? 1 : 0, 1);
	return ret ? (sc->err = ret) : 0;
}

int stackcopy_window_start(struct stackcopy *sc, const char *out, struct psym_err *e)
{
	char dir[4096];
	int ret;

	if (sc->w)
		return psym_err_set(e, PSYM_EUSAGE, "'%s' is not finished", sc->path);
	if ((size_t)snprintf(dir, sizeof(dir), PSYM_SIDE_DIR_FMT, out) >= sizeof(dir))
		return psym_err_set(e, PSYM_ELIMIT, "'%s.d': path too long", out);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", dir, strerror(errno));
	snprintf(sc->path, sizeof(sc->path), "%s/%s", dir, PSYM_USTACKS_NAME);
	/* Written under another name, renamed when whole (stackcopy_window_end). */
	snprintf(sc->tmp, sizeof(sc->tmp), "%s.tmp", sc->path);
	ret = psym_ustacks_create(sc->tmp, sc->copy_bytes, &sc->w, e);
	if (ret)
		unlink(sc->tmp);
	return ret;
}

int stackcopy_window_end(struct stackcopy *sc, struct psym_err *e)
{
	struct stat st;
	int ret;

	if (!sc->w)
		return 0;
	ret = psym_ustacks_close(sc->w, e);
	sc->w = NULL;
	if (!ret && rename(sc->tmp, sc->path) != 0)
		ret = psym_err_set(e, PSYM_EIO, "cannot rename '%s' to '%s': %s", sc->tmp, sc->path,
				   strerror(errno));
	if (ret) {
		unlink(sc->tmp);
		return ret;
	}
	sc->windows++;
	if (stat(sc->path, &st) == 0)
		sc->gz_bytes += (uint64_t)st.st_size;
	return 0;
}

int stackcopy_open(const struct stackcopy_opts *o, struct psym_collectprof **cp,
		   struct stackcopy **out, struct psym_err *e)
{
	struct stackcopy *sc = calloc(1, sizeof(*sc));
	uint64_t want, rbsize = 4 << 20;
	int ret;

	*out = NULL;
	if (!sc)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	sc->cp = cp;
	sc->need_maps = o->need_maps;
	sc->ud = o->ud;
	sc->verbose = o->verbose;
	sc->skel = ustack_bpf__open();
	if (!sc->skel) {
		ret = psym_err_set(e, PSYM_EBPF, "cannot open the stack-copy BPF program: %s",
				   strerror(errno));
		goto fail;
	}
	for (int i = 0; i < o->npids; i++)
		sc->skel->rodata->filter_pids[i] = (uint32_t)o->pids[i];
	sc->skel->rodata->n_filter_pids = (uint32_t)o->npids;
	sc->skel->rodata->no_kernel = o->no_kernel;
	sc->skel->rodata->self_pid = (uint32_t)getpid();
	sc->skel->rodata->stack_copy = o->bytes;
	sc->skel->rodata->follow_tree = o->follow->n > 0;
	if (!o->follow->n) {
		bpf_program__set_autoload(sc->skel->progs.psym_fork, false);
		bpf_program__set_autoload(sc->skel->progs.psym_exit, false);
	}
	/* Half a second of samples on every CPU, at least 4 MiB, at most 1 GiB. */
	want = (PSYM_USTACK_HDR + o->bytes) * (uint64_t)o->hz * (uint64_t)o->ncpus / 2;
	while (rbsize < want && rbsize < (1ULL << 30))
		rbsize <<= 1;
	bpf_map__set_max_entries(sc->skel->maps.events, (uint32_t)rbsize);
	bpf_map__set_max_entries(sc->skel->maps.scratch, (uint32_t)libbpf_num_possible_cpus());
	if (ustack_bpf__load(sc->skel)) {
		ret = psym_err_set(e, PSYM_EBPF,
				   "cannot load the stack-copy BPF program (needs root or "
				   "CAP_BPF+CAP_PERFMON, Linux 5.15 or later): %s",
				   strerror(errno));
		goto fail;
	}
	if (o->follow->n &&
	    (ret = follow_start(sc->skel->maps.follow, sc->skel->progs.psym_fork,
				sc->skel->progs.psym_exit, o->follow, sc->flinks, e)) != 0)
		goto fail;
	/* After the mmap tracker opened (collect.c): each exec it records starts an image. */
	sc->images_fd = images_attach(sc->skel->progs.psym_exec, &sc->skel->links.psym_exec,
				      sc->skel->maps.images);
	sc->rb = ring_buffer__new(bpf_map__fd(sc->skel->maps.events), on_event, sc, NULL);
	if (!sc->rb) {
		ret = psym_err_set(e, PSYM_EBPF, "cannot open the ring buffer: %s",
				   strerror(errno));
		goto fail;
	}
	sc->copy_bytes = o->bytes;
	ret = stackcopy_window_start(sc, o->out, e);
	if (ret)
		goto fail;
	*out = sc;
	return 0;
fail:
	bpf_link__destroy(sc->flinks[0]);
	bpf_link__destroy(sc->flinks[1]);
	ring_buffer__free(sc->rb);
	ustack_bpf__destroy(sc->skel);
	free(sc);
	return ret;
}

int stackcopy_images(const struct stackcopy *sc)
{
	return sc->images_fd;
}

struct bpf_program *stackcopy_prog(struct stackcopy *sc)
{
	return sc->skel->progs.psym_ustack;
}

int stackcopy_poll(struct stackcopy *sc, int timeout_ms)
{
	int n = ring_buffer__poll(sc->rb, timeout_ms);

	if (sc->err) {
		fprintf(stderr, "psym-collect: %s\n",
			sc->e.msg[0] ? sc->e.msg : psym_strerror(sc->err));
		return sc->err;
	}
	return n < 0 && n != -EINTR ? PSYM_EBPF : 0;
}

static void summary(struct stackcopy *sc, FILE *f)
{
	uint64_t errs[PSYM_UERR_NR] = { 0 };
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals = calloc((size_t)ncpu, sizeof(uint64_t));
	char where[4300];

	for (uint32_t k = 0; vals && k < PSYM_UERR_NR; k++)
		if (bpf_map_lookup_elem(bpf_map__fd(sc->skel->maps.uerrors), &k, vals) == 0)
			for (int c = 0; c < ncpu; c++)
				errs[k] += vals[c];
	free(vals);
	if (sc->windows > 1)
		snprintf(where, sizeof(where), "%" PRIu64 " windows' side files, the last '%s'",
			 sc->windows, sc->path);
	else
		snprintf(where, sizeof(where), "'%s'", sc->path);
	fprintf(f,
		"psym-collect: stack copies: %" PRIu64 " samples, %" PRIu64 " bytes copied -> %s "
		"(%" PRIu64 " bytes compressed); lost: %" PRIu64
		" with the ring buffer full, %" PRIu64 " stacks unreadable, %" PRIu64
		" without user registers; %" PRIu64
		" whole stacks (smaller than the copy size: nothing left out)\n",
		sc->events, sc->bytes, where, sc->gz_bytes, errs[PSYM_UERR_RINGBUF_FULL],
		errs[PSYM_UERR_STACK_READ], errs[PSYM_UERR_NO_REGS], errs[PSYM_UERR_STACK_SHORT]);
	if (sc->lost_between)
		fprintf(f,
			"psym-collect: %" PRIu64 " stack copies lost: no window's file for them\n",
			sc->lost_between);
}

int stackcopy_close(struct stackcopy *sc, FILE *log, struct psym_err *e)
{
	int ret;

	if (!sc)
		return 0;
	bpf_link__destroy(sc->flinks[0]);
	bpf_link__destroy(sc->flinks[1]);
	ring_buffer__free(sc->rb);
	ret = stackcopy_window_end(sc, e);
	if (log)
		summary(sc, log);
	ustack_bpf__destroy(sc->skel);
	free(sc);
	return ret;
}
