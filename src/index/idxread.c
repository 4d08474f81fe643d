/* SPDX-License-Identifier: MIT */
/*
 * Reading an index file (index.h): a private copy made as it is used, never
 * a mapping of the file (which dies of SIGBUS when the file is truncated in
 * place under a run). The header and the CRC table are read and checked at
 * open; each 64 KiB chunk is read (pread into anonymous memory reserved at
 * open) and checked the first time a lookup touches it, so a run that asks
 * a few addresses of a large index reads a few chunks, not the file. A file
 * cut short meanwhile is an error of that lookup (the caller answers from
 * the DWARF); one rewritten meanwhile fails the chunk's CRC. Every offset is
 * bounds-checked anyway.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include "fileio.h"
#include "idxfmt.h"
#include "index.h"
#include "search.h"

#define CACHE_GROUPS 4

/* libFuzzer builds go past the checksums (they cannot forge them) to the decoder. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CRC_OK(a, b) ((void)(a), (void)(b), true)
#else
#define CRC_OK(a, b) ((a) == (b))
#endif

struct drun {
	uint64_t addr;
	uint32_t node, file, disc;
	int64_t line, col;
	const char *s_file; /* file's string, once found (have_file) */
	bool have_file;
};

/* A node's strings are found on its first use and kept (HAVE_* in have). */
#define HAVE_OWN 1u   /* s_name, s_linkage, s_start_file */
#define HAVE_PFILE 2u /* s_pfile */

struct dnode {
	uint32_t parent, name, linkage, pfile, pdisc, start_file;
	int64_t start_line, pline, pcol;
	bool has_start;
	uint8_t have;
	uint64_t start_address;
	const char *s_name, *s_linkage, *s_start_file, *s_pfile;
};

/* A decoded group, kept for the next lookups (addresses come sorted). */
struct dgroup {
	size_t idx; /* SIZE_MAX: empty slot */
	uint64_t start, end;
	struct drun runs[IDX_MAX_RUNS];
	size_t nruns; /* decoded so far (runs_upto), of ntotal */
	size_t ntotal;
	/* Where decoding the runs goes on: the record's rest, the run before's values. */
	const uint8_t *rp, *rend;
	bool rbad;
	uint64_t raddr;
	uint32_t rnode, rfile;
	int64_t rline;
	struct dnode nodes[IDX_MAX_NODES];
	size_t nnodes;
	uint64_t used;
	size_t hint; /* the run the last lookup in it found, + 1 (0: none) */
};

#define STR_CACHE 4096 /* a power of two */

struct psym_index {
	char *path;
	const uint8_t *p;
	size_t len;
	bool mapped;
	int fd;	      /* >= 0: p is read from it chunk by chunk (load) */
	uint8_t *buf; /* the same bytes as p, writable: where load reads to */
	void *owned;
	struct idx_hdr h;
	size_t nchunks;
	uint8_t *checked; /* per chunk: 0 unchecked, 1 good */
	const uint8_t *crcs;
	struct dgroup *cache;
	uint64_t tick;
	size_t last_lo; /* find_group's last search's answer: the next starts there */
	/* Strings found good lately, by id (a lookup of a million addresses
	 * asks for the same few thousand names again and again). */
	uint32_t str_id[STR_CACHE];
	const char *str_p[STR_CACHE];
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

const char *psym_index_path(const struct psym_index *x)
{
	return x->path;
}

const char *psym_index_build_id(const struct psym_index *x)
{
	return x->h.build_id;
}

const char *psym_index_source(const struct psym_index *x)
{
	return x->h.source;
}

uint32_t psym_index_flags(const struct psym_index *x)
{
	return x->h.flags & (PSYM_INDEX_INLINES | PSYM_INDEX_DISCRIMINATORS);
}

uint64_t psym_index_size(const struct psym_index *x)
{
	return x->len;
}

void psym_index_close(struct psym_index *x)
{
	if (!x)
		return;
	if (x->mapped)
		munmap((void *)x->p, x->len ? x->len : 1);
	if (x->fd >= 0)
		close(x->fd);
	free(x->owned);
	free(x->checked);
	free(x->cache);
	free(x->path);
	free(x);
}

static int bad(struct psym_index *x, struct psym_err *e, const char *what)
{
	return psym_err_set(e, PSYM_EBADINPUT, "index '%s': %s", x->path, what);
}

static bool str_ok(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

/* Bytes [off, off + len) of the file into the private copy (a file index only). */
static int load(struct psym_index *x, uint64_t off, uint64_t len, struct psym_err *e)
{
	uint64_t got = 0;

	if (x->fd < 0)
		return 0;
	while (got < len) {
		ssize_t n =
			pread(x->fd, x->buf + off + got, (size_t)(len - got), (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return psym_err_set(e, PSYM_EBADINPUT,
					    "index '%s': cut short while in use (bytes %llu-%llu "
					    "unreadable%s%s)",
					    x->path, (unsigned long long)(off + got),
					    (unsigned long long)(off + len), n < 0 ? ": " : "",
					    n < 0 ? strerror(errno) : "");
		got += (uint64_t)n;
	}
	return 0;
}

/* Header, sizes and the CRC table; the chunks are checked when touched. */
static int check(struct psym_index *x, const char *build_id, const char *variant,
		 struct psym_err *e)
{
	struct idx_hdr *h = &x->h;
	uint64_t body_end, addr_w;

	if (*(const uint8_t *)&(uint16_t){ 1 } != 1)
		return bad(x, e, "index files are read on little-endian hosts only");
	if (x->len < IDX_HDR_SIZE)
		return bad(x, e, "truncated header");
	memcpy(h, x->p, sizeof(*h));
	if (memcmp(h->magic, IDX_MAGIC, 8) != 0)
		return bad(x, e, "not a psym index (bad magic)");
	if (h->version != PSYM_INDEX_VERSION) {
		return psym_err_set(e, PSYM_EBADINPUT, "index '%s': version %u, psym reads %u",
				    x->path, h->version, PSYM_INDEX_VERSION);
	}
	if (!CRC_OK(libdeflate_crc32(0, h, offsetof(struct idx_hdr, hdr_crc)), h->hdr_crc))
		return bad(x, e, "header checksum mismatch");
	if (h->hdr_size != IDX_HDR_SIZE || h->chunk_shift != IDX_CHUNK_SHIFT)
		return bad(x, e, "unexpected header or chunk size");
	if (h->file_size != x->len)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "index '%s': %zu bytes, the header says %llu (truncated?)",
				    x->path, x->len, (unsigned long long)h->file_size);
	if (!str_ok(h->build_id, sizeof(h->build_id)) || !str_ok(h->variant, sizeof(h->variant)) ||
	    !str_ok(h->source, sizeof(h->source)))
		return bad(x, e, "unterminated header string");
	if (build_id && strcmp(h->build_id, build_id) != 0)
		return psym_err_set(e, PSYM_EBADINPUT, "index '%s' is for build ID %s, not %s",
				    x->path, h->build_id[0] ? h->build_id : "(none)", build_id);
	if (variant && strcmp(h->variant, variant) != 0)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "index '%s' was made by another psym (answer rules '%s', not "
				    "'%s')",
				    x->path, h->variant, variant);
	/* Sections: in order, inside the file, the CRC table last. */
	{
		uint64_t prev = IDX_HDR_SIZE;

		for (int s = 0; s < SEC_N; s++) {
			if (h->sec[s].off < prev || h->sec[s].off > x->len ||
			    h->sec[s].len > x->len - h->sec[s].off || (h->sec[s].off & 7))
				return bad(x, e, "section outside the file");
			prev = h->sec[s].off + h->sec[s].len;
		}
	}
	addr_w = h->flags & IDX_FLAG_ADDR64 ? 8 : 4;
	if (h->ngroups > x->len / 4 || h->nfiles > x->len / 4 ||
	    h->sec[SEC_ADDRS].len != h->ngroups * addr_w ||
	    h->sec[SEC_OFFS].len != h->ngroups * 4 || h->sec[SEC_FILES].len != h->nfiles * 4 ||
	    h->sec[SEC_FUNCS].len >= UINT32_MAX || h->sec[SEC_STRS].len >= UINT32_MAX)
		return bad(x, e, "section sizes disagree with the counts");
	body_end = h->sec[SEC_CRCS].off;
	x->nchunks = (size_t)(((body_end - IDX_HDR_SIZE) + ((uint64_t)1 << IDX_CHUNK_SHIFT) - 1) >>
			      IDX_CHUNK_SHIFT);
	if (h->sec[SEC_CRCS].len != x->nchunks * 4 ||
	    h->sec[SEC_CRCS].off + h->sec[SEC_CRCS].len != x->len)
		return bad(x, e, "checksum table size disagrees with the file");
	x->crcs = x->p + h->sec[SEC_CRCS].off;
	if (load(x, h->sec[SEC_CRCS].off, h->sec[SEC_CRCS].len, e))
		return PSYM_EBADINPUT;
	if (!CRC_OK(libdeflate_crc32(0, x->crcs, h->sec[SEC_CRCS].len), h->crcs_crc))
		return bad(x, e, "checksum table damaged");
	x->checked = calloc(x->nchunks ? x->nchunks : 1, 1);
	x->cache = malloc(CACHE_GROUPS * sizeof(*x->cache));
	if (!x->checked || !x->cache)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (int i = 0; i < CACHE_GROUPS; i++) {
		x->cache[i].idx = SIZE_MAX;
		x->cache[i].used = 0;
	}
	return 0;
}

static int open_common(struct psym_index *x, const char *build_id, const char *variant,
		       struct psym_index **out, struct psym_err *e)
{
	int ret = check(x, build_id, variant, e);

	if (ret) {
		psym_index_close(x);
		return ret;
	}
	*out = x;
	return 0;
}

int psym_index_open_mem(const void *buf, size_t len, const char *name, const char *build_id,
			const char *variant, struct psym_index **out, struct psym_err *e)
{
	struct psym_index *x = calloc(1, sizeof(*x));

	if (!x || !(x->path = strdup(name))) {
		free(x);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	x->p = buf;
	x->len = len;
	x->fd = -1;
	return open_common(x, build_id, variant, out, e);
}

int psym_index_open_owned(void *buf, size_t len, const char *name, const char *build_id,
			  const char *variant, struct psym_index **out, struct psym_err *e)
{
	struct psym_index *x = calloc(1, sizeof(*x));

	if (!x || !(x->path = strdup(name))) {
		free(x);
		free(buf);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	x->p = buf;
	x->owned = buf;
	x->len = len;
	x->fd = -1;
	return open_common(x, build_id, variant, out, e);
}

int psym_index_open(const char *path, const char *build_id, const char *variant,
		    struct psym_index **out, struct psym_err *e)
{
	struct psym_index *x;
	struct stat st;
	void *buf;
	size_t size;
	int fd = psym_open_regular(path, e), ret;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot stat '%s': %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	if ((uint64_t)st.st_size < IDX_HDR_SIZE) {
		close(fd);
		return psym_err_set(e, PSYM_EBADINPUT, "index '%s': truncated header", path);
	}
	if ((uint64_t)st.st_size > PSYM_INDEX_MAX_FILE || (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return psym_err_set(e, PSYM_ELIMIT, "index '%s': larger than the cap of %llu", path,
				    (unsigned long long)PSYM_INDEX_MAX_FILE);
	}
	/* Reserved, not touched: pages come into being as chunks are read. */
	size = (size_t)st.st_size;
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		close(fd);
		return psym_err_set(e, PSYM_ENOMEM, "index '%s': no memory for its %zu bytes", path,
				    size);
	}
	x = calloc(1, sizeof(*x));
	if (!x || !(x->path = strdup(path))) {
		free(x);
		munmap(buf, size);
		close(fd);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	x->p = buf;
	x->buf = buf;
	x->len = size;
	x->mapped = true;
	x->fd = fd;
	ret = load(x, 0, IDX_HDR_SIZE, e);
	if (ret) {
		psym_index_close(x);
		return ret;
	}
	return open_common(x, build_id, variant, out, e);
}

int psym_index_open_map(const void *map, size_t len, const char *name, const char *build_id,
			const char *variant, struct psym_index **out, struct psym_err *e)
{
	struct psym_index *x = calloc(1, sizeof(*x));

	if (!x || !(x->path = strdup(name))) {
		free(x);
		munmap((void *)map, len);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	x->p = map;
	x->len = len;
	x->mapped = true;
	x->fd = -1;
	return open_common(x, build_id, variant, out, e);
}

/* Check the chunks under [off, off + len) of the body (bounds checked by the caller). */
static int touch_slow(struct psym_index *x, uint64_t off, uint64_t len, struct psym_err *e)
{
	uint64_t body_end = x->h.sec[SEC_CRCS].off;

	if (off < IDX_HDR_SIZE || off > body_end || len > body_end - off)
		return bad(x, e, "offset outside the file");
	if (!len)
		return 0;
	for (uint64_t c = (off - IDX_HDR_SIZE) >> IDX_CHUNK_SHIFT,
		      last = (off + len - 1 - IDX_HDR_SIZE) >> IDX_CHUNK_SHIFT;
	     c <= last; c++) {
		uint64_t lo = IDX_HDR_SIZE + (c << IDX_CHUNK_SHIFT);
		uint64_t hi = lo + ((uint64_t)1 << IDX_CHUNK_SHIFT);

		if (x->checked[c])
			continue;
		if (hi > body_end)
			hi = body_end;
		if (load(x, lo, hi - lo, e))
			return PSYM_EBADINPUT;
		if (!CRC_OK(libdeflate_crc32(0, x->p + lo, hi - lo), le32(x->crcs + 4 * c))) {
			return psym_err_set(e, PSYM_EBADINPUT,
					    "index '%s': checksum mismatch in bytes %llu-%llu",
					    x->path, (unsigned long long)lo,
					    (unsigned long long)hi);
		}
		x->checked[c] = 1;
	}
	return 0;
}

/*
 * The same: bytes inside one chunk checked already (almost every call: a
 * lookup's search reads a start per step) are answered here.
 */
static inline int touch(struct psym_index *x, uint64_t off, uint64_t len, struct psym_err *e)
{
	uint64_t c = (off - IDX_HDR_SIZE) >> IDX_CHUNK_SHIFT;

	if (off >= IDX_HDR_SIZE && len && off + len <= x->h.sec[SEC_CRCS].off && off + len > off &&
	    c == (off + len - 1 - IDX_HDR_SIZE) >> IDX_CHUNK_SHIFT && x->checked[c])
		return 0;
	return touch_slow(x, off, len, e);
}

/* A string by id (0: NULL), checked and NUL-terminated inside STRS. */
static int str_at(struct psym_index *x, uint32_t id, const char **out, struct psym_err *e)
{
	uint64_t off = x->h.sec[SEC_STRS].off, len = x->h.sec[SEC_STRS].len, at, step;
	const uint8_t *nul;

	if (!id) {
		*out = NULL;
		return 0;
	}
	if (x->str_id[id & (STR_CACHE - 1)] == id) {
		*out = x->str_p[id & (STR_CACHE - 1)];
		return 0;
	}
	if (id - 1 >= len)
		return bad(x, e, "string id out of range");
	at = off + id - 1;
	for (;;) {
		uint64_t left = off + len - at;

		/* Up to the end of this chunk. */
		step = (((at - IDX_HDR_SIZE) >> IDX_CHUNK_SHIFT) + 1) << IDX_CHUNK_SHIFT;
		step = step + IDX_HDR_SIZE - at;
		if (step > left)
			step = left;
		if (!step)
			return bad(x, e, "unterminated string");
		if (touch(x, at, step, e))
			return e->code;
		nul = memchr(x->p + at, '\0', step);
		if (nul)
			break;
		at += step;
	}
	*out = (const char *)x->p + off + id - 1;
	x->str_id[id & (STR_CACHE - 1)] = id;
	x->str_p[id & (STR_CACHE - 1)] = *out;
	return 0;
}

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

/* Most values in a record fit one byte: that case is inline, the rest below. */
static uint64_t rd_uleb_slow(struct rd *r);
static int64_t rd_sleb_slow(struct rd *r);

static inline uint64_t rd_uleb(struct rd *r)
{
	if (r->p < r->end && !(*r->p & 0x80))
		return *r->p++;
	return rd_uleb_slow(r);
}

static inline int64_t rd_sleb(struct rd *r)
{
	if (r->p < r->end && !(*r->p & 0x80)) {
		uint8_t b = *r->p++;

		return b & 0x40 ? (int64_t)b - 0x80 : (int64_t)b;
	}
	return rd_sleb_slow(r);
}

static uint64_t rd_uleb_slow(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift > 63)
			break;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb_slow(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	do {
		if (r->p >= r->end || shift > 63) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static uint64_t group_start(struct psym_index *x, size_t i)
{
	const uint8_t *a = x->p + x->h.sec[SEC_ADDRS].off;

	return x->h.base + (x->h.flags & IDX_FLAG_ADDR64 ? le64(a + 8 * i) : le32(a + 4 * i));
}

/* Decode group i into g: its nodes; its runs as lookups need them (runs_upto). */
static int decode(struct psym_index *x, size_t i, struct dgroup *g, struct psym_err *e)
{
	const uint8_t *offs = x->p + x->h.sec[SEC_OFFS].off;
	uint64_t foff = x->h.sec[SEC_FUNCS].off, flen = x->h.sec[SEC_FUNCS].len;
	uint64_t lo = le32(offs + 4 * i),
		 hi = i + 1 < x->h.ngroups ? le32(offs + 4 * (i + 1)) : flen;
	struct rd r;
	uint64_t size, n;

	if (lo > hi || hi > flen)
		return bad(x, e, "function record outside its section");
	if (touch(x, foff + lo, hi - lo, e))
		return e->code;
	r = (struct rd){ x->p + foff + lo, x->p + foff + hi, false };
	g->idx = SIZE_MAX;
	g->start = group_start(x, i);
	size = rd_uleb(&r);
	g->end = g->start + size;
	if (g->end < g->start)
		return bad(x, e, "function size overflows");
	n = rd_uleb(&r);
	if (n > IDX_MAX_NODES)
		return bad(x, e, "too many nodes in a function record");
	for (size_t k = 0; k < n; k++) {
		struct dnode *d = &g->nodes[k];

		d->parent = (uint32_t)rd_uleb(&r);
		d->name = (uint32_t)rd_uleb(&r);
		d->linkage = (uint32_t)rd_uleb(&r);
		d->start_line = rd_sleb(&r);
		d->start_file = (uint32_t)rd_uleb(&r);
		switch (rd_uleb(&r)) {
		case 0: d->has_start = false; break;
		case 1: d->has_start = true; break;
		default: return bad(x, e, "bad start address flag in a function record");
		}
		d->start_address = d->has_start ? g->start + (uint64_t)rd_sleb(&r) : 0;
		d->pfile = 0;
		d->pline = d->pcol = 0;
		d->pdisc = 0;
		d->have = 0;
		/* Parents come first: no cycles. */
		if (d->parent > k)
			return bad(x, e, "node parent out of order");
		if (d->parent) {
			d->pfile = (uint32_t)rd_uleb(&r);
			d->pline = rd_sleb(&r);
			d->pcol = rd_sleb(&r);
			d->pdisc = (uint32_t)rd_uleb(&r);
		}
	}
	g->nnodes = n;
	n = rd_uleb(&r);
	if (n > IDX_MAX_RUNS || (n == 0 && !r.bad))
		return bad(x, e, "bad run count in a function record");
	g->ntotal = n;
	g->nruns = 0;
	g->rp = r.p;
	g->rend = r.end;
	g->rbad = r.bad;
	g->raddr = g->start;
	g->rnode = g->rfile = 0;
	g->rline = 0;
	g->idx = i;
	g->hint = 0;
	return 0;
}

/*
 * g's runs decoded up to the first that starts past a (all of them for
 * UINT64_MAX), with every check decode made of them when it decoded them
 * all at once: a lookup decodes the runs it needs (a function's one
 * lookup in a chunk, on average half its runs). An error empties g.
 */
static int runs_upto(struct psym_index *x, struct dgroup *g, uint64_t a, struct psym_err *e)
{
	struct rd r = { g->rp, g->rend, g->rbad };
	int ret = 0;

	while (g->nruns < g->ntotal && !r.bad && (!g->nruns || g->runs[g->nruns - 1].addr <= a)) {
		struct drun *d = &g->runs[g->nruns];
		uint8_t flags = r.p < r.end ? *r.p++ : (r.bad = true, 0);
		uint64_t delta = rd_uleb(&r);

		if (g->nruns == 0 ? delta != 0 : delta == 0 || g->raddr + delta < g->raddr) {
			ret = bad(x, e, "runs out of order");
			goto out;
		}
		g->raddr += delta;
		if (flags & RUN_NODE)
			g->rnode = (uint32_t)rd_uleb(&r);
		if (flags & RUN_FILE)
			g->rfile = (uint32_t)rd_uleb(&r);
		g->rline = (int64_t)((uint64_t)g->rline + (uint64_t)rd_sleb(&r));
		d->addr = g->raddr;
		d->node = g->rnode;
		d->file = g->rfile;
		d->line = g->rline;
		d->col = flags & RUN_COLUMN ? rd_sleb(&r) : 0;
		d->have_file = false;
		d->disc = flags & RUN_DISC ? (uint32_t)rd_uleb(&r) : 0;
		if (g->rnode >= g->nnodes || g->rfile > x->h.nfiles) {
			ret = bad(x, e, "run names a missing node or file");
			goto out;
		}
		g->nruns++;
	}
	if (r.bad)
		ret = bad(x, e, "truncated function record");
	else if (g->nruns == g->ntotal && g->raddr >= g->end)
		ret = bad(x, e, "run past its function's end");
out:
	g->rp = r.p;
	g->rbad = r.bad;
	if (ret)
		g->idx = SIZE_MAX;
	return ret;
}

static int file_at(struct psym_index *x, uint32_t fid, const char **out, struct psym_err *e)
{
	uint64_t off = x->h.sec[SEC_FILES].off + 4 * (uint64_t)(fid - 1);

	if (!fid) {
		*out = NULL;
		return 0;
	}
	if (fid > x->h.nfiles)
		return bad(x, e, "file id out of range");
	if (touch(x, off, 4, e))
		return e->code;
	return str_at(x, le32(x->p + off), out, e);
}

/*
 * Group i starts past a, its start's bytes checked first; after a failure
 * (*ret set) true, so a search ends at once.
 */
static inline bool starts_past(struct psym_index *x, size_t i, uint64_t a, int *ret,
			       struct psym_err *e)
{
	size_t addr_w = x->h.flags & IDX_FLAG_ADDR64 ? 8 : 4;

	if (*ret || (*ret = touch(x, x->h.sec[SEC_ADDRS].off + addr_w * i, addr_w, e)))
		return true;
	return group_start(x, i) > a;
}

/*
 * The first group that starts past a. Addresses mostly come sorted: from
 * the last answer on, in steps that double, then a binary search of the
 * last step (a search of the whole table from its middle had been a
 * twentieth of a Go lookup run).
 */
static size_t group_after(struct psym_index *x, uint64_t a, int *ret, struct psym_err *e)
{
	size_t from = 0, to = x->h.ngroups, lo = x->last_lo;

	if (lo && lo <= to && !starts_past(x, lo - 1, a, ret, e)) {
		for (size_t step = 1; lo < to; step *= 2) {
			size_t probe = to - lo > step ? lo + step - 1 : to - 1;

			if (starts_past(x, probe, a, ret, e)) {
				to = probe;
				break;
			}
			lo = probe + 1;
		}
		from = lo;
	}
	lo = PSYM_LOWER_BOUND(from, to, i, starts_past(x, i, a, ret, e));
	if (!*ret)
		x->last_lo = lo;
	return lo;
}

/* The group holding vaddr: decoded into the cache, or NULL (a gap). */
static int find_group(struct psym_index *x, uint64_t a, struct dgroup **out, struct psym_err *e)
{
	struct dgroup *g = NULL;
	int ret = 0;
	size_t lo;

	*out = NULL;
	for (int k = 0; k < CACHE_GROUPS; k++)
		if (x->cache[k].idx != SIZE_MAX && a >= x->cache[k].start && a < x->cache[k].end) {
			x->cache[k].used = ++x->tick;
			*out = &x->cache[k];
			return 0;
		}
	if (!x->h.ngroups || a < x->h.base)
		return 0;
	lo = group_after(x, a, &ret, e);
	if (ret)
		return e->code;
	if (!lo)
		return 0;
	if (touch(x, x->h.sec[SEC_OFFS].off + 4 * (lo - 1), lo < x->h.ngroups ? 8 : 4, e))
		return e->code;
	for (int k = 0; k < CACHE_GROUPS; k++)
		if (!g || x->cache[k].idx == SIZE_MAX || x->cache[k].used < g->used)
			g = &x->cache[k];
	ret = decode(x, lo - 1, g, e);
	if (ret) {
		g->idx = SIZE_MAX;
		return ret;
	}
	g->used = ++x->tick;
	if (a < g->end)
		*out = g;
	return 0;
}

int psym_index_lookup(struct psym_index *x, uint64_t vaddr, bool discriminators,
		      struct psym_frame *f, size_t max, size_t *np, struct psym_err *e)
{
	struct dgroup *g;
	struct drun *run;
	uint32_t chain[PSYM_MAX_FRAMES];
	size_t lo, hi, depth = 0, n = 0;
	int ret;

	*np = 0;
	ret = find_group(x, vaddr, &g, e);
	if (ret || !g)
		return ret;
	if (runs_upto(x, g, vaddr, e))
		return e->code;
	lo = 0;
	hi = g->nruns;
	/*
	 * Addresses mostly come sorted: a few steps on from the last run
	 * found are cheaper than a binary search's mispredicted branches.
	 */
	if (g->hint && g->runs[g->hint - 1].addr <= vaddr) {
		size_t k = g->hint, stop = k + 4 < hi ? k + 4 : hi;

		while (k < stop && g->runs[k].addr <= vaddr)
			k++;
		if (k < stop || k == hi)
			lo = hi = k;
		else
			lo = k;
	}
	lo = PSYM_LOWER_BOUND(lo, hi, i, g->runs[i].addr > vaddr);
	if (!lo)
		return 0;
	g->hint = lo;
	run = &g->runs[lo - 1];
	/* The chain, innermost first; parents come before children. */
	for (uint32_t k = run->node + 1; k && depth < PSYM_MAX_FRAMES; k = g->nodes[k - 1].parent)
		chain[depth++] = k - 1;
	if (!run->have_file) {
		if (file_at(x, run->file, &run->s_file, e))
			return e->code;
		run->have_file = true;
	}
	for (size_t i = 0; i < depth && n < max; i++) {
		struct dnode *d = &g->nodes[chain[i]];
		struct psym_frame *fr = &f[n++];

		if (!(d->have & HAVE_OWN)) {
			if (str_at(x, d->name, &d->s_name, e) ||
			    str_at(x, d->linkage, &d->s_linkage, e) ||
			    file_at(x, d->start_file, &d->s_start_file, e))
				return e->code;
			d->have |= HAVE_OWN;
		}
		memset(fr, 0, sizeof(*fr));
		fr->name = d->s_name;
		fr->linkage_name = d->s_linkage;
		fr->start_line = d->start_line;
		fr->start_file = d->s_start_file;
		fr->has_start_address = d->has_start;
		fr->start_address = d->start_address;
		if (i == 0) {
			fr->file = run->s_file;
			fr->line = run->line;
			fr->column = run->col;
			fr->discriminator = discriminators ? run->disc : 0;
		} else {
			struct dnode *callee = &g->nodes[chain[i - 1]];

			if (!(callee->have & HAVE_PFILE)) {
				if (file_at(x, callee->pfile, &callee->s_pfile, e))
					return e->code;
				callee->have |= HAVE_PFILE;
			}
			fr->file = callee->s_pfile;
			fr->line = callee->pline;
			fr->column = callee->pcol;
			fr->discriminator = callee->pdisc;
		}
	}
	*np = n;
	return 0;
}

int psym_index_verify(struct psym_index *x, size_t *groups, struct psym_err *e)
{
	uint64_t body = x->h.sec[SEC_CRCS].off - IDX_HDR_SIZE, prev = 0;
	struct dgroup *g = &x->cache[0];
	const char *s;

	*groups = 0;
	if (touch(x, IDX_HDR_SIZE, body, e))
		return e->code;
	for (size_t i = 0; i < x->h.ngroups; i++) {
		uint64_t start = group_start(x, i);

		if (i && start <= prev)
			return bad(x, e, "function records out of order");
		prev = start;
		if (decode(x, i, g, e) || runs_upto(x, g, UINT64_MAX, e))
			return e->code;
		for (size_t k = 0; k < g->nnodes; k++)
			if (str_at(x, g->nodes[k].name, &s, e) ||
			    str_at(x, g->nodes[k].linkage, &s, e) ||
			    file_at(x, g->nodes[k].pfile, &s, e) ||
			    file_at(x, g->nodes[k].start_file, &s, e))
				return e->code;
		for (size_t k = 0; k < g->nruns; k++)
			if (file_at(x, g->runs[k].file, &s, e))
				return e->code;
		if (i + 1 < x->h.ngroups && g->end > group_start(x, i + 1))
			return bad(x, e, "function records overlap");
	}
	g->idx = SIZE_MAX;
	*groups = x->h.ngroups;
	return 0;
}
