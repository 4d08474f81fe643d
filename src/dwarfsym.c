/* SPDX-License-Identifier: MIT */
/*
 * Our own DWARF 2-5 reader for lines and inline frames.
 *
 * Sections come from the opened psym_elf; compressed ones (SHF_COMPRESSED
 * zlib or zstd, legacy .zdebug_) are inflated once by compress.c into a
 * buffer of ours, .debug_info on a second thread. Everything read from the file goes through a cursor
 * that never reads past the end of its section: a bad read sets ok to
 * false and moves the cursor to the end, so loops stop.
 *
 * open() reads only the header and top DIE of each compile unit. A CU is
 * decoded on the first lookup inside it: one pass over its DIEs that keeps
 * subprograms and inlined subroutines with code (and walks only the
 * subtrees that can hold them; the rest is jumped over with DW_AT_sibling
 * or skipped DIE by DIE, in O(1) when the abbreviation is all fixed size),
 * and its line program. Names through abstract_origin/specification are
 * resolved on lookup only, and cached.
 *
 * Where DWARF is ambiguous the answer is llvm-symbolizer's (the tests'
 * oracle): among CUs with overlapping ranges the lowest offset wins, among
 * overlapping sibling inlines the first in DIE order; file names are
 * joined as it joins them (comp_dir / include dir / name).
 */
#include "config.h"

#include <elf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include "compress.h"
#include "dwarfsym.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

#define MAX_FRAMES 256
#define MAX_ORIGIN_HOPS 16
#define DEFAULT_MAX_SECTION ((uint64_t)4 << 30) /* decompressed */
#define MAX_LINE_FILES ((uint64_t)1 << 20)   /* directories or files per line table */
#define NONE UINT32_MAX
#define NOREF UINT64_MAX

/* ---- DWARF constants (DWARF 5 spec, section 7) ------------------------------ */

enum {
	TAG_class_type = 0x02, TAG_lexical_block = 0x0b, TAG_structure_type = 0x13,
	TAG_union_type = 0x17, TAG_inlined_subroutine = 0x1d, TAG_module = 0x1e,
	TAG_catch_block = 0x25, TAG_subprogram = 0x2e, TAG_try_block = 0x32,
	TAG_namespace = 0x39,
};

enum {
	AT_sibling = 0x01, AT_name = 0x03, AT_stmt_list = 0x10, AT_low_pc = 0x11,
	AT_high_pc = 0x12, AT_comp_dir = 0x1b, AT_inline = 0x20, AT_abstract_origin = 0x31,
	AT_decl_line = 0x3b, AT_specification = 0x47, AT_ranges = 0x55,
	AT_call_column = 0x57, AT_call_file = 0x58, AT_call_line = 0x59,
	AT_linkage_name = 0x6e, AT_str_offsets_base = 0x72, AT_addr_base = 0x73,
	AT_rnglists_base = 0x74, AT_MIPS_linkage_name = 0x2007, AT_GNU_addr_base = 0x2133,
};

enum {
	FORM_addr = 0x01, FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05,
	FORM_data4 = 0x06, FORM_data8 = 0x07, FORM_string = 0x08, FORM_block = 0x09,
	FORM_block1 = 0x0a, FORM_data1 = 0x0b, FORM_flag = 0x0c, FORM_sdata = 0x0d,
	FORM_strp = 0x0e, FORM_udata = 0x0f, FORM_ref_addr = 0x10, FORM_ref1 = 0x11,
	FORM_ref2 = 0x12, FORM_ref4 = 0x13, FORM_ref8 = 0x14, FORM_ref_udata = 0x15,
	FORM_indirect = 0x16, FORM_sec_offset = 0x17, FORM_exprloc = 0x18,
	FORM_flag_present = 0x19, FORM_strx = 0x1a, FORM_addrx = 0x1b, FORM_ref_sup4 = 0x1c,
	FORM_strp_sup = 0x1d, FORM_data16 = 0x1e, FORM_line_strp = 0x1f,
	FORM_ref_sig8 = 0x20, FORM_implicit_const = 0x21, FORM_loclistx = 0x22,
	FORM_rnglistx = 0x23, FORM_ref_sup8 = 0x24, FORM_strx1 = 0x25, FORM_strx2 = 0x26,
	FORM_strx3 = 0x27, FORM_strx4 = 0x28, FORM_addrx1 = 0x29, FORM_addrx2 = 0x2a,
	FORM_addrx3 = 0x2b, FORM_addrx4 = 0x2c, FORM_GNU_addr_index = 0x1f01,
	FORM_GNU_str_index = 0x1f02, FORM_GNU_ref_alt = 0x1f20, FORM_GNU_strp_alt = 0x1f21,
};

enum { UT_compile = 1, UT_type = 2, UT_partial = 3, UT_skeleton = 4, UT_split_compile = 5,
       UT_split_type = 6 };

enum { LNCT_path = 1, LNCT_directory_index = 2 };

enum { RLE_end_of_list, RLE_base_addressx, RLE_startx_endx, RLE_startx_length,
       RLE_offset_pair, RLE_base_address, RLE_start_end, RLE_start_length };

/* ---- bounds-checked reading -------------------------------------------------- */

struct cur {
	const uint8_t *p, *end;
	bool ok, swap;
};

static inline struct cur cur_at(const uint8_t *base, size_t len, uint64_t off, bool swap)
{
	static const uint8_t empty[1];
	struct cur c;

	if (!base) { /* an absent section */
		base = empty;
		len = 0;
	}
	c = (struct cur){ base + len, base + len, false, swap };

	if (off <= len) {
		c.p = base + off;
		c.ok = true;
	}
	return c;
}

static inline void cur_fail(struct cur *c)
{
	c->ok = false;
	c->p = c->end;
}

static inline size_t cur_left(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

static inline void skip(struct cur *c, uint64_t n)
{
	if (n > cur_left(c))
		cur_fail(c);
	else
		c->p += n;
}

static inline uint8_t rd_u8(struct cur *c)
{
	if (c->p >= c->end) {
		cur_fail(c);
		return 0;
	}
	return *c->p++;
}

/* Unsigned integer of n (1..8) bytes in the file's byte order. */
static inline uint64_t rd_un(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if (n > cur_left(c) || n == 0 || n > 8) {
		cur_fail(c);
		return 0;
	}
	if (!c->swap) {
		for (unsigned i = n; i-- > 0;)
			v = (v << 8) | c->p[i];
	} else {
		for (unsigned i = 0; i < n; i++)
			v = (v << 8) | c->p[i];
	}
	c->p += n;
	return v;
}

static inline uint16_t rd_u16(struct cur *c)
{
	uint16_t v;

	if (cur_left(c) < 2) {
		cur_fail(c);
		return 0;
	}
	memcpy(&v, c->p, 2);
	c->p += 2;
	return c->swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t rd_u32(struct cur *c)
{
	uint32_t v;

	if (cur_left(c) < 4) {
		cur_fail(c);
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	return c->swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t rd_u64(struct cur *c)
{
	uint64_t v;

	if (cur_left(c) < 8) {
		cur_fail(c);
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return c->swap ? __builtin_bswap64(v) : v;
}

static inline uint64_t rd_off(struct cur *c, unsigned offsz)
{
	return offsz == 8 ? rd_u64(c) : rd_u32(c);
}

static inline uint64_t rd_uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	if (c->p < c->end && *c->p < 0x80)
		return *c->p++;
	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift < 70)
			shift += 7;
	}
	cur_fail(c);
	return 0;
}

static inline int64_t rd_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (shift < 70)
			shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	cur_fail(c);
	return 0;
}

static inline const char *rd_cstr(struct cur *c)
{
	const uint8_t *s = c->p, *z;

	if (c->p >= c->end) {
		cur_fail(c);
		return NULL;
	}
	z = memchr(s, 0, cur_left(c));
	if (!z) {
		cur_fail(c);
		return NULL;
	}
	c->p = z + 1;
	return (const char *)s;
}

/* Unit length: sets *offsz to 4 or 8; 0 with ok false for reserved values. */
static uint64_t rd_unit_length(struct cur *c, unsigned *offsz)
{
	uint64_t len = rd_u32(c);

	*offsz = 4;
	if (len == 0xffffffffu) {
		*offsz = 8;
		len = rd_u64(c);
	} else if (len >= 0xfffffff0u) {
		cur_fail(c);
		return 0;
	}
	return len;
}

/* ---- sections ------------------------------------------------------------------ */

enum sec { S_INFO, S_ABBREV, S_LINE, S_STR, S_LINE_STR, S_STR_OFF, S_ADDR, S_RANGES,
	   S_RNGLISTS, S_N };

static const char *const sec_names[S_N] = {
	"info", "abbrev", "line", "str", "line_str", "str_offsets", "addr", "ranges", "rnglists",
};

struct section {
	const uint8_t *p;
	size_t len;
	uint8_t *owned;       /* inflated copy, or NULL when p is the file's data */
	size_t ownedlen;      /* its mapping's length when mmap'd, else 0 */
	const uint8_t *z;     /* compressed bytes, until inflated */
	size_t zlen;
	uint64_t size;        /* decompressed size */
	int kind;             /* ELFCOMPRESS_* when compressed, 0 otherwise */
	int err;              /* inflate failure */
};

/* ---- abbreviations ------------------------------------------------------------ */

/* How to skip a form: a fixed size (>= 0) or one of these. */
enum { SZ_VAR = -1, SZ_ADDR = -2, SZ_OFF = -3, SZ_REFADDR = -4, SZ_LEB = -5, SZ_STR = -6 };

struct attrspec {
	uint16_t name, form;
	int8_t size;
	int64_t implicit;
};

struct abbrev {
	uint64_t code;
	uint32_t attr0;      /* index of the first attrspec */
	uint16_t nattr;
	uint16_t tag;
	bool children, has_pc;
	int16_t sibling;     /* index of DW_AT_sibling among the attrs, or -1 */
	int32_t fixed;       /* bytes of fixed-size forms, -1 when some form is variable */
	uint8_t naddr, noff, nrefaddr; /* forms sized by address / offset size */
};

struct abtab {
	uint64_t off;
	struct abbrev *list;
	size_t n;
	uint32_t *dense;     /* code -> index + 1, when codes are dense */
	size_t ndense;
	bool sorted;         /* list sorted by code (sparse codes) */
	struct attrspec *attrs;
	size_t nattrs;
};

/* ---- compile units and what is decoded of them ------------------------------ */

struct erange {
	uint64_t lo, hi;
};

/* A subprogram or inlined subroutine that has code. */
struct entry {
	uint64_t origin; /* abstract_origin or specification, NOREF when none */
	const char *name, *linkage;
	uint32_t decl_line;
	uint32_t call_file, call_line, call_column;
	uint32_t parent;
	uint32_t kid_first, kid_count; /* slice of cu->kids */
	uint32_t range_first, range_count;
	bool resolved;
};

/*
 * One range of an inlined subroutine, in its parent's slice sorted by lo;
 * maxhi is the largest hi up to here in the slice, to know when to stop
 * looking back for overlapping siblings.
 */
struct kid {
	uint64_t lo, hi, maxhi;
	uint32_t entry;
};

struct top {
	uint64_t lo, hi;
	uint32_t entry;
};

/* A line-table sequence: rows [start, start + n), addresses [lo, hi). */
struct seq {
	uint64_t lo, hi;
	size_t start, n;
};

struct row {
	uint64_t addr;
	uint32_t line;
	uint16_t file;   /* UINT16_MAX: unknown */
	uint16_t column; /* bit 15: end of sequence */
};

#define ROW_END 0x8000u
#define ROW_COLMASK 0x7fffu

struct cu {
	uint64_t off, end, die_off;
	uint64_t low_pc, str_off_base, addr_base, rng_base, stmt_list;
	const char *comp_dir;
	struct abtab *ab;
	uint16_t version;
	uint8_t addr_size, offsz, unit_type;
	bool has_stmt, has_rng_base, decoded, failed;
	struct entry *entries;
	size_t nentries, capentries;
	struct erange *ranges;
	size_t nranges, capranges;
	struct top *tops;
	size_t ntops;
	struct kid *kids;
	size_t nkids;
	struct row *rows;
	size_t nrows;
	struct seq *seqs; /* sorted by lo */
	size_t nseqs;
	const char **files;
	size_t nfiles;
};

struct curange {
	uint64_t lo, hi, maxhi; /* maxhi: the largest hi up to here */
	uint32_t cu;
};

struct origin {
	uint64_t off; /* 0: empty slot (offset 0 is a unit header, never a DIE) */
	const char *name, *linkage;
	uint32_t decl_line;
};

struct psym_dwarf {
	size_t bad_units; /* .debug_info units whose header could not be read */
	const struct psym_elf *elf; /* borrowed: outlives us */
	const char *path;           /* its path, for messages */
	bool swap;
	struct section sec[S_N];
	struct psym_dwarf_opts o;
	struct cu *cus;
	size_t ncus, capcus, ndecoded;
	struct curange *curanges;
	size_t ncuranges, capcuranges;
	struct abtab **abtabs; /* hash by offset */
	size_t nabtabs, capabtabs;
	uint64_t abbrev_bytes;  /* parsed so far, against overlapping tables */
	struct origin *origins; /* hash: DIE offset -> resolved names */
	size_t norigins, caporigins;
	struct psym_arena strings;
	pthread_mutex_t strings_mu; /* strings and ndecoded, while preparing on threads */
	struct psym_frame frames[MAX_FRAMES];
};

static inline struct cur sec_cur(const struct psym_dwarf *d, enum sec s, uint64_t off)
{
	return cur_at(d->sec[s].p, d->sec[s].len, off, d->swap);
}

/* ---- forms ----------------------------------------------------------------------- */

/* What a unit needs to size and read forms. */
struct unitfmt {
	uint16_t version;
	uint8_t addr_size, offsz;
};

/* Fixed size of a form, -1 when variable; *kind: 0 plain, 1 address, 2 offset, 3 ref_addr. */
static int form_fixed(uint32_t form, int *kind)
{
	*kind = 0;
	switch (form) {
	case FORM_addr:
		*kind = 1;
		return 0;
	case FORM_strp: case FORM_sec_offset: case FORM_line_strp: case FORM_strp_sup:
	case FORM_GNU_ref_alt: case FORM_GNU_strp_alt:
		*kind = 2;
		return 0;
	case FORM_ref_addr:
		*kind = 3;
		return 0;
	case FORM_flag_present: case FORM_implicit_const:
		return 0;
	case FORM_data1: case FORM_flag: case FORM_ref1: case FORM_strx1: case FORM_addrx1:
		return 1;
	case FORM_data2: case FORM_ref2: case FORM_strx2: case FORM_addrx2:
		return 2;
	case FORM_strx3: case FORM_addrx3:
		return 3;
	case FORM_data4: case FORM_ref4: case FORM_ref_sup4: case FORM_strx4: case FORM_addrx4:
		return 4;
	case FORM_data8: case FORM_ref8: case FORM_ref_sig8: case FORM_ref_sup8:
		return 8;
	case FORM_data16:
		return 16;
	default:
		return -1;
	}
}

/* A value read from a form: a number, or a pointer (string, block) with u = length. */
struct fval {
	uint64_t u;
	const uint8_t *p;
	uint32_t form;
};

/* Read one value; false (and c->ok false) on an unknown form or a bad read. */
static bool read_form(struct cur *c, const struct unitfmt *u, uint32_t form, int64_t implicit,
		      struct fval *v)
{
	for (int hops = 0; form == FORM_indirect; hops++) {
		if (hops == 4) {
			cur_fail(c);
			return false;
		}
		form = (uint32_t)rd_uleb(c);
	}
	v->form = form;
	v->p = NULL;
	switch (form) {
	case FORM_addr:
		v->u = rd_un(c, u->addr_size);
		break;
	case FORM_data1: case FORM_flag: case FORM_ref1: case FORM_strx1: case FORM_addrx1:
		v->u = rd_u8(c);
		break;
	case FORM_data2: case FORM_ref2: case FORM_strx2: case FORM_addrx2:
		v->u = rd_u16(c);
		break;
	case FORM_strx3: case FORM_addrx3:
		v->u = rd_un(c, 3);
		break;
	case FORM_data4: case FORM_ref4: case FORM_ref_sup4: case FORM_strx4: case FORM_addrx4:
		v->u = rd_u32(c);
		break;
	case FORM_data8: case FORM_ref8: case FORM_ref_sig8: case FORM_ref_sup8:
		v->u = rd_u64(c);
		break;
	case FORM_data16:
		v->p = c->p;
		v->u = 16;
		skip(c, 16);
		break;
	case FORM_sdata:
		v->u = (uint64_t)rd_sleb(c);
		break;
	case FORM_udata: case FORM_ref_udata: case FORM_strx: case FORM_addrx:
	case FORM_loclistx: case FORM_rnglistx: case FORM_GNU_addr_index: case FORM_GNU_str_index:
		v->u = rd_uleb(c);
		break;
	case FORM_strp: case FORM_sec_offset: case FORM_line_strp: case FORM_strp_sup:
	case FORM_GNU_ref_alt: case FORM_GNU_strp_alt:
		v->u = rd_off(c, u->offsz);
		break;
	case FORM_ref_addr:
		v->u = rd_off(c, u->version <= 2 ? u->addr_size : u->offsz);
		break;
	case FORM_string:
		v->p = (const uint8_t *)rd_cstr(c);
		v->u = 0;
		break;
	case FORM_block1:
		v->u = rd_u8(c);
		goto block;
	case FORM_block2:
		v->u = rd_u16(c);
		goto block;
	case FORM_block4:
		v->u = rd_u32(c);
		goto block;
	case FORM_block: case FORM_exprloc:
		v->u = rd_uleb(c);
block:
		v->p = c->p;
		skip(c, v->u);
		break;
	case FORM_flag_present:
		v->u = 1;
		break;
	case FORM_implicit_const:
		v->u = (uint64_t)implicit;
		break;
	default:
		cur_fail(c);
		return false;
	}
	return c->ok;
}

static bool skip_form(struct cur *c, const struct unitfmt *u, uint32_t form)
{
	struct fval v;
	int kind, n = form_fixed(form, &kind);

	if (n >= 0) {
		if (kind == 1)
			n = u->addr_size;
		else if (kind == 2)
			n = u->offsz;
		else if (kind == 3)
			n = u->version <= 2 ? u->addr_size : u->offsz;
		skip(c, (uint64_t)n);
		return c->ok;
	}
	switch (form) {
	case FORM_sdata: case FORM_udata: case FORM_ref_udata: case FORM_strx: case FORM_addrx:
	case FORM_loclistx: case FORM_rnglistx: case FORM_GNU_addr_index: case FORM_GNU_str_index:
		while (c->p < c->end && (*c->p & 0x80))
			c->p++;
		skip(c, 1);
		return c->ok;
	case FORM_string:
		rd_cstr(c);
		return c->ok;
	default:
		return read_form(c, u, form, 0, &v);
	}
}

static int form_size_class(uint32_t form)
{
	int kind, n = form_fixed(form, &kind);

	if (n >= 0)
		return kind == 1 ? SZ_ADDR : kind == 2 ? SZ_OFF : kind == 3 ? SZ_REFADDR : n;
	switch (form) {
	case FORM_sdata: case FORM_udata: case FORM_ref_udata: case FORM_strx: case FORM_addrx:
	case FORM_loclistx: case FORM_rnglistx: case FORM_GNU_addr_index: case FORM_GNU_str_index:
		return SZ_LEB;
	case FORM_string:
		return SZ_STR;
	default:
		return SZ_VAR;
	}
}

static bool form_is_const(uint32_t f)
{
	return f == FORM_data1 || f == FORM_data2 || f == FORM_data4 || f == FORM_data8 ||
	       f == FORM_udata || f == FORM_sdata || f == FORM_implicit_const;
}

static bool form_is_addrx(uint32_t f)
{
	return f == FORM_addrx || f == FORM_addrx1 || f == FORM_addrx2 || f == FORM_addrx3 ||
	       f == FORM_addrx4 || f == FORM_GNU_addr_index;
}

/* ---- abbreviation tables, parsed once per offset ------------------------------ */

static uint64_t hash_off(uint64_t off)
{
	uint64_t h = off * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 31);
}

static void abtab_free(struct abtab *t)
{
	if (!t)
		return;
	free(t->list);
	free(t->dense);
	free(t->attrs);
	free(t);
}

static int cmp_abbrev(const void *a, const void *b)
{
	const struct abbrev *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static struct abtab *abtab_parse(struct psym_dwarf *d, uint64_t off)
{
	struct cur c = sec_cur(d, S_ABBREV, off);
	const uint8_t *start = c.p;
	struct abtab *t = calloc(1, sizeof(*t));
	size_t cap = 0, capattrs = 0;
	uint64_t maxcode = 0;

	if (!t)
		return NULL;
	t->off = off;
	while (c.ok) {
		struct abbrev a = { 0 };
		uint64_t code = rd_uleb(&c);

		if (code == 0 || !c.ok)
			break;
		a.code = code;
		a.tag = (uint16_t)rd_uleb(&c);
		a.children = rd_u8(&c) != 0;
		a.attr0 = (uint32_t)t->nattrs;
		a.sibling = -1;
		for (;;) {
			uint64_t name = rd_uleb(&c), form = rd_uleb(&c);
			int64_t implicit = 0;
			int kind, n;

			if (!c.ok || (name == 0 && form == 0))
				break;
			if (form == FORM_implicit_const)
				implicit = rd_sleb(&c);
			if (a.nattr == UINT16_MAX || t->nattrs >= UINT32_MAX - 1) {
				cur_fail(&c);
				break;
			}
			if (t->nattrs == capattrs) {
				size_t ncap = capattrs ? capattrs * 2 : 64;
				struct attrspec *na = realloc(t->attrs, ncap * sizeof(*na));

				if (!na)
					goto nomem;
				t->attrs = na;
				capattrs = ncap;
			}
			n = form_fixed((uint32_t)form, &kind);
			t->attrs[t->nattrs++] = (struct attrspec){
				(uint16_t)name, (uint16_t)form, (int8_t)form_size_class((uint32_t)form),
				implicit };
			if (name > UINT16_MAX || form > UINT16_MAX)
				t->attrs[t->nattrs - 1] = (struct attrspec){ 0, UINT16_MAX, SZ_VAR, 0 };
			if (name == AT_sibling && a.sibling < 0 && a.nattr < INT16_MAX)
				a.sibling = (int16_t)a.nattr;
			if (name == AT_low_pc || name == AT_ranges)
				a.has_pc = true;
			if (n < 0 || a.fixed < 0) {
				a.fixed = -1;
			} else {
				a.fixed += n;
				if (kind == 1 && a.naddr < UINT8_MAX)
					a.naddr++;
				else if (kind == 2 && a.noff < UINT8_MAX)
					a.noff++;
				else if (kind == 3 && a.nrefaddr < UINT8_MAX)
					a.nrefaddr++;
				else if (kind)
					a.fixed = -1;
			}
			a.nattr++;
		}
		if (!c.ok)
			break;
		if (t->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct abbrev *nl = realloc(t->list, ncap * sizeof(*nl));

			if (!nl)
				goto nomem;
			t->list = nl;
			cap = ncap;
		}
		t->list[t->n++] = a;
		if (code > maxcode)
			maxcode = code;
	}
	/* Codes are usually 1..n: index them directly; else sort for bsearch. */
	d->abbrev_bytes += (uint64_t)(c.p - start);
	if (t->n && maxcode <= 4 * (uint64_t)t->n + 256) {
		t->ndense = (size_t)maxcode + 1;
		t->dense = calloc(t->ndense, sizeof(*t->dense));
		if (!t->dense)
			goto nomem;
		for (size_t i = 0; i < t->n; i++)
			if (!t->dense[t->list[i].code])
				t->dense[t->list[i].code] = (uint32_t)i + 1;
	} else if (t->n) {
		qsort(t->list, t->n, sizeof(*t->list), cmp_abbrev);
		t->sorted = true;
	}
	return t;
nomem:
	abtab_free(t);
	return NULL;
}

/*
 * The table at off, parsed on first use. NULL when out of memory, or with
 * *over set when the units of a hostile file make us parse the section
 * many times over (tables at offsets inside each other).
 */
static struct abtab *abtab_get(struct psym_dwarf *d, uint64_t off, bool *over)
{
	struct abtab *t;
	size_t j;

	*over = false;
	if (d->capabtabs) {
		for (j = hash_off(off) & (d->capabtabs - 1); d->abtabs[j];
		     j = (j + 1) & (d->capabtabs - 1))
			if (d->abtabs[j]->off == off)
				return d->abtabs[j];
	}
	if ((d->nabtabs + 1) * 2 > d->capabtabs) {
		size_t ncap = d->capabtabs ? d->capabtabs * 2 : 64;
		struct abtab **n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < d->capabtabs; i++) {
			if (!d->abtabs[i])
				continue;
			for (j = hash_off(d->abtabs[i]->off) & (ncap - 1); n[j]; j = (j + 1) & (ncap - 1))
				;
			n[j] = d->abtabs[i];
		}
		free(d->abtabs);
		d->abtabs = n;
		d->capabtabs = ncap;
	}
	if (d->abbrev_bytes > 4 * (uint64_t)d->sec[S_ABBREV].len + ((uint64_t)1 << 20)) {
		*over = true;
		return NULL;
	}
	t = abtab_parse(d, off);
	if (!t)
		return NULL;
	for (j = hash_off(off) & (d->capabtabs - 1); d->abtabs[j]; j = (j + 1) & (d->capabtabs - 1))
		;
	d->abtabs[j] = t;
	d->nabtabs++;
	return t;
}

static inline const struct abbrev *abbrev_find(const struct abtab *t, uint64_t code)
{
	size_t lo = 0, hi = t->n;

	if (t->dense)
		return code < t->ndense && t->dense[code] ? &t->list[t->dense[code] - 1] : NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->list[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->list[lo].code == code ? &t->list[lo] : NULL;
}

/* Skip the attributes of one DIE. */
static inline bool skip_attrs(struct cur *c, const struct unitfmt *u, const struct abtab *t,
			      const struct abbrev *a)
{
	if (a->fixed >= 0) {
		skip(c, (uint64_t)a->fixed + (uint64_t)a->naddr * u->addr_size +
				(uint64_t)a->noff * u->offsz +
				(uint64_t)a->nrefaddr * (u->version <= 2 ? u->addr_size : u->offsz));
		return c->ok;
	}
	for (uint32_t i = 0; i < a->nattr; i++) {
		const struct attrspec *as = &t->attrs[a->attr0 + i];

		switch (as->size) {
		case SZ_LEB:
			while (c->p < c->end && (*c->p & 0x80))
				c->p++;
			skip(c, 1);
			break;
		case SZ_STR:
			rd_cstr(c);
			break;
		case SZ_ADDR:
			skip(c, u->addr_size);
			break;
		case SZ_OFF:
			skip(c, u->offsz);
			break;
		case SZ_VAR: case SZ_REFADDR:
			skip_form(c, u, as->form);
			break;
		default:
			skip(c, (uint64_t)as->size);
			break;
		}
		if (!c->ok)
			return false;
	}
	return true;
}

/* ---- reading a DIE's attributes ------------------------------------------------ */

/* A string attribute as found: resolved once the unit's bases are known. */
struct strval {
	uint32_t form;
	uint64_t u;
	const char *p;
};

struct die {
	uint64_t low_pc, high_pc, ranges, origin, spec, sibling, stmt_list;
	uint64_t str_off_base, addr_base, rng_base;
	uint32_t low_form, high_form, ranges_form;
	struct strval name, linkage, comp_dir;
	int64_t decl_line, call_file, call_line, call_column;
	bool has_low, has_high, has_ranges, has_stmt, has_str_off_base, has_addr_base,
		has_rng_base;
};

static const char *sec_str(const struct psym_dwarf *d, enum sec s, uint64_t off)
{
	const struct section *sc = &d->sec[s];

	if (off >= sc->len || !memchr(sc->p + off, 0, sc->len - off))
		return NULL;
	return (const char *)sc->p + off;
}

static const char *resolve_str(const struct psym_dwarf *d, const struct cu *u,
			       const struct strval *v)
{
	switch (v->form) {
	case 0:
		return NULL;
	case FORM_string:
		return v->p;
	case FORM_strp:
		return sec_str(d, S_STR, v->u);
	case FORM_line_strp:
		return sec_str(d, S_LINE_STR, v->u);
	case FORM_strx: case FORM_strx1: case FORM_strx2: case FORM_strx3: case FORM_strx4:
	case FORM_GNU_str_index: {
		struct cur c;
		uint64_t off;

		if (v->u > (UINT64_MAX - u->str_off_base) / u->offsz)
			return NULL;
		c = sec_cur(d, S_STR_OFF, u->str_off_base + v->u * u->offsz);
		off = rd_off(&c, u->offsz);
		return c.ok ? sec_str(d, S_STR, off) : NULL;
	}
	default:
		return NULL; /* supplementary / alternate files are not read */
	}
}

static bool read_addrx(const struct psym_dwarf *d, const struct cu *u, uint64_t idx,
		       uint64_t *out)
{
	struct cur c;

	if (idx > (UINT64_MAX - u->addr_base) / u->addr_size)
		return false;
	c = sec_cur(d, S_ADDR, u->addr_base + idx * u->addr_size);
	*out = rd_un(&c, u->addr_size);
	return c.ok;
}

static inline uint64_t ref_abs(const struct cu *u, const struct fval *v, bool *ok)
{
	switch (v->form) {
	case FORM_ref1: case FORM_ref2: case FORM_ref4: case FORM_ref8: case FORM_ref_udata:
		*ok = v->u < u->end - u->off;
		return u->off + v->u;
	case FORM_ref_addr:
		*ok = true;
		return v->u;
	default:
		*ok = false; /* ref_sig8, alternate files: not resolvable here */
		return 0;
	}
}

static inline void set_str(struct strval *s, const struct fval *v)
{
	s->form = v->form;
	s->u = v->u;
	s->p = (const char *)v->p;
}

static inline bool const_val(const struct fval *v, int64_t *out)
{
	if (!form_is_const(v->form))
		return false;
	if (v->form == FORM_sdata || v->form == FORM_implicit_const) {
		if ((int64_t)v->u < 0)
			return false;
	}
	*out = (int64_t)v->u;
	return true;
}

/* Read all attributes of a DIE at c (after its code) into *x. */
static bool read_die(struct cur *c, const struct cu *u, const struct abbrev *a, struct die *x)
{
	const struct unitfmt uf = { u->version, u->addr_size, u->offsz };
	const struct attrspec *as = a->nattr ? &u->ab->attrs[a->attr0] : NULL;
	bool ok;

	memset(x, 0, sizeof(*x));
	x->origin = x->spec = x->sibling = NOREF;
	for (uint32_t i = 0; i < a->nattr; i++) {
		struct fval v;

		if (!read_form(c, &uf, as[i].form, as[i].implicit, &v))
			return false;
		switch (as[i].name) {
		case AT_low_pc:
			x->low_pc = v.u;
			x->low_form = v.form;
			x->has_low = v.form == FORM_addr || form_is_addrx(v.form);
			break;
		case AT_high_pc:
			x->high_pc = v.u;
			x->high_form = v.form;
			x->has_high = v.form == FORM_addr || form_is_addrx(v.form) ||
				      form_is_const(v.form);
			break;
		case AT_ranges:
			x->ranges = v.u;
			x->ranges_form = v.form;
			x->has_ranges = v.form == FORM_sec_offset || v.form == FORM_rnglistx ||
					v.form == FORM_data4 || v.form == FORM_data8;
			break;
		case AT_name:
			set_str(&x->name, &v);
			break;
		case AT_linkage_name:
			set_str(&x->linkage, &v);
			break;
		case AT_MIPS_linkage_name:
			if (!x->linkage.form)
				set_str(&x->linkage, &v);
			break;
		case AT_comp_dir:
			set_str(&x->comp_dir, &v);
			break;
		case AT_abstract_origin:
			x->origin = ref_abs(u, &v, &ok);
			if (!ok)
				x->origin = NOREF;
			break;
		case AT_specification:
			x->spec = ref_abs(u, &v, &ok);
			if (!ok)
				x->spec = NOREF;
			break;
		case AT_sibling:
			x->sibling = ref_abs(u, &v, &ok);
			if (!ok)
				x->sibling = NOREF;
			break;
		case AT_decl_line:
			const_val(&v, &x->decl_line);
			break;
		case AT_call_file:
			const_val(&v, &x->call_file);
			break;
		case AT_call_line:
			const_val(&v, &x->call_line);
			break;
		case AT_call_column:
			const_val(&v, &x->call_column);
			break;
		case AT_stmt_list:
			x->stmt_list = v.u;
			x->has_stmt = v.form == FORM_sec_offset || v.form == FORM_data4 ||
				      v.form == FORM_data8;
			break;
		case AT_str_offsets_base:
			x->str_off_base = v.u;
			x->has_str_off_base = true;
			break;
		case AT_addr_base: case AT_GNU_addr_base:
			x->addr_base = v.u;
			x->has_addr_base = true;
			break;
		case AT_rnglists_base:
			x->rng_base = v.u;
			x->has_rng_base = true;
			break;
		default:
			break;
		}
	}
	return true;
}

/* ---- address ranges --------------------------------------------------------------- */

struct rangebuf {
	struct erange *r;
	size_t n, cap;
};

static int push_range(struct rangebuf *b, uint64_t lo, uint64_t hi)
{
	if (!(hi > lo && lo != 0))
		return 0;
	if (b->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;
		struct erange *n;

		if (ncap > UINT32_MAX)
			return -1;
		n = realloc(b->r, ncap * sizeof(*n));
		if (!n)
			return -1;
		b->r = n;
		b->cap = ncap;
	}
	b->r[b->n++] = (struct erange){ lo, hi };
	return 1;
}

/*
 * Append the ranges of a DIE: low_pc/high_pc, or DW_AT_ranges (DWARF 2-4
 * .debug_ranges from base `base`, DWARF 5 .debug_rnglists). Returns the
 * number appended, or -1 when out of memory.
 */
static int die_ranges(const struct psym_dwarf *d, const struct cu *u, const struct die *x,
		      uint64_t base, struct rangebuf *b)
{
	int n = 0, r;

	if (x->has_low && x->has_high) {
		uint64_t lo = x->low_pc, hi = x->high_pc;

		if (form_is_addrx(x->low_form) && !read_addrx(d, u, lo, &lo))
			return 0;
		if (form_is_addrx(x->high_form)) {
			if (!read_addrx(d, u, hi, &hi))
				return 0;
		} else if (form_is_const(x->high_form)) {
			hi = lo + hi;
		}
		return push_range(b, lo, hi);
	}
	if (!x->has_ranges)
		return 0;
	if (u->version >= 5 || x->ranges_form == FORM_rnglistx) {
		uint64_t off = x->ranges;
		struct cur c;

		if (x->ranges_form == FORM_rnglistx) {
			uint64_t rbase = u->has_rng_base ? u->rng_base : 0;

			if (off > (UINT64_MAX - rbase) / u->offsz)
				return 0;
			c = sec_cur(d, S_RNGLISTS, rbase + off * u->offsz);
			off = rd_off(&c, u->offsz);
			if (!c.ok || off > UINT64_MAX - rbase)
				return 0;
			off += rbase;
		}
		c = sec_cur(d, S_RNGLISTS, off);
		for (size_t k = 0; c.ok; k++) {
			uint8_t kind = rd_u8(&c);
			uint64_t a1, a2;

			if (!c.ok || kind == RLE_end_of_list)
				break;
			switch (kind) {
			case RLE_base_addressx:
				if (!read_addrx(d, u, rd_uleb(&c), &base))
					return n;
				continue;
			case RLE_startx_endx:
				a1 = rd_uleb(&c);
				a2 = rd_uleb(&c);
				if (!c.ok || !read_addrx(d, u, a1, &a1) || !read_addrx(d, u, a2, &a2))
					return n;
				break;
			case RLE_startx_length:
				a1 = rd_uleb(&c);
				a2 = rd_uleb(&c);
				if (!c.ok || !read_addrx(d, u, a1, &a1))
					return n;
				a2 += a1;
				break;
			case RLE_offset_pair:
				a1 = base + rd_uleb(&c);
				a2 = base + rd_uleb(&c);
				break;
			case RLE_base_address:
				base = rd_un(&c, u->addr_size);
				continue;
			case RLE_start_end:
				a1 = rd_un(&c, u->addr_size);
				a2 = rd_un(&c, u->addr_size);
				break;
			case RLE_start_length:
				a1 = rd_un(&c, u->addr_size);
				a2 = a1 + rd_uleb(&c);
				break;
			default:
				return n;
			}
			if (!c.ok)
				break;
			r = push_range(b, a1, a2);
			if (r < 0)
				return -1;
			n += r;
		}
		return n;
	}
	{
		struct cur c = sec_cur(d, S_RANGES, x->ranges);
		uint64_t maxaddr = u->addr_size == 8 ? UINT64_MAX
						     : ((uint64_t)1 << (8 * u->addr_size)) - 1;

		while (c.ok) {
			uint64_t a1 = rd_un(&c, u->addr_size), a2 = rd_un(&c, u->addr_size);

			if (!c.ok || (a1 == 0 && a2 == 0))
				break;
			if (a1 == maxaddr) {
				base = a2;
				continue;
			}
			r = push_range(b, a1 + base, a2 + base);
			if (r < 0)
				return -1;
			n += r;
		}
	}
	return n;
}

/* ---- open: sections, CU table ---------------------------------------------------- */

#define HUGE_BUF ((size_t)8 << 20)

/*
 * Memory for an inflated section. Big ones are mapped and asked for
 * transparent huge pages: faulting in 250 MB page by page costs more than
 * the zeroing itself.
 */
static uint8_t *section_alloc(struct section *s)
{
	size_t len = s->size ? (size_t)s->size : 1;
	void *p;

	if (len < HUGE_BUF)
		return malloc(len);
	len = (len + HUGE_BUF - 1) & ~(HUGE_BUF - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	s->ownedlen = len;
	return p;
}

static void section_free(struct section *s)
{
	if (s->ownedlen)
		munmap(s->owned, s->ownedlen);
	else
		free(s->owned);
	s->owned = NULL;
	s->ownedlen = 0;
}

static int inflate_section(struct section *s)
{
	uint8_t *out;
	size_t got = 0;
	int r;

	if (s->size > SIZE_MAX)
		return PSYM_ELIMIT;
	out = s->owned ? s->owned : section_alloc(s);
	if (!out)
		return PSYM_ENOMEM;
	s->owned = out;
	r = psym_decompress_into(s->kind == ELFCOMPRESS_ZLIB ? PSYM_ZLIB : PSYM_ZSTD, s->z, s->zlen,
				 out, (size_t)s->size, &got);
	if (r) {
		section_free(s);
		return r == PSYM_ENOMEM ? r : PSYM_EBADDWARF;
	}
	s->len = got;
	s->p = out;
	return 0;
}

static void *inflate_thread(void *arg)
{
	struct section *s = arg;

	s->err = inflate_section(s);
	return NULL;
}

/* Take a compressed section's header: SHF_COMPRESSED Chdr or .zdebug_ "ZLIB" + size. */
static int section_setup(struct psym_dwarf *d, struct section *s, const uint8_t *p, size_t len,
			 bool shf_compressed, bool zdebug, bool elf64)
{
	struct cur c = cur_at(p, len, 0, d->swap);

	s->p = p;
	s->len = len;
	if (shf_compressed) {
		uint32_t type = rd_u32(&c);

		if (elf64) {
			rd_u32(&c);
			s->size = rd_u64(&c);
			rd_u64(&c);
		} else {
			s->size = rd_u32(&c);
			rd_u32(&c);
		}
		if (!c.ok || (type != ELFCOMPRESS_ZLIB && type != ELFCOMPRESS_ZSTD))
			return PSYM_EBADDWARF;
		s->kind = (int)type;
	} else if (zdebug) {
		if (len < 12 || memcmp(p, "ZLIB", 4) != 0)
			return PSYM_EBADDWARF;
		s->size = 0;
		for (int i = 0; i < 8; i++)
			s->size = (s->size << 8) | p[4 + i];
		c.p += 12;
		s->kind = ELFCOMPRESS_ZLIB;
	} else {
		return 0;
	}
	s->z = c.p;
	s->zlen = cur_left(&c);
	/*
	 * Deflate expands at most 1032 times; zstd more in theory, not on
	 * DWARF. A larger claim is a lie that would cost memory.
	 */
	if (s->size / 1032 > s->zlen + 1024)
		return PSYM_EBADDWARF;
	s->p = NULL;
	s->len = 0;
	return 0;
}

/*
 * Refuse, before allocating anything, sections whose headers claim more
 * than the caps once decompressed: one section (--limit
 * dwarf-section-bytes) and all of them together (--max-memory).
 */
static int check_sizes(const struct psym_dwarf *d, struct psym_err *e)
{
	uint64_t total = 0;

	for (int i = 0; i < S_N; i++) {
		const struct section *s = &d->sec[i];

		if (!s->z)
			continue;
		if (s->size > d->o.max_section || s->size > SIZE_MAX)
			return psym_err_set(e, PSYM_ELIMIT,
					    "'%s': .debug_%s decompresses to %llu bytes, over the limit "
					    "of %llu (--limit dwarf-section-bytes=N)", d->path,
					    sec_names[i], (unsigned long long)s->size,
					    (unsigned long long)d->o.max_section);
		total = total > UINT64_MAX - s->size ? UINT64_MAX : total + s->size;
	}
	if (d->o.max_memory && total > d->o.max_memory)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': DWARF sections decompress to %llu bytes, over the memory "
				    "cap of %llu (--max-memory)", d->path, (unsigned long long)total,
				    (unsigned long long)d->o.max_memory);
	return 0;
}

static int load_sections(struct psym_dwarf *d, struct psym_err *e)
{
	size_t nsec = psym_elf_nsections(d->elf);
	pthread_t th;
	bool threaded = false;
	uint8_t *info_buf = NULL;
	size_t info_len = 0;
	int ret = 0;

	d->swap = psym_elf_is_msb(d->elf) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	for (size_t k = 1; k < nsec; k++) {
		struct psym_elf_scn sc;
		const char *name;
		bool zdebug;
		int r;

		if (psym_elf_scn(d->elf, k, &sc) != 0)
			continue;
		name = sc.name;
		if (strncmp(name, ".debug_", 7) == 0) {
			name += 7;
			zdebug = false;
		} else if (strncmp(name, ".zdebug_", 8) == 0) {
			name += 8;
			zdebug = true;
		} else {
			continue;
		}
		for (int i = 0; i < S_N; i++) {
			if (strcmp(name, sec_names[i]) != 0 || d->sec[i].p || d->sec[i].z)
				continue;
			r = section_setup(d, &d->sec[i], sc.data, sc.len, sc.compressed, zdebug,
					  psym_elf_is_64(d->elf));
			if (r)
				return psym_err_set(e, r, "'%s': bad compressed section %s%s",
						    d->path, zdebug ? ".zdebug_" : ".debug_", name);
			break;
		}
	}
	if (!d->sec[S_INFO].p && !d->sec[S_INFO].z)
		return PSYM_NOENT;
	ret = check_sizes(d, e);
	if (ret)
		return ret;
	/* The biggest section inflates on a second thread while we do the rest. */
	if (d->sec[S_INFO].z) {
		d->sec[S_INFO].owned = section_alloc(&d->sec[S_INFO]);
		/* The other thread owns the section until joined: keep what we need. */
		info_buf = d->sec[S_INFO].owned;
		info_len = d->sec[S_INFO].ownedlen;
		if (info_buf && pthread_create(&th, NULL, inflate_thread, &d->sec[S_INFO]) == 0)
			threaded = true;
	}
	for (int i = 0; i < S_N; i++) {
		if (!d->sec[i].z || (i == S_INFO && threaded))
			continue;
		d->sec[i].err = inflate_section(&d->sec[i]);
	}
#ifdef MADV_POPULATE_WRITE
	/*
	 * Then fault in (the kernel zeroes) the pages of .debug_info from the
	 * end down, while the other thread inflates into them from the start:
	 * zeroing 250 MB costs about a third of the inflating. Contents are
	 * not touched; where the inflater got first this is a no-op.
	 */
	if (threaded && info_len) {
		for (size_t end = info_len; end > HUGE_BUF; end -= HUGE_BUF)
			if (madvise(info_buf + end - HUGE_BUF, HUGE_BUF, MADV_POPULATE_WRITE) != 0)
				break;
	}
#endif
	if (threaded)
		pthread_join(th, NULL);
	/*
	 * The compressed bytes are not read again: give their pages back (the
	 * file's read-only private mapping refetches them if ever touched).
	 */
	for (int i = 0; i < S_N; i++) {
		long pg = sysconf(_SC_PAGESIZE);
		uintptr_t lo, hi;

		if (!d->sec[i].z)
			continue;
		if (pg <= 0 || !psym_elf_is_mapped(d->elf)) {
			d->sec[i].z = NULL;
			continue;
		}
		lo = ((uintptr_t)d->sec[i].z + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
		hi = ((uintptr_t)d->sec[i].z + d->sec[i].zlen) & ~((uintptr_t)pg - 1);
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
		d->sec[i].z = NULL;
	}
	for (int i = 0; i < S_N; i++) {
		if (!d->sec[i].err)
			continue;
		ret = psym_err_set(e, d->sec[i].err, "'%s': cannot decompress .debug_%s%s",
				   d->path, sec_names[i],
				   d->sec[i].err == PSYM_ELIMIT ? ": too large" : "");
		break;
	}
	return ret;
}

static int add_cu(struct psym_dwarf *d, struct psym_err *e)
{
	if (d->ncus == d->capcus) {
		size_t ncap = d->capcus ? d->capcus * 2 : 64;
		struct cu *n = realloc(d->cus, ncap * sizeof(*n));

		if (!n)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		d->cus = n;
		d->capcus = ncap;
	}
	memset(&d->cus[d->ncus], 0, sizeof(d->cus[0]));
	return 0;
}

static int cmp_curange(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static int index_cus(struct psym_dwarf *d, struct psym_err *e)
{
	struct rangebuf rb = { 0 };
	uint64_t off = 0;
	size_t len = d->sec[S_INFO].len;
	int ret = 0;

	while (off < len) {
		struct cur c = sec_cur(d, S_INFO, off);
		unsigned offsz;
		uint64_t ulen = rd_unit_length(&c, &offsz), next, abbrev_off;
		struct cu *u;
		const struct abbrev *a;
		struct die x;
		uint8_t ut = UT_compile;
		bool over;

		if (!c.ok || ulen > cur_left(&c)) {
			d->bad_units++;
			break; /* a truncated or corrupt tail: keep what came before */
		}
		next = (uint64_t)(c.p - d->sec[S_INFO].p) + ulen;
		c.end = c.p + ulen;
		ret = add_cu(d, e);
		if (ret)
			goto out;
		u = &d->cus[d->ncus];
		u->off = off;
		u->end = next;
		u->offsz = (uint8_t)offsz;
		u->version = rd_u16(&c);
		off = next;
		if (u->version < 2 || u->version > 5) {
			d->bad_units++;
			continue;
		}
		if (u->version >= 5) {
			ut = rd_u8(&c);
			u->addr_size = rd_u8(&c);
			abbrev_off = rd_off(&c, offsz);
			if (ut == UT_skeleton || ut == UT_split_compile)
				rd_u64(&c);
			else if (ut == UT_type || ut == UT_split_type)
				continue;
		} else {
			abbrev_off = rd_off(&c, offsz);
			u->addr_size = rd_u8(&c);
		}
		if (!c.ok || (u->addr_size != 4 && u->addr_size != 8 && u->addr_size != 2 &&
			      u->addr_size != 1)) {
			d->bad_units++;
			continue;
		}
		u->unit_type = ut;
		u->die_off = (uint64_t)(c.p - d->sec[S_INFO].p);
		u->ab = abtab_get(d, abbrev_off, &over);
		if (!u->ab && over) {
			d->bad_units++;
			continue; /* this unit is left out */
		}
		if (!u->ab) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
		a = abbrev_find(u->ab, rd_uleb(&c));
		if (!c.ok || !a || !read_die(&c, u, a, &x)) {
			d->bad_units++;
			continue;
		}
		u->str_off_base = x.has_str_off_base ? x.str_off_base : 8;
		u->addr_base = x.addr_base;
		u->rng_base = x.rng_base;
		u->has_rng_base = x.has_rng_base;
		u->stmt_list = x.stmt_list;
		u->has_stmt = x.has_stmt;
		u->comp_dir = resolve_str(d, u, &x.comp_dir);
		if (x.has_low) {
			u->low_pc = x.low_pc;
			if (form_is_addrx(x.low_form) && !read_addrx(d, u, x.low_pc, &u->low_pc))
				u->low_pc = 0;
		}
		rb.n = 0;
		if (die_ranges(d, u, &x, u->low_pc, &rb) < 0) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < rb.n; i++) {
			if (d->ncuranges == d->capcuranges) {
				size_t ncap = d->capcuranges ? d->capcuranges * 2 : 256;
				struct curange *n = realloc(d->curanges, ncap * sizeof(*n));

				if (!n) {
					ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
					goto out;
				}
				d->curanges = n;
				d->capcuranges = ncap;
			}
			d->curanges[d->ncuranges++] =
				(struct curange){ rb.r[i].lo, rb.r[i].hi, 0, (uint32_t)d->ncus };
		}
		d->ncus++;
		if (d->ncus >= UINT32_MAX - 1) {
			ret = psym_err_set(e, PSYM_ELIMIT, "'%s': too many compile units", d->path);
			goto out;
		}
	}
	if (d->ncuranges)
		qsort(d->curanges, d->ncuranges, sizeof(*d->curanges), cmp_curange);
	for (size_t i = 0; i < d->ncuranges; i++) {
		uint64_t prev = i ? d->curanges[i - 1].maxhi : 0;

		d->curanges[i].maxhi = d->curanges[i].hi > prev ? d->curanges[i].hi : prev;
	}
out:
	free(rb.r);
	return ret;
}

int psym_dwarf_open(const struct psym_elf *elf, const struct psym_dwarf_opts *o,
		    struct psym_dwarf **out, struct psym_err *e)
{
	struct psym_dwarf *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	d->elf = elf;
	d->path = psym_elf_path(elf);
	d->o.inlines = o ? o->inlines : true;
	d->o.max_depth = o && o->max_depth ? o->max_depth : 512;
	d->o.max_entries = o && o->max_entries ? o->max_entries : (size_t)16 << 20;
	d->o.max_rows = o && o->max_rows ? o->max_rows : (size_t)64 << 20;
	d->o.max_section = o && o->max_section ? o->max_section : DEFAULT_MAX_SECTION;
	d->o.max_memory = o ? o->max_memory : 0;
	d->o.threads = o ? o->threads : 0;
	if (d->o.threads == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		d->o.threads = cpus > 0 ? (unsigned)cpus : 1;
	}
	if (d->o.threads > 8)
		d->o.threads = 8;
	if (d->o.max_depth > 1 << 20)
		d->o.max_depth = 1 << 20;
	if (d->o.max_entries > UINT32_MAX - 1)
		d->o.max_entries = UINT32_MAX - 1;
	if (d->o.max_rows > UINT32_MAX - 1)
		d->o.max_rows = UINT32_MAX - 1;
	psym_arena_init(&d->strings, (size_t)4 << 30);
	pthread_mutex_init(&d->strings_mu, NULL);
	ret = load_sections(d, e);
	if (ret)
		goto fail;
	ret = index_cus(d, e);
	if (ret)
		goto fail;
	if (d->ncuranges == 0) {
		/* Units there but none readable: corrupt, not "no DWARF". */
		ret = d->bad_units ? psym_err_set(e, PSYM_EBADDWARF,
						  "'%s': corrupt DWARF: %zu unreadable unit headers "
						  "in .debug_info", d->path, d->bad_units) :
				     PSYM_NOENT;
		goto fail;
	}
	*out = d;
	return 0;
fail:
	psym_dwarf_close(d);
	return ret;
}

static void cu_free(struct cu *c)
{
	free(c->entries);
	free(c->ranges);
	free(c->tops);
	free(c->kids);
	free(c->rows);
	free(c->seqs);
	free(c->files);
}

void psym_dwarf_close(struct psym_dwarf *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ncus; i++)
		cu_free(&d->cus[i]);
	free(d->cus);
	free(d->curanges);
	free(d->origins);
	for (size_t i = 0; i < d->capabtabs; i++)
		abtab_free(d->abtabs[i]);
	free(d->abtabs);
	for (int i = 0; i < S_N; i++)
		section_free(&d->sec[i]);
	psym_arena_free(&d->strings);
	pthread_mutex_destroy(&d->strings_mu);
	free(d);
}

size_t psym_dwarf_ncus(const struct psym_dwarf *d)
{
	return d->ncus;
}

size_t psym_dwarf_ncus_decoded(const struct psym_dwarf *d)
{
	return d->ndecoded;
}

/* ---- names through abstract_origin / specification, cached ------------------ */

static struct cu *cu_of_offset(struct psym_dwarf *d, uint64_t off)
{
	size_t lo = 0, hi = d->ncus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cus[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	{
		struct cu *u = &d->cus[lo - 1];

		return off >= u->die_off && off < u->end && u->ab ? u : NULL;
	}
}

/* Read the DIE at a .debug_info offset. */
static bool die_at(struct psym_dwarf *d, uint64_t off, struct cu **up, struct die *x)
{
	struct cu *u = cu_of_offset(d, off);
	const struct abbrev *a;
	struct cur c;

	if (!u)
		return false;
	c = sec_cur(d, S_INFO, off);
	c.end = d->sec[S_INFO].p + u->end;
	a = abbrev_find(u->ab, rd_uleb(&c));
	if (!c.ok || !a || !read_die(&c, u, a, x))
		return false;
	*up = u;
	return true;
}

static struct origin *origin_find(struct psym_dwarf *d, uint64_t off)
{
	if (!d->caporigins)
		return NULL;
	for (size_t i = hash_off(off) & (d->caporigins - 1); d->origins[i].off;
	     i = (i + 1) & (d->caporigins - 1))
		if (d->origins[i].off == off)
			return &d->origins[i];
	return NULL;
}

static void origin_put(struct psym_dwarf *d, const struct origin *o)
{
	size_t j;

	if ((d->norigins + 1) * 2 > d->caporigins) {
		size_t ncap = d->caporigins ? d->caporigins * 2 : 4096;
		struct origin *n = calloc(ncap, sizeof(*n));

		if (!n)
			return; /* the cache is an optimization only */
		for (size_t i = 0; i < d->caporigins; i++) {
			if (!d->origins[i].off)
				continue;
			for (j = hash_off(d->origins[i].off) & (ncap - 1); n[j].off;
			     j = (j + 1) & (ncap - 1))
				;
			n[j] = d->origins[i];
		}
		free(d->origins);
		d->origins = n;
		d->caporigins = ncap;
	}
	for (j = hash_off(o->off) & (d->caporigins - 1); d->origins[j].off;
	     j = (j + 1) & (d->caporigins - 1))
		;
	d->origins[j] = *o;
	d->norigins++;
}

static inline bool names_done(const struct origin *r)
{
	return r->name && r->linkage && r->decl_line;
}

static inline void names_merge(struct origin *r, const struct origin *from)
{
	if (!r->name)
		r->name = from->name;
	if (!r->linkage)
		r->linkage = from->linkage;
	if (!r->decl_line)
		r->decl_line = from->decl_line;
}

/*
 * Names and decl_line of the DIE at off and what it refers to through
 * abstract_origin / specification: the first of each along the chain.
 * Bounded hops; the result for off is cached.
 */
static struct origin resolve_origin(struct psym_dwarf *d, uint64_t off)
{
	struct origin r = { .off = off }, *cached = origin_find(d, off);
	uint64_t cur = off;

	if (cached)
		return *cached;
	for (int hop = 0; hop < MAX_ORIGIN_HOPS && !names_done(&r); hop++) {
		struct cu *u;
		struct die x;
		struct origin here = { 0 };

		if (hop > 0 && (cached = origin_find(d, cur)) != NULL) {
			names_merge(&r, cached);
			break;
		}
		if (!die_at(d, cur, &u, &x))
			break;
		here.name = resolve_str(d, u, &x.name);
		here.linkage = resolve_str(d, u, &x.linkage);
		here.decl_line = x.decl_line > 0 && x.decl_line <= UINT32_MAX ? (uint32_t)x.decl_line
									      : 0;
		names_merge(&r, &here);
		cur = x.origin != NOREF ? x.origin : x.spec;
		if (cur == NOREF)
			break;
	}
	r.off = off;
	if (off)
		origin_put(d, &r);
	return r;
}

static void entry_names(struct psym_dwarf *d, struct entry *en)
{
	struct origin r = { .name = en->name, .linkage = en->linkage,
			    .decl_line = en->decl_line };

	en->resolved = true;
	if (names_done(&r) || en->origin == NOREF)
		return;
	{
		struct origin o = resolve_origin(d, en->origin);

		names_merge(&r, &o);
	}
	en->name = r.name;
	en->linkage = r.linkage;
	en->decl_line = r.decl_line;
}

/* ---- the line program ------------------------------------------------------------- */

/* Join like llvm-symbolizer: absolute names stay, relative dirs go under comp_dir. */
static const char *join_path(struct psym_dwarf *d, const char *comp_dir, const char *dir,
			     const char *name)
{
	char *out;
	size_t cl, dl, nl;

	if (!name)
		return NULL;
	if (name[0] == '/')
		return name;
	if (!dir)
		dir = "";
	if (dir[0] == '/' || !comp_dir)
		comp_dir = "";
	cl = strlen(comp_dir);
	dl = strlen(dir);
	nl = strlen(name);
	pthread_mutex_lock(&d->strings_mu);
	out = psym_arena_alloc(&d->strings, cl + dl + nl + 3);
	pthread_mutex_unlock(&d->strings_mu);
	if (!out)
		return NULL;
	{
		char *p = out;

		memcpy(p, comp_dir, cl);
		p += cl;
		if (dl) {
			if (p > out && p[-1] != '/')
				*p++ = '/';
			memcpy(p, dir, dl);
			p += dl;
		}
		if (p > out && p[-1] != '/')
			*p++ = '/';
		memcpy(p, name, nl + 1);
	}
	return out;
}

/* One v5 directory or file entry: path and directory index. */
static bool read_entry_v5(struct psym_dwarf *d, struct cu *u, struct cur *c,
			  const struct unitfmt *uf, const uint64_t *fmt, size_t nfmt,
			  const char **path, uint64_t *dir)
{
	*path = NULL;
	*dir = 0;
	for (size_t k = 0; k < nfmt; k++) {
		struct fval v;
		struct strval s;

		if (!read_form(c, uf, (uint32_t)fmt[2 * k + 1], 0, &v))
			return false;
		if (fmt[2 * k] == LNCT_path) {
			set_str(&s, &v);
			*path = resolve_str(d, u, &s);
		} else if (fmt[2 * k] == LNCT_directory_index && form_is_const(v.form)) {
			*dir = v.u;
		}
	}
	return true;
}

struct linestate {
	struct psym_dwarf *d;
	struct cu *u;
	struct row *rows;
	size_t n, cap;
	struct seq *seqs;
	size_t nseqs, capseqs;
	size_t seqstart;
	bool sorted; /* rows of the current sequence in address order so far */
	int err;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* An end of sequence sorts before a row starting at the same address. */
	return (int)(y->column & ROW_END) - (int)(x->column & ROW_END);
}

static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void end_seq(struct linestate *s)
{
	struct seq q = { .start = s->seqstart, .n = s->n - s->seqstart };

	if (q.n >= 2 && !s->sorted)
		qsort(s->rows + q.start, q.n, sizeof(*s->rows), cmp_row);
	s->sorted = true;
	if (q.n < 2 || s->rows[q.start].addr == s->rows[q.start + q.n - 1].addr) {
		s->n = q.start; /* covers nothing: dropped */
		s->seqstart = s->n;
		return;
	}
	s->seqstart = s->n;
	q.lo = s->rows[q.start].addr;
	q.hi = s->rows[q.start + q.n - 1].addr;
	if (!(s->rows[q.start + q.n - 1].column & ROW_END) && q.hi < UINT64_MAX)
		q.hi++; /* unterminated: its last row covers its own address */
	if (s->nseqs == s->capseqs) {
		size_t ncap = s->capseqs ? s->capseqs * 2 : 64;
		struct seq *n = realloc(s->seqs, ncap * sizeof(*n));

		if (!n) {
			s->err = PSYM_ENOMEM;
			return;
		}
		s->seqs = n;
		s->capseqs = ncap;
	}
	s->seqs[s->nseqs++] = q;
}

static inline void emit_row(struct linestate *s, uint64_t addr, uint64_t line, uint64_t col,
			    uint64_t file, bool end)
{
	struct row *r;

	if (s->err)
		return;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024;
		struct row *n;

		if (s->n >= s->d->o.max_rows) {
			s->err = PSYM_ELIMIT;
			return;
		}
		if (ncap > s->d->o.max_rows + 1)
			ncap = s->d->o.max_rows + 1;
		n = realloc(s->rows, ncap * sizeof(*n));
		if (!n) {
			s->err = PSYM_ENOMEM;
			return;
		}
		s->rows = n;
		s->cap = ncap;
	}
	r = &s->rows[s->n];
	r->addr = addr;
	r->line = line > UINT32_MAX ? 0 : (uint32_t)line;
	r->file = file >= UINT16_MAX ? UINT16_MAX : (uint16_t)file;
	r->column = (uint16_t)((col > ROW_COLMASK ? 0 : col) | (end ? ROW_END : 0));
	if (s->n > s->seqstart && addr < s->rows[s->n - 1].addr)
		s->sorted = false;
	s->n++;
	if (end)
		end_seq(s);
}

static int decode_lines(struct psym_dwarf *d, struct cu *u, struct psym_err *e)
{
	struct cur c = sec_cur(d, S_LINE, u->stmt_list), hc;
	struct linestate s = { .d = d, .u = u, .sorted = true };
	struct unitfmt uf;
	unsigned offsz;
	uint64_t ulen, hlen, nfiles = 0, ndirs = 0;
	uint8_t min_inst, max_ops = 1, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *std_len;
	const char **dirs = NULL;
	const char **files = NULL;
	uint64_t *file_dir = NULL;
	uint16_t version;
	int ret = 0;

	if (!u->has_stmt)
		return 0;
	ulen = rd_unit_length(&c, &offsz);
	if (!c.ok || ulen > cur_left(&c))
		return 0;
	c.end = c.p + ulen;
	version = rd_u16(&c);
	if (version < 2 || version > 5)
		return 0;
	uf = (struct unitfmt){ version, u->addr_size, (uint8_t)offsz };
	if (version >= 5) {
		uf.addr_size = rd_u8(&c);
		rd_u8(&c);
		if (uf.addr_size != 1 && uf.addr_size != 2 && uf.addr_size != 4 &&
		    uf.addr_size != 8)
			uf.addr_size = u->addr_size;
	}
	hlen = rd_off(&c, offsz);
	if (!c.ok || hlen > cur_left(&c))
		return 0;
	hc = c;
	hc.end = c.p + hlen;
	c.p += hlen;
	min_inst = rd_u8(&hc);
	if (version >= 4)
		max_ops = rd_u8(&hc);
	if (max_ops == 0)
		max_ops = 1;
	rd_u8(&hc); /* default_is_stmt */
	line_base = (int8_t)rd_u8(&hc);
	line_range = rd_u8(&hc);
	opcode_base = rd_u8(&hc);
	std_len = hc.p;
	skip(&hc, opcode_base ? opcode_base - 1u : 0);
	if (!hc.ok)
		return 0;
	if (version < 5) {
		size_t cap = 0;

		for (;;) {
			const char *dir = rd_cstr(&hc);

			if (!hc.ok || !*dir)
				break;
			if (ndirs == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				const char **n = realloc(dirs, ncap * sizeof(*n));

				if (!n)
					goto nomem;
				dirs = n;
				cap = ncap;
			}
			dirs[ndirs++] = dir;
		}
		cap = 0;
		for (;;) {
			const char *name = rd_cstr(&hc);
			uint64_t di;

			if (!hc.ok || !*name)
				break;
			di = rd_uleb(&hc);
			rd_uleb(&hc);
			rd_uleb(&hc);
			if (nfiles == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				const char **n = realloc(files, ncap * sizeof(*n));
				uint64_t *nd;

				if (!n)
					goto nomem;
				files = n;
				nd = realloc(file_dir, ncap * sizeof(*nd));
				if (!nd)
					goto nomem;
				file_dir = nd;
				cap = ncap;
			}
			files[nfiles] = name;
			file_dir[nfiles++] = di;
		}
	} else {
		for (int pass = 0; pass < 2; pass++) {
			uint8_t nfmt = rd_u8(&hc);
			uint64_t fmt[2 * 255], count;
			const char **arr;
			uint64_t *dirx = NULL;

			for (unsigned k = 0; k < nfmt; k++) {
				fmt[2 * k] = rd_uleb(&hc);
				fmt[2 * k + 1] = rd_uleb(&hc);
			}
			count = rd_uleb(&hc);
			if (nfmt == 0)
				count = 0;
			if (!hc.ok || count > MAX_LINE_FILES ||
			    (nfmt && count > cur_left(&hc)))
				break;
			arr = calloc(count ? count : 1, sizeof(*arr));
			if (!arr)
				goto nomem;
			if (pass == 1) {
				dirx = calloc(count ? count : 1, sizeof(*dirx));
				if (!dirx) {
					free(arr);
					goto nomem;
				}
			}
			for (uint64_t k = 0; k < count && hc.ok; k++) {
				uint64_t di;

				if (!read_entry_v5(d, u, &hc, &uf, fmt, nfmt, &arr[k], &di))
					break;
				if (dirx)
					dirx[k] = di;
			}
			if (pass == 0) {
				dirs = arr;
				ndirs = count;
			} else {
				files = arr;
				file_dir = dirx;
				nfiles = count;
			}
		}
	}
	/* File names, joined once. */
	u->files = calloc(nfiles + 1, sizeof(*u->files));
	if (!u->files)
		goto nomem;
	u->nfiles = nfiles;
	for (uint64_t i = 0; i < nfiles; i++) {
		const char *dir = NULL;
		uint64_t di = file_dir[i];

		if (version >= 5)
			dir = di < ndirs ? dirs[di] : NULL;
		else if (di > 0)
			dir = di - 1 < ndirs ? dirs[di - 1] : NULL;
		u->files[i] = join_path(d, u->comp_dir, dir, files[i]);
	}
	/* The program. */
	while (c.ok && c.p < c.end && !s.err) {
		uint64_t addr = 0, file = 1, line = 1, col = 0;
		unsigned op_index = 0;

		/* One sequence per iteration of this loop's body below. */
		for (;;) {
			uint8_t op;
			uint64_t adv;

			if (c.p >= c.end || s.err)
				goto done;
			op = rd_u8(&c);
			if (op >= opcode_base) {
				uint8_t adj = op - opcode_base;

				adv = line_range ? adj / line_range : 0;
				line += (int64_t)line_base + (line_range ? adj % line_range : 0);
				goto advance_emit;
			}
			switch (op) {
			case 0: {
				uint64_t len = rd_uleb(&c);
				const uint8_t *next;
				uint8_t sub;

				if (!c.ok || len == 0 || len > cur_left(&c))
					goto done;
				next = c.p + len;
				sub = rd_u8(&c);
				if (sub == 1) { /* end_sequence */
					emit_row(&s, addr, line, col, file, true);
					c.p = next;
					goto newseq;
				} else if (sub == 2) { /* set_address */
					if (len - 1 >= 1 && len - 1 <= 8)
						addr = rd_un(&c, (unsigned)(len - 1));
					op_index = 0;
				}
				c.p = next;
				break;
			}
			case 1: /* copy */
				emit_row(&s, addr, line, col, file, false);
				break;
			case 2: /* advance_pc */
				adv = rd_uleb(&c);
				goto advance;
			case 3: /* advance_line */
				line += (uint64_t)rd_sleb(&c);
				break;
			case 4: /* set_file */
				file = rd_uleb(&c);
				break;
			case 5: /* set_column */
				col = rd_uleb(&c);
				break;
			case 6: case 7: case 10: case 11:
				break;
			case 8: /* const_add_pc */
				adv = line_range ? (255u - opcode_base) / line_range : 0;
				goto advance;
			case 9: /* fixed_advance_pc */
				addr += rd_u16(&c);
				op_index = 0;
				break;
			default:
				for (unsigned k = 0; k < std_len[op - 1]; k++)
					rd_uleb(&c);
				break;
			}
			continue;
advance:
			if (max_ops == 1) {
				addr += min_inst * adv;
			} else {
				addr += min_inst * ((op_index + adv) / max_ops);
				op_index = (unsigned)((op_index + adv) % max_ops);
			}
			continue;
advance_emit:
			if (max_ops == 1) {
				addr += min_inst * adv;
			} else {
				addr += min_inst * ((op_index + adv) / max_ops);
				op_index = (unsigned)((op_index + adv) % max_ops);
			}
			emit_row(&s, addr, line, col, file, false);
		}
newseq:;
	}
done:
	if (s.n > s.seqstart && !s.err)
		end_seq(&s);
	if (s.err) {
		ret = s.err == PSYM_ELIMIT
			      ? psym_err_set(e, PSYM_ELIMIT, "'%s': line table with more than %zu rows",
					     d->path, d->o.max_rows)
			      : psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	/* Rows stay where they are; the sequences are sorted by address. */
	if (s.nseqs > 1)
		qsort(s.seqs, s.nseqs, sizeof(*s.seqs), cmp_seq);
	u->rows = s.rows;
	u->nrows = s.n;
	u->seqs = s.seqs;
	u->nseqs = s.nseqs;
	s.rows = NULL;
	s.seqs = NULL;
out:
	free(s.rows);
	free(s.seqs);
	free(dirs);
	free(files);
	free(file_dir);
	return ret;
nomem:
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	goto out;
}

/* File name for a DWARF file index (1-based before DWARF 5, 0-based since). */
static const char *cu_file(const struct cu *c, uint64_t idx)
{
	if (c->version < 5) {
		if (idx == 0)
			return NULL;
		idx--;
	}
	return idx < c->nfiles ? c->files[idx] : NULL;
}

/* ---- decoding one CU's DIEs ------------------------------------------------------ */

static int new_entry(struct psym_dwarf *d, struct cu *c, uint32_t parent, uint32_t *out,
		     struct psym_err *e)
{
	struct entry *en;

	if (c->nentries >= d->o.max_entries)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': more than %zu functions in one CU",
				    d->path, d->o.max_entries);
	if (c->nentries == c->capentries) {
		size_t ncap = c->capentries ? c->capentries * 2 : 256;
		struct entry *n = realloc(c->entries, ncap * sizeof(*n));

		if (!n)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		c->entries = n;
		c->capentries = ncap;
	}
	en = &c->entries[c->nentries];
	memset(en, 0, sizeof(*en));
	en->parent = parent;
	*out = (uint32_t)c->nentries++;
	return 0;
}

static int cmp_kid(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/*
 * Index the ranges of each entry's children, sorted by start, in one array
 * (a counting sort by parent keeps DIE order, which is mostly address order).
 */
static int index_kids(struct cu *c)
{
	size_t total = 0;

	for (size_t i = 0; i < c->nentries; i++) {
		struct entry *en = &c->entries[i];

		en->kid_first = en->kid_count = 0;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		const struct entry *en = &c->entries[i];

		if (en->parent != NONE) {
			c->entries[en->parent].kid_count += en->range_count;
			total += en->range_count;
		}
	}
	if (total >= UINT32_MAX)
		return PSYM_ELIMIT;
	c->kids = malloc((total ? total : 1) * sizeof(*c->kids));
	if (!c->kids)
		return PSYM_ENOMEM;
	c->nkids = total;
	total = 0;
	for (size_t i = 0; i < c->nentries; i++) {
		struct entry *en = &c->entries[i];

		en->kid_first = (uint32_t)total;
		total += en->kid_count;
		en->kid_count = 0;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		const struct entry *en = &c->entries[i];
		struct entry *p;

		if (en->parent == NONE)
			continue;
		p = &c->entries[en->parent];
		for (uint32_t k = 0; k < en->range_count; k++) {
			const struct erange *r = &c->ranges[en->range_first + k];

			c->kids[p->kid_first + p->kid_count++] =
				(struct kid){ r->lo, r->hi, 0, (uint32_t)i };
		}
	}
	for (size_t i = 0; i < c->nentries; i++) {
		const struct entry *en = &c->entries[i];
		struct kid *k = c->kids + en->kid_first;
		uint64_t maxhi = 0;

		for (uint32_t j = 1; j < en->kid_count; j++) {
			if (cmp_kid(&k[j - 1], &k[j]) > 0) {
				qsort(k, en->kid_count, sizeof(*k), cmp_kid);
				break;
			}
		}
		for (uint32_t j = 0; j < en->kid_count; j++) {
			if (k[j].hi > maxhi)
				maxhi = k[j].hi;
			k[j].maxhi = maxhi;
		}
	}
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/*
 * Tags whose children can hold functions with code (besides functions
 * themselves). Classes only inside a function: the member functions of a
 * local class are defined in it, while gcc and clang define those of other
 * classes at namespace level (DW_AT_specification); walking every class
 * body of every header cost a quarter of the decoding time on libjvm.
 */
static inline bool scope_tag(uint32_t tag, bool in_function)
{
	switch (tag) {
	case TAG_lexical_block: case TAG_namespace: case TAG_module: case TAG_try_block:
	case TAG_catch_block:
		return true;
	case TAG_class_type: case TAG_structure_type: case TAG_union_type:
		return in_function;
	default:
		return false;
	}
}

static int decode_dies(struct psym_dwarf *d, struct cu *c, struct psym_err *e)
{
	const struct unitfmt uf = { c->version, c->addr_size, c->offsz };
	const struct abtab *t = c->ab;
	const uint8_t *base = d->sec[S_INFO].p;
	struct cur cur = sec_cur(d, S_INFO, c->die_off);
	struct rangebuf rb = { 0 };
	uint32_t *stack = NULL; /* per open level: nearest function entry */
	size_t depth = 0, ntop = 0;
	const struct abbrev *a;
	int ret = 0;

	cur.end = base + c->end;
	stack = malloc((d->o.max_depth + 1) * sizeof(*stack));
	if (!stack)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	/* The CU DIE: its attributes were read at open. */
	a = abbrev_find(t, rd_uleb(&cur));
	if (!cur.ok || !a || !a->children || !skip_attrs(&cur, &uf, t, a))
		goto tops;
	stack[depth++] = NONE;
	while (depth > 0 && cur.ok) {
		const uint8_t *die = cur.p;
		uint64_t code = rd_uleb(&cur);
		uint32_t parent = stack[depth - 1], mine = parent;
		uint32_t tag;
		bool descend;

		if (code == 0) {
			depth--;
			continue;
		}
		a = abbrev_find(t, code);
		if (!a || !cur.ok)
			break; /* corrupt: keep what was found */
		tag = a->tag;
		if (a->has_pc && (tag == TAG_subprogram ||
				  (tag == TAG_inlined_subroutine && d->o.inlines))) {
			struct die x;
			size_t first = rb.n;
			int nr;

			if (!read_die(&cur, c, a, &x))
				break;
			nr = die_ranges(d, c, &x, c->low_pc, &rb);
			if (nr < 0) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
			if (nr > 0 && (tag == TAG_subprogram || parent != NONE)) {
				struct entry *en;

				/* A subprogram nested in another is its own top level. */
				ret = new_entry(d, c, tag == TAG_subprogram ? NONE : parent, &mine, e);
				if (ret)
					goto out;
				en = &c->entries[mine];
				en->range_first = (uint32_t)first;
				en->range_count = (uint32_t)nr;
				en->name = resolve_str(d, c, &x.name);
				en->linkage = resolve_str(d, c, &x.linkage);
				en->decl_line = x.decl_line <= UINT32_MAX ? (uint32_t)x.decl_line : 0;
				en->origin = x.origin != NOREF ? x.origin : x.spec;
				en->call_file = x.call_file <= UINT32_MAX ? (uint32_t)x.call_file : 0;
				en->call_line = x.call_line <= UINT32_MAX ? (uint32_t)x.call_line : 0;
				en->call_column =
					x.call_column <= UINT32_MAX ? (uint32_t)x.call_column : 0;
				if (tag == TAG_subprogram)
					ntop += (size_t)nr;
			} else {
				rb.n = first;
			}
			descend = true;
		} else if (scope_tag(tag, parent != NONE)) {
			if (!skip_attrs(&cur, &uf, t, a))
				break;
			descend = true;
		} else {
			if (!a->children) {
				if (!skip_attrs(&cur, &uf, t, a))
					break;
				continue;
			}
			descend = false;
		}
		if (!a->children)
			continue;
		if (descend && depth <= d->o.max_depth) {
			stack[depth++] = mine;
			continue;
		}
		/* Skip the whole subtree: by DW_AT_sibling, or DIE by DIE. */
		if (!descend && a->sibling >= 0) {
			const struct attrspec *as = &t->attrs[a->attr0];
			struct fval v;
			bool ok;
			uint64_t sib;

			for (int i = 0; i < a->sibling; i++)
				if (!skip_form(&cur, &uf, as[i].form))
					goto tops;
			if (!read_form(&cur, &uf, as[a->sibling].form, as[a->sibling].implicit, &v))
				goto tops;
			sib = ref_abs(c, &v, &ok);
			if (ok && sib > (uint64_t)(die - base) && sib <= c->end) {
				cur.p = base + sib;
				continue;
			}
			for (int i = a->sibling + 1; i < a->nattr; i++)
				if (!skip_form(&cur, &uf, as[i].form))
					goto tops;
		} else if (!descend && !skip_attrs(&cur, &uf, t, a)) {
			break;
		}
		for (size_t level = 1; level > 0 && cur.ok;) {
			const struct abbrev *b;

			code = rd_uleb(&cur);
			if (code == 0) {
				level--;
				continue;
			}
			b = abbrev_find(t, code);
			if (!b || !skip_attrs(&cur, &uf, t, b))
				goto tops;
			if (b->children)
				level++;
		}
	}
tops:
	c->ranges = rb.r;
	c->nranges = rb.n;
	rb.r = NULL;
	/* Top-level lookup table: every range of every subprogram. */
	c->tops = calloc(ntop + 1, sizeof(*c->tops));
	if (!c->tops) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		struct entry *en = &c->entries[i];

		if (en->parent != NONE)
			continue;
		for (uint32_t k = 0; k < en->range_count && c->ntops < ntop; k++)
			c->tops[c->ntops++] = (struct top){ c->ranges[en->range_first + k].lo,
							    c->ranges[en->range_first + k].hi,
							    (uint32_t)i };
	}
	qsort(c->tops, c->ntops, sizeof(*c->tops), cmp_top);
	ret = index_kids(c);
	if (ret)
		ret = psym_err_set(e, ret, "'%s': %s", d->path, psym_strerror(ret));
out:
	free(rb.r);
	free(stack);
	return ret;
}

static int decode_cu(struct psym_dwarf *d, struct cu *c, struct psym_err *e)
{
	int ret;

	c->decoded = true;
	pthread_mutex_lock(&d->strings_mu);
	d->ndecoded++;
	pthread_mutex_unlock(&d->strings_mu);
	ret = decode_lines(d, c, e);
	if (!ret)
		ret = decode_dies(d, c, e);
	if (ret)
		c->failed = true;
	return ret;
}

/* ---- lookup --------------------------------------------------------------------- */



/*
 * The child of en whose range holds a. Siblings should not overlap; when
 * they do, the first in DIE order wins, as with llvm-symbolizer.
 */
static uint32_t find_kid(const struct cu *c, const struct entry *en, uint64_t a)
{
	size_t lo = en->kid_first, hi = lo + en->kid_count, first = lo;
	uint32_t best = NONE;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->kids[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo, n = 0; k > first && n < 4096; k--, n++) {
		const struct kid *r = &c->kids[k - 1];

		if (r->maxhi <= a)
			break; /* nothing at or before k - 1 reaches a */
		if (a < r->hi && r->entry < best)
			best = r->entry;
	}
	return best;
}

static const struct row *find_row(const struct cu *c, uint64_t a)
{
	size_t lo = 0, hi = c->nseqs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->seqs[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Overlapping sequences are rare; look at a few before giving up. */
	for (size_t k = 0; k < 16 && lo > k; k++) {
		const struct seq *q = &c->seqs[lo - 1 - k];
		size_t rlo = q->start, rhi = q->start + q->n;

		if (a >= q->hi)
			continue;
		while (rlo < rhi) {
			size_t mid = rlo + (rhi - rlo) / 2;

			if (c->rows[mid].addr <= a)
				rlo = mid + 1;
			else
				rhi = mid;
		}
		if (rlo == q->start || (c->rows[rlo - 1].column & ROW_END))
			return NULL;
		return &c->rows[rlo - 1];
	}
	return NULL;
}

static uint32_t find_top(const struct cu *c, uint64_t a)
{
	size_t lo = 0, hi = c->ntops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->tops[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested or overlapping top-level ranges: the closest start wins. */
	for (size_t k = 0; k < 32 && lo > k; k++) {
		const struct top *t = &c->tops[lo - 1 - k];

		if (a < t->hi)
			return t->entry;
	}
	return NONE;
}

#define MAX_CU_CANDIDATES 16

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The CUs whose ranges hold a, lowest .debug_info offset first (as
 * llvm-symbolizer picks among overlapping CUs). Returns how many.
 */
static size_t find_cus(const struct psym_dwarf *d, uint64_t a, uint32_t *out)
{
	size_t lo = 0, hi = d->ncuranges, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->curanges[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo, steps = 0; k > 0 && n < MAX_CU_CANDIDATES && steps < 4096;
	     k--, steps++) {
		const struct curange *r = &d->curanges[k - 1];

		if (r->maxhi <= a)
			break;
		if (a < r->hi) {
			bool dup = false;

			for (size_t i = 0; i < n; i++)
				dup |= out[i] == r->cu;
			if (!dup)
				out[n++] = r->cu;
		}
	}
	qsort(out, n, sizeof(*out), cmp_u32);
	return n;
}

static inline const char *row_file(const struct cu *c, const struct row *r)
{
	return r->file == UINT16_MAX ? NULL : cu_file(c, r->file);
}

/* ---- decoding ahead, on several threads -------------------------------------------- */

struct prep {
	struct psym_dwarf *d;
	const uint32_t *todo; /* CU indexes */
	size_t n;
	pthread_mutex_t mu; /* next and the first error */
	size_t next;
	struct psym_err first;
};

static void *prepare_worker(void *arg)
{
	struct prep *p = arg;

	for (;;) {
		struct psym_err e = { 0 };
		size_t i;
		int ret;

		pthread_mutex_lock(&p->mu);
		i = p->first.code == PSYM_ENOMEM ? p->n : p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			break;
		/* Each CU is decoded by one thread; what CUs share is locked inside. */
		ret = decode_cu(p->d, &p->d->cus[p->todo[i]], &e);
		if (ret) {
			pthread_mutex_lock(&p->mu);
			if (!p->first.code || ret == PSYM_ENOMEM)
				p->first = e;
			pthread_mutex_unlock(&p->mu);
		}
	}
	return NULL;
}

int psym_dwarf_prepare(struct psym_dwarf *d, const uint64_t *addrs, size_t n, struct psym_err *e)
{
	struct prep p = { .d = d };
	pthread_t th[8];
	unsigned started = 0;
	uint32_t cands[MAX_CU_CANDIDATES];
	uint32_t *todo;
	uint8_t *want;
	size_t ntodo = 0;

	if (!d->ncus)
		return 0;
	want = calloc(d->ncus, 1);
	todo = malloc(d->ncus * sizeof(*todo));
	if (!want || !todo) {
		free(want);
		free(todo);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = find_cus(d, addrs[i], cands);

		/* Overlapping CUs: all candidates (lookups take the first that knows). */
		for (size_t j = 0; j < k; j++)
			if (!d->cus[cands[j]].decoded && !want[cands[j]]) {
				want[cands[j]] = 1;
				todo[ntodo++] = cands[j];
			}
	}
	free(want);
	p.todo = todo;
	p.n = ntodo;
	pthread_mutex_init(&p.mu, NULL);
	/* This thread works too; helpers only when there is more than one CU. */
	for (unsigned t = 1; t < d->o.threads && t < ntodo; t++)
		if (pthread_create(&th[started], NULL, prepare_worker, &p) == 0)
			started++;
	prepare_worker(&p);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&p.mu);
	free(todo);
	if (p.first.code) {
		*e = p.first;
		if (p.first.code == PSYM_ENOMEM)
			return PSYM_ENOMEM;
	}
	return 0;
}

int psym_dwarf_lookup(struct psym_dwarf *d, uint64_t a, const struct psym_frame **frames,
		      size_t *np, struct psym_err *e)
{
	uint32_t chain[MAX_FRAMES], cands[MAX_CU_CANDIDATES];
	size_t ncands = find_cus(d, a, cands), depth = 0, n = 0;
	const struct row *row = NULL;
	struct cu *c = NULL;
	uint32_t top = NONE;

	/* Overlapping CU ranges happen (e.g. with LTO): take the first that knows a. */
	for (size_t i = 0; i < ncands; i++) {
		struct cu *cand = &d->cus[cands[i]];

		if (!cand->decoded) {
			int ret = decode_cu(d, cand, e);

			if (ret == PSYM_ENOMEM)
				return ret;
		}
		if (cand->failed)
			continue;
		top = find_top(cand, a);
		row = find_row(cand, a);
		if (top != NONE || row) {
			c = cand;
			break;
		}
	}
	if (!c)
		return PSYM_NOENT;
	if (top != NONE) {
		uint32_t cur = top;

		chain[depth++] = cur;
		while (depth < MAX_FRAMES) {
			uint32_t next = find_kid(c, &c->entries[cur], a);

			if (next == NONE)
				break;
			chain[depth++] = cur = next;
		}
	}
	if (depth == 0) {
		/* Lines but no function DIE: the caller names it from the symbols. */
		d->frames[0] = (struct psym_frame){
			.name = NULL, .file = row_file(c, row), .line = row->line,
			.column = row->column & ROW_COLMASK,
		};
		*frames = d->frames;
		*np = 1;
		return 0;
	}
	/* Innermost first. */
	for (size_t i = depth; i-- > 0;) {
		struct entry *en = &c->entries[chain[i]];
		struct psym_frame *f = &d->frames[n++];

		if (!en->resolved)
			entry_names(d, en);
		f->name = en->name ? en->name : en->linkage;
		f->linkage_name = en->linkage;
		f->start_line = en->decl_line;
		if (i == depth - 1) {
			f->file = row ? row_file(c, row) : NULL;
			f->line = row ? row->line : 0;
			f->column = row ? row->column & ROW_COLMASK : 0;
		} else {
			const struct entry *callee = &c->entries[chain[i + 1]];

			f->file = cu_file(c, callee->call_file);
			f->line = callee->call_line;
			f->column = callee->call_column;
		}
	}
	*frames = d->frames;
	*np = n;
	return 0;
}
