/* SPDX-License-Identifier: MIT */
/*
 * Mapping classification: what kind of memory a pprof Mapping describes,
 * from its file name, so that each class goes to its resolver.
 */
#ifndef PSYM_MAPPING_H
#define PSYM_MAPPING_H

#include <stdbool.h>
#include <stddef.h>

enum psym_map_class {
	PSYM_MAP_FILE,	  /* a file-backed ELF mapping */
	PSYM_MAP_VDSO,	  /* [vdso], linux-vdso.so.1 */
	PSYM_MAP_KERNEL,  /* [kernel.kallsyms], with or without _text/_stext */
	PSYM_MAP_KMODULE, /* a kernel module: [ext4], /lib/modules/.../x.ko */
	PSYM_MAP_ANON,	  /* anonymous executable memory: maybe JIT code */
	PSYM_MAP_SPECIAL, /* [heap], [stack], [vsyscall], [vvar], ... */
};

/*
 * Classify a mapping file name. When clean is non-NULL it receives the
 * name without a trailing " (deleted)" and, for the kernel, without perf's
 * "_text"/"_stext" suffix; *deleted tells whether the suffix was there.
 */
enum psym_map_class psym_mapping_classify(const char *name, char *clean, size_t cleansz,
					  bool *deleted);

const char *psym_map_class_name(enum psym_map_class c);

#endif
