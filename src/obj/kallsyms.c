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

#define MAX_SYMS ((size_t)16 << 20)
#define MAX_BYTES ((size_t)256 << 20)
#define LINE_BYTES 1024

struct ksym {
	uint64_t addr;
	const char *name, *module;
};

struct psym_kallsyms {
	struct ksym *s;
	size_t n, cap, lines, zero, malformed, max;
	uint64_t text;
	struct psym_arena strings;
	bool sorted;
};

static int k_new(struct psym_kallsyms **out, struct psym_err *e)
{
	struct psym_kallsyms *k = calloc(1, sizeof(*k));

	if (!k)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	psym_arena_init(&k->strings, (size_t)2 << 30);
	k->max = MAX_SYMS;
	*out = k;
	return 0;
}

void psym_kallsyms_free(struct psym_kallsyms *k)
{
	if (!k)
		return;
	free(k->s);
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
	if (k->n >= k->max)
		return psym_err_set(
			e, PSYM_ELIMIT,
			"'%s': more than %zu kernel symbols (--limit kallsyms-symbols=N)", src,
			k->max);
	if (k->n == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 65536;
		struct ksym *ns = realloc(k->s, ncap * sizeof(*ns));

		if (!ns)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		k->s = ns;
		k->cap = ncap;
	}
	k->s[k->n].addr = a;
	k->s[k->n].name = psym_arena_strdup(&k->strings, name);
	k->s[k->n].module = mod ? psym_arena_strdup(&k->strings, mod) : NULL;
	if (!k->s[k->n].name)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	k->n++;
	return 0;
malformed:
	if (line[strspn(line, " \t\r\n")])
		k->malformed++; /* blank lines are not malformed */
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Core kernel before modules, then by name: deterministic aliases. */
	if (!x->module != !y->module)
		return x->module ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int k_finish(struct psym_kallsyms *k, const char *src, struct psym_err *e)
{
	if (k->lines && k->zero == k->lines)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': kallsyms copy has no addresses (taken without root?)",
				    src);
	if (k->n == 0)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': no kernel text symbols", src);
	qsort(k->s, k->n, sizeof(*k->s), cmp_ksym);
	k->sorted = true;
	return 0;
}

int psym_kallsyms_parse(const char *text, size_t len, const char *src, struct psym_kallsyms **out,
			struct psym_err *e)
{
	struct psym_kallsyms *k = NULL;
	const char *p = text, *end = text + len;
	char line[LINE_BYTES];
	int ret = k_new(&k, e);

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
	ret = k_new(&k, e);
	if (!ret && max_symbols)
		k->max = max_symbols;
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
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->s[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return PSYM_NOENT;
	/* Past the last symbol, or in a huge gap: no kernel function is 16 MiB. */
	if (a - k->s[lo - 1].addr >= ((uint64_t)16 << 20))
		return PSYM_NOENT;
	/* First of the aliases at that address (sorted: core kernel, then name). */
	{
		size_t i = lo - 1;

		while (i > 0 && k->s[i - 1].addr == k->s[i].addr)
			i--;
		memset(frame, 0, sizeof(*frame));
		frame->name = k->s[i].name;
		frame->file = k->s[i].module;
	}
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
