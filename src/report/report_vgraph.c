/* SPDX-License-Identifier: MIT */
/*
 * pprof's call graph in its visual mode (newTrimmedGraph for -dot), for
 * report_dot.c: nodes ordered by their entropy score (how much a node
 * splits or joins the calls through it), the node count counting each
 * node's label boxes, residual edges that another path already shows
 * removed. Each node carries its samples' labels as tags (string labels
 * joined, and the numeric "bytes" label), counted as pprof counts them.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "report_int.h"

/* The tag of node and name, a new one (0, 0) if absent; NULL: no memory or MAX_TAGS. */
static struct dtag *dtag_get(struct dtab *t, uint32_t node, uint32_t name)
{
	bool fresh;

	if ((t->n + 1) * 2 > t->slots && t->n >= MAX_TAGS) {
		t->over = true;
		return NULL;
	}
	return psym_rpt_pair_get((void **)&t->e, &t->n, &t->slots, sizeof(*t->e), 1024, node, name,
				 &fresh);
}

/* Intern a tag name with what it is; its id, -1: no memory. */
static long tag_name(struct psym_rpt_vgraph *d, const char *s, struct tmeta m)
{
	size_t before = d->tn.n;
	long id = psym_rpt_name_add(&d->tn, s);

	if (id < 0 || d->tn.n == before)
		return id;
	if (d->tn.n > d->tmcap) {
		size_t nc = d->tmcap ? d->tmcap * 2 : 64;
		struct tmeta *n = realloc(d->tm, nc * sizeof(*n));

		if (!n)
			return -1;
		d->tm = n;
		d->tmcap = nc;
	}
	d->tm[id] = m;
	return id;
}

void psym_rpt_dot_esc(char *b, size_t sz, size_t *n, const char *s, size_t len)
{
	for (size_t i = 0; i < len && *n + 3 < sz; i++) {
		if (s[i] == '\\' || s[i] == '"') {
			b[(*n)++] = '\\';
			b[(*n)++] = s[i];
		} else if (s[i] == '\n') {
			b[(*n)++] = '\\';
			b[(*n)++] = 'l';
		} else {
			b[(*n)++] = s[i];
		}
	}
	b[*n] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The labels tag of sample s (pprof's joinLabels: "key:value" of each
 * string label but the diff base's, sorted, joined by "\n"), each part
 * escaped for DOT; 0: none, else its tag name + 1; -1: no memory.
 */
static long sample_labels(struct psym_rpt_vgraph *d, const pb_sample *s)
{
	const struct psym_profile *p = d->g.r.p;
	char *parts[64], buf[NAME_MAX_DOT];
	size_t np = 0, n = 1;
	long id;

	for (size_t j = 0; j < s->n_label && np < 64; j++) {
		const char *k = psym_profile_str(p, s->label[j]->key);
		const char *v = psym_profile_str(p, s->label[j]->str);
		size_t lk = strlen(k), lv = strlen(v);

		if (!s->label[j]->str || !strcmp(k, PSYM_DIFF_BASE_LABEL))
			continue;
		parts[np] = malloc(lk + lv + 2);
		if (!parts[np])
			goto oom;
		memcpy(parts[np], k, lk);
		parts[np][lk] = ':';
		memcpy(parts[np] + lk + 1, v, lv + 1);
		np++;
	}
	if (!np)
		return 0;
	qsort(parts, np, sizeof(*parts), cmp_str);
	buf[0] = 'L';
	for (size_t i = 0; i < np; i++) {
		if (i && n + 3 < sizeof(buf)) {
			buf[n++] = '\\';
			buf[n++] = 'n';
		}
		psym_rpt_dot_esc(buf, sizeof(buf), &n, parts[i], strlen(parts[i]));
	}
	buf[n] = '\0';
	id = tag_name(d, buf, (struct tmeta){ 0 });
	for (size_t i = 0; i < np; i++)
		free(parts[i]);
	return id < 0 ? -1 : id + 1;
oom:
	for (size_t i = 0; i < np; i++)
		free(parts[i]);
	return -1;
}

/* Each sample's tag names, once: its labels and its "bytes" values. */
static int sample_tags(struct psym_rpt_vgraph *d)
{
	const struct psym_profile *p = d->g.r.p;
	const pb_profile *pb = p->pb;
	size_t cap = 0, n = 0;

	d->slab = calloc(pb->n_sample + 1, sizeof(*d->slab));
	d->snum_at = calloc(pb->n_sample + 1, sizeof(*d->snum_at));
	if (!d->slab || !d->snum_at)
		return -1;
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		long lab = sample_labels(d, s);

		if (lab < 0)
			return -1;
		d->slab[i] = (uint32_t)lab;
		d->snum_at[i] = n;
		for (size_t j = 0; j < s->n_label; j++) {
			const pb_label *l = s->label[j];
			char buf[128];
			long id;
			int k;

			if (!psym_rpt_label_numeric(l) ||
			    strcmp(psym_profile_str(p, l->key), "bytes"))
				continue;
			/* pprof's tag: the value scaled (-unit's default, "minimum"). */
			k = snprintf(buf, sizeof(buf), "N%ld\x1f", lab);
			psym_rpt_scaled_label(buf + k, sizeof(buf) - (size_t)k, l->num, d->num_unit,
					      "minimum");
			id = tag_name(d, buf, (struct tmeta){ true, (uint32_t)lab, l->num });
			if (id < 0)
				return -1;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 256;
				uint32_t *x = realloc(d->snum, nc * sizeof(*x));

				if (!x)
					return -1;
				d->snum = x;
				cap = nc;
			}
			d->snum[n++] = (uint32_t)id;
		}
	}
	d->snum_at[pb->n_sample] = n;
	return 0;
}

/* Add a sample's value to node id's tags (its cum, or its flat). */
static int tag_add(struct psym_rpt_vgraph *d, size_t si, uint32_t id, int64_t v, bool flat)
{
	for (size_t k = d->snum_at[si]; k <= d->snum_at[si + 1]; k++) {
		struct dtag *t;

		if (k == d->snum_at[si + 1]) {
			if (!d->slab[si])
				break;
			t = dtag_get(&d->tags, id, d->slab[si] - 1);
		} else {
			t = dtag_get(&d->tags, id, d->snum[k]);
		}
		if (!t)
			return -1;
		if (flat)
			t->flat = sat_add(t->flat, v);
		else
			t->cum = sat_add(t->cum, v);
	}
	return 0;
}

/* pprof's newGraph again, for the tags of the nodes (kept: as graph_build). */
static int tags_build(struct psym_rpt_vgraph *d, const unsigned char *kept)
{
	struct rep *r = &d->g.r;
	const pb_profile *pb = r->p->pb;

	free(d->tags.e);
	memset(&d->tags, 0, sizeof(d->tags));
	memset(d->stamp, 0, (r->names.n ? r->names.n : 1) * sizeof(*d->stamp));
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		int64_t v = s->value[r->idx];
		uint32_t parent = UINT32_MAX;
		bool residual = false;

		if (v == 0 || (!d->slab[i] && d->snum_at[i] == d->snum_at[i + 1]))
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
				if (kept && !kept[f[ni]]) {
					residual = true;
					continue;
				}
				if (d->stamp[f[ni]] != i + 1) {
					d->stamp[f[ni]] = i + 1;
					if (tag_add(d, i, f[ni], v, false))
						return -1;
				}
				parent = f[ni];
				residual = false;
			}
		}
		if (parent != UINT32_MAX && !residual && tag_add(d, i, parent, v, true))
			return -1;
	}
	return 0;
}

/* Graph and tags of only the first n nodes of the order (n == SIZE_MAX: all). */
static int rebuild(struct psym_rpt_vgraph *d, size_t n)
{
	struct psym_rpt_graph *g = &d->g;

	if (n == SIZE_MAX)
		return psym_rpt_graph_build(g, NULL) || tags_build(d, NULL) ? -1 : 0;
	memset(d->kept, 0, g->r.names.n ? g->r.names.n : 1);
	for (size_t i = 0; i < n; i++)
		d->kept[g->order[i]] = 1;
	return psym_rpt_graph_build(g, d->kept) || tags_build(d, d->kept) ? -1 : 0;
}

/* pprof's TrimLowFrequencyTags. */
static void trim_tags(struct psym_rpt_vgraph *d)
{
	for (size_t j = 0; j < d->tags.slots; j++) {
		struct dtag *t = &d->tags.e[j];

		if (t->key && abs64(t->flat) < d->node_cut && abs64(t->cum) < d->node_cut)
			t->gone = true;
	}
}

/* pprof's TrimLowFrequencyEdges: the number of edges it removed. */
static size_t trim_edges(struct psym_rpt_graph *g, int64_t cut)
{
	size_t n = 0;

	for (size_t j = 0; j < g->et.slots; j++) {
		struct rpt_edge *ed = &g->et.e[j];

		if (ed->key && !ed->gone && abs64(ed->w) < cut) {
			ed->gone = true;
			n++;
		}
	}
	return n;
}

/* ---- pprof's EntropyOrder ----------------------------------------------------- */

struct entropy_order {
	const struct psym_rpt_graph *g;
	const int64_t *score;
};

/* Go's abs64: INT64_MIN stays negative. */
static int64_t go_abs(int64_t v)
{
	return v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
}

static int cmp_entropy(const void *a, const void *b, void *ctx)
{
	const struct entropy_order *c = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const char *sx = c->g->r.names.s[x], *sy = c->g->r.names.s[y];
	size_t lx = name_len(sx), ly = name_len(sy);
	int64_t kx = go_abs(c->score[x]), ky = go_abs(c->score[y]);
	int r;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	r = memcmp(sx, sy, lx < ly ? lx : ly);
	if (r || lx != ly)
		return r ? r : (lx < ly ? -1 : 1);
	kx = abs64(c->g->nodes[x].flat);
	ky = abs64(c->g->nodes[y].flat);
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(sx, sy);
}

/* -frac * log2(frac), as Go's math.Log2 computes it. */
static double ent(double frac)
{
	int exp;
	double fr = frexp(frac, &exp);

	if (fr == 0.5)
		return -frac * (double)(exp - 1);
	return -frac * (log(fr) * (1 / M_LN2) + (double)exp);
}

/* pprof's entropyScore of every node, then the order by it; -1: no memory. */
static int entropy_sort(struct psym_rpt_graph *g)
{
	size_t nn = g->r.names.n ? g->r.names.n : 1;
	int64_t *tin = calloc(nn, sizeof(*tin)), *tout = calloc(nn, sizeof(*tout));
	double *sin = calloc(nn, sizeof(*sin)), *sout = calloc(nn, sizeof(*sout));
	unsigned char *has = calloc(nn, 1); /* 1: some in-edge, 2: some out-edge */
	int64_t *score = calloc(nn, sizeof(*score));
	int ret = -1;

	if (!tin || !tout || !sin || !sout || !has || !score)
		goto out;
	for (size_t i = 0; i < g->n; i++)
		tout[g->order[i]] = g->nodes[g->order[i]].flat;
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < g->et.slots; j++) {
			const struct rpt_edge *ed = &g->et.e[j];
			uint32_t f = (uint32_t)(ed->key >> 32) - 1, t = (uint32_t)ed->key - 1;

			if (!ed->key || ed->gone)
				continue;
			if (pass == 0) {
				has[t] |= 1;
				has[f] |= 2;
				if (ed->w > 0) {
					tin[t] = sat_add(tin[t], ed->w);
					tout[f] = sat_add(tout[f], ed->w);
				}
				continue;
			}
			if (tin[t])
				sin[t] += ent((double)abs64(ed->w) / (double)tin[t]);
			if (tout[f])
				sout[f] += ent((double)abs64(ed->w) / (double)tout[f]);
		}
	for (size_t i = 0; i < g->n; i++) {
		uint32_t id = g->order[i];
		const struct rpt_node *n = &g->nodes[id];
		double s = 0, v;
		int64_t iv;

		s += has[id] & 1 ? sin[id] : 1;
		if (has[id] & 2) {
			if (n->flat > 0 && tout[id])
				sout[id] += ent((double)abs64(n->flat) / (double)tout[id]);
			s += sout[id];
		} else {
			s += 1;
		}
		v = s * (double)n->cum;
		/* As Go on amd64: NaN and out of range convert to INT64_MIN, the sum
		   wraps (in a diff, a negative total makes the entropy NaN). */
		iv = isnan(v) || v >= 0x1p63 || v < -0x1p63 ? INT64_MIN : (int64_t)v;
		score[id] = (int64_t)((uint64_t)iv + (uint64_t)n->flat);
	}
	{
		struct entropy_order c = { g, score };

		if (g->n)
			qsort_r(g->order, g->n, sizeof(*g->order), cmp_entropy, &c);
	}
	ret = 0;
out:
	free(tin);
	free(tout);
	free(sin);
	free(sout);
	free(has);
	free(score);
	return ret;
}

/* pprof's selectTopNodes in visual mode: each node's tags count as nodes. */
static size_t select_top(struct psym_rpt_vgraph *d, size_t max)
{
	struct psym_rpt_graph *g = &d->g;
	size_t *cnt = calloc(g->r.names.n ? g->r.names.n : 1, sizeof(*cnt)), count = 0;

	if (!cnt)
		return SIZE_MAX;
	for (size_t j = 0; j < d->tags.slots; j++) {
		const struct dtag *t = &d->tags.e[j];

		if (t->key && !t->gone && t->flat)
			cnt[(t->key >> 32) - 1]++;
	}
	for (size_t i = 0; i < g->n; i++) {
		count += (cnt[g->order[i]] > MAX_NODELETS ? MAX_NODELETS : cnt[g->order[i]]) + 1;
		if (count >= max) {
			max = i + 1;
			break;
		}
	}
	free(cnt);
	return max < g->n ? max : g->n;
}

/* Whether a path other than edge slot k leads from its caller to its callee. */
static bool redundant(const struct psym_rpt_graph *g, uint32_t k, unsigned char *seen,
		      uint32_t *queue)
{
	const struct rpt_edge *e = &g->et.e[k];
	uint32_t src = (uint32_t)(e->key >> 32) - 1, dst = (uint32_t)e->key - 1;
	size_t head = 0, tail = 0;
	bool found = false;

	seen[dst] = 1;
	queue[tail++] = dst;
	while (head < tail && !found) {
		uint32_t n = queue[head++];

		for (size_t i = g->in_at[n]; i < g->in_at[n + 1]; i++) {
			const struct rpt_edge *ie = &g->et.e[g->in[i]];
			uint32_t from = (uint32_t)(ie->key >> 32) - 1;

			if (ie->gone || g->in[i] == k || seen[from])
				continue;
			if (from == src) {
				found = true;
				break;
			}
			seen[from] = 1;
			queue[tail++] = from;
		}
	}
	for (size_t i = 0; i < tail; i++)
		seen[queue[i]] = 0;
	return found;
}

/* pprof's RemoveRedundantEdges: residual edges another path stands for go. */
static int remove_redundant(struct psym_rpt_graph *g)
{
	size_t nn = g->r.names.n ? g->r.names.n : 1;
	unsigned char *seen = calloc(nn, 1);
	uint32_t *queue = malloc(nn * sizeof(*queue));

	if (!seen || !queue) {
		free(seen);
		free(queue);
		return -1;
	}
	for (size_t i = g->n; i-- > 0;) {
		uint32_t id = g->order[i];

		for (size_t j = g->in_at[id + 1]; j-- > g->in_at[id];) {
			struct rpt_edge *e = &g->et.e[g->in[j]];

			if (e->gone)
				continue;
			if (!e->residual)
				break;
			if (redundant(g, g->in[j], seen, queue))
				e->gone = true;
		}
	}
	free(seen);
	free(queue);
	return 0;
}

/* pprof's newTrimmedGraph for -dot. */
static int trimmed_graph(struct psym_rpt_vgraph *d, const struct psym_report_opts *o)
{
	struct psym_rpt_graph *g = &d->g;
	int64_t flat = 0;

	if (rebuild(d, SIZE_MAX))
		return -1;
	g->total = psym_rpt_total(g->r.p, g->r.idx);
	for (size_t i = 0; i < g->n; i++)
		flat = sat_add(flat, g->nodes[g->order[i]].flat);
	d->node_cut = abs64((int64_t)((double)flat * o->node_fraction));
	d->edge_cut = abs64((int64_t)((double)flat * o->edge_fraction));
	if (d->node_cut > 0) {
		size_t n = 0;

		for (size_t i = 0; i < g->n; i++)
			if (abs64(g->nodes[g->order[i]].cum) >= d->node_cut)
				g->order[n++] = g->order[i];
		if (n != g->n) {
			g->dropped_nodes = g->n - n;
			if (rebuild(d, n))
				return -1;
		}
	}
	g->orig = g->n;
	if (entropy_sort(g))
		return -1;
	if (o->max_rows) {
		size_t n;

		trim_tags(d);
		trim_edges(g, d->edge_cut);
		n = select_top(d, o->max_rows);
		if (n == SIZE_MAX)
			return -1;
		if (n != g->n && (rebuild(d, n) || entropy_sort(g)))
			return -1;
	}
	trim_tags(d);
	d->dropped_edges = trim_edges(g, d->edge_cut);
	if (psym_rpt_graph_edges(g, NULL) || remove_redundant(g))
		return -1;
	g->node_cut = abs64((int64_t)((double)g->total * o->node_fraction));
	return 0;
}

/* A location and line of each node, to name it by (hide and show skip lines). */
static int node_reps(struct psym_rpt_vgraph *d)
{
	struct rep *r = &d->g.r;
	const pb_profile *pb = r->p->pb;
	size_t nn = r->names.n ? r->names.n : 1;

	d->rep_pos = malloc(nn * sizeof(*d->rep_pos));
	d->rep_line = malloc(nn * sizeof(*d->rep_line));
	if (!d->rep_pos || !d->rep_line)
		return -1;
	memset(d->rep_pos, 0xff, nn * sizeof(*d->rep_pos));
	for (size_t pos = 0; pos < pb->n_location; pos++) {
		const pb_location *loc = pb->location[pos];
		const uint32_t *f;
		long nf = psym_rpt_loc_frames(r, pos, &f), k = 0;

		if (nf < 0)
			return -1;
		for (size_t j = 0; j < (loc->n_line ? loc->n_line : 1) && k < nf; j++) {
			const pb_line *ln = loc->n_line ? loc->line[j] : NULL;

			if (r->flt && !psym_rpt_filter_line_shown(r->flt, r->p, loc, ln))
				continue;
			if (d->rep_pos[f[k]] == UINT32_MAX) {
				d->rep_pos[f[k]] = (uint32_t)pos;
				d->rep_line[f[k]] = ln ? (uint32_t)j : UINT32_MAX;
			}
			k++;
		}
	}
	return 0;
}

int psym_rpt_vgraph_new(const struct psym_profile *p, const struct psym_report_opts *o,
			struct psym_rpt_vgraph *d, struct psym_err *e)
{
	size_t nnu = 0, nn;
	int ret;

	memset(d, 0, sizeof(*d));
	psym_idxset_init(&d->tn.idx);
	ret = psym_rpt_graph_init(p, o, false, &d->g, e);
	if (ret)
		return ret;
	nn = d->g.r.names.n ? d->g.r.names.n : 1;
	d->stamp = calloc(nn, sizeof(*d->stamp));
	d->kept = malloc(nn);
	d->unit = psym_profile_str(p, p->pb->sample_type[d->g.r.idx]->unit);
	if (!d->stamp || !d->kept || psym_rpt_num_units(p, &d->nu, &nnu))
		goto oom;
	d->num_unit = psym_rpt_num_unit(d->nu, nnu, "bytes");
	if (sample_tags(d) || node_reps(d) || trimmed_graph(d, o)) {
		if (d->tags.over)
			return psym_err_set(
				e, PSYM_ELIMIT,
				"more than %zu pairs of a function and a sample's labels: "
				"too many for the graph's label boxes",
				(size_t)MAX_TAGS);
		goto oom;
	}
	d->ounit = psym_rpt_output_unit(d->g.nodes, d->g.order, d->g.n, d->g.total, d->unit);
	return 0;
oom:
	return psym_err_set(e, PSYM_ENOMEM, "out of memory");
}

void psym_rpt_vgraph_free(struct psym_rpt_vgraph *d)
{
	psym_rpt_graph_free(&d->g);
	free(d->nu);
	for (size_t i = 0; i < d->tn.n; i++)
		free(d->tn.s[i]);
	free(d->tn.s);
	free(d->tn.kind);
	psym_idxset_free(&d->tn.idx);
	free(d->tm);
	free(d->tags.e);
	free(d->slab);
	free(d->snum);
	free(d->snum_at);
	free(d->stamp);
	free(d->kept);
	free(d->rep_pos);
	free(d->rep_line);
}
