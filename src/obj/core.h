/* SPDX-License-Identifier: MIT */
/*
 * ELF core dumps (ulimit -c, systemd-coredump, gcore), read as untrusted
 * input: the threads (NT_PRSTATUS: tid, signal, registers), the process
 * (NT_PRPSINFO: pid, comm; NT_SIGINFO: signal, fault address; NT_AUXV:
 * the vDSO, the executable's program headers and entry), the mapped files
 * (NT_FILE: start, end, file offset, path) and the memory (PT_LOAD).
 * Without NT_FILE (QEMU's user-mode cores), the executable is found from
 * AT_PHDR's ELF image in memory, named by the command line, and the
 * shared libraries from the dynamic linker's link map in memory (its
 * dynamic section's DT_DEBUG -> r_debug -> link_map chain, linkmap.h):
 * read at open when the executable's program headers are in the core,
 * else by psym_core_read_link_map once the caller has the executable's
 * file; the caller maps each library by its file (psym_core_add_file).
 * With NT_FILE the link map is read too, to fill what NT_FILE lacks.
 *
 * Memory: a PT_LOAD's bytes past p_filesz are not in the core (zero pages,
 * or not dumped); those past the end of a truncated core (ulimit -c) are
 * missing, never taken as zeros. The build ID of each mapped ELF file is
 * read from the core's memory at the mapping's first page (ELF header,
 * program headers, PT_NOTE, NT_GNU_BUILD_ID), so that a core from another
 * machine matches files by build ID.
 *
 * x86-64 and AArch64 (e_machine decides the register layout), 64-bit
 * little-endian. A core compressed as systemd-coredump stores it (.zst,
 * .xz, .gz; .lz4 is refused with a message) is inflated as a stream into
 * an unlinked temporary file ($TMPDIR, else /tmp) within a cap on its
 * size, and read from there as an uncompressed core is read from its file:
 * memory holds the decoder and what is read, never the whole core.
 *
 * Caps: at most PSYM_CORE_MAX_THREADS threads, PSYM_CORE_MAX_FILES mapped
 * files, PSYM_CORE_MAX_LOADS segments, notes of at most 64 MiB in all.
 * A core that is cut short or past a cap is read as far as it goes, with
 * where it stopped in partial[].
 */
#ifndef PSYM_CORE_H
#define PSYM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid.h"
#include "error.h"
#include "linkmap.h"

#define PSYM_CORE_MAX_THREADS 65536
#define PSYM_CORE_MAX_FILES 65536
#define PSYM_CORE_MAX_LOADS 262144
#define PSYM_CORE_MAX_NOTES ((size_t)64 << 20)
/* Registers of a thread, in the kernel's order (user_regs_struct). */
#define PSYM_CORE_MAX_REGS 34

struct psym_core_thread {
	uint32_t tid;
	int signal; /* pr_cursig */
	/*
	 * As the kernel saved them: x86-64's user_regs_struct (r15, r14,
	 * ..., rip at 16, rsp at 19), AArch64's x0..x30, sp, pc, pstate.
	 */
	uint64_t regs[PSYM_CORE_MAX_REGS];
	unsigned nregs;
};

struct psym_core_file {
	uint64_t start, end, offset;	      /* [start, end) maps path from offset */
	const char *path;		      /* owned by the core */
	char build_id[PSYM_BUILD_ID_HEX_MAX]; /* "" unknown: read from memory at start */
	bool exec;			      /* a PT_LOAD at start is executable (or unknown) */
};

struct psym_core_load {
	uint64_t vaddr, memsz;
	uint64_t offset; /* in the core */
	uint64_t avail;	 /* bytes of [vaddr, vaddr + avail) in the core (<= p_filesz) */
	uint32_t flags;	 /* PF_* */
};

struct psym_core_limits {
	uint64_t max_input;	   /* a compressed core is refused past this (0: 1 GiB) */
	uint64_t max_decompressed; /* a compressed core's size once decompressed, in a
				    * temporary file (0: 64 GiB; --limit core-bytes) */
};

struct psym_core {
	const char *name;
	uint16_t machine; /* EM_X86_64 or EM_AARCH64 */
	uint32_t pid;
	char comm[17];
	char psargs[81];     /* NT_PRPSINFO's command line (its first 80 bytes) */
	int signal;	     /* of NT_SIGINFO, else the first thread's */
	uint64_t fault_addr; /* NT_SIGINFO's si_addr (faults only) */
	bool has_fault_addr;
	bool has_siginfo;
	uint64_t vdso, phdr, entry;	  /* AT_SYSINFO_EHDR, AT_PHDR, AT_ENTRY; 0: none */
	uint64_t base, phnum;		  /* AT_BASE (the dynamic linker), AT_PHNUM; 0: none */
	bool has_ntfile;		  /* the files came from NT_FILE */
	struct psym_linkmap links;	  /* the link map (links.read: looked for) */
	struct psym_core_thread *threads; /* the dumping (crashed) thread first */
	size_t nthreads;
	struct psym_core_file *files;
	size_t nfiles;
	struct psym_core_load *loads; /* sorted by vaddr */
	size_t nloads;
	char partial[256]; /* "": read completely; else where the reading stopped */
	/* private */
	int fd;
	unsigned char *buf;
	size_t buflen;
	uint64_t fsize;
	char *strs;
	char **owned; /* paths of the files added (psym_core_add_file) */
	size_t nowned, files_cap;
};

/*
 * Read the core at path (regular files only; .zst/.xz by their magic).
 * 0, or a negative code with e naming the file and the problem.
 */
int psym_core_open(const char *path, const struct psym_core_limits *lim, struct psym_core **out,
		   struct psym_err *e);
/* The same from a buffer (copied), uncompressed; name for messages. */
int psym_core_open_mem(const void *buf, size_t len, const char *name, struct psym_core **out,
		       struct psym_err *e);
void psym_core_free(struct psym_core *c);

/*
 * Copy the memory at [addr, addr + len) into out as far as the core has
 * it without a gap; returns how many bytes were copied (0: none).
 */
size_t psym_core_read(const struct psym_core *c, uint64_t addr, void *out, size_t len);

/* The segment holding addr, or NULL. */
const struct psym_core_load *psym_core_load_at(const struct psym_core *c, uint64_t addr);

/*
 * Read the link map from the executable's dynamic section at [dyn, dyn +
 * dynsz) in the core's memory, into c->links (the caller found it from the
 * executable's file: the core had not the program headers). 0 (a chain cut
 * short is said in c->links.why, and in c->partial when the core has no
 * NT_FILE), PSYM_NOENT (no DT_DEBUG), PSYM_ENOMEM.
 */
int psym_core_read_link_map(struct psym_core *c, uint64_t dyn, uint64_t dynsz);

/*
 * Add a mapped file [start, end) of file offset offset (path and build_id
 * copied; build_id "" or NULL: unknown). 0 or PSYM_ENOMEM, PSYM_ELIMIT
 * past PSYM_CORE_MAX_FILES. Pointers into c->files are invalidated.
 */
int psym_core_add_file(struct psym_core *c, uint64_t start, uint64_t end, uint64_t offset,
		       bool exec, const char *path, const char *build_id);

/*
 * The build ID of the ELF image whose first page the core has at start,
 * as hex into out (PSYM_BUILD_ID_HEX_MAX); "" when not there.
 */
void psym_core_build_id_at(const struct psym_core *c, uint64_t start, char *out);

/* Name of a signal number ("SIGSEGV"), or NULL for one not known. */
const char *psym_core_signame(int sig);

#endif
