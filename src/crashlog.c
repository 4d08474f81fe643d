/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crashlog.h"
#include "debugfind.h"
#include "demangle.h"
#include "hashtab.h"

#define MAX_FRAMES 64
#define LINE_MAX_BYTES 8192
/*
 * Distinct modules remembered, and the bytes of their keys: a log naming
 * more is still filtered, the modules past the cap left unresolved.
 */
#define MAX_MODULES ((size_t)1 << 20)
#define MAX_MODULE_KEY_BYTES ((size_t)256 << 20)

struct modcache {
	char *key;                 /* path + build ID */
	struct psym_binary *bin;   /* NULL: not found */
};

struct filter {
	const struct psym_crashlog_opts *o;
	long frameno; /* sanitizer frames are renumbered: inline frames count */
	struct psym_hashtab mods; /* key -> struct modcache (owned) */
	size_t key_bytes;
};

static struct psym_binary *module(struct filter *f, const char *path, const char *bid)
{
	struct psym_err e = { 0 };
	struct psym_elf *elf = NULL;
	struct modcache *n;
	char key[4200];
	void *found;
	int len;

	len = snprintf(key, sizeof(key), "%s\n%s", path, bid ? bid : "");
	if (len < 0 || (size_t)len >= sizeof(key))
		return NULL;
	if (psym_hashtab_get(&f->mods, key, (size_t)len, &found) == 0)
		return ((struct modcache *)found)->bin;
	if (f->key_bytes + (size_t)len + 1 > MAX_MODULE_KEY_BYTES)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n || !(n->key = strdup(key)) ||
	    psym_hashtab_put(&f->mods, n->key, (size_t)len, n, &e) != 0) {
		if (n)
			free(n->key);
		free(n);
		return NULL;
	}
	f->key_bytes += (size_t)len + 1;
	if (psym_elf_open(path, f->o->binary->elf_limits, &elf, &e) != 0 ||
	    (bid && psym_elf_build_id(elf) && strcmp(psym_elf_build_id(elf), bid))) {
		/* Not there (or another build): look for the build ID. */
		const struct psym_binary_opts *bo = f->o->binary;

		psym_elf_close(elf);
		elf = NULL;
		for (size_t i = 0; bid && i < bo->n_debug_dirs && !elf; i++) {
			static const char *const sfx[] = { "", ".debug" };

			for (int k = 0; k < 2 && !elf; k++) {
				char p[4200];

				if (psym_build_id_path(bo->debug_dirs[i], bid, sfx[k], p, sizeof(p)) &&
				    psym_elf_open(p, bo->elf_limits, &elf, &e) != 0)
					elf = NULL;
			}
		}
		if (!elf)
			return NULL;
	}
	if (psym_binary_new(elf, f->o->binary, &n->bin, &e) != 0)
		n->bin = NULL;
	return n->bin;
}

static const char *fname(const struct psym_frame *fr, bool demangle, char **tofree)
{
	const char *sys = fr->linkage_name ? fr->linkage_name : fr->name;
	char *d = demangle ? psym_demangle(sys) : NULL;

	*tofree = d;
	if (d)
		return d;
	return fr->name && *fr->name ? fr->name : "??";
}

/* Resolve module+offset; returns the number of frames. */
static size_t resolve(struct filter *f, const char *path, const char *bid, uint64_t off,
		      struct psym_frame *frames)
{
	struct psym_binary *b = module(f, path, bid);

	return b ? psym_binary_resolve(b, off, frames, MAX_FRAMES) : 0;
}

static bool parse_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (!(s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) || !isxdigit((unsigned char)s[2]))
		return false;
	*v = strtoull(s + 2, &e, 16);
	*end = e;
	return true;
}

/* "    #3 0x55d1c0a1b139 ... (/path/bin+0x1139) (BuildId: ab12)" */
static bool sanitizer_line(struct filter *f, const char *line, FILE *out)
{
	struct psym_frame fr[MAX_FRAMES];
	const char *p = line, *q, *open, *plus, *close;
	char path[4096], bid[256] = "", *free_me;
	uint64_t pc, off;
	long num;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '#' || !isdigit((unsigned char)p[1]))
		return false;
	num = strtol(p + 1, (char **)&q, 10);
	while (*q == ' ')
		q++;
	if (!parse_hex(q, &q, &pc))
		return false;
	open = strchr(q, '(');
	if (!open || !(plus = strstr(open, "+0x")) || !(close = strchr(plus, ')')) ||
	    (size_t)(plus - open - 1) >= sizeof(path))
		return false;
	memcpy(path, open + 1, (size_t)(plus - open - 1));
	path[plus - open - 1] = '\0';
	if (!parse_hex(plus + 1, &q, &off) || q != close)
		return false;
	{
		const char *b = strstr(close, "(BuildId: ");

		if (b && sscanf(b, "(BuildId: %255[0-9a-fA-F])", bid) == 1)
			for (char *c = bid; *c; c++)
				*c = (char)tolower((unsigned char)*c);
	}
	n = resolve(f, path, bid[0] ? bid : NULL, num > 0 && off ? off - 1 : off, fr);
	if (num == 0)
		f->frameno = 0; /* a new stack */
	if (!n) {
		/* Unchanged, but renumbered if inline frames came before it. */
		if (f->frameno == num) {
			f->frameno++;
			return false;
		}
		fprintf(out, "%.*s#%ld%s", (int)(strchr(line, '#') - line), line, f->frameno++,
			strchr(line, '#') + 1 + strspn(strchr(line, '#') + 1, "0123456789"));
		return true;
	}
	/* As the sanitizers print it: one line per frame, inline frames too. */
	for (size_t i = 0; i < n; i++) {
		const char *nm = fname(&fr[i], f->o->demangle, &free_me);

		fprintf(out, "%.*s#%ld 0x%" PRIx64 " in %s", (int)(strchr(line, '#') - line), line,
			f->frameno++, pc, nm);
		if (fr[i].file) {
			fprintf(out, " %s:%" PRId64, fr[i].file, fr[i].line);
			if (fr[i].column)
				fprintf(out, ":%" PRId64, fr[i].column);
		}
		fprintf(out, " %s", open);
		free(free_me);
	}
	return true;
}

/* "./prog(+0x1139)[0x55...]" or "./prog(func+0x15)[0x...]" */
static bool backtrace_line(struct filter *f, const char *line, FILE *out)
{
	struct psym_frame fr[MAX_FRAMES];
	const char *open = strchr(line, '('), *plus, *close, *q;
	char path[4096], sym[1024], *free_me, *nl;
	uint64_t off, base = 0;
	struct psym_binary *b;
	size_t n;

	if (!open || open == line || !(close = strchr(open, ')')) || close[1] != '[' ||
	    !(plus = memchr(open, '+', (size_t)(close - open))) ||
	    (size_t)(open - line) >= sizeof(path) || (size_t)(plus - open - 1) >= sizeof(sym))
		return false;
	memcpy(path, line, (size_t)(open - line));
	path[open - line] = '\0';
	memcpy(sym, open + 1, (size_t)(plus - open - 1));
	sym[plus - open - 1] = '\0';
	if (!parse_hex(plus + 1, &q, &off) || q != close)
		return false;
	b = module(f, path, NULL);
	if (!b)
		return false;
	if (sym[0] && psym_elf_find_symbol(psym_binary_elf(b), sym, &base) != 0)
		return false;
	/* Every backtrace() frame is a return address. */
	n = psym_binary_resolve(b, base + off - (base + off ? 1 : 0), fr, MAX_FRAMES);
	if (!n)
		return false;
	nl = strchr(line, '\n');
	fprintf(out, "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
	for (size_t i = 0; i < n; i++) {
		const char *nm = fname(&fr[i], f->o->demangle, &free_me);

		fprintf(out, "%s%s", i ? " (inlined into) " : " ", nm);
		if (fr[i].file)
			fprintf(out, " at %s:%" PRId64, fr[i].file, fr[i].line);
		free(free_me);
	}
	fputc('\n', out);
	return true;
}

/* Any "module+0xoffset" token: the frame appended in brackets. */
static bool module_offset_line(struct filter *f, const char *line, FILE *out)
{
	struct psym_frame fr[MAX_FRAMES];
	const char *plus = strstr(line, "+0x"), *start, *q;
	char path[4096], *free_me, *nl;
	uint64_t off;
	size_t n;

	if (!plus || plus == line)
		return false;
	start = plus;
	while (start > line && !isspace((unsigned char)start[-1]) && start[-1] != '(' &&
	       start[-1] != '[' && start[-1] != '"')
		start--;
	if ((size_t)(plus - start) >= sizeof(path) || plus == start || !parse_hex(plus + 1, &q, &off))
		return false;
	memcpy(path, start, (size_t)(plus - start));
	path[plus - start] = '\0';
	if (!strchr(path, '/') && !strstr(path, ".so"))
		return false;
	n = resolve(f, path, NULL, off, fr);
	if (!n)
		return false;
	nl = strchr(line, '\n');
	fprintf(out, "%.*s [", nl ? (int)(nl - line) : (int)strlen(line), line);
	for (size_t i = 0; i < n; i++) {
		const char *nm = fname(&fr[i], f->o->demangle, &free_me);

		fprintf(out, "%s%s", i ? " <- " : "", nm);
		if (fr[i].file)
			fprintf(out, " %s:%" PRId64, fr[i].file, fr[i].line);
		free(free_me);
	}
	fprintf(out, "]\n");
	return true;
}

/* Up to cap - 1 bytes, ending after the first '\n'; NUL-terminated; 0 at EOF. */
static size_t read_chunk(FILE *in, char *buf, size_t cap)
{
	size_t n = 0;
	int c;

	while (n + 1 < cap && (c = getc(in)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	return n;
}

int psym_crashlog_filter(FILE *in, FILE *out, const struct psym_crashlog_opts *o,
			 struct psym_err *e)
{
	struct filter f = { .o = o };
	char line[LINE_MAX_BYTES];
	void *v;
	size_t pos = 0;
	bool continued = false; /* inside a line longer than the buffer */
	size_t n;
	int ret = 0;

	psym_hashtab_init(&f.mods, MAX_MODULES);
	/*
	 * Lines that are not frames go out byte for byte (NUL bytes and
	 * over-long lines included); only whole text lines are parsed.
	 */
	while ((n = read_chunk(in, line, sizeof(line))) > 0) {
		bool whole = line[n - 1] == '\n' || n < sizeof(line) - 1;

		if (!continued && whole && !memchr(line, '\0', n) &&
		    (sanitizer_line(&f, line, out) || backtrace_line(&f, line, out) ||
		     module_offset_line(&f, line, out)))
			continue;
		fwrite(line, 1, n, out);
		continued = line[n - 1] != '\n';
	}
	if (ferror(in))
		ret = psym_err_set(e, PSYM_EIO, "cannot read standard input");
	else if (ferror(out))
		ret = psym_err_set(e, PSYM_EIO, "cannot write to standard output");
	while (psym_hashtab_next(&f.mods, &pos, NULL, NULL, &v)) {
		struct modcache *m = v;

		psym_binary_free(m->bin);
		free(m->key);
		free(m);
	}
	psym_hashtab_free(&f.mods);
	return ret;
}
