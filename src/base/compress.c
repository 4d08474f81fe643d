/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <lzma.h>
#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#include "compress.h"

bool psym_is_gzip(const unsigned char *buf, size_t len)
{
	return len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

/*
 * Room for more output of a streaming decoder: doubled, starting from four
 * times the input (at least 64 KiB), never beyond max + 1 bytes (one past
 * the cap shows that the output would exceed it). PSYM_ELIMIT once the
 * output holds more than max bytes.
 */
static int grow_out(unsigned char **out, size_t *cap, size_t len, size_t max, const char *name,
		    struct psym_err *e)
{
	size_t ncap = *cap ? *cap * 2 : (len < 16384 ? 65536 : len * 4);
	unsigned char *nb;

	if (*cap > max)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': decompresses to more than the limit of %zu bytes", name,
				    max);
	if (ncap > max + 1 || ncap < *cap)
		ncap = max + 1;
	nb = realloc(*out, ncap);
	if (!nb)
		return psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
	*out = nb;
	*cap = ncap;
	return 0;
}

#define GUNZIP_RATIO_MIN ((size_t)64 << 20)
#define GUNZIP_RATIO_MAX 200

/*
 * The fast way (libdeflate, about twice zlib's speed): member by member
 * into one buffer, sized from the last member's ISIZE trailer (or four
 * times the input) and doubled while too small, never past the caps of
 * the streaming way: max, and GUNZIP_RATIO_MAX times the input past
 * GUNZIP_RATIO_MIN. 0 with the output; 1 when anything is wrong (corrupt,
 * truncated, trailing bytes, over a cap, no memory for the buffer: the
 * streaming way then says exactly what, or grows its own buffer). An
 * ISIZE beyond what deflate can expand the input to (1032:1) is ignored.
 */
static int gunzip_fast(const unsigned char *in, size_t len, size_t max, unsigned char **outp,
		       size_t *outlenp)
{
	size_t limit = len > SIZE_MAX / GUNZIP_RATIO_MAX	   ? max
		       : len > GUNZIP_RATIO_MIN / GUNZIP_RATIO_MAX ? len * GUNZIP_RATIO_MAX
								   : GUNZIP_RATIO_MIN;
	size_t cap, used = 0, pos = 0;
	struct libdeflate_decompressor *d;
	unsigned char *out;
	int ret = 1;

	if (limit > max)
		limit = max;
	cap = len >= 18 ? (size_t)in[len - 4] | (size_t)in[len - 3] << 8 |
				  (size_t)in[len - 2] << 16 | (size_t)in[len - 1] << 24
			: 0;
	if (cap / 1032 > len)
		cap = 0;
	if (cap < len * 4)
		cap = len * 4;
	if (cap < 65536)
		cap = 65536;
	if (cap > limit)
		cap = limit;
	d = libdeflate_alloc_decompressor();
	out = malloc(cap ? cap : 1);
	if (!d || !out)
		goto out;
	while (pos < len) {
		size_t in_n = 0, out_n = 0;
		enum libdeflate_result r;

		if (!psym_is_gzip(in + pos, len - pos))
			goto out;
		r = libdeflate_gzip_decompress_ex(d, in + pos, len - pos, out + used, cap - used,
						  &in_n, &out_n);
		if (r == LIBDEFLATE_SUCCESS) {
			pos += in_n;
			used += out_n;
			continue;
		}
		if (r != LIBDEFLATE_INSUFFICIENT_SPACE || cap >= limit)
			goto out;
		{
			size_t ncap = cap > limit / 2 ? limit : cap * 2;
			unsigned char *nb = realloc(out, ncap);

			if (!nb)
				goto out;
			out = nb;
			cap = ncap;
		}
	}
	*outp = out;
	*outlenp = used;
	out = NULL;
	ret = 0;
out:
	free(out);
	if (d)
		libdeflate_free_decompressor(d);
	return ret;
}

int psym_gunzip(const unsigned char *in, size_t len, size_t max, const char *name,
		unsigned char **outp, size_t *outlenp, struct psym_err *e)
{
	unsigned char *out = NULL;
	size_t cap = 0, used = 0;
	z_stream zs;
	int zr, ret;

	if (gunzip_fast(in, len, max, outp, outlenp) == 0)
		return 0;
	ret = 0;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return psym_err_set(e, PSYM_ENOMEM, "'%s': cannot start gzip decoder", name);
	zs.next_in = (unsigned char *)in;
	for (;;) {
		size_t chunk_in = len - (size_t)(zs.next_in - in);

		zs.avail_in = chunk_in > UINT32_MAX ? UINT32_MAX : (uInt)chunk_in;
		if (used == cap) {
			ret = grow_out(&out, &cap, len, max, name, e);
			if (ret)
				goto out;
		}
		zs.next_out = out + used;
		zs.avail_out = (cap - used) > UINT32_MAX ? UINT32_MAX : (uInt)(cap - used);
		{
			uInt before = zs.avail_out;

			zr = inflate(&zs, Z_NO_FLUSH);
			used += before - zs.avail_out;
		}
		if (used > max) {
			ret = psym_err_set(e, PSYM_ELIMIT,
					   "'%s': decompresses to more than the limit of %zu bytes",
					   name, max);
			goto out;
		}
		/*
		 * A profile compresses 3-10 times; past GUNZIP_RATIO_MIN bytes,
		 * more than GUNZIP_RATIO_MAX times its input is a bomb of zeros:
		 * refused now rather than after inflating up to max (seconds).
		 */
		if (used > GUNZIP_RATIO_MIN && zs.next_in > in &&
		    used / (size_t)(zs.next_in - in) > GUNZIP_RATIO_MAX) {
			ret = psym_err_set(e, PSYM_ELIMIT,
					   "'%s': decompresses to more than %d times its size "
					   "(a gzip bomb: profiles compress 3-10 times)",
					   name, GUNZIP_RATIO_MAX);
			goto out;
		}
		if (zr == Z_STREAM_END) {
			/* Another gzip member may follow. */
			size_t rest = len - (size_t)(zs.next_in - in);

			if (rest == 0)
				break;
			if (!psym_is_gzip(zs.next_in, rest)) {
				ret = psym_err_set(e, PSYM_EBADGZIP,
						   "'%s': trailing garbage after gzip data", name);
				goto out;
			}
			inflateReset(&zs);
			continue;
		}
		if (zr == Z_BUF_ERROR && zs.avail_in == 0 && zs.avail_out != 0) {
			ret = psym_err_set(e, PSYM_EBADGZIP, "'%s': truncated gzip data", name);
			goto out;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			ret = psym_err_set(e, zr == Z_MEM_ERROR ? PSYM_ENOMEM : PSYM_EBADGZIP,
					   "'%s': corrupt gzip data (%s)", name,
					   zs.msg ? zs.msg : "inflate failed");
			goto out;
		}
		if (zs.avail_in == 0 && zs.avail_out != 0 && zr == Z_OK &&
		    (size_t)(zs.next_in - in) == len) {
			/* All input consumed, output room left, no stream end. */
			ret = psym_err_set(e, PSYM_EBADGZIP, "'%s': truncated gzip data", name);
			goto out;
		}
	}
	*outp = out;
	*outlenp = used;
	out = NULL;
out:
	inflateEnd(&zs);
	free(out);
	return ret;
}

/*
 * libdeflate level 1, and its header has no mtime (output is reproducible).
 * On libjvm's symbolized profile of a million locations (64 MB encoded, in
 * 4 MiB members) level 1 takes 0.37 s for 30.9 MB, level 3 0.58 s for 29.6
 * MB, level 6 1.02 s for 28.8 MB: compression was the largest single cost
 * of symbolizing from an index, and 4% more bytes buy a third of it back.
 */
#define GZIP_LEVEL 1

int psym_gzip(const unsigned char *in, size_t len, unsigned char **outp, size_t *outlenp,
	      struct psym_err *e)
{
	struct libdeflate_compressor *c;
	unsigned char *out;
	size_t cap, n;

	if (len > UINT32_MAX / 2)
		return psym_err_set(e, PSYM_ELIMIT, "profile too large to compress");
	c = libdeflate_alloc_compressor(GZIP_LEVEL);
	if (!c)
		return psym_err_set(e, PSYM_ENOMEM, "cannot start gzip encoder");
	cap = libdeflate_gzip_compress_bound(c, len);
	out = malloc(cap);
	if (!out) {
		libdeflate_free_compressor(c);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	n = libdeflate_gzip_compress(c, in, len, out, cap);
	libdeflate_free_compressor(c);
	if (!n) {
		free(out);
		return psym_err_set(e, PSYM_EINTERNAL, "gzip compression failed");
	}
	*outlenp = n;
	*outp = out;
	return 0;
}

int psym_zstd(const unsigned char *in, size_t len, int level, unsigned char **outp, size_t *outlenp,
	      struct psym_err *e)
{
	size_t cap = ZSTD_compressBound(len), n;
	unsigned char *out;

	if (ZSTD_isError(cap))
		return psym_err_set(e, PSYM_ELIMIT, "too large to compress");
	out = malloc(cap ? cap : 1);
	if (!out)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	n = ZSTD_compress(out, cap, in, len, level);
	if (ZSTD_isError(n)) {
		free(out);
		return psym_err_set(e, PSYM_EINTERNAL, "zstd compression failed: %s",
				    ZSTD_getErrorName(n));
	}
	*outlenp = n;
	*outp = out;
	return 0;
}

int psym_gzip_append(const unsigned char *in, size_t len, unsigned char **outp, size_t *outlenp,
		     size_t *outcapp, struct psym_err *e)
{
	struct libdeflate_compressor *c;
	size_t bound, n, cap = *outcapp;

	if (len > UINT32_MAX / 2)
		return psym_err_set(e, PSYM_ELIMIT, "profile too large to compress");
	c = libdeflate_alloc_compressor(GZIP_LEVEL);
	if (!c)
		return psym_err_set(e, PSYM_ENOMEM, "cannot start gzip encoder");
	bound = libdeflate_gzip_compress_bound(c, len);
	if (cap - *outlenp < bound) {
		unsigned char *nb;

		while (cap - *outlenp < bound)
			cap = cap ? cap * 2 : bound;
		nb = realloc(*outp, cap);
		if (!nb) {
			libdeflate_free_compressor(c);
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
		*outp = nb;
		*outcapp = cap;
	}
	n = libdeflate_gzip_compress(c, in, len, *outp + *outlenp, bound);
	libdeflate_free_compressor(c);
	if (!n)
		return psym_err_set(e, PSYM_EINTERNAL, "gzip compression failed");
	*outlenp += n;
	return 0;
}

int psym_unxz(const unsigned char *in, size_t len, size_t max, const char *name,
	      unsigned char **outp, size_t *outlenp, struct psym_err *e)
{
	lzma_stream xs = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	size_t cap = 0;
	lzma_ret xr;
	int ret = 0;

	/* 256 MiB of decoder memory covers every preset (xz -9 needs 65 MiB). */
	if (lzma_stream_decoder(&xs, (uint64_t)256 << 20, 0) != LZMA_OK)
		return psym_err_set(e, PSYM_ENOMEM, "'%s': cannot start xz decoder", name);
	xs.next_in = in;
	xs.avail_in = len;
	for (;;) {
		if (xs.total_out == cap) {
			ret = grow_out(&out, &cap, len, max, name, e);
			if (ret)
				goto out;
		}
		xs.next_out = out + xs.total_out;
		xs.avail_out = cap - xs.total_out;
		xr = lzma_code(&xs, LZMA_FINISH);
		if (xs.total_out > max) {
			ret = psym_err_set(e, PSYM_ELIMIT,
					   "'%s': decompresses to more than the limit of %zu bytes",
					   name, max);
			goto out;
		}
		if (xr == LZMA_STREAM_END)
			break;
		if (xr == LZMA_OK && xs.avail_out == 0)
			continue;
		ret = psym_err_set(e,
				   xr == LZMA_MEM_ERROR || xr == LZMA_MEMLIMIT_ERROR
					   ? PSYM_ELIMIT
					   : PSYM_EBADINPUT,
				   "'%s': corrupt or truncated xz data (code %d)", name, (int)xr);
		goto out;
	}
	*outp = out;
	*outlenp = xs.total_out;
	out = NULL;
out:
	lzma_end(&xs);
	free(out);
	return ret;
}

int psym_unzstd(const unsigned char *in, size_t len, size_t max, const char *name,
		unsigned char **outp, size_t *outlenp, struct psym_err *e)
{
	ZSTD_DStream *zs = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	ZSTD_outBuffer ob = { NULL, 0, 0 };
	unsigned char *out = NULL;
	size_t cap = 0, r = 1;
	int ret = 0;

	if (!zs)
		return psym_err_set(e, PSYM_ENOMEM, "'%s': cannot start zstd decoder", name);
	/* A window of at most 128 MiB (zstd --long=27): decoder memory is capped too. */
	ZSTD_DCtx_setParameter(zs, ZSTD_d_windowLogMax, 27);
	{
		/* The size the first frame records (within max): one buffer, no regrowth. */
		unsigned long long fcs = ZSTD_getFrameContentSize(in, len);

		if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != ZSTD_CONTENTSIZE_ERROR && fcs < max &&
		    (out = malloc((size_t)fcs + 1)))
			cap = (size_t)fcs + 1;
	}
	while (ib.pos < ib.size || r != 0) {
		if (ob.pos == cap) {
			ret = grow_out(&out, &cap, len, max, name, e);
			if (ret)
				goto out;
		}
		ob.dst = out;
		ob.size = cap;
		r = ZSTD_decompressStream(zs, &ob, &ib);
		if (ZSTD_isError(r)) {
			ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': corrupt zstd data (%s)", name,
					   ZSTD_getErrorName(r));
			goto out;
		}
		if (ob.pos > max) {
			ret = psym_err_set(e, PSYM_ELIMIT,
					   "'%s': decompresses to more than the limit of %zu bytes",
					   name, max);
			goto out;
		}
		if (ib.pos == ib.size && r != 0 && ob.pos < cap) {
			ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': truncated zstd data", name);
			goto out;
		}
	}
	*outp = out;
	*outlenp = ob.pos;
	out = NULL;
out:
	ZSTD_freeDStream(zs);
	free(out);
	return ret;
}

int psym_decompress_into(enum psym_zformat f, const void *in, size_t len, void *out, size_t cap,
			 size_t *got)
{
	if (f == PSYM_ZLIB) {
		struct libdeflate_decompressor *dec = libdeflate_alloc_decompressor();
		enum libdeflate_result r;

		if (!dec)
			return PSYM_ENOMEM;
		*got = 0;
		r = libdeflate_zlib_decompress(dec, in, len, out, cap, got);
		libdeflate_free_decompressor(dec);
		return r == LIBDEFLATE_SUCCESS ? 0 : PSYM_EBADINPUT;
	}
	if (f == PSYM_ZSTD) {
		size_t n = ZSTD_decompress(out, cap, in, len);

		if (ZSTD_isError(n))
			return PSYM_EBADINPUT;
		*got = n;
		return 0;
	}
	return PSYM_EBADINPUT;
}
