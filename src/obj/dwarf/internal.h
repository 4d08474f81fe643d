/* SPDX-License-Identifier: MIT */
/*
 * What the modules of the DWARF reader share: the DWARF constants, the
 * sections, abbreviation tables, compile units and what is decoded of
 * them, and struct psym_dwarf itself. Private to src/obj/dwarf/.
 *
 * Module map (one concern per file pair):
 *   cursor.h    bounds-checked reading (ULEB/SLEB/fixed/offset size)
 *   sections    finding and inflating the .debug_* sections of the psym_elf
 *   form        attribute values: the one place that knows every DW_FORM
 *   abbrev      abbreviation tables, skipping a DIE's attributes
 *   die         a DIE's attributes, strings, .debug_addr
 *   ranges      low/high pc, .debug_ranges, .debug_rnglists
 *   unit        unit headers, the CU index, the DIE at an offset
 *   names       names through abstract_origin / specification, cached
 *   line        the line program
 *   inline      the DIE walk building the subprogram / inline tree
 *   lookup      address -> frames; prepare: decoding ahead on threads
 *   dwarfsym    the public facade (open, close, counts)
 *   alt         the alternate (dwz) / supplementary file, imported units
 *   split       split DWARF: a skeleton unit's .dwo or .dwp, opened lazily
 */
#ifndef PSYM_DWARF_INTERNAL_H
#define PSYM_DWARF_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "cursor.h"
#include "dwarfsym.h"
#include "error.h"

#ifndef ELFCOMPRESS_ZLIB
#define ELFCOMPRESS_ZLIB 1
#endif
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

#define MAX_FRAMES 256
#define MAX_ORIGIN_HOPS 16
#define DEFAULT_MAX_SECTION ((uint64_t)4 << 30) /* decompressed */
#define DEFAULT_MAX_RATIO 200			/* decompressed / compressed */
#define RATIO_MIN_SIZE ((uint64_t)16 << 20)	/* smaller sections: no ratio cap */
#define MAX_LINE_FILES ((uint64_t)1 << 20)	/* directories or files per line table */
#define NONE UINT32_MAX
#define NOREF UINT64_MAX
/*
 * A DIE reference into the alternate (dwz) / supplementary file: its
 * .debug_info offset with this bit set (section offsets never reach it).
 */
#define DW_ALT_REF ((uint64_t)1 << 62)
#define MAX_IMPORT_DEPTH 8 /* nested DW_TAG_imported_unit */
#define MAX_IMPORTS 1024   /* imported units walked for one CU */

/* ---- DWARF constants (DWARF 5 spec, section 7) ------------------------------ */

enum {
	TAG_class_type = 0x02,
	TAG_lexical_block = 0x0b,
	TAG_structure_type = 0x13,
	TAG_union_type = 0x17,
	TAG_inlined_subroutine = 0x1d,
	TAG_module = 0x1e,
	TAG_catch_block = 0x25,
	TAG_subprogram = 0x2e,
	TAG_try_block = 0x32,
	TAG_namespace = 0x39,
	TAG_partial_unit = 0x3c,
	TAG_imported_unit = 0x3d,
};

enum {
	AT_sibling = 0x01,
	AT_name = 0x03,
	AT_stmt_list = 0x10,
	AT_import = 0x18,
	AT_low_pc = 0x11,
	AT_high_pc = 0x12,
	AT_language = 0x13,
	AT_comp_dir = 0x1b,
	AT_inline = 0x20,
	AT_abstract_origin = 0x31,
	AT_decl_file = 0x3a,
	AT_decl_line = 0x3b,
	AT_specification = 0x47,
	AT_ranges = 0x55,
	AT_call_column = 0x57,
	AT_call_file = 0x58,
	AT_call_line = 0x59,
	AT_linkage_name = 0x6e,
	AT_str_offsets_base = 0x72,
	AT_addr_base = 0x73,
	AT_rnglists_base = 0x74,
	AT_dwo_name = 0x76,
	AT_MIPS_linkage_name = 0x2007,
	AT_GNU_discriminator = 0x2136,
	AT_GNU_dwo_name = 0x2130,
	AT_GNU_dwo_id = 0x2131,
	AT_GNU_ranges_base = 0x2132,
	AT_GNU_addr_base = 0x2133,
};

enum {
	FORM_addr = 0x01,
	FORM_block2 = 0x03,
	FORM_block4 = 0x04,
	FORM_data2 = 0x05,
	FORM_data4 = 0x06,
	FORM_data8 = 0x07,
	FORM_string = 0x08,
	FORM_block = 0x09,
	FORM_block1 = 0x0a,
	FORM_data1 = 0x0b,
	FORM_flag = 0x0c,
	FORM_sdata = 0x0d,
	FORM_strp = 0x0e,
	FORM_udata = 0x0f,
	FORM_ref_addr = 0x10,
	FORM_ref1 = 0x11,
	FORM_ref2 = 0x12,
	FORM_ref4 = 0x13,
	FORM_ref8 = 0x14,
	FORM_ref_udata = 0x15,
	FORM_indirect = 0x16,
	FORM_sec_offset = 0x17,
	FORM_exprloc = 0x18,
	FORM_flag_present = 0x19,
	FORM_strx = 0x1a,
	FORM_addrx = 0x1b,
	FORM_ref_sup4 = 0x1c,
	FORM_strp_sup = 0x1d,
	FORM_data16 = 0x1e,
	FORM_line_strp = 0x1f,
	FORM_ref_sig8 = 0x20,
	FORM_implicit_const = 0x21,
	FORM_loclistx = 0x22,
	FORM_rnglistx = 0x23,
	FORM_ref_sup8 = 0x24,
	FORM_strx1 = 0x25,
	FORM_strx2 = 0x26,
	FORM_strx3 = 0x27,
	FORM_strx4 = 0x28,
	FORM_addrx1 = 0x29,
	FORM_addrx2 = 0x2a,
	FORM_addrx3 = 0x2b,
	FORM_addrx4 = 0x2c,
	FORM_GNU_addr_index = 0x1f01,
	FORM_GNU_str_index = 0x1f02,
	FORM_GNU_ref_alt = 0x1f20,
	FORM_GNU_strp_alt = 0x1f21,
};

enum {
	UT_compile = 1,
	UT_type = 2,
	UT_partial = 3,
	UT_skeleton = 4,
	UT_split_compile = 5,
	UT_split_type = 6
};

enum {
	LNCT_path = 1,
	LNCT_directory_index = 2
};

enum {
	RLE_end_of_list,
	RLE_base_addressx,
	RLE_startx_endx,
	RLE_startx_length,
	RLE_offset_pair,
	RLE_base_address,
	RLE_start_end,
	RLE_start_length
};

/* ---- sections ------------------------------------------------------------------ */

enum sec {
	S_INFO,
	S_ABBREV,
	S_LINE,
	S_STR,
	S_LINE_STR,
	S_STR_OFF,
	S_ADDR,
	S_RANGES,
	S_RNGLISTS,
	S_CU_INDEX, /* a .dwp's unit index (split.c) */
	S_ARANGES,  /* units' ranges besides their DIEs' own (unit.c) */
	S_N
};

struct section {
	const uint8_t *p;
	size_t len;
	uint8_t *owned;	  /* inflated copy, or NULL when p is the file's data */
	size_t ownedlen;  /* its mapping's length when mmap'd, else 0 */
	const uint8_t *z; /* compressed bytes, until inflated */
	size_t zlen;
	uint64_t size; /* decompressed size */
	int kind;      /* ELFCOMPRESS_* when compressed, 0 otherwise */
	int err;       /* inflate failure */
	size_t shndx;  /* its ELF section index (ET_REL: whose relocations apply) */
};

/* ---- abbreviations ------------------------------------------------------------ */

/* How to skip a form: a fixed size (>= 0) or one of these. */
enum {
	SZ_VAR = -1,
	SZ_ADDR = -2,
	SZ_OFF = -3,
	SZ_REFADDR = -4,
	SZ_LEB = -5,
	SZ_STR = -6
};

struct attrspec {
	uint16_t name, form;
	int8_t size;
	int64_t implicit;
};

struct abbrev {
	uint64_t code;
	uint32_t attr0; /* index of the first attrspec */
	uint16_t nattr;
	uint16_t tag;
	bool children, has_pc;
	int16_t sibling; /* index of DW_AT_sibling among the attrs, or -1 */
	int32_t fixed;	 /* bytes of fixed-size forms, -1 when some form is variable */
	uint8_t naddr, noff, nrefaddr; /* forms sized by address / offset size */
};

struct abtab {
	uint64_t off;
	struct abbrev *list;
	size_t n;
	uint32_t *dense; /* code -> index + 1, when codes are dense */
	size_t ndense;
	bool sorted; /* list sorted by code (sparse codes) */
	struct attrspec *attrs;
	size_t nattrs;
};

/* ---- compile units and what is decoded of them ------------------------------ */

struct erange {
	uint64_t lo, hi;
};

/* A subprogram or inlined subroutine that has code. */
/*
 * DW_AT_decl_file as llvm-symbolizer reads it: the first DIE along the
 * origin chain that has the attribute decides; its index names a file of
 * that DIE's unit, except in DW_FORM_implicit_const (LLVM 14 finds no unit
 * for a value kept in the abbreviation, so no file).
 */
enum decl_file_state {
	DECL_FILE_NONE,	  /* no attribute here */
	DECL_FILE_INDEX,  /* an index into its unit's file table */
	DECL_FILE_NONAME, /* an attribute that names no file */
};

struct entry {
	uint64_t origin; /* abstract_origin or specification, NOREF when none */
	const char *name, *linkage;
	uint64_t low_pc;       /* its own DW_AT_low_pc (llvm-symbolizer's StartAddress) */
	uint64_t gnu_low;      /* binutils' start: low_pc, else its first range's */
	const char *decl_file; /* resolved by dw_entry_names: NULL when none */
	uint32_t decl_line;
	uint32_t decl_file_idx;
	uint8_t decl_file_state; /* enum decl_file_state */
	bool has_low_pc;
	uint32_t call_file, call_line, call_column;
	uint32_t call_discriminator; /* DW_AT_GNU_discriminator of the call site */
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
	uint16_t file;	 /* UINT16_MAX: unknown */
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
	uint16_t language; /* DW_AT_language, 0: none */
	uint8_t addr_size, offsz, unit_type;
	bool has_stmt, has_rng_base, decoded, failed;
	bool lines_done; /* dw_decode_lines ran (a decl file may ask before the unit is decoded) */
	bool ranged;	 /* had address ranges of its own (low/high_pc, DW_AT_ranges) */
	/* Rows with a discriminator (when asked for), sorted by address. */
	struct disc {
		uint64_t addr;
		uint32_t disc;
	} * discs;
	size_t ndiscs;
	/*
	 * Split DWARF (split.c). A skeleton names its split unit (dwo_name,
	 * dwo_id); once found, the function tree is decoded in split_cu of
	 * split_d (a .dwo, or one unit's view of a .dwp) and lines stay here.
	 * ranges_base: in DWARF 4 split units only, the skeleton's
	 * DW_AT_GNU_ranges_base (dwo_ranges_base), into its .debug_ranges.
	 */
	bool skeleton, has_dwo_id, claimed;
	uint64_t dwo_id, ranges_base, dwo_ranges_base;
	const char *dwo_name;
	struct psym_dwarf *split_d;
	struct cu *split_cu;
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
	uint16_t line_version; /* of the line table files[] came from (0: none) */
};

struct curange {
	uint64_t lo, hi, maxhi; /* maxhi: the largest hi up to here */
	uint32_t cu;
};

struct origin {
	uint64_t off; /* 0: empty slot (offset 0 is a unit header, never a DIE) */
	const char *name, *linkage;
	const char *decl_file; /* with decl_file_state DECL_FILE_INDEX: resolved, or NULL */
	uint32_t decl_line;
	uint8_t decl_file_state;
};

struct psym_dwarf {
	size_t bad_units; /* .debug_info units whose header could not be read */
	/*
	 * Units whose DIE gives code addresses that are all dropped (at 0:
	 * code the linker discarded), and the first one's name (without
	 * such units, the first unit's), for saying what was found when no
	 * unit covers code.
	 */
	size_t nocode_units;
	const char *nocode_name;
	const struct psym_elf *elf; /* borrowed: outlives us */
	const char *path;	    /* its path, for messages */
	bool swap;
	struct section sec[S_N];
	struct psym_dwarf_opts o;
	struct cu *cus;
	size_t ncus, capcus, ndecoded;
	struct curange *curanges;
	size_t ncuranges, capcuranges;
	struct abtab **abtabs; /* hash by offset */
	size_t nabtabs, capabtabs;
	uint64_t abbrev_bytes;	/* parsed so far, against overlapping tables */
	struct origin *origins; /* hash: DIE offset -> resolved names */
	size_t norigins, caporigins;
	struct psym_dwarf *alt; /* the alternate / supplementary file's, or NULL */
	struct psym_arena strings;
	pthread_mutex_t strings_mu; /* strings and ndecoded, while preparing on threads */
	bool dwo;		    /* a .dwo or .dwp: sections named .debug_*.dwo */
	struct split *split;	    /* split DWARF state (split.c), NULL without skeletons */
	void (*free_split)(struct split *s); /* frees split (split.c sets it) */
	struct psym_frame frames[MAX_FRAMES];
	struct psym_dwarf_gnu gnu[MAX_FRAMES]; /* of frames, with o.gnu_lines */
	/* o.gnu_lines: every unit's line sequences, sorted by lo (lookup.c). */
	struct curange *gnu_seqs;
	size_t ngnu_seqs;
	bool gnu_seqs_built;
};

static inline struct cur sec_cur(const struct psym_dwarf *d, enum sec s, uint64_t off)
{
	return cur_at(d->sec[s].p, d->sec[s].len, off, d->swap);
}

static inline uint64_t hash_off(uint64_t off)
{
	uint64_t h = off * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 31);
}

#endif
