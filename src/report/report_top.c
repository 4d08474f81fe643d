/* SPDX-License-Identifier: MIT */
/* psym top: pprof -top's table, from the report tree. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_int.h"

/* ---- top -------------------------------------------------------------------- */

struct node {
	int64_t flat, cum;
	size_t stamp;	 /* last sample counted in cum, + 1; then: a row shown */
	bool inl, noinl; /* incoming edges: some inline, some not */
};

/* Caller -> callee edges, for pprof's "(inline)" marks. */
struct edge {
	uint64_t key; /* (caller + 1) << 32 | (callee + 1); 0: empty slot */
	size_t stamp; /* last sample that counted it, + 1 */
	bool inl;     /* every counted call was inline */
};

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
	struct edge *e;
	size_t n, slots;
	const unsigned char *occ; /* per node id */
	struct node *nodes;
};

static uint64_t hkey(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static struct edge *edge_get(struct edges *t, uint32_t from, uint32_t to)
{
	uint64_t key = ((uint64_t)from + 1) << 32 | ((uint64_t)to + 1);
	size_t j;

	if ((t->n + 1) * 2 > t->slots) {
		size_t ns = t->slots ? t->slots * 2 : 4096;
		struct edge *ne = calloc(ns, sizeof(*ne));

		if (!ne)
			return NULL;
		for (size_t i = 0; i < t->slots; i++) {
			if (!t->e[i].key)
				continue;
			for (j = hkey(t->e[i].key) & (ns - 1); ne[j].key; j = (j + 1) & (ns - 1))
				;
			ne[j] = t->e[i];
		}
		free(t->e);
		t->e = ne;
		t->slots = ns;
	}
	for (j = hkey(key) & (t->slots - 1); t->e[j].key; j = (j + 1) & (t->slots - 1))
		if (t->e[j].key == key)
			return &t->e[j];
	t->e[j].key = key;
	t->e[j].inl = true;
	t->n++;
	return &t->e[j];
}

/* One call parent -> id in sample i (pprof's AddToEdgeDiv); -1: no memory. */
static int edge_count(struct edges *edges, uint32_t parent, uint32_t id, bool inl, size_t i)
{
	struct edge *ed;

	if (parent == UINT32_MAX || parent == id)
		return 0;
	if (edges->occ[id] != (OCC_INL | OCC_CALL)) {
		if (inl)
			edges->nodes[id].inl = true;
		else
			edges->nodes[id].noinl = true;
		return 0;
	}
	ed = edge_get(edges, parent, id);
	if (!ed)
		return -1;
	if (ed->stamp != i + 1) {
		ed->stamp = i + 1;
		if (!inl)
			ed->inl = false;
	}
	return 0;
}

static void edges_mark(const struct edges *edges, struct node *nodes);

/*
 * pprof's "(inline)" and "(partial-inline)": a caller -> callee edge is
 * inline when every call it counts is from an outer frame of the same
 * location; an edge counts once per sample (its first call from the root);
 * calls of a node to itself are no edges. With kept, only nodes whose
 * stamp is set are in the graph (pprof rebuilds it from the rows shown):
 * the others are skipped. Sets each node's inl/noinl from its in-edges.
 */
static int mark_inline(struct rep *r, struct node *nodes, bool kept, struct edges *edges)
{
	const pb_profile *pb = r->p->pb;

	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		uint32_t parent = UINT32_MAX;

		if (s->value[r->idx] == 0)
			continue;
		switch (psym_rpt_sample_kept(r, s)) {
		case 0: continue;
		case 1: break;
		default: return -1;
		}
		for (size_t li = s->n_location_id; li-- > 0;) {
			long pos = psym_profile_location_pos(r->p, s->location_id[li]);
			const uint32_t *f;
			long nf;

			if (pos < 0)
				continue;
			nf = psym_rpt_loc_frames(r, (size_t)pos,
						 &f); /* known by now: no new names */
			if (nf < 0)
				return -1;
			for (long ni = nf; ni-- > 0;) {
				uint32_t id = f[ni];

				if (kept && !nodes[id].stamp)
					continue;
				if (edge_count(edges, parent, id, ni != nf - 1, i))
					return -1;
				parent = id;
			}
		}
	}
	edges_mark(edges, nodes);
	return 0;
}

/* Each node's inl/noinl from its in-edges. */
static void edges_mark(const struct edges *edges, struct node *nodes)
{
	for (size_t j = 0; j < edges->slots; j++) {
		struct node *callee;

		if (!edges->e[j].key)
			continue;
		callee = &nodes[(uint32_t)edges->e[j].key - 1];
		if (edges->e[j].inl)
			callee->inl = true;
		else
			callee->noinl = true;
	}
}

struct row_ctx {
	const struct names *names;
	const struct node *nodes;
	bool by_cum;
};

static int cmp_row(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct row_ctx *c = ctx;
	const struct node *nx = &c->nodes[x], *ny = &c->nodes[y];
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

int psym_report_top(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		    struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	struct rep r;
	struct node *nodes = NULL;
	struct edges edges = { 0 };
	uint32_t *rows = NULL;
	unsigned char *occ = NULL;
	size_t ncap = 0, nrows = 0, shown;
	int64_t total = 0, flat_sum = 0, sum = 0;
	const char *unit, *ounit = NULL;
	char a[64], b[64], pa[32], pb2[32], pc[32];
	int ret = psym_rpt_init(&r, p, o, true, e);

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
				struct node *nn = realloc(nodes, nc * sizeof(*nn));

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
				if (!o->max_rows && edge_count(&edges, parent, id, ni != nf - 1, i))
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
		struct row_ctx c = { &r.names, nodes, o->sort_cum };

		qsort_r(rows, nrows, sizeof(*rows), cmp_row, &c);
	}
	shown = o->max_rows && o->max_rows < nrows ? o->max_rows : nrows;
	/* pprof marks inline nodes in the graph of the rows it shows. */
	if (!o->max_rows) {
		edges_mark(&edges, nodes);
	} else {
		if (shown < nrows)
			for (size_t j = 0; j < ncap; j++)
				nodes[j].stamp = 0;
		for (size_t i = 0; i < shown; i++)
			nodes[rows[i]].stamp = 1;
		if (mark_inline(&r, nodes, shown < nrows, &edges))
			goto oom;
	}
	/* pprof's selectOutputUnit: one unit for the report, from the smallest value. */
	{
		int64_t minv = 0, maxv = total;
		const char *minu, *maxu;

		for (size_t i = 0; i < shown; i++) {
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
		if (!*ounit)
			ounit = unit;
	}
	for (size_t i = 0; i < shown; i++)
		flat_sum = sat_add(flat_sum, nodes[rows[i]].flat);
	psym_rpt_profile_labels(out, p, r.idx, total, ounit);
	psym_rpt_active_filters(out, &o->filter);
	psym_rpt_scaled_label(a, sizeof(a), flat_sum, unit, ounit);
	psym_rpt_scaled_label(b, sizeof(b), total, unit, ounit);
	psym_rpt_percentage(pa, sizeof(pa), flat_sum, total);
	fprintf(out, "Showing nodes accounting for %s, %s of %s total\n", a, pa + strspn(pa, " "),
		b);
	if (total && shown < nrows)
		fprintf(out, "Showing top %zu nodes out of %zu\n", shown, nrows);
	fprintf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	for (size_t i = 0; i < shown && !ferror(out); i++) {
		const struct node *nd = &nodes[rows[i]];
		const char *key = r.names.s[rows[i]];

		sum = sat_add(sum, nd->flat);
		psym_rpt_scaled_label(a, sizeof(a), nd->flat, unit, ounit);
		psym_rpt_scaled_label(b, sizeof(b), nd->cum, unit, ounit);
		psym_rpt_percentage(pa, sizeof(pa), nd->flat, total);
		psym_rpt_percentage(pb2, sizeof(pb2), sum, total);
		psym_rpt_percentage(pc, sizeof(pc), nd->cum, total);
		fprintf(out, "%10s %s %s %10s %s  %.*s%s\n", a, pa, pb2, b, pc, (int)name_len(key),
			key, nd->inl ? (nd->noinl ? " (partial-inline)" : " (inline)") : "");
	}
	goto out;
oom:
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
out:
	free(occ);
	free(rows);
	free(nodes);
	free(edges.e);
	psym_rpt_free(&r);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
