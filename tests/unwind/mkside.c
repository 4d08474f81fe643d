/* SPDX-License-Identifier: MIT */
/*
 * unwind-mkside OUT.pb.gz DUMP...: what psym-collect --stack-copy writes,
 * made from stacks captured under gdb (tests/unwind/gdbdump.py) instead
 * of BPF: the provisional profile (each sample's leaf only, marked as
 * needing unwinding) and OUT.pb.gz.d/ustacks.gz with the process's
 * mappings (build IDs read from the files) and every sample's registers
 * and stack copy. All dumps are samples of one process (pid 4242).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectprof.h"
#include "elffile.h"
#include "unwindprof.h"
#include "arch.h"
#include "ustacks.h"

#define PID 4242

int main(int argc, char **argv)
{
	struct psym_collect_meta meta = { .period_ns = 10000000, .comment = PSYM_USTACKS_COMMENT };
	struct psym_collectprof *c = NULL;
	struct psym_ustacks_writer *w = NULL;
	struct psym_err e = { 0 };
	char side[4096];
	unsigned machine = 62; /* EM_X86_64 */
	const struct psym_unwind_arch *arch;

	if (argc < 3)
		return 2;
	snprintf(side, sizeof(side), "%s.d", argv[1]);
	mkdir(side, 0700);
	snprintf(side, sizeof(side), "%s.d/%s", argv[1], PSYM_USTACKS_NAME);
	/* The dumps' machine ("arch aarch64" in the first: gdbdump-a64.py's). */
	{
		char l[64];
		FILE *f0 = fopen(argv[2], "r");

		while (f0 && fgets(l, sizeof(l), f0))
			if (strcmp(l, "arch aarch64\n") == 0)
				machine = 183; /* EM_AARCH64 */
		if (f0)
			fclose(f0);
	}
	arch = psym_unwind_arch_of(machine);
	if (psym_collectprof_new(&meta, &c, &e) ||
	    psym_ustacks_create_for(side, machine, 16384, &w, &e))
		goto fail;
	for (int i = 2; i < argc; i++) {
		static struct psym_procmap maps[256];
		static uint8_t stack[1 << 16];
		struct psym_ustack_sample s = { .pid = PID, .tid = PID, .comm = "prog" };
		size_t n = 0;
		char line[1200], path[512];
		FILE *f = fopen(argv[i], "r");

		if (!f)
			return 2;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long a, b, o;
			unsigned r;

			if (sscanf(line, "reg %u %llx", &r, &a) == 2 && r < PSYM_CFI_NREGS) {
				s.regs.r[r] = a;
				s.regs.valid |= (uint64_t)1 << r;
				s.regs.machine = (uint16_t)machine;
			} else if (n < 256 && sscanf(line, "map %llx %llx %llx %511s", &a, &b, &o,
						     path) == 4) {
				struct psym_elf *elf = NULL;

				maps[n] = (struct psym_procmap){
					.start = a, .limit = b, .offset = o, .exec = true
				};
				snprintf(maps[n].path, sizeof(maps[n].path), "%s", path);
				if (psym_elf_open(path, NULL, &elf, &e) == 0) {
					if (psym_elf_build_id(elf))
						snprintf(maps[n].build_id, sizeof(maps[n].build_id),
							 "%s", psym_elf_build_id(elf));
					psym_elf_close(elf);
				}
				n++;
			} else if (sscanf(line, "stack %llx %511s", &a, path) == 2) {
				FILE *sf = fopen(path, "rb");

				if (!sf)
					return 2;
				s.stack_len = fread(stack, 1, sizeof(stack), sf);
				/* A smaller copy, as psym-collect --stack-copy BYTES makes. */
				if (getenv("PSYM_MKSIDE_STACK_MAX") &&
				    s.stack_len >
					    strtoul(getenv("PSYM_MKSIDE_STACK_MAX"), NULL, 10))
					s.stack_len =
						strtoul(getenv("PSYM_MKSIDE_STACK_MAX"), NULL, 10);
				s.stack = stack;
				fclose(sf);
			}
		}
		fclose(f);
		if (i == 2 && (psym_collectprof_process(c, PID, maps, n) < 0 ||
			       psym_ustacks_process(w, PID, maps, n, &e)))
			goto fail;
		if (psym_collectprof_add(c, PID, PID, "prog", NULL, 0, &s.regs.r[arch->pc], 1, 1) <
			    0 ||
		    psym_ustacks_sample(w, &s, &e))
			goto fail;
	}
	if (psym_ustacks_close(w, &e) ||
	    psym_profile_write(psym_collectprof_profile(c), argv[1], true, &e))
		goto fail;
	psym_collectprof_free(c);
	return 0;
fail:
	fprintf(stderr, "unwind-mkside: %s\n", e.msg);
	return 1;
}
