/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "compress.h"
#include "kmodfile.h"

static const char *const kmod_ext[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz", ".ko.debug" };
#define N_EXT (sizeof(kmod_ext) / sizeof(kmod_ext[0]))

size_t psym_kmod_ext_len(const char *path, size_t n)
{
	for (size_t i = 0; i < N_EXT; i++) {
		size_t k = strlen(kmod_ext[i]);

		if (n > k && strcmp(path + n - k, kmod_ext[i]) == 0)
			return k;
	}
	return 0;
}

bool psym_kmod_name_is(const char *path)
{
	return psym_kmod_ext_len(path, strlen(path)) != 0;
}

int psym_kmod_decompress(const char *path, const unsigned char *buf, size_t len, size_t max,
			 unsigned char **out, size_t *outlen, struct psym_err *e)
{
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	int ret;

	if (!max)
		max = PSYM_KMOD_MAX_BYTES;
	/*
	 * Modules, DWARF and all, compress 3 to 10 times; zeros 6,000 times.
	 * A claim past 64 times (plus 64 MiB) is a bomb, refused before it
	 * costs the full cap in memory.
	 */
	if (len < ((size_t)1 << 40) && max > len * 64 + ((size_t)64 << 20))
		max = len * 64 + ((size_t)64 << 20);
	if (len >= 6 && memcmp(buf, xz, 6) == 0)
		ret = psym_unxz(buf, len, max, path, out, outlen, e);
	else if (len >= 4 && memcmp(buf, zst, 4) == 0)
		ret = psym_unzstd(buf, len, max, path, out, outlen, e);
	else if (psym_is_gzip(buf, len))
		ret = psym_gunzip(buf, len, max, path, out, outlen, e);
	else
		return PSYM_NOENT;
	if (ret)
		return ret;
	if (*outlen < 4 || memcmp(*out, ELFMAG, 4) != 0) {
		free(*out);
		return psym_err_set(e, PSYM_EBADELF, "'%s': decompresses to no ELF file", path);
	}
	return 0;
}
