/* SPDX-License-Identifier: MIT */
/*
 * ELF facts psym needs from a binary or debug file: type, build ID,
 * PT_LOAD segments (runtime address -> ELF virtual address), symbol tables
 * (.symtab, .dynsym, synthesized name@plt), .gnu_debuglink, sections.
 *
 * Files are untrusted: only regular files are opened, libelf does the
 * bounds-checked parsing, section and symbol counts are capped, names
 * outside their string table are ignored. All strings returned are
 * borrowed from the psym_elf and live until psym_elf_close().
 */
#ifndef PSYM_ELFFILE_H
#define PSYM_ELFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid.h"
#include "error.h"
#include "frame.h"
#include "symtab.h"

struct psym_elf;

struct psym_elf_load {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags; /* PF_X | PF_W | PF_R */
	uint64_t align; /* p_align */
};

/* Caps against hostile files; 0 fields take the defaults. */
struct psym_elf_limits {
	size_t max_sections; /* default 65536 */
	size_t max_symbols;  /* default 16 million */
};

/* Open an ELF file (regular files only). */
int psym_elf_open(const char *path, const struct psym_elf_limits *lim, struct psym_elf **out,
		  struct psym_err *e);
/*
 * Open an ELF image held in memory; with take_ownership the buffer (malloc'd)
 * is freed by psym_elf_close(). name is used in messages.
 */
int psym_elf_open_mem(void *buf, size_t len, bool take_ownership, const char *name,
		      const struct psym_elf_limits *lim, struct psym_elf **out, struct psym_err *e);
void psym_elf_close(struct psym_elf *elf);

const char *psym_elf_path(const struct psym_elf *elf);
/* Lowercase hex build ID, or NULL when the file has none. */
const char *psym_elf_build_id(const struct psym_elf *elf);
/*
 * A file without a GNU build ID: its Go build ID in the "go:" form
 * (buildid.h), or NULL. Only ever compared with a mapping's build ID (the
 * locator's check), never used as a key or in a path.
 */
const char *psym_elf_go_build_id(const struct psym_elf *elf);

size_t psym_elf_loads(const struct psym_elf *elf, const struct psym_elf_load **loads);

/*
 * Runtime address -> ELF virtual address, for an address inside a mapping
 * of this file at [start, limit) with file offset `offset` (as in
 * /proc/PID/maps): file offset -> the PT_LOAD that holds it -> vaddr,
 * computed per address. Returns 0, or PSYM_NOENT when no PT_LOAD holds it.
 *
 * A debug-only file (psym_elf_is_debug_only) goes through the binary's
 * file layout recovered from the segments' addresses, sizes and alignment,
 * and failing that, an address of a mapping whose offset no recovered
 * segment holds is placed in the one executable segment, the mapping's
 * start being that segment's first page.
 */
int psym_elf_normalize(const struct psym_elf *elf, uint64_t start, uint64_t limit, uint64_t offset,
		       uint64_t addr, uint64_t *vaddr);

/*
 * True for a separate debug file whose PT_LOADs lost the binary's file
 * offsets and sizes (objcopy --only-keep-debug: the code is SHT_NOBITS and
 * its segment has p_filesz 0 or short of p_memsz). Used in place of a
 * missing binary, its addresses are normalized as above. eu-strip -f files
 * keep the binary's program headers and are not such files.
 */
bool psym_elf_is_debug_only(const struct psym_elf *elf);

/*
 * Why the symbol table could not be used (a cap was hit, memory ran out),
 * NULL when it is fine or was not read yet (no lookup needed it). Such a
 * table is dropped whole rather than kept partial.
 */
const char *psym_elf_symbols_error(struct psym_elf *elf);

/*
 * Merge the function symbols of another ELF (a debug file's .symtab, the
 * MiniDebugInfo image) into elf's table. src must outlive elf (its strings
 * are borrowed): psym_elf_adopt() hands src over to be closed with elf.
 */
int psym_elf_add_symbols(struct psym_elf *elf, struct psym_elf *src, struct psym_err *e);
void psym_elf_adopt(struct psym_elf *elf, struct psym_elf *child);

/*
 * Symbol-table lookup of a virtual address: the function containing it
 * (size-aware; a zero-size symbol or untyped code label extends to the
 * next symbol, never past its section or segment). Fills frame with
 * name (version suffix removed) and linkage_name; 0 or PSYM_NOENT.
 */
int psym_elf_lookup(struct psym_elf *elf, uint64_t vaddr, struct psym_frame *frame);
/* The same lookup, giving the symbol itself (its size, start), or NULL. */
const struct psym_sym *psym_elf_symbol(struct psym_elf *elf, uint64_t vaddr);
/*
 * The data object (or absolute symbol) containing vaddr, by the same
 * rules over the file's own symbol tables, or NULL: psym addr names data
 * addresses as addr2line and llvm-symbolizer do. Profiles never use it.
 */
const struct psym_sym *psym_elf_data_symbol(struct psym_elf *elf, uint64_t vaddr);
/*
 * The name GNU addr2line 2.40 gives vaddr from the symbol table (rules in
 * gnusyms.c): borrowed from elf, NULL when no symbol of the section
 * holding vaddr starts at or below it. *start gets the symbol's address,
 * *file its STT_FILE's name or NULL (either may be NULL).
 */
const char *psym_elf_gnu_symbol(struct psym_elf *elf, uint64_t vaddr, uint64_t *start,
				const char **file);
/* Drop what psym_elf_gnu_symbol read (psym_elf_close does). */
void psym_elf_gnu_free(struct psym_elf *elf);
/* The symbol table those lookups use (loaded now), sorted and finished. */
const struct psym_symtab *psym_elf_symtab(struct psym_elf *elf);

/*
 * How far src's addresses sit from elf's: the difference between the
 * addresses of the first executable section they both have by name (a
 * prelinked binary's debug file keeps the addresses from before
 * prelinking); when either has no section headers, the difference of
 * their lowest PT_LOAD addresses. 0 when they agree or cannot tell. Add
 * it to an address of src to get one of elf; psym_elf_add_symbols()
 * applies it.
 */
uint64_t psym_elf_bias_from(const struct psym_elf *elf, const struct psym_elf *src);

/*
 * Address of the symbol named name: a function symbol (version suffix
 * ignored), else any defined symbol of that exact name. 0 or PSYM_NOENT.
 */
int psym_elf_find_symbol(struct psym_elf *elf, const char *name, uint64_t *addr);

/* .gnu_debuglink file name and CRC; PSYM_NOENT when absent or malformed. */
int psym_elf_debuglink(const struct psym_elf *elf, const char **name, uint32_t *crc);

/*
 * Raw contents of the named section (not decompressed); PSYM_NOENT when
 * absent. *data is borrowed from elf.
 */
int psym_elf_section(const struct psym_elf *elf, const char *name, const void **data, size_t *len);

/* A section's name and raw contents, as the DWARF reader walks them. */
struct psym_elf_scn {
	const char *name;
	const void *data; /* as stored (compressed when SHF_COMPRESSED); borrowed */
	size_t len;
	bool compressed; /* SHF_COMPRESSED */
	uint64_t addr;	 /* sh_addr (pc-relative CFI pointers need it) */
};

/* Number of sections, index 0 included (at most --limit elf-sections). */
size_t psym_elf_nsections(const struct psym_elf *elf);
/*
 * Section i (1 <= i < psym_elf_nsections()). PSYM_NOENT when it has no
 * name or no contents in the file (SHT_NOBITS, empty).
 */
int psym_elf_scn(const struct psym_elf *elf, size_t i, struct psym_elf_scn *out);

/*
 * Relocatable objects (ET_REL: a .o, a kernel module). Their sections all
 * start at address 0 in the file; psym lays the allocated ones out one
 * after the other in section order, each at its alignment (the layout
 * elfutils' libdwfl gives an object it reports offline, shifted to start
 * at PSYM_REL_BASE), and every address psym computes for such a file is
 * one of that layout: symbols, the DWARF sections once their relocations
 * are applied (elfreloc.h), psym_elf_scn()'s addr. Addresses users give
 * and see are offsets in a section (psym_elf_section_addr).
 */
bool psym_elf_is_rel(const struct psym_elf *elf);
/* Section i's address: the layout's for ET_REL, else sh_addr; 0 when none. */
uint64_t psym_elf_scn_addr(const struct psym_elf *elf, size_t i);
/*
 * ET_REL: put the allocated section named name at addr (a kernel module's
 * .text at its load address), before its symbols or DWARF are read.
 * PSYM_NOENT when there is no such section, the file is not ET_REL, or it
 * is too late.
 */
int psym_elf_place(struct psym_elf *elf, const char *name, uint64_t addr);
/*
 * The address of offset off of a section: the one named name, or with
 * name NULL the first executable section (in section order) longer than
 * off, as llvm-symbolizer and addr2line pick one in an object file.
 * PSYM_NOENT when there is none.
 */
int psym_elf_section_addr(const struct psym_elf *elf, const char *name, uint64_t off,
			  uint64_t *addr);

/* ELFCLASS64, and ELFDATA2MSB: how the file's own structures are laid out. */
bool psym_elf_is_64(const struct psym_elf *elf);
bool psym_elf_is_msb(const struct psym_elf *elf);
/* e_machine (EM_X86_64, EM_AARCH64, ...). */
uint16_t psym_elf_machine(const struct psym_elf *elf);
/*
 * True when the contents are a read-only mapping of the file: pages of
 * data read once (compressed sections) may be given back with
 * MADV_DONTNEED and are refetched if touched again.
 */
bool psym_elf_is_mapped(const struct psym_elf *elf);

/* True when the file has DWARF line or info sections (.debug_* or .zdebug_*). */
bool psym_elf_has_dwarf(const struct psym_elf *elf);

/*
 * MiniDebugInfo: decompress .gnu_debugdata (xz) and open it as an ELF.
 * PSYM_NOENT when the section is absent.
 */
int psym_elf_open_minidebuginfo(const struct psym_elf *elf, struct psym_elf **out,
				struct psym_err *e);

/* The libelf handle (an Elf *) of an opened file; borrowed. */
void *psym_elf_libelf(const struct psym_elf *elf);

#endif
