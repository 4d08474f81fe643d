/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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
#include "dwarfsym.h"
#include "elffile.h"
#include "fileio.h"
#include "array.h"

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
	CODEC_ZST
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
	bool z_init, x_init;
	bool archive; /* a psym archive: its .build-id/ is usr/lib/debug/.build-id/ */
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
	case CODEC_NONE: break;
	}
	return 0;
}

/* ---- tar ------------------------------------------------------------------ */

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

/* Whether to stream this file: 1 yes, 0 skip it, negative: an error. */
typedef int (*select_fn)(void *ud, const char *path, uint64_t size);

static int tar_walk(struct dec *d, const struct psym_deb_limits *lim, select_fn sel,
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
		if (want && d->archive) {
			/* psym archive (archive.h): only its .build-id tree, read as
			 * a package's usr/lib/debug/.build-id. */
			size_t n = strlen(path);

			want = strncmp(path, ".build-id/", 10) == 0 && n + 14 <= TAR_MAX_NAME;
			if (want) {
				memmove(path + 14, path, n + 1);
				memcpy(path, "usr/lib/debug/", 14);
			}
		}
		want = want && strncmp(path, "usr/lib/debug/", 14) == 0;
		if (want && sel) {
			ret = sel(ud, path, size);
			if (ret < 0)
				return ret;
			want = ret > 0;
		}
		if (want) {
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
		    select_fn sel, psym_deb_file_fn fn, void *ud, struct psym_err *e)
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
	if (src_read(whole, magic, 8) == 8 && !memcmp(magic, "\x28\xb5\x2f\xfd", 4)) {
		struct dec *d = calloc(1, sizeof(*d));

		/* A psym archive: the whole file is a tar.zst. */
		if (!d)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		d->src = *whole;
		d->src.off = 0;
		d->name = name;
		d->e = e;
		d->archive = true;
		ret = dec_start(d, CODEC_ZST);
		if (!ret)
			ret = tar_walk(d, &lim, sel, fn, ud);
		dec_end(d);
		free(d);
		return ret;
	}
	if (memcmp(magic, "!<arch>\n", 8) != 0)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': not a Debian package (no ar header) nor a psym archive "
				    "(.tar.zst)",
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

/* ---- extraction into the cache ------------------------------------------- */

/*
 * The cache entry of one package file (ROOT = CACHE/NAME-SIZE-MTIME) grows
 * with what profiles ask for: ROOT/usr/lib/debug/... holds the members
 * extracted so far, each written to ROOT/.psym-tmp-PID-XXXXXX and renamed
 * into place (so a file there is always whole), and ROOT/.psym-build-ids
 * lists every build ID the package provides, written after the first
 * complete scan: a later run scans the package again only when it wants a
 * build ID that the package has and the entry does not.
 */
#define INDEX_NAME ".psym-build-ids"
#define TMP_PREFIX ".psym-tmp-"

struct extract {
	const char *deb;	/* for messages */
	char *root;		/* the package's cache entry */
	const char *const *ids; /* wanted build IDs; NULL: every debug file */
	size_t n_ids;
	char **seen; /* build IDs found in the package */
	size_t n_seen, cap_seen;
	/* the member being written */
	int fd;
	char *tmp, *final;
	bool classify; /* outside .build-id/: keep if its ELF build ID is wanted */
	uint64_t off;
	/*
	 * dwz alternate files (usr/lib/debug/.dwz/...) that the extracted debug
	 * files name: extracted in a second pass, and only those.
	 */
	char **alts;
	size_t n_alts, cap_alts;
	bool alt_pass;
	struct psym_err *e;
};

#define DWZ_DIR "usr/lib/debug/.dwz/"
#define MAX_ALTS 4096

/*
 * The member path an extracted debug file (member path `member`, file
 * `file`) names as its alternate, when it is one of the package's .dwz/
 * files: an absolute /usr/lib/debug/.dwz/REST, or a path relative to the
 * member's directory, normalized. Recorded once; errors only for memory.
 */
static int note_alt(struct extract *x, const char *member, const char *file)
{
	char path[TAR_MAX_NAME], bid[PSYM_BUILD_ID_HEX_MAX], norm[TAR_MAX_NAME];
	struct psym_elf *elf = NULL;
	char **na;
	size_t n = 0;
	int r;

	if (psym_elf_open(file, NULL, &elf, NULL) != 0)
		return 0;
	r = psym_dwarf_altlink(elf, path, sizeof(path), bid, sizeof(bid), NULL);
	psym_elf_close(elf);
	if (r != 0)
		return 0;
	if (path[0] == '/') {
		snprintf(norm, sizeof(norm), "%s", path + 1);
	} else {
		const char *slash = strrchr(member, '/');
		int k = snprintf(norm, sizeof(norm), "%.*s/%s", (int)(slash ? slash - member : 0),
				 member, path);

		if (k < 0 || (size_t)k >= sizeof(norm))
			return 0;
	}
	/* Lexically: "." and empty components dropped, ".." takes one back. */
	{
		char *save = NULL, out[TAR_MAX_NAME];
		size_t depth[TAR_MAX_NAME / 2], nd = 0;

		for (char *c = strtok_r(norm, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
			size_t len = strlen(c);

			if (!strcmp(c, "."))
				continue;
			if (!strcmp(c, "..")) {
				if (!nd)
					return 0; /* above the package root */
				n = depth[--nd];
				continue;
			}
			if (n + len + 2 > sizeof(out) || nd == sizeof(depth) / sizeof(depth[0]))
				return 0;
			depth[nd++] = n;
			if (n)
				out[n++] = '/';
			memcpy(out + n, c, len);
			n += len;
		}
		out[n] = '\0';
		memcpy(norm, out, n + 1);
	}
	if (strncmp(norm, DWZ_DIR, strlen(DWZ_DIR)) != 0)
		return 0;
	for (size_t i = 0; i < x->n_alts; i++)
		if (!strcmp(x->alts[i], norm))
			return 0;
	if (x->n_alts == MAX_ALTS)
		return 0;
	na = psym_array_grow(x->alts, &x->cap_alts, x->n_alts + 1, sizeof(*na), 0);
	if (!na)
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->alts = na;
	x->alts[x->n_alts] = strdup(norm);
	if (!x->alts[x->n_alts])
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->n_alts++;
	return 0;
}

static bool alt_wanted(const struct extract *x, const char *path)
{
	for (size_t i = 0; i < x->n_alts; i++)
		if (!strcmp(x->alts[i], path))
			return true;
	return false;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static bool wanted(const struct extract *x, const char *id)
{
	if (!x->ids)
		return true;
	for (size_t i = 0; i < x->n_ids; i++)
		if (strcmp(x->ids[i], id) == 0)
			return true;
	return false;
}

static int add_seen(struct extract *x, const char *id)
{
	char **ns;

	for (size_t i = 0; i < x->n_seen; i++)
		if (strcmp(x->seen[i], id) == 0)
			return 0;
	ns = psym_array_grow(x->seen, &x->cap_seen, x->n_seen + 1, sizeof(*ns), 0);
	if (!ns)
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->seen = ns;
	x->seen[x->n_seen] = strdup(id);
	if (!x->seen[x->n_seen])
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->n_seen++;
	return 0;
}

/* ROOT/usr/lib/debug/.build-id/NN/REST.debug (malloc'd), NULL on no memory. */
static char *id_path(const struct extract *x, const char *id)
{
	char *p;

	if (asprintf(&p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug", x->root, id, id + 2) < 0)
		return NULL;
	return p;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The build ID of a member named usr/lib/debug/.build-id/NN/REST.debug, else false. */
static bool tree_build_id(const char *path, char id[PSYM_BUILD_ID_HEX_MAX])
{
	const char *p = path + strlen("usr/lib/debug/.build-id/");
	size_t rest;

	if (strncmp(path, "usr/lib/debug/.build-id/", 24) != 0 || strlen(p) < 3 + 6 || p[2] != '/')
		return false;
	rest = strlen(p + 3) - 6;
	if (strcmp(p + 3 + rest, ".debug") != 0 || 2 + rest >= PSYM_BUILD_ID_HEX_MAX)
		return false;
	memcpy(id, p, 2);
	memcpy(id + 2, p + 3, rest);
	id[2 + rest] = '\0';
	if (!psym_build_id_valid(id))
		return false;
	psym_build_id_lower(id);
	return true;
}

static void drop_member(struct extract *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	if (x->tmp)
		unlink(x->tmp);
	free(x->tmp);
	free(x->final);
	x->tmp = x->final = NULL;
}

/* Decide about one member; open its temporary file when it is wanted. */
static int select_cb(void *ud, const char *path, uint64_t size)
{
	struct extract *x = ud;
	char id[PSYM_BUILD_ID_HEX_MAX];
	bool in_tree = tree_build_id(path, id);
	int ret;

	(void)size;
	drop_member(x);
	x->classify = false;
	/* dwz files: in the second pass, those named; nothing else then. */
	if (strncmp(path, DWZ_DIR, strlen(DWZ_DIR)) == 0) {
		if (!x->alt_pass || !alt_wanted(x, path))
			return 0;
	} else if (x->alt_pass) {
		return 0;
	} else if (in_tree) {
		ret = add_seen(x, id);
		if (ret)
			return ret;
		if (!wanted(x, id))
			return 0;
	} else if (x->ids) {
		/* Outside the build-ID tree: its build ID is known once written. */
		x->classify = true;
	}
	if (asprintf(&x->final, "%s/%s", x->root, path) < 0) {
		x->final = NULL;
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	}
	if (exists(x->final)) { /* an earlier run's, or a duplicate entry: the first wins */
		bool named = !x->classify; /* a wanted debug file: its alternate too */

		if (x->classify && psym_elf_file_build_id(x->final, id, NULL) == 0) {
			ret = add_seen(x, id);
			if (ret)
				return ret;
			named = wanted(x, id);
		}
		if (named && !x->alt_pass && (ret = note_alt(x, path, x->final)) != 0)
			return ret;
		free(x->final);
		x->final = NULL;
		return 0;
	}
	if (asprintf(&x->tmp, "%s/" TMP_PREFIX "%ld-XXXXXX", x->root, (long)getpid()) < 0) {
		x->tmp = NULL;
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	}
	x->fd = mkstemp(x->tmp);
	if (x->fd < 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot create '%s': %s", x->tmp,
				   strerror(errno));
		free(x->tmp);
		x->tmp = NULL;
		return ret;
	}
	fchmod(x->fd, 0644);
	x->off = 0;
	return 1;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The member is whole in its temporary file: keep it (rename) or drop it. */
static int finish_member(struct extract *x, const char *path)
{
	char id[PSYM_BUILD_ID_HEX_MAX];
	char *link_path = NULL;
	int ret = 0;

	if (ftruncate(x->fd, (off_t)x->off) != 0 || fsync(x->fd) != 0)
		return psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", x->tmp,
				    strerror(errno));
	if (x->classify) {
		if (psym_elf_fd_build_id(x->fd, path, id, NULL) != 0)
			return 0; /* not an ELF file with a build ID: nobody asks for it */
		ret = add_seen(x, id);
		if (ret || !wanted(x, id))
			return ret; /* drop_member() removes the temporary */
		link_path = id_path(x, id);
		if (!link_path)
			return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	}
	if (mkdirs(x->final) != 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot create directories for '%s': %s",
				   x->final, strerror(errno));
		goto out;
	}
	if (rename(x->tmp, x->final) != 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot rename into '%s': %s", x->final,
				   strerror(errno));
		goto out;
	}
	free(x->tmp);
	x->tmp = NULL;
	if (!x->alt_pass && (ret = note_alt(x, path, x->final)) != 0)
		goto out;
	/* Found by build ID too, as the package's own .build-id symlink would. */
	if (link_path && mkdirs(link_path) == 0 && link(x->final, link_path) != 0 &&
	    errno != EEXIST)
		ret = psym_err_set(x->e, PSYM_EIO, "cannot link '%s': %s", link_path,
				   strerror(errno));
out:
	free(link_path);
	return ret;
}

static int extract_cb(void *ud, const char *path, uint64_t size, const unsigned char *data,
		      size_t len)
{
	struct extract *x = ud;
	int ret;

	(void)size;
	if (x->fd < 0)
		return psym_err_set(x->e, PSYM_EINTERNAL, "no file open for '%s'", path);
	if (!data) {
		ret = finish_member(x, path);
		drop_member(x);
		return ret;
	}
	/* Runs of zeros become holes: a sparse member costs no disk. */
	if (len && data[0] == 0 && memcmp(data, data + 1, len - 1) == 0) {
		x->off += len;
		if (lseek(x->fd, (off_t)x->off, SEEK_SET) < 0)
			return psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", x->tmp,
					    strerror(errno));
		return 0;
	}
	if (write_all(x->fd, data, len) != 0)
		return psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", x->tmp,
				    strerror(errno));
	x->off += len;
	return 0;
}

/* Read ROOT/.psym-build-ids into x->seen; false when there is none (or bad). */
static bool read_index(struct extract *x)
{
	unsigned char *buf;
	size_t len;
	char *path;
	bool ok = true;

	if (asprintf(&path, "%s/" INDEX_NAME, x->root) < 0)
		return false;
	if (psym_read_file(path, (size_t)16 << 20, &buf, &len, NULL) != 0) {
		free(path);
		return false;
	}
	free(path);
	buf[len] = '\0'; /* psym_read_file leaves room for it */
	for (char *line = (char *)buf, *nl; ok && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		ok = psym_build_id_valid(line) && add_seen(x, line) == 0;
	}
	free(buf);
	return ok;
}

static int write_index(struct extract *x)
{
	char *tmp = NULL, *path = NULL;
	FILE *f;
	int fd, ret = 0;

	if (asprintf(&path, "%s/" INDEX_NAME, x->root) < 0 ||
	    asprintf(&tmp, "%s/" TMP_PREFIX "%ld-XXXXXX", x->root, (long)getpid()) < 0) {
		ret = psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		ret = psym_err_set(x->e, PSYM_EIO, "cannot create '%s': %s", tmp, strerror(errno));
		goto out_unlink;
	}
	fchmod(fd, 0644);
	for (size_t i = 0; i < x->n_seen; i++)
		fprintf(f, "%s\n", x->seen[i]);
	if (fflush(f) != 0 || fsync(fd) != 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out_unlink;
	}
	goto out;
out_unlink:
	unlink(tmp);
out:
	free(tmp);
	free(path);
	return ret;
}

/* Does the entry lack a wanted build ID that the package (index) has? */
static bool need_scan(struct extract *x)
{
	bool need = false;

	if (!x->ids || !read_index(x))
		return true;
	for (size_t i = 0; i < x->n_seen && !need; i++) {
		char *p;

		if (!wanted(x, x->seen[i]))
			continue;
		p = id_path(x, x->seen[i]);
		need = !p || !exists(p);
		free(p);
	}
	return need;
}

int psym_deb_extract_debug(const char *deb_path, const char *cache_root,
			   const struct psym_deb_limits *limits, const char *const *build_ids,
			   size_t n_build_ids, char **debug_root, struct psym_err *e)
{
	struct extract x = {
		.deb = deb_path, .ids = build_ids, .n_ids = n_build_ids, .fd = -1, .e = e
	};
	struct stat st;
	char *result = NULL;
	const char *base;
	struct src s;
	int fd, ret = 0;

	fd = psym_open_regular(deb_path, e);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot stat '%s': %s", deb_path, strerror(errno));
		goto out;
	}
	base = strrchr(deb_path, '/');
	base = base ? base + 1 : deb_path;
	/* One cache entry per package file identity (name, size, mtime). */
	if (asprintf(&x.root, "%s/%s-%llx-%llx", cache_root, base, (unsigned long long)st.st_size,
		     (unsigned long long)st.st_mtim.tv_sec) < 0 ||
	    asprintf(&result, "%s/usr/lib/debug", x.root) < 0) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	if ((mkdir(cache_root, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(x.root, 0755) != 0 && errno != EEXIST)) {
		ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", x.root, strerror(errno));
		goto out;
	}
	psym_remove_stale_tmps(x.root, TMP_PREFIX, '-');
	if (need_scan(&x)) {
		for (size_t i = 0; i < x.n_seen; i++)
			free(x.seen[i]);
		x.n_seen = 0;
		s.mem = NULL;
		s.fd = fd;
		s.off = 0;
		s.end = (uint64_t)st.st_size;
		ret = deb_walk(&s, deb_path, limits, select_cb, extract_cb, &x, e);
		drop_member(&x);
		if (!ret && x.n_alts) {
			/* The alternate files named, wherever they are in the archive. */
			x.alt_pass = true;
			ret = deb_walk(&s, deb_path, limits, select_cb, extract_cb, &x, e);
			drop_member(&x);
		}
		if (!ret && x.ids)
			ret = write_index(&x);
		if (ret) {
			rmdir(x.root); /* an entry this run created and left empty */
			goto out;
		}
	}
	/* The debug dir exists even when the package had nothing wanted. */
	{
		char *marker;

		if (asprintf(&marker, "%s/", result) < 0) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
		if (mkdirs(marker) != 0)
			ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", result,
					   strerror(errno));
		free(marker);
	}
	if (!ret) {
		*debug_root = result;
		result = NULL;
	}
out:
	drop_member(&x);
	for (size_t i = 0; i < x.n_seen; i++)
		free(x.seen[i]);
	free(x.seen);
	for (size_t i = 0; i < x.n_alts; i++)
		free(x.alts[i]);
	free(x.alts);
	free(x.root);
	free(result);
	close(fd);
	return ret;
}

#include <dirent.h>

/* Remove a tree we created (bounded depth: our own extraction layout). */
static int rm_rf_depth(const char *path, int depth)
{
	struct dirent *de;
	DIR *d;

	if (depth > 64)
		return -1;
	d = opendir(path);
	if (!d)
		return unlink(path);
	while ((de = readdir(d))) {
		char *child;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (asprintf(&child, "%s/%s", path, de->d_name) < 0)
			break;
		if (de->d_type == DT_DIR)
			rm_rf_depth(child, depth + 1);
		else
			unlink(child);
		free(child);
	}
	closedir(d);
	return rmdir(path);
}

void psym_deb_remove_tree(const char *path)
{
	rm_rf_depth(path, 0);
}
