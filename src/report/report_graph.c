/* SPDX-License-Identifier: MIT */
/*
 * pprof's call graph (graph.New) and its trimming (newTrimmedGraph) for
 * the text views built on it: top with fractions, tree and peek. Nodes
 * are the report's exact keys (report.c); an edge joins a caller to a
 * callee, weighted once per sample, inline when every call it counts is
 * from an outer line of the same location, residual when it stands for a
 * path through nodes left out of the graph.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static uint64_t hkey(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/* The key of element i of elem bytes at base. */
static uint64_t key_at(const void *base, size_t elem, size_t i)
{
	uint64_t k;

	memcpy(&k, (const char *)base + i * elem, sizeof(k));
	return k;
}

void *psym_rpt_pair_get(void **e, size_t *n, size_t *slots, size_t elem, size_t first, uint32_t a,
			uint32_t b, bool *fresh)
{
	uint64_t key = ((uint64_t)a + 1) << 32 | ((uint64_t)b + 1);
	size_t j, k;
	char *t;

	*fresh = false;
	if ((*n + 1) * 2 > *slots) {
		size_t ns = *slots ? *slots * 2 : first;
		char *ne = calloc(ns, elem);

		if (!ne)
			return NULL;
		for (size_t i = 0; i < *slots; i++) {
			if (!(k = key_at(*e, elem, i)))
				continue;
			for (j = hkey(k) & (ns - 1); key_at(ne, elem, j); j = (j + 1) & (ns - 1))
				;
			memcpy(ne + j * elem, (char *)*e + i * elem, elem);
		}
		free(*e);
		*e = ne;
		*slots = ns;
	}
	t = *e;
	for (j = hkey(key) & (*slots - 1); (k = key_at(t, elem, j)); j = (j + 1) & (*slots - 1))
		if (k == key)
			return t + j * elem;
	memcpy(t + j * elem, &key, sizeof(key));
	++*n;
	*fresh = true;
	return t + j * elem;
}

struct rpt_edge *psym_rpt_edge_get(struct rpt_etab *t, uint32_t from, uint32_t to)
{
	bool fresh;
	struct rpt_edge *x = psym_rpt_pair_get((void **)&t->e, &t->n, &t->slots, sizeof(*t->e),
					       4096, from, to, &fresh);

	if (fresh)
		x->inl = true;
	return x;
}

/* pprof's FlatNameOrder / CumNameOrder (ties: the printable name, the other value, the key). */
int psym_rpt_cmp_node(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct rpt_node_order *c = ctx;
	const struct rpt_node *nx = &c->nodes[x], *ny = &c->nodes[y];
	int64_t kx = abs64(c->by_cum ? nx->cum : nx->flat),
		ky = abs64(c->by_cum ? ny->cum : ny->flat);
	int r;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	{
		/* Printable names first, as pprof sorts: keys can differ after them. */
		const char *sx = c->names->s[x], *sy = c->names->s[y];
		size_t lx = name_len(sx), ly = name_len(sy);

		r = memcmp(sx, sy, lx < ly ? lx : ly);
		if (r || lx != ly)
			return r ? r : (lx < ly ? -1 : 1);
	}
	kx = abs64(c->by_cum ? nx->flat : nx->cum);
	ky = abs64(c->by_cum ? ny->flat : ny->cum);
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(c->names->s[x], c->names->s[y]);
}

/* pprof's selectOutputUnit: one unit for the report, from the smallest value shown. */
const char *psym_rpt_output_unit(const struct rpt_node *nodes, const uint32_t *rows, size_t n,
				 int64_t total, const char *unit)
{
	int64_t minv = 0, maxv = total;
	const char *minu, *maxu, *ounit;

	for (size_t i = 0; i < n; i++) {
		int64_t m = abs64(nodes[rows[i]].flat);

		if (!m)
			m = abs64(nodes[rows[i]].cum);
		if (m && (!minv || m < minv))
			minv = m;
	}
	if (!minv)
		minv = maxv;
	psym_rpt_scale(minv, unit, "minimum", &minu);
	psym_rpt_scale(maxv, unit, "minimum", &maxu);
	ounit = minu;
	if (strcmp(minu, maxu) && minv <= INT64_MAX / 100 && minv * 100 < maxv)
		psym_rpt_scale(minv * 100, unit, "minimum", &ounit);
	return *ounit ? ounit : unit;
}

/*
 * pprof's newGraph: nodes and edges of the kept samples, only the nodes
 * with kept[id] set (NULL: all). Leaves g->order the nodes with a value.
 */
int psym_rpt_graph_build(struct psym_rpt_graph *g, const unsigned char *kept)
{
	struct rep *r = &g->r;
	const pb_profile *pb = r->p->pb;

	memset(g->nodes, 0, r->names.n * sizeof(*g->nodes));
	free(g->et.e);
	memset(&g->et, 0, sizeof(g->et));
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		int64_t v = s->value[r->idx];
		uint32_t parent = UINT32_MAX;
		bool residual = false;

		if (v == 0)
			continue;
		switch (psym_rpt_sample_kept(r, s)) {
		case 0: continue;
		case 1: break;
		default: return -1;
		}
		for (size_t li = s->n_location_id; li-- > 0;) {
			long pos = psym_rpt_loc_pos(r->p, s->location_id[li]);
			const uint32_t *f;
			long nf;

			if (pos < 0)
				continue;
			nf = psym_rpt_loc_frames(r, (size_t)pos, &f);
			if (nf < 0)
				return -1;
			for (long ni = nf; ni-- > 0;) {
				uint32_t id = f[ni];
				struct rpt_node *n = &g->nodes[id];

				if (kept && !kept[id]) {
					residual = true;
					continue;
				}
				if (n->stamp != i + 1) {
					n->stamp = i + 1;
					n->cum = sat_add(n->cum, v);
				}
				if (parent != UINT32_MAX && parent != id) {
					struct rpt_edge *ed = psym_rpt_edge_get(&g->et, parent, id);

					if (!ed)
						return -1;
					if (ed->stamp != i + 1) {
						ed->stamp = i + 1;
						ed->w = sat_add(ed->w, v);
						ed->residual |= residual;
						if (ni == nf - 1)
							ed->inl = false;
					}
				}
				parent = id;
				residual = false;
			}
		}
		if (parent != UINT32_MAX && !residual)
			g->nodes[parent].flat = sat_add(g->nodes[parent].flat, v);
	}
	g->n = 0;
	for (size_t id = 0; id < r->names.n; id++)
		if (g->nodes[id].flat || g->nodes[id].cum)
			g->order[g->n++] = (uint32_t)id;
	return 0;
}

static void graph_sort(struct psym_rpt_graph *g, bool by_cum)
{
	struct rpt_node_order c = { &g->r.names, g->nodes, by_cum };

	if (g->n)
		qsort_r(g->order, g->n, sizeof(*g->order), psym_rpt_cmp_node, &c);
}

/* pprof's TrimLowFrequencyEdges: edges lighter than cutoff go. */
static void trim_edges(struct psym_rpt_graph *g, int64_t cutoff)
{
	for (size_t j = 0; j < g->et.slots; j++) {
		struct rpt_edge *ed = &g->et.e[j];

		if (ed->key && abs64(ed->w) < cutoff)
			ed->gone = true;
	}
}

/* Rebuild with only the first (or cut-surviving) nodes; -1: no memory. */
static int rebuild_kept(struct psym_rpt_graph *g, unsigned char *kept, size_t n)
{
	memset(kept, 0, g->r.names.n ? g->r.names.n : 1);
	for (size_t i = 0; i < n; i++)
		kept[g->order[i]] = 1;
	return psym_rpt_graph_build(g, kept);
}

static int cmp_cum_desc(const void *a, const void *b, void *ctx)
{
	const struct rpt_node *nodes = ctx;
	int64_t x = abs64(nodes[*(const uint32_t *)a].cum),
		y = abs64(nodes[*(const uint32_t *)b].cum);

	return x > y ? -1 : x < y;
}

int psym_rpt_graph_init(const struct psym_profile *p, const struct psym_report_opts *o,
			bool objnames, struct psym_rpt_graph *g, struct psym_err *e)
{
	int ret;

	memset(g, 0, sizeof(*g));
	ret = psym_rpt_init(&g->r, p, o, true, e);
	if (ret)
		return ret;
	g->r.objnames = objnames;
	for (size_t pos = 0; pos < p->pb->n_location; pos++) {
		const uint32_t *f;

		if (psym_rpt_loc_frames(&g->r, pos, &f) < 0)
			goto oom;
	}
	g->nodes = calloc(g->r.names.n ? g->r.names.n : 1, sizeof(*g->nodes));
	g->order = malloc((g->r.names.n ? g->r.names.n : 1) * sizeof(*g->order));
	if (!g->nodes || !g->order)
		goto oom;
	return 0;
oom:
	return psym_err_set(e, PSYM_ENOMEM, "out of memory");
}

static int graph_new(const struct psym_profile *p, const struct psym_report_opts *o, bool objnames,
		     struct psym_rpt_graph *g, struct psym_err *e)
{
	unsigned char *kept = NULL;
	int64_t flat = 0, node_cut, edge_cut;
	int ret;

	ret = psym_rpt_graph_init(p, o, objnames, g, e);
	if (ret)
		return ret;
	kept = malloc(g->r.names.n ? g->r.names.n : 1);
	if (!kept || psym_rpt_graph_build(g, NULL))
		goto oom;
	g->total = psym_rpt_total(p, g->r.idx);
	for (size_t i = 0; i < g->n; i++)
		flat = sat_add(flat, g->nodes[g->order[i]].flat);
	node_cut = abs64((int64_t)((double)flat * o->node_fraction));
	edge_cut = abs64((int64_t)((double)flat * o->edge_fraction));
	if (node_cut > 0) {
		size_t n = 0;

		/* The nodes at or over the cut first, then keep those. */
		qsort_r(g->order, g->n, sizeof(*g->order), cmp_cum_desc, g->nodes);
		while (n < g->n && abs64(g->nodes[g->order[n]].cum) >= node_cut)
			n++;
		if (n != g->n) {
			g->dropped_nodes = g->n - n;
			if (rebuild_kept(g, kept, n))
				goto oom;
		}
	}
	g->orig = g->n;
	graph_sort(g, o->sort_cum);
	if (o->max_rows) {
		trim_edges(g, edge_cut);
		if (g->n > o->max_rows) {
			if (rebuild_kept(g, kept, o->max_rows))
				goto oom;
			graph_sort(g, o->sort_cum);
		}
	}
	trim_edges(g, edge_cut);
	g->node_cut = abs64((int64_t)((double)g->total * o->node_fraction));
	free(kept);
	return 0;
oom:
	free(kept);
	return psym_err_set(e, PSYM_ENOMEM, "out of memory");
}

int psym_rpt_graph_new(const struct psym_profile *p, const struct psym_report_opts *o,
		       struct psym_rpt_graph *g, struct psym_err *e)
{
	return graph_new(p, o, false, g, e);
}

int psym_rpt_graph_new_objnames(const struct psym_profile *p, const struct psym_report_opts *o,
				struct psym_rpt_graph *g, struct psym_err *e)
{
	return graph_new(p, o, true, g, e);
}

void psym_rpt_graph_free(struct psym_rpt_graph *g)
{
	free(g->nodes);
	free(g->order);
	free(g->et.e);
	free(g->in);
	free(g->out);
	free(g->in_at);
	free(g->out_at);
	psym_rpt_free(&g->r);
}

/* ---- edges by node, in pprof's edge order ------------------------------------ */

int psym_rpt_cmp_edge(const void *a, const void *b, void *ctx)
{
	const struct psym_rpt_graph *g = ctx;
	const struct rpt_edge *x = &g->et.e[*(const uint32_t *)a],
			      *y = &g->et.e[*(const uint32_t *)b];
	const char *const *s = (const char *const *)g->r.names.s;
	uint32_t xf = (uint32_t)(x->key >> 32) - 1, yf = (uint32_t)(y->key >> 32) - 1;
	uint32_t xt = (uint32_t)x->key - 1, yt = (uint32_t)y->key - 1;
	int r;

	if (abs64(x->w) != abs64(y->w))
		return abs64(x->w) > abs64(y->w) ? -1 : 1;
	r = strncmp(s[xf], s[yf],
		    name_len(s[xf]) > name_len(s[yf]) ? name_len(s[xf]) : name_len(s[yf]));
	if (r)
		return r;
	r = strncmp(s[xt], s[yt],
		    name_len(s[xt]) > name_len(s[yt]) ? name_len(s[xt]) : name_len(s[yt]));
	if (r)
		return r;
	r = strcmp(s[xf], s[yf]);
	return r ? r : strcmp(s[xt], s[yt]);
}

/* Slots of the live edges grouped by one end (by_to: the callee), each group sorted. */
static int group_edges(struct psym_rpt_graph *g, bool by_to, uint32_t **out, size_t **at)
{
	size_t nn = g->r.names.n, total = 0;
	size_t *start = calloc(nn + 1, sizeof(*start));
	uint32_t *list = NULL;

	if (!start)
		return -1;
	for (size_t j = 0; j < g->et.slots; j++) {
		const struct rpt_edge *ed = &g->et.e[j];

		if (ed->key && !ed->gone)
			start[(by_to ? (uint32_t)ed->key : (uint32_t)(ed->key >> 32)) - 1 + 1]++;
	}
	for (size_t i = 0; i < nn; i++)
		start[i + 1] += start[i];
	total = start[nn];
	list = malloc((total ? total : 1) * sizeof(*list));
	if (!list) {
		free(start);
		return -1;
	}
	{
		size_t *fill = calloc(nn + 1, sizeof(*fill));

		if (!fill) {
			free(start);
			free(list);
			return -1;
		}
		for (size_t j = 0; j < g->et.slots; j++) {
			const struct rpt_edge *ed = &g->et.e[j];
			uint32_t k;

			if (!ed->key || ed->gone)
				continue;
			k = (by_to ? (uint32_t)ed->key : (uint32_t)(ed->key >> 32)) - 1;
			list[start[k] + fill[k]++] = (uint32_t)j;
		}
		free(fill);
	}
	for (size_t i = 0; i < nn; i++)
		if (start[i + 1] - start[i] > 1)
			qsort_r(list + start[i], start[i + 1] - start[i], sizeof(*list),
				psym_rpt_cmp_edge, g);
	*out = list;
	*at = start;
	return 0;
}

int psym_rpt_graph_edges(struct psym_rpt_graph *g, struct psym_err *e)
{
	if (group_edges(g, true, &g->in, &g->in_at) || group_edges(g, false, &g->out, &g->out_at))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}

/* pprof's reportLabels: the profile's, filters, totals, what was left out. */
void psym_rpt_report_labels(FILE *out, const struct psym_profile *p, size_t idx,
			    const struct psym_report_filter *f, const char *ounit,
			    const struct rpt_counts *c)
{
	const char *unit = psym_profile_str(p, p->pb->sample_type[idx]->unit);
	char a[64], b[64], pa[32];

	psym_rpt_profile_labels(out, p, idx, c->total, ounit);
	psym_rpt_active_filters(out, f);
	psym_rpt_scaled_label(a, sizeof(a), c->flat_sum, unit, ounit);
	psym_rpt_scaled_label(b, sizeof(b), c->total, unit, ounit);
	psym_rpt_percentage(pa, sizeof(pa), c->flat_sum, c->total);
	fprintf(out, "Showing nodes accounting for %s, %s of %s total\n", a, pa + strspn(pa, " "),
		b);
	if (!c->total)
		return;
	if (c->dropped_nodes) {
		psym_rpt_scaled_label(a, sizeof(a), c->node_cut, unit, ounit);
		fprintf(out, "Dropped %zu node%s (cum <= %s)\n", c->dropped_nodes,
			c->dropped_nodes > 1 ? "s" : "", a);
	}
	if (c->shown && c->shown < c->orig)
		fprintf(out, "Showing top %zu nodes out of %zu\n", c->shown, c->orig);
}

/* The counts of a graph for its header. */
struct rpt_counts psym_rpt_graph_counts(const struct psym_rpt_graph *g)
{
	struct rpt_counts c = { .total = g->total,
				.node_cut = g->node_cut,
				.dropped_nodes = g->dropped_nodes,
				.shown = g->n,
				.orig = g->orig };

	for (size_t i = 0; i < g->n; i++)
		c.flat_sum = sat_add(c.flat_sum, g->nodes[g->order[i]].flat);
	return c;
}
