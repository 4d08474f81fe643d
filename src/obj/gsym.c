/* SPDX-License-Identifier: MIT */
/* Reading GSYM files (gsym.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bytes.h"
#include "fileio.h"
#include "gsym.h"
#include "search.h"

#define GSYM_MAGIC 0x4753594du
#define GSYM_HDR 48
#define MAX_FILE ((uint64_t)4 << 30)

enum {
	INFO_END = 0,
	INFO_LINES = 1,
	INFO_INLINE = 2
};

struct psym_gsym {
	char *path;
	const uint8_t *p;
	size_t len;
	bool mapped;
	uint8_t addr_size;
	uint64_t base;
	uint32_t naddr, nfiles;
	uint64_t addrs_off, infos_off, files_off, str_off, str_len;
	char uuid[41];
	char **files; /* "dir/base" per file index, made on first use */
};

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)psym_get_uint(p, 4, false);
}

static uint64_t le_n(const uint8_t *p, unsigned n)
{
	return psym_get_uint(p, n, false);
}

static uint32_t rd_u32(struct rd *r)
{
	if (r->end - r->p < 4) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	r->p += 4;
	return le32(r->p - 4);
}

static uint8_t rd_u8(struct rd *r)
{
	if (r->p >= r->end) {
		r->bad = true;
		return 0;
	}
	return *r->p++;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; r->p < r->end && shift < 70; shift += 7) {
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (r->p >= r->end || shift >= 70) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static int bad(struct psym_gsym *g, struct psym_err *e, const char *what)
{
	return psym_err_set(e, PSYM_EBADINPUT, "GSYM file '%s': %s", g->path, what);
}

static uint64_t align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static int parse(struct psym_gsym *g, struct psym_err *e)
{
	const uint8_t *h = g->p;
	uint8_t uuid_size;

	if (g->len < GSYM_HDR)
		return bad(g, e, "truncated header");
	if (le32(h) != GSYM_MAGIC)
		return bad(g, e, "not a GSYM file (bad magic, or big-endian)");
	if (le_n(h + 4, 2) != 1)
		return psym_err_set(e, PSYM_EBADINPUT, "GSYM file '%s': version %u, psym reads 1",
				    g->path, (unsigned)le_n(h + 4, 2));
	g->addr_size = h[6];
	uuid_size = h[7];
	if (g->addr_size != 1 && g->addr_size != 2 && g->addr_size != 4 && g->addr_size != 8)
		return bad(g, e, "bad address offset size");
	if (uuid_size > 20)
		return bad(g, e, "bad UUID size");
	g->base = le_n(h + 8, 8);
	g->naddr = le32(h + 16);
	g->str_off = le32(h + 20);
	g->str_len = le32(h + 24);
	for (unsigned i = 0; i < uuid_size; i++)
		snprintf(g->uuid + 2 * i, 3, "%02x", h[28 + i]);
	g->addrs_off = align(GSYM_HDR, g->addr_size);
	g->infos_off = align(g->addrs_off + (uint64_t)g->naddr * g->addr_size, 4);
	g->files_off = g->infos_off + (uint64_t)g->naddr * 4;
	if (g->files_off + 4 > g->len)
		return bad(g, e, "address tables end past the end of the file");
	g->nfiles = le32(g->p + g->files_off);
	if ((uint64_t)g->nfiles * 8 > g->len - g->files_off - 4)
		return bad(g, e, "file table ends past the end of the file");
	if (g->str_off > g->len || g->str_len > g->len - g->str_off)
		return bad(g, e, "string table ends past the end of the file");
	g->files = calloc(g->nfiles ? g->nfiles : 1, sizeof(*g->files));
	if (!g->files)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}

static int finish_open(struct psym_gsym *g, struct psym_gsym **out, struct psym_err *e)
{
	int ret = parse(g, e);

	if (ret) {
		psym_gsym_close(g);
		return ret;
	}
	*out = g;
	return 0;
}

int psym_gsym_open_mem(const void *buf, size_t len, const char *name, struct psym_gsym **out,
		       struct psym_err *e)
{
	struct psym_gsym *g = calloc(1, sizeof(*g));

	if (!g || !(g->path = strdup(name))) {
		free(g);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	g->p = buf;
	g->len = len;
	return finish_open(g, out, e);
}

int psym_gsym_open(const char *path, struct psym_gsym **out, struct psym_err *e)
{
	struct psym_gsym *g;
	const void *map;
	size_t len;
	int rc = psym_map_regular(path, "GSYM file", GSYM_HDR, MAX_FILE, &map, &len, e);

	if (rc)
		return rc;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->path = strdup(path))) {
		free(g);
		munmap((void *)map, len);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	g->p = map;
	g->len = len;
	g->mapped = true;
	return finish_open(g, out, e);
}

void psym_gsym_close(struct psym_gsym *g)
{
	if (!g)
		return;
	for (uint32_t i = 0; g->files && i < g->nfiles; i++)
		free(g->files[i]);
	free(g->files);
	if (g->mapped)
		munmap((void *)g->p, g->len);
	free(g->path);
	free(g);
}

const char *psym_gsym_path(const struct psym_gsym *g)
{
	return g->path;
}

const char *psym_gsym_uuid(const struct psym_gsym *g)
{
	return g->uuid;
}

/* A string of the string table, NUL-terminated inside it, or NULL. */
static const char *str_at(const struct psym_gsym *g, uint32_t off)
{
	const char *s = (const char *)g->p + g->str_off + off;

	if (off >= g->str_len || !memchr(s, '\0', g->str_len - off))
		return NULL;
	return s;
}

/* File i as "dir/base" (0 and empty entries: NULL); *ok false when damaged. */
static const char *file_at(struct psym_gsym *g, uint32_t i, bool *ok)
{
	const uint8_t *fe;
	const char *dir, *base;

	if (i == 0)
		return NULL;
	if (i >= g->nfiles) {
		*ok = false;
		return NULL;
	}
	if (g->files[i])
		return g->files[i];
	fe = g->p + g->files_off + 4 + 8 * (uint64_t)i;
	dir = str_at(g, le32(fe));
	base = str_at(g, le32(fe + 4));
	if (!dir || !base) {
		*ok = false;
		return NULL;
	}
	if (asprintf(&g->files[i], "%s%s%s", dir, dir[0] ? "/" : "", base) < 0) {
		g->files[i] = NULL;
		*ok = false;
	}
	return g->files[i];
}

struct loc {
	uint32_t name, file, line;
};

struct ilook {
	struct psym_gsym *g;
	uint64_t addr;
	struct loc *locs;
	size_t n, max;
	bool bad;
};

static bool ranges_hold(struct rd *r, uint64_t base, uint64_t addr, uint64_t *first, bool *empty)
{
	uint64_t n = rd_uleb(r);
	bool hit = false;

	*empty = n == 0;
	*first = 0;
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t start = base + rd_uleb(r), size = rd_uleb(r);

		if (i == 0)
			*first = start;
		if (addr >= start && addr - start < size)
			hit = true;
	}
	return hit;
}

/* Skip one InlineInfo (its ranges already read when skipped_ranges); false: a terminator. */
static bool skip_inline(struct rd *r, bool skipped_ranges, unsigned depth)
{
	if (!skipped_ranges) {
		uint64_t n = rd_uleb(r);

		if (!n)
			return false;
		for (uint64_t i = 0; i < n && !r->bad; i++) {
			rd_uleb(r);
			rd_uleb(r);
		}
	}
	bool kids = rd_u8(r) != 0;

	rd_u32(r);
	rd_uleb(r);
	rd_uleb(r);
	if (depth > PSYM_MAX_FRAMES) {
		r->bad = true;
		return false;
	}
	while (kids && !r->bad && skip_inline(r, false, depth + 1))
		;
	return true;
}

/* LLVM's lookup order: children first, then this level renames the innermost. */
static bool inline_lookup(struct ilook *l, struct rd *r, uint64_t base, unsigned depth)
{
	uint64_t first;
	bool empty, hit = ranges_hold(r, base, l->addr, &first, &empty);

	if (empty || r->bad)
		return true;
	if (!hit) {
		skip_inline(r, true, depth);
		return false;
	}
	bool kids = rd_u8(r) != 0;
	uint32_t name = rd_u32(r);
	uint32_t cfile = (uint32_t)rd_uleb(r), cline = (uint32_t)rd_uleb(r);

	if (depth > PSYM_MAX_FRAMES) {
		r->bad = true;
		return true;
	}
	if (kids)
		while (!r->bad && !inline_lookup(l, r, first, depth + 1))
			;
	if (r->bad)
		return true;
	if (cfile >= l->g->nfiles) {
		l->bad = true;
		return true;
	}
	const uint8_t *fe = l->g->p + l->g->files_off + 4 + 8 * (uint64_t)cfile;

	if ((le32(fe) || le32(fe + 4)) && l->n < l->max) {
		l->locs[l->n] = (struct loc){ l->locs[l->n - 1].name, cfile, cline };
		l->locs[l->n - 1].name = name;
		l->n++;
	}
	return true;
}

static size_t find_addr(const struct psym_gsym *g, uint64_t off, bool *found)
{
	const uint8_t *t = g->p + g->addrs_off;
	size_t lo =
		PSYM_LOWER_BOUND(0, g->naddr, i, le_n(t + i * g->addr_size, g->addr_size) > off);

	*found = lo > 0;
	return lo - 1;
}

int psym_gsym_lookup(struct psym_gsym *g, uint64_t vaddr, struct psym_frame *f, size_t max,
		     size_t *np, struct psym_err *e)
{
	struct loc locs[PSYM_MAX_FRAMES];
	struct ilook l = { .g = g, .addr = vaddr, .locs = locs, .max = PSYM_MAX_FRAMES };
	struct rd r, inl = { 0 };
	uint64_t start, size, info;
	uint32_t name, file = 1, lfile = 0;
	int64_t line = 0, lline = 0;
	bool found, have_row = false, have_inline = false, ok = true;
	size_t i;

	*np = 0;
	if (vaddr < g->base || !max)
		return 0;
	i = find_addr(g, vaddr - g->base, &found);
	if (!found)
		return 0;
	start = g->base + le_n(g->p + g->addrs_off + i * g->addr_size, g->addr_size);
	info = le32(g->p + g->infos_off + 4 * i);
	if (info >= g->len)
		return bad(g, e, "function record outside the file");
	r = (struct rd){ g->p + info, g->p + g->len, false };
	size = rd_u32(&r);
	name = rd_u32(&r);
	if (r.bad)
		return bad(g, e, "truncated function record");
	if (size && vaddr - start >= size)
		return 0;
	if (!str_at(g, name))
		return bad(g, e, "function name outside the string table");
	for (;;) {
		uint32_t type = rd_u32(&r), len = rd_u32(&r);
		struct rd d;

		if (r.bad || (size_t)(r.end - r.p) < len)
			return bad(g, e, "truncated function record");
		d = (struct rd){ r.p, r.p + len, false };
		r.p += len;
		if (type == INFO_END)
			break;
		if (type == INFO_LINES) {
			int64_t min = rd_sleb(&d), maxd = rd_sleb(&d), range = maxd - min + 1;
			uint64_t a = start;

			line = (int64_t)rd_uleb(&d);
			file = 1;
			if (range <= 0 || d.bad)
				return bad(g, e, "bad line table header");
			for (bool done = false; !done && !d.bad;) {
				uint8_t op = rd_u8(&d);
				bool row = false;

				switch (op) {
				case 0: done = true; break;
				case 1: file = (uint32_t)rd_uleb(&d); break;
				case 2:
					a += rd_uleb(&d);
					row = true;
					break;
				case 3: line += rd_sleb(&d); break;
				default:
					line += min + (op - 4) % range;
					a += (uint64_t)((op - 4) / range);
					row = true;
				}
				if (row) {
					if (vaddr < a)
						break;
					have_row = true;
					lfile = file;
					lline = line;
					/* As LLVM 14: the first row at the address itself. */
					if (vaddr == a)
						break;
				}
			}
			if (d.bad)
				return bad(g, e, "truncated line table");
		} else if (type == INFO_INLINE) {
			inl = d;
			have_inline = true;
		}
	}
	locs[0] = (struct loc){ name, have_row ? lfile : 0, have_row ? (uint32_t)lline : 0 };
	l.n = 1;
	if (have_row && have_inline) {
		inline_lookup(&l, &inl, start, 0);
		if (inl.bad || l.bad)
			return bad(g, e, "damaged inline information");
	}
	for (size_t k = 0; k < l.n && k < max; k++) {
		const char *s = str_at(g, locs[k].name);

		if (!s)
			return bad(g, e, "inline name outside the string table");
		f[k] = (struct psym_frame){
			.name = s,
			.linkage_name = (s[0] == '_' && (s[1] == 'Z' || s[1] == 'R')) ? s : NULL,
			.file = file_at(g, locs[k].file, &ok),
			.line = locs[k].line,
		};
		if (!ok)
			return bad(g, e, "file index outside the file table");
		*np = k + 1;
	}
	return 0;
}
