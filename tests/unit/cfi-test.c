/* SPDX-License-Identifier: MIT */
/*
 * The CFI reader and the unwinder on hand-made CFI: an ELF image is built
 * here with .debug_frame / .eh_frame / .eh_frame_hdr written byte by byte.
 *
 * - rows: advance_loc, def_cfa*, offset, restore, remember/restore_state
 *   (the CFA rule comes back too), register, same_value, undefined,
 *   def_cfa_expression, val_expression, registers past the RA column;
 * - unwinding over a hand-made stack: return address - 1 for callers, the
 *   outermost frame, a cut copy, the frame cap, the psABI PLT expression,
 *   the frame-pointer fallback, registers pointing anywhere;
 * - hostile CFI: a looping expression, remember_state too deep, the step
 *   and FDE caps, unknown instructions, a bad CIE pointer, bit flips;
 * - .eh_frame with pc-relative pointers, scanned and through .eh_frame_hdr.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "elffile.h"
#include "mkelf.h"
#include "tap.h"
#include "unwind.h"

static bool no_corpus; /* not the bit-flipped images */

static struct psym_elf *mkelf(const struct sec *secs, size_t n)
{
	struct psym_err e = { 0 };
	struct psym_elf *elf = NULL;
	size_t len;
	uint8_t *p = mkelf_image(secs, n, &len);

	if (!p)
		return NULL;
	static int k;

	if (getenv("PSYM_CFI_CORPUS") && !no_corpus && k < 8) { /* seed the fuzz corpus */
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/hand-%d", getenv("PSYM_CFI_CORPUS"), k++);
		f = fopen(path, "wb");
		if (f) {
			fwrite(p, 1, len, f);
			fclose(f);
		}
	}
	if (psym_elf_open_mem(p, len, true, "hand-made", NULL, &elf, &e) != 0) {
		printf("# cannot open the image: %s\n", e.msg);
		return NULL;
	}
	return elf;
}

/* ---- CFI writers -------------------------------------------------------------- */

/* A .debug_frame CIE at offset 0: code_align 1, data_align -8, ra 16, CFA rsp+8, ra at c-8. */
static void cie_debug(struct buf *b)
{
	size_t at = b->n;

	un(b, 0, 4);
	un(b, 0xffffffff, 4); /* CIE id */
	u8(b, 3);	      /* version */
	str(b, "");
	uleb(b, 1);
	sleb(b, -8);
	uleb(b, 16);
	u8(b, 0x0c), uleb(b, 7), uleb(b, 8); /* def_cfa rsp 8 */
	u8(b, 0x80 | 16), uleb(b, 1);	     /* offset ra c-8 */
	while ((b->n - at) % 8)
		u8(b, 0);
	patch32(b, at, b->n - at - 4);
}

/* Begin an FDE of the CIE at offset 0 for [start, start + len); returns its offset. */
static size_t fde_begin(struct buf *b, uint64_t start, uint64_t len)
{
	size_t at = b->n;

	un(b, 0, 4);
	un(b, 0, 4); /* CIE pointer: offset 0 */
	un(b, start, 8);
	un(b, len, 8);
	return at;
}

static void fde_end(struct buf *b, size_t at)
{
	while ((b->n - at) % 8)
		u8(b, 0);
	patch32(b, at, b->n - at - 4);
}

static const char *const hows[] = { "u", "s", "c", "v", "r", "exp", "vexp", "-" };

/* The row at vaddr as text: "cfa r7+16 r6=c-16 r16=c-8" (registers with a rule only). */
static const char *row_text(struct psym_cfi *cfi, uint64_t vaddr)
{
	static char s[512];
	struct psym_cfi_row row;
	struct psym_err e = { 0 };
	int r = psym_cfi_find(cfi, vaddr, &row, &e), n;

	if (r < 0) {
		snprintf(s, sizeof(s), "error: %.400s", e.msg);
		return s;
	}
	if (r == PSYM_NOENT)
		return "none";
	n = snprintf(s, sizeof(s), "cfa %s%u%+lld", hows[row.cfa.how], row.cfa.reg,
		     (long long)row.cfa.off);
	for (unsigned i = 0; i < PSYM_CFI_NREGS && n < 400; i++)
		if (row.reg[i].how != PSYM_CFI_UNSET)
			n += snprintf(s + n, sizeof(s) - n, " r%u=%s%+lld", i, hows[row.reg[i].how],
				      (long long)row.reg[i].off);
	return s;
}

/* ---- tests ------------------------------------------------------------------ */

static struct psym_cfi *open_cfi(struct psym_elf *elf, const struct psym_cfi_limits *lim)
{
	struct psym_cfi *cfi = NULL;
	struct psym_err e = { 0 };

	if (!elf || psym_cfi_open(elf, lim, &cfi, &e) != 0)
		printf("# cfi: %s\n", e.msg);
	return cfi;
}

/* Rows of one FDE: advance, offsets, remember/restore, expressions. */
static void test_rows(void)
{
	struct buf b = { .n = 0 };
	struct sec secs[1] = { { ".debug_frame", &b, 0 } };
	struct psym_elf *elf;
	struct psym_cfi *cfi;
	size_t f;

	cie_debug(&b);
	f = fde_begin(&b, 0x1000, 0x100);
	u8(&b, 0x40 | 1);				       /* 0x1001 */
	u8(&b, 0x0e), uleb(&b, 16);			       /* def_cfa_offset 16 */
	u8(&b, 0x80 | 6), uleb(&b, 2);			       /* rbp at c-16 */
	u8(&b, 0x40 | 3);				       /* 0x1004 */
	u8(&b, 0x0a);					       /* remember_state */
	u8(&b, 0x0e), uleb(&b, 8);			       /* def_cfa_offset 8 */
	u8(&b, 0xc0 | 6);				       /* restore rbp */
	u8(&b, 0x40 | 1);				       /* 0x1005 */
	u8(&b, 0x0b);					       /* restore_state */
	u8(&b, 0x02), u8(&b, 0x1b);			       /* advance_loc1 27: 0x1020 */
	u8(&b, 0x0f), uleb(&b, 2), u8(&b, 0x77), sleb(&b, 24); /* cfa = breg7 + 24 */
	u8(&b, 0x16), uleb(&b, 3), uleb(&b, 3), u8(&b, 0x70 + 7), sleb(&b, 0), u8(&b, 0x96);
	/* val_expression rbx = rsp (nop) */
	u8(&b, 0x03), un(&b, 0x20, 2);		  /* advance_loc2 0x20: 0x1040 */
	u8(&b, 0x12), uleb(&b, 6), sleb(&b, -2);  /* def_cfa_sf rbp, 16 */
	u8(&b, 0x09), uleb(&b, 12), uleb(&b, 13); /* r12 in r13 */
	u8(&b, 0x08), uleb(&b, 14);		  /* r14 same */
	u8(&b, 0x07), uleb(&b, 15);		  /* r15 undefined */
	u8(&b, 0x05), uleb(&b, 40), uleb(&b, 1);  /* a vector register: ignored */
	u8(&b, 0x2e), uleb(&b, 32);		  /* GNU_args_size */
	fde_end(&b, f);

	elf = mkelf(secs, 1);
	cfi = open_cfi(elf, NULL);
	ok(cfi != NULL, "hand-made .debug_frame opens");
	if (!cfi)
		goto out;
	is_int(psym_cfi_nfdes(cfi), 1, "one FDE");
	is_str(row_text(cfi, 0x1000), "cfa r7+8 r16=c-8", "entry row: CIE's instructions");
	is_str(row_text(cfi, 0x1001), "cfa r7+16 r6=c-16 r16=c-8", "after the push");
	is_str(row_text(cfi, 0x1003), "cfa r7+16 r6=c-16 r16=c-8",
	       "row covers up to the next advance");
	is_str(row_text(cfi, 0x1004), "cfa r7+8 r16=c-8",
	       "remembered, changed, rbp restored to the CIE's");
	is_str(row_text(cfi, 0x1005), "cfa r7+16 r6=c-16 r16=c-8",
	       "restore_state brings back the CFA too");
	is_str(row_text(cfi, 0x1020), "cfa exp0+0 r3=vexp+0 r6=c-16 r16=c-8", "expressions");
	is_str(row_text(cfi, 0x10ff), "cfa r6+16 r3=vexp+0 r6=c-16 r12=r+0 r14=s+0 r15=u+0 r16=c-8",
	       "def_cfa_sf, register, same, undefined");
	is_str(row_text(cfi, 0x0fff), "none", "below the FDE");
	is_str(row_text(cfi, 0x1100), "none", "past the FDE");
out:
	psym_cfi_close(cfi);
	psym_elf_close(elf);
}

/* ---- unwinding over a hand-made stack ---------------------------------------- */

struct one_obj {
	struct psym_cfi *cfi;
};

static int find_one(void *arg, uint64_t pc, struct psym_unwind_obj *obj)
{
	struct one_obj *o = arg;

	if (pc < 0x1000 || pc >= 0x4000)
		return PSYM_NOENT;
	memset(obj, 0, sizeof(*obj));
	obj->cfi[0] = o->cfi;
	return 0;
}

/*
 * leaf at 0x1000 (CFA rsp+8), mid at 0x2000 (pushed rbx: CFA rsp+16, rbx
 * at c-16), top at 0x3000 whose return address is undefined (outermost).
 * A PLT-like FDE at 0x3800 uses the psABI's PLT expression.
 */
static struct buf three;

static struct psym_cfi *three_cfi(struct psym_elf **elf)
{
	struct sec secs[1] = { { ".debug_frame", &three, 0 } };
	size_t f;

	three.n = 0;
	cie_debug(&three);
	f = fde_begin(&three, 0x1000, 0x100);
	fde_end(&three, f);
	f = fde_begin(&three, 0x2000, 0x100);
	u8(&three, 0x40 | 1);
	u8(&three, 0x0e), uleb(&three, 16);
	u8(&three, 0x80 | 3), uleb(&three, 2);
	fde_end(&three, f);
	f = fde_begin(&three, 0x3000, 0x100);
	u8(&three, 0x07), uleb(&three, 16);
	fde_end(&three, f);
	f = fde_begin(&three, 0x3800, 0x100);
	/* CFA = rsp + 8 + ((rip & 15) >= 11) << 3, as binutils writes for .plt */
	u8(&three, 0x0f), uleb(&three, 11);
	u8(&three, 0x77), sleb(&three, 8);
	u8(&three, 0x80), sleb(&three, 0); /* breg16 (rip) */
	u8(&three, 0x3f);		   /* lit15 */
	u8(&three, 0x1a);		   /* and */
	u8(&three, 0x3b);		   /* lit11 */
	u8(&three, 0x2a);		   /* ge */
	u8(&three, 0x33);		   /* lit3 */
	u8(&three, 0x24);		   /* shl */
	u8(&three, 0x22);		   /* plus */
	fde_end(&three, f);
	*elf = mkelf(secs, 1);
	return open_cfi(*elf, NULL);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void test_unwind(void)
{
	struct psym_elf *elf = NULL;
	struct one_obj o = { three_cfi(&elf) };
	uint8_t stack[256] = { 0 };
	struct psym_unwind_regs regs = { 0 };
	struct psym_unwind_stack stk = { 0x7000, stack, sizeof(stack) };
	struct psym_unwind_result res;
	uint64_t pcs[16];

	ok(o.cfi != NULL, "three-frame CFI opens");
	if (!o.cfi)
		goto out;
	/* leaf at 0x1010: [sp] = ra into mid 0x2051; mid: [sp+8] = saved rbx, [sp+16] = ra top 0x3021 */
	put64(stack + 0, 0x2051);
	put64(stack + 8, 0xbbbb);
	put64(stack + 16, 0x3021);
	regs.r[PSYM_X86_RA] = 0x1010;
	regs.r[PSYM_X86_RSP] = 0x7000;
	regs.r[PSYM_X86_RBX] = 0x1111;
	regs.valid = (1u << PSYM_X86_RA) | (1u << PSYM_X86_RSP) | (1u << PSYM_X86_RBX);
	psym_unwind(&regs, &stk, find_one, &o, pcs, 16, &res);
	is_int(res.n, 3, "three frames");
	is_int(pcs[0], 0x1010, "the leaf exact");
	is_int(pcs[1], 0x2050, "mid: return address - 1");
	is_int(pcs[2], 0x3020, "top: return address - 1");
	is_str(psym_unwind_stop_name(res.stop), "end", "stops at the undefined return address");
	is_int(res.cfi_frames, 2, "both callers through CFI");

	/* The same stack cut after 16 bytes: the top's return address is not there. */
	stk.len = 16;
	psym_unwind(&regs, &stk, find_one, &o, pcs, 16, &res);
	is_int(res.n, 2, "cut copy: two frames");
	is_str(psym_unwind_stop_name(res.stop), "out-of-stack", "cut copy: clean stop");
	stk.len = sizeof(stack);

	/* The frame cap. */
	psym_unwind(&regs, &stk, find_one, &o, pcs, 2, &res);
	is_int(res.n, 2, "cap of two frames");
	is_str(psym_unwind_stop_name(res.stop), "depth", "cap: depth stop");

	/* A PLT entry at its second slot half (rip & 15 >= 11): CFA = rsp + 16. */
	put64(stack + 0, 0x1234);
	put64(stack + 8, 0x2051);
	regs.r[PSYM_X86_RA] = 0x380b;
	psym_unwind(&regs, &stk, find_one, &o, pcs, 3, &res);
	ok(res.n >= 2 && pcs[1] == 0x2050, "PLT expression: caller found at rsp + 16 (got %#llx)",
	   (unsigned long long)(res.n >= 2 ? pcs[1] : 0));
	regs.r[PSYM_X86_RA] = 0x3806;
	psym_unwind(&regs, &stk, find_one, &o, pcs, 2, &res);
	ok(res.n == 2 && pcs[1] == 0x1233, "PLT expression: rsp + 8 before the push");

	/* No CFI: the frame pointer. rbp = 0x7040 -> [saved rbp = 0, ra 0x2051]. */
	put64(stack + 0x40, 0);
	put64(stack + 0x48, 0x2051);
	put64(stack + 0x50, 0x5555);
	put64(stack + 0x58, 0x3021);
	regs.r[PSYM_X86_RA] = 0x500; /* no object */
	regs.r[PSYM_X86_RBP] = 0x7040;
	regs.valid |= 1u << PSYM_X86_RBP;
	psym_unwind(&regs, &stk, find_one, &o, pcs, 16, &res);
	ok(res.n >= 2 && pcs[1] == 0x2050 && res.fp_frames == 1,
	   "frame-pointer fallback where there is no CFI");

	/* Registers pointing anywhere: every stop is clean. */
	for (uint64_t sp = 0; sp < 4; sp++) {
		uint64_t vals[] = { 0, 0x7000, UINT64_MAX, UINT64_MAX - 7 };

		for (int k = 0; k < 4; k++) {
			regs.r[PSYM_X86_RSP] = vals[sp];
			regs.r[PSYM_X86_RBP] = vals[k];
			regs.r[PSYM_X86_RA] = (uint64_t[]){ 0x1000, 0x2001, 0x3800, 0xffffffff }[k];
			psym_unwind(&regs, &stk, find_one, &o, pcs, 16, &res);
			ok(res.n >= 1 && res.n <= 16, "wild registers %llu/%d: %zu frames, stop %s",
			   (unsigned long long)sp, k, res.n, psym_unwind_stop_name(res.stop));
		}
	}
out:
	psym_cfi_close(o.cfi);
	psym_elf_close(elf);
}

/* Hostile CFI: loops, absurd rules, caps. */
static void test_hostile(void)
{
	struct buf b = { .n = 0 };
	struct sec secs[1] = { { ".debug_frame", &b, 0 } };
	struct psym_cfi_limits lim = { .max_fdes = 4, .max_steps = 50 };
	struct psym_elf *elf;
	struct psym_cfi *cfi;
	struct psym_unwind_result res;
	struct psym_unwind_regs regs = { .valid = (1u << PSYM_X86_RA) | (1u << PSYM_X86_RSP) };
	uint8_t stack[64] = { 0 };
	struct psym_unwind_stack stk = { 0x7000, stack, sizeof(stack) };
	struct one_obj o;
	uint64_t pcs[8];
	size_t f;

	cie_debug(&b);
	/* 0x1000: a CFA expression that loops forever (lit1; bra -3). */
	f = fde_begin(&b, 0x1000, 0x100);
	u8(&b, 0x0f), uleb(&b, 4), u8(&b, 0x31), u8(&b, 0x28), un(&b, (uint16_t)-4, 2);
	fde_end(&b, f);
	/* 0x2000: remember_state 17 deep. */
	f = fde_begin(&b, 0x2000, 0x100);
	for (int i = 0; i < 17; i++)
		u8(&b, 0x0a);
	fde_end(&b, f);
	/* 0x3000: 60 nops, more than the step cap of 50. */
	f = fde_begin(&b, 0x3000, 0x100);
	for (int i = 0; i < 60; i++)
		u8(&b, 0x00);
	fde_end(&b, f);
	/* 0x4000: an unknown instruction; CFA in a register no one knows. */
	f = fde_begin(&b, 0x4000, 0x10);
	u8(&b, 0x3f);
	fde_end(&b, f);
	f = fde_begin(&b, 0x4010, 0x10);
	u8(&b, 0x0c), uleb(&b, 1000), uleb(&b, 8);
	fde_end(&b, f);
	/* An FDE whose CIE pointer points nowhere: not indexed. */
	f = b.n;
	un(&b, 20, 4), un(&b, 0x7fff0000, 4), un(&b, 0x5000, 8), un(&b, 0x10, 8);
	fde_end(&b, f);

	elf = mkelf(secs, 1);
	cfi = open_cfi(elf, &lim);
	ok(cfi == NULL, "more FDEs than --limit cfi-fdes: refused");
	psym_cfi_close(cfi);
	lim.max_fdes = 0;
	cfi = open_cfi(elf, &lim);
	o.cfi = cfi;
	ok(cfi != NULL, "hostile CFI opens");
	if (!cfi)
		goto out;
	is_int(psym_cfi_nfdes(cfi), 5, "the FDE with a bad CIE pointer is not indexed");
	ok(strstr(row_text(cfi, 0x2000), "nested too deep") != NULL, "remember_state depth capped");
	ok(strstr(row_text(cfi, 0x3000), "cfi-steps") != NULL, "CFA program step cap");
	ok(strstr(row_text(cfi, 0x4000), "unknown CFA instruction") != NULL, "unknown instruction");
	is_str(row_text(cfi, 0x5000), "none", "bad CIE pointer: no row");
	regs.r[PSYM_X86_RSP] = 0x7000;
	for (uint64_t pc = 0x1000; pc <= 0x4010; pc += 0x1000) {
		regs.r[PSYM_X86_RA] = pc == 0x4000 ? 0x4010 : pc;
		psym_unwind(&regs, &stk, find_one, &o, pcs, 8, &res);
		ok(res.n == 1 && res.stop == PSYM_UNWIND_BAD_RULE, "bad rule at %#llx: cut (%s)",
		   (unsigned long long)regs.r[PSYM_X86_RA], res.why);
	}
	/* Bit flips over the whole section: no crash, no hang (run under the sanitizers). */
	{
		uint32_t seed = 12345;
		struct buf orig = b;

		no_corpus = true;

		for (int round = 0; round < 2000; round++) {
			struct psym_elf *e2;
			struct psym_cfi *c2 = NULL;
			struct psym_err e = { 0 };

			b = orig;
			for (int k = 0; k < 4; k++) {
				seed = seed * 1103515245 + 12345;
				b.b[(seed >> 8) % b.n] ^= (uint8_t)(1u << ((seed >> 4) & 7));
			}
			e2 = mkelf(secs, 1);
			if (e2 && psym_cfi_open(e2, NULL, &c2, &e) == 0) {
				o.cfi = c2;
				for (uint64_t pc = 0x1000; pc < 0x5000; pc += 0x7f) {
					regs.r[PSYM_X86_RA] = pc;
					psym_unwind(&regs, &stk, find_one, &o, pcs, 8, &res);
				}
				psym_cfi_close(c2);
			}
			psym_elf_close(e2);
		}
		ok(1, "2000 bit-flipped .debug_frame sections survived");
		no_corpus = false;
		b = orig;
	}
out:
	psym_cfi_close(cfi);
	psym_elf_close(elf);
}

/* .eh_frame with a pc-relative FDE encoding and an .eh_frame_hdr table. */
static void test_eh_frame(void)
{
	struct buf eh = { .n = 0 }, hdr = { .n = 0 };
	struct sec secs[2] = { { ".eh_frame", &eh, 0x10000 }, { ".eh_frame_hdr", &hdr, 0x20000 } };
	struct psym_elf *elf;
	struct psym_cfi *cfi;
	size_t at, f, fdes[2];

	/* CIE "zR", FDE encoding pcrel|sdata4 */
	at = eh.n;
	un(&eh, 0, 4), un(&eh, 0, 4), u8(&eh, 1), str(&eh, "zR");
	uleb(&eh, 1), sleb(&eh, -8), u8(&eh, 16), uleb(&eh, 1), u8(&eh, 0x1b);
	u8(&eh, 0x0c), uleb(&eh, 7), uleb(&eh, 8), u8(&eh, 0x80 | 16), uleb(&eh, 1);
	fde_end(&eh, at);
	for (int i = 0; i < 2; i++) {
		uint64_t start = 0x1000 + 0x100 * (uint64_t)i;

		f = fdes[i] = eh.n;
		un(&eh, 0, 4);
		un(&eh, eh.n - at, 4);				  /* CIE pointer: back to 0 */
		un(&eh, (uint32_t)(start - (0x10000 + eh.n)), 4); /* pcrel */
		un(&eh, 0x80, 4);
		uleb(&eh, 0);
		u8(&eh, 0x40 | 4), u8(&eh, 0x0e), uleb(&eh, 16 + 16 * (uint64_t)i);
		fde_end(&eh, f);
	}
	un(&eh, 0, 4); /* terminator */
	elf = mkelf(secs, 1);
	cfi = open_cfi(elf, NULL);
	ok(cfi && psym_cfi_nfdes(cfi) == 2, "scanned .eh_frame: two FDEs");
	if (cfi) {
		is_str(row_text(cfi, 0x1004), "cfa r7+16 r16=c-8", "first FDE, pc-relative start");
		is_str(row_text(cfi, 0x1104), "cfa r7+32 r16=c-8", "second FDE");
		is_str(row_text(cfi, 0x1080), "none", "the gap between them");
	}
	psym_cfi_close(cfi);
	psym_elf_close(elf);

	/* The same with .eh_frame_hdr: version 1, eh_frame_ptr pcrel sdata4, count udata4, table datarel sdata4. */
	u8(&hdr, 1), u8(&hdr, 0x1b), u8(&hdr, 0x03), u8(&hdr, 0x3b);
	un(&hdr, (uint32_t)(0x10000 - (0x20000 + 4)), 4);
	un(&hdr, 2, 4);
	un(&hdr, (uint32_t)(0x1000 - 0x20000), 4),
		un(&hdr, (uint32_t)(0x10000 + fdes[0] - 0x20000), 4);
	un(&hdr, (uint32_t)(0x1100 - 0x20000), 4),
		un(&hdr, (uint32_t)(0x10000 + fdes[1] - 0x20000), 4);
	elf = mkelf(secs, 2);
	cfi = open_cfi(elf, NULL);
	ok(cfi && psym_cfi_nfdes(cfi) == 2, "indexed through .eh_frame_hdr");
	if (cfi) {
		is_str(row_text(cfi, 0x1004), "cfa r7+16 r16=c-8", "hdr: first FDE");
		is_str(row_text(cfi, 0x1104), "cfa r7+32 r16=c-8", "hdr: second FDE");
		is_str(row_text(cfi, 0x1080), "none", "hdr: the gap");
		is_str(row_text(cfi, 0x0800), "none", "hdr: below the table");
	}
	psym_cfi_close(cfi);
	psym_elf_close(elf);
}

int main(void)
{
	test_rows();
	test_unwind();
	test_hostile();
	test_eh_frame();
	return tap_done();
}
