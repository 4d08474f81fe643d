// SPDX-License-Identifier: MIT
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "manifest.h"
#include "array.h"
#include "textesc.h"

void psym_manifest_free(struct psym_manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].in);
		free(m->v[i].out);
	}
	free(m->v);
	free(m->name);
	memset(m, 0, sizeof(*m));
}

/* What is wrong with one side of a line, or NULL. */
static const char *bad_path(const char *p, size_t len)
{
	if (!len)
		return "is empty";
	if (len == 1 && p[0] == '-')
		return "is '-' (standard input/output), which a batch cannot share";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == 0)
			return "contains a NUL byte";
		if (c == '\r')
			return "contains a carriage return (a line ending in CR LF?)";
		if (c < 0x20 || c == 0x7f)
			return "contains a control character";
	}
	return NULL;
}

static int parse_line(struct psym_manifest *m, const char *s, size_t len, size_t lineno,
		      struct psym_err *e)
{
	const char *tab = memchr(s, '\t', len), *why;
	struct psym_manifest_entry *en = &m->v[m->n];
	size_t ilen, olen;

	if (!tab)
		return psym_err_set(e, PSYM_EBADINPUT, "%s:%zu: no tab between input and output",
				    m->name, lineno);
	ilen = (size_t)(tab - s);
	olen = len - ilen - 1;
	if (memchr(tab + 1, '\t', olen))
		return psym_err_set(e, PSYM_EBADINPUT,
				    "%s:%zu: more than one tab (INPUT<TAB>OUTPUT expected)",
				    m->name, lineno);
	why = bad_path(s, ilen);
	if (why)
		return psym_err_set(e, PSYM_EBADINPUT, "%s:%zu: input %s", m->name, lineno, why);
	why = bad_path(tab + 1, olen);
	if (why)
		return psym_err_set(e, PSYM_EBADINPUT, "%s:%zu: output %s", m->name, lineno, why);
	if (ilen == olen && memcmp(s, tab + 1, ilen) == 0)
		return psym_err_set(e, PSYM_EBADINPUT, "%s:%zu: the output is the input", m->name,
				    lineno);
	en->in = strndup(s, ilen);
	en->out = strndup(tab + 1, olen);
	en->line = lineno;
	m->n++;
	if (!en->in || !en->out)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}

static int cmp_out(const void *a, const void *b)
{
	const struct psym_manifest_entry *x = *(const struct psym_manifest_entry *const *)a;
	const struct psym_manifest_entry *y = *(const struct psym_manifest_entry *const *)b;
	int c = strcmp(x->out, y->out);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_in(const void *a, const void *b)
{
	const struct psym_manifest_entry *x = *(const struct psym_manifest_entry *const *)a;
	const struct psym_manifest_entry *y = *(const struct psym_manifest_entry *const *)b;
	int c = strcmp(x->in, y->in);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_key_in(const void *key, const void *b)
{
	return strcmp(key, (*(const struct psym_manifest_entry *const *)b)->in);
}

/*
 * Two lines writing one output would race (in one run or across the
 * engine's tasks); an output that another line reads makes the result
 * depend on the order the lines are done in. Both are refused up front.
 */
static int check_outputs(struct psym_manifest *m, struct psym_err *e)
{
	struct psym_manifest_entry **byout, **byin;
	int ret = 0;

	if (m->n < 2)
		return 0;
	byout = malloc(m->n * sizeof(*byout));
	byin = malloc(m->n * sizeof(*byin));
	if (!byout || !byin) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m->n; i++)
		byout[i] = byin[i] = &m->v[i];
	qsort(byout, m->n, sizeof(*byout), cmp_out);
	qsort(byin, m->n, sizeof(*byin), cmp_in);
	for (size_t i = 1; i < m->n; i++)
		if (strcmp(byout[i - 1]->out, byout[i]->out) == 0) {
			ret = psym_err_set(e, PSYM_EBADINPUT,
					   "%s:%zu: output '%s' is also written by line %zu",
					   m->name, byout[i]->line, byout[i]->out,
					   byout[i - 1]->line);
			goto out;
		}
	for (size_t i = 0; i < m->n; i++) {
		struct psym_manifest_entry **hit =
			bsearch(m->v[i].out, byin, m->n, sizeof(*byin), cmp_key_in);

		if (hit) {
			ret = psym_err_set(e, PSYM_EBADINPUT,
					   "%s:%zu: output '%s' is the input of line %zu", m->name,
					   m->v[i].line, m->v[i].out, (*hit)->line);
			goto out;
		}
	}
out:
	free(byout);
	free(byin);
	return ret;
}

int psym_manifest_parse(const char *buf, size_t len, const char *name, size_t max_entries,
			struct psym_manifest *m, struct psym_err *e)
{
	size_t cap = 0, lineno = 0;
	const char *p = buf, *end = buf + len;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	if (!m->name)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		lineno++;
		if (l > PSYM_MANIFEST_MAX_LINE) {
			ret = psym_err_set(e, PSYM_EBADINPUT, "%s:%zu: line longer than %d bytes",
					   m->name, lineno, PSYM_MANIFEST_MAX_LINE);
			goto fail;
		}
		if (l && p[0] != '#') {
			if (m->n == max_entries) {
				ret = psym_err_set(e, PSYM_ELIMIT, "%s:%zu: more than %zu entries",
						   m->name, lineno, max_entries);
				goto fail;
			}
			/* Grown by doubling: empty lines and comments cost nothing. */
			{
				struct psym_manifest_entry *nv =
					psym_array_grow(m->v, &cap, m->n + 1, sizeof(*nv), 0);

				if (!nv) {
					ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
					goto fail;
				}
				m->v = nv;
			}
			ret = parse_line(m, p, l, lineno, e);
			if (ret)
				goto fail;
		}
		p += l + (nl != NULL);
	}
	ret = check_outputs(m, e);
	if (ret)
		goto fail;
	return 0;
fail:
	psym_manifest_free(m);
	return ret;
}

/*
 * Where a path names a file: its directory's identity (dev and inode, so
 * every spelling of the directory, through links or "..", is one) and its
 * last component. An output is replaced by rename(2) there, so that pair
 * is what it writes, whatever the path's spelling, unless it is a link:
 * that is written through (psym_out_open), so it is resolved (realpath)
 * first, as an input is, which is read through its links.
 */
struct ident {
	dev_t dev;
	ino_t ino;
	const char *base; /* into path */
	const char *path; /* as the manifest spells it (for messages) */
	char *resolved;	  /* an input's realpath, an output link's; owned, or NULL */
	size_t line;
	bool out;
};

static bool ident_of(struct ident *id, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;
	bool ok;

	id->base = slash ? slash + 1 : path;
	if (!*id->base || !strcmp(id->base, ".") || !strcmp(id->base, ".."))
		return false;
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return false;
	ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	free(dir);
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return ok;
}

static int cmp_ident(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;
	int c;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	c = strcmp(x->base, y->base);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (int)x->out - (int)y->out; /* a line's input before its output */
}

/*
 * The string checks of psym_manifest_parse, by identity: two lines whose
 * outputs are one file under two spellings ("out.pb.gz" and
 * "link/out.pb.gz"), an output that is its own line's input or another
 * line's, however spelled. Paths whose directory does not exist (yet)
 * have no identity and are left to the string checks.
 */
static int check_identities(const struct psym_manifest *m, struct psym_err *e)
{
	struct ident *v = calloc(2 * m->n + 1, sizeof(*v));
	size_t n = 0;
	int ret = 0;

	if (!v)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++) {
		struct ident *o = &v[n], *in;
		struct stat st;

		*o = (struct ident){ .path = m->v[i].out, .line = m->v[i].line, .out = true };
		/* An existing link is written through (psym_out_open): its target. */
		if (lstat(o->path, &st) == 0 && S_ISLNK(st.st_mode))
			o->resolved = realpath(o->path, NULL);
		if (ident_of(o, o->resolved ? o->resolved : o->path))
			n++;
		else
			free(o->resolved);
		in = &v[n];
		*in = (struct ident){ .path = m->v[i].in, .line = m->v[i].line };
		in->resolved = realpath(in->path, NULL);
		if (in->resolved && ident_of(in, in->resolved))
			n++;
		else
			free(in->resolved);
	}
	qsort(v, n, sizeof(*v), cmp_ident);
	/* In one group (one file), sorted by line: the first output after
	 * anything else of the group is refused, naming the earliest other. */
	for (size_t g = 0, k; g < n && !ret; g = k) {
		for (k = g + 1; k < n && v[k].dev == v[g].dev && v[k].ino == v[g].ino &&
				!strcmp(v[k].base, v[g].base);
		     k++)
			;
		for (size_t j = g + 1; j < k && !ret; j++) {
			const struct ident *a = &v[g], *b = &v[j];

			if (!b->out && !a->out)
				continue; /* two lines reading one input */
			if (!a->out && a->line == b->line)
				ret = psym_err_set(e, PSYM_EBADINPUT,
						   "%s:%zu: output '%s' is the line's input '%s'",
						   m->name, b->line, b->path, a->path);
			else if (a->out && b->out)
				ret = psym_err_set(
					e, PSYM_EBADINPUT,
					"%s:%zu: output '%s' is also written by line %zu "
					"(as '%s')",
					m->name, b->line, b->path, a->line, a->path);
			else
				ret = psym_err_set(
					e, PSYM_EBADINPUT,
					"%s:%zu: %s '%s' is the %s of line %zu (as '%s')", m->name,
					b->line, b->out ? "output" : "input", b->path,
					a->out ? "output" : "input", a->line, a->path);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].resolved);
	free(v);
	return ret;
}

int psym_manifest_read(const char *path, size_t max_bytes, struct psym_manifest *m,
		       struct psym_err *e)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = psym_read_file_cap(path, max_bytes, "--max-input-size N", &buf, &len, e);
	if (ret)
		return ret;
	ret = psym_manifest_parse((const char *)buf, len, strcmp(path, "-") ? path : "<stdin>",
				  SIZE_MAX, m, e);
	free(buf);
	if (!ret)
		ret = check_identities(m, e);
	if (ret)
		psym_manifest_free(m);
	return ret;
}

/* ---- results -------------------------------------------------------------- */

struct lbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct lbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t nc = (b->len + n + 1) * 2;
		char *np = realloc(b->p, nc);

		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void putf(struct lbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct lbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void put_sink(void *ud, const char *s, size_t n)
{
	put(ud, s, n);
}

/* s as a JSON string (textesc.h's: valid UTF-8), or null. */
static void put_json_str(struct lbuf *b, const char *s)
{
	if (!s)
		put(b, "null", 4);
	else
		psym_json_escape(s, put_sink, b);
}

int psym_results_open(const char *path, struct psym_err *e)
{
	struct stat st;
	char last;
	int fd, ret;

	if (strcmp(path, "-") == 0)
		return STDOUT_FILENO;
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0 && errno == EACCES) /* write-only for us: appended as it is */
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s' for appending: %s", path,
				    strerror(errno));
	/*
	 * A run killed in the middle of a line (or a full disk) leaves it
	 * without its newline: end it, so that this run's lines start lines
	 * of their own and parse (the partial one stays unparseable, and is
	 * not mistaken for a record). Not truncated: another psym may be
	 * appending to the same file.
	 */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n' && write(fd, "\n", 1) != 1) {
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	return fd;
}

int psym_results_write(int fd, const struct psym_result_line *r, struct psym_err *e)
{
	static const char *const status[] = { "ok", "skipped", "failed" };
	char host[256] = "";
	struct lbuf b = { 0 };
	size_t off = 0;
	int ret = 0;

	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	put(&b, "{\"input\":", 9);
	put_json_str(&b, r->input);
	put(&b, ",\"output\":", 10);
	put_json_str(&b, r->output);
	putf(&b, ",\"line\":%zu,\"status\":\"%s\",\"error\":", r->line, status[r->status]);
	put_json_str(&b, r->error);
	put(&b, ",\"note\":", 8);
	put_json_str(&b, r->note);
	putf(&b, ",\"written\":%s", r->written ? "true" : "false");
	putf(&b, ",\"locations\":%zu,\"resolved\":%zu,\"unresolved\":%zu,\"unverified\":%zu",
	     r->locations, r->resolved, r->unresolved, r->unverified);
	putf(&b, ",\"indexes_built\":%zu,\"seconds\":%.3f,\"host\":", r->indexes_built,
	     r->seconds >= 0 ? r->seconds : 0.0);
	put_json_str(&b, host);
	putf(&b, ",\"pid\":%ld}\n", (long)getpid());
	if (b.oom) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	while (off < b.len) {
		ssize_t n = write(fd, b.p + off, b.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = psym_err_set(e, PSYM_EIO, "cannot write the results: %s",
					   n < 0 ? strerror(errno) : "short write");
			goto out;
		}
		off += (size_t)n;
	}
out:
	free(b.p);
	return ret;
}
