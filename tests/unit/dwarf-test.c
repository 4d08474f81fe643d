/* SPDX-License-Identifier: MIT */
/*
 * The DWARF reader on hand-made sections: a small ELF image is built here
 * with .debug_abbrev / .debug_info / .debug_line written byte by byte, then
 * opened with psym_elf_open_mem() and psym_dwarf_open() like any binary,
 * and the frames of chosen addresses are checked.
 *
 * - line programs, DWARF 4 and 5 headers with their file tables: special
 *   opcodes, copy, advance_pc, advance_line, set_file, set_column,
 *   const_add_pc, fixed_advance_pc, set_address, end_sequence, VLIW
 *   op_index, an unknown standard opcode skipped by its operand count;
 * - the inline tree: abstract subprograms, a concrete out-of-line copy
 *   (abstract_origin), inlined subroutines nested two deep (one inside a
 *   lexical block), call_file/call_line/call_column of each call site,
 *   names and linkage names through abstract_origin, --no-inlines;
 * - a function with code defined in a local class of an abstract instance
 *   (a lambda's operator() in an inlined template, as g++ emits it).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwarfsym.h"
#include "elffile.h"
#include "mkelf.h"
#include "tap.h"

static struct psym_elf *mkelf(const struct sec *secs, size_t n)
{
	struct psym_err e = { 0 };
	struct psym_elf *elf = NULL;
	size_t len;
	uint8_t *p = mkelf_image(secs, n, &len);

	if (!p)
		return NULL;
	if (psym_elf_open_mem(p, len, true, "hand-made", NULL, &elf, &e) != 0) {
		printf("# cannot open the image: %s\n", e.msg);
		return NULL;
	}
	return elf;
}

/* ---- DWARF constants used here --------------------------------------------- */

enum {
	TAG_compile_unit = 0x11,
	TAG_subprogram = 0x2e,
	TAG_inlined_subroutine = 0x1d,
	TAG_lexical_block = 0x0b,
	TAG_structure_type = 0x13,
	AT_name = 0x03,
	AT_stmt_list = 0x10,
	AT_low_pc = 0x11,
	AT_high_pc = 0x12,
	AT_comp_dir = 0x1b,
	AT_inline = 0x20,
	AT_abstract_origin = 0x31,
	AT_decl_line = 0x3b,
	AT_call_column = 0x57,
	AT_call_file = 0x58,
	AT_call_line = 0x59,
	AT_linkage_name = 0x6e,
	FORM_addr = 0x01,
	FORM_data1 = 0x0b,
	FORM_data4 = 0x06,
	FORM_string = 0x08,
	FORM_udata = 0x0f,
	FORM_ref4 = 0x13,
	FORM_sec_offset = 0x17,
	LNCT_path = 1,
	LNCT_directory_index = 2,
};

/* Standard opcode operand counts for opcode_base 13 (DWARF 4 and 5). */
static const uint8_t std_lengths[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };

#define LINE_BASE (-5)
#define LINE_RANGE 14
#define OPCODE_BASE 13

/* A special opcode advancing the address by a and the line by l. */
static uint8_t special(int a, int l)
{
	return (uint8_t)((l - LINE_BASE) + LINE_RANGE * a + OPCODE_BASE);
}

static void set_address(struct buf *b, uint64_t addr)
{
	u8(b, 0);
	uleb(b, 9);
	u8(b, 2);
	un(b, addr, 8);
}

/*
 * The program shared by the DWARF 4 and 5 tests, from base (files: 1 and
 * 2 in DWARF 4 numbering, the caller passes how they are numbered):
 *   base+0x00  line 1  file f1           copy
 *   base+0x02  line 4                    special opcode (+2, +3)
 *   base+0x08  line 14 file f2 column 7  advance_pc 6, set_file, advance_line 10,
 *                                        set_column, an unknown standard
 *                                        opcode 12 with one operand, copy
 *   base+0x19  line 10                   const_add_pc (+17), advance_line -4, copy
 *   base+0x20  line 10                   fixed_advance_pc 7, copy
 *   base+0x30  end of sequence           advance_pc 16, end_sequence
 */
static void program(struct buf *b, uint64_t base, unsigned f1, unsigned f2)
{
	set_address(b, base);
	if (f1 != 1) {
		u8(b, 4);
		uleb(b, f1);
	}
	u8(b, 1);
	u8(b, special(2, 3));
	u8(b, 2);
	uleb(b, 6);
	u8(b, 4);
	uleb(b, f2);
	u8(b, 3);
	sleb(b, 10);
	u8(b, 5);
	uleb(b, 7);
	u8(b, 12); /* DW_LNS_set_isa: not used by us, skipped by its length */
	uleb(b, 300);
	u8(b, 1);
	u8(b, 8);
	u8(b, 3);
	sleb(b, -4);
	u8(b, 1);
	u8(b, 9);
	un(b, 7, 2);
	u8(b, 1);
	u8(b, 2);
	uleb(b, 16);
	u8(b, 0);
	uleb(b, 1);
	u8(b, 1);
}

/* DWARF 4 line table: include dir "inc"; files a.c (dir 0) and b.h (dir 1). */
static void line_v4(struct buf *b, uint64_t base)
{
	size_t len_at, hlen_at, hstart;

	len_at = b->n;
	un(b, 0, 4);
	un(b, 4, 2);
	hlen_at = b->n;
	un(b, 0, 4);
	hstart = b->n;
	u8(b, 1); /* minimum_instruction_length */
	u8(b, 1); /* maximum_operations_per_instruction */
	u8(b, 1); /* default_is_stmt */
	u8(b, (uint8_t)LINE_BASE);
	u8(b, LINE_RANGE);
	u8(b, OPCODE_BASE);
	for (int i = 0; i < 12; i++)
		u8(b, std_lengths[i]);
	str(b, "inc");
	u8(b, 0);
	str(b, "a.c");
	uleb(b, 0);
	uleb(b, 0);
	uleb(b, 0);
	str(b, "b.h");
	uleb(b, 1);
	uleb(b, 0);
	uleb(b, 0);
	u8(b, 0);
	patch32(b, hlen_at, b->n - hstart);
	program(b, base, 1, 2);
	patch32(b, len_at, b->n - len_at - 4);
}

/*
 * DWARF 5 line table: directories "/src" (0) and "inc" (1) as strings;
 * files (path string, directory_index udata): a.c in 0, c.h in 1.
 * File numbers are 0-based.
 */
static void line_v5(struct buf *b, uint64_t base)
{
	size_t len_at, hlen_at, hstart;

	len_at = b->n;
	un(b, 0, 4);
	un(b, 5, 2);
	u8(b, 8); /* address_size */
	u8(b, 0); /* segment_selector_size */
	hlen_at = b->n;
	un(b, 0, 4);
	hstart = b->n;
	u8(b, 1);
	u8(b, 1);
	u8(b, 1);
	u8(b, (uint8_t)LINE_BASE);
	u8(b, LINE_RANGE);
	u8(b, OPCODE_BASE);
	for (int i = 0; i < 12; i++)
		u8(b, std_lengths[i]);
	u8(b, 1); /* directory_entry_format_count */
	uleb(b, LNCT_path);
	uleb(b, FORM_string);
	uleb(b, 2);
	str(b, "/src");
	str(b, "inc");
	u8(b, 2); /* file_name_entry_format_count */
	uleb(b, LNCT_path);
	uleb(b, FORM_string);
	uleb(b, LNCT_directory_index);
	uleb(b, FORM_udata);
	uleb(b, 2);
	str(b, "a.c");
	uleb(b, 0);
	str(b, "c.h");
	uleb(b, 1);
	patch32(b, hlen_at, b->n - hstart);
	program(b, base, 0, 1);
	patch32(b, len_at, b->n - len_at - 4);
}

/* A CU that is only a line table: abbrev 1 = compile_unit without children. */
static void cu_lines_only(struct buf *abbrev, struct buf *info, int version, uint64_t lo)
{
	size_t len_at;

	uleb(abbrev, 1);
	uleb(abbrev, TAG_compile_unit);
	u8(abbrev, 0);
	uleb(abbrev, AT_name);
	uleb(abbrev, FORM_string);
	uleb(abbrev, AT_comp_dir);
	uleb(abbrev, FORM_string);
	uleb(abbrev, AT_stmt_list);
	uleb(abbrev, FORM_sec_offset);
	uleb(abbrev, AT_low_pc);
	uleb(abbrev, FORM_addr);
	uleb(abbrev, AT_high_pc);
	uleb(abbrev, FORM_data4);
	u8(abbrev, 0);
	u8(abbrev, 0);
	u8(abbrev, 0);

	len_at = info->n;
	un(info, 0, 4);
	un(info, (uint64_t)version, 2);
	if (version >= 5) {
		u8(info, 1); /* DW_UT_compile */
		u8(info, 8);
		un(info, 0, 4);
	} else {
		un(info, 0, 4);
		u8(info, 8);
	}
	uleb(info, 1);
	str(info, "a.c");
	str(info, "/src");
	un(info, 0, 4);
	un(info, lo, 8);
	un(info, 0x100, 4);
	patch32(info, len_at, info->n - len_at - 4);
}

static struct psym_dwarf *open_dwarf(struct psym_elf *elf, bool inlines)
{
	struct psym_dwarf_opts o = { .inlines = inlines, .threads = 2 };
	struct psym_dwarf *d = NULL;
	struct psym_err e = { 0 };
	int ret = elf ? psym_dwarf_open(elf, &o, &d, &e) : -1;

	if (ret != 0)
		printf("# psym_dwarf_open: %d %s\n", ret, e.msg);
	return d;
}

/* One frame expected at addr: file, line, column (name NULL: lines only). */
static void expect_line(struct psym_dwarf *d, const char *what, uint64_t addr, const char *file,
			int64_t line, int64_t column)
{
	const struct psym_frame *f = NULL;
	struct psym_err e = { 0 };
	size_t n = 0;
	int ret = psym_dwarf_lookup(d, addr, &f, &n, &e);

	bool same = ret == 0 && n == 1 && f[0].name == NULL && f[0].file &&
		    !strcmp(f[0].file, file) && f[0].line == line && f[0].column == column;

	ok(same, "%s: %#llx -> %s:%lld:%lld", what, (unsigned long long)addr, file, (long long)line,
	   (long long)column);
	if (!same && ret == 0 && n >= 1)
		printf("#   got %zu frame(s), %s:%lld:%lld\n", n, f[0].file ? f[0].file : "(null)",
		       (long long)f[0].line, (long long)f[0].column);
}

static void expect_none(struct psym_dwarf *d, const char *what, uint64_t addr)
{
	const struct psym_frame *f = NULL;
	struct psym_err e = { 0 };
	size_t n = 0;

	is_int(psym_dwarf_lookup(d, addr, &f, &n, &e), PSYM_NOENT, "%s: %#llx -> nothing", what,
	       (unsigned long long)addr);
}

/* The rows of program() at base, with the file names given. */
static void check_program(struct psym_dwarf *d, const char *what, uint64_t base, const char *f1,
			  const char *f2)
{
	expect_line(d, what, base + 0x00, f1, 1, 0);
	expect_line(d, what, base + 0x01, f1, 1, 0);
	expect_line(d, what, base + 0x02, f1, 4, 0); /* special opcode */
	expect_line(d, what, base + 0x07, f1, 4, 0);
	expect_line(d, what, base + 0x08, f2, 14, 7); /* advance_pc, set_file, ... */
	expect_line(d, what, base + 0x18, f2, 14, 7);
	expect_line(d, what, base + 0x19, f2, 10, 7); /* const_add_pc */
	expect_line(d, what, base + 0x1f, f2, 10, 7);
	expect_line(d, what, base + 0x20, f2, 10, 7); /* fixed_advance_pc */
	expect_line(d, what, base + 0x2f, f2, 10, 7);
	expect_none(d, what, base + 0x30); /* end_sequence */
	expect_none(d, what, base - 1);
}

static void test_lines(int version)
{
	struct buf abbrev = { 0 }, info = { 0 }, line = { 0 };
	struct sec secs[3] = { { ".debug_abbrev", &abbrev },
			       { ".debug_info", &info },
			       { ".debug_line", &line } };
	struct psym_elf *elf;
	struct psym_dwarf *d;
	char what[32];

	snprintf(what, sizeof(what), "DWARF %d lines", version);
	cu_lines_only(&abbrev, &info, version, 0x1000);
	if (version >= 5)
		line_v5(&line, 0x1000);
	else
		line_v4(&line, 0x1000);
	elf = mkelf(secs, 3);
	d = open_dwarf(elf, true);
	ok(d != NULL, "%s: opened", what);
	if (d) {
		if (version >= 5)
			check_program(d, what, 0x1000, "/src/a.c", "/src/inc/c.h");
		else
			check_program(d, what, 0x1000, "/src/a.c", "/src/inc/b.h");
		is_int(psym_dwarf_ncus(d), 1, "%s: one unit", what);
	}
	psym_dwarf_close(d);
	psym_elf_close(elf);
}

/*
 * VLIW: minimum_instruction_length 4, 3 operations per instruction.
 * advance_pc 5 from op_index 0 -> address + 4 * (5 / 3) = +4, op_index 2;
 * then advance_pc 1 -> op_index 3 = next instruction: +4 more.
 */
static void test_vliw(void)
{
	struct buf abbrev = { 0 }, info = { 0 }, line = { 0 };
	struct sec secs[3] = { { ".debug_abbrev", &abbrev },
			       { ".debug_info", &info },
			       { ".debug_line", &line } };
	struct psym_elf *elf;
	struct psym_dwarf *d;
	size_t len_at, hlen_at, hstart;

	cu_lines_only(&abbrev, &info, 4, 0x3000);
	len_at = line.n;
	un(&line, 0, 4);
	un(&line, 4, 2);
	hlen_at = line.n;
	un(&line, 0, 4);
	hstart = line.n;
	u8(&line, 4);
	u8(&line, 3);
	u8(&line, 1);
	u8(&line, (uint8_t)LINE_BASE);
	u8(&line, LINE_RANGE);
	u8(&line, OPCODE_BASE);
	for (int i = 0; i < 12; i++)
		u8(&line, std_lengths[i]);
	u8(&line, 0);
	str(&line, "v.c");
	uleb(&line, 0);
	uleb(&line, 0);
	uleb(&line, 0);
	u8(&line, 0);
	patch32(&line, hlen_at, line.n - hstart);
	set_address(&line, 0x3000);
	u8(&line, 1); /* 0x3000 line 1 */
	u8(&line, 2);
	uleb(&line, 5);
	u8(&line, 3);
	sleb(&line, 1);
	u8(&line, 1); /* 0x3004 (op_index 2) line 2 */
	u8(&line, 2);
	uleb(&line, 1);
	u8(&line, 3);
	sleb(&line, 1);
	u8(&line, 1); /* 0x3008 line 3 */
	u8(&line, 2);
	uleb(&line, 3);
	u8(&line, 0);
	uleb(&line, 1);
	u8(&line, 1); /* end at 0x300c */
	patch32(&line, len_at, line.n - len_at - 4);
	elf = mkelf(secs, 3);
	d = open_dwarf(elf, true);
	ok(d != NULL, "VLIW: opened");
	if (d) {
		expect_line(d, "VLIW", 0x3003, "/src/v.c", 1, 0);
		expect_line(d, "VLIW", 0x3004, "/src/v.c", 2, 0);
		expect_line(d, "VLIW", 0x3007, "/src/v.c", 2, 0);
		expect_line(d, "VLIW", 0x3008, "/src/v.c", 3, 0);
		expect_none(d, "VLIW", 0x300c);
	}
	psym_dwarf_close(d);
	psym_elf_close(elf);
}

/* ---- the inline tree ------------------------------------------------------------ */

struct want {
	const char *name, *linkage, *file;
	int64_t line, column, start_line;
};

static void expect_frames(struct psym_dwarf *d, const char *what, uint64_t addr,
			  const struct want *w, size_t nw)
{
	const struct psym_frame *f = NULL;
	struct psym_err e = { 0 };
	size_t n = 0;
	int ret = psym_dwarf_lookup(d, addr, &f, &n, &e);
	bool same = ret == 0 && n == nw;

	for (size_t i = 0; same && i < n; i++) {
		same = f[i].name && !strcmp(f[i].name, w[i].name) &&
		       (w[i].linkage ? f[i].linkage_name && !strcmp(f[i].linkage_name, w[i].linkage)
				     : !f[i].linkage_name) &&
		       f[i].file && !strcmp(f[i].file, w[i].file) && f[i].line == w[i].line &&
		       f[i].column == w[i].column && f[i].start_line == w[i].start_line;
	}
	ok(same, "%s: %#llx -> %zu frame(s), innermost %s", what, (unsigned long long)addr, nw,
	   nw ? w[0].name : "-");
	if (!same) {
		printf("#   ret %d, %zu frame(s)\n", ret, n);
		for (size_t i = 0; ret == 0 && i < n; i++)
			printf("#   %s [%s] %s:%lld:%lld start %lld\n",
			       f[i].name ? f[i].name : "(null)",
			       f[i].linkage_name ? f[i].linkage_name : "-",
			       f[i].file ? f[i].file : "(null)", (long long)f[i].line,
			       (long long)f[i].column, (long long)f[i].start_line);
	}
}

enum {
	AB_CU = 1,
	AB_ABSTRACT,
	AB_ABSTRACT_LINKAGE,
	AB_CONCRETE,
	AB_INLINED,
	AB_PLAIN,
	AB_BLOCK
};

static void abbrev_attr(struct buf *b, unsigned at, unsigned form)
{
	uleb(b, at);
	uleb(b, form);
}

static void abbrev_end(struct buf *b)
{
	u8(b, 0);
	u8(b, 0);
}

/*
 * .debug_info (DWARF 4) of t.c, comp_dir /src, code at 0x1000-0x1100 and
 * the DWARF 4 line table above (files 1 = /src/a.c, 2 = /src/inc/b.h):
 *
 *   outer    abstract (DW_AT_inline), decl_line 3
 *   inner    abstract, linkage _Z5innerv, decl_line 7
 *   leaf     abstract, decl_line 11
 *   subprogram origin=outer [0x1000, 0x1020)        out-of-line copy
 *     lexical_block
 *       inlined origin=inner [0x1010, 0x101c)  called at a.c:20:3
 *         inlined origin=leaf [0x1018, 0x101a) called at b.h:8:5
 *   plain    [0x1080, 0x1090)
 */
static void tree_info(struct buf *abbrev, struct buf *info, size_t *outer, size_t *inner,
		      size_t *leaf)
{
	size_t len_at;

	uleb(abbrev, AB_CU);
	uleb(abbrev, TAG_compile_unit);
	u8(abbrev, 1);
	abbrev_attr(abbrev, AT_name, FORM_string);
	abbrev_attr(abbrev, AT_comp_dir, FORM_string);
	abbrev_attr(abbrev, AT_stmt_list, FORM_sec_offset);
	abbrev_attr(abbrev, AT_low_pc, FORM_addr);
	abbrev_attr(abbrev, AT_high_pc, FORM_data4);
	abbrev_end(abbrev);
	uleb(abbrev, AB_ABSTRACT);
	uleb(abbrev, TAG_subprogram);
	u8(abbrev, 0);
	abbrev_attr(abbrev, AT_name, FORM_string);
	abbrev_attr(abbrev, AT_decl_line, FORM_data1);
	abbrev_attr(abbrev, AT_inline, FORM_data1);
	abbrev_end(abbrev);
	uleb(abbrev, AB_ABSTRACT_LINKAGE);
	uleb(abbrev, TAG_subprogram);
	u8(abbrev, 0);
	abbrev_attr(abbrev, AT_name, FORM_string);
	abbrev_attr(abbrev, AT_linkage_name, FORM_string);
	abbrev_attr(abbrev, AT_decl_line, FORM_data1);
	abbrev_attr(abbrev, AT_inline, FORM_data1);
	abbrev_end(abbrev);
	uleb(abbrev, AB_CONCRETE);
	uleb(abbrev, TAG_subprogram);
	u8(abbrev, 1);
	abbrev_attr(abbrev, AT_abstract_origin, FORM_ref4);
	abbrev_attr(abbrev, AT_low_pc, FORM_addr);
	abbrev_attr(abbrev, AT_high_pc, FORM_data4);
	abbrev_end(abbrev);
	uleb(abbrev, AB_INLINED);
	uleb(abbrev, TAG_inlined_subroutine);
	u8(abbrev, 1);
	abbrev_attr(abbrev, AT_abstract_origin, FORM_ref4);
	abbrev_attr(abbrev, AT_low_pc, FORM_addr);
	abbrev_attr(abbrev, AT_high_pc, FORM_data4);
	abbrev_attr(abbrev, AT_call_file, FORM_data1);
	abbrev_attr(abbrev, AT_call_line, FORM_udata);
	abbrev_attr(abbrev, AT_call_column, FORM_data1);
	abbrev_end(abbrev);
	uleb(abbrev, AB_PLAIN);
	uleb(abbrev, TAG_subprogram);
	u8(abbrev, 0);
	abbrev_attr(abbrev, AT_name, FORM_string);
	abbrev_attr(abbrev, AT_low_pc, FORM_addr);
	abbrev_attr(abbrev, AT_high_pc, FORM_data4);
	abbrev_end(abbrev);
	uleb(abbrev, AB_BLOCK);
	uleb(abbrev, TAG_lexical_block);
	u8(abbrev, 1);
	abbrev_end(abbrev);
	u8(abbrev, 0);

	len_at = info->n;
	un(info, 0, 4);
	un(info, 4, 2);
	un(info, 0, 4);
	u8(info, 8);
	uleb(info, AB_CU);
	str(info, "t.c");
	str(info, "/src");
	un(info, 0, 4);
	un(info, 0x1000, 8);
	un(info, 0x100, 4);
	/* Offsets of ref4 are relative to the unit (here at 0). */
	*outer = info->n;
	uleb(info, AB_ABSTRACT);
	str(info, "outer");
	u8(info, 3);
	u8(info, 1);
	*inner = info->n;
	uleb(info, AB_ABSTRACT_LINKAGE);
	str(info, "inner");
	str(info, "_Z5innerv");
	u8(info, 7);
	u8(info, 3);
	*leaf = info->n;
	uleb(info, AB_ABSTRACT);
	str(info, "leaf");
	u8(info, 11);
	u8(info, 1);
	uleb(info, AB_CONCRETE);
	un(info, *outer, 4);
	un(info, 0x1000, 8);
	un(info, 0x20, 4);
	uleb(info, AB_BLOCK);
	uleb(info, AB_INLINED);
	un(info, *inner, 4);
	un(info, 0x1010, 8);
	un(info, 0xc, 4);
	u8(info, 1);
	uleb(info, 20);
	u8(info, 3);
	uleb(info, AB_INLINED);
	un(info, *leaf, 4);
	un(info, 0x1018, 8);
	un(info, 0x2, 4);
	u8(info, 2);
	uleb(info, 8);
	u8(info, 5);
	u8(info, 0); /* end of leaf's children */
	u8(info, 0); /* end of inner's children */
	u8(info, 0); /* end of the lexical block */
	u8(info, 0); /* end of the out-of-line outer */
	uleb(info, AB_PLAIN);
	str(info, "plain");
	un(info, 0x1080, 8);
	un(info, 0x10, 4);
	u8(info, 0); /* end of the CU's children */
	patch32(info, len_at, info->n - len_at - 4);
}

static void test_tree(void)
{
	struct buf abbrev = { 0 }, info = { 0 }, line = { 0 };
	struct sec secs[3] = { { ".debug_abbrev", &abbrev },
			       { ".debug_info", &info },
			       { ".debug_line", &line } };
	const char *a = "/src/a.c", *b = "/src/inc/b.h";
	struct psym_elf *elf;
	struct psym_dwarf *d;
	size_t outer, inner, leaf;

	tree_info(&abbrev, &info, &outer, &inner, &leaf);
	line_v4(&line, 0x1000);
	elf = mkelf(secs, 3);
	d = open_dwarf(elf, true);
	ok(d != NULL, "tree: opened");
	if (d) {
		/* The rows: 0x1000 a.c:1, 0x1002 a.c:4, 0x1008 b.h:14:7, 0x1019 b.h:10:7. */
		const struct want w1004[] = { { "outer", NULL, a, 4, 0, 3 } };
		const struct want w1010[] = { { "inner", "_Z5innerv", b, 14, 7, 7 },
					      { "outer", NULL, a, 20, 3, 3 } };
		const struct want w1019[] = { { "leaf", NULL, b, 10, 7, 11 },
					      { "inner", "_Z5innerv", b, 8, 5, 7 },
					      { "outer", NULL, a, 20, 3, 3 } };
		const struct want w101a[] = { { "inner", "_Z5innerv", b, 10, 7, 7 },
					      { "outer", NULL, a, 20, 3, 3 } };
		const struct want w101c[] = { { "outer", NULL, b, 10, 7, 3 } };
		const struct want w1088[] = { { "plain", NULL, NULL, 0, 0, 0 } };

		expect_frames(d, "tree", 0x1004, w1004, 1);
		expect_frames(d, "tree", 0x1010, w1010, 2);
		expect_frames(d, "tree", 0x1017, w1010, 2);
		expect_frames(d, "tree", 0x1019, w1019, 3);
		expect_frames(d, "tree", 0x101a, w101a, 2);
		expect_frames(d, "tree", 0x101c, w101c, 1);
		/* Past the line table: a function without a row. */
		{
			const struct psym_frame *f = NULL;
			struct psym_err e = { 0 };
			size_t n = 0;

			ok(psym_dwarf_lookup(d, 0x1088, &f, &n, &e) == 0 && n == 1 && f[0].name &&
				   !strcmp(f[0].name, w1088[0].name) && !f[0].file &&
				   f[0].line == 0,
			   "tree: 0x1088 -> plain, no line");
		}
		/* Lines but no function: one frame without a name. */
		expect_line(d, "tree", 0x1024, b, 10, 7);
		expect_none(d, "tree", 0x1100);
	}
	psym_dwarf_close(d);

	/* Decoding ahead on threads gives the same answers. */
	d = open_dwarf(elf, true);
	if (d) {
		const uint64_t addrs[] = { 0x1019, 0x1004 };
		const struct want w1019[] = { { "leaf", NULL, b, 10, 7, 11 },
					      { "inner", "_Z5innerv", b, 8, 5, 7 },
					      { "outer", NULL, a, 20, 3, 3 } };
		struct psym_err e = { 0 };

		is_int(psym_dwarf_prepare(d, addrs, 2, &e), 0, "tree: prepare");
		is_int(psym_dwarf_ncus_decoded(d), 1, "tree: the unit is decoded ahead");
		expect_frames(d, "tree after prepare", 0x1019, w1019, 3);
	}
	psym_dwarf_close(d);

	/* Without inlines: the physical function only, with the row of the address. */
	d = open_dwarf(elf, false);
	if (d) {
		const struct want w1019[] = { { "outer", NULL, b, 10, 7, 3 } };

		expect_frames(d, "tree, no inlines", 0x1019, w1019, 1);
	}
	psym_dwarf_close(d);
	psym_elf_close(elf);
}

/*
 * A function defined in a local class of a function that has no code of
 * its own, as g++ puts the operator() of a lambda in a template that was
 * only inlined: the abstract instance holds the closure type, which holds
 * the concrete operator() with its inlined calls.
 *
 *   leaf       abstract, decl_line 11
 *   apply      abstract (DW_AT_inline), no code
 *     structure_type
 *       operator() [0x1000, 0x1020), decl_line 5
 *         inlined origin=leaf [0x1008, 0x1010) called at a.c:9:2
 */
static void test_local_class(void)
{
	struct buf abbrev = { 0 }, info = { 0 }, line = { 0 };
	struct sec secs[3] = { { ".debug_abbrev", &abbrev },
			       { ".debug_info", &info },
			       { ".debug_line", &line } };
	enum {
		CU = 1,
		ABSTRACT,
		ABSTRACT_KIDS,
		STRUCT,
		CONCRETE,
		INLINED
	};
	struct psym_elf *elf;
	struct psym_dwarf *d;
	size_t len_at, leaf;

	uleb(&abbrev, CU);
	uleb(&abbrev, TAG_compile_unit);
	u8(&abbrev, 1);
	abbrev_attr(&abbrev, AT_name, FORM_string);
	abbrev_attr(&abbrev, AT_comp_dir, FORM_string);
	abbrev_attr(&abbrev, AT_stmt_list, FORM_sec_offset);
	abbrev_attr(&abbrev, AT_low_pc, FORM_addr);
	abbrev_attr(&abbrev, AT_high_pc, FORM_data4);
	abbrev_end(&abbrev);
	uleb(&abbrev, ABSTRACT);
	uleb(&abbrev, TAG_subprogram);
	u8(&abbrev, 0);
	abbrev_attr(&abbrev, AT_name, FORM_string);
	abbrev_attr(&abbrev, AT_decl_line, FORM_data1);
	abbrev_attr(&abbrev, AT_inline, FORM_data1);
	abbrev_end(&abbrev);
	uleb(&abbrev, ABSTRACT_KIDS);
	uleb(&abbrev, TAG_subprogram);
	u8(&abbrev, 1);
	abbrev_attr(&abbrev, AT_name, FORM_string);
	abbrev_attr(&abbrev, AT_inline, FORM_data1);
	abbrev_end(&abbrev);
	uleb(&abbrev, STRUCT);
	uleb(&abbrev, TAG_structure_type);
	u8(&abbrev, 1);
	abbrev_end(&abbrev);
	uleb(&abbrev, CONCRETE);
	uleb(&abbrev, TAG_subprogram);
	u8(&abbrev, 1);
	abbrev_attr(&abbrev, AT_name, FORM_string);
	abbrev_attr(&abbrev, AT_decl_line, FORM_data1);
	abbrev_attr(&abbrev, AT_low_pc, FORM_addr);
	abbrev_attr(&abbrev, AT_high_pc, FORM_data4);
	abbrev_end(&abbrev);
	uleb(&abbrev, INLINED);
	uleb(&abbrev, TAG_inlined_subroutine);
	u8(&abbrev, 0);
	abbrev_attr(&abbrev, AT_abstract_origin, FORM_ref4);
	abbrev_attr(&abbrev, AT_low_pc, FORM_addr);
	abbrev_attr(&abbrev, AT_high_pc, FORM_data4);
	abbrev_attr(&abbrev, AT_call_file, FORM_data1);
	abbrev_attr(&abbrev, AT_call_line, FORM_data1);
	abbrev_attr(&abbrev, AT_call_column, FORM_data1);
	abbrev_end(&abbrev);
	u8(&abbrev, 0);

	len_at = info.n;
	un(&info, 0, 4);
	un(&info, 4, 2);
	un(&info, 0, 4);
	u8(&info, 8);
	uleb(&info, CU);
	str(&info, "t.cc");
	str(&info, "/src");
	un(&info, 0, 4);
	un(&info, 0x1000, 8);
	un(&info, 0x100, 4);
	leaf = info.n;
	uleb(&info, ABSTRACT);
	str(&info, "leaf");
	u8(&info, 11);
	u8(&info, 1);
	uleb(&info, ABSTRACT_KIDS);
	str(&info, "apply");
	u8(&info, 1);
	uleb(&info, STRUCT);
	uleb(&info, CONCRETE);
	str(&info, "operator()");
	u8(&info, 5);
	un(&info, 0x1000, 8);
	un(&info, 0x20, 4);
	uleb(&info, INLINED);
	un(&info, leaf, 4);
	un(&info, 0x1008, 8);
	un(&info, 0x8, 4);
	u8(&info, 1);
	u8(&info, 9);
	u8(&info, 2);
	u8(&info, 0); /* end of operator() */
	u8(&info, 0); /* end of the structure */
	u8(&info, 0); /* end of apply */
	u8(&info, 0); /* end of the CU */
	patch32(&info, len_at, info.n - len_at - 4);
	line_v4(&line, 0x1000);
	elf = mkelf(secs, 3);
	d = open_dwarf(elf, true);
	ok(d != NULL, "local class: opened");
	if (d) {
		const struct want w1009[] = { { "leaf", NULL, "/src/inc/b.h", 14, 7, 11 },
					      { "operator()", NULL, "/src/a.c", 9, 2, 5 } };
		const struct want w1004[] = { { "operator()", NULL, "/src/a.c", 4, 0, 5 } };

		expect_frames(d, "local class", 0x1009, w1009, 2);
		expect_frames(d, "local class", 0x1004, w1004, 1);
	}
	psym_dwarf_close(d);
	psym_elf_close(elf);
}

int main(void)
{
	test_lines(4);
	test_lines(5);
	test_vliw();
	test_tree();
	test_local_class();
	return tap_done();
}
