/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the .gopclntab reader (src/obj/gopclntab.c) over bytes in
 * memory, every answer-changing address looked up.
 *
 * Input: a 32-byte little-endian head {table length, table address, image
 * address, gofunc address}, the table, then the image the funcdata point
 * into (a copy of .rodata). An input whose head does not fit is a table
 * alone, at 0x400000, also standing as its own image.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

static volatile size_t sink;

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void lookup(struct psym_gopclntab *t, uint64_t a)
{
	struct psym_frame f[PSYM_MAX_FRAMES];
	struct psym_err e = { 0 };
	size_t n = 0;

	psym_gopclntab_lookup(t, a, f, PSYM_MAX_FRAMES, &n, &e);
	for (size_t i = 0; i < n; i++)
		sink += strlen(f[i].name) + (f[i].file ? strlen(f[i].file) : 0) + (size_t)f[i].line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_gopclntab_src src = { .tab = data, .len = size, .vaddr = 0x400000 };
	struct psym_gosec img = { 0x400000, data, size };
	struct psym_gopclntab *t = NULL;
	struct psym_err e = { 0 };
	uint64_t *v = NULL;
	size_t nv = 0;

	src.gofunc = 0x400000;
	if (size >= 32 && le64(data) <= size - 32) {
		src.tab = data + 32;
		src.len = le64(data);
		src.vaddr = le64(data + 8);
		img = (struct psym_gosec){ le64(data + 16), data + 32 + src.len,
					   size - 32 - src.len };
		src.gofunc = le64(data + 24);
	}
	src.img = &img;
	src.nimg = 1;
	if (psym_gopclntab_open_mem(&src, "fuzz", &t, &e) != 0)
		return 0;
	if (psym_gopclntab_boundaries(t, &v, &nv, &e) == 0) {
		for (size_t i = 0; i < nv && i < 20000; i++) {
			lookup(t, v[i]);
			lookup(t, v[i] - 1);
		}
		free(v);
	}
	lookup(t, 0);
	lookup(t, UINT64_MAX);
	psym_gopclntab_close(t);
	return 0;
}
