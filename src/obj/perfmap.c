/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bytes.h"
#include "arena.h"
#include "compress.h"
#include "fileio.h"
#include "perfmap.h"
#include "symtab.h"

#define LINE_MAX_BYTES 8192
#define DEFAULT_MAX_FILE ((size_t)1 << 30)
#define RAISE_FILE "--limit perfmap-bytes=N"

struct psym_perfmap {
	struct psym_perfmap_limits lim;
	struct psym_symtab syms; /* overlapping entries: the latest wins */
	size_t malformed, name_bytes;
	struct psym_arena names;
};

int psym_perfmap_new(const struct psym_perfmap_limits *lim, struct psym_perfmap **out,
		     struct psym_err *e)
{
	struct psym_perfmap *m = calloc(1, sizeof(*m));

	if (!m)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	m->lim.max_entries = lim && lim->max_entries ? lim->max_entries : (size_t)16 << 20;
	m->lim.max_name_bytes = lim && lim->max_name_bytes ? lim->max_name_bytes : (size_t)1 << 30;
	m->lim.max_file_bytes = lim && lim->max_file_bytes ? lim->max_file_bytes : DEFAULT_MAX_FILE;
	psym_arena_init(&m->names, m->lim.max_name_bytes + (1 << 20));
	psym_symtab_init(&m->syms, &(struct psym_symtab_opts){
					   .rule = PSYM_SYMTAB_LATEST,
					   .max_entries = m->lim.max_entries,
					   .what = "JIT entries",
					   .limit_flag = "--limit perfmap-entries=N",
				   });
	*out = m;
	return 0;
}

void psym_perfmap_free(struct psym_perfmap *m)
{
	if (!m)
		return;
	psym_symtab_free(&m->syms);
	psym_arena_free(&m->names);
	free(m);
}

size_t psym_perfmap_malformed(const struct psym_perfmap *m)
{
	return m->malformed;
}

static int add_entry(struct psym_perfmap *m, uint64_t start, uint64_t size, const char *name,
		     size_t nlen, const char *src, struct psym_err *e)
{
	char *copy;

	if (size == 0 || start + size < start) {
		m->malformed++;
		return 0;
	}
	if (psym_symtab_count(&m->syms) >= m->lim.max_entries)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': more than %zu JIT entries (--limit perfmap-entries=N)",
				    src, m->lim.max_entries);
	if (m->name_bytes + nlen + 1 > m->lim.max_name_bytes)
		return psym_err_set(
			e, PSYM_ELIMIT,
			"'%s': JIT names larger than %zu bytes (--limit perfmap-names=N)", src,
			m->lim.max_name_bytes);
	copy = psym_arena_strndup(&m->names, name, nlen);
	if (!copy)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	m->name_bytes += nlen + 1;
	return psym_symtab_push(
		&m->syms, &(struct psym_sym){ .addr = start, .size = size, .name = copy }, src, e);
}

/* Hex with an optional 0x prefix. */
static bool hexnum(const char **p, const char *end, uint64_t *out)
{
	if (end - *p >= 2 && (*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	return psym_parse_hex(p, end, out);
}

/* One line: "START SIZE name". */
static int add_line(struct psym_perfmap *m, const char *p, size_t len, const char *src,
		    struct psym_err *e)
{
	const char *end = p + len;
	uint64_t start, size;

	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (memchr(p, '\0', (size_t)(end - p)) || !hexnum(&p, end, &start) || p >= end || *p != ' ')
		goto bad;
	while (p < end && *p == ' ')
		p++;
	if (!hexnum(&p, end, &size) || p >= end || *p != ' ')
		goto bad;
	p++;
	if (p >= end)
		goto bad;
	return add_entry(m, start, size, p, (size_t)(end - p), src, e);
bad:
	m->malformed++;
	return 0;
}

int psym_perfmap_add_text(struct psym_perfmap *m, const char *text, size_t len, const char *name,
			  struct psym_err *e)
{
	const char *p = text, *end = text + len;
	int ret = 0;

	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n > LINE_MAX_BYTES)
			m->malformed++;
		else
			ret = add_line(m, p, n, name, e);
		p = nl ? nl + 1 : end;
	}
	return ret;
}

struct line_ctx {
	struct psym_perfmap *m;
	const char *src;
	struct psym_err *e;
};

static int line_cb(void *ud, const char *line, size_t len)
{
	struct line_ctx *c = ud;

	return add_line(c->m, line, len, c->src, c->e);
}

/*
 * A zstd-compressed perf map (psym-collect's snapshot): read whole and
 * inflated, both under max_file_bytes.
 */
static int add_zstd(struct psym_perfmap *m, const char *path, struct psym_err *e)
{
	unsigned char *raw = NULL, *text = NULL;
	size_t rawlen = 0, len = 0, max = m->lim.max_file_bytes;
	int ret = psym_read_file_cap(path, max, RAISE_FILE, &raw, &rawlen, e);

	if (ret)
		return ret;
	/* Perf maps compress 5 to 10 times: past 64 times (plus 16 MiB) is a bomb. */
	if (rawlen < ((size_t)1 << 32) && max > rawlen * 64 + ((size_t)16 << 20))
		max = rawlen * 64 + ((size_t)16 << 20);
	ret = psym_unzstd(raw, rawlen, max, path, &text, &len, e);
	free(raw);
	if (!ret)
		ret = psym_perfmap_add_text(m, (const char *)text, len, path, e);
	free(text);
	return ret;
}

int psym_perfmap_add_file(struct psym_perfmap *m, const char *path, struct psym_err *e)
{
	struct line_ctx c = { m, path, e };
	int fd = psym_open_regular(path, e), ret;
	unsigned char magic[4];

	if (fd < 0)
		return fd;
	if (pread(fd, magic, 4, 0) == 4 && magic[0] == 0x28 && magic[1] == 0xb5 &&
	    magic[2] == 0x2f && magic[3] == 0xfd) {
		close(fd);
		return add_zstd(m, path, e);
	}
	ret = psym_read_lines_cap(fd, path, LINE_MAX_BYTES, m->lim.max_file_bytes, RAISE_FILE,
				  line_cb, &c, &m->malformed, e);
	close(fd);
	return ret;
}

/* ---- jitdump ----------------------------------------------------------------- */

#define JITDUMP_MAGIC 0x4A695444u
#define JIT_CODE_LOAD 0
#define JIT_CODE_MOVE 1

static uint32_t rd32(const unsigned char *p, bool swap)
{
	return (uint32_t)psym_get_uint(p, 4, swap != PSYM_HOST_MSB);
}

static uint64_t rd64(const unsigned char *p, bool swap)
{
	return psym_get_uint(p, 8, swap != PSYM_HOST_MSB);
}

int psym_perfmap_add_jitdump_mem(struct psym_perfmap *m, const unsigned char *buf, size_t len,
				 const char *src, struct psym_err *e)
{
	uint32_t magic, hdr_size;
	bool swap;
	size_t off;
	int ret;

	if (len < 40)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': not a jitdump file (too short)", src);
	memcpy(&magic, buf, 4);
	if (magic == JITDUMP_MAGIC)
		swap = false;
	else if (magic == __builtin_bswap32(JITDUMP_MAGIC))
		swap = true;
	else
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': not a jitdump file (bad magic)", src);
	hdr_size = rd32(buf + 8, swap);
	if (hdr_size < 40 || hdr_size > len)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': bad jitdump header size", src);
	off = hdr_size;
	while (len - off >= 16) {
		uint32_t id = rd32(buf + off, swap), size = rd32(buf + off + 4, swap);
		const unsigned char *r = buf + off;

		if (size < 16 || size > len - off) {
			m->malformed++; /* truncated or corrupt: keep what came before */
			break;
		}
		if (id == JIT_CODE_LOAD && size >= 16 + 40 + 1) {
			uint64_t code_addr = rd64(r + 16 + 16, swap);
			uint64_t code_size = rd64(r + 16 + 24, swap);
			const char *name = (const char *)r + 16 + 40;
			size_t maxn = size - (16 + 40);
			size_t n = strnlen(name, maxn);

			if (n < maxn) {
				ret = add_entry(m, code_addr, code_size, name, n, src, e);
				if (ret)
					return ret;
			} else {
				m->malformed++;
			}
		} else if (id == JIT_CODE_MOVE && size >= 16 + 48) {
			uint64_t old_addr = rd64(r + 16 + 16, swap);
			uint64_t new_addr = rd64(r + 16 + 24, swap);
			uint64_t code_size = rd64(r + 16 + 32, swap);

			/* Same name at the new place: the latest entry at the old one. */
			const struct psym_sym *latest = NULL;

			for (size_t i = psym_symtab_count(&m->syms); i-- > 0;) {
				const struct psym_sym *s = psym_symtab_at(&m->syms, i);

				if (s->addr == old_addr && (!latest || s->seq > latest->seq))
					latest = s;
			}
			if (latest) {
				ret = add_entry(m, new_addr, code_size, latest->name,
						strlen(latest->name), src, e);
				if (ret)
					return ret;
			}
		}
		off += size;
	}
	if (off < len && len - off < 16)
		m->malformed++; /* a partial record header at the end */
	return 0;
}

int psym_perfmap_add_jitdump(struct psym_perfmap *m, const char *path, struct psym_err *e)
{
	unsigned char *buf;
	size_t len;
	int ret = psym_read_file_cap(path, m->lim.max_file_bytes, RAISE_FILE, &buf, &len, e);

	if (ret)
		return ret;
	ret = psym_perfmap_add_jitdump_mem(m, buf, len, path, e);
	free(buf);
	return ret;
}

/* ---- the jitdumps a recording mapped ------------------------------------------ */

int psym_jitdump_name_pid(const char *path)
{
	const char *b = strrchr(path, '/'), *p;
	long pid = 0;

	b = b ? b + 1 : path;
	if (strncmp(b, "jit-", 4) != 0)
		return 0;
	for (p = b + 4; *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > INT_MAX)
			return 0;
	}
	return p > b + 4 && !strcmp(p, ".dump") ? (int)pid : 0;
}

bool psym_jitdump_comment(const struct psym_jitdump_rec *r, char *buf, size_t n)
{
	int len;

	if (r->has_inode)
		len = snprintf(buf, n,
			       PSYM_JITDUMP_COMMENT "%d %" PRIu32 ":%" PRIu32 ":%" PRIu64 " %s",
			       r->pid, r->maj, r->min, r->ino, r->path);
	else
		len = snprintf(buf, n, PSYM_JITDUMP_COMMENT "%d - %s", r->pid, r->path);
	return len > 0 && (size_t)len < n;
}

/* A decimal number ending at stop (no sign, no overflow). */
static bool dec(const char **p, char stop, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (s == *p || *s != stop)
		return false;
	*p = s + 1;
	*out = v;
	return true;
}

bool psym_jitdump_comment_parse(const char *s, struct psym_jitdump_rec *r)
{
	size_t k = strlen(PSYM_JITDUMP_COMMENT);
	uint64_t pid, maj, min, ino;

	memset(r, 0, sizeof(*r));
	if (strncmp(s, PSYM_JITDUMP_COMMENT, k) != 0)
		return false;
	s += k;
	if (!dec(&s, ' ', INT_MAX, &pid) || !pid)
		return false;
	r->pid = (int)pid;
	if (!strncmp(s, "- ", 2)) {
		s += 2;
	} else {
		if (!dec(&s, ':', UINT32_MAX, &maj) || !dec(&s, ':', UINT32_MAX, &min) ||
		    !dec(&s, ' ', UINT64_MAX, &ino))
			return false;
		r->has_inode = true;
		r->maj = (uint32_t)maj;
		r->min = (uint32_t)min;
		r->ino = ino;
	}
	r->path = s;
	/* Only a file named as a jitdump is ever opened (a profile is untrusted). */
	return psym_jitdump_name_pid(s) > 0;
}

int psym_jitdump_check(const struct psym_jitdump_rec *r, char *why, size_t whysz)
{
	struct psym_err e = { 0 };
	unsigned char h[40];
	struct stat st;
	int fd = psym_open_regular(r->path, &e);
	uint32_t magic, pid;
	bool ok;

	if (fd < 0) {
		snprintf(
			why, whysz,
			"%s (the jitdump the recording mapped; give a copy with --perf-map-dir DIR)",
			e.msg);
		return PSYM_NOENT;
	}
	ok = fstat(fd, &st) == 0 && pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h);
	close(fd);
	if (!ok) {
		snprintf(why, whysz, "'%s': not a jitdump file (too short)", r->path);
		return PSYM_NOENT;
	}
	if (r->has_inode && (major(st.st_dev) != r->maj || minor(st.st_dev) != r->min ||
			     (uint64_t)st.st_ino != r->ino)) {
		snprintf(why, whysz,
			 "'%s' is not the file the recording mapped (device and inode differ): "
			 "give a copy of it with --perf-map-dir DIR",
			 r->path);
		return PSYM_NOENT;
	}
	memcpy(&magic, h, 4);
	if (magic != JITDUMP_MAGIC && magic != __builtin_bswap32(JITDUMP_MAGIC)) {
		snprintf(why, whysz, "'%s': not a jitdump file (bad magic)", r->path);
		return PSYM_NOENT;
	}
	/* The JIT's own pid (another in a container than the recording's). */
	pid = rd32(h + 20, magic != JITDUMP_MAGIC);
	if (pid != (uint32_t)psym_jitdump_name_pid(r->path)) {
		snprintf(why, whysz,
			 "'%s' is the jitdump of pid %" PRIu32 ", not the one its name says",
			 r->path, pid);
		return PSYM_NOENT;
	}
	return 0;
}

/* ---- lookup ------------------------------------------------------------------- */

int psym_perfmap_lookup(struct psym_perfmap *m, uint64_t a, struct psym_frame *frame)
{
	const struct psym_sym *s;

	if (!m->syms.ready)
		psym_symtab_finish(&m->syms, NULL, 0);
	s = psym_symtab_lookup(&m->syms, a);
	if (!s)
		return PSYM_NOENT;
	memset(frame, 0, sizeof(*frame));
	frame->name = s->name;
	return 0;
}
