/* SPDX-License-Identifier: MIT */
/*
 * The dynamic linker's list of loaded objects, read from a process image
 * (a core's memory) as a debugger does when the image says nothing else
 * about its shared libraries (QEMU's user-mode cores have no NT_FILE):
 * the executable's dynamic section -> DT_DEBUG -> struct r_debug ->
 * r_map -> the chain of struct link_map (l_addr: the load bias, l_name:
 * the path the linker opened, l_ld: the object's dynamic section, l_next).
 *
 * The memory is untrusted and read only through a callback, so every
 * read is checked against what the image has. 32- and 64-bit layouts of
 * either byte order. Bounded: at most PSYM_LINKMAP_MAX entries, names of
 * at most PSYM_LINKMAP_NAME_MAX bytes and PSYM_LINKMAP_NAMES_MAX in all,
 * PSYM_LINKMAP_DYN_MAX dynamic entries; a chain that loops or runs past
 * the cap is cut there, with where in why.
 */
#ifndef PSYM_LINKMAP_H
#define PSYM_LINKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"
#include "error.h"

#define PSYM_LINKMAP_MAX 4096
#define PSYM_LINKMAP_NAME_MAX 4096
#define PSYM_LINKMAP_NAMES_MAX ((size_t)1 << 20)
#define PSYM_LINKMAP_DYN_MAX 4096

/* Copy [addr, addr + len) into out as far as the image has it; returns the bytes copied. */
typedef size_t (*psym_mem_read_fn)(const void *ctx, uint64_t addr, void *out, size_t len);

/* How the image lays out its pointers. */
struct psym_mem_abi {
	bool is64; /* ELFCLASS64: 8-byte pointers, else 4 */
	bool msb;  /* ELFDATA2MSB */
};

struct psym_linkmap_entry {
	uint64_t addr;	 /* of the struct link_map itself */
	uint64_t l_addr; /* load bias */
	uint64_t l_ld;	 /* its dynamic section */
	uint64_t l_name; /* where its name is */
	char *name;	 /* owned; "" when l_name is 0 or not readable */
};

struct psym_linkmap {
	struct psym_linkmap_entry *v; /* in chain order: the executable first */
	size_t n;
	uint64_t r_debug;   /* where struct r_debug is (0: not found) */
	bool read;	    /* a link map was looked for */
	char why[200];	    /* "": read to its end; else where and why it stopped */
	char name_why[200]; /* "": every name read; else the first that was not */
};

/*
 * The chain from the dynamic section at [dyn, dyn + dynsz) (dynsz 0: up to
 * DT_NULL). 0 with lm filled (lm->why says where a chain was cut, the
 * entries before it stay; lm->name_why which name was not read: the dynamic
 * linker's own points into the executable's PT_INTERP, which a core may
 * leave out); PSYM_NOENT when there is no DT_DEBUG, or
 * it is 0 (the linker has not run), with why; PSYM_ENOMEM. lm is reset
 * first; free it with psym_linkmap_free.
 */
int psym_linkmap_read(psym_mem_read_fn rd, const void *ctx, struct psym_mem_abi abi, uint64_t dyn,
		      uint64_t dynsz, struct psym_linkmap *lm);
void psym_linkmap_free(struct psym_linkmap *lm);

/*
 * From program headers in the image at phdr (AT_PHDR, AT_PHNUM): the
 * executable's load bias (AT_PHDR less PT_PHDR's p_vaddr) and where its
 * PT_DYNAMIC is. 0, or PSYM_NOENT when the headers are not in the image or
 * have no PT_PHDR or no PT_DYNAMIC.
 */
int psym_linkmap_dynamic_mem(psym_mem_read_fn rd, const void *ctx, struct psym_mem_abi abi,
			     uint64_t phdr, uint64_t phnum, uint64_t *bias, uint64_t *dyn,
			     uint64_t *dynsz);

/* What an executable's file says about where its dynamic parts go. */
struct psym_elf_dyninfo {
	uint64_t entry;	     /* e_entry */
	uint64_t phdr_vaddr; /* where its program headers are loaded (0: not loaded) */
	uint64_t dyn, dynsz; /* PT_DYNAMIC's p_vaddr, p_memsz */
	char interp[256];    /* PT_INTERP's path ("" none) */
	struct psym_mem_abi abi;
};

/* 0, or PSYM_NOENT when the file has no PT_DYNAMIC (a static program). */
int psym_elf_dyninfo(const struct psym_elf *elf, struct psym_elf_dyninfo *out);

#endif
