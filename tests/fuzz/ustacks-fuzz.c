/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the stack-copy side file reader (src/unwind/ustacks.c) and
 * the unwinding of what it delivers against the processes' mappings
 * (without files: every frame goes through the frame-pointer fallback).
 * The input is the file's contents, gzip'd or not, given to the reader
 * through a memfd.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind.h"
#include "ustacks.h"

static int find(void *arg, uint64_t pc, struct psym_unwind_obj *obj)
{
	(void)arg;
	(void)pc;
	(void)obj;
	return PSYM_NOENT;
}

static int on_process(void *ud, int pid, const struct psym_procmap *maps, size_t n)
{
	(void)ud;
	(void)pid;
	for (size_t i = 0; i < n; i++)
		if (maps[i].start >= maps[i].limit)
			abort();
	return 0;
}

static int on_sample(void *ud, const struct psym_ustack_sample *s)
{
	struct psym_unwind_stack stk = { s->regs.r[PSYM_X86_RSP], s->stack, s->stack_len };
	struct psym_unwind_result res;
	uint64_t pcs[64];

	(void)ud;
	if (s->nk > PSYM_USTACKS_MAX_KSTACK || s->stack_len > PSYM_USTACKS_MAX_STACK)
		abort();
	psym_unwind(&s->regs, &stk, find, NULL, pcs, 64, &res);
	return 0;
}

static int on_exe(void *ud, int pid, const char *path)
{
	(void)ud;
	if (pid <= 0 || !path[0] || strlen(path) >= sizeof(((struct psym_procmap *)0)->path))
		abort();
	return 0;
}

static int on_mntns(void *ud, int pid, uint64_t inode)
{
	(void)ud;
	if (pid <= 0 || !inode)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct psym_ustacks_reader_ops ops = { on_process, on_sample, on_exe,
							    on_mntns };
	struct psym_err e = { 0 };
	char path[64];
	int fd = memfd_create("ustacks", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		psym_ustacks_read(path, &ops, NULL, &e);
	}
	close(fd);
	return 0;
}
