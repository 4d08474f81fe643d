/* SPDX-License-Identifier: MIT */
/* ELF core dumps: threads, process, mapped files and memory (core.h). */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "fileio.h"
#include "search.h"
#include "zstream.h"

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif

#define DEFAULT_MAX_INPUT ((uint64_t)1 << 30)
#define DEFAULT_MAX_DECOMPRESSED ((uint64_t)64 << 30)
/* elf_prstatus: pr_cursig at 12, pr_pid at 32, pr_reg at 112 (x86-64 and AArch64). */
#define PRSTATUS_CURSIG 12
#define PRSTATUS_PID 32
#define PRSTATUS_REG 112
/* elf_prpsinfo: pr_pid at 24, pr_fname[16] at 40. */
#define PRPSINFO_PID 24
#define PRPSINFO_FNAME 40
#define PRPSINFO_ARGS 56
/* The first page of a mapped ELF, where its build ID note is looked for. */
#define HEAD_MAX 4096
#define HEAD_PHNUM_MAX 64

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/* Bytes of the core file at off: as many as it has, up to len. */
static size_t raw_read(const struct psym_core *c, uint64_t off, void *out, size_t len)
{
	size_t got = 0;

	if (off >= c->fsize)
		return 0;
	if (len > c->fsize - off)
		len = (size_t)(c->fsize - off);
	if (c->buf) {
		memcpy(out, c->buf + off, len);
		return len;
	}
	while (got < len) {
		ssize_t n = pread(c->fd, (char *)out + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

static void __attribute__((format(printf, 2, 3)))
set_partial(struct psym_core *c, const char *fmt, ...)
{
	va_list ap;

	if (c->partial[0])
		return; /* the first place it stopped is the news */
	va_start(ap, fmt);
	vsnprintf(c->partial, sizeof(c->partial), fmt, ap);
	va_end(ap);
}

const struct psym_core_load *psym_core_load_at(const struct psym_core *c, uint64_t addr)
{
	/* The loads are sorted and (in a well-formed core) apart: the first not wholly below addr. */
	size_t k = PSYM_LOWER_BOUND(0, c->nloads, i,
				    addr < c->loads[i].vaddr ||
					    addr - c->loads[i].vaddr < c->loads[i].memsz);

	if (k < c->nloads && addr >= c->loads[k].vaddr)
		return &c->loads[k];
	return NULL;
}

size_t psym_core_read(const struct psym_core *c, uint64_t addr, void *out, size_t len)
{
	size_t done = 0;

	while (done < len) {
		const struct psym_core_load *l = psym_core_load_at(c, addr + done);
		uint64_t in, n, got;

		if (!l)
			break;
		in = addr + done - l->vaddr;
		if (in >= l->avail)
			break; /* not dumped, or cut off with the file */
		n = l->avail - in;
		if (n > len - done)
			n = len - done;
		got = raw_read(c, l->offset + in, (char *)out + done, (size_t)n);
		done += (size_t)got;
		if (got < n)
			break;
	}
	return done;
}

static int add_thread(struct psym_core *c, const unsigned char *d, size_t n, size_t *cap)
{
	unsigned nregs = c->machine == EM_AARCH64 ? 34 : 27;
	struct psym_core_thread *t;

	if (n < PRSTATUS_REG + (size_t)nregs * 8) {
		set_partial(c, "NT_PRSTATUS note of %zu bytes, too short (thread %zu)", n,
			    c->nthreads);
		return 0;
	}
	if (c->nthreads >= PSYM_CORE_MAX_THREADS) {
		set_partial(c, "more than %d threads: the rest are not read",
			    PSYM_CORE_MAX_THREADS);
		return 0;
	}
	if (c->nthreads == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *nt = realloc(c->threads, ncap * sizeof(*c->threads));

		if (!nt)
			return PSYM_ENOMEM;
		c->threads = nt;
		*cap = ncap;
	}
	t = &c->threads[c->nthreads++];
	memset(t, 0, sizeof(*t));
	t->signal = (int16_t)(d[PRSTATUS_CURSIG] | d[PRSTATUS_CURSIG + 1] << 8);
	t->tid = rd32(d + PRSTATUS_PID);
	t->nregs = nregs;
	for (unsigned i = 0; i < nregs; i++)
		t->regs[i] = rd64(d + PRSTATUS_REG + 8 * i);
	return 0;
}

/* NT_FILE: count, page size, count x (start, end, page offset), count paths. */
static int read_files(struct psym_core *c, const unsigned char *d, size_t n)
{
	uint64_t count, page, fit;
	const unsigned char *s, *end = d + n;

	if (c->files || n < 16)
		return 0;
	count = rd64(d);
	page = rd64(d + 8);
	fit = (n - 16) / 24;
	if (count > fit) {
		set_partial(c, "NT_FILE claims %" PRIu64 " files, its note holds at most %" PRIu64,
			    count, fit);
		count = fit;
	}
	if (count > PSYM_CORE_MAX_FILES) {
		set_partial(c, "NT_FILE has %" PRIu64 " files, past the cap of %d", count,
			    PSYM_CORE_MAX_FILES);
		count = PSYM_CORE_MAX_FILES;
	}
	if (!count)
		return 0;
	c->files = calloc((size_t)count, sizeof(*c->files));
	c->files_cap = (size_t)count;
	c->strs = malloc((size_t)(end - (d + 16 + count * 24)) + 1);
	if (!c->files || !c->strs)
		return PSYM_ENOMEM;
	s = d + 16 + count * 24;
	memcpy(c->strs, s, (size_t)(end - s));
	c->strs[end - s] = '\0';
	for (uint64_t i = 0; i < count; i++) {
		struct psym_core_file *f = &c->files[c->nfiles];
		const unsigned char *e = memchr(s, '\0', (size_t)(end - s));

		if (!e) {
			set_partial(c, "NT_FILE names %" PRIu64 " of its %" PRIu64 " files", i,
				    count);
			break;
		}
		f->start = rd64(d + 16 + i * 24);
		f->end = rd64(d + 16 + i * 24 + 8);
		f->offset = rd64(d + 16 + i * 24 + 16) * page;
		f->path = c->strs + (s - (d + 16 + count * 24));
		s = e + 1;
		if (f->end > f->start)
			c->nfiles++;
	}
	return 0;
}

static void read_siginfo(struct psym_core *c, const unsigned char *d, size_t n)
{
	int signo, code;

	/* The first: the kernel writes one, gdb one per thread (the first is the first thread's). */
	if (n < 24 || c->has_siginfo)
		return;
	c->has_siginfo = true;
	signo = (int)rd32(d);
	code = (int)rd32(d + 8);
	c->signal = signo;
	/* si_addr means something for the faults the kernel sends (si_code > 0). */
	if (code > 0 && (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL ||
			 signo == SIGFPE || signo == SIGTRAP)) {
		c->fault_addr = rd64(d + 16);
		c->has_fault_addr = true;
	}
}

static void read_auxv(struct psym_core *c, const unsigned char *d, size_t n)
{
	for (size_t i = 0; i + 16 <= n; i += 16) {
		uint64_t k = rd64(d + i), v = rd64(d + i + 8);

		if (k == AT_NULL)
			break;
		if (k == AT_SYSINFO_EHDR)
			c->vdso = v;
		else if (k == AT_PHDR)
			c->phdr = v;
		else if (k == AT_ENTRY)
			c->entry = v;
		else if (k == AT_BASE)
			c->base = v;
		else if (k == AT_PHNUM)
			c->phnum = v;
	}
}

static int read_notes(struct psym_core *c, const unsigned char *d, size_t n, size_t *cap)
{
	size_t off = 0;
	int ret = 0;

	while (!ret && n - off >= 12) {
		uint32_t namesz = rd32(d + off), descsz = rd32(d + off + 4),
			 type = rd32(d + off + 8);
		size_t nameoff = off + 12, descoff, next;
		const unsigned char *desc;

		if ((uint64_t)namesz > n - nameoff)
			goto bad;
		descoff = nameoff + (((size_t)namesz + 3) & ~(size_t)3);
		if (descoff > n || (uint64_t)descsz > n - descoff)
			goto bad;
		next = descoff + (((size_t)descsz + 3) & ~(size_t)3);
		desc = d + descoff;
		if (namesz == 5 && !memcmp(d + nameoff, "CORE", 5)) {
			switch (type) {
			case NT_PRSTATUS: ret = add_thread(c, desc, descsz, cap); break;
			case NT_PRPSINFO:
				if (descsz >= PRPSINFO_FNAME + 16) {
					c->pid = rd32(desc + PRPSINFO_PID);
					memcpy(c->comm, desc + PRPSINFO_FNAME, 16);
					c->comm[16] = '\0';
					if (descsz >= PRPSINFO_ARGS + 80)
						memcpy(c->psargs, desc + PRPSINFO_ARGS, 80);
				}
				break;
			case NT_SIGINFO: read_siginfo(c, desc, descsz); break;
			case NT_AUXV: read_auxv(c, desc, descsz); break;
			case NT_FILE:
				c->has_ntfile = true;
				ret = read_files(c, desc, descsz);
				break;
			default: break;
			}
		}
		if (next > n)
			break;
		off = next;
	}
	return ret;
bad:
	set_partial(c, "a note at offset %zu of a PT_NOTE claims more than its %zu bytes", off, n);
	return 0;
}

static int cmp_load(const void *a, const void *b)
{
	const struct psym_core_load *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The program headers: the loads kept, the notes read. */
static int read_phdrs(struct psym_core *c, const Elf64_Ehdr *eh, uint64_t phnum, struct psym_err *e)
{
	size_t tcap = 0, notes_total = 0;
	Elf64_Phdr *ph;
	size_t got;
	int ret = 0;

	if (phnum > PSYM_CORE_MAX_LOADS + 16) {
		set_partial(c, "%" PRIu64 " program headers, past the cap of %d", phnum,
			    PSYM_CORE_MAX_LOADS + 16);
		phnum = PSYM_CORE_MAX_LOADS + 16;
	}
	ph = calloc((size_t)phnum ? (size_t)phnum : 1, sizeof(*ph));
	c->loads = calloc((size_t)phnum ? (size_t)phnum : 1, sizeof(*c->loads));
	if (!ph || !c->loads) {
		ret = psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", c->name);
		goto out;
	}
	got = raw_read(c, eh->e_phoff, ph, (size_t)phnum * sizeof(*ph));
	if (got < (size_t)phnum * sizeof(*ph)) {
		if (got < sizeof(*ph)) {
			ret = psym_err_set(e, PSYM_EBADINPUT,
					   "'%s': truncated core: no program headers", c->name);
			goto out;
		}
		set_partial(c, "truncated core: %zu of %" PRIu64 " program headers",
			    got / sizeof(*ph), phnum);
		phnum = got / sizeof(*ph);
	}
	for (uint64_t i = 0; i < phnum && !ret; i++) {
		const Elf64_Phdr *p = &ph[i];
		uint64_t have = p->p_offset < c->fsize ? c->fsize - p->p_offset : 0;

		if (p->p_type == PT_LOAD && p->p_memsz) {
			struct psym_core_load *l = &c->loads[c->nloads++];

			l->vaddr = p->p_vaddr;
			l->memsz = p->p_memsz;
			l->offset = p->p_offset;
			l->flags = p->p_flags;
			l->avail = p->p_filesz < p->p_memsz ? p->p_filesz : p->p_memsz;
			if (p->p_vaddr + p->p_memsz < p->p_vaddr)
				l->memsz = UINT64_MAX - p->p_vaddr;
			if (l->avail > have) {
				set_partial(c,
					    "truncated core: the memory at 0x%" PRIx64
					    " is cut off after 0x%" PRIx64 " bytes",
					    p->p_vaddr, have);
				l->avail = have;
			}
		} else if (p->p_type == PT_NOTE && p->p_filesz) {
			size_t len = p->p_filesz < have ? (size_t)p->p_filesz : (size_t)have;
			unsigned char *nb;

			if (len < p->p_filesz)
				set_partial(c,
					    "truncated core: notes cut off at %zu of %" PRIu64
					    " bytes",
					    len, p->p_filesz);
			if (notes_total + len > PSYM_CORE_MAX_NOTES) {
				set_partial(c, "notes past the cap of %zu bytes",
					    PSYM_CORE_MAX_NOTES);
				continue;
			}
			notes_total += len;
			nb = malloc(len ? len : 1);
			if (!nb) {
				ret = psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", c->name);
				break;
			}
			len = raw_read(c, p->p_offset, nb, len);
			ret = read_notes(c, nb, len, &tcap);
			free(nb);
			if (ret)
				psym_err_set(e, ret, "'%s': out of memory", c->name);
		}
	}
	if (c->nloads > 1)
		qsort(c->loads, c->nloads, sizeof(*c->loads), cmp_load);
out:
	free(ph);
	return ret;
}

/* The build ID note of the ELF file mapped at start, from the core's memory. */
static void file_build_id(const struct psym_core *c, struct psym_core_file *f)
{
	unsigned char head[HEAD_MAX], note[HEAD_MAX];
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)head;
	uint64_t first = UINT64_MAX, bias;
	Elf64_Phdr ph[HEAD_PHNUM_MAX];
	size_t got = psym_core_read(c, f->start, head, sizeof(head)), nph;

	if (got < sizeof(*eh) || memcmp(head, ELFMAG, SELFMAG) || head[EI_CLASS] != ELFCLASS64 ||
	    head[EI_DATA] != ELFDATA2LSB || le16toh(eh->e_phentsize) != sizeof(Elf64_Phdr))
		return;
	nph = le16toh(eh->e_phnum);
	if (nph > HEAD_PHNUM_MAX)
		nph = HEAD_PHNUM_MAX;
	if (le64toh(eh->e_phoff) > got || (got - le64toh(eh->e_phoff)) / sizeof(ph[0]) < nph)
		nph = le64toh(eh->e_phoff) > got ? 0 : (got - le64toh(eh->e_phoff)) / sizeof(ph[0]);
	if (nph)
		memcpy(ph, head + le64toh(eh->e_phoff), nph * sizeof(ph[0]));
	for (size_t i = 0; i < nph; i++)
		if (le32toh(ph[i].p_type) == PT_LOAD && le64toh(ph[i].p_vaddr) < first)
			first = le64toh(ph[i].p_vaddr) - le64toh(ph[i].p_offset);
	if (first == UINT64_MAX)
		return;
	bias = f->start - first;
	for (size_t i = 0; i < nph; i++) {
		uint64_t len = le64toh(ph[i].p_filesz);

		if (le32toh(ph[i].p_type) != PT_NOTE)
			continue;
		if (len > sizeof(note))
			len = sizeof(note);
		got = psym_core_read(c, bias + le64toh(ph[i].p_vaddr), note, (size_t)len);
		if (psym_notes_build_id(note, got, le64toh(ph[i].p_align) == 8 ? 8 : 4, false,
					f->build_id) == 0)
			return;
	}
	f->build_id[0] = '\0';
}

void psym_core_build_id_at(const struct psym_core *c, uint64_t start, char *out)
{
	struct psym_core_file f = { .start = start };

	file_build_id(c, &f);
	memcpy(out, f.build_id, sizeof(f.build_id));
}

/* Each file's build ID (that of its mapping at offset 0) and whether it is code. */
static void files_finish(struct psym_core *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		struct psym_core_file *f = &c->files[i];
		const struct psym_core_load *l = psym_core_load_at(c, f->start);

		/* The executable made from its image (no NT_FILE) spans all its segments. */
		f->exec = !c->has_ntfile || !l || l->vaddr != f->start || (l->flags & PF_X);
		if (f->offset == 0)
			file_build_id(c, f);
	}
	for (size_t i = 0; i < c->nfiles; i++) {
		struct psym_core_file *f = &c->files[i];

		if (f->offset == 0 || f->build_id[0])
			continue;
		/* Its file's first mapping, mapped just below it. */
		for (size_t j = i; j-- > 0;)
			if (c->files[j].offset == 0 && !strcmp(c->files[j].path, f->path)) {
				memcpy(f->build_id, c->files[j].build_id, sizeof(f->build_id));
				break;
			}
	}
}

/*
 * No NT_FILE (QEMU's user-mode cores, old kernels): the executable, from
 * the ELF image in memory at the segment holding AT_PHDR, as one mapping
 * from its first segment to its last, named by the command line's first
 * word. Only the executable: other files cannot be told apart.
 */
static int synth_exe(struct psym_core *c)
{
	const struct psym_core_load *l = psym_core_load_at(c, c->phdr);
	unsigned char head[HEAD_MAX];
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)head;
	uint64_t lo = UINT64_MAX, hi = 0, phoff;
	size_t got, nph, plen;
	struct psym_core_file *f;

	if (!l)
		return 0;
	got = psym_core_read(c, l->vaddr, head, sizeof(head));
	phoff = got >= sizeof(*eh) ? le64toh(eh->e_phoff) : 0;
	nph = got >= sizeof(*eh) ? le16toh(eh->e_phnum) : 0;
	if (got >= sizeof(*eh) && !memcmp(head, ELFMAG, SELFMAG) && head[EI_CLASS] == ELFCLASS64 &&
	    phoff <= got && nph <= (got - phoff) / sizeof(Elf64_Phdr)) {
		for (size_t i = 0; i < nph; i++) {
			Elf64_Phdr ph;

			memcpy(&ph, head + phoff + i * sizeof(ph), sizeof(ph));
			if (le32toh(ph.p_type) != PT_LOAD)
				continue;
			if (le64toh(ph.p_vaddr) - le64toh(ph.p_offset) < lo)
				lo = le64toh(ph.p_vaddr) - le64toh(ph.p_offset);
			if (le64toh(ph.p_vaddr) + le64toh(ph.p_memsz) > hi)
				hi = le64toh(ph.p_vaddr) + le64toh(ph.p_memsz);
		}
	} else {
		/* Its header not dumped (QEMU leaves code out): the segments from it on, while contiguous. */
		lo = 0;
		hi = l->memsz;
		for (const struct psym_core_load *n = l + 1;
		     n < c->loads + c->nloads && n->vaddr == l->vaddr + hi &&
		     hi < ((uint64_t)1 << 32);
		     n++)
			hi += n->memsz;
	}
	if (lo == UINT64_MAX || hi <= lo || hi - lo > ((uint64_t)1 << 40))
		return 0;
	c->psargs[sizeof(c->psargs) - 1] = '\0';
	plen = strcspn(c->psargs, " ");
	/* An NT_FILE that named nothing usable may have left its arrays. */
	free(c->files);
	free(c->strs);
	c->files = calloc(1, sizeof(*c->files));
	c->files_cap = 1;
	c->has_ntfile = false;
	c->strs = malloc(plen + 1);
	if (!c->files || !c->strs)
		return PSYM_ENOMEM;
	memcpy(c->strs, c->psargs, plen);
	c->strs[plen] = '\0';
	f = &c->files[0];
	f->start = l->vaddr;
	f->end = l->vaddr + (hi - lo);
	f->offset = 0;
	f->path = c->strs;
	c->nfiles = 1;
	return 0;
}

static size_t mem_read(const void *ctx, uint64_t addr, void *out, size_t len)
{
	return psym_core_read(ctx, addr, out, len);
}

int psym_core_read_link_map(struct psym_core *c, uint64_t dyn, uint64_t dynsz)
{
	const struct psym_mem_abi abi = { .is64 = true, .msb = false };
	int ret;

	psym_linkmap_free(&c->links);
	ret = psym_linkmap_read(mem_read, c, abi, dyn, dynsz, &c->links);
	if (ret == 0 && c->links.why[0] && !c->has_ntfile)
		set_partial(c, "link map: %s", c->links.why);
	return ret;
}

/* The link map, when the executable's program headers (AT_PHDR) are in the core. */
static int link_map_mem(struct psym_core *c)
{
	const struct psym_mem_abi abi = { .is64 = true, .msb = false };
	uint64_t bias, dyn, dynsz;
	int ret;

	if (psym_linkmap_dynamic_mem(mem_read, c, abi, c->phdr, c->phnum, &bias, &dyn, &dynsz))
		return 0; /* not dumped (QEMU): the caller may find it in the file */
	ret = psym_core_read_link_map(c, dyn, dynsz);
	return ret == PSYM_ENOMEM ? ret : 0;
}

int psym_core_add_file(struct psym_core *c, uint64_t start, uint64_t end, uint64_t offset,
		       bool exec, const char *path, const char *build_id)
{
	struct psym_core_file *f;
	char *p, **no;

	if (c->nfiles >= PSYM_CORE_MAX_FILES)
		return PSYM_ELIMIT;
	if (c->nfiles == c->files_cap) {
		size_t ncap = c->nfiles * 2 + 8;
		void *nf = realloc(c->files, ncap * sizeof(*c->files));

		if (!nf)
			return PSYM_ENOMEM;
		c->files = nf;
		c->files_cap = ncap;
	}
	p = strdup(path);
	no = p ? realloc(c->owned, (c->nowned + 1) * sizeof(*c->owned)) : NULL;
	if (!no) {
		free(p);
		return PSYM_ENOMEM;
	}
	c->owned = no;
	c->owned[c->nowned++] = p;
	f = &c->files[c->nfiles++];
	memset(f, 0, sizeof(*f));
	f->start = start;
	f->end = end;
	f->offset = offset;
	f->path = p;
	f->exec = exec;
	snprintf(f->build_id, sizeof(f->build_id), "%s", build_id ? build_id : "");
	return 0;
}

static int parse(struct psym_core *c, struct psym_err *e)
{
	Elf64_Ehdr eh;
	uint64_t phnum;

	if (raw_read(c, 0, &eh, sizeof(eh)) < sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': not an ELF core file", c->name);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return psym_err_set(e, PSYM_EUNSUPPORTED,
				    "'%s': only 64-bit little-endian cores are read", c->name);
	if (le16toh(eh.e_type) != ET_CORE)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': an ELF file but not a core (type %u)",
				    c->name, (unsigned)le16toh(eh.e_type));
	c->machine = le16toh(eh.e_machine);
	if (c->machine != EM_X86_64 && c->machine != EM_AARCH64)
		return psym_err_set(e, PSYM_EUNSUPPORTED,
				    "'%s': a core of machine %u (x86-64 and AArch64 are read)",
				    c->name, (unsigned)c->machine);
	if (le16toh(eh.e_phentsize) != sizeof(Elf64_Phdr))
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': program headers of %u bytes", c->name,
				    (unsigned)le16toh(eh.e_phentsize));
	eh.e_phoff = le64toh(eh.e_phoff);
	phnum = le16toh(eh.e_phnum);
	if (phnum == PN_XNUM) {
		/* More than 65534 segments: the count is section header 0's sh_info. */
		Elf64_Shdr sh;

		if (raw_read(c, le64toh(eh.e_shoff), &sh, sizeof(sh)) < sizeof(sh))
			return psym_err_set(e, PSYM_EBADINPUT,
					    "'%s': PN_XNUM program headers and no section header",
					    c->name);
		phnum = le32toh(sh.sh_info);
	}
	if (!phnum)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': a core without program headers",
				    c->name);
	return read_phdrs(c, &eh, phnum, e);
}

static int finish(struct psym_core *c, struct psym_err *e)
{
	int ret = parse(c, e);

	if (ret)
		return ret;
	if (!c->nthreads)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': a core without threads (no NT_PRSTATUS)%s%s", c->name,
				    c->partial[0] ? ": " : "", c->partial);
	if (!c->signal)
		c->signal = c->threads[0].signal;
	if (!c->nfiles && c->phdr && synth_exe(c))
		return psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", c->name);
	files_finish(c);
	if (link_map_mem(c))
		return psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", c->name);
	return 0;
}

static struct psym_core *core_alloc(const char *name)
{
	struct psym_core *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = -1;
	c->name = strdup(name);
	if (!c->name) {
		free(c);
		return NULL;
	}
	return c;
}

int psym_core_open_mem(const void *buf, size_t len, const char *name, struct psym_core **out,
		       struct psym_err *e)
{
	struct psym_core *c = core_alloc(name);
	int ret;

	*out = NULL;
	if (!c)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	c->buf = malloc(len ? len : 1);
	if (!c->buf) {
		psym_core_free(c);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	memcpy(c->buf, buf, len);
	c->buflen = c->fsize = len;
	ret = finish(c, e);
	if (ret) {
		psym_core_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

/*
 * A compressed core, by its magic: inflated as a stream into an unlinked
 * temporary file, which then stands for the core (c->fd), so that memory
 * holds only the decoder and what is read; the cap is on the file's size
 * (--limit core-bytes). 1: not compressed.
 */
static int decompress(struct psym_core *c, const unsigned char *magic, size_t mlen,
		      const struct psym_core_limits *lim, struct psym_err *e)
{
	static const unsigned char lz4[] = { 0x04, 0x22, 0x4d, 0x18 };
	uint64_t max_in = lim && lim->max_input ? lim->max_input : DEFAULT_MAX_INPUT;
	uint64_t max_out =
		lim && lim->max_decompressed ? lim->max_decompressed : DEFAULT_MAX_DECOMPRESSED;
	enum psym_zstream_kind kind = psym_zstream_sniff(magic, mlen);
	uint64_t len;
	int tmp, ret;

	if (mlen >= 4 && !memcmp(magic, lz4, 4))
		return psym_err_set(e, PSYM_EUNSUPPORTED,
				    "'%s': an lz4-compressed core: psym reads .zst, .xz and .gz "
				    "cores; decompress it first (lz4 -d)",
				    c->name);
	if (kind == PSYM_ZS_NONE)
		return 1;
	if (c->fsize > max_in)
		return psym_err_set(
			e, PSYM_ELIMIT,
			"'%s': larger than the limit of %llu bytes (--max-input-size N)", c->name,
			(unsigned long long)max_in);
	tmp = psym_anon_tmpfile("a decompressed core", e);
	if (tmp < 0)
		return tmp;
	if (lseek(c->fd, 0, SEEK_SET) != 0) {
		close(tmp);
		return psym_err_set(e, PSYM_EIO, "'%s': cannot seek: %s", c->name, strerror(errno));
	}
	ret = psym_zstream_to_fd(kind, c->fd, tmp, max_out, c->name, "--limit core-bytes=N", &len,
				 e);
	if (ret) {
		close(tmp);
		return ret;
	}
	close(c->fd);
	c->fd = tmp;
	c->fsize = len;
	return 0;
}

int psym_core_open(const char *path, const struct psym_core_limits *lim, struct psym_core **out,
		   struct psym_err *e)
{
	struct psym_core *c = core_alloc(path);
	unsigned char magic[8];
	struct stat st;
	size_t mlen;
	int ret;

	*out = NULL;
	if (!c)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	c->fd = psym_open_regular(path, e);
	if (c->fd < 0) {
		ret = c->fd;
		c->fd = -1;
		goto fail;
	}
	if (fstat(c->fd, &st) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot stat '%s': %s", path, strerror(errno));
		goto fail;
	}
	c->fsize = (uint64_t)st.st_size;
	mlen = raw_read(c, 0, magic, sizeof(magic));
	ret = decompress(c, magic, mlen, lim, e);
	if (ret < 0)
		goto fail;
	ret = finish(c, e);
	if (ret)
		goto fail;
	*out = c;
	return 0;
fail:
	psym_core_free(c);
	return ret;
}

void psym_core_free(struct psym_core *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c->threads);
	free(c->files);
	free(c->loads);
	free(c->strs);
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	psym_linkmap_free(&c->links);
	free((char *)c->name);
	free(c);
}

const char *psym_core_signame(int sig)
{
	switch (sig) {
	case SIGHUP: return "SIGHUP";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGUSR1: return "SIGUSR1";
	case SIGSEGV: return "SIGSEGV";
	case SIGUSR2: return "SIGUSR2";
	case SIGPIPE: return "SIGPIPE";
	case SIGALRM: return "SIGALRM";
	case SIGTERM: return "SIGTERM";
	case SIGSTOP: return "SIGSTOP";
	case SIGSYS: return "SIGSYS";
	case SIGXCPU: return "SIGXCPU";
	case SIGXFSZ: return "SIGXFSZ";
	default: return NULL;
	}
}
