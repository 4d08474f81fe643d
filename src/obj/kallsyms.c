/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "fileio.h"
#include "kallsyms.h"
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

int psym_kallsyms_parse(const char *text, size_t len, const char *src, struct psym_kallsyms **out,
			struct psym_err *e)
{
	struct psym_kallsyms *k = NULL;
	const char *p = text, *end = text + len;
	char line[LINE_BYTES];
	int ret = k_new(&k, 0, e);

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

int psym_kallsyms_lookup(struct psym_kallsyms *k, uint64_t a, struct psym_frame *frame)
{
	const struct psym_sym *s = psym_symtab_lookup(&k->syms, a);

	if (!s)
		return PSYM_NOENT;
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
