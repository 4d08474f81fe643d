/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "compress.h"
#include "fileio.h"
#include "kallsyms.h"
#include "sha256.h"
#include "symtab.h"

#define MAX_SYMS ((size_t)16 << 20)
#define MAX_BYTES ((size_t)256 << 20)
#define LINE_BYTES 1024

/* No kernel function is 16 MiB: a symbol covers at most that much. */
#define MAX_EXTENT ((uint64_t)16 << 20)

/* A subset copy's first line (kallsyms.h). */
#define SUBSET_HEADER "psym-kallsyms-subset 1"
/* The rank of a subset's bound entries: they end a symbol, never answer. */
#define BOUND_RANK UINT32_MAX

enum k_form {
	FORM_UNKNOWN,
	FORM_FULL,
	FORM_SUBSET
};

struct psym_kallsyms {
	struct psym_symtab syms;
	size_t lines, zero, malformed;
	uint64_t text;
	struct psym_arena strings;
	enum k_form form; /* known from the first line */
	/* A subset being read: its line number, last address and line kind. */
	size_t lineno;
	uint64_t sub_last;
	char sub_prev; /* 0: none yet, 's': a symbol, 'b': a bound */
	bool sub_end;  /* its "end" line was read */
};

static int k_new(struct psym_kallsyms **out, size_t max, struct psym_err *e)
{
	struct psym_kallsyms *k = calloc(1, sizeof(*k));

	if (!k)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	psym_arena_init(&k->strings, (size_t)2 << 30);
	/* Aliases: core kernel before modules, then by name (deterministic). */
	psym_symtab_init(&k->syms, &(struct psym_symtab_opts){
					   .rule = PSYM_SYMTAB_NEAREST,
					   .max_entries = max ? max : MAX_SYMS,
					   .what = "kernel symbols",
					   .limit_flag = "--limit kallsyms-symbols=N",
					   .alias_by_name = true,
					   .max_extent = MAX_EXTENT,
				   });
	*out = k;
	return 0;
}

void psym_kallsyms_free(struct psym_kallsyms *k)
{
	if (!k)
		return;
	psym_symtab_free(&k->syms);
	psym_arena_free(&k->strings);
	free(k);
}

static int sub_line(struct psym_kallsyms *k, char *line, const char *src, struct psym_err *e);

/* A symbol of the table (mod: its "[module]" or NULL), its strings copied. */
static int push_sym(struct psym_kallsyms *k, uint64_t a, const char *name, const char *mod,
		    const char *src, struct psym_err *e)
{
	const char *nm = psym_arena_strdup(&k->strings, name);
	const char *md = mod ? psym_arena_strdup(&k->strings, mod) : NULL;

	if (!nm || (mod && !md))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return psym_symtab_push(
		&k->syms,
		&(struct psym_sym){ .addr = a, .name = nm, .file = md, .rank = md ? 1 : 0 }, src,
		e);
}

static int k_line(struct psym_kallsyms *k, char *line, const char *src, struct psym_err *e)
{
	char *p = line, *end, *name, *mod = NULL;
	unsigned long long a;
	char type;

	if (k->form == FORM_UNKNOWN) {
		size_t n = strcspn(line, "\r\n");

		k->form = n == strlen(SUBSET_HEADER) && !memcmp(line, SUBSET_HEADER, n)
				  ? FORM_SUBSET
				  : FORM_FULL;
		if (k->form == FORM_SUBSET) {
			k->lineno = 1;
			return 0;
		}
		if (!strncmp(line, "psym-kallsyms-subset", 20))
			return psym_err_set(e, PSYM_EBADINPUT,
					    "'%s': a kallsyms subset of another version, or a "
					    "damaged header",
					    src);
	}
	if (k->form == FORM_SUBSET)
		return sub_line(k, line, src, e);
	errno = 0;
	a = strtoull(p, &end, 16);
	if (errno || end == p || *end != ' ')
		goto malformed;
	p = end + 1;
	type = *p;
	if (type == '-' && !p[strspn(p + 1, "\r\n") + 1])
		goto headless;
	if (!type || p[1] != ' ')
		goto malformed;
	name = p + 2;
	name[strcspn(name, "\r\n")] = '\0';
	{
		char *sp = strpbrk(name, " \t");

		if (sp) {
			*sp = '\0';
			mod = sp + 1;
			while (*mod == ' ' || *mod == '\t')
				mod++;
			if (*mod != '[')
				mod = NULL;
		}
	}
	if (!*name)
		goto malformed;
	k->lines++;
	if (a == 0)
		k->zero++;
	if (!strcmp(name, "_text") || (!k->text && !strcmp(name, "_stext")))
		k->text = a;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	if (a == 0)
		return 0;
	return push_sym(k, a, name, mod, src, e);
malformed:
	if (strcspn(line, "\r\n") == 3 && !memcmp(line, "end", 3))
		goto headless;
	if (line[strspn(line, " \t\r\n")])
		k->malformed++; /* blank lines are not malformed */
	return 0;
headless:
	/* Read as a full copy, a subset's symbols would stretch over what it left out. */
	return psym_err_set(e, PSYM_EBADINPUT,
			    "'%s': a kallsyms subset's line (a bound or 'end') without its "
			    "header",
			    src);
}

/* 1 to 16 hex digits at *p, then *p past them. */
static bool sub_hex(char **p, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	for (char c = **p; n < 17; c = *++*p, n++) {
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return n >= 1 && n <= 16;
}

static int sub_bad(struct psym_kallsyms *k, const char *src, const char *what, struct psym_err *e)
{
	return psym_err_set(e, PSYM_EBADINPUT, "'%s': line %zu of a kallsyms subset: %s", src,
			    k->lineno, what);
}

/*
 * A subset copy's line after the header (kallsyms.h), read strictly: a
 * line that is not one of its four kinds, out of order or out of place
 * makes the whole copy an error, never a guess.
 */
static int sub_line(struct psym_kallsyms *k, char *line, const char *src, struct psym_err *e)
{
	char *p = line, *name, *mod = NULL;
	size_t len;
	uint64_t a;
	char type;

	k->lineno++;
	line[strcspn(line, "\r\n")] = '\0';
	if (k->sub_end)
		return sub_bad(k, src, "a line after 'end'", e);
	if (!strcmp(line, "end")) {
		k->sub_end = true;
		return 0;
	}
	if (!sub_hex(&p, &a) || *p != ' ' || !a)
		return sub_bad(k, src, "not ADDRESS KIND ... (a nonzero hex address)", e);
	type = p[1];
	if (type == '=' && !strcmp(p + 2, " _text")) {
		if (k->sub_prev || k->text)
			return sub_bad(k, src, "'_text' after the symbols, or twice", e);
		k->text = a;
		return 0;
	}
	if (k->sub_prev && a <= k->sub_last)
		return sub_bad(k, src, "addresses not increasing", e);
	if (type == '-' && !p[2]) {
		if (k->sub_prev != 's')
			return sub_bad(k, src, "a bound that follows no symbol", e);
		k->sub_prev = 'b';
		k->sub_last = a;
		return psym_symtab_push(
			&k->syms, &(struct psym_sym){ .addr = a, .name = "", .rank = BOUND_RANK },
			src, e);
	}
	if (!type || !strchr("tTwW", type) || p[2] != ' ')
		return sub_bad(k, src, "not a text symbol, a bound ('-') or '= _text'", e);
	name = p + 3;
	len = strcspn(name, " \t");
	if (!len || (name[len] && name[len] != '\t'))
		return sub_bad(k, src, "not NAME or NAME<tab>[MODULE]", e);
	if (name[len]) {
		mod = name + len + 1;
		name[len] = '\0';
		len = strlen(mod);
		if (len < 3 || mod[0] != '[' || mod[len - 1] != ']' || strpbrk(mod, " \t"))
			return sub_bad(k, src, "not NAME or NAME<tab>[MODULE]", e);
	}
	k->sub_prev = 's';
	k->sub_last = a;
	return push_sym(k, a, name, mod, src, e);
}

static int k_finish(struct psym_kallsyms *k, const char *src, struct psym_err *e)
{
	if (k->form == FORM_SUBSET && k->malformed)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': kallsyms subset has a line too long or with a NUL byte",
				    src);
	if (k->form == FORM_SUBSET && !k->sub_end)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': kallsyms subset has no 'end' line (cut short?)", src);
	if (k->lines && k->zero == k->lines)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': kallsyms copy has no addresses (taken without root?)",
				    src);
	if (psym_symtab_count(&k->syms) == 0)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': no kernel text symbols", src);
	psym_symtab_finish(&k->syms, NULL, 0);
	return 0;
}

static int parse_max(const char *text, size_t len, const char *src, size_t max_symbols,
		     struct psym_kallsyms **out, struct psym_err *e)
{
	struct psym_kallsyms *k = NULL;
	const char *p = text, *end = text + len;
	char line[LINE_BYTES];
	int ret = k_new(&k, max_symbols, e);

	if (ret)
		return ret;
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n < sizeof(line) && !memchr(p, '\0', n)) {
			memcpy(line, p, n);
			line[n] = '\0';
			ret = k_line(k, line, src, e);
		} else if (k->form == FORM_SUBSET) {
			k->malformed++; /* an error at the end (k_finish) */
		}
		p = nl ? nl + 1 : end;
	}
	if (!ret)
		ret = k_finish(k, src, e);
	if (ret) {
		psym_kallsyms_free(k);
		return ret;
	}
	*out = k;
	return 0;
}

int psym_kallsyms_parse(const char *text, size_t len, const char *src, struct psym_kallsyms **out,
			struct psym_err *e)
{
	return parse_max(text, len, src, 0, out, e);
}

static bool is_zstd(const unsigned char *b, size_t n)
{
	return n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd;
}

int psym_kallsyms_parse_blob(const unsigned char *raw, size_t rawlen, const char *path,
			     const char *sha, size_t max_symbols, size_t max,
			     struct psym_kallsyms **out, struct psym_err *e)
{
	unsigned char *text = NULL;
	const unsigned char *plain = raw;
	size_t len = rawlen;
	int ret = 0;

	if (!max)
		max = MAX_BYTES;
	/*
	 * kallsyms compresses 5 to 7 times: a stream that claims past 64
	 * times (plus 16 MiB) is a bomb, refused before it costs the cap.
	 */
	if (rawlen < ((size_t)1 << 32) && max > rawlen * 64 + ((size_t)16 << 20))
		max = rawlen * 64 + ((size_t)16 << 20);
	if (is_zstd(raw, rawlen))
		ret = psym_unzstd(raw, rawlen, max, path, &text, &len, e);
	else if (psym_is_gzip(raw, rawlen))
		ret = psym_gunzip(raw, rawlen, max, path, &text, &len, e);
	if (ret)
		return ret;
	if (text)
		plain = text;
	if (sha && (ret = psym_sha256_verify(plain, len, sha, path, "copy", e))) {
		free(text);
		return ret;
	}
	ret = parse_max((const char *)plain, len, path, max_symbols, out, e);
	free(text);
	return ret;
}

/* A whole copy read at once: compressed, or one whose content is checked. */
static int open_whole(const char *path, const char *sha, size_t max_symbols, size_t max,
		      struct psym_kallsyms **out, struct psym_err *e)
{
	unsigned char *raw = NULL;
	size_t rawlen = 0;
	int ret = psym_read_file_cap(path, max, "--limit kallsyms-bytes=N", &raw, &rawlen, e);

	if (ret)
		return ret;
	ret = psym_kallsyms_parse_blob(raw, rawlen, path, sha, max_symbols, max, out, e);
	free(raw);
	return ret;
}

/* Does path start with a zstd or gzip magic? */
static bool compressed_file(int fd)
{
	unsigned char m[4];
	ssize_t n = pread(fd, m, sizeof(m), 0);

	return n == (ssize_t)sizeof(m) && (is_zstd(m, 4) || psym_is_gzip(m, 4));
}

struct kline_ctx {
	struct psym_kallsyms *k;
	const char *src;
	struct psym_err *e;
};

static int kline_cb(void *ud, const char *text, size_t n)
{
	struct kline_ctx *c = ud;
	char line[LINE_BYTES];

	if (n >= sizeof(line) || memchr(text, '\0', n)) {
		if (c->k->form == FORM_SUBSET)
			c->k->malformed++; /* an error at the end (k_finish) */
		return 0;
	}
	memcpy(line, text, n);
	line[n] = '\0';
	return k_line(c->k, line, c->src, c->e);
}

int psym_kallsyms_open(const char *path, size_t max_symbols, size_t max_bytes,
		       struct psym_kallsyms **out, struct psym_err *e)
{
	return psym_kallsyms_open_sha(path, NULL, max_symbols, max_bytes, out, e);
}

int psym_kallsyms_open_sha(const char *path, const char *sha, size_t max_symbols, size_t max_bytes,
			   struct psym_kallsyms **out, struct psym_err *e)
{
	struct psym_kallsyms *k = NULL;
	struct kline_ctx c;
	int fd, ret;

	/* /proc/kallsyms itself has no size: allow it by name. */
	if (!strcmp(path, "/proc/kallsyms"))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	else
		fd = psym_open_regular(path, e);
	if (fd < 0)
		return fd == -1 ? psym_err_set(e, PSYM_EIO, "cannot open '%s': %s", path,
					       strerror(errno))
				: fd;
	if (sha || compressed_file(fd)) {
		close(fd);
		return open_whole(path, sha, max_symbols, max_bytes ? max_bytes : MAX_BYTES, out,
				  e);
	}
	ret = k_new(&k, max_symbols, e);
	c = (struct kline_ctx){ k, path, e };
	if (!ret)
		ret = psym_read_lines_cap(
			fd, path, LINE_BYTES - 1, max_bytes ? max_bytes : MAX_BYTES,
			"--limit kallsyms-bytes=N", kline_cb, &c, &k->malformed, e);
	close(fd);
	if (!ret)
		ret = k_finish(k, path, e);
	if (ret) {
		psym_kallsyms_free(k);
		return ret;
	}
	*out = k;
	return 0;
}

int psym_kallsyms_lookup(const struct psym_kallsyms *k, uint64_t a, struct psym_frame *frame)
{
	uint64_t start;

	return psym_kallsyms_lookup_start(k, a, frame, &start);
}

int psym_kallsyms_lookup_start(const struct psym_kallsyms *k, uint64_t a, struct psym_frame *frame,
			       uint64_t *start)
{
	const struct psym_sym *s = psym_symtab_lookup(&k->syms, a);

	/* A subset's bound: the address is not one the copy answers. */
	if (!s || s->rank == BOUND_RANK)
		return PSYM_NOENT;
	*start = s->addr;
	memset(frame, 0, sizeof(*frame));
	frame->name = s->name;
	frame->file = s->file;
	return 0;
}

uint64_t psym_kallsyms_text_addr(const struct psym_kallsyms *k)
{
	return k->text;
}

size_t psym_kallsyms_malformed(const struct psym_kallsyms *k)
{
	return k->malformed;
}

void psym_kallsyms_each_of_module(const struct psym_kallsyms *k, const char *module,
				  void (*fn)(void *ud, const char *name, uint64_t addr), void *ud)
{
	size_t mlen = strlen(module);

	for (size_t i = 0; i < psym_symtab_count(&k->syms); i++) {
		const struct psym_sym *s = psym_symtab_at(&k->syms, i);

		if (s->file && s->file[0] == '[' && strncmp(s->file + 1, module, mlen) == 0 &&
		    strcmp(s->file + 1 + mlen, "]") == 0)
			fn(ud, s->name, s->addr);
	}
}

/* Tables shared by the runs of a batch, by (boot ID, SHA-256). */
#define CACHE_MAX 64

struct kcache_ent {
	char key[40 + PSYM_SHA256_HEX + 1]; /* "BOOT SHA" */
	struct psym_kallsyms *k;
};

struct psym_kallsyms_cache {
	pthread_mutex_t mu;
	struct kcache_ent ents[CACHE_MAX];
	size_t n, parsed;
};

struct psym_kallsyms_cache *psym_kallsyms_cache_new(void)
{
	struct psym_kallsyms_cache *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->mu, NULL);
	return c;
}

void psym_kallsyms_cache_free(struct psym_kallsyms_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		psym_kallsyms_free(c->ents[i].k);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

size_t psym_kallsyms_cache_parsed(struct psym_kallsyms_cache *c)
{
	size_t n;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->mu);
	n = c->parsed;
	pthread_mutex_unlock(&c->mu);
	return n;
}

int psym_kallsyms_cache_get(struct psym_kallsyms_cache *c, const char *boot_id, const char *sha,
			    const char *path, size_t max_symbols, size_t max_bytes,
			    const struct psym_kallsyms **out, bool *parsed, struct psym_err *e)
{
	char key[sizeof(c->ents[0].key)];
	struct psym_kallsyms *k = NULL;
	int ret = 0;

	*parsed = false;
	if ((size_t)snprintf(key, sizeof(key), "%s %s", boot_id, sha) >= sizeof(key) ||
	    strlen(sha) != PSYM_SHA256_HEX - 1)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': not a kallsyms copy's identity",
				    path);
	/* Under the lock throughout: a second run of the same boot waits for the parse. */
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < c->n; i++) {
		if (!strcmp(c->ents[i].key, key)) {
			*out = c->ents[i].k;
			goto out;
		}
	}
	if (c->n == CACHE_MAX) {
		ret = PSYM_NOENT; /* full: the caller parses its own */
		goto out;
	}
	ret = psym_kallsyms_open_sha(path, sha, max_symbols, max_bytes, &k, e);
	if (ret)
		goto out;
	memcpy(c->ents[c->n].key, key, sizeof(key));
	c->ents[c->n++].k = k;
	c->parsed++;
	*parsed = true;
	*out = k;
out:
	pthread_mutex_unlock(&c->mu);
	return ret;
}

/* ---- the subset copy: what a profile's addresses need ---------------------- */

enum {
	MARK_NONE,
	MARK_COVER,
	MARK_BOUND
};

/* Modules at most named in one subset (their every symbol is written). */
#define SUBSET_MAX_MODULES 4096

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Every symbol of the modules the covered symbols are in: how psym places a
 * module's sections (kmods.c, by the names it defines) stays as with the
 * full copy.
 */
static int cover_modules(const struct psym_symtab *t, unsigned char *mark, struct psym_err *e)
{
	size_t ns = psym_symtab_count(t), nm = 0, w = 0;
	const char **mods = NULL;
	int ret = 0;

	for (size_t i = 0; i < ns; i++)
		if (mark[i] == MARK_COVER && psym_symtab_at(t, i)->file)
			nm++;
	if (!nm)
		return 0;
	mods = malloc(nm * sizeof(*mods));
	if (!mods)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	nm = 0;
	for (size_t i = 0; i < ns; i++)
		if (mark[i] == MARK_COVER && psym_symtab_at(t, i)->file)
			mods[nm++] = psym_symtab_at(t, i)->file;
	qsort(mods, nm, sizeof(*mods), by_str);
	for (size_t i = 0; i < nm; i++)
		if (!w || strcmp(mods[w - 1], mods[i]))
			mods[w++] = mods[i];
	if (w > SUBSET_MAX_MODULES) {
		ret = psym_err_set(e, PSYM_ELIMIT, "kallsyms subset: more than %d modules",
				   SUBSET_MAX_MODULES);
		goto out;
	}
	for (size_t i = 0; i < ns; i++) {
		const struct psym_sym *s = psym_symtab_at(t, i);

		if (s->file && s->rank != BOUND_RANK &&
		    bsearch(&s->file, mods, w, sizeof(*mods), by_str))
			mark[i] = MARK_COVER;
	}
out:
	free(mods);
	return ret;
}

/* Line i of the subset into buf[cap] (NULL: only its length). */
static size_t subset_line(const struct psym_sym *s, int mark, char *buf, size_t cap)
{
	int n;

	if (mark == MARK_BOUND || s->rank == BOUND_RANK)
		n = snprintf(buf, cap, "%016" PRIx64 " -\n", s->addr);
	else if (s->file)
		n = snprintf(buf, cap, "%016" PRIx64 " t %s\t%s\n", s->addr, s->name, s->file);
	else
		n = snprintf(buf, cap, "%016" PRIx64 " t %s\n", s->addr, s->name);
	return n < 0 ? 0 : (size_t)n;
}

int psym_kallsyms_subset(const struct psym_kallsyms *k, const uint64_t *addrs, size_t naddrs,
			 char **out, size_t *outlen, struct psym_err *e)
{
	const struct psym_symtab *t = &k->syms;
	size_t ns = psym_symtab_count(t), len = 0, pos = 0;
	unsigned char *mark = calloc(ns + 1, 1);
	struct psym_kallsyms *check = NULL;
	char *buf = NULL, head[80];
	int ret = 0, hn;

	*out = NULL;
	*outlen = 0;
	if (!mark)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < naddrs; i++) {
		const struct psym_sym *s = psym_symtab_lookup(t, addrs[i]);

		if (s && s->rank != BOUND_RANK) {
			mark[s - psym_symtab_at(t, 0)] = MARK_COVER;
			pos++;
		}
	}
	if (!pos) {
		ret = PSYM_NOENT; /* nothing to name: no copy (an empty table is an error) */
		goto out;
	}
	pos = 0;
	ret = cover_modules(t, mark, e);
	if (ret)
		goto out;
	/* What ends each covered symbol: the next entry, written as a bound. */
	for (size_t i = 0; i + 1 < ns; i++)
		if (mark[i] == MARK_COVER && mark[i + 1] == MARK_NONE)
			mark[i + 1] = MARK_BOUND;
	hn = k->text ? snprintf(head, sizeof(head), SUBSET_HEADER "\n%016" PRIx64 " = _text\n",
				k->text)
		     : snprintf(head, sizeof(head), SUBSET_HEADER "\n");
	len = (size_t)hn + 4;
	for (size_t i = 0; i < ns; i++)
		if (mark[i])
			len += subset_line(psym_symtab_at(t, i), mark[i], NULL, 0);
	buf = malloc(len + 1);
	if (!buf) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(buf, head, (size_t)hn);
	pos = (size_t)hn;
	for (size_t i = 0; i < ns; i++)
		if (mark[i])
			pos += subset_line(psym_symtab_at(t, i), mark[i], buf + pos, len + 1 - pos);
	memcpy(buf + pos, "end\n", 4);
	pos += 4;
	/* Written as it will be read: a symbol that cannot be is a failure here. */
	ret = psym_kallsyms_parse(buf, pos, "kallsyms subset", &check, e);
	psym_kallsyms_free(check);
	if (ret)
		goto out;
	*out = buf;
	*outlen = pos;
	buf = NULL;
out:
	free(buf);
	free(mark);
	return ret;
}

bool psym_kallsyms_is_subset(const struct psym_kallsyms *k)
{
	return k->form == FORM_SUBSET;
}
