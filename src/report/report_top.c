/* SPDX-License-Identifier: MIT */
/* psym top: pprof -top's table, from the report tree. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_int.h"

/* ---- top -------------------------------------------------------------------- */

/*
 * Where each node occurs in its locations: OCC_INL as an inlined frame (not
 * the location's last line), OCC_CALL as the last line. Only a node that
 * occurs both ways needs its in-edges counted one by one; the others are
 * marked directly (all their in-edges inline, or none).
 */
enum {
	OCC_INL = 1,
	OCC_CALL = 2
};

struct edges {
	struct rpt_etab t;
	const unsigned char *occ; /* per node id */
	struct rpt_node *nodes;
};

/* One call parent -> id in sample i (pprof's AddToEdgeDiv); -1: no memory. */
static int edge_count(struct edges *edges, uint32_t parent, uint32_t id, bool inl, size_t i)
{
	struct rpt_edge *ed;

	if (parent == UINT32_MAX || parent == id)
		return 0;
	if (edges->occ[id] != (OCC_INL | OCC_CALL)) {
		if (inl)
			edges->nodes[id].inl = true;
		else
			edges->nodes[id].noinl = true;
		return 0;
	}
	ed = psym_rpt_edge_get(&edges->t, parent, id);
	if (!ed)
		return -1;
	if (ed->stamp != i + 1) {
		ed->stamp = i + 1;
		if (!inl)
			ed->inl = false;
	}
	return 0;
}

/* Each node's inl/noinl from its in-edges (those the edge cut left). */
static void edges_mark(const struct rpt_etab *t, struct rpt_node *nodes)
{
	for (size_t j = 0; j < t->slots; j++) {
		struct rpt_node *callee;

		if (!t->e[j].key || t->e[j].gone)
			continue;
		callee = &nodes[(uint32_t)t->e[j].key - 1];
		if (t->e[j].inl)
			callee->inl = true;
		else
			callee->noinl = true;
	}
}

/*
 * The spans and frames of a sample's locations lie far apart in memory: ask
 * for the spans, then (once they are here) for the frames, before the walk.
 */
static void prefetch_frames(const struct rep *r, const pb_sample *s)
{
	size_t n = s->n_location_id < 64 ? s->n_location_id : 64;
	long pos[64];

	for (size_t i = 0; i < n; i++) {
		pos[i] = psym_profile_location_pos(r->p, s->location_id[i]);
		if (pos[i] >= 0)
			__builtin_prefetch(&r->loc[pos[i]]);
	}
	for (size_t i = 0; i < n; i++)
		if (pos[i] >= 0 && r->frames && r->loc[pos[i]].first != UINT32_MAX)
			__builtin_prefetch(r->frames + r->loc[pos[i]].first);
}

/* pprof's rows of -top: flat, flat%, sum%, cum, cum%, the name and its inline mark. */
static void print_rows(FILE *out, const struct names *names, const struct rpt_node *nodes,
		       const uint32_t *rows, size_t shown, int64_t total, const char *unit,
		       const char *ounit)
{
	int64_t sum = 0;
	char a[64], b[64], pa[32], pb[32], pc[32];

	fprintf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	for (size_t i = 0; i < shown && !ferror(out); i++) {
		const struct rpt_node *nd = &nodes[rows[i]];
		const char *key = names->s[rows[i]];

		sum = sat_add(sum, nd->flat);
		psym_rpt_scaled_label(a, sizeof(a), nd->flat, unit, ounit);
		psym_rpt_scaled_label(b, sizeof(b), nd->cum, unit, ounit);
		psym_rpt_percentage(pa, sizeof(pa), nd->flat, total);
		psym_rpt_percentage(pb, sizeof(pb), sum, total);
		psym_rpt_percentage(pc, sizeof(pc), nd->cum, total);
		fprintf(out, "%10s %s %s %10s %s  %.*s%s\n", a, pa, pb, b, pc, (int)name_len(key),
			key, nd->inl ? (nd->noinl ? " (partial-inline)" : " (inline)") : "");
	}
}

/*
 * top with a node or edge fraction: pprof's trimmed graph, each row
 * marked inline by the in-edges that survived the edge cut.
 */
static int top_graph(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		     struct psym_err *e)
{
	struct psym_rpt_graph g;
	struct rpt_counts c;
	const char *unit, *ounit;
	int ret = psym_rpt_graph_new(p, o, &g, e);

	if (ret)
		goto out;
	edges_mark(&g.et, g.nodes);
	unit = psym_profile_str(p, p->pb->sample_type[g.r.idx]->unit);
	ounit = psym_rpt_output_unit(g.nodes, g.order, g.n, g.total, unit);
	c = psym_rpt_graph_counts(&g);
	psym_rpt_report_labels(out, p, g.r.idx, &o->filter, ounit, &c);
	print_rows(out, &g.r.names, g.nodes, g.order, g.n, g.total, unit, ounit);
out:
	psym_rpt_graph_free(&g);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}

int psym_report_top(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		    struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	struct rep r;
	struct rpt_node *nodes = NULL;
	struct edges edges = { 0 };
	uint32_t *rows = NULL;
	unsigned char *occ = NULL;
	size_t ncap = 0, nrows = 0, shown;
	int64_t total = 0;
	const char *unit, *ounit = NULL;
	int ret;

	/* Trimmed: pprof rebuilds the graph from the rows it keeps. */
	if (o->node_fraction > 0 || o->edge_fraction > 0 || o->max_rows)
		return top_graph(p, o, out, e);
	ret = psym_rpt_init(&r, p, o, true, e);
	if (ret)
		goto out;
	unit = psym_profile_str(p, pb->sample_type[r.idx]->unit);
	/* Every location's frames first: how each node occurs (struct edges). */
	for (size_t pos = 0; pos < pb->n_location; pos++) {
		const uint32_t *f;

		if (psym_rpt_loc_frames(&r, pos, &f) < 0)
			goto oom;
	}
	occ = calloc(r.names.n ? r.names.n : 1, 1);
	if (!occ)
		goto oom;
	for (size_t pos = 0; pos < pb->n_location; pos++) {
		const uint32_t *f;
		long nf = psym_rpt_loc_frames(&r, pos, &f);

		for (long ni = 0; ni < nf; ni++)
			occ[f[ni]] |= ni == nf - 1 ? OCC_CALL : OCC_INL;
	}
	edges.occ = occ;
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		int64_t v = s->value[r.idx];
		uint32_t parent = UINT32_MAX;

		if (v == 0)
			continue; /* pprof: a zero sample adds no node and no edge */
		/* pprof filters after its total: percentages stay of the whole. */
		switch (psym_rpt_sample_kept(&r, s)) {
		case 0: continue;
		case 1: break;
		default: goto oom;
		}
		/*
		 * Root to leaf as pprof walks it: a node counts once per sample in
		 * cum (recursion). The leaf (innermost frame of the first
		 * location) gets the flat value.
		 */
		prefetch_frames(&r, s);
		for (size_t li = s->n_location_id; li-- > 0;) {
			long pos = psym_profile_location_pos(p, s->location_id[li]);
			const uint32_t *f;
			long nf;

			if (pos < 0)
				continue;
			nf = psym_rpt_loc_frames(&r, (size_t)pos, &f);
			if (nf < 0)
				goto oom;
			if (r.names.n > ncap) {
				size_t nc = r.names.cap;
				struct rpt_node *nn = realloc(nodes, nc * sizeof(*nn));

				if (!nn)
					goto oom;
				nodes = nn;
				memset(nodes + ncap, 0, (nc - ncap) * sizeof(*nodes));
				ncap = nc;
				edges.nodes = nodes;
			}
			for (long ni = nf; ni-- > 0;) {
				uint32_t id = f[ni];

				if (nodes[id].stamp != i + 1) {
					nodes[id].stamp = i + 1;
					nodes[id].cum = sat_add(nodes[id].cum, v);
				}
				/* All rows shown: the edges of this same walk mark them. */
				if (edge_count(&edges, parent, id, ni != nf - 1, i))
					goto oom;
				parent = id;
			}
		}
		if (parent != UINT32_MAX)
			nodes[parent].flat = sat_add(nodes[parent].flat, v);
	}
	/* pprof: with a diff base, percentages are of the base's total. */
	total = psym_rpt_total(p, r.idx);
	rows = malloc((r.names.n ? r.names.n : 1) * sizeof(*rows));
	if (!rows)
		goto oom;
	for (size_t j = 0; j < r.names.n && j < ncap; j++)
		if (nodes[j].flat || nodes[j].cum)
			rows[nrows++] = (uint32_t)j;
	if (nrows) {
		struct rpt_node_order c = { &r.names, nodes, o->sort_cum };

		qsort_r(rows, nrows, sizeof(*rows), psym_rpt_cmp_node, &c);
	}
	shown = nrows;
	/* pprof marks inline nodes by their in-edges: all rows, the edges of the walk. */
	edges_mark(&edges.t, nodes);
	ounit = psym_rpt_output_unit(nodes, rows, shown, total, unit);
	{
		struct rpt_counts c = { .total = total, .shown = shown, .orig = nrows };

		for (size_t i = 0; i < shown; i++)
			c.flat_sum = sat_add(c.flat_sum, nodes[rows[i]].flat);
		psym_rpt_report_labels(out, p, r.idx, &o->filter, ounit, &c);
	}
	print_rows(out, &r.names, nodes, rows, shown, total, unit, ounit);
	goto out;
oom:
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
out:
	free(occ);
	free(rows);
	free(nodes);
	free(edges.t.e);
	psym_rpt_free(&r);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
