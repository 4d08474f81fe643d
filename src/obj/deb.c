/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "buildid.h"
#include "deb.h"

#define DEB_DEFAULT_MAX_BYTES ((uint64_t)2 << 30)
#define DEB_DEFAULT_MAX_FILES 10000
#define TAR_MAX_NAME 4096

/* ---- compressed input: the data.tar member, raw bytes from fd or memory - */

struct src {
	const unsigned char *mem; /* memory source, or NULL for fd */
	int fd;
	uint64_t off, end; /* region of the member */
};

static ssize_t src_read(struct src *s, unsigned char *buf, size_t n)
{
	ssize_t r;

	if (n > s->end - s->off)
		n = (size_t)(s->end - s->off);
	if (n == 0)
		return 0;
	if (s->mem) {
		memcpy(buf, s->mem + s->off, n);
		s->off += n;
		return (ssize_t)n;
	}
	do
		r = pread(s->fd, buf, n, (off_t)s->off);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		s->off += (uint64_t)r;
	return r;
}

enum codec {
	CODEC_NONE,
	CODEC_GZ,
	CODEC_XZ,
	CODEC_ZST,
	CODEC_BZ2
};

/* Decompressing reader: dec_read() hands out tar bytes. */
struct dec {
	struct src src;
	enum codec codec;
	const char *name;
	struct psym_err *e;
	unsigned char in[1 << 16];
	size_t in_pos, in_len;
	bool in_eof, out_eof;
	z_stream z;
	lzma_stream x;
	ZSTD_DStream *zs;
	bz_stream b;
	bool z_init, x_init, b_init;
	bool archive;	 /* a psym archive: its .build-id/ is usr/lib/debug/.build-id/ */
	uint64_t packed; /* compressed bytes of the tar stream (bomb cap) */
};

/* What the tar stream is, for messages. */
#define TARNAME(d) ((d)->archive ? "the archive" : "data.tar member")

static int dec_fill(struct dec *d)
{
	ssize_t r;

	if (d->in_pos < d->in_len || d->in_eof)
		return 0;
	r = src_read(&d->src, d->in, sizeof(d->in));
	if (r < 0)
		return psym_err_set(d->e, PSYM_EIO, "cannot read '%s': %s", d->name,
				    strerror(errno));
	d->in_pos = 0;
	d->in_len = (size_t)r;
	if (r == 0)
		d->in_eof = true;
	return 0;
}

/* Read up to n bytes; returns bytes read (0 at the end) or a negative code. */
static ssize_t dec_some(struct dec *d, unsigned char *out, size_t n)
{
	int ret;

	for (;;) {
		size_t got = 0;

		if (d->out_eof)
			return 0;
		ret = dec_fill(d);
		if (ret)
			return ret;
		switch (d->codec) {
		case CODEC_NONE:
			got = d->in_len - d->in_pos < n ? d->in_len - d->in_pos : n;
			memcpy(out, d->in + d->in_pos, got);
			d->in_pos += got;
			if (!got && d->in_eof)
				d->out_eof = true;
			break;
		case CODEC_GZ: {
			int zr;

			d->z.next_in = d->in + d->in_pos;
			d->z.avail_in = (uInt)(d->in_len - d->in_pos);
			d->z.next_out = out;
			d->z.avail_out = (uInt)n;
			zr = inflate(&d->z, Z_NO_FLUSH);
			d->in_pos = d->in_len - d->z.avail_in;
			got = n - d->z.avail_out;
			if (zr == Z_STREAM_END)
				d->out_eof = true;
			else if (zr != Z_OK && !(zr == Z_BUF_ERROR && !d->in_eof))
				return psym_err_set(d->e, PSYM_EBADINPUT,
						    "'%s': corrupt gzip data in %s", d->name,
						    TARNAME(d));
			break;
		}
		case CODEC_XZ: {
			lzma_ret xr;

			d->x.next_in = d->in + d->in_pos;
			d->x.avail_in = d->in_len - d->in_pos;
			d->x.next_out = out;
			d->x.avail_out = n;
			xr = lzma_code(&d->x, d->in_eof ? LZMA_FINISH : LZMA_RUN);
			d->in_pos = d->in_len - d->x.avail_in;
			got = n - d->x.avail_out;
			if (xr == LZMA_STREAM_END)
				d->out_eof = true;
			else if (xr != LZMA_OK && !(xr == LZMA_BUF_ERROR && !d->in_eof))
				return psym_err_set(d->e, PSYM_EBADINPUT,
						    "'%s': corrupt xz data in %s (code %d)",
						    d->name, TARNAME(d), (int)xr);
			break;
		}
		case CODEC_BZ2: {
			int br;

			d->b.next_in = (char *)d->in + d->in_pos;
			d->b.avail_in = (unsigned)(d->in_len - d->in_pos);
			d->b.next_out = (char *)out;
			d->b.avail_out = (unsigned)(n > UINT_MAX ? UINT_MAX : n);
			br = BZ2_bzDecompress(&d->b);
			d->in_pos = d->in_len - d->b.avail_in;
			got = (n > UINT_MAX ? UINT_MAX : n) - d->b.avail_out;
			if (br == BZ_STREAM_END)
				d->out_eof = true;
			else if (br != BZ_OK)
				return psym_err_set(d->e, PSYM_EBADINPUT,
						    "'%s': corrupt bzip2 data in %s (code %d)",
						    d->name, TARNAME(d), br);
			break;
		}
		case CODEC_ZST: {
			ZSTD_inBuffer ib = { d->in + d->in_pos, d->in_len - d->in_pos, 0 };
			ZSTD_outBuffer ob = { out, n, 0 };
			size_t zr = ZSTD_decompressStream(d->zs, &ob, &ib);

			d->in_pos += ib.pos;
			got = ob.pos;
			if (ZSTD_isError(zr))
				return psym_err_set(d->e, PSYM_EBADINPUT,
						    "'%s': corrupt zstd data in %s (%s)", d->name,
						    TARNAME(d), ZSTD_getErrorName(zr));
			if (zr == 0 && d->in_eof && d->in_pos == d->in_len)
				d->out_eof = true;
			break;
		}
		}
		if (got)
			return (ssize_t)got;
		if (d->in_eof && d->in_pos >= d->in_len) {
			if (d->codec == CODEC_NONE || d->out_eof)
				return 0;
			return psym_err_set(d->e, PSYM_EBADINPUT, "'%s': truncated %s", d->name,
					    TARNAME(d));
		}
	}
}

/* Read exactly n bytes; a short read is a truncated archive. */
static int dec_exact(struct dec *d, unsigned char *out, size_t n)
{
	while (n) {
		ssize_t r = dec_some(d, out, n);

		if (r < 0)
			return (int)r;
		if (r == 0)
			return psym_err_set(d->e, PSYM_EBADINPUT, "'%s': truncated tar archive",
					    d->name);
		out += r;
		n -= (size_t)r;
	}
	return 0;
}

static void dec_end(struct dec *d)
{
	if (d->z_init)
		inflateEnd(&d->z);
	if (d->x_init)
		lzma_end(&d->x);
	if (d->b_init)
		BZ2_bzDecompressEnd(&d->b);
	ZSTD_freeDStream(d->zs);
}

static int dec_start(struct dec *d, enum codec c)
{
	d->codec = c;
	switch (c) {
	case CODEC_GZ:
		if (inflateInit2(&d->z, 16 + MAX_WBITS) != Z_OK)
			return psym_err_set(d->e, PSYM_ENOMEM, "cannot start gzip decoder");
		d->z_init = true;
		break;
	case CODEC_XZ: {
		lzma_stream init = LZMA_STREAM_INIT;

		d->x = init;
		if (lzma_stream_decoder(&d->x, UINT64_MAX, 0) != LZMA_OK)
			return psym_err_set(d->e, PSYM_ENOMEM, "cannot start xz decoder");
		d->x_init = true;
		break;
	}
	case CODEC_ZST:
		d->zs = ZSTD_createDStream();
		if (!d->zs || ZSTD_isError(ZSTD_initDStream(d->zs)))
			return psym_err_set(d->e, PSYM_ENOMEM, "cannot start zstd decoder");
		/* Bound the window a hostile frame may ask for (128 MiB). */
		ZSTD_DCtx_setParameter(d->zs, ZSTD_d_windowLogMax, 27);
		break;
	case CODEC_BZ2:
		memset(&d->b, 0, sizeof(d->b));
		/* small = 0: the 64 KiB-per-100k-block tables, bounded by the format. */
		if (BZ2_bzDecompressInit(&d->b, 0, 0) != BZ_OK)
			return psym_err_set(d->e, PSYM_ENOMEM, "cannot start bzip2 decoder");
		d->b_init = true;
		break;
	case CODEC_NONE: break;
	}
	return 0;
}

/* ---- tar ------------------------------------------------------------------ */

/* Prepend usr/lib/debug/ to path (TAR_MAX_NAME bytes); false when too long. */
static bool under_debug(char *path)
{
	size_t n = strlen(path);

	if (n + 14 > TAR_MAX_NAME)
		return false;
	memmove(path + 14, path, n + 1);
	memcpy(path, "usr/lib/debug/", 14);
	return true;
}

/*
 * A whole-file archive's entry as a package's usr/lib/debug/ entry, in
 * place; false to skip it. A psym archive (archive.h) holds a .build-id
 * tree. perf archive's tarball holds perf's build-ID cache: DIR/ID/elf
 * (the binary) and DIR/ID/debug (its debug file) for each path DIR, the
 * kernel's [kernel.kallsyms]/ID/kallsyms and the vDSO's [vdso]/ID/vdso,
 * with .build-id/NN/REST symbolic links to them (skipped: links are never
 * written): read as .build-id/NN/REST, .build-id/NN/REST.debug,
 * [kernel.kallsyms]/ID/kallsyms and .build-id/NN/REST.
 */
static bool archive_name(char *path)
{
	static const char *const leaf[] = { "elf", "debug", "kallsyms", "vdso" };
	char id[PSYM_BUILD_ID_HEX_MAX] = "";
	const char *last, *dir;
	size_t idlen, k;

	if (strncmp(path, ".build-id/", 10) == 0)
		return under_debug(path);
	last = strrchr(path, '/');
	if (!last || last == path)
		return false;
	for (dir = last - 1; dir > path && dir[-1] != '/'; dir--)
		;
	idlen = (size_t)(last - dir);
	for (k = 0; k < 4 && strcmp(last + 1, leaf[k]) != 0; k++)
		;
	if (k == 4 || idlen < 8 || idlen >= sizeof(id))
		return false;
	memcpy(id, dir, idlen);
	if (!psym_build_id_valid(id))
		return false;
	psym_build_id_lower(id);
	if (k == 2) /* the kernel's kallsyms: perf's own name for it */
		return !strncmp(path, "[kernel.kallsyms]/", 18) && dir == path + 18 &&
		       under_debug(path);
	if (k == 3 && (strncmp(path, "[vdso]/", 7) != 0 || dir != path + 7))
		return false;
	snprintf(path, TAR_MAX_NAME, "usr/lib/debug/.build-id/%.2s/%s%s", id, id + 2,
		 k == 1 ? ".debug" : "");
	return true;
}

static bool tar_number(const unsigned char *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) { /* GNU base-256 */
		if (f[0] != 0x80)
			return false; /* negative or too large */
		for (i = 1; i < n; i++) {
			if (v >> 56)
				return false;
			v = (v << 8) | f[i];
		}
		*out = v;
		return true;
	}
	while (i < n && (f[i] == ' ' || f[i] == '\0'))
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return false;
		v = v * 8 + (f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return false;
	*out = v;
	return true;
}

/*
 * Normalize an archive path: drop leading "./" and "/", refuse "..",
 * empty names and control characters. Returns false for unsafe names.
 */
static bool safe_path(char *p)
{
	char *r = p, *w = p;

	while (*r == '/' || (r[0] == '.' && r[1] == '/'))
		r += (*r == '/') ? 1 : 2;
	while (*r) {
		char *seg = r;
		size_t len;

		while (*r && *r != '/')
			r++;
		len = (size_t)(r - seg);
		while (*r == '/')
			r++;
		if (len == 0 || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.')
			return false;
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)seg[i] < 0x20)
				return false;
		if (w != p)
			*w++ = '/';
		memmove(w, seg, len);
		w += len;
	}
	*w = '\0';
	return w != p;
}

/* pax extended header: take "path" if present. */
static void pax_path(const char *rec, size_t len, char *path, size_t pathsz)
{
	size_t off = 0;

	while (off < len) {
		size_t n = 0, i = off;
		const char *kv, *eq, *end;

		while (i < len && rec[i] >= '0' && rec[i] <= '9' && n < len)
			n = n * 10 + (size_t)(rec[i++] - '0');
		if (i >= len || rec[i] != ' ' || n == 0 || n > len - off)
			return;
		/* "LEN KEY=VALUE\n": LEN counts itself, so the key starts inside. */
		if (i + 1 > off + n - 1 || rec[off + n - 1] != '\n')
			return;
		kv = rec + i + 1;
		end = rec + off + n - 1; /* the '\n' */
		eq = memchr(kv, '=', (size_t)(end - kv));
		if (eq && eq - kv == 4 && memcmp(kv, "path", 4) == 0 &&
		    (size_t)(end - eq - 1) < pathsz) {
			memcpy(path, eq + 1, (size_t)(end - eq - 1));
			path[end - eq - 1] = '\0';
		}
		off += n;
	}
}

static int tar_walk(struct dec *d, const struct psym_deb_limits *lim, psym_deb_select_fn sel,
		    psym_deb_file_fn fn, void *ud)
{
	unsigned char h[512], buf[1 << 16];
	char path[TAR_MAX_NAME + 1], next_path[TAR_MAX_NAME + 1] = "";
	uint64_t files = 0, bytes = 0;
	int zero_blocks = 0, ret;

	for (;;) {
		uint64_t size, pad;
		char type;
		bool want;

		ret = dec_exact(d, h, sizeof(h));
		if (ret)
			return ret;
		if (memcmp(h, (unsigned char[512]){ 0 }, 512) == 0) {
			if (++zero_blocks == 2)
				return 0;
			continue;
		}
		zero_blocks = 0;
		if (!tar_number(h + 124, 12, &size))
			return psym_err_set(d->e, PSYM_EBADINPUT, "'%s': bad tar entry size",
					    d->name);
		type = (char)h[156];
		pad = (512 - size % 512) % 512;
		if (type == 'L' || type == 'x') {
			/* GNU long name or pax header: small payloads only. */
			if (size > TAR_MAX_NAME * 4)
				return psym_err_set(d->e, PSYM_EBADINPUT,
						    "'%s': tar header record too large", d->name);
			ret = dec_exact(d, buf, (size_t)(size + pad));
			if (ret)
				return ret;
			if (type == 'L') {
				size_t n = size < TAR_MAX_NAME ? (size_t)size : TAR_MAX_NAME;

				memcpy(next_path, buf, n);
				next_path[n] = '\0';
			} else {
				pax_path((const char *)buf, (size_t)size, next_path,
					 sizeof(next_path));
			}
			continue;
		}
		if (next_path[0]) {
			memcpy(path, next_path, sizeof(path));
			next_path[0] = '\0';
		} else {
			char name[101], prefix[156];

			memcpy(name, h, 100);
			name[100] = '\0';
			memcpy(prefix, h + 345, 155);
			prefix[155] = '\0';
			if (memcmp(h + 257, "ustar", 5) == 0 && prefix[0])
				snprintf(path, sizeof(path), "%s/%s", prefix, name);
			else
				snprintf(path, sizeof(path), "%s", name);
		}
		want = (type == '0' || type == '\0') && safe_path(path);
		if (want && d->archive)
			want = archive_name(path);
		want = want && strncmp(path, "usr/lib/debug/", 14) == 0;
		if (want && sel) {
			ret = sel(ud, path, size);
			if (ret < 0)
				return ret;
			want = ret > 0;
		}
		if (want) {
			/* More than 64 times the package (plus 64 MiB): no debug file
			 * compresses so well; a bomb, refused before it is read. */
			if (size / 64 > d->packed + ((uint64_t)1 << 20))
				return psym_err_set(
					d->e, PSYM_ELIMIT,
					"'%s': member '%s' claims %llu bytes, more than 64 times the "
					"package's %llu compressed: refused as a decompression bomb",
					d->name, path, (unsigned long long)size,
					(unsigned long long)d->packed);
			if (++files > lim->max_files)
				return psym_err_set(
					d->e, PSYM_ELIMIT,
					"'%s': more than %llu debug files (--limit deb-files=N)",
					d->name, (unsigned long long)lim->max_files);
			if (size > lim->max_bytes - bytes)
				return psym_err_set(
					d->e, PSYM_ELIMIT,
					"'%s': debug files to extract exceed %llu bytes (raise with --limit deb-bytes=N)",
					d->name, (unsigned long long)lim->max_bytes);
			bytes += size;
		}
		for (uint64_t left = size + pad; left;) {
			size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
			uint64_t data_left = left > pad ? left - pad : 0;

			ret = dec_exact(d, buf, n);
			if (ret)
				return ret;
			if (want && data_left) {
				size_t dn = data_left < n ? (size_t)data_left : n;

				ret = fn(ud, path, size, buf, dn);
				if (ret)
					return ret;
			}
			left -= n;
		}
		if (want) {
			ret = fn(ud, path, size, NULL, 0);
			if (ret)
				return ret;
		}
	}
}

/* ---- ar ------------------------------------------------------------------ */

static int deb_walk(struct src *whole, const char *name, const struct psym_deb_limits *limp,
		    psym_deb_select_fn sel, psym_deb_file_fn fn, void *ud, struct psym_err *e)
{
	struct psym_deb_limits lim = { DEB_DEFAULT_MAX_BYTES, DEB_DEFAULT_MAX_FILES };
	unsigned char magic[8] = { 0 }, hdr[60];
	uint64_t off = 8;
	int ret;

	if (limp) {
		if (limp->max_bytes)
			lim.max_bytes = limp->max_bytes;
		if (limp->max_files)
			lim.max_files = limp->max_files;
	}
	whole->off = 0;
	if (src_read(whole, magic, 8) == 8 &&
	    (!memcmp(magic, "\x28\xb5\x2f\xfd", 4) || !memcmp(magic, "BZh", 3))) {
		struct dec *d = calloc(1, sizeof(*d));

		/* A psym archive (tar.zst) or perf archive's tar.bz2: the whole file. */
		if (!d)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		d->src = *whole;
		d->src.off = 0;
		d->packed = whole->end;
		d->name = name;
		d->e = e;
		d->archive = true;
		ret = dec_start(d, magic[0] == 'B' ? CODEC_BZ2 : CODEC_ZST);
		if (!ret)
			ret = tar_walk(d, &lim, sel, fn, ud);
		dec_end(d);
		free(d);
		return ret;
	}
	if (memcmp(magic, "!<arch>\n", 8) != 0)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': not a Debian package (no ar header), a psym archive "
				    "(.tar.zst) nor a perf archive (.tar.bz2)",
				    name);
	while (off + 60 <= whole->end) {
		char mname[17];
		uint64_t size;
		enum codec c;
		struct dec *d;

		whole->off = off;
		if (src_read(whole, hdr, 60) != 60 || hdr[58] != '`' || hdr[59] != '\n')
			return psym_err_set(e, PSYM_EBADINPUT, "'%s': corrupt ar member header",
					    name);
		memcpy(mname, hdr, 16);
		mname[16] = '\0';
		for (int i = 15; i >= 0 && (mname[i] == ' ' || mname[i] == '/'); i--)
			mname[i] = '\0';
		{
			char num[11];
			char *end;

			memcpy(num, hdr + 48, 10);
			num[10] = '\0';
			errno = 0;
			size = strtoull(num, &end, 10);
			if (errno || end == num)
				return psym_err_set(e, PSYM_EBADINPUT, "'%s': bad ar member size",
						    name);
		}
		if (size > whole->end - off - 60)
			return psym_err_set(e, PSYM_EBADINPUT, "'%s': ar member '%s' truncated",
					    name, mname);
		if (strncmp(mname, "data.tar", 8) != 0) {
			off += 60 + size + (size & 1);
			continue;
		}
		if (!strcmp(mname, "data.tar"))
			c = CODEC_NONE;
		else if (!strcmp(mname, "data.tar.gz"))
			c = CODEC_GZ;
		else if (!strcmp(mname, "data.tar.xz"))
			c = CODEC_XZ;
		else if (!strcmp(mname, "data.tar.zst"))
			c = CODEC_ZST;
		else
			return psym_err_set(e, PSYM_EUNSUPPORTED, "'%s': unsupported member '%s'",
					    name, mname);
		d = calloc(1, sizeof(*d));
		if (!d)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		d->src = *whole;
		d->src.off = off + 60;
		d->src.end = off + 60 + size;
		d->packed = size;
		d->name = name;
		d->e = e;
		ret = dec_start(d, c);
		if (!ret)
			ret = tar_walk(d, &lim, sel, fn, ud);
		dec_end(d);
		free(d);
		return ret;
	}
	return psym_err_set(e, PSYM_EBADINPUT, "'%s': no data.tar member", name);
}

int psym_deb_parse_mem(const unsigned char *buf, size_t len, const char *name,
		       const struct psym_deb_limits *limits, psym_deb_file_fn fn, void *ud,
		       struct psym_err *e)
{
	struct src s = { .mem = buf, .fd = -1, .off = 0, .end = len };

	return deb_walk(&s, name, limits, NULL, fn, ud, e);
}

int psym_deb_walk_fd(int fd, uint64_t size, const char *name, const struct psym_deb_limits *limits,
		     psym_deb_select_fn sel, psym_deb_file_fn fn, void *ud, struct psym_err *e)
{
	struct src s = { .mem = NULL, .fd = fd, .off = 0, .end = size };

	return deb_walk(&s, name, limits, sel, fn, ud, e);
}
