/* SPDX-License-Identifier: MIT */
/*
 * unwind-compare psym|libdw REPEAT DUMP...: unwind captured stacks (the
 * dumps tests/unwind/gdbdump.py writes: registers, mappings, stack copy)
 * with psym's CFI unwinder or with elfutils' dwfl_frame API driven by
 * memory-read callbacks (as perf's libdw unwinder does it), REPEAT times
 * each. Prints, per dump, the chain (callers as return address - 1) and
 * on stderr the setup time, the time per unwind and the peak RSS.
 * Built by bench/unwind.sh against a build tree's libpsym.a and -ldw.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "space.h"
#include "unwind.h"

#define MAXF 256
#define MAXMAPS 512

struct map {
	uint64_t start, end, off;
	char path[512];
};

struct dump {
	struct psym_unwind_regs regs;
	struct psym_unwind_stack stk;
	struct map maps[MAXMAPS];
	size_t nmaps;
	/* psym */
	struct psym_space *space;
	struct psym_elf *elfs[MAXMAPS];
	/* libdw */
	Dwfl *dwfl;
	uint64_t pcs[MAXF];
	size_t n;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int load(const char *path, struct dump *d)
{
	char line[1200], spath[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, c;
		unsigned n;

		if (sscanf(line, "reg %u %llx", &n, &a) == 2 && n < PSYM_CFI_NREGS) {
			d->regs.r[n] = a;
			d->regs.valid |= 1u << n;
		} else if (d->nmaps < MAXMAPS && sscanf(line, "map %llx %llx %llx %511s", &a, &b,
							&c, d->maps[d->nmaps].path) == 4) {
			d->maps[d->nmaps].start = a;
			d->maps[d->nmaps].end = b;
			d->maps[d->nmaps].off = c;
			d->nmaps++;
		} else if (sscanf(line, "stack %llx %511s", &a, spath) == 2) {
			FILE *s = fopen(spath, "rb");
			uint8_t *buf = malloc(1 << 20);

			if (!s || !buf)
				return -1;
			d->stk.sp = a;
			d->stk.len = fread(buf, 1, 1 << 20, s);
			d->stk.bytes = buf;
			fclose(s);
		}
	}
	fclose(f);
	return 0;
}

/* ---- psym ------------------------------------------------------------------ */

static int psym_setup(struct dump *d)
{
	struct psym_err e = { 0 };

	if (psym_space_new(NULL, &d->space, &e) < 0)
		return -1;
	for (size_t i = 0; i < d->nmaps; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (strcmp(d->maps[j].path, d->maps[i].path) == 0)
				break;
		if (j < i) {
			d->elfs[i] = NULL;
			if (d->elfs[j])
				psym_space_add(d->space, d->maps[i].start, d->maps[i].end,
					       d->maps[i].off, d->elfs[j], NULL, &e);
			d->elfs[i] = NULL;
			continue;
		}
		if (psym_elf_open(d->maps[i].path, NULL, &d->elfs[i], &e) != 0) {
			d->elfs[i] = NULL;
			continue;
		}
		psym_space_add(d->space, d->maps[i].start, d->maps[i].end, d->maps[i].off,
			       d->elfs[i], NULL, &e);
	}
	return 0;
}

static void psym_run(struct dump *d)
{
	struct psym_unwind_result res;

	psym_unwind(&d->regs, &d->stk, psym_space_find, d->space, d->pcs, MAXF, &res);
	d->n = res.n;
}

/* ---- libdw ------------------------------------------------------------------ */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return 1;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct dump *d = arg;

	(void)dwfl;
	if (addr < d->stk.sp || addr - d->stk.sp + 8 > d->stk.len)
		return false;
	memcpy(result, d->stk.bytes + (addr - d->stk.sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct dump *d = arg;
	Dwarf_Word regs[17];

	for (int i = 0; i < 17; i++)
		regs[i] = d->regs.r[i];
	return dwfl_thread_state_registers(thread, 0, 17, regs) &&
	       (dwfl_thread_state_register_pc(thread, d->regs.r[PSYM_X86_RA]), true);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static int libdw_setup(struct dump *d)
{
	d->dwfl = dwfl_begin(&dwfl_cbs);
	if (!d->dwfl)
		return -1;
	dwfl_report_begin(d->dwfl);
	for (size_t i = 0; i < d->nmaps; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (strcmp(d->maps[j].path, d->maps[i].path) == 0)
				break;
		if (j < i)
			continue;
		/* base = where file offset 0 is mapped */
		dwfl_report_elf(d->dwfl, d->maps[i].path, d->maps[i].path, -1,
				d->maps[i].start - d->maps[i].off, false);
	}
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!dwfl_attach_state(d->dwfl, NULL, 1, &thread_cbs, d)) {
		fprintf(stderr, "dwfl_attach_state: %s\n", dwfl_errmsg(-1));
		return -1;
	}
	return 0;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct dump *d = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act) || d->n == MAXF)
		return DWARF_CB_ABORT;
	d->pcs[d->n++] = act ? pc : pc - 1;
	return DWARF_CB_OK;
}

static void libdw_run(struct dump *d)
{
	d->n = 0;
	dwfl_getthread_frames(d->dwfl, 1, frame_cb, d);
}

int main(int argc, char **argv)
{
	bool dw = argc > 1 && strcmp(argv[1], "libdw") == 0;
	long repeat = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
	size_t nd = argc > 3 ? (size_t)(argc - 3) : 0, frames = 0;
	struct dump *ds = calloc(nd ? nd : 1, sizeof(*ds));
	struct rusage ru;
	double t0, t1, t2;

	if (argc < 4 || repeat < 1 || !ds) {
		fprintf(stderr, "usage: unwind-compare psym|libdw REPEAT DUMP...\n");
		return 2;
	}
	for (size_t i = 0; i < nd; i++)
		if (load(argv[3 + i], &ds[i]) < 0) {
			fprintf(stderr, "cannot read %s\n", argv[3 + i]);
			return 2;
		}
	t0 = now();
	/*
	 * Setup: each dump is its own process image here; the files are
	 * opened once per dump, as one profile's process would.
	 */
	for (size_t i = 0; i < nd; i++)
		if ((dw ? libdw_setup(&ds[i]) : psym_setup(&ds[i])) < 0)
			return 3;
	t1 = now();
	for (long r = 0; r < repeat; r++)
		for (size_t i = 0; i < nd; i++)
			dw ? libdw_run(&ds[i]) : psym_run(&ds[i]);
	t2 = now();
	for (size_t i = 0; i < nd; i++) {
		printf("%s:", argv[3 + i]);
		for (size_t k = 0; k < ds[i].n; k++)
			printf(" %" PRIx64, ds[i].pcs[k]);
		printf("\n");
		frames += ds[i].n;
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr,
		"%s: %zu stacks, %zu frames; setup %.1f ms; %.2f us per stack (%.0f stacks/s); "
		"max RSS %ld KiB\n",
		dw ? "libdw" : "psym", nd, frames, (t1 - t0) * 1e3,
		(t2 - t1) * 1e6 / (double)(repeat * (long)nd),
		(double)(repeat * (long)nd) / (t2 - t1), ru.ru_maxrss);
	return 0;
}
