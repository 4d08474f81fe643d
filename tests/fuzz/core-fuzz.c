/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: an ELF core dump (core.h), then every thread unwound by the
 * frame-pointer rule over the core's memory (no files: the fallback the
 * unwinder takes where a pc has no CFI), as psym stack reads a stack. A
 * core must give a result or an error, within its caps: notes that lie,
 * segments past the end, NT_FILE counts that lie, stacks that loop, link
 * maps that loop, run past the cap or name memory the core has not (the
 * core reads its link map at open when the executable's program headers
 * are in it; for one without, the walk is also tried from AT_PHDR, as if
 * a dynamic section were there, to take it over arbitrary memory).
 */
#include "config.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>

#include "arch.h"
#include "core.h"
#include "unwind.h"

#define STACK_MAX 65536
#define FRAMES_MAX 64

static int no_obj(void *arg, uint64_t pc, struct psym_unwind_obj *obj)
{
	(void)arg;
	(void)pc;
	(void)obj;
	return PSYM_NOENT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t stack[STACK_MAX];
	static const unsigned x86[17] = {
		10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16
	};
	struct psym_err e = { 0 };
	struct psym_core *c = NULL;
	uint64_t pcs[FRAMES_MAX];
	static volatile uint64_t sink;

	if (psym_core_open_mem(data, size, "fuzz", &c, &e) != 0)
		return 0;
	for (size_t i = 0; i < c->nfiles; i++)
		sink += c->files[i].start + c->files[i].path[0] + (uint8_t)c->files[i].build_id[0];
	if (!c->links.read && c->phdr && psym_core_read_link_map(c, c->phdr, 0) == PSYM_ENOMEM) {
		psym_core_free(c);
		return 0;
	}
	for (size_t i = 0; i < c->links.n; i++) {
		char bid[PSYM_BUILD_ID_HEX_MAX];

		psym_core_build_id_at(c, c->links.v[i].l_addr, bid);
		sink += c->links.v[i].l_ld + (uint8_t)c->links.v[i].name[0] + (uint8_t)bid[0];
		if (c->links.v[i].name[0] && i < 64)
			psym_core_add_file(c, c->links.v[i].l_addr, c->links.v[i].l_addr + 4096, 0,
					   true, c->links.v[i].name, bid);
	}
	for (size_t t = 0; t < c->nthreads && t < 64; t++) {
		const struct psym_core_thread *th = &c->threads[t];
		const struct psym_unwind_arch *a = psym_unwind_arch_of(c->machine);
		struct psym_unwind_regs u = { .machine = c->machine };
		struct psym_unwind_result res;
		struct psym_unwind_stack stk;

		if (c->machine == EM_AARCH64) {
			for (unsigned i = 0; i <= PSYM_A64_PC; i++)
				u.r[i] = th->regs[i];
			u.valid = ((uint64_t)1 << (PSYM_A64_PC + 1)) - 1;
		} else {
			for (unsigned i = 0; i < 17; i++)
				u.r[i] = th->regs[x86[i]];
			u.valid = ((uint64_t)1 << 17) - 1;
		}
		stk.sp = u.r[a->sp];
		stk.bytes = stack;
		stk.len = psym_core_read(c, stk.sp, stack, sizeof(stack));
		psym_unwind(&u, &stk, no_obj, NULL, pcs, FRAMES_MAX, &res);
		sink += res.n;
	}
	psym_core_free(c);
	return 0;
}
