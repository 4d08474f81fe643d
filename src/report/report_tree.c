/* SPDX-License-Identifier: MIT */
/*
 * psym tree and psym peek: pprof's -tree text call graph, each node with its
 * callers above and its callees below, and -peek, the same for the nodes
 * whose name matches a regular expression, untrimmed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "rx.h"

#define TREE_SEP "----------------------------------------------------------+-------------"
#define TREE_LEGEND "      flat  flat%   sum%        cum   cum%   calls calls% + context \t \t "

/* One caller or callee line: its weight, share of the node's cum, name. */
static void edge_line(FILE *out, const struct psym_rpt_graph *g, const struct rpt_edge *ed,
		      uint32_t other, int64_t cum, const char *unit, const char *ounit)
{
	const char *key = g->r.names.s[other];
	char a[64], pa[32];

	psym_rpt_scaled_label(a, sizeof(a), ed->w, unit, ounit);
	psym_rpt_percentage(pa, sizeof(pa), ed->w, cum);
	fprintf(out, "%50s %s |   %.*s%s\n", a, pa, (int)name_len(key), key,
		ed->inl ? " (inline)" : "");
}

/* The tree's body. */
static void print_nodes(FILE *out, const struct psym_rpt_graph *g, struct psym_rx *rx,
			const char *ounit)
{
	const char *unit = psym_profile_str(g->r.p, g->r.p->pb->sample_type[g->r.idx]->unit);
	int64_t flat_sum = 0;

	for (size_t i = 0; i < g->n && !ferror(out); i++) {
		uint32_t id = g->order[i];
		const struct rpt_node *nd = &g->nodes[id];
		const char *key = g->r.names.s[id];
		char a[64], b[64], pa[32], pb[32], pc[32];

		if (rx && !psym_rx_match(rx, key, name_len(key)))
			continue;
		fprintf(out, "%s\n", TREE_SEP);
		for (size_t k = g->in_at[id]; k < g->in_at[id + 1]; k++) {
			const struct rpt_edge *ed = &g->et.e[g->in[k]];

			edge_line(out, g, ed, (uint32_t)(ed->key >> 32) - 1, nd->cum, unit, ounit);
		}
		flat_sum = sat_add(flat_sum, nd->flat);
		psym_rpt_scaled_label(a, sizeof(a), nd->flat, unit, ounit);
		psym_rpt_scaled_label(b, sizeof(b), nd->cum, unit, ounit);
		psym_rpt_percentage(pa, sizeof(pa), nd->flat, g->total);
		psym_rpt_percentage(pb, sizeof(pb), flat_sum, g->total);
		psym_rpt_percentage(pc, sizeof(pc), nd->cum, g->total);
		fprintf(out, "%10s %s %s %10s %s                | %.*s\n", a, pa, pb, b, pc,
			(int)name_len(key), key);
		for (size_t k = g->out_at[id]; k < g->out_at[id + 1]; k++) {
			const struct rpt_edge *ed = &g->et.e[g->out[k]];

			edge_line(out, g, ed, (uint32_t)ed->key - 1, nd->cum, unit, ounit);
		}
	}
	if (g->n)
		fprintf(out, "%s\n", TREE_SEP);
}

/* tree (regex NULL) or peek (regex: the nodes to show, untrimmed). */
static int tree(const struct psym_profile *p, const struct psym_report_opts *o, const char *regex,
		FILE *out, struct psym_err *e)
{
	struct psym_report_opts po = *o;
	struct psym_rpt_graph g;
	struct psym_rx *rx = NULL;
	const char *unit, *ounit;
	int ret;

	if (regex) {
		struct psym_err re = { 0 };

		ret = psym_rx_compile(regex, &rx, &re);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "out of memory");
		if (ret)
			return psym_err_set(e, PSYM_EUSAGE, "bad regular expression '%.100s': %s",
					    regex, re.msg);
		/* pprof -peek trims nothing: every caller and callee is shown. */
		po.node_fraction = po.edge_fraction = 0;
		po.max_rows = 0;
	}
	ret = psym_rpt_graph_new(p, &po, &g, e);
	if (!ret)
		ret = psym_rpt_graph_edges(&g, e);
	if (ret)
		goto out;
	unit = psym_profile_str(p, p->pb->sample_type[g.r.idx]->unit);
	ounit = psym_rpt_output_unit(g.nodes, g.order, g.n, g.total, unit);
	if (rx) {
		size_t i = 0;

		/* pprof prints nothing when nothing matches: look first. */
		while (i < g.n && !psym_rx_match(rx, g.r.names.s[g.order[i]],
						 name_len(g.r.names.s[g.order[i]])))
			i++;
		if (i == g.n) {
			ret = psym_err_set(e, PSYM_EUSAGE, "no matches found for regexp: %s",
					   regex);
			goto out;
		}
	}
	{
		struct rpt_counts c = psym_rpt_graph_counts(&g);

		psym_rpt_report_labels(out, p, g.r.idx, &po.filter, ounit, &c);
	}
	fprintf(out, "%s\n%s\n", TREE_SEP, TREE_LEGEND);
	print_nodes(out, &g, rx, ounit);
out:
	psym_rpt_graph_free(&g);
	psym_rx_free(rx);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}

int psym_report_tree(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		     struct psym_err *e)
{
	return tree(p, o, NULL, out, e);
}

int psym_report_peek(const struct psym_profile *p, const struct psym_report_opts *o,
		     const char *regex, FILE *out, struct psym_err *e)
{
	return tree(p, o, regex, out, e);
}
