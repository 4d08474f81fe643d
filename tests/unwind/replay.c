/* SPDX-License-Identifier: MIT */
/*
 * unwind-replay DUMP [REPEAT]: unwind one captured stack (registers,
 * mappings, stack copy; written by tests/unwind/gdbdump.py) with psym's
 * CFI unwinder and print one address per line (the leaf exact, callers
 * as return address - 1), then "stop NAME". With REPEAT, unwind that many
 * times and print the time per unwind on stderr (bench/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "space.h"
#include "unwind.h"

#define MAXF 256

/*
 * "sigtramp LO HI" lines: a signal return trampoline outside any file
 * (qemu-user's; on hardware AArch64's is the vDSO's __kernel_rt_sigreturn,
 * which space.c finds by its symbol).
 */
struct finder {
	struct psym_space *sp;
	uint64_t tramp[8][2];
	size_t ntramp;
};

static int find(void *arg, uint64_t pc, struct psym_unwind_obj *obj)
{
	struct finder *f = arg;

	for (size_t i = 0; i < f->ntramp; i++)
		if (pc + 1 >= f->tramp[i][0] && pc < f->tramp[i][1]) {
			memset(obj, 0, sizeof(*obj));
			obj->sigreturn = true;
			return 0;
		}
	return psym_space_find(f->sp, pc, obj);
}

struct file {
	char path[512];
	struct psym_elf *elf;
};

/* unwind-replay row FILE VADDR: the CFI row, as readelf --debug-dump=frames-interp shows it. */
static int print_row(const char *path, uint64_t vaddr)
{
	static const char *const how[] = { "u", "s", "c", "v", "r", "exp", "vexp", "-" };
	struct psym_elf *elf = NULL;
	struct psym_cfi *cfi = NULL;
	struct psym_cfi_row row;
	struct psym_err e = { 0 };
	int r;

	if (psym_elf_open(path, NULL, &elf, &e) != 0 || psym_cfi_open(elf, NULL, &cfi, &e) != 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	r = psym_cfi_find(cfi, vaddr, &row, &e);
	if (r != 0) {
		printf("%s\n", r < 0 ? e.msg : "no FDE");
	} else {
		printf("fde %" PRIx64 "..%" PRIx64 " cfa %s%u%+" PRId64 "%s", row.fde_start,
		       row.fde_end, how[row.cfa.how], row.cfa.reg, row.cfa.off,
		       row.signal_frame ? " S" : "");
		for (unsigned i = 0; i < PSYM_CFI_NREGS; i++)
			if (row.reg[i].how != PSYM_CFI_UNSET)
				printf(" r%u=%s%+" PRId64, i, how[row.reg[i].how], row.reg[i].off);
		printf("\n");
	}
	psym_cfi_close(cfi);
	psym_elf_close(elf);
	return 0;
}

int main(int argc, char **argv)
{
	static struct file files[512];
	size_t nfiles = 0, nstack = 0;
	struct psym_unwind_regs regs = { 0 };
	struct finder fd = { 0 };
	struct psym_unwind_stack stk = { 0 };
	struct psym_unwind_result res;
	struct psym_space *sp = NULL;
	struct psym_err e = { 0 };
	uint64_t pcs[MAXF];
	uint8_t *stack = NULL;
	char line[1200];
	long repeat = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	FILE *f;

	if (argc == 4 && strcmp(argv[1], "row") == 0)
		return print_row(argv[2], strtoull(argv[3], NULL, 16));
	if (argc < 2 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: unwind-replay DUMP [REPEAT]\n");
		return 2;
	}
	if (psym_space_new(NULL, &sp, &e) < 0)
		return 3;
	fd.sp = sp;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, c;
		unsigned n;
		char path[512];

		if (sscanf(line, "reg %u %llx", &n, &a) == 2 && n < PSYM_CFI_NREGS) {
			regs.r[n] = a;
			regs.valid |= (uint64_t)1 << n;
		} else if (strcmp(line, "arch aarch64\n") == 0) {
			regs.machine = 183; /* EM_AARCH64 */
		} else if (sscanf(line, "sigtramp %llx %llx", &a, &b) == 2 && fd.ntramp < 8) {
			fd.tramp[fd.ntramp][0] = a;
			fd.tramp[fd.ntramp++][1] = b;
		} else if (sscanf(line, "map %llx %llx %llx %511s", &a, &b, &c, path) == 4) {
			size_t i;

			for (i = 0; i < nfiles; i++)
				if (strcmp(files[i].path, path) == 0)
					break;
			if (i == nfiles) {
				if (nfiles == 512)
					continue;
				snprintf(files[i].path, sizeof(files[i].path), "%s", path);
				if (psym_elf_open(path, NULL, &files[i].elf, &e) != 0)
					files[i].elf = NULL;
				nfiles++;
			}
			if (files[i].elf &&
			    psym_space_add(sp, a, b, c, files[i].elf, NULL, &e) < 0) {
				fprintf(stderr, "%s\n", e.msg);
				return 3;
			}
		} else if (sscanf(line, "stack %llx %511s", &a, path) == 2) {
			FILE *s = fopen(path, "rb");

			if (!s)
				return 3;
			stack = malloc(1 << 20);
			nstack = fread(stack, 1, 1 << 20, s);
			fclose(s);
			stk = (struct psym_unwind_stack){ a, stack, nstack };
		}
	}
	fclose(f);
	if (repeat > 0) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < repeat; i++)
			psym_unwind(&regs, &stk, find, &fd, pcs, MAXF, &res);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "%.3f us per unwind (%zu frames)\n",
			((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 /
				(double)repeat,
			res.n);
	}
	psym_unwind(&regs, &stk, find, &fd, pcs, MAXF, &res);
	for (size_t i = 0; i < res.n; i++)
		printf("0x%" PRIx64 "\n", pcs[i]);
	printf("stop %s %s\n", psym_unwind_stop_name(res.stop), res.why);
	psym_space_free(sp);
	for (size_t i = 0; i < nfiles; i++)
		psym_elf_close(files[i].elf);
	free(stack);
	return 0;
}
