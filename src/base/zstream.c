/* SPDX-License-Identifier: MIT */
/* Decompression from one file descriptor to another (zstream.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "zstream.h"

#define ZS_BUF ((size_t)1 << 20)

enum psym_zstream_kind psym_zstream_sniff(const unsigned char *m, size_t len)
{
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd },
				   xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	if (len >= 4 && !memcmp(m, zst, 4))
		return PSYM_ZS_ZSTD;
	if (len >= 6 && !memcmp(m, xz, 6))
		return PSYM_ZS_XZ;
	if (len >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		return PSYM_ZS_GZIP;
	return PSYM_ZS_NONE;
}

struct zs {
	enum psym_zstream_kind kind;
	int in, out;
	const char *name, *raise;
	uint64_t max, total;
	unsigned char *ib, *ob;
	size_t ipos, ilen; /* ib[ipos..ilen) not yet decoded */
	bool eof;	   /* in has no more bytes */
	struct psym_err *e;
	ZSTD_DStream *z;
	lzma_stream x;
	z_stream g;
	bool g_init;
	bool hole; /* the output ends with a hole: its size set by ftruncate */
};

/* More input when ib is used up; -1 on a read error (said in e). */
static int fill(struct zs *s)
{
	ssize_t n;

	if (s->ipos < s->ilen || s->eof)
		return 0;
	do
		n = read(s->in, s->ib, ZS_BUF);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return psym_err_set(s->e, PSYM_EIO, "'%s': read error: %s", s->name,
				    strerror(errno));
	s->ipos = 0;
	s->ilen = (size_t)n;
	s->eof = n == 0;
	return 0;
}

/* Write the n decoded bytes of ob; the cap checked first. */
static int flush(struct zs *s, size_t n)
{
	size_t done = 0;

	if (n > s->max - s->total)
		return psym_err_set(s->e, PSYM_ELIMIT,
				    "'%s': decompresses to more than the limit of %llu bytes (%s)",
				    s->name, (unsigned long long)s->max, s->raise);
	if (n && !s->ob[0] && !memcmp(s->ob, s->ob + 1, n - 1)) {
		/* Zeros (most of a core): a hole, no space taken; sized at the end. */
		if (lseek(s->out, (off_t)n, SEEK_CUR) < 0)
			return psym_err_set(s->e, PSYM_EIO, "'%s': cannot seek in its copy: %s",
					    s->name, strerror(errno));
		s->total += n;
		s->hole = true;
		return 0;
	}
	s->hole = false;
	while (done < n) {
		ssize_t w = write(s->out, s->ob + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return psym_err_set(s->e, PSYM_EIO,
					    "'%s': cannot write its decompressed copy (to $TMPDIR "
					    "or /tmp): %s",
					    s->name, w < 0 ? strerror(errno) : "short write");
		done += (size_t)w;
	}
	s->total += n;
	return 0;
}

static int run_zstd(struct zs *s)
{
	size_t r = 1;
	int ret;

	s->z = ZSTD_createDStream();
	if (!s->z)
		return psym_err_set(s->e, PSYM_ENOMEM, "'%s': cannot start zstd decoder", s->name);
	/* A window of at most 128 MiB (zstd --long=27): decoder memory is capped too. */
	ZSTD_DCtx_setParameter(s->z, ZSTD_d_windowLogMax, 27);
	for (;;) {
		ZSTD_inBuffer ib;
		ZSTD_outBuffer ob = { s->ob, ZS_BUF, 0 };

		if ((ret = fill(s)))
			return ret;
		if (s->eof && r == 0)
			return 0;
		ib = (ZSTD_inBuffer){ s->ib, s->ilen, s->ipos };
		r = ZSTD_decompressStream(s->z, &ob, &ib);
		if (ZSTD_isError(r))
			return psym_err_set(s->e, PSYM_EBADINPUT, "'%s': corrupt zstd data (%s)",
					    s->name, ZSTD_getErrorName(r));
		s->ipos = ib.pos;
		if ((ret = flush(s, ob.pos)))
			return ret;
		if (s->eof && ob.pos < ob.size && r != 0)
			return psym_err_set(s->e, PSYM_EBADINPUT, "'%s': truncated zstd data",
					    s->name);
	}
}

static int run_xz(struct zs *s)
{
	lzma_stream init = LZMA_STREAM_INIT;
	int ret;

	s->x = init;
	/* 256 MiB of decoder memory covers every preset (xz -9 needs 65 MiB). */
	if (lzma_stream_decoder(&s->x, (uint64_t)256 << 20, LZMA_CONCATENATED) != LZMA_OK)
		return psym_err_set(s->e, PSYM_ENOMEM, "'%s': cannot start xz decoder", s->name);
	for (;;) {
		lzma_ret xr;

		if ((ret = fill(s)))
			return ret;
		s->x.next_in = s->ib + s->ipos;
		s->x.avail_in = s->ilen - s->ipos;
		s->x.next_out = s->ob;
		s->x.avail_out = ZS_BUF;
		xr = lzma_code(&s->x, s->eof ? LZMA_FINISH : LZMA_RUN);
		s->ipos = s->ilen - s->x.avail_in;
		if ((ret = flush(s, ZS_BUF - s->x.avail_out)))
			return ret;
		if (xr == LZMA_STREAM_END)
			return 0;
		if (xr == LZMA_OK)
			continue;
		return psym_err_set(
			s->e,
			xr == LZMA_MEM_ERROR || xr == LZMA_MEMLIMIT_ERROR ? PSYM_ELIMIT
									  : PSYM_EBADINPUT,
			"'%s': corrupt or truncated xz data (code %d)", s->name, (int)xr);
	}
}

static int run_gzip(struct zs *s)
{
	int ret;

	if (inflateInit2(&s->g, 16 + MAX_WBITS) != Z_OK)
		return psym_err_set(s->e, PSYM_ENOMEM, "'%s': cannot start gzip decoder", s->name);
	s->g_init = true;
	for (;;) {
		int zr;

		if ((ret = fill(s)))
			return ret;
		s->g.next_in = s->ib + s->ipos;
		s->g.avail_in = (uInt)(s->ilen - s->ipos);
		s->g.next_out = s->ob;
		s->g.avail_out = (uInt)ZS_BUF;
		zr = inflate(&s->g, Z_NO_FLUSH);
		s->ipos = s->ilen - s->g.avail_in;
		if ((ret = flush(s, ZS_BUF - s->g.avail_out)))
			return ret;
		if (zr == Z_STREAM_END) {
			/* Another member may follow. */
			if ((ret = fill(s)))
				return ret;
			if (s->eof)
				return 0;
			if (s->ib[s->ipos] != 0x1f)
				return psym_err_set(s->e, PSYM_EBADGZIP,
						    "'%s': trailing garbage after gzip data",
						    s->name);
			inflateReset(&s->g);
			continue;
		}
		if (zr == Z_BUF_ERROR && s->eof)
			return psym_err_set(s->e, PSYM_EBADGZIP, "'%s': truncated gzip data",
					    s->name);
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return psym_err_set(s->e, zr == Z_MEM_ERROR ? PSYM_ENOMEM : PSYM_EBADGZIP,
					    "'%s': corrupt gzip data (%s)", s->name,
					    s->g.msg ? s->g.msg : "inflate failed");
	}
}

int psym_zstream_to_fd(enum psym_zstream_kind kind, int in, int out, uint64_t max, const char *name,
		       const char *raise, uint64_t *outlen, struct psym_err *e)
{
	struct zs s = {
		.kind = kind, .in = in, .out = out, .name = name, .raise = raise, .max = max, .e = e
	};
	int ret;

	*outlen = 0;
	s.ib = malloc(ZS_BUF);
	s.ob = malloc(ZS_BUF);
	if (!s.ib || !s.ob)
		ret = psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
	else if (kind == PSYM_ZS_ZSTD)
		ret = run_zstd(&s);
	else if (kind == PSYM_ZS_XZ)
		ret = run_xz(&s);
	else if (kind == PSYM_ZS_GZIP)
		ret = run_gzip(&s);
	else
		ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': not a compressed stream", name);
	if (!ret && s.hole) {
		off_t end = lseek(out, 0, SEEK_CUR);

		if (end < 0 || ftruncate(out, end) != 0)
			ret = psym_err_set(e, PSYM_EIO, "'%s': cannot size its copy: %s", name,
					   strerror(errno));
	}
	if (s.z)
		ZSTD_freeDStream(s.z);
	if (kind == PSYM_ZS_XZ)
		lzma_end(&s.x);
	if (s.g_init)
		inflateEnd(&s.g);
	free(s.ib);
	free(s.ob);
	*outlen = s.total;
	return ret;
}
