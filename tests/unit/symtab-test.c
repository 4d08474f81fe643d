/* SPDX-License-Identifier: MIT */
/*
 * The sorted address -> name table behind ELF symbols, kallsyms and perf
 * maps: alias choice, ends of zero-size entries (next entry, region,
 * max_extent, never unbounded), the enclosing-symbol scan, the
 * latest-wins rule of JIT maps, the cap.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "symtab.h"
#include "tap.h"

static const char *name_at(const struct psym_symtab *t, uint64_t a)
{
	const struct psym_sym *s = psym_symtab_lookup(t, a);

	return s ? s->name : "??";
}

static void push(struct psym_symtab *t, uint64_t addr, uint64_t size, const char *name,
		 uint32_t rank)
{
	struct psym_err e = { 0 };

	if (psym_symtab_push(
		    t, &(struct psym_sym){ .addr = addr, .size = size, .name = name, .rank = rank },
		    "test", &e))
		printf("# push %s: %s\n", name, e.msg);
}

static void nearest(void)
{
	struct psym_symtab t;
	/* .text [0x1000, 0x1100), .fini [0x1100, 0x1110) */
	struct psym_addr_region regs[] = {
		{ 0x1100, 0x1110, 2 },
		{ 0x1000, 0x1100, 1 },
	};

	psym_symtab_init(&t, &(struct psym_symtab_opts){ .rule = PSYM_SYMTAB_NEAREST });
	is_str(name_at(&t, 0x1000), "??", "empty table, before finish: nothing");
	push(&t, 0x1000, 0x10, "big", 0);
	push(&t, 0x1004, 0, "label", 9);    /* zero-size label inside big */
	push(&t, 0x1020, 0, "alias0", 0);   /* zero-size global alias ... */
	push(&t, 0x1020, 0x20, "sized", 8); /* ... of a sized local: merged */
	push(&t, 0x1030, 4, "inner", 0);    /* sized, inside "sized" */
	push(&t, 0x1080, 0, "tail", 0);	    /* zero-size, last in .text */
	push(&t, 0x1100, 0, "_fini", 0);    /* zero-size, last of all */
	psym_symtab_finish(&t, regs, 2);

	is_str(name_at(&t, 0xfff), "??", "below every entry");
	is_str(name_at(&t, 0x1000), "big", "start of a sized entry");
	is_str(name_at(&t, 0x1003), "big", "inside it");
	is_str(name_at(&t, 0x1004), "label", "a zero-size label names what follows it");
	is_str(name_at(&t, 0x100f), "label", "... inside the enclosing entry");
	is_str(name_at(&t, 0x101f), "label", "... and up to the next entry, as llvm-symbolizer");
	is_int(psym_symtab_count(&t), 6, "aliases at one address merged");
	is_str(name_at(&t, 0x1020), "sized", "a sized symbol beats a zero-size alias");
	is_str(name_at(&t, 0x1034), "sized", "enclosing entry found past a nested one");
	is_str(name_at(&t, 0x1031), "inner", "the nested entry itself");
	is_str(name_at(&t, 0x1080), "tail", "zero-size entry");
	is_str(name_at(&t, 0x10ff), "tail", "... to the end of its region");
	is_str(name_at(&t, 0x1100), "_fini", "last entry");
	is_str(name_at(&t, 0x110f), "_fini", "... to its region's end");
	is_str(name_at(&t, 0x1110), "??", "never past it");
	is_str(name_at(&t, 0x99999999), "??", "far past the last entry");
	is_str(name_at(&t, UINT64_MAX), "??", "UINT64_MAX");

	/* No regions at all: the last zero-size entry covers its own address. */
	psym_symtab_finish(&t, NULL, 0);
	is_str(name_at(&t, 0x1100), "_fini", "no regions: last entry at its address");
	is_str(name_at(&t, 0x1101), "??", "no regions: never unbounded");
	is_str(name_at(&t, 0x10ff), "tail", "no regions: ends at the next entry");
	psym_symtab_free(&t);
}

/*
 * A zero-size entry that no region holds (an absolute _etext at the end
 * of .text, as elfutils' testfile34 has it) names its own address only:
 * the gap up to the next region is not the file's.
 */
static void outside_regions(void)
{
	struct psym_symtab t;
	struct psym_addr_region regs[] = {
		{ 0x1000, 0x1002, 1 }, /* .text */
		{ 0x2000, 0x2008, 2 }, /* .data */
	};

	psym_symtab_init(&t, &(struct psym_symtab_opts){ .rule = PSYM_SYMTAB_NEAREST });
	push(&t, 0x1000, 0, "foo", 0);
	push(&t, 0x1002, 0, "_etext", 0);
	push(&t, 0x2000, 0, "data1", 0);
	push(&t, 0x2008, 0, "_end", 0);
	psym_symtab_finish(&t, regs, 2);
	is_str(name_at(&t, 0x1001), "foo", "a held entry to its region's end");
	is_str(name_at(&t, 0x1002), "_etext", "an entry outside every region: its address");
	is_str(name_at(&t, 0x100a), "??", "... and not the gap after it");
	is_str(name_at(&t, 0x1fff), "??", "... up to the next region");
	is_str(name_at(&t, 0x2007), "data1", "the next region's entry");
	is_str(name_at(&t, 0x2008), "_end", "_end at its address");
	is_str(name_at(&t, 0x2009), "??", "... only");
	psym_symtab_free(&t);
}

static void kernel_like(void)
{
	struct psym_symtab t;

	psym_symtab_init(&t, &(struct psym_symtab_opts){ .rule = PSYM_SYMTAB_NEAREST,
							 .alias_by_name = true,
							 .max_extent = 0x100 });
	push(&t, 0x2000, 0, "zeta", 0);
	push(&t, 0x2000, 0, "alpha", 0);
	push(&t, 0x2000, 0, "mod_fn", 1);
	push(&t, 0x3000, 0, "last", 0);
	psym_symtab_finish(&t, NULL, 0);
	is_str(name_at(&t, 0x2010), "alpha", "aliases by rank, then name");
	is_str(name_at(&t, 0x20ff), "alpha", "within max_extent");
	is_str(name_at(&t, 0x2100), "??", "a gap past max_extent");
	is_str(name_at(&t, 0x30ff), "last", "last entry covers max_extent");
	is_str(name_at(&t, 0x3100), "??", "and no more");
	psym_symtab_free(&t);
}

static void latest(void)
{
	struct psym_symtab t;
	char names[2000][16];

	psym_symtab_init(&t, &(struct psym_symtab_opts){ .rule = PSYM_SYMTAB_LATEST });
	push(&t, 0x5000, 0x100, "old", 0);
	push(&t, 0x5040, 0x10, "new", 0);
	push(&t, 0x5000, 0x20, "newer", 0);
	push(&t, 0x5000, 0x100, "dup", 0);
	push(&t, 0x5000, 0x10, "dup2", 0);
	psym_symtab_finish(&t, NULL, 0);
	is_int(psym_symtab_count(&t), 5, "entries are never merged");
	is_str(name_at(&t, 0x5008), "dup2", "the latest covering entry wins");
	is_str(name_at(&t, 0x5018), "dup", "an earlier larger one where the latest ends");
	is_str(name_at(&t, 0x5044), "dup", "later beats an inner earlier entry");
	is_str(name_at(&t, 0x5100), "??", "past every end");
	/* Pushing after a finish keeps seq increasing. */
	push(&t, 0x5040, 0x10, "after", 0);
	psym_symtab_finish(&t, NULL, 0);
	is_str(name_at(&t, 0x5044), "after", "an entry pushed after a lookup wins");
	psym_symtab_free(&t);

	/* A long run of small entries below a big early one. */
	psym_symtab_init(&t, &(struct psym_symtab_opts){ .rule = PSYM_SYMTAB_LATEST });
	for (int i = 0; i < 2000; i++) {
		snprintf(names[i], sizeof(names[i]), "s%d", i);
		push(&t, 0x10000 + (uint64_t)i * 16, 8, names[i], 0);
	}
	psym_symtab_finish(&t, NULL, 0);
	is_str(name_at(&t, 0x10000 + 1999 * 16 + 4), "s1999", "last small entry");
	is_str(name_at(&t, 0x10000 + 1999 * 16 + 8), "??", "gap after it, found quickly");
	psym_symtab_free(&t);
}

static void cap(void)
{
	struct psym_symtab t;
	struct psym_err e = { 0 };
	int ret = 0;

	psym_symtab_init(&t, &(struct psym_symtab_opts){ .rule = PSYM_SYMTAB_NEAREST,
							 .max_entries = 3,
							 .what = "symbols",
							 .limit_flag = "--limit elf-symbols=N" });
	for (int i = 0; i < 4 && !ret; i++)
		ret = psym_symtab_push(
			&t, &(struct psym_sym){ .addr = 0x10u * (unsigned)i + 1, .name = "x" },
			"f.so", &e);
	is_int(ret, PSYM_ELIMIT, "the cap is an error");
	is_str(e.msg, "'f.so': more than 3 symbols (--limit elf-symbols=N)",
	       "the message names the input and the option");
	psym_symtab_free(&t);
}

int main(void)
{
	nearest();
	outside_regions();
	kernel_like();
	latest();
	cap();
	return tap_done();
}
