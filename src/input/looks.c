/* SPDX-License-Identifier: MIT */
/*
 * What a file looks like, by its first bytes: for the line that refuses a
 * file no reader takes, and for the pprof reader, which takes what has no
 * magic of its own.
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "looks.h"

static bool has_prefix(const unsigned char *buf, size_t len, const char *magic)
{
	size_t n = strlen(magic);

	return len >= n && !memcmp(buf, magic, n);
}

/* The first non-blank byte of a text file, or 0. */
static unsigned char first_text(const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len && i < 4096; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r')
			return buf[i];
	return 0;
}

const char *psym_input_looks_like(const unsigned char *buf, size_t len)
{
	if (len == 0)
		return "an empty file";
	if (has_prefix(buf, len, "\177ELF")) {
		/* e_type: at 16, in the file's byte order (EI_DATA at 5). */
		unsigned t = len >= 18 ? (buf[5] == 2 ? (unsigned)buf[16] << 8 | buf[17]
						      : (unsigned)buf[17] << 8 | buf[16])
				       : 0;

		switch (t) {
		case 4: return "an ELF core file (psym stack reads cores)";
		case 1: return "an ELF relocatable object (psym addr -e reads objects)";
		case 2:
		case 3: return "an ELF executable or shared object (psym addr -e reads binaries)";
		default: return "an ELF file";
		}
	}
	if (has_prefix(buf, len, "PERFILE2") || has_prefix(buf, len, "2ELIFREP"))
		return "a perf.data file (PERFILE2)";
	if (has_prefix(buf, len, "PERFFILE"))
		return "a perf.data file of the old format (PERFFILE)";
	if (has_prefix(buf, len, "\x28\xb5\x2f\xfd"))
		return "zstd-compressed data (decompress it first)";
	if (has_prefix(buf, len,
		       "\xfd"
		       "7zXZ"))
		return "xz-compressed data (decompress it first)";
	if (has_prefix(buf, len, "BZh"))
		return "bzip2-compressed data (decompress it first)";
	if (has_prefix(buf, len, "PK\003\004"))
		return "a zip archive";
	if (len >= 262 && !memcmp(buf + 257, "ustar", 5))
		return "a tar archive";
	if (has_prefix(buf, len, "!<arch>\n"))
		return "an ar archive (a .deb or static library)";
	if (has_prefix(buf, len, "PSYMUSTK"))
		return "a psym-collect stack-copy file (give the profile beside its .d/ directory)";
	if (first_text(buf, len) == '{' || first_text(buf, len) == '[')
		return "JSON text";
	return NULL;
}
