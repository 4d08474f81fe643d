/* SPDX-License-Identifier: MIT */
/*
 * psym graph: pprof's call graph as DOT, as go tool pprof -dot writes it
 * (graph: report_vgraph.c): the legend, each node named on several lines
 * (pprof's shortened function names), sized by its flat value and coloured
 * by its cumulative one, its label boxes, then the calls, heaviest first.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* ---- names ------------------------------------------------------------------ */

static bool is_w(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

/* goVerRegExp: "path/vN/rest" or "path/vN.rest" loses its "/vN"; in place. */
static void drop_go_version(char *s)
{
	if (strchr(s, '\n'))
		return;
	for (char *p = strstr(s, "/v"); p; p = strstr(p + 1, "/v")) {
		char *q = p + 2;

		if (*q >= '2' && *q <= '9' && (q[1] == '.' || q[1] == '/')) {
			q++;
		} else if (*q >= '1' && *q <= '9' && q[1] >= '0' && q[1] <= '9') {
			while (*q >= '0' && *q <= '9')
				q++;
			if (*q != '.' && *q != '/')
				continue;
		} else {
			continue;
		}
		memmove(p, q, strlen(q) + 1);
		return;
	}
}

/* goRegExp: the part after the leading "pkg/path/" segments; NULL: no match. */
static const char *go_short(const char *s, size_t *len)
{
	const char *best = NULL;

	for (const char *p = s;;) {
		const char *q = p;

		while (is_w(*q) || *q == '-' || *q == '.')
			q++;
		if (q == p || *q != '/')
			break;
		p = q + 1;
		if (*p && *p != '\n')
			best = p;
	}
	if (best)
		*len = strcspn(best, "\n");
	return best;
}

/* javaRegExp: "Class.method" of "pkg.Class.method(...)"; NULL: no match. */
static const char *java_short(const char *s, size_t *len)
{
	const char *p = s, *q, *m;

	while (is_lower(*p)) {
		q = p + 1;
		while (is_w(*q))
			q++;
		if (*q != '.')
			break;
		p = q + 1;
	}
	if (!is_upper(*p))
		return NULL;
	for (q = p + 1; is_w(*q) || *q == '$'; q++)
		;
	if (*q != '.')
		return NULL;
	m = q + 1;
	if (!strncmp(m, "<init>", 6) && (m[6] == '\0' || m[6] == '(')) {
		m += 6;
	} else if (is_lower(*m)) {
		for (m++; is_w(*m) || *m == '$'; m++)
			;
	} else {
		return NULL;
	}
	if (*m && *m != '(')
		return NULL;
	*len = (size_t)(m - p);
	return p;
}

/* cppRegExp at p: "Class::method<...>" (its length), else 0. */
static size_t cpp_at(const char *p)
{
	const char *q = p, *gt = NULL;

	while (*q == '_')
		q++;
	if (!is_upper(*q))
		return 0;
	while (is_w(*q))
		q++;
	if (q[0] != ':' || q[1] != ':')
		return 0;
	q += 2;
	if (*q == '~')
		q++;
	if (!(is_w(*q) && !(*q >= '0' && *q <= '9')))
		return 0;
	while (is_w(*q))
		q++;
	if (*q == '<')
		for (const char *r = q; *r && *r != '\n'; r++)
			if (*r == '>')
				gt = r;
	return (size_t)((gt ? gt + 1 : q) - p);
}

/* cppRegExp: the last "Class::method" after leading "ns::" segments; NULL: none. */
static const char *cpp_short(const char *s, size_t *len)
{
	const char *at[256];
	size_t n = 0;

	for (const char *p = s; n < 256;) {
		const char *q = p;

		if (!(is_w(*q) && !(*q >= '0' && *q <= '9')))
			break;
		while (is_w(*q))
			q++;
		if (q[0] != ':' || q[1] != ':')
			break;
		p = q + 2;
		at[n++] = p;
	}
	while (n-- > 0)
		if ((*len = cpp_at(at[n])))
			return at[n];
	return NULL;
}

/*
 * pprof's multiline name of a function: ShortenFunctionName, escaped for
 * DOT, "::" and "." breaking lines ("[...]" kept as "[…]"); appended.
 */
static void dot_fn_name(char *b, size_t sz, size_t *n, const char *name)
{
	char s[NAME_MAX_DOT], e[NAME_MAX_DOT];
	const char *r;
	size_t len, en = 0;

	if (!strncmp(name, "(anonymous namespace)::", 23))
		name += 23;
	snprintf(s, sizeof(s), "%s", name);
	drop_go_version(s);
	r = go_short(s, &len);
	if (!r)
		r = java_short(s, &len);
	if (!r)
		r = cpp_short(s, &len);
	if (!r) {
		r = s;
		len = strlen(s);
	}
	psym_rpt_dot_esc(e, sizeof(e), &en, r, len);
	for (size_t i = 0; i < en && *n + 4 < sz; i++) {
		if (e[i] == ':' && e[i + 1] == ':') {
			b[(*n)++] = '\\';
			b[(*n)++] = 'n';
			i++;
		} else if (!strncmp(e + i, "[...]", 5) && *n + 6 < sz) {
			memcpy(b + *n, "[\xe2\x80\xa6]", 5);
			*n += 5;
			i += 4;
		} else if (e[i] == '.') {
			b[(*n)++] = '\\';
			b[(*n)++] = 'n';
		} else {
			b[(*n)++] = e[i];
		}
	}
	b[*n] = '\0';
}

/* Go's filepath.Base of a cleaned path. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* pprof's multilinePrintableName of node id (NameComponents joined by "\n"). */
static void node_label(const struct psym_rpt_vgraph *d, uint32_t id, char *b, size_t sz)
{
	const struct rep *r = &d->g.r;
	const struct psym_profile *p = r->p;
	const pb_location *loc;
	const pb_line *ln;
	const pb_mapping *m;
	const char *obj, *name, *file;
	const pb_function *f;
	int64_t line;
	char cfile[4096];
	size_t n = 0;

	if (d->rep_pos[id] == UINT32_MAX) {
		/* Not seen in any location (cannot happen): its printable name. */
		psym_rpt_dot_esc(b, sz - 2, &n, r->names.s[id], name_len(r->names.s[id]));
		snprintf(b + n, sz - n, "\\n");
		return;
	}
	loc = p->pb->location[d->rep_pos[id]];
	ln = d->rep_line[id] != UINT32_MAX ? loc->line[d->rep_line[id]] : NULL;
	m = psym_profile_mapping(p, loc->mapping_id);
	obj = m ? psym_profile_str(p, m->filename) : "";
	f = ln ? psym_profile_function(p, ln->function_id) : NULL;
	name = f && r->by != PSYM_BY_FILE ? psym_profile_str(p, f->name) : "";
	file = f && r->by != PSYM_BY_FUNCTION ? psym_profile_str(p, f->filename) : "";
	line = ln && (r->by == PSYM_BY_LINE || r->by == PSYM_BY_ADDRESS) ? ln->line : 0;
	cfile[0] = '\0';
	if (*file)
		psym_rpt_clean_path(cfile, sizeof(cfile), file);
	b[0] = '\0';
	if (r->by == PSYM_BY_ADDRESS && loc->address)
		n = (size_t)snprintf(b, sz, "%016" PRIx64 "\\n", loc->address);
	if (*name) {
		dot_fn_name(b, sz - 2, &n, name);
		n += (size_t)snprintf(b + n, sz - n, "\\n");
	}
	if (n >= sz)
		n = sz - 1;
	if (line)
		snprintf(b + n, sz - n, "%s:%" PRId64 "\\n", base_name(cfile), line);
	else if (*cfile)
		snprintf(b + n, sz - n, "%s\\n", base_name(cfile));
	else if (!*name)
		snprintf(b + n, sz - n, *obj ? "[%s]\\n" : "<unknown>\\n", base_name(obj));
}

/* ---- DOT ---------------------------------------------------------------------- */

/* pprof's dotColor: score -1 (green) .. 0 (grey) .. 1 (red); bg: light. */
static void dot_color(char *buf, size_t sz, double score, bool bg)
{
	double sat = bg ? 0.1 : 1.0, val = bg ? 0.93 : 0.7, r, g, b;

	if (isnan(score))
		score = 0;
	score = score > 1.0 ? 1.0 : score < -1.0 ? -1.0 : score;
	if (fabs(score) < 0.2)
		sat *= fabs(score) / 0.2;
	/* Go's constant 1.0 - 0.7 is exactly 0.3. */
	if (score > 0.0)
		score = pow(score, 0.3);
	if (score < 0.0)
		score = -pow(-score, 0.3);
	if (score < 0.0) {
		g = val;
		r = val * (1 + sat * score);
	} else {
		r = val;
		g = val * (1 - sat * score);
	}
	b = val * (1 - sat);
	snprintf(buf, sz, "#%02x%02x%02x", (unsigned)(uint8_t)(r * 255.0),
		 (unsigned)(uint8_t)(g * 255.0), (unsigned)(uint8_t)(b * 255.0));
}

static void fmt_value(const struct psym_rpt_vgraph *d, char *buf, size_t sz, int64_t v)
{
	psym_rpt_scaled_label(buf, sz, v, d->unit, d->ounit);
}

static void fmt_pct(char *buf, size_t sz, int64_t v, int64_t total)
{
	char t[32];

	psym_rpt_percentage(t, sizeof(t), v, total);
	snprintf(buf, sz, "%s", t + strspn(t, " "));
}

/* The legend: the report's labels (pprof's reportLabels, full headers). */
static int legend(FILE *out, const struct psym_rpt_vgraph *d, const struct psym_report_opts *o,
		  const char *title)
{
	const struct psym_rpt_graph *g = &d->g;
	char *hdr = NULL, a[64], b[64], pa[32], *line, esc[NAME_MAX_DOT];
	size_t hn = 0, en = 0;
	int64_t flat = 0;
	FILE *m = open_memstream(&hdr, &hn);

	if (!m)
		return -1;
	psym_rpt_profile_labels(m, g->r.p, g->r.idx, g->total, d->ounit);
	psym_rpt_active_filters(m, &o->filter);
	for (size_t i = 0; i < g->n; i++)
		flat = sat_add(flat, g->nodes[g->order[i]].flat);
	fmt_value(d, a, sizeof(a), flat);
	fmt_value(d, b, sizeof(b), g->total);
	fmt_pct(pa, sizeof(pa), flat, g->total);
	fprintf(m, "Showing nodes accounting for %s, %s of %s total\n", a, pa, b);
	if (g->total) {
		if (g->dropped_nodes) {
			fmt_value(d, a, sizeof(a), g->node_cut);
			fprintf(m, "Dropped %zu node%s (cum <= %s)\n", g->dropped_nodes,
				g->dropped_nodes > 1 ? "s" : "", a);
		}
		if (d->dropped_edges) {
			fmt_value(d, a, sizeof(a),
				  abs64((int64_t)((double)g->total * o->edge_fraction)));
			fprintf(m, "Dropped %zu edge%s (freq <= %s)\n", d->dropped_edges,
				d->dropped_edges > 1 ? "s" : "", a);
		}
		if (g->n && g->n < g->orig)
			fprintf(m, "Showing top %zu nodes out of %zu\n", g->n, g->orig);
	}
	fprintf(m, "\nSee https://git.io/JfYMW for how to read the graph\n");
	if (fclose(m))
		return -1;
	/* The first label names the legend's node. */
	line = hdr;
	psym_rpt_dot_esc(esc, sizeof(esc), &en, line, strcspn(line, "\n"));
	fprintf(out, "subgraph cluster_L { \"%s\" [shape=box fontsize=16 label=\"", esc);
	while (*line) {
		size_t ll = strcspn(line, "\n");

		en = 0;
		psym_rpt_dot_esc(esc, sizeof(esc), &en, line, ll);
		fprintf(out, "%s\\l", esc);
		line += ll + (line[ll] == '\n');
		/* The blank line before "See ..." is the escaped "\n" of that label. */
		if (*line == '\n') {
			fputs("\\l", out);
			line++;
		}
	}
	fputs("\"", out);
	if (*title) {
		en = 0;
		psym_rpt_dot_esc(esc, sizeof(esc), &en, title, strlen(title));
		fprintf(out, " tooltip=\"%s\"", esc);
	}
	fputs("] }\n", out);
	free(hdr);
	return 0;
}

/* One node: its name, flat and cum, sized by flat, coloured by cum. */
static void dot_node(FILE *out, const struct psym_rpt_vgraph *d, uint32_t id, size_t num,
		     double max_flat)
{
	const struct rpt_node *nd = &d->g.nodes[id];
	const char *key = d->g.r.names.s[id];
	char label[NAME_MAX_DOT], fv[64], cv[64], pct[32], tip[NAME_MAX_DOT], c1[16], c2[16];
	size_t tn = 0;
	int fs = 8;
	double score = (double)nd->cum / (double)abs64(d->g.total);

	node_label(d, id, label, sizeof(label));
	fmt_value(d, fv, sizeof(fv), nd->flat);
	if (nd->flat) {
		fmt_pct(pct, sizeof(pct), nd->flat, d->g.total);
		fprintf(out, "N%zu [label=\"%s%s (%s)", num, label, fv, pct);
	} else {
		fprintf(out, "N%zu [label=\"%s0", num, label);
	}
	snprintf(cv, sizeof(cv), "%s", fv);
	if (nd->cum != nd->flat) {
		fmt_value(d, cv, sizeof(cv), nd->cum);
		fmt_pct(pct, sizeof(pct), nd->cum, d->g.total);
		fprintf(out, "%sof %s (%s)", nd->flat ? "\\n" : " ", cv, pct);
	}
	if (max_flat != 0 && nd->flat && (double)abs64(nd->flat) <= max_flat)
		fs += (int)ceil(16.0 * sqrt((double)abs64(nd->flat) / max_flat));
	psym_rpt_dot_esc(tip, sizeof(tip), &tn, key, name_len(key));
	dot_color(c1, sizeof(c1), score, false);
	dot_color(c2, sizeof(c2), score, true);
	fprintf(out,
		"\" id=\"node%zu\" fontsize=%d shape=box tooltip=\"%s (%s)\" color=\"%s\" "
		"fillcolor=\"%s\"]\n",
		num, fs, tip, cv, c1, c2);
}

/* A tag as the nodelets see it. */
struct vtag {
	const char *name;
	int64_t flat, cum, value;
	uint32_t tn; /* its tag name */
};

/* pprof's SortTags order (flat: by flat only). */
static int cmp_vtag(const void *a, const void *b, void *ctx)
{
	const struct vtag *x = a, *y = b;
	bool flat = *(const bool *)ctx;

	if (!flat && x->cum != y->cum && abs64(x->cum) != abs64(y->cum))
		return abs64(x->cum) > abs64(y->cum) ? -1 : 1;
	if (x->flat != y->flat && abs64(x->flat) != abs64(y->flat))
		return abs64(x->flat) > abs64(y->flat) ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* pprof's tagDistance. */
static double tag_dist(const struct psym_rpt_vgraph *d, const struct vtag *t, const struct vtag *u)
{
	const char *un;
	double v = psym_rpt_scale(u->value, d->num_unit, d->num_unit, &un);

	return v < (double)t->value ? (double)t->value - v : v - (double)t->value;
}

/*
 * pprof's collapsedTags: more than MAX_NODELETS numeric tags fold into as
 * many groups around the heaviest, each named "min..max". ts is sorted.
 */
static size_t collapse_tags(const struct psym_rpt_vgraph *d, struct vtag *ts, size_t n, bool flat,
			    char names[MAX_NODELETS][160])
{
	struct vtag grp[MAX_NODELETS], lo[MAX_NODELETS], hi[MAX_NODELETS];
	size_t cnt[MAX_NODELETS];

	if (n <= MAX_NODELETS)
		return n;
	for (size_t i = 0; i < MAX_NODELETS; i++) {
		grp[i] = lo[i] = hi[i] = ts[i];
		cnt[i] = 1;
	}
	for (size_t k = MAX_NODELETS; k < n; k++) {
		size_t g = 0;
		double dist = tag_dist(d, &ts[k], &ts[0]);

		for (size_t i = 1; i < MAX_NODELETS; i++) {
			double nd = tag_dist(d, &ts[k], &ts[i]);

			if (nd < dist) {
				g = i;
				dist = nd;
			}
		}
		if (ts[k].value < lo[g].value)
			lo[g] = ts[k];
		if (ts[k].value > hi[g].value)
			hi[g] = ts[k];
		grp[g].flat = sat_add(grp[g].flat, ts[k].flat);
		grp[g].cum = sat_add(grp[g].cum, ts[k].cum);
		cnt[g]++;
	}
	for (size_t i = 0; i < MAX_NODELETS; i++) {
		char a[64], b[64];

		psym_report_value(a, sizeof(a), lo[i].value, d->num_unit);
		psym_report_value(b, sizeof(b), hi[i].value, d->num_unit);
		if (cnt[i] == 1)
			snprintf(names[i], sizeof(names[i]), "%s", a);
		else
			snprintf(names[i], sizeof(names[i]), "%s..%s", a, b);
		grp[i].name = names[i];
		ts[i] = grp[i];
	}
	qsort_r(ts, MAX_NODELETS, sizeof(*ts), cmp_vtag, &flat);
	return MAX_NODELETS;
}

/* The numeric nodelets of src (its tags ts); whether any was written. */
static bool numeric_nodelets(FILE *out, const struct psym_rpt_vgraph *d, struct vtag *ts, size_t n,
			     bool flat, const char *src)
{
	char names[MAX_NODELETS][160];
	bool any = false;

	qsort_r(ts, n, sizeof(*ts), cmp_vtag, &flat);
	n = collapse_tags(d, ts, n, flat, names);
	for (size_t j = 0; j < n; j++) {
		int64_t w = ts[j].cum;
		const char *attr = " style=\"dotted\"";
		char wv[64];

		if (flat || ts[j].flat == ts[j].cum) {
			w = ts[j].flat;
			attr = "";
		}
		if (!w)
			continue;
		fmt_value(d, wv, sizeof(wv), w);
		fprintf(out,
			"N%s_%zu [label = \"%s\" id=\"N%s_%zu\" fontsize=8 shape=box3d "
			"tooltip=\"%s\"]\n",
			src, j, ts[j].name, src, j, wv);
		fprintf(out,
			"%s -> N%s_%zu [label=\" %s\" weight=100 tooltip=\"%s\" "
			"labeltooltip=\"%s\"%s]\n",
			src, src, j, wv, wv, wv, attr);
		any = true;
	}
	return any;
}

/* The numeric tags of ts[0..n) under labels lab (0: none) into sel; their count. */
static size_t numeric_of(const struct psym_rpt_vgraph *d, const struct vtag *ts, size_t n,
			 uint32_t lab, struct vtag *sel)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (d->tm[ts[i].tn].num && d->tm[ts[i].tn].lab == lab)
			sel[k++] = ts[i];
	return k;
}

/* pprof's addNodelets: node num's tags ts[0..n) (scratch: n more); any written. */
static bool nodelets(FILE *out, const struct psym_rpt_vgraph *d, size_t num, struct vtag *ts,
		     size_t n, bool flat, struct vtag *scratch)
{
	struct vtag lab[MAX_NODELETS];
	size_t nl = 0, nall = 0;
	bool any = false;
	char src[48];

	/* The labels tags first: the heaviest MAX_NODELETS. */
	for (size_t i = 0; i < n; i++)
		if (!d->tm[ts[i].tn].num)
			scratch[nall++] = ts[i];
	if (nall)
		qsort_r(scratch, nall, sizeof(*scratch), cmp_vtag, &flat);
	nl = nall < MAX_NODELETS ? nall : MAX_NODELETS;
	memcpy(lab, scratch, nl * sizeof(*lab));
	for (size_t i = 0; i < nl; i++) {
		int64_t w = flat ? lab[i].flat : lab[i].cum;
		char wv[64];
		size_t k;

		if (!w)
			continue;
		fmt_value(d, wv, sizeof(wv), w);
		fprintf(out,
			"N%zu_%zu [label = \"%s\" id=\"N%zu_%zu\" fontsize=8 shape=box3d "
			"tooltip=\"%s\"]\n",
			num, i, lab[i].name, num, i, wv);
		fprintf(out,
			"N%zu -> N%zu_%zu [label=\" %s\" weight=100 tooltip=\"%s\" "
			"labeltooltip=\"%s\"]\n",
			num, num, i, wv, wv, wv);
		any = true;
		k = numeric_of(d, ts, n, lab[i].tn + 1, scratch);
		snprintf(src, sizeof(src), "N%zu_%zu", num, i);
		if (k)
			numeric_nodelets(out, d, scratch, k, flat, src);
	}
	snprintf(src, sizeof(src), "N%zu", num);
	nall = numeric_of(d, ts, n, 0, scratch);
	if (nall && numeric_nodelets(out, d, scratch, nall, flat, src))
		any = true;
	return any;
}

/* Node id's live tags into ts (at most cap); their count. */
static size_t node_tags(const struct psym_rpt_vgraph *d, const size_t *at, const uint32_t *slot,
			uint32_t id, struct vtag *ts)
{
	size_t n = 0;

	for (size_t k = at[id]; k < at[id + 1]; k++) {
		const struct dtag *t = &d->tags.e[slot[k]];
		uint32_t tn = (uint32_t)t->key - 1;
		const char *s = d->tn.s[tn];

		ts[n++] = (struct vtag){ .name = d->tm[tn].num ? strchr(s, '\x1f') + 1 : s + 1,
					 .flat = t->flat,
					 .cum = t->cum,
					 .value = d->tm[tn].value,
					 .tn = tn };
	}
	return n;
}

/* The live tags' slots grouped by node: slot[at[id]..at[id + 1]). */
static int group_tags(const struct psym_rpt_vgraph *d, size_t **at_out, uint32_t **slot_out,
		      size_t *maxn)
{
	size_t nn = d->g.r.names.n, *at = calloc(nn + 2, sizeof(*at)), *fill;
	uint32_t *slot;

	if (!at)
		return -1;
	for (size_t j = 0; j < d->tags.slots; j++)
		if (d->tags.e[j].key && !d->tags.e[j].gone)
			at[(d->tags.e[j].key >> 32) - 1 + 1]++;
	*maxn = 0;
	for (size_t i = 0; i < nn; i++) {
		if (at[i + 1] > *maxn)
			*maxn = at[i + 1];
		at[i + 1] += at[i];
	}
	slot = malloc((at[nn] ? at[nn] : 1) * sizeof(*slot));
	fill = calloc(nn + 1, sizeof(*fill));
	if (!slot || !fill) {
		free(at);
		free(slot);
		free(fill);
		return -1;
	}
	for (size_t j = 0; j < d->tags.slots; j++) {
		size_t id = (d->tags.e[j].key >> 32) - 1;

		if (d->tags.e[j].key && !d->tags.e[j].gone)
			slot[at[id] + fill[id]++] = (uint32_t)j;
	}
	free(fill);
	*at_out = at;
	*slot_out = slot;
	return 0;
}

/* One call: its value, share of the total as weight, width and colour. */
static void dot_edge(FILE *out, const struct psym_rpt_vgraph *d, const struct rpt_edge *ed,
		     size_t from, size_t to, bool minlen)
{
	const char *const *s = (const char *const *)d->g.r.names.s;
	const char *sk = s[(ed->key >> 32) - 1], *dk = s[(uint32_t)ed->key - 1];
	int64_t total = d->g.total;
	char w[64], tip[2 * NAME_MAX_DOT + 128], c[16];
	size_t tn = 0;

	fmt_value(d, w, sizeof(w), ed->w);
	fprintf(out, "N%zu -> N%zu [label=\" %s%s\"", from, to, w, ed->inl ? "\\n (inline)" : "");
	if (total) {
		/* pprof's integer arithmetic, without its overflow. */
		int64_t pw = abs64(ed->w) > INT64_MAX / 100 ? 100 : abs64(ed->w * 100 / total);
		int64_t px = abs64(ed->w) > INT64_MAX / 5 ? 5 : abs64(ed->w * 5 / total);

		if (1 + (pw < 100 ? pw : 100) > 1)
			fprintf(out, " weight=%d", 1 + (int)(pw < 100 ? pw : 100));
		if (1 + (px < 5 ? px : 5) > 1)
			fprintf(out, " penwidth=%d", 1 + (int)(px < 5 ? px : 5));
		dot_color(c, sizeof(c), (double)ed->w / (double)abs64(total), false);
		fprintf(out, " color=\"%s\"", c);
	}
	psym_rpt_dot_esc(tip, sizeof(tip), &tn, sk, name_len(sk));
	tn += (size_t)snprintf(tip + tn, sizeof(tip) - tn, " %s ", ed->residual ? "..." : "->");
	psym_rpt_dot_esc(tip, sizeof(tip) - 80, &tn, dk, name_len(dk));
	snprintf(tip + tn, sizeof(tip) - tn, " (%s)", w);
	fprintf(out, " tooltip=\"%s\" labeltooltip=\"%s\"%s%s]\n", tip, tip,
		ed->residual ? " style=\"dotted\"" : "", minlen ? " minlen=2" : "");
}

/* Nodes (each with its nodelets), then every call, heaviest first. */
static int dot_body(FILE *out, struct psym_rpt_vgraph *d)
{
	struct psym_rpt_graph *g = &d->g;
	size_t nn = g->r.names.n ? g->r.names.n : 1, *tat = NULL, maxt = 0, ne = 0;
	uint32_t *num = calloc(nn, sizeof(*num)), *tslot = NULL, *edges = NULL;
	unsigned char *has = calloc(nn, 1);
	struct vtag *ts = NULL;
	double max_flat = 0;
	int ret = -1;

	if (!num || !has || group_tags(d, &tat, &tslot, &maxt))
		goto out;
	ts = malloc((2 * maxt + 1) * sizeof(*ts));
	edges = malloc((g->et.n ? g->et.n : 1) * sizeof(*edges));
	if (!ts || !edges)
		goto out;
	for (size_t i = 0; i < g->n; i++) {
		num[g->order[i]] = (uint32_t)(i + 1);
		if ((double)abs64(g->nodes[g->order[i]].flat) > max_flat)
			max_flat = (double)abs64(g->nodes[g->order[i]].flat);
	}
	for (size_t i = 0; i < g->n && !ferror(out); i++) {
		uint32_t id = g->order[i];
		size_t n = node_tags(d, tat, tslot, id, ts);
		bool flat = false;

		for (size_t k = g->out_at[id]; k < g->out_at[id + 1]; k++)
			flat |= !g->et.e[g->out[k]].gone;
		dot_node(out, d, id, i + 1, max_flat);
		has[id] = nodelets(out, d, i + 1, ts, n, flat, ts + n);
	}
	for (size_t j = 0; j < g->et.slots; j++)
		if (g->et.e[j].key && !g->et.e[j].gone)
			edges[ne++] = (uint32_t)j;
	if (ne)
		qsort_r(edges, ne, sizeof(*edges), psym_rpt_cmp_edge, g);
	for (size_t j = 0; j < ne && !ferror(out); j++) {
		const struct rpt_edge *ed = &g->et.e[edges[j]];
		uint32_t f = (uint32_t)(ed->key >> 32) - 1;

		dot_edge(out, d, ed, num[f], num[(uint32_t)ed->key - 1], has[f]);
	}
	ret = 0;
out:
	free(num);
	free(has);
	free(tat);
	free(tslot);
	free(ts);
	free(edges);
	return ret;
}

int psym_report_dot(const struct psym_profile *p, const struct psym_report_opts *o,
		    const char *title, FILE *out, struct psym_err *e)
{
	struct psym_rpt_vgraph d;
	char esc[NAME_MAX_DOT];
	size_t en = 0;
	int ret = psym_rpt_vgraph_new(p, o, &d, e);

	if (ret)
		goto out;
	/* pprof names the graph after the main binary. */
	if (!title && p->pb->n_mapping) {
		const char *f = psym_profile_str(p, p->pb->mapping[0]->filename);
		const char *b = strrchr(f, '/');

		title = b && b[1] ? b + 1 : f;
	}
	psym_rpt_dot_esc(esc, sizeof(esc), &en, title ? title : "", title ? strlen(title) : 0);
	fprintf(out, "digraph \"%s\" {\nnode [style=filled fillcolor=\"#f8f8f8\"]\n",
		*esc ? esc : "unnamed");
	if (legend(out, &d, o, esc[0] ? title : "") || dot_body(out, &d)) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	fputs("}\n", out);
	ret = ferror(out) ? psym_err_set(e, PSYM_EIO, "cannot write the graph") : 0;
out:
	psym_rpt_vgraph_free(&d);
	return ret;
}
