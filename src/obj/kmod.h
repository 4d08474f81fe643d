/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules: .ko files, as they are or compressed the ways kmod
 * installs them (.ko.xz, .ko.zst, .ko.gz), opened as relocatable ELF
 * images (elfreloc.h applies their debug relocations); finding one by
 * module name under a tree of modules; placing its code sections at the
 * addresses the running kernel loaded them at.
 *
 * Files are untrusted: the compressed file and what it decompresses to
 * are capped (a bomb is refused with a message naming the file), the walk
 * of a tree is bounded in depth and entries and follows no symlinked
 * directory.
 */
#ifndef PSYM_KMOD_H
#define PSYM_KMOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"
#include "error.h"
#include "kmodfile.h"

/*
 * Whether file name base (no directory) is module's file: MODULE.ko,
 * .ko.xz, .ko.zst, .ko.gz or .ko.debug, with '-' and '_' taken as the same.
 */
bool psym_kmod_names(const char *base, const char *module);

/*
 * Open a compressed module (psym_kmod_decompress) as an ELF image in
 * memory. An uncompressed .ko, or a compressed one on disk, is opened by
 * psym_elf_open().
 */
int psym_kmod_open_compressed(const char *path, const unsigned char *buf, size_t len, size_t max,
			      const struct psym_elf_limits *lim, struct psym_elf **out,
			      struct psym_err *e);

/*
 * Look under root (a directory, walked at most 8 levels and 200,000
 * entries deep) for module's file: MODULE.ko[.xz|.zst|.gz], with '-' and
 * '_' taken as the same (kallsyms names modules with '_'). The path goes
 * to buf. 0 or PSYM_NOENT.
 */
int psym_kmod_find(const char *root, const char *module, char *buf, size_t bufsz);

/*
 * psym-collect's record of the loaded modules (FILE.d/modules: lines
 * "NAME BUILD-ID TEXT-ADDRESS", see BPF-collector/kmodules.h), text[len]:
 * module's build ID (lowercase hex) into bid[bidsz] and its .text address
 * into *text_addr (0 when unknown). Lines that do not parse are skipped.
 * 0, or PSYM_NOENT when the module is not listed with a build ID.
 */
int psym_kmod_record_find(const char *text, size_t len, const char *module, char *bid, size_t bidsz,
			  uint64_t *text_addr);

/*
 * The address of a function symbol of the running kernel's copy of the
 * module (kallsyms), by name; 0 or PSYM_NOENT.
 */
typedef int (*psym_kmod_addr_fn)(void *ud, const char *name, uint64_t *addr);

/*
 * Place each code section of ko (an ET_REL module: .text, .init.text,
 * .exit.text, .text.unlikely...) at its load address, found through the
 * symbols it defines: section address = the symbol's running address -
 * its value. Call before anything reads ko's symbols or DWARF. Returns
 * the number of sections placed (0: no symbol of ko is known to addr).
 */
size_t psym_kmod_place(struct psym_elf *ko, psym_kmod_addr_fn addr, void *ud);

#endif
