/* SPDX-License-Identifier: MIT */
/*
 * Capped decompression: xz (liblzma's encoder as the reference), gzip, and
 * one-shot zlib / zstd into a buffer (zlib's and libzstd's encoders).
 */
#include "config.h"

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#include <stdlib.h>
#include <string.h>

#include "compress.h"
#include "tap.h"

int main(void)
{
	static unsigned char plain[1 << 20], xz[1 << 20];
	struct psym_err e = { 0 };
	unsigned char *out = NULL, *gz = NULL;
	size_t xzlen = 0, outlen = 0, gzlen = 0;

	for (size_t i = 0; i < sizeof(plain); i++)
		plain[i] = (unsigned char)((i * 2654435761u) >> 13);
	ok(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, plain, sizeof(plain), xz, &xzlen,
				   sizeof(xz)) == LZMA_OK,
	   "reference xz encode");
	ok(psym_unxz(xz, xzlen, sizeof(plain), "t", &out, &outlen, &e) == 0, "unxz");
	ok(outlen == sizeof(plain) && memcmp(out, plain, outlen) == 0, "unxz round trip");
	free(out);
	out = NULL;
	is_int(psym_unxz(xz, xzlen, sizeof(plain) - 1, "t", &out, &outlen, &e), PSYM_ELIMIT,
	       "unxz cap: %s", e.msg);
	is_int(psym_unxz(xz, xzlen / 2, sizeof(plain), "t", &out, &outlen, &e), PSYM_EBADINPUT,
	       "truncated xz: %s", e.msg);
	is_int(psym_unxz(plain, 100, sizeof(plain), "t", &out, &outlen, &e), PSYM_EBADINPUT,
	       "not xz: %s", e.msg);

	ok(psym_gzip(plain, sizeof(plain), &gz, &gzlen, &e) == 0, "gzip");
	ok(psym_is_gzip(gz, gzlen), "gzip magic");
	ok(psym_gunzip(gz, gzlen, sizeof(plain), "t", &out, &outlen, &e) == 0 &&
		   outlen == sizeof(plain) && memcmp(out, plain, outlen) == 0,
	   "gunzip round trip");
	free(out);
	is_int(psym_gunzip(gz, gzlen, 1000, "t", &out, &outlen, &e), PSYM_ELIMIT, "gunzip cap: %s",
	       e.msg);
	{
		/* Two concatenated members decode as one stream (like gzip -dc). */
		unsigned char *two = malloc(2 * gzlen);

		memcpy(two, gz, gzlen);
		memcpy(two + gzlen, gz, gzlen);
		ok(psym_gunzip(two, 2 * gzlen, 4 << 20, "t", &out, &outlen, &e) == 0 &&
			   outlen == 2 * sizeof(plain),
		   "concatenated gzip members");
		free(out);
		free(two);
	}
	{
		/* Appended members, independent of what was there: gzip -dc joins them. */
		unsigned char *cat = NULL;
		size_t catlen = 0, catcap = 0;

		ok(psym_gzip_append(plain, 1000, &cat, &catlen, &catcap, &e) == 0 &&
			   psym_gzip_append(plain + 1000, sizeof(plain) - 1000, &cat, &catlen,
					    &catcap, &e) == 0 &&
			   psym_gzip_append(plain, 0, &cat, &catlen, &catcap, &e) == 0,
		   "gzip_append: three members");
		ok(catlen <= catcap &&
			   psym_gunzip(cat, catlen, sizeof(plain), "t", &out, &outlen, &e) == 0 &&
			   outlen == sizeof(plain) && memcmp(out, plain, outlen) == 0,
		   "gzip_append: the members decode to the input");
		free(out);
		free(cat);
	}
	{
		/*
		 * The fast decoder sizes its buffer from the last member's ISIZE:
		 * a large first member behind a small last one makes it grow; a
		 * trailer that lies, a truncated stream and trailing bytes go the
		 * streaming way, which names the problem.
		 */
		static unsigned char zeros[8 << 20];
		unsigned char *cat = NULL;
		size_t catlen = 0, catcap = 0;

		ok(psym_gzip_append(zeros, sizeof(zeros), &cat, &catlen, &catcap, &e) == 0 &&
			   psym_gzip_append(plain, 1000, &cat, &catlen, &catcap, &e) == 0,
		   "gzip_append: 8 MiB of zeros, then 1000 bytes");
		ok(psym_gunzip(cat, catlen, 16 << 20, "t", &out, &outlen, &e) == 0 &&
			   outlen == sizeof(zeros) + 1000 &&
			   memcmp(out, zeros, sizeof(zeros)) == 0 &&
			   memcmp(out + sizeof(zeros), plain, 1000) == 0,
		   "gunzip: a first member far larger than the last one's ISIZE says");
		free(out);
		out = NULL;
		is_int(psym_gunzip(cat, catlen, sizeof(zeros), "t", &out, &outlen, &e), PSYM_ELIMIT,
		       "gunzip: the cap holds on the fast way too: %s", e.msg);
		cat[catlen - 4] ^= 1; /* the last member's ISIZE */
		ok(psym_gunzip(cat, catlen, 16 << 20, "t", &out, &outlen, &e) == PSYM_EBADGZIP &&
			   strstr(e.msg, "'t'"),
		   "gunzip: a lying ISIZE: %s", e.msg);
		cat[catlen - 4] ^= 1;
		ok(psym_gunzip(cat, catlen - 3, 16 << 20, "t", &out, &outlen, &e) ==
				   PSYM_EBADGZIP &&
			   strstr(e.msg, "truncated"),
		   "gunzip: truncated: %s", e.msg);
		{
			unsigned char *g = realloc(cat, catlen + 3);

			if (g) {
				cat = g;
				memcpy(cat + catlen, "xyz", 3);
			}
			ok(g &&
				   psym_gunzip(cat, catlen + 3, 16 << 20, "t", &out, &outlen, &e) ==
					   PSYM_EBADGZIP &&
				   strstr(e.msg, "trailing garbage"),
			   "gunzip: trailing bytes: %s", e.msg);
		}
		free(cat);
	}
	free(gz);
	{
		/* One-shot into the caller's buffer, as compressed ELF sections are. */
		static unsigned char z[(1 << 20) + 4096], back[1 << 20];
		uLongf zlen = sizeof(z);
		size_t zs, got = 0;

		ok(compress2(z, &zlen, plain, sizeof(plain), 6) == Z_OK, "reference zlib encode");
		ok(psym_decompress_into(PSYM_ZLIB, z, zlen, back, sizeof(back), &got) == 0 &&
			   got == sizeof(plain) && memcmp(back, plain, got) == 0,
		   "zlib one-shot round trip");
		is_int(psym_decompress_into(PSYM_ZLIB, z, zlen, back, sizeof(back) - 1, &got),
		       PSYM_EBADINPUT, "zlib one-shot: output past the buffer is refused");
		is_int(psym_decompress_into(PSYM_ZLIB, z, zlen / 2, back, sizeof(back), &got),
		       PSYM_EBADINPUT, "zlib one-shot: truncated stream");
		zs = ZSTD_compress(z, sizeof(z), plain, sizeof(plain), 3);
		ok(!ZSTD_isError(zs), "reference zstd encode");
		ok(psym_decompress_into(PSYM_ZSTD, z, zs, back, sizeof(back), &got) == 0 &&
			   got == sizeof(plain) && memcmp(back, plain, got) == 0,
		   "zstd one-shot round trip");
		is_int(psym_decompress_into(PSYM_ZSTD, z, zs, back, sizeof(back) - 1, &got),
		       PSYM_EBADINPUT, "zstd one-shot: output past the buffer is refused");
		is_int(psym_decompress_into(PSYM_ZSTD, plain, 100, back, sizeof(back), &got),
		       PSYM_EBADINPUT, "zstd one-shot: not zstd");
		is_int(psym_decompress_into((enum psym_zformat)7, z, zs, back, sizeof(back), &got),
		       PSYM_EBADINPUT, "one-shot: unknown format");
	}
	return tap_done();
}
