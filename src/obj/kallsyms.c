/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
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

struct psym_kallsyms {
	struct psym_symtab syms;
	size_t lines, zero, malformed;
	uint64_t text;
	struct psym_arena strings;
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

static int k_line(struct psym_kallsyms *k, char *line, const char *src, struct psym_err *e)
{
	char *p = line, *end, *name, *mod = NULL;
	unsigned long long a;
	char type;

	errno = 0;
	a = strtoull(p, &end, 16);
	if (errno || end == p || *end != ' ')
		goto malformed;
	p = end + 1;
	type = *p;
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
	{
		const char *nm = psym_arena_strdup(&k->strings, name);
		const char *md = mod ? psym_arena_strdup(&k->strings, mod) : NULL;

		if (!nm || (mod && !md))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		return psym_symtab_push(
			&k->syms,
			&(struct psym_sym){ .addr = a, .name = nm, .file = md, .rank = md ? 1 : 0 },
			src, e);
	}
malformed:
	if (line[strspn(line, " \t\r\n")])
		k->malformed++; /* blank lines are not malformed */
	return 0;
}

static int k_finish(struct psym_kallsyms *k, const char *src, struct psym_err *e)
{
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

	if (n >= sizeof(line) || memchr(text, '\0', n))
		return 0;
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

	if (!s)
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
