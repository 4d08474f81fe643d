/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "show.h"

#define MAX_STACK 4096

/* ---- names: an interner of frame names -------------------------------------- */

/* Colour class of a frame in the flame graph. */
enum kind { K_USER, K_KERNEL, K_JIT, K_UNKNOWN };

/*
 * kind[] grows with s[]: each name carries the kind of the locations it
 * came from, so no array indexed by name id is ever sized before the
 * table is complete.
 */
struct names {
	char **s;
	unsigned char *kind; /* enum kind */
	size_t n, cap;
	uint32_t *slot; /* open addressing: index + 1 */
	size_t slots;
};

static uint64_t hstr(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static long names_add(struct names *t, const char *s)
{
	size_t j;

	if ((t->n + 1) * 2 > t->slots) {
		size_t ns = t->slots ? t->slots * 2 : 1024;
		uint32_t *nsl = calloc(ns, sizeof(*nsl));

		if (!nsl)
			return -1;
		for (size_t i = 0; i < t->n; i++) {
			for (j = hstr(t->s[i]) & (ns - 1); nsl[j]; j = (j + 1) & (ns - 1))
				;
			nsl[j] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = nsl;
		t->slots = ns;
	}
	for (j = hstr(s) & (t->slots - 1); t->slot[j]; j = (j + 1) & (t->slots - 1))
		if (!strcmp(t->s[t->slot[j] - 1], s))
			return t->slot[j] - 1;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		char **n = realloc(t->s, nc * sizeof(*n));
		unsigned char *k;

		if (!n)
			return -1;
		t->s = n;
		k = realloc(t->kind, nc * sizeof(*k));
		if (!k)
			return -1;
		t->kind = k;
		t->cap = nc;
	}
	t->s[t->n] = strdup(s);
	if (!t->s[t->n])
		return -1;
	t->kind[t->n] = K_USER;
	t->slot[j] = (uint32_t)t->n + 1;
	return (long)t->n++;
}

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->kind);
	free(t->slot);
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* ---- frames of a sample ------------------------------------------------------ */

/* Kind of a location's code, from its mapping (K_USER when nothing special). */
static enum kind location_kind(const struct psym_profile *p, const pb_location *l)
{
	const pb_mapping *m = psym_profile_mapping(p, l->mapping_id);
	const char *mn = m ? psym_profile_str(p, m->filename) : "";

	if (!strncmp(mn, "[kernel", 7) || (!m && l->address >= 0xffff800000000000ULL))
		return K_KERNEL;
	if (m && (!*mn || !strncmp(mn, "[anon", 5) || !strcmp(mn, "//anon") ||
		  !strncmp(mn, "/memfd:", 7)))
		return K_JIT;
	return K_USER;
}

/* Kind of a frame: its location's, else what its name says. */
static enum kind frame_kind(enum kind loc, const char *n)
{
	if (loc != K_USER)
		return loc;
	if (!strncmp(n, "0x", 2) || n[0] == '[')
		return K_UNKNOWN;
	if (!strncmp(n, "JS:", 3) || !strncmp(n, "LazyCompile:", 12) || strstr(n, "Interpreted") ||
	    !strncmp(n, "py::", 4))
		return K_JIT;
	return K_USER;
}

/* Intern a frame name and note its kind (kernel/JIT locations win). */
static long frame_add(struct names *t, const char *name, enum kind loc)
{
	long id = names_add(t, name);

	if (id >= 0 && (loc != K_USER || t->kind[id] == K_USER))
		t->kind[id] = frame_kind(loc, name);
	return id;
}

int psym_report_sample_index(const struct psym_profile *p, const struct psym_report_opts *o,
			     size_t *idx, struct psym_err *e)
{
	const pb_profile *pb = p->pb;

	if (pb->n_sample_type == 0)
		return psym_err_set(e, PSYM_EBADPROFILE, "profile has no sample types");
	if (o->sample_name) {
		for (size_t i = 0; i < pb->n_sample_type; i++)
			if (!strcmp(psym_profile_str(p, pb->sample_type[i]->type), o->sample_name)) {
				*idx = i;
				return 0;
			}
		return psym_err_set(e, PSYM_EUSAGE, "no sample type '%s' in this profile",
				    o->sample_name);
	}
	if (o->sample_index >= 0) {
		if ((size_t)o->sample_index >= pb->n_sample_type)
			return psym_err_set(e, PSYM_EUSAGE, "sample index %ld out of range (0-%zu)",
					    o->sample_index, pb->n_sample_type - 1);
		*idx = (size_t)o->sample_index;
		return 0;
	}
	if (pb->default_sample_type) {
		const char *d = psym_profile_str(p, pb->default_sample_type);

		for (size_t i = 0; i < pb->n_sample_type; i++)
			if (!strcmp(psym_profile_str(p, pb->sample_type[i]->type), d)) {
				*idx = i;
				return 0;
			}
	}
	*idx = pb->n_sample_type - 1; /* pprof's default: the last type */
	return 0;
}

static const char *label_str(const struct psym_profile *p, const pb_sample *s, const char *key,
			     char *buf, size_t bufsz)
{
	for (size_t j = 0; j < s->n_label; j++) {
		const pb_label *l = s->label[j];

		if (strcmp(psym_profile_str(p, l->key), key))
			continue;
		if (l->str)
			return psym_profile_str(p, l->str);
		snprintf(buf, bufsz, "%s %" PRId64, key, l->num);
		return buf;
	}
	return NULL;
}

/*
 * Frame names of a sample into ids[], leaf first (inline frames innermost
 * first within a location). Returns the count, or -1 on out of memory.
 */
static long sample_frames(const struct psym_profile *p, const pb_sample *s,
			  enum psym_report_granularity by, struct names *t, long *ids, size_t max)
{
	size_t n = 0;
	char buf[8192];

	for (size_t i = 0; i < s->n_location_id && n < max; i++) {
		const pb_location *loc = psym_profile_location(p, s->location_id[i]);
		enum kind k;

		if (!loc)
			continue;
		k = location_kind(p, loc);
		if (loc->n_line == 0) {
			/* Like pprof: "[binary]" for a mapping's unsymbolized code. */
			const pb_mapping *m = psym_profile_mapping(p, loc->mapping_id);
			const char *mn = m ? psym_profile_str(p, m->filename) : "";
			const char *b = strrchr(mn, '/');

			if (*mn)
				snprintf(buf, sizeof(buf), "[%s]", b ? b + 1 : mn);
			else
				snprintf(buf, sizeof(buf), "0x%" PRIx64, loc->address);
			if ((ids[n++] = frame_add(t, buf, K_UNKNOWN)) < 0)
				return -1;
			continue;
		}
		for (size_t j = 0; j < loc->n_line && n < max; j++) {
			const pb_line *ln = loc->line[j];
			const pb_function *f = psym_profile_function(p, ln->function_id);
			const char *fn = f ? psym_profile_str(p, f->name) : "";
			const char *file = f ? psym_profile_str(p, f->filename) : "";

			if (!*fn && f)
				fn = psym_profile_str(p, f->system_name);
			if (!*fn)
				fn = "??";
			if (by == PSYM_BY_LINE)
				snprintf(buf, sizeof(buf), "%s %s:%" PRId64, fn, file, ln->line);
			else if (by == PSYM_BY_FILE)
				snprintf(buf, sizeof(buf), "%s", *file ? file : "??");
			else
				snprintf(buf, sizeof(buf), "%s", fn);
			if ((ids[n++] = frame_add(t, buf, k)) < 0)
				return -1;
		}
	}
	return (long)n;
}

/* ---- top -------------------------------------------------------------------- */

static void fmt_value(char *buf, size_t sz, int64_t v, const char *unit)
{
	double d = (double)v;

	if (!strcmp(unit, "nanoseconds")) {
		if (v == 0)
			snprintf(buf, sz, "0");
		else if (d >= 1e9 || d <= -1e9)
			snprintf(buf, sz, "%.2fs", d / 1e9);
		else if (d >= 1e6 || d <= -1e6)
			snprintf(buf, sz, "%.2fms", d / 1e6);
		else if (d >= 1e3 || d <= -1e3)
			snprintf(buf, sz, "%.2fus", d / 1e3);
		else
			snprintf(buf, sz, "%" PRId64 "ns", v);
	} else if (!strcmp(unit, "bytes")) {
		if (d >= 1048576)
			snprintf(buf, sz, "%.2fMB", d / 1048576);
		else if (d >= 1024)
			snprintf(buf, sz, "%.2fkB", d / 1024);
		else
			snprintf(buf, sz, "%" PRId64 "B", v);
	} else {
		snprintf(buf, sz, "%" PRId64, v);
	}
}

struct row {
	long id;
	int64_t flat, cum;
};

struct row_ctx {
	const struct names *names;
	bool by_cum;
};

static int cmp_row(const void *a, const void *b, void *ctx)
{
	const struct row *x = a, *y = b;
	const struct row_ctx *c = ctx;
	int64_t kx = c->by_cum ? x->cum : x->flat, ky = c->by_cum ? y->cum : y->flat;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	return strcmp(c->names->s[x->id], c->names->s[y->id]);
}

int psym_report_top(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		    struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	struct names t = { 0 };
	struct row *rows = NULL;
	size_t *stamp = NULL, idx, cap = 0;
	long *ids = malloc(MAX_STACK * sizeof(*ids));
	int64_t total = 0, shown = 0, sum = 0;
	const char *unit;
	char a[64], b[64];
	int ret = psym_report_sample_index(p, o, &idx, e);

	if (ret || !ids)
		goto out;
	unit = psym_profile_str(p, pb->sample_type[idx]->unit);
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		int64_t v = s->value[idx];
		long n = sample_frames(p, s, o->by, &t, ids, MAX_STACK);

		if (n < 0)
			goto oom;
		total = sat_add(total, v);
		if (t.n > cap) {
			size_t nc = t.cap;
			struct row *nr = realloc(rows, nc * sizeof(*nr));
			size_t *ns = realloc(stamp, nc * sizeof(*ns));

			if (!nr || !ns) {
				free(nr ? nr : rows);
				free(ns ? ns : stamp);
				rows = NULL;
				stamp = NULL;
				goto oom;
			}
			rows = nr;
			stamp = ns;
			for (size_t k = cap; k < nc; k++) {
				rows[k] = (struct row){ (long)k, 0, 0 };
				stamp[k] = SIZE_MAX;
			}
			cap = nc;
		}
		if (n > 0)
			rows[ids[0]].flat = sat_add(rows[ids[0]].flat, v);
		for (long k = 0; k < n; k++) {
			/* Recursion: a frame counts once per sample in cum. */
			if (stamp[ids[k]] == i)
				continue;
			stamp[ids[k]] = i;
			rows[ids[k]].cum = sat_add(rows[ids[k]].cum, v);
		}
	}
	if (t.n) {
		struct row_ctx c = { &t, o->sort_cum };

		qsort_r(rows, t.n, sizeof(*rows), cmp_row, &c);
	}
	{
		size_t nrows = o->max_rows && o->max_rows < t.n ? o->max_rows : t.n;

		for (size_t i = 0; i < nrows; i++)
			shown = sat_add(shown, rows[i].flat);
		fmt_value(a, sizeof(a), shown, unit);
		fmt_value(b, sizeof(b), total, unit);
		fprintf(out, "Type: %s\n", psym_profile_str(p, pb->sample_type[idx]->type));
		fprintf(out, "Showing nodes accounting for %s, %.2f%% of %s total\n", a,
			total ? 100.0 * (double)shown / (double)total : 0.0, b);
		if (nrows < t.n)
			fprintf(out, "Showing top %zu nodes out of %zu\n", nrows, t.n);
		fprintf(out, "%10s %6s %6s %10s %6s\n", "flat", "flat%", "sum%", "cum", "cum%");
		for (size_t i = 0; i < nrows; i++) {
			sum = sat_add(sum, rows[i].flat);
			fmt_value(a, sizeof(a), rows[i].flat, unit);
			fmt_value(b, sizeof(b), rows[i].cum, unit);
			fprintf(out, "%10s %5.2f%% %5.2f%% %10s %5.2f%%  %s\n", a,
				total ? 100.0 * (double)rows[i].flat / (double)total : 0.0,
				total ? 100.0 * (double)sum / (double)total : 0.0, b,
				total ? 100.0 * (double)rows[i].cum / (double)total : 0.0,
				t.s[rows[i].id]);
		}
	}
	goto out;
oom:
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
out:
	free(ids);
	free(rows);
	free(stamp);
	names_free(&t);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}

/* ---- stacks, shared by folded and flame ---------------------------------------- */

struct stack {
	long *ids; /* root first */
	size_t n;
	int64_t v;
};

struct stacks {
	struct names names;
	struct stack *s;
	size_t n, cap;
	int64_t total;
};

static int collect_stacks(const struct psym_profile *p, const struct psym_report_opts *o,
			  struct stacks *st, struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	long *ids = malloc((MAX_STACK + 2) * sizeof(*ids));
	size_t idx;
	int ret = psym_report_sample_index(p, o, &idx, e);

	if (ret || !ids) {
		free(ids);
		return ret ? ret : psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		long n = sample_frames(p, s, o->by, &st->names, ids, MAX_STACK);
		struct stack *sk;
		size_t extra = 0;
		long pre[2];
		char buf[64];
		const char *l;

		if (n < 0)
			goto oom;
		if (s->value[idx] == 0 || n == 0)
			continue; /* nothing to draw: no frames at all */
		if (o->comm_frame && (l = label_str(p, s, "comm", buf, sizeof(buf))))
			pre[extra++] = names_add(&st->names, l);
		if (o->pid_frame && (l = label_str(p, s, "pid", buf, sizeof(buf))))
			pre[extra++] = names_add(&st->names, l);
		if (st->n == st->cap) {
			size_t nc = st->cap ? st->cap * 2 : 1024;
			struct stack *ns = realloc(st->s, nc * sizeof(*ns));

			if (!ns)
				goto oom;
			st->s = ns;
			st->cap = nc;
		}
		sk = &st->s[st->n];
		sk->n = (size_t)n + extra;
		sk->v = s->value[idx];
		sk->ids = malloc((sk->n ? sk->n : 1) * sizeof(long));
		if (!sk->ids)
			goto oom;
		for (size_t k = 0; k < extra; k++)
			sk->ids[k] = pre[k];
		for (long k = 0; k < n; k++)
			sk->ids[extra + (size_t)k] = ids[n - 1 - k];
		st->total = sat_add(st->total, sk->v);
		st->n++;
	}
	free(ids);
	return 0;
oom:
	free(ids);
	return psym_err_set(e, PSYM_ENOMEM, "out of memory");
}

static void stacks_free(struct stacks *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->s[i].ids);
	free(st->s);
	names_free(&st->names);
}

static int cmp_stack(const void *a, const void *b, void *ctx)
{
	const struct stack *x = a, *y = b;
	const struct stacks *st = ctx;

	for (size_t i = 0; i < x->n && i < y->n; i++) {
		int c = strcmp(st->names.s[x->ids[i]], st->names.s[y->ids[i]]);

		if (c)
			return c;
	}
	return x->n < y->n ? -1 : x->n > y->n;
}

static bool same_stack(const struct stack *x, const struct stack *y)
{
	if (x->n != y->n)
		return false;
	for (size_t i = 0; i < x->n; i++)
		if (x->ids[i] != y->ids[i])
			return false;
	return true;
}

/* Sort and merge identical stacks. */
static void merge_stacks(struct stacks *st)
{
	size_t w = 0;

	if (st->n)
		qsort_r(st->s, st->n, sizeof(*st->s), cmp_stack, st);
	for (size_t r = 0; r < st->n; r++) {
		if (w && same_stack(&st->s[w - 1], &st->s[r])) {
			st->s[w - 1].v = sat_add(st->s[w - 1].v, st->s[r].v);
			free(st->s[r].ids);
			continue;
		}
		st->s[w++] = st->s[r];
	}
	st->n = w;
}

int psym_report_folded(const struct psym_profile *p, const struct psym_report_opts *o,
		       FILE *out, struct psym_err *e)
{
	struct stacks st = { 0 };
	int ret = collect_stacks(p, o, &st, e);

	if (!ret) {
		merge_stacks(&st);
		for (size_t i = 0; i < st.n && !ferror(out); i++) {
			for (size_t k = 0; k < st.s[i].n; k++) {
				/* ';' separates frames: keep it out of names. */
				for (const char *c = st.names.s[st.s[i].ids[k]]; *c; c++)
					fputc(*c == ';' ? ':' : (*c == '\n' ? ' ' : *c), out);
				if (k + 1 < st.s[i].n)
					fputc(';', out);
			}
			fprintf(out, " %" PRId64 "\n", st.s[i].v);
		}
	}
	stacks_free(&st);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}

/* ---- flame graph -------------------------------------------------------------- */

static void xml_text(FILE *out, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (*c >= 0x20 && *c != 0x7f)
				fputc(*c, out);
		}
	}
}

int psym_report_flame(const struct psym_profile *p, const struct psym_report_opts *o,
		      const char *title, FILE *out, struct psym_err *e)
{
	static const char *const fill[] = { "#f4a261", "#e76f51", "#2a9d8f", "#b0b0b0" };
	const double W = 1200.0, H = 17.0, pad = 10.0;
	struct stacks st = { 0 };
	size_t maxdepth = 0, drawn = 0, omitted = 0;
	int ret = collect_stacks(p, o, &st, e);

	if (ret)
		goto out;
	merge_stacks(&st);
	for (size_t i = 0; i < st.n; i++)
		if (st.s[i].n > maxdepth)
			maxdepth = st.s[i].n;
	{
		double height = (double)(maxdepth + 3) * H + 2 * pad;

		fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
			"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
			W, height, W, height);
		fprintf(out,
			"<style>text{font-family:monospace;font-size:12px} .f:hover rect{stroke:#000}"
			" .hl rect{fill:#e040fb !important}</style>\n"
			"<script type=\"text/ecmascript\"><![CDATA[\n"
			"var frames=[],W=%.0f,pad=%.0f;\n"
			"function init(evt){frames=Array.prototype.slice.call(document.querySelectorAll('g.f'));"
			"frames.forEach(function(g){g.onclick=function(){zoom(g)};});"
			"document.getElementById('search').onclick=search;"
			"document.getElementById('reset').onclick=function(){zoom(null)};}\n"
			"function zoom(t){var x0=t?+t.dataset.x:0,w0=t?+t.dataset.w:1,d0=t?+t.dataset.d:-1;"
			"frames.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d,"
			"r=g.querySelector('rect'),tx=g.querySelector('text');"
			"var inside=x>=x0-1e-9&&x+w<=x0+w0+1e-9;var nx=(x-x0)/w0,nw=w/w0;"
			"if(!t){nx=x;nw=w;inside=true;}"
			"if(d<d0&&t){inside=x<=x0+1e-9&&x+w>=x0+w0-1e-9;nx=0;nw=1;}"
			"g.style.display=inside?'':'none';r.setAttribute('x',pad+nx*(W-2*pad));"
			"r.setAttribute('width',Math.max(0,nw*(W-2*pad)-0.5));"
			"tx.setAttribute('x',pad+nx*(W-2*pad)+3);var n=tx.dataset.n,c=Math.floor(nw*(W-2*pad)/7);"
			"tx.textContent=c>=3?(n.length>c?n.slice(0,c-2)+'..':n):'';});}\n"
			"function search(){var q=prompt('Search (regular expression):');if(q===null)return;"
			"var re;try{re=new RegExp(q);}catch(e){return;}"
			"frames.forEach(function(g){var n=g.querySelector('text').dataset.n;"
			"g.classList.toggle('hl',q!==''&&re.test(n));});}\n"
			"]]></script>\n", W, pad);
		fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fdf6e3\"/>\n",
			W, height);
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"16\">",
			W / 2, pad + 12);
		xml_text(out, title ? title : "Flame graph");
		fprintf(out, "</text>\n<text id=\"search\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" "
			"style=\"cursor:pointer\">Search</text>\n", W - pad, pad + 12);
		fprintf(out, "<text id=\"reset\" x=\"%.0f\" y=\"%.0f\" style=\"cursor:pointer\">Reset zoom"
			"</text>\n", pad, pad + 12);
		fprintf(out, "<g id=\"legend\">");
		{
			static const char *const kname[] = { "user", "kernel", "JIT", "unknown" };

			for (int k = 0; k < 4; k++)
				fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
					"<text x=\"%.0f\" y=\"%.0f\">%s</text>", W / 2 + 180 + k * 80.0,
					pad + 3, fill[k], W / 2 + 194 + k * 80.0, pad + 12, kname[k]);
		}
		fprintf(out, "</g>\n");
		/*
		 * Frames: the merged stacks are sorted, so equal prefixes are
		 * adjacent; each (depth, run of equal prefix) is one frame.
		 */
		if (st.total > 0) {
			size_t *start = calloc(maxdepth + 1, sizeof(*start));
			int64_t *acc = calloc(maxdepth + 1, sizeof(*acc));
			int64_t x = 0;

			if (!start || !acc) {
				free(start);
				free(acc);
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
			for (size_t i = 0; i <= st.n; i++) {
				/* Depth at which stack i differs from stack i-1. */
				size_t common = 0;

				if (i > 0 && i < st.n)
					while (common < st.s[i].n && common < st.s[i - 1].n &&
					       st.s[i].ids[common] == st.s[i - 1].ids[common])
						common++;
				if (i > 0) {
					/* Close frames of stack i-1 deeper than common. */
					const struct stack *pv = &st.s[i - 1];

					for (size_t d = pv->n; d-- > common;) {
						int64_t fx = x - acc[d];
						double fw = (double)acc[d] / (double)st.total;
						double px = (double)fx / (double)st.total;
						long id = pv->ids[d];
						const char *nm = st.names.s[id];
						double rw = fw * (W - 2 * pad);
						int64_t val = acc[d];

						acc[d] = 0;
						if (rw < 0.1) {
							omitted++;
							continue;
						}
						drawn++;
						fprintf(out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" "
							"data-d=\"%zu\"><title>", px, fw, d);
						xml_text(out, nm);
						fprintf(out, " (%" PRId64 ", %.2f%%)</title><rect x=\"%.2f\" "
							"y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
							"rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\" data-n=\"",
							val,
							100.0 * fw, pad + px * (W - 2 * pad),
							(double)(maxdepth + 2 - d) * H + pad, rw > 0.5 ? rw - 0.5 : rw,
							H - 1, fill[st.names.kind[id]],
							pad + px * (W - 2 * pad) + 3,
							(double)(maxdepth + 2 - d) * H + pad + 12);
						xml_text(out, nm);
						fprintf(out, "\">");
						{
							size_t c = (size_t)(rw / 7);

							if (c >= 3) {
								char buf[512];

								snprintf(buf, sizeof(buf), "%s", nm);
								if (strlen(buf) > c && c >= 3)
									strcpy(buf + c - 2, "..");
								xml_text(out, buf);
							}
						}
						fprintf(out, "</text></g>\n");
					}
				}
				if (i == st.n)
					break;
				for (size_t d = 0; d < st.s[i].n; d++)
					acc[d] = sat_add(acc[d], st.s[i].v);
				x = sat_add(x, st.s[i].v);
				(void)start;
			}
			free(start);
			free(acc);
		}
		if (omitted)
			fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">%zu frames too narrow to "
				"draw</text>\n", pad, height - 3, omitted);
		fprintf(out, "</svg>\n");
	}
	(void)drawn;
out:
	stacks_free(&st);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
