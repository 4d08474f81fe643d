/* SPDX-License-Identifier: MIT */
/*
 * .eh_frame / .eh_frame_hdr / .debug_frame reading and the CFA program
 * interpreter (DWARF 5 section 6.4, LSB "Exception Frames").
 */
#include "config.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "compress.h"
#include "cursor.h"
#include "array.h"
#include "search.h"

#define DEFAULT_MAX_FDES ((size_t)4 << 20)
#define DEFAULT_MAX_STEPS 100000
#define MAX_REMEMBER 16
#define MAX_DEBUG_FRAME ((size_t)256 << 20)
/*
 * Rows memoized per object, direct-mapped by address: a profile's samples
 * come back to the same pcs, and a row costs up to --limit cfi-steps CFA
 * instructions to compute, an error (a cap hit) as much as a row.
 */
#define MEMO_SLOTS 4096

struct memo {
	uint64_t vaddr;
	bool used;
	int r;	       /* psym_cfi_find's result */
	char msg[160]; /* its message when r < 0 */
	struct psym_cfi_row row;
};

/* Pointer encodings (DW_EH_PE_*). */
#define PE_OMIT 0xff
#define PE_PCREL 0x10
#define PE_DATAREL 0x30
#define PE_INDIRECT 0x80

struct sec {
	const uint8_t *p;
	size_t len;
	uint64_t addr; /* sh_addr: pc-relative pointers are relative to it */
	bool eh;       /* .eh_frame conventions (CIE id 0, relative CIE pointers) */
	void *owned;   /* inflated .debug_frame */
};

/* 24 bytes, not 32: a binary's index holds one a function (offsets in a section fit 63 bits). */
struct fde_ent {
	uint64_t start, end;
	uint64_t off : 63;
	uint64_t dbg : 1; /* in .debug_frame, else .eh_frame */
};

struct psym_cfi {
	struct sec eh, dbg;
	/* .eh_frame_hdr binary-search table (datarel sdata4 pairs), when usable. */
	const uint8_t *tab;
	size_t ntab;
	uint64_t hdr_addr;
	struct fde_ent *idx;
	size_t nidx;
	bool swap;
	unsigned addr_size;
	struct psym_cfi_limits lim;
	uint64_t steps;	   /* CFA instructions run so far (psym_cfi_steps) */
	struct memo *memo; /* MEMO_SLOTS, allocated at the first lookup */
};

struct cie {
	uint8_t fde_enc;
	bool z, signal;
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	unsigned addr_size;
	const uint8_t *ins, *ins_end;
};

/* ---- encoded pointers ------------------------------------------------------- */

static bool rd_enc(struct cur *c, uint8_t enc, const struct sec *s, uint64_t datarel,
		   unsigned addr_size, bool relative, uint64_t *out)
{
	uint64_t base = 0, v;
	const uint8_t *at = c->p;

	if (enc == PE_OMIT || (enc & PE_INDIRECT))
		return false;
	if (relative) {
		switch (enc & 0x70) {
		case 0: break;
		case PE_PCREL: base = s->addr + (uint64_t)(at - s->p); break;
		case PE_DATAREL: base = datarel; break;
		default: /* textrel, funcrel, aligned: not used on x86-64 */ return false;
		}
	}
	switch (enc & 0x0f) {
	case 0x0: v = rd_un(c, addr_size); break;
	case 0x1: v = rd_uleb(c); break;
	case 0x2: v = rd_u16(c); break;
	case 0x3: v = rd_u32(c); break;
	case 0x4:
	case 0xc: v = rd_u64(c); break;
	case 0x9: v = (uint64_t)rd_sleb(c); break;
	case 0xa: v = (uint64_t)(int64_t)(int16_t)rd_u16(c); break;
	case 0xb: v = (uint64_t)(int64_t)(int32_t)rd_u32(c); break;
	default: return false;
	}
	*out = base + v;
	return c->ok;
}

/* ---- CIEs and FDEs ---------------------------------------------------------- */

/*
 * The entry at off: its end and the CIE-id field. *is_cie, and for an FDE
 * the offset of its CIE. false when the header is bad or it is the
 * .eh_frame terminator.
 */
static bool entry_at(const struct psym_cfi *cfi, const struct sec *s, uint64_t off, struct cur *c,
		     uint64_t *next, bool *is_cie, uint64_t *cie_off)
{
	unsigned offsz;
	uint64_t len, id, idpos;

	*c = cur_at(s->p, s->len, off, cfi->swap);
	len = rd_unit_length(c, &offsz);
	if (!c->ok || len == 0 || len > cur_left(c))
		return false;
	*next = (uint64_t)(c->p - s->p) + len;
	c->end = c->p + len;
	idpos = (uint64_t)(c->p - s->p);
	id = rd_off(c, offsz);
	if (!c->ok)
		return false;
	if (s->eh) {
		*is_cie = id == 0;
		if (!*is_cie) {
			if (id > idpos)
				return false;
			*cie_off = idpos - id;
		}
	} else {
		*is_cie = offsz == 4 ? id == 0xffffffffu : id == UINT64_MAX;
		*cie_off = id;
	}
	return true;
}

static bool parse_cie(const struct psym_cfi *cfi, const struct sec *s, uint64_t off,
		      struct cie *cie)
{
	struct cur c;
	uint64_t next, dummy;
	bool is_cie;
	uint8_t version;
	const char *aug;

	if (!entry_at(cfi, s, off, &c, &next, &is_cie, &dummy) || !is_cie)
		return false;
	memset(cie, 0, sizeof(*cie));
	cie->addr_size = cfi->addr_size;
	cie->fde_enc = 0; /* absptr */
	version = rd_u8(&c);
	if (version != 1 && version != 3 && version != 4)
		return false;
	aug = rd_cstr(&c);
	if (!aug)
		return false;
	if (aug[0] && aug[0] != 'z' && strcmp(aug, "eh") != 0)
		return false; /* unknown augmentation: its data cannot be skipped */
	if (strcmp(aug, "eh") == 0)
		skip(&c, cie->addr_size);
	if (version == 4) {
		uint8_t asz = rd_u8(&c);

		if (asz != 4 && asz != 8)
			return false;
		cie->addr_size = asz;
		if (rd_u8(&c) != 0) /* segment selector size */
			return false;
	}
	cie->code_align = rd_uleb(&c);
	cie->data_align = rd_sleb(&c);
	cie->ra = version == 1 ? rd_u8(&c) : rd_uleb(&c);
	if (aug[0] == 'z') {
		uint64_t alen = rd_uleb(&c);
		struct cur a = c;

		if (!c.ok || alen > cur_left(&c))
			return false;
		a.end = c.p + alen;
		skip(&c, alen);
		cie->z = true;
		for (const char *p = aug + 1; *p; p++) {
			uint64_t v;

			switch (*p) {
			case 'L': rd_u8(&a); break;
			case 'R': cie->fde_enc = rd_u8(&a); break;
			case 'P': {
				uint8_t enc = rd_u8(&a);

				/* personality: read to skip it, indirect allowed */
				if (!rd_enc(&a, enc & 0x7f, s, 0, cie->addr_size, false, &v))
					return false;
				break;
			}
			case 'S': cie->signal = true; break;
			case 'B': /* AArch64 BTI, no data */ break;
			default: goto unknown; /* the rest of the data is skipped by alen */
			}
			if (!a.ok)
				return false;
		}
	}
unknown:
	if (!c.ok)
		return false;
	cie->ins = c.p;
	cie->ins_end = c.end;
	return true;
}

/* FDE at off: its CIE, pc range (ELF vaddrs) and instructions. */
static bool parse_fde(const struct psym_cfi *cfi, const struct sec *s, uint64_t off,
		      struct cie *cie, uint64_t *start, uint64_t *end, const uint8_t **ins,
		      const uint8_t **ins_end)
{
	struct cur c;
	uint64_t next, cie_off, range;
	bool is_cie;

	if (!entry_at(cfi, s, off, &c, &next, &is_cie, &cie_off) || is_cie)
		return false;
	if (!parse_cie(cfi, s, cie_off, cie))
		return false;
	if (!rd_enc(&c, cie->fde_enc, s, 0, cie->addr_size, true, start))
		return false;
	if (!rd_enc(&c, cie->fde_enc & 0x0f, s, 0, cie->addr_size, false, &range))
		return false;
	if (range > UINT64_MAX - *start)
		return false;
	*end = *start + range;
	if (cie->z) {
		uint64_t alen = rd_uleb(&c);

		skip(&c, alen);
	}
	if (!c.ok)
		return false;
	*ins = c.p;
	*ins_end = c.end;
	return true;
}

/* ---- the index -------------------------------------------------------------- */

static int cmp_fde(const void *a, const void *b)
{
	const struct fde_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int index_section(struct psym_cfi *cfi, const struct sec *s, bool dbg, size_t *cap,
			 struct psym_err *e)
{
	uint64_t off = 0;

	while (off < s->len) {
		struct cur c;
		struct cie cie;
		uint64_t next, cie_off, start, end;
		const uint8_t *ins, *ins_end;
		bool is_cie;

		if (!entry_at(cfi, s, off, &c, &next, &is_cie, &cie_off))
			break; /* terminator or a bad header: nothing after it can be found */
		if (!is_cie && parse_fde(cfi, s, off, &cie, &start, &end, &ins, &ins_end) &&
		    start < end) {
			if (cfi->nidx == *cap) {
				struct fde_ent *n;

				if (*cap >= cfi->lim.max_fdes)
					return psym_err_set(e, PSYM_ELIMIT,
							    "more than %zu FDEs (--limit cfi-fdes)",
							    cfi->lim.max_fdes);
				n = psym_array_grow(cfi->idx, cap, cfi->nidx + 1, sizeof(*n),
						    cfi->lim.max_fdes);
				if (!n)
					return psym_err_set(e, PSYM_ENOMEM, "out of memory");
				cfi->idx = n;
			}
			cfi->idx[cfi->nidx++] = (struct fde_ent){ start, end, off, dbg };
		}
		off = next;
	}
	return 0;
}

/* Use .eh_frame_hdr's table when it is the common datarel sdata4 kind. */
static void setup_hdr(struct psym_cfi *cfi, const struct psym_elf_scn *h, uint64_t addr)
{
	struct cur c = cur_at(h->data, h->len, 0, cfi->swap);
	struct sec hs = { h->data, h->len, addr, true, NULL };
	uint8_t version = rd_u8(&c), ptr_enc = rd_u8(&c), cnt_enc = rd_u8(&c), tab_enc = rd_u8(&c);
	uint64_t ptr, cnt;

	if (!c.ok || version != 1 || tab_enc != 0x3b)
		return;
	if (!rd_enc(&c, ptr_enc, &hs, addr, cfi->addr_size, true, &ptr))
		return;
	if (!rd_enc(&c, cnt_enc, &hs, addr, cfi->addr_size, false, &cnt))
		return;
	if (cnt > cur_left(&c) / 8 || cnt > cfi->lim.max_fdes)
		return;
	cfi->tab = c.p;
	cfi->ntab = (size_t)cnt;
	cfi->hdr_addr = addr;
}

static int load_debug_frame(struct psym_cfi *cfi, const struct psym_elf_scn *sc,
			    const struct psym_elf *elf, struct psym_err *e)
{
	struct cur c = cur_at(sc->data, sc->len, 0, cfi->swap);
	uint32_t type;
	uint64_t size;
	size_t got;
	void *buf;

	if (!sc->compressed) {
		cfi->dbg = (struct sec){ sc->data, sc->len, 0, false, NULL };
		return 0;
	}
	type = rd_u32(&c);
	if (psym_elf_is_64(elf)) {
		rd_u32(&c);
		size = rd_u64(&c);
		rd_u64(&c);
	} else {
		size = rd_u32(&c);
		rd_u32(&c);
	}
	if (!c.ok || (type != PSYM_ZLIB && type != PSYM_ZSTD) || size == 0 ||
	    size > MAX_DEBUG_FRAME || size / 1032 > cur_left(&c) + 1024)
		return psym_err_set(e, PSYM_EBADDWARF, "bad compressed .debug_frame");
	buf = malloc((size_t)size);
	if (!buf)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (psym_decompress_into((enum psym_zformat)type, c.p, cur_left(&c), buf, (size_t)size,
				 &got) != 0 ||
	    got != size) {
		free(buf);
		return psym_err_set(e, PSYM_EBADDWARF, "corrupt compressed .debug_frame");
	}
	cfi->dbg = (struct sec){ buf, (size_t)size, 0, false, buf };
	return 0;
}

int psym_cfi_open(const struct psym_elf *elf, const struct psym_cfi_limits *lim,
		  struct psym_cfi **out, struct psym_err *e)
{
	struct psym_cfi *cfi;
	struct psym_elf_scn hdr = { 0 };
	size_t n = psym_elf_nsections(elf), cap = 0;
	bool have_hdr = false;
	int r = 0;

	*out = NULL;
	cfi = calloc(1, sizeof(*cfi));
	if (!cfi)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	cfi->lim.max_fdes = lim && lim->max_fdes ? lim->max_fdes : DEFAULT_MAX_FDES;
	cfi->lim.max_steps = lim && lim->max_steps ? lim->max_steps : DEFAULT_MAX_STEPS;
	cfi->swap = psym_elf_is_msb(elf) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	cfi->addr_size = psym_elf_is_64(elf) ? 8 : 4;
	for (size_t i = 1; i < n; i++) {
		struct psym_elf_scn sc;

		if (psym_elf_scn(elf, i, &sc) != 0)
			continue;
		if (strcmp(sc.name, ".eh_frame") == 0 && !sc.compressed && !cfi->eh.p) {
			cfi->eh = (struct sec){ sc.data, sc.len, sc.addr, true, NULL };
		} else if (strcmp(sc.name, ".eh_frame_hdr") == 0 && !sc.compressed) {
			hdr = sc;
			have_hdr = true;
		} else if (strcmp(sc.name, ".debug_frame") == 0 && !cfi->dbg.p) {
			r = load_debug_frame(cfi, &sc, elf, e);
			if (r < 0)
				goto fail;
		}
	}
	if (!cfi->eh.p && !cfi->dbg.p) {
		psym_cfi_close(cfi);
		return PSYM_NOENT;
	}
	if (cfi->eh.p && have_hdr)
		setup_hdr(cfi, &hdr, hdr.addr);
	if (cfi->eh.p && !cfi->tab) {
		r = index_section(cfi, &cfi->eh, false, &cap, e);
		if (r < 0)
			goto fail;
	}
	if (cfi->dbg.p) {
		r = index_section(cfi, &cfi->dbg, true, &cap, e);
		if (r < 0)
			goto fail;
	}
	if (cfi->nidx)
		qsort(cfi->idx, cfi->nidx, sizeof(*cfi->idx), cmp_fde);
	*out = cfi;
	return 0;
fail:
	psym_err_prefix(e, "'%s'", psym_elf_path(elf));
	psym_cfi_close(cfi);
	return r;
}

void psym_cfi_close(struct psym_cfi *cfi)
{
	if (!cfi)
		return;
	free(cfi->memo);
	free(cfi->dbg.owned);
	free(cfi->idx);
	free(cfi);
}

size_t psym_cfi_nfdes(const struct psym_cfi *cfi)
{
	return cfi->ntab + cfi->nidx;
}

/* ---- the CFA program -------------------------------------------------------- */

/* CFA instructions (DW_CFA_*); the first three carry an operand in their low 6 bits. */
enum {
	CFA_advance_loc = 0x40,
	CFA_offset = 0x80,
	CFA_restore = 0xc0,
	CFA_nop = 0x00,
	CFA_set_loc = 0x01,
	CFA_advance_loc1 = 0x02,
	CFA_advance_loc2 = 0x03,
	CFA_advance_loc4 = 0x04,
	CFA_offset_extended = 0x05,
	CFA_restore_extended = 0x06,
	CFA_undefined = 0x07,
	CFA_same_value = 0x08,
	CFA_register = 0x09,
	CFA_remember_state = 0x0a,
	CFA_restore_state = 0x0b,
	CFA_def_cfa = 0x0c,
	CFA_def_cfa_register = 0x0d,
	CFA_def_cfa_offset = 0x0e,
	CFA_def_cfa_expression = 0x0f,
	CFA_expression = 0x10,
	CFA_offset_extended_sf = 0x11,
	CFA_def_cfa_sf = 0x12,
	CFA_def_cfa_offset_sf = 0x13,
	CFA_val_offset = 0x14,
	CFA_val_offset_sf = 0x15,
	CFA_val_expression = 0x16,
	CFA_AARCH64_negate_ra_state = 0x2d,
	CFA_GNU_args_size = 0x2e,
	CFA_GNU_negative_offset_extended = 0x2f,
};

struct state {
	struct psym_cfi_rule cfa;
	struct psym_cfi_rule reg[PSYM_CFI_NREGS];
};

/* One run of CFA instructions: where they are read and the row they build. */
struct interp {
	const struct sec *s;
	const struct cie *cie;
	struct cur c;
	uint64_t loc;	 /* the address the row is at so far */
	uint64_t target; /* the address whose row is wanted */
	struct state *st;
	const struct state *init; /* for restore; NULL while running the CIE's */
	struct state *stack;	  /* MAX_REMEMBER rows of remember_state */
	size_t depth;
	struct psym_err *e;
};

/* What an instruction leaves: go on, or the row for the target is complete. */
#define GO_ON 0
#define ROW_DONE 1

static int malformed(struct psym_err *e)
{
	return psym_err_set(e, PSYM_EBADDWARF, "truncated or malformed CFA instruction");
}

/* A register number in a rule: past 16 bits, 0xffff (no register the unwinder knows). */
static uint16_t reg16(uint64_t reg)
{
	return reg > 0xffff ? 0xffff : (uint16_t)reg;
}

static void set_rule(struct state *st, uint64_t reg, uint8_t how, int64_t off, uint64_t reg2,
		     const uint8_t *expr, size_t exprlen)
{
	if (reg >= PSYM_CFI_NREGS)
		return;
	st->reg[reg] = (struct psym_cfi_rule){ how, reg16(reg2), off, expr, exprlen };
}

/* restore, restore_extended: reg's rule as the CIE's instructions left it. */
static void restore_rule(struct interp *in, uint64_t reg)
{
	if (reg < PSYM_CFI_NREGS)
		in->st->reg[reg] = in->init ? in->init->reg[reg]
					    : (struct psym_cfi_rule){ .how = PSYM_CFI_UNSET };
}

/* A block operand (uleb length + bytes). */
static bool rd_block(struct cur *c, const uint8_t **p, size_t *len)
{
	uint64_t n = rd_uleb(c);

	if (!c->ok || n > cur_left(c))
		return false;
	*p = c->p;
	*len = (size_t)n;
	c->p += n;
	return true;
}

/* The location moves on by delta code alignment units. */
static inline int advance(struct interp *in, uint64_t delta)
{
	uint64_t align = in->cie->code_align;

	if (!in->c.ok)
		return malformed(in->e);
	if (align && delta > (UINT64_MAX - in->loc) / align)
		return ROW_DONE;
	in->loc += delta * align;
	return in->loc > in->target ? ROW_DONE : GO_ON;
}

/* set_loc, advance_loc1, advance_loc2, advance_loc4. */
static int op_location(struct interp *in, uint8_t op)
{
	struct cur *c = &in->c;
	uint64_t u;

	switch (op) {
	case CFA_set_loc:
		if (!rd_enc(c, in->cie->fde_enc, in->s, 0, in->cie->addr_size, true, &u))
			return malformed(in->e);
		if (u > in->target)
			return ROW_DONE;
		in->loc = u;
		return GO_ON;
	case CFA_advance_loc1: return advance(in, rd_u8(c));
	case CFA_advance_loc2: return advance(in, rd_u16(c));
	default: /* advance_loc4 */ return advance(in, rd_u32(c));
	}
}

/*
 * An operand times the data alignment factor, wrapping as the machine
 * does: hostile CFI can ask for any product, and a signed overflow is
 * undefined (the offset is then garbage, which the unwinder's memory reads
 * check like any other).
 */
static int64_t scaled(uint64_t v, int64_t da)
{
	return (int64_t)(v * (uint64_t)da);
}

/* The instructions that give one register (their first operand) a rule. */
static int op_register_rule(struct interp *in, uint8_t op)
{
	struct cur *c = &in->c;
	struct state *st = in->st;
	int64_t da = in->cie->data_align;
	uint64_t reg = rd_uleb(c), u;
	const uint8_t *blk;
	size_t blen;

	switch (op) {
	case CFA_offset_extended:
		u = rd_uleb(c);
		set_rule(st, reg, PSYM_CFI_OFFSET, scaled(u, da), 0, NULL, 0);
		break;
	case CFA_offset_extended_sf:
		set_rule(st, reg, PSYM_CFI_OFFSET, scaled((uint64_t)rd_sleb(c), da), 0, NULL, 0);
		break;
	case CFA_GNU_negative_offset_extended:
		u = rd_uleb(c);
		set_rule(st, reg, PSYM_CFI_OFFSET, scaled(0 - u, da), 0, NULL, 0);
		break;
	case CFA_val_offset:
		u = rd_uleb(c);
		set_rule(st, reg, PSYM_CFI_VAL_OFFSET, scaled(u, da), 0, NULL, 0);
		break;
	case CFA_val_offset_sf:
		set_rule(st, reg, PSYM_CFI_VAL_OFFSET, scaled((uint64_t)rd_sleb(c), da), 0, NULL,
			 0);
		break;
	case CFA_restore_extended: restore_rule(in, reg); break;
	case CFA_undefined: set_rule(st, reg, PSYM_CFI_UNDEF, 0, 0, NULL, 0); break;
	case CFA_same_value: set_rule(st, reg, PSYM_CFI_SAME, 0, 0, NULL, 0); break;
	case CFA_register: set_rule(st, reg, PSYM_CFI_REG, 0, rd_uleb(c), NULL, 0); break;
	default: /* expression, val_expression */
		if (!rd_block(c, &blk, &blen))
			return malformed(in->e);
		set_rule(st, reg, op == CFA_expression ? PSYM_CFI_EXPR : PSYM_CFI_VAL_EXPR, 0, 0,
			 blk, blen);
		break;
	}
	return GO_ON;
}

/* The instructions that define the CFA. */
static int op_cfa_rule(struct interp *in, uint8_t op)
{
	struct cur *c = &in->c;
	struct psym_cfi_rule *cfa = &in->st->cfa;
	int64_t da = in->cie->data_align;
	uint64_t reg;
	const uint8_t *blk;
	size_t blen;

	switch (op) {
	case CFA_def_cfa:
		reg = rd_uleb(c);
		*cfa = (struct psym_cfi_rule){ PSYM_CFI_REG, reg16(reg), (int64_t)rd_uleb(c), NULL,
					       0 };
		break;
	case CFA_def_cfa_sf:
		reg = rd_uleb(c);
		*cfa = (struct psym_cfi_rule){ PSYM_CFI_REG, reg16(reg),
					       scaled((uint64_t)rd_sleb(c), da), NULL, 0 };
		break;
	case CFA_def_cfa_register:
		reg = rd_uleb(c);
		if (cfa->how != PSYM_CFI_REG)
			cfa->off = 0;
		cfa->how = PSYM_CFI_REG;
		cfa->reg = reg16(reg);
		break;
	case CFA_def_cfa_offset: cfa->off = (int64_t)rd_uleb(c); break;
	case CFA_def_cfa_offset_sf: cfa->off = scaled((uint64_t)rd_sleb(c), da); break;
	default: /* def_cfa_expression */
		if (!rd_block(c, &blk, &blen))
			return malformed(in->e);
		*cfa = (struct psym_cfi_rule){ PSYM_CFI_EXPR, 0, 0, blk, blen };
		break;
	}
	return GO_ON;
}

/* remember_state, restore_state (the CFA rule included). */
static int op_state(struct interp *in, uint8_t op)
{
	if (op == CFA_remember_state) {
		if (in->depth == MAX_REMEMBER)
			return psym_err_set(in->e, PSYM_EBADDWARF,
					    "remember_state nested too deep");
		in->stack[in->depth++] = *in->st;
	} else {
		if (in->depth == 0)
			return malformed(in->e);
		*in->st = in->stack[--in->depth];
	}
	return GO_ON;
}

/* One instruction: GO_ON, ROW_DONE, or a negative code with in->e set. */
static int step(struct interp *in, uint8_t op)
{
	uint8_t lo = op & 0x3f;

	switch (op & 0xc0) {
	case CFA_advance_loc: return advance(in, lo);
	case CFA_offset:
		set_rule(in->st, lo, PSYM_CFI_OFFSET, scaled(rd_uleb(&in->c), in->cie->data_align),
			 0, NULL, 0);
		return GO_ON;
	case CFA_restore: restore_rule(in, lo); return GO_ON;
	}
	switch (op) {
	case CFA_nop: return GO_ON;
	case CFA_set_loc:
	case CFA_advance_loc1:
	case CFA_advance_loc2:
	case CFA_advance_loc4: return op_location(in, op);
	case CFA_offset_extended:
	case CFA_offset_extended_sf:
	case CFA_GNU_negative_offset_extended:
	case CFA_val_offset:
	case CFA_val_offset_sf:
	case CFA_restore_extended:
	case CFA_undefined:
	case CFA_same_value:
	case CFA_register:
	case CFA_expression:
	case CFA_val_expression: return op_register_rule(in, op);
	case CFA_def_cfa:
	case CFA_def_cfa_sf:
	case CFA_def_cfa_register:
	case CFA_def_cfa_offset:
	case CFA_def_cfa_offset_sf:
	case CFA_def_cfa_expression: return op_cfa_rule(in, op);
	case CFA_remember_state:
	case CFA_restore_state: return op_state(in, op);
	case CFA_GNU_args_size: rd_uleb(&in->c); return GO_ON;
	/*
	 * Pointer authentication on or off for the return address: the
	 * unwinder strips the bits of every return address anyway
	 * (arch_aarch64.c).
	 */
	case CFA_AARCH64_negate_ra_state: return GO_ON;
	default: return psym_err_set(in->e, PSYM_EBADDWARF, "unknown CFA instruction 0x%02x", op);
	}
}

/*
 * Run instructions [p, end) from location loc until the row for target is
 * complete. init is the state after the CIE's instructions (for restore),
 * NULL while running them.
 */
static int run_program(struct psym_cfi *cfi, const struct sec *s, const struct cie *cie,
		       const uint8_t *p, const uint8_t *end, uint64_t loc, uint64_t target,
		       struct state *st, const struct state *init, size_t *steps,
		       struct psym_err *e)
{
	struct state stack[MAX_REMEMBER];
	struct interp in = { .s = s,
			     .cie = cie,
			     .c = { p, end, true, cfi->swap },
			     .loc = loc,
			     .target = target,
			     .st = st,
			     .init = init,
			     .stack = stack,
			     .e = e };

	while (in.c.p < in.c.end) {
		uint8_t op = rd_u8(&in.c);
		int r;

		if (++*steps > cfi->lim.max_steps)
			return psym_err_set(
				e, PSYM_ELIMIT,
				"CFA program runs more than %zu steps (--limit cfi-steps)",
				cfi->lim.max_steps);
		r = step(&in, op);
		if (r < 0)
			return r;
		if (r == ROW_DONE)
			return 0;
		if (!in.c.ok)
			return malformed(e);
	}
	return 0;
}

/* The initial location of the .eh_frame_hdr table's entry i. */
static uint64_t hdr_start(const struct psym_cfi *cfi, size_t i)
{
	struct cur c = cur_at(cfi->tab + i * 8, 8, 0, cfi->swap);

	return cfi->hdr_addr + (uint64_t)(int64_t)(int32_t)rd_u32(&c);
}

/* The .eh_frame_hdr table: last entry with initial location <= vaddr. */
static bool hdr_lookup(const struct psym_cfi *cfi, uint64_t vaddr, uint64_t *fde_off)
{
	size_t lo = PSYM_LOWER_BOUND(0, cfi->ntab, i, hdr_start(cfi, i) > vaddr);
	uint64_t fde_addr;

	if (lo == 0)
		return false;
	{
		struct cur c = cur_at(cfi->tab + (lo - 1) * 8 + 4, 4, 0, cfi->swap);

		fde_addr = cfi->hdr_addr + (uint64_t)(int64_t)(int32_t)rd_u32(&c);
	}
	if (fde_addr < cfi->eh.addr || fde_addr - cfi->eh.addr >= cfi->eh.len)
		return false;
	*fde_off = fde_addr - cfi->eh.addr;
	return true;
}

static const struct fde_ent *idx_lookup(const struct psym_cfi *cfi, uint64_t vaddr, bool dbg)
{
	size_t lo = PSYM_LOWER_BOUND(0, cfi->nidx, i, cfi->idx[i].start > vaddr);

	/* Nested or overlapping ranges are rare; look back a few entries. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++) {
		if (cfi->idx[i].dbg == dbg && vaddr < cfi->idx[i].end)
			return &cfi->idx[i];
	}
	return NULL;
}

static int row_from_fde(struct psym_cfi *cfi, const struct sec *s, uint64_t off, uint64_t vaddr,
			struct psym_cfi_row *row, struct psym_err *e)
{
	struct cie cie;
	uint64_t start, end;
	const uint8_t *ins, *ins_end;
	struct state init, st;
	size_t steps = 0;
	int r;

	if (!parse_fde(cfi, s, off, &cie, &start, &end, &ins, &ins_end))
		return psym_err_set(e, PSYM_EBADDWARF, "bad FDE at offset 0x%llx of %s",
				    (unsigned long long)off, s->eh ? ".eh_frame" : ".debug_frame");
	if (vaddr < start || vaddr >= end)
		return PSYM_NOENT;
	memset(&init, 0, sizeof(init));
	for (size_t i = 0; i < PSYM_CFI_NREGS; i++)
		init.reg[i].how = PSYM_CFI_UNSET;
	init.cfa.how = PSYM_CFI_UNDEF;
	r = run_program(cfi, s, &cie, cie.ins, cie.ins_end, start, UINT64_MAX, &init, NULL, &steps,
			e);
	if (r < 0)
		goto count;
	st = init;
	r = run_program(cfi, s, &cie, ins, ins_end, start, vaddr, &st, &init, &steps, e);
count:
	cfi->steps += steps;
	if (r < 0)
		return r;
	memset(row, 0, sizeof(*row));
	row->cfa = st.cfa;
	if (cie.ra >= PSYM_CFI_NREGS)
		return psym_err_set(e, PSYM_EUNSUPPORTED, "return address column %llu",
				    (unsigned long long)cie.ra);
	memcpy(row->reg, st.reg, sizeof(row->reg));
	row->signal_frame = cie.signal;
	row->swap = cfi->swap;
	row->debug_frame = !s->eh;
	row->ra = (uint16_t)cie.ra;
	row->fde_start = start;
	row->fde_end = end;
	return 0;
}

static int find_uncached(struct psym_cfi *cfi, uint64_t vaddr, struct psym_cfi_row *row,
			 struct psym_err *e)
{
	const struct fde_ent *f;
	uint64_t off;
	int r;

	if (cfi->tab && hdr_lookup(cfi, vaddr, &off)) {
		r = row_from_fde(cfi, &cfi->eh, off, vaddr, row, e);
		if (r <= 0)
			return r;
	} else if (!cfi->tab && (f = idx_lookup(cfi, vaddr, false))) {
		r = row_from_fde(cfi, &cfi->eh, f->off, vaddr, row, e);
		if (r <= 0)
			return r;
	}
	f = idx_lookup(cfi, vaddr, true);
	if (f)
		return row_from_fde(cfi, &cfi->dbg, f->off, vaddr, row, e);
	return PSYM_NOENT;
}

int psym_cfi_find(struct psym_cfi *cfi, uint64_t vaddr, struct psym_cfi_row *row,
		  struct psym_err *e)
{
	struct memo *m;
	struct psym_err e2 = { 0 };

	if (!cfi->memo)
		cfi->memo = calloc(MEMO_SLOTS, sizeof(*cfi->memo));
	if (!cfi->memo)
		return find_uncached(cfi, vaddr, row, e);
	m = &cfi->memo[(vaddr * 0x9e3779b97f4a7c15ULL) >> 52 & (MEMO_SLOTS - 1)];
	if (!m->used || m->vaddr != vaddr) {
		m->r = find_uncached(cfi, vaddr, &m->row, &e2);
		m->vaddr = vaddr;
		m->used = true;
		snprintf(m->msg, sizeof(m->msg), "%.159s", m->r < 0 ? e2.msg : "");
	}
	if (m->r == 0)
		*row = m->row;
	else if (m->r < 0)
		psym_err_set(e, m->r, "%s", m->msg);
	return m->r;
}

uint64_t psym_cfi_steps(const struct psym_cfi *cfi)
{
	return cfi ? cfi->steps : 0;
}
