/* SPDX-License-Identifier: MIT */
/* The stack-copy side file: writer and hostile-input-safe reader. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <elf.h>

#include "bytes.h"
#include "arch.h"
#include "buildid.h"
#include "fileio.h"
#include "ustacks.h"
#include "array.h"

#define MAGIC "PSYMUSTK"
#define REGSET_DWARF_X86_64 1
#define REGSET_DWARF_AARCH64 2 /* x0..x30, sp, pc; a 64-bit valid mask */
#define REC_PROCESS 1
#define REC_SAMPLE 2
#define REC_EXE 3
#define REC_MNTNS 4
#define MAX_RECORD ((size_t)1 << 20)

struct psym_ustacks_writer {
	gzFile gz;
	char *path;
	uint8_t *buf;
	size_t n, cap;
	uint32_t max_stack;
	const struct psym_unwind_arch *arch;
	bool failed;
};

/* The register set a machine's samples are written with. */
static uint32_t regset_of(const struct psym_unwind_arch *a)
{
	return a->machine == EM_AARCH64 ? REGSET_DWARF_AARCH64 : REGSET_DWARF_X86_64;
}

/* ---- little-endian encoding ------------------------------------------------ */

static bool grow(struct psym_ustacks_writer *w, size_t more)
{
	uint8_t *b = psym_array_grow(w->buf, &w->cap, w->n + more, 1, 0);

	if (!b)
		return false;
	w->buf = b;
	return true;
}

static void put(struct psym_ustacks_writer *w, const void *p, size_t len)
{
	if (!grow(w, len)) {
		w->failed = true;
		return;
	}
	memcpy(w->buf + w->n, p, len);
	w->n += len;
}

static void put_u(struct psym_ustacks_writer *w, uint64_t v, unsigned size)
{
	uint8_t b[8];

	psym_put_uint(b, size, false, v);
	put(w, b, size);
}

static int flush_record(struct psym_ustacks_writer *w, uint32_t type, struct psym_err *e)
{
	uint8_t h[8];
	uint32_t len = (uint32_t)(w->n - 8);

	if (w->failed)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (w->n - 8 > MAX_RECORD)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': record larger than 1 MiB", w->path);
	psym_put_uint(h, 4, false, type);
	psym_put_uint(h + 4, 4, false, len);
	memcpy(w->buf, h, 8);
	if (gzwrite(w->gz, w->buf, (unsigned)w->n) != (int)w->n) {
		int zerr;

		w->failed = true;
		return psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", w->path,
				    gzerror(w->gz, &zerr));
	}
	w->n = 0;
	return 0;
}

int psym_ustacks_create(const char *path, uint32_t max_stack, struct psym_ustacks_writer **out,
			struct psym_err *e)
{
#ifdef __aarch64__
	return psym_ustacks_create_for(path, EM_AARCH64, max_stack, out, e);
#else
	return psym_ustacks_create_for(path, EM_X86_64, max_stack, out, e);
#endif
}

int psym_ustacks_create_for(const char *path, unsigned machine, uint32_t max_stack,
			    struct psym_ustacks_writer **out, struct psym_err *e)
{
	const struct psym_unwind_arch *arch = psym_unwind_arch_of(machine);
	struct psym_ustacks_writer *w;
	int fd;

	*out = NULL;
	if (!arch)
		return psym_err_set(e, PSYM_EUSAGE, "no stack copies for machine %u", machine);
	if (max_stack > PSYM_USTACKS_MAX_STACK)
		return psym_err_set(e, PSYM_EUSAGE, "stack copies are at most %d bytes",
				    PSYM_USTACKS_MAX_STACK);
	w = calloc(1, sizeof(*w));
	if (w)
		w->arch = arch;
	if (!w || !(w->path = strdup(path))) {
		free(w);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	w->max_stack = max_stack;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) != 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		free(w->path);
		free(w);
		return psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", path, strerror(err));
	}
	w->gz = gzdopen(fd, "wb1"); /* fast: the collector runs on production hosts */
	if (!w->gz) {
		close(fd);
		free(w->path);
		free(w);
		return psym_err_set(e, PSYM_ENOMEM, "'%s': cannot start gzip", path);
	}
	put(w, MAGIC, 8);
	put_u(w, PSYM_USTACKS_VERSION, 4);
	put_u(w, w->arch->machine, 4);
	put_u(w, w->arch->nregs, 4);
	put_u(w, regset_of(w->arch), 4);
	put_u(w, max_stack, 4);
	put_u(w, 0, 4);
	if (w->failed || gzwrite(w->gz, w->buf, (unsigned)w->n) != (int)w->n) {
		psym_ustacks_close(w, NULL);
		return psym_err_set(e, PSYM_EIO, "cannot write '%s'", path);
	}
	w->n = 0;
	*out = w;
	return 0;
}

int psym_ustacks_process(struct psym_ustacks_writer *w, int pid, const struct psym_procmap *maps,
			 size_t n, struct psym_err *e)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		kept += maps[i].exec && maps[i].path[0];
	if (kept > PSYM_PROCMAPS_MAX)
		kept = PSYM_PROCMAPS_MAX;
	w->n = 0;
	put_u(w, 0, 8); /* record header, filled by flush_record */
	put_u(w, (uint32_t)pid, 4);
	put_u(w, kept, 4);
	for (size_t i = 0, k = 0; i < n && k < kept; i++) {
		size_t bl = strnlen(maps[i].build_id, sizeof(maps[i].build_id));
		size_t pl = strnlen(maps[i].path, sizeof(maps[i].path));

		if (!maps[i].exec || !maps[i].path[0])
			continue;
		put_u(w, maps[i].start, 8);
		put_u(w, maps[i].limit, 8);
		put_u(w, maps[i].offset, 8);
		put_u(w, bl, 1);
		put(w, maps[i].build_id, bl);
		put_u(w, pl, 2);
		put(w, maps[i].path, pl);
		k++;
	}
	return flush_record(w, REC_PROCESS, e);
}

int psym_ustacks_exe(struct psym_ustacks_writer *w, int pid, const char *path, struct psym_err *e)
{
	size_t pl = strnlen(path, sizeof(((struct psym_procmap *)0)->path) - 1);

	w->n = 0;
	put_u(w, 0, 8);
	put_u(w, (uint32_t)pid, 4);
	put_u(w, pl, 2);
	put(w, path, pl);
	return flush_record(w, REC_EXE, e);
}

int psym_ustacks_mntns(struct psym_ustacks_writer *w, int pid, uint64_t inode, struct psym_err *e)
{
	w->n = 0;
	put_u(w, 0, 8);
	put_u(w, (uint32_t)pid, 4);
	put_u(w, inode, 8);
	return flush_record(w, REC_MNTNS, e);
}

int psym_ustacks_sample(struct psym_ustacks_writer *w, const struct psym_ustack_sample *s,
			struct psym_err *e)
{
	size_t nk = s->nk > PSYM_USTACKS_MAX_KSTACK ? PSYM_USTACKS_MAX_KSTACK : s->nk;
	size_t sl = s->stack_len > w->max_stack ? w->max_stack : s->stack_len;
	char comm[16] = { 0 };

	w->n = 0;
	put_u(w, 0, 8);
	put_u(w, s->pid, 4);
	put_u(w, s->tid, 4);
	put_u(w, s->cpu, 4);
	put_u(w, s->regs.valid, w->arch->machine == EM_AARCH64 ? 8 : 4);
	put_u(w, s->time_ns, 8);
	memcpy(comm, s->comm, strnlen(s->comm, sizeof(comm) - 1));
	put(w, comm, 16);
	for (unsigned i = 0; i < w->arch->nregs; i++)
		put_u(w, s->regs.r[i], 8);
	put_u(w, nk, 2);
	put_u(w, 0, 2);
	for (size_t i = 0; i < nk; i++)
		put_u(w, s->kstack[i], 8);
	put_u(w, sl, 4);
	put(w, s->stack, sl);
	return flush_record(w, REC_SAMPLE, e);
}

int psym_ustacks_close(struct psym_ustacks_writer *w, struct psym_err *e)
{
	int r = 0;

	if (!w)
		return 0;
	if (gzclose(w->gz) != Z_OK || w->failed)
		r = psym_err_set(e, PSYM_EIO, "cannot write '%s'", w->path);
	free(w->buf);
	free(w->path);
	free(w);
	return r;
}

/* ---- reading ------------------------------------------------------------------ */

struct rd {
	const uint8_t *p, *end;
	bool ok;
};

static uint64_t get_u(struct rd *r, unsigned size)
{
	uint64_t v;

	if ((size_t)(r->end - r->p) < size) {
		r->ok = false;
		r->p = r->end;
		return 0;
	}
	v = psym_get_uint(r->p, size, false);
	r->p += size;
	return v;
}

static const uint8_t *get_bytes(struct rd *r, size_t n)
{
	const uint8_t *p = r->p;

	if ((size_t)(r->end - r->p) < n) {
		r->ok = false;
		r->p = r->end;
		return NULL;
	}
	r->p += n;
	return p;
}

/* Read exactly n bytes: 1, 0 at a clean end of file (n bytes none read), -1 on error. */
static int read_full(gzFile gz, void *buf, size_t n, bool *partial)
{
	size_t got = 0;

	*partial = false;
	while (got < n) {
		int k = gzread(gz, (uint8_t *)buf + got, (unsigned)(n - got));

		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	if (got == n)
		return 1;
	*partial = got > 0;
	return 0;
}

/* 0, PSYM_EBADINPUT (malformed) or PSYM_ENOMEM: -1 is PSYM_ENOMEM, never "bad". */
static int parse_process(const uint8_t *p, size_t len, struct psym_procmap **maps, int *pid,
			 size_t *n)
{
	struct rd r = { p, p + len, true };
	uint32_t nm;

	*pid = (int)get_u(&r, 4);
	nm = (uint32_t)get_u(&r, 4);
	if (!r.ok || nm > PSYM_PROCMAPS_MAX || *pid <= 0)
		return PSYM_EBADINPUT;
	*maps = calloc(nm ? nm : 1, sizeof(**maps));
	if (!*maps)
		return PSYM_ENOMEM;
	for (uint32_t i = 0; i < nm; i++) {
		struct psym_procmap *m = &(*maps)[i];
		size_t bl, pl;
		const uint8_t *b;

		m->start = get_u(&r, 8);
		m->limit = get_u(&r, 8);
		m->offset = get_u(&r, 8);
		bl = (size_t)get_u(&r, 1);
		b = get_bytes(&r, bl);
		if (!r.ok || bl >= sizeof(m->build_id) || m->start >= m->limit)
			return PSYM_EBADINPUT;
		memcpy(m->build_id, b, bl);
		/* Lowercase hex, or a Go build ID in its "go:" form (buildid.h). */
		if (bl &&
		    (strnlen(m->build_id, bl) != bl ||
		     !(psym_build_id_canonical(m->build_id) || psym_build_id_is_go(m->build_id))))
			return PSYM_EBADINPUT;
		pl = (size_t)get_u(&r, 2);
		b = get_bytes(&r, pl);
		if (!r.ok || pl == 0 || pl >= sizeof(m->path) || memchr(b, 0, pl))
			return PSYM_EBADINPUT;
		memcpy(m->path, b, pl);
		m->exec = true;
	}
	*n = nm;
	return r.p == r.end ? 0 : PSYM_EBADINPUT;
}

/* An EXE record into path (its size at least a map's path): 0 or -1 (malformed). */
static int parse_exe(const uint8_t *p, size_t len, int *pid, char *path)
{
	struct rd r = { p, p + len, true };
	const uint8_t *b;
	size_t pl;

	*pid = (int)get_u(&r, 4);
	pl = (size_t)get_u(&r, 2);
	b = get_bytes(&r, pl);
	if (!r.ok || r.p != r.end || *pid <= 0 || pl == 0 ||
	    pl >= sizeof(((struct psym_procmap *)0)->path) || memchr(b, 0, pl))
		return -1;
	memcpy(path, b, pl);
	path[pl] = '\0';
	return 0;
}

static int parse_sample(const struct psym_unwind_arch *a, const uint8_t *p, size_t len,
			struct psym_ustack_sample *s, uint64_t *kstack)
{
	struct rd r = { p, p + len, true };
	const uint8_t *comm;

	memset(s, 0, sizeof(*s));
	s->pid = (uint32_t)get_u(&r, 4);
	s->tid = (uint32_t)get_u(&r, 4);
	s->cpu = (uint32_t)get_u(&r, 4);
	s->regs.machine = a->machine;
	s->regs.valid = get_u(&r, a->machine == EM_AARCH64 ? 8 : 4);
	s->regs.valid &= ((uint64_t)1 << a->nregs) - 1;
	s->time_ns = get_u(&r, 8);
	comm = get_bytes(&r, 16);
	if (comm) {
		memcpy(s->comm, comm, 16);
		s->comm[16] = 0;
	}
	for (unsigned i = 0; i < a->nregs; i++)
		s->regs.r[i] = get_u(&r, 8);
	s->nk = (size_t)get_u(&r, 2);
	get_u(&r, 2);
	if (!r.ok || s->nk > PSYM_USTACKS_MAX_KSTACK)
		return -1;
	for (size_t i = 0; i < s->nk; i++)
		kstack[i] = get_u(&r, 8);
	s->kstack = kstack;
	s->stack_len = (size_t)get_u(&r, 4);
	if (!r.ok || s->stack_len > PSYM_USTACKS_MAX_STACK)
		return -1;
	s->stack = get_bytes(&r, s->stack_len);
	if (!r.ok || r.p != r.end)
		return -1;
	return 0;
}

int psym_ustacks_read(const char *path, const struct psym_ustacks_reader_ops *ops, void *ud,
		      struct psym_err *e)
{
	uint8_t hdr[32], rh[8], *rec = NULL;
	uint64_t kstack[PSYM_USTACKS_MAX_KSTACK];
	const struct psym_unwind_arch *arch = NULL;
	gzFile gz = NULL;
	size_t nrec = 0;
	bool partial;
	int fd, ret = 0, k;

	/* Never blocks: a FIFO planted at IN.d/ustacks.gz is refused by its type. */
	fd = psym_open_regular(path, e);
	if (fd < 0)
		return fd;
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	rec = malloc(MAX_RECORD);
	if (!rec) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	k = read_full(gz, hdr, sizeof(hdr), &partial);
	if (k < 0)
		goto corrupt;
	if (k == 0 || memcmp(hdr, MAGIC, 8) != 0) {
		ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': not a psym stack-copy file", path);
		goto out;
	}
	{
		struct rd r = { hdr + 8, hdr + sizeof(hdr), true };
		uint32_t version = (uint32_t)get_u(&r, 4), mach = (uint32_t)get_u(&r, 4);
		uint32_t nregs = (uint32_t)get_u(&r, 4), regset = (uint32_t)get_u(&r, 4);

		if (version != PSYM_USTACKS_VERSION) {
			ret = psym_err_set(e, PSYM_EUNSUPPORTED,
					   "'%s': stack-copy file version %u (psym reads %d)", path,
					   version, PSYM_USTACKS_VERSION);
			goto out;
		}
		arch = psym_unwind_arch_of(mach);
		if (!mach || !arch || nregs != arch->nregs || regset != regset_of(arch)) {
			ret = psym_err_set(e, PSYM_EUNSUPPORTED,
					   "'%s': stacks of machine %u with register set %u/%u "
					   "(psym unwinds x86-64 and AArch64)",
					   path, mach, regset, nregs);
			goto out;
		}
	}
	for (;;) {
		uint32_t type, len;

		k = read_full(gz, rh, sizeof(rh), &partial);
		if (k < 0)
			goto corrupt;
		if (k == 0) {
			if (partial)
				goto truncated;
			break;
		}
		type = (uint32_t)rh[0] | (uint32_t)rh[1] << 8 | (uint32_t)rh[2] << 16 |
		       (uint32_t)rh[3] << 24;
		len = (uint32_t)rh[4] | (uint32_t)rh[5] << 8 | (uint32_t)rh[6] << 16 |
		      (uint32_t)rh[7] << 24;
		if (len > MAX_RECORD) {
			ret = psym_err_set(e, PSYM_EBADINPUT,
					   "'%s': record %zu: length %u over the 1 MiB cap", path,
					   nrec, len);
			goto out;
		}
		k = read_full(gz, rec, len, &partial);
		if (k < 0)
			goto corrupt;
		if (k == 0 && len)
			goto truncated;
		if (type == REC_PROCESS) {
			struct psym_procmap *maps = NULL;
			size_t n = 0;
			int pid, r = parse_process(rec, len, &maps, &pid, &n);

			if (r == 0 && ops->process)
				ret = ops->process(ud, pid, maps, n);
			free(maps);
			if (r == PSYM_ENOMEM) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
			if (r < 0)
				goto bad;
		} else if (type == REC_SAMPLE) {
			struct psym_ustack_sample s;

			if (parse_sample(arch, rec, len, &s, kstack) < 0)
				goto bad;
			if (ops->sample)
				ret = ops->sample(ud, &s);
		} else if (type == REC_EXE) {
			char exe[sizeof(((struct psym_procmap *)0)->path)];
			int pid;

			if (parse_exe(rec, len, &pid, exe) < 0)
				goto bad;
			if (ops->exe)
				ret = ops->exe(ud, pid, exe);
		} else if (type == REC_MNTNS) {
			struct rd r = { rec, rec + len, true };
			int pid = (int)get_u(&r, 4);
			uint64_t inode = get_u(&r, 8);

			if (!r.ok || r.p != r.end || pid <= 0 || !inode)
				goto bad;
			if (ops->mntns)
				ret = ops->mntns(ud, pid, inode);
		} /* other types: a later version's additions, skipped */
		if (ret)
			goto out;
		nrec++;
	}
	goto out;
bad:
	ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': record %zu is malformed", path, nrec);
	goto out;
truncated:
	ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': truncated in record %zu", path, nrec);
	goto out;
corrupt : {
	int zerr;
	const char *msg = gzerror(gz, &zerr);

	ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': corrupt compressed data at record %zu: %s",
			   path, nrec, msg ? msg : "?");
}
out:
	free(rec);
	gzclose(gz);
	return ret;
}
