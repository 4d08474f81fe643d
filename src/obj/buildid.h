/* SPDX-License-Identifier: MIT */
/*
 * GNU build IDs: read from ELF note data, from ELF files, and from the
 * kernel's /sys/kernel/notes; formatted as lowercase hex.
 *
 * Go build IDs: Go's linker writes a note with owner "Go", type 4, whose
 * descriptor is the build ID as `go tool buildid` prints it
 * ("ACTION/CONTENT..." in base64url with '/' between the parts). Many Go
 * binaries have no GNU build ID, only this note. A mapping of such a file
 * records it as "go:" followed by that string (PSYM_GO_BUILD_ID_PREFIX):
 * ':' is not a hex digit, so the form never collides with a GNU build ID,
 * fails psym_build_id_valid and so never reaches a path, a .build-id tree
 * or debuginfod; the index store and the answer cache take its key
 * (psym_go_build_id_key). It is only compared (psym_build_id_equal) with
 * the Go build ID of a file found by path.
 */
#ifndef PSYM_BUILDID_H
#define PSYM_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Longest build ID accepted (bytes); real ones are 16-20 (sha1) or 32. */
#define PSYM_BUILD_ID_MAX 64
/* Buffer size for the hex form including the NUL. */
#define PSYM_BUILD_ID_HEX_MAX (2 * PSYM_BUILD_ID_MAX + 1)

/*
 * Find an NT_GNU_BUILD_ID note ("GNU" owner) in a buffer of ELF notes (the
 * contents of a PT_NOTE segment, an SHT_NOTE section or /sys/kernel/notes).
 * Bounds-checked; align is 4 or 8. Writes hex to out and returns 0, or
 * PSYM_NOENT when no build ID note is present.
 */
int psym_notes_build_id(const void *notes, size_t len, size_t align, bool swap,
			char out[PSYM_BUILD_ID_HEX_MAX]);

/* The prefix of a Go build ID as psym records it (see the top of this file). */
#define PSYM_GO_BUILD_ID_PREFIX "go:"
/* Go's note type for the build ID (owner "Go"). */
#define PSYM_NT_GO_BUILD_ID 4
/* Longest Go build ID string accepted (the prefix and the NUL still fit). */
#define PSYM_GO_BUILD_ID_MAX (PSYM_BUILD_ID_HEX_MAX - 1 - (sizeof(PSYM_GO_BUILD_ID_PREFIX) - 1))

/*
 * Find Go's build ID note in a buffer of ELF notes; write it in the "go:"
 * form and return 0, or PSYM_NOENT when there is none or it is not one:
 * empty, longer than PSYM_GO_BUILD_ID_MAX, or with a byte outside
 * [A-Za-z0-9_./+=-] (trailing NULs are dropped). Bounds-checked.
 */
int psym_notes_go_build_id(const void *notes, size_t len, size_t align, bool swap,
			   char out[PSYM_BUILD_ID_HEX_MAX]);

/* The build ID a mapping records: the GNU one, else the Go one. */
int psym_notes_mapping_build_id(const void *notes, size_t len, size_t align, bool swap,
				char out[PSYM_BUILD_ID_HEX_MAX]);

/*
 * The key that stands for a Go build ID where only lowercase hex is taken
 * (the index store, the answer cache): "676f" ("go") and two 64-bit FNV-1a
 * hashes of the "go:" form (different starting values), 36 hex digits, a
 * length no GNU linker writes. Not a build ID: it names what psym made
 * of the file (an index, a cache file, an archive's member), and a file
 * found under it is checked by its Go build ID. 0, or PSYM_NOENT when go
 * is not in the "go:" form.
 */
int psym_go_build_id_key(const char *go, char out[PSYM_BUILD_ID_HEX_MAX]);

/*
 * Build ID of an ELF file, read from its notes (program headers first, then
 * section headers). Opens only regular files. Returns 0, PSYM_NOENT (no
 * build ID) or a negative error with a message naming the file.
 */
int psym_elf_file_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX], struct psym_err *e);
/* Same, on an open file descriptor (not closed). */
int psym_elf_fd_build_id(int fd, const char *name, char out[PSYM_BUILD_ID_HEX_MAX],
			 struct psym_err *e);

/*
 * Same, on a libelf handle (an `Elf *`). A DWARF 5 supplementary file
 * (dwz -5 -m writes one with no note) is known by the checksum in its own
 * .debug_sup, which the files using it name: that is its build ID.
 */
int psym_libelf_build_id(void *elf, char out[PSYM_BUILD_ID_HEX_MAX]);
/* The Go build ID ("go:" form) of a libelf handle: 0 or PSYM_NOENT. */
int psym_libelf_go_build_id(void *elf, char out[PSYM_BUILD_ID_HEX_MAX]);

/*
 * The build ID a mapping of the file records (psym-collect): the GNU one
 * as psym_elf_file_build_id reads it, else the Go one in the "go:" form.
 */
int psym_elf_file_mapping_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX],
				   struct psym_err *e);
/* Same, on an open file descriptor (not closed). */
int psym_elf_fd_mapping_build_id(int fd, const char *name, char out[PSYM_BUILD_ID_HEX_MAX],
				 struct psym_err *e);

/*
 * A .debug_sup section (DWARF 5, section 7.3.6): version 5, whether this
 * is the supplementary file itself, the supplementary file's name (in the
 * file using it) and its checksum. Pointers into data; 0, or PSYM_EBADDWARF
 * when it is malformed (bounds-checked; the name is not checked here).
 */
struct psym_debug_sup {
	bool is_supplementary;
	const char *name; /* NUL-terminated inside data */
	const uint8_t *checksum;
	size_t checksum_len;
};
int psym_debug_sup_parse(const void *data, size_t len, bool msb, struct psym_debug_sup *out);

/* Kernel build ID from a /sys/kernel/notes style file. */
int psym_kernel_notes_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX],
			       struct psym_err *e);

/*
 * True when s is a build ID as psym writes one (its keys, file names and
 * side files): psym_build_id_valid and lowercase.
 */
bool psym_build_id_canonical(const char *s);

/* Normalize hex to lowercase in place. */
void psym_build_id_lower(char *s);

#endif
