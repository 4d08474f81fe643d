/* SPDX-License-Identifier: MIT */
/*
 * The link map reader (linkmap.h) over images built here in each layout
 * (32/64-bit, little/big-endian): a chain read to its end, and the bad
 * ones: a loop, an l_name outside memory, a name running off memory, an
 * entry outside memory, a chain past the cap, no DT_DEBUG, DT_DEBUG 0.
 */
#include "config.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkmap.h"
#include "tap.h"

#define MEM_SIZE ((size_t)1 << 20)
#define DYN 0x1000
#define RDEBUG 0x2000
#define MAPS 0x10000 /* entry k at MAPS + 0x40 k */
#define NAMES 0x4000 /* name k at NAMES + 0x40 k (k < 128) */

struct image {
	unsigned char *b;
	size_t len; /* bytes [0, len) are the image */
	struct psym_mem_abi abi;
};

static size_t rd(const void *ctx, uint64_t addr, void *out, size_t len)
{
	const struct image *m = ctx;

	if (addr >= m->len)
		return 0;
	if (len > m->len - addr)
		len = (size_t)(m->len - addr);
	memcpy(out, m->b + addr, len);
	return len;
}

static void put(struct image *m, uint64_t at, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		m->b[at + (m->abi.msb ? n - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

static size_t ptr(const struct image *m)
{
	return m->abi.is64 ? 8 : 4;
}

/* Entry k of a chain of n: l_addr 0x100000 k, its name, l_ld, l_next. */
static void entry(struct image *m, size_t k, size_t n)
{
	uint64_t at = MAPS + 0x40 * (uint64_t)k;
	size_t p = ptr(m);

	put(m, at, 0x100000 * (uint64_t)k, p);
	put(m, at + p, k ? NAMES + 0x40 * (uint64_t)(k % 128) : NAMES + 0x3f, p);
	put(m, at + 2 * p, 0x200000 + k, p);
	put(m, at + 3 * p, k + 1 < n ? at + 0x40 : 0, p);
	put(m, at + 4 * p, k ? at - 0x40 : 0, p);
}

static void build(struct image *m, size_t n, uint64_t debug)
{
	size_t p = ptr(m);

	memset(m->b, 0, MEM_SIZE);
	m->len = MEM_SIZE;
	put(m, DYN, DT_NEEDED, p);
	put(m, DYN + p, 1, p);
	put(m, DYN + 2 * p, DT_DEBUG, p);
	put(m, DYN + 3 * p, debug, p);
	put(m, DYN + 4 * p, DT_NULL, p);
	put(m, RDEBUG, 1, 4);
	put(m, RDEBUG + p, MAPS, p);
	for (size_t k = 1; k < 128; k++)
		snprintf((char *)m->b + NAMES + 0x40 * k, 0x40, "/lib/lib%zu.so", k);
	for (size_t k = 0; k < n; k++)
		entry(m, k, n);
}

static void one_abi(struct image *m)
{
	const char *tag =
		m->abi.is64 ? (m->abi.msb ? "64 BE" : "64 LE") : (m->abi.msb ? "32 BE" : "32 LE");
	struct psym_linkmap lm;
	size_t p = ptr(m);
	uint64_t bias = 0, dyn = 0, dynsz = 0;
	int ret;

	build(m, 4, RDEBUG);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 0, &lm);
	is_int(ret, 0, "%s: a chain of 4", tag);
	is_int(lm.n, 4, "%s: 4 entries", tag);
	is_str(lm.why, "", "%s: read to its end", tag);
	is_str(lm.n ? lm.v[0].name : NULL, "", "%s: the executable has no name", tag);
	is_str(lm.n > 2 ? lm.v[2].name : NULL, "/lib/lib2.so", "%s: entry 2's name", tag);
	is_int(lm.n > 3 ? lm.v[3].l_addr : 0, 0x300000, "%s: entry 3's l_addr", tag);
	is_int(lm.n > 3 ? lm.v[3].l_ld : 0, 0x200003, "%s: entry 3's l_ld", tag);
	is_int(lm.r_debug, RDEBUG, "%s: r_debug from DT_DEBUG", tag);
	psym_linkmap_free(&lm);

	/* The last entry links back to the second. */
	put(m, MAPS + 0x40 * 3 + 3 * p, MAPS + 0x40, p);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 5 * 2 * p, &lm);
	ok(ret == 0 && lm.n == 4 && strstr(lm.why, "loops: entry 3 links back to entry 1"),
	   "%s: a loop is cut where it closes (%s)", tag, lm.why);
	psym_linkmap_free(&lm);

	/* l_name of entry 2 far outside memory; the chain goes on. */
	build(m, 4, RDEBUG);
	put(m, MAPS + 0x40 * 2 + p, m->abi.is64 ? 0x7fff00000000ull : 0xfff00000u, p);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 0, &lm);
	ok(ret == 0 && lm.n == 4 && !lm.why[0] && !lm.v[2].name[0] &&
		   strstr(lm.name_why, "entry 2") && strstr(lm.name_why, "not in the core"),
	   "%s: an l_name outside memory: no name, said (%s)", tag, lm.name_why);
	psym_linkmap_free(&lm);

	/* A name that runs to the end of memory without a NUL. */
	build(m, 2, RDEBUG);
	memset(m->b + MEM_SIZE - 16, 'x', 16);
	put(m, MAPS + 0x40 + p, MEM_SIZE - 16, p);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 0, &lm);
	ok(ret == 0 && lm.n == 2 && !lm.v[1].name[0] && strstr(lm.name_why, "runs off"),
	   "%s: a name running off memory (%s)", tag, lm.name_why);
	psym_linkmap_free(&lm);

	/* l_next of entry 1 outside memory: entries 0 and 1 stay. */
	build(m, 4, RDEBUG);
	put(m, MAPS + 0x40 + 3 * p, MEM_SIZE + 0x1000, p);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 0, &lm);
	ok(ret == 0 && lm.n == 2 && strstr(lm.why, "entry 2 at 0x") &&
		   strstr(lm.why, "not in the core"),
	   "%s: an entry outside memory ends the chain (%s)", tag, lm.why);
	psym_linkmap_free(&lm);

	/* A chain longer than the cap. */
	build(m, PSYM_LINKMAP_MAX + 100, RDEBUG);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 0, &lm);
	ok(ret == 0 && lm.n == PSYM_LINKMAP_MAX && strstr(lm.why, "more than 4096"),
	   "%s: a huge chain is cut at the cap (%s)", tag, lm.why);
	psym_linkmap_free(&lm);

	/* DT_DEBUG 0 (the linker had not run), and no DT_DEBUG at all. */
	build(m, 2, 0);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 0, &lm);
	ok(ret == PSYM_NOENT && lm.n == 0 && strstr(lm.why, "had not run"),
	   "%s: DT_DEBUG 0: not found (%s)", tag, lm.why);
	psym_linkmap_free(&lm);
	put(m, DYN + 2 * p, DT_NULL, p);
	ret = psym_linkmap_read(rd, m, m->abi, DYN, 0, &lm);
	ok(ret == PSYM_NOENT && strstr(lm.why, "no DT_DEBUG"), "%s: no DT_DEBUG (%s)", tag, lm.why);
	psym_linkmap_free(&lm);
	ret = psym_linkmap_read(rd, m, m->abi, MEM_SIZE + 64, 0, &lm);
	ok(ret == PSYM_NOENT && strstr(lm.why, "not in the core"),
	   "%s: a dynamic section outside memory (%s)", tag, lm.why);
	psym_linkmap_free(&lm);

	/* Program headers in memory: PT_PHDR gives the bias, PT_DYNAMIC the section. */
	memset(m->b, 0, 0x1000);
	{
		size_t sz = m->abi.is64 ? 56 : 32, va = m->abi.is64 ? 16 : 8,
		       ms = m->abi.is64 ? 40 : 20;

		put(m, 0x40, PT_PHDR, 4);
		put(m, 0x40 + va, 0x400040, p);
		put(m, 0x40 + sz, PT_LOAD, 4);
		put(m, 0x40 + 2 * sz, PT_DYNAMIC, 4);
		put(m, 0x40 + 2 * sz + va, 0x400e00, p);
		put(m, 0x40 + 2 * sz + ms, 0x1f0, p);
	}
	ret = psym_linkmap_dynamic_mem(rd, m, m->abi, 0x40, 3, &bias, &dyn, &dynsz);
	ok(ret == 0 && bias == (uint64_t)0 - 0x400000 && dyn == 0xe00 && dynsz == 0x1f0,
	   "%s: PT_DYNAMIC from program headers in memory", tag);
	ret = psym_linkmap_dynamic_mem(rd, m, m->abi, MEM_SIZE - 8, 3, &bias, &dyn, &dynsz);
	is_int(ret, PSYM_NOENT, "%s: program headers not in memory", tag);
}

int main(void)
{
	struct image m = { .b = malloc(MEM_SIZE) };

	if (!m.b)
		return 99;
	for (int i = 0; i < 4; i++) {
		m.abi.is64 = i & 1;
		m.abi.msb = i & 2;
		one_abi(&m);
	}
	free(m.b);
	return tap_done();
}
