/* SPDX-License-Identifier: MIT */
/*
 * The collector's stack-copy side file, OUT.d/ustacks.gz: raw samples
 * that psym unwinds offline. gzip-compressed, little-endian, versioned:
 *
 *   header  "PSYMUSTK" u32 version (1) u32 e_machine (62, x86-64, or
 *           183, AArch64) u32 nregs (17; 33) u32 regset (1: DWARF x86-64
 *           numbers 0..16, 16 = rip; 2: AArch64 x0..x30, sp, pc) u32
 *           max_stack u32 reserved
 *   records u32 type u32 len, then len bytes:
 *     1 PROCESS  u32 pid u32 nmaps, nmaps x { u64 start limit offset
 *                u8 build-id hex length, the hex, u16 path length, path }
 *     2 SAMPLE   u32 pid tid cpu, valid (register mask: u32; u64 for
 *                regset 2) u64 time_ns
 *                char comm[16] u64 regs[nregs] u16 nkernel u16 0
 *                u64 kstack[nkernel] (leaf first) u32 stack_len,
 *                stack_len bytes copied from regs[rsp] up
 *     3 EXE      u32 pid u16 path length, path: pid's executable as its
 *                maps name it (readlink of /proc/PID/exe), after its
 *                PROCESS record; the unwound profile writes it first
 *                (pprof: mapping 1 is the main binary). Older files have
 *                none; older readers skip it (unknown types are skipped).
 *     4 MNTNS    u32 pid u64 inode: pid ran in another mount namespace
 *                than psym-collect's (a container), this one; after its
 *                PROCESS record. Its samples get the label mntns=INODE.
 *
 * A PROCESS record gives the executable mappings of pid for the SAMPLE
 * records after it (again after a re-read). The file holds raw user
 * stack bytes, which can contain secrets: it is created mode 0600.
 *
 * The reader treats the file as hostile: caps on every count and length
 * (records of at most 1 MiB, 4096 mappings, 127 kernel frames, 64 KiB of
 * stack), one clear message naming the file and the record on anything
 * malformed or truncated.
 */
#ifndef PSYM_UNWIND_USTACKS_H
#define PSYM_UNWIND_USTACKS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "procmaps.h"
#include "sidenames.h"
#include "unwind.h"

#define PSYM_USTACKS_NAME PSYM_SIDE_USTACKS
#define PSYM_USTACKS_VERSION 1
#define PSYM_USTACKS_MAX_STACK 65536
#define PSYM_USTACKS_MAX_KSTACK 127

struct psym_ustack_sample {
	uint32_t pid, tid, cpu;
	uint64_t time_ns;
	char comm[17];
	struct psym_unwind_regs regs;
	const uint64_t *kstack; /* leaf first */
	size_t nk;
	const uint8_t *stack; /* bytes from the stack pointer up */
	size_t stack_len;
	/*
	 * The sample's values, one per sample type of the profile it came
	 * with (perf.data: each event's count and period); NULL (the side
	 * file's): one sample of the profile's period.
	 */
	const int64_t *values;
	size_t nvalues;
};

struct psym_ustacks_writer;

/* Create path (mode 0600, replacing a regular file), for this host's machine. */
int psym_ustacks_create(const char *path, uint32_t max_stack, struct psym_ustacks_writer **out,
			struct psym_err *e);
/* The same for stacks of machine (EM_X86_64 or EM_AARCH64; arch.h). */
int psym_ustacks_create_for(const char *path, unsigned machine, uint32_t max_stack,
			    struct psym_ustacks_writer **out, struct psym_err *e);
int psym_ustacks_process(struct psym_ustacks_writer *w, int pid, const struct psym_procmap *maps,
			 size_t n, struct psym_err *e);
/* pid's executable (an EXE record), after psym_ustacks_process for pid. */
int psym_ustacks_exe(struct psym_ustacks_writer *w, int pid, const char *path, struct psym_err *e);
/* pid's mount namespace (a MNTNS record), when not the collector's. */
int psym_ustacks_mntns(struct psym_ustacks_writer *w, int pid, uint64_t inode, struct psym_err *e);
int psym_ustacks_sample(struct psym_ustacks_writer *w, const struct psym_ustack_sample *s,
			struct psym_err *e);
/* Flush and close; an error when anything could not be written. Accepts NULL. */
int psym_ustacks_close(struct psym_ustacks_writer *w, struct psym_err *e);

/* Called per record; a non-zero return stops the reading and is returned. */
struct psym_ustacks_reader_ops {
	int (*process)(void *ud, int pid, const struct psym_procmap *maps, size_t n);
	int (*sample)(void *ud, const struct psym_ustack_sample *s);
	int (*exe)(void *ud, int pid, const char *path); /* may be NULL */
	int (*mntns)(void *ud, int pid, uint64_t inode); /* may be NULL */
};

/*
 * Read a side file from path (regular files only). 0, or a negative code
 * with e naming the file and the record; records before a bad one have
 * been delivered.
 */
int psym_ustacks_read(const char *path, const struct psym_ustacks_reader_ops *ops, void *ud,
		      struct psym_err *e);

#endif
