/* SPDX-License-Identifier: MIT */
/*
 * psym list: the source of the functions whose name matches a regular
 * expression, each line with its flat and cumulative value, as pprof -list
 * prints it. The graph is pprof's at line granularity with binaries and
 * start lines kept apart (ObjNames), untrimmed; source files are found as
 * pprof finds them: the file name trimmed (-trim_path, else a guess from
 * the search path's last directory; /proc/self/cwd/), then looked up in
 * each search directory and its parents.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_int.h"
#include "textesc.h"
#include "rx.h"

#define LIST_MARGIN 5		       /* lines shown around the samples, as pprof */
#define MAX_SOURCE (256 * 1024 * 1024) /* a source file larger is not read */

/* What each node of the graph is: its function (NULL: none) and line. */
struct lnode {
	const pb_function *f;
	int64_t line;
};

/* pprof's trimPath: a suffix of path. trim and search are ':'-separated lists. */
static const char *trim_path(const char *path, const char *trim, const char *search)
{
	static const char *const proc[] = { "/proc/self/cwd/./", "/proc/self/cwd/" };
	const char *c;

	if (!trim || !*trim)
		for (c = search; c && *c;) {
			size_t len = strcspn(c, ":"), b = len, e;
			char want[4096];
			const char *hit;

			while (b > 1 && c[b - 1] == '/')
				b--; /* the last element, as filepath.Base */
			e = b;
			while (b > 0 && c[b - 1] != '/')
				b--;
			if (e > b && e - b + 3 < sizeof(want)) {
				snprintf(want, sizeof(want), "/%.*s/", (int)(e - b), c + b);
				hit = strstr(path, want);
				if (hit)
					return hit + strlen(want);
			}
			c += len + (c[len] == ':');
		}
	for (c = trim; c && *c;) {
		size_t len = strcspn(c, ":");

		if (len && !strncmp(path, c, len) && (c[len - 1] == '/' ? true : path[len] == '/'))
			return path + len + (c[len - 1] != '/');
		c += len + (c[len] == ':');
	}
	for (size_t i = 0; i < 2; i++)
		if (!strncmp(path, proc[i], strlen(proc[i])))
			return path + strlen(proc[i]);
	return path;
}

/* A source file's lines: text[0..len) with NUL for each newline, line i at text + at[i - 1]. */
struct source {
	char *text;
	size_t *at, n;
};

static int read_whole(int fd, struct source *src)
{
	struct stat st;
	size_t len = 0;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_SOURCE)
		return -1;
	src->text = malloc((size_t)st.st_size + 1);
	if (!src->text)
		return -1;
	while (len < (size_t)st.st_size) {
		ssize_t r = read(fd, src->text + len, (size_t)st.st_size - len);

		if (r <= 0)
			break;
		len += (size_t)r;
	}
	src->text[len] = '\0';
	src->at = malloc((len / 2 + 2) * sizeof(*src->at));
	if (!src->at)
		return -1;
	for (size_t i = 0; i < len;) {
		size_t e = i;

		while (e < len && src->text[e] != '\n')
			e++;
		src->at[src->n++] = i;
		src->text[e] = '\0';
		if (e > i && src->text[e - 1] == '\r')
			src->text[e - 1] = '\0'; /* as Go's ScanLines */
		i = e + 1;
	}
	return 0;
}

/*
 * With --source-path, name opened only when it resolves (symbolic links,
 * "..") to a file inside one of the search directories: its resolved path
 * is opened. -1 when it does not exist or lies outside (*outside set).
 */
static int open_confined(const char *name, const char *search, bool *outside)
{
	char real[PATH_MAX], dir[PATH_MAX], rdir[PATH_MAX];
	struct stat st;

	if (!realpath(name, real))
		return -1;
	for (const char *c = search; *c;) {
		size_t len = strcspn(c, ":"), n;

		snprintf(dir, sizeof(dir), "%.*s", (int)len, c);
		c += len + (c[len] == ':');
		if (!len || !realpath(dir, rdir))
			continue;
		n = strlen(rdir);
		if (!strncmp(real, rdir, n) && (real[n] == '/' || !strcmp(rdir, "/")))
			return stat(real, &st) == 0 && S_ISREG(st.st_mode)
				       ? open(real, O_RDONLY | O_CLOEXEC)
				       : -1;
	}
	*outside = true;
	return -1;
}

/*
 * pprof's openSourceFile: path trimmed again, then absolute as it is, else
 * under each search directory or one of its parents. 0, or -1 with the
 * error pprof prints in err. With --source-path (confine), only files
 * inside its directories are read: no parent directories, and an absolute
 * path or one with ".." or a symbolic link out of them is refused.
 */
static int open_source(const char *path, const char *search, bool confine, const char *trim,
		       struct source *src, char *err, size_t errsz)
{
	const char *t = trim_path(path, trim, search);
	bool outside = false;
	int fd = -1;

	if (confine && t[0] == '/' && access(t, F_OK) != 0) {
		confine = false; /* not there: pprof's own error, below */
	}
	if (confine) {
		for (const char *c = search; fd < 0 && *c;) {
			size_t len = strcspn(c, ":");
			char name[8192];

			if (t[0] == '/')
				snprintf(name, sizeof(name), "%s", t);
			else
				snprintf(name, sizeof(name), "%.*s/%s", (int)len, c, t);
			fd = open_confined(name, search, &outside);
			c += len + (c[len] == ':');
		}
		if (fd < 0 && outside) {
			snprintf(err, errsz, "file %s is outside --source-path %s: not read", t,
				 search);
			return -1;
		}
	} else if (t[0] == '/') {
		fd = open(t, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			char why[128];

			/* Go's words: lowercase. */
			snprintf(why, sizeof(why), "%s", strerror(errno));
			why[0] = (char)tolower((unsigned char)why[0]);
			snprintf(err, errsz, "open %s: %s", t, why);
			return -1;
		}
	}
	for (const char *c = confine ? NULL : search; fd < 0 && c && *c;) {
		size_t len = strcspn(c, ":");
		char dir[4096], name[8192];

		snprintf(dir, sizeof(dir), "%.*s", (int)len, c);
		for (;;) {
			char *slash;

			snprintf(name, sizeof(name), "%s/%s", dir, t);
			fd = open(name, O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				break;
			slash = strrchr(dir, '/');
			if (!slash || (slash == dir && !dir[1]))
				break;
			if (slash == dir)
				slash[1] = '\0';
			else
				*slash = '\0';
		}
		c += len + (c[len] == ':');
	}
	if (fd < 0) {
		snprintf(err, errsz, "could not find file %s on path %s", t, search);
		return -1;
	}
	if (read_whole(fd, src)) {
		close(fd);
		snprintf(err, errsz, "cannot read %s", t);
		return -1;
	}
	close(fd);
	return 0;
}

static void source_free(struct source *src)
{
	free(src->text);
	free(src->at);
	memset(src, 0, sizeof(*src));
}

struct list_ctx {
	const struct psym_rpt_graph *g;
	const struct lnode *info;
	const char *unit;
	const char *search, *trim, *shown_search;
	bool confine; /* --source-path: only files inside it are read */
	FILE *out, *warn;
	char **missing; /* files already said missing on warn */
	size_t nmissing;
};

/* The file name a node shows (pprof: trimmed with the given search path, cleaned). */
static void node_file(const struct list_ctx *c, uint32_t id, char *buf, size_t sz)
{
	const pb_function *f = c->info[id].f;
	const char *fn = f ? psym_profile_str(c->g->r.p, f->filename) : "";

	buf[0] = '\0';
	if (*fn)
		psym_rpt_clean_path(buf, sz, trim_path(fn, c->trim, c->shown_search));
}

static const char *node_name(const struct list_ctx *c, uint32_t id)
{
	const pb_function *f = c->info[id].f;

	return f ? psym_profile_str(c->g->r.p, f->name) : "";
}

static void value_or_dot(char *buf, size_t sz, int64_t v, const char *unit)
{
	if (v)
		psym_rpt_scaled_label(buf, sz, v, unit, "minimum");
	else
		snprintf(buf, sz, ".");
}

/* Say once on warn that file was not found. */
static void say_missing(struct list_ctx *c, const char *file, const char *err)
{
	char **nm;

	for (size_t i = 0; i < c->nmissing; i++)
		if (!strcmp(c->missing[i], file))
			return;
	nm = realloc(c->missing, (c->nmissing + 1) * sizeof(*nm));
	if (!nm)
		return;
	c->missing = nm;
	c->missing[c->nmissing] = strdup(file);
	if (c->missing[c->nmissing])
		c->nmissing++;
	if (c->warn) {
		fputs("psym list: source file '", c->warn);
		psym_text_puts(c->warn, file);
		fputs("' not found: ", c->warn);
		psym_text_puts(c->warn, err);
		fputs(" (see --source-path, --trim-path)\n", c->warn);
	}
}

/* A line of a source file: its tabs kept (as pprof's), other control characters escaped. */
static void source_line(FILE *out, const char *line)
{
	for (;;) {
		size_t n = strcspn(line, "\t");

		psym_text_write(out, line, n);
		if (!line[n])
			break;
		fputc('\t', out);
		line += n + 1;
	}
	fputc('\n', out);
}

/* One ROUTINE: the nodes ids[0..n) of function name in file. */
static void print_routine(struct list_ctx *c, const char *name, const char *file,
			  const uint32_t *ids, size_t n)
{
	const struct psym_rpt_graph *g = c->g;
	int64_t flat = 0, cum = 0, start = INT64_MAX, end = 0;
	struct source src = { 0 };
	char a[64], b[64], pa[32], err[8400];

	for (size_t i = 0; i < n; i++) {
		const struct lnode *ln = &c->info[ids[i]];
		int64_t s = ln->f && ln->f->start_line ? ln->f->start_line : ln->line - LIST_MARGIN;

		flat = sat_add(flat, g->nodes[ids[i]].flat);
		cum = sat_add(cum, g->nodes[ids[i]].cum);
		if (s < start)
			start = s;
		if (ln->line + LIST_MARGIN > end)
			end = ln->line + LIST_MARGIN;
	}
	if (start < 1)
		start = 1;
	fputs("ROUTINE ======================== ", c->out);
	psym_text_puts(c->out, name);
	fputs(" in ", c->out);
	psym_text_puts(c->out, file);
	fputc('\n', c->out);
	psym_rpt_scaled_label(a, sizeof(a), flat, c->unit, "minimum");
	psym_rpt_scaled_label(b, sizeof(b), cum, c->unit, "minimum");
	psym_rpt_percentage(pa, sizeof(pa), cum, g->total);
	fprintf(c->out, "%10s %10s (flat, cum) %s of Total\n", a, b, pa);
	if (open_source(file, c->search, c->confine, c->trim, &src, err, sizeof(err))) {
		fputs(" Error: ", c->out);
		psym_text_puts(c->out, err);
		fputc('\n', c->out);
		say_missing(c, file, err);
		source_free(&src);
		return;
	}
	for (int64_t l = start; l <= end && (uint64_t)l <= src.n; l++) {
		int64_t lf = 0, lc = 0;

		for (size_t i = 0; i < n; i++)
			if (c->info[ids[i]].line == l) {
				lf = sat_add(lf, g->nodes[ids[i]].flat);
				lc = sat_add(lc, g->nodes[ids[i]].cum);
			}
		value_or_dot(a, sizeof(a), lf, c->unit);
		value_or_dot(b, sizeof(b), lc, c->unit);
		fprintf(c->out, "%10s %10s %6lld:", a, b, (long long)l);
		source_line(c->out, src.text + src.at[l - 1]);
	}
	source_free(&src);
}

/* Each node's function and line, walking the locations' lines as report.c does. */
static struct lnode *node_info(struct psym_rpt_graph *g)
{
	struct rep *r = &g->r;
	struct lnode *info = calloc(r->names.n ? r->names.n : 1, sizeof(*info));

	for (size_t pos = 0; info && pos < r->p->pb->n_location; pos++) {
		const pb_location *loc = r->p->pb->location[pos];
		const uint32_t *f;
		long nf = psym_rpt_loc_frames(r, pos, &f), k = 0;

		for (size_t j = 0; j < loc->n_line && k < nf; j++) {
			const pb_line *ln = loc->line[j];

			if (r->flt && !psym_rpt_filter_line_shown(r->flt, r->p, loc, ln))
				continue;
			info[f[k]].f = psym_profile_function(r->p, ln->function_id);
			info[f[k]].line = ln->line;
			k++;
		}
	}
	return info;
}

static int cmp_by_name_file(const void *a, const void *b, void *ctx)
{
	const struct list_ctx *c = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	char fx[4096], fy[4096];
	int r = strcmp(node_name(c, x), node_name(c, y));

	if (r)
		return r;
	node_file(c, x, fx, sizeof(fx));
	node_file(c, y, fy, sizeof(fy));
	r = strcmp(fx, fy);
	return r ? r : (x > y) - (x < y);
}

/* The matching nodes, by function name then file; one ROUTINE per (name, file). */
static void print_list(struct list_ctx *c, uint32_t *ids, size_t n)
{
	size_t i = 0;

	qsort_r(ids, n, sizeof(*ids), cmp_by_name_file, c);
	while (i < n) {
		const char *name = node_name(c, ids[i]);
		size_t j = i;
		bool any = false;

		while (j < n && !strcmp(node_name(c, ids[j]), name))
			j++;
		for (size_t k = i; k < j;) {
			char file[4096], other[4096];
			size_t m = k + 1;

			node_file(c, ids[k], file, sizeof(file));
			while (m < j) {
				node_file(c, ids[m], other, sizeof(other));
				if (strcmp(file, other))
					break;
				m++;
			}
			if (*file) {
				print_routine(c, name, file, ids + k, m - k);
				any = true;
			}
			k = m;
		}
		if (!any) {
			fputs("No source information for ", c->out);
			psym_text_puts(c->out, name);
			fputc('\n', c->out);
		}
		i = j;
	}
}

int psym_report_list(const struct psym_profile *p, const struct psym_report_opts *o,
		     const struct psym_list_opts *lo, FILE *out, FILE *warn, struct psym_err *e)
{
	struct psym_report_opts po = *o;
	struct psym_rpt_graph g;
	struct psym_rx *rx = NULL;
	struct lnode *info = NULL;
	uint32_t *ids = NULL;
	size_t n = 0;
	char cwd[4096];
	struct list_ctx c = { .out = out, .warn = warn, .trim = lo->trim_path };
	struct psym_err re = { 0 };
	int ret = psym_rx_compile(lo->regex, &rx, &re);

	if (ret == PSYM_ENOMEM)
		return psym_err_set(e, ret, "out of memory");
	if (ret)
		return psym_err_set(e, PSYM_EUSAGE, "bad regular expression '%.100s': %s",
				    lo->regex, re.msg);
	/* pprof -list: by line, nothing trimmed. */
	po.by = PSYM_BY_LINE;
	po.node_fraction = po.edge_fraction = 0;
	po.max_rows = 0;
	ret = psym_rpt_graph_new_objnames(p, &po, &g, e);
	if (ret)
		goto out;
	info = node_info(&g);
	ids = malloc((g.n ? g.n : 1) * sizeof(*ids));
	if (!info || !ids) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	c.g = &g;
	c.info = info;
	c.unit = psym_profile_str(p, p->pb->sample_type[g.r.idx]->unit);
	c.shown_search = lo->source_path ? lo->source_path : "";
	c.search = lo->source_path;
	c.confine = lo->source_path != NULL;
	if (!c.search) {
		if (!getcwd(cwd, sizeof(cwd))) {
			ret = psym_err_set(e, PSYM_EIO, "could not stat current dir: %s",
					   strerror(errno));
			goto out;
		}
		c.search = cwd;
	}
	for (size_t i = 0; i < g.n; i++) {
		const char *name = node_name(&c, g.order[i]);

		if (psym_rx_match(rx, name, strlen(name)))
			ids[n++] = g.order[i];
	}
	if (!n) {
		ret = psym_err_set(e, PSYM_EUSAGE, "no matches found for regexp: %s", lo->regex);
		goto out;
	}
	{
		char t[64];

		psym_rpt_scaled_label(t, sizeof(t), g.total, c.unit, "minimum");
		fprintf(out, "Total: %s\n", t);
	}
	print_list(&c, ids, n);
out:
	for (size_t i = 0; i < c.nmissing; i++)
		free(c.missing[i]);
	free(c.missing);
	free(ids);
	free(info);
	psym_rpt_graph_free(&g);
	psym_rx_free(rx);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
