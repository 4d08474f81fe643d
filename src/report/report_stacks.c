/* SPDX-License-Identifier: MIT */
/*
 * The stacks of folded and flame: each kept sample's frames, root first,
 * sorted by the frames' names and merged. At a million locations this is
 * most of what a report costs past reading the profile, so:
 * - each location's frames are computed once (report.c), in the order the
 *   locations lie in memory, and copied from there straight into one array
 *   of name ids, root first;
 * - names are ranked once, so stacks compare as integer sequences;
 * - the sort is a radix sort of 64-bit keys, each the ranks of a few frames
 *   and the stack's position: stacks that tie on those frames are keyed
 *   again by the next few, so deeper frames are read only where needed
 *   (a multikey radix sort).
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "array.h"
#include "sort.h"
#include "textesc.h"

/*
 * Room for n more entries in st->ids and st->inl: 0, -1 (no memory) or
 * PSYM_ELIMIT when they would pass the profile's memory cap (--max-memory).
 * Stacks are kept whole, however deep: memory grows with them, and the cap
 * is what bounds it.
 */
static int reserve_ids(struct psym_rpt_stacks *st, size_t n)
{
	size_t nc = st->capids ? st->capids : 4096;
	size_t per = sizeof(*st->ids) + (st->no_inl ? 0 : sizeof(*st->inl));
	uint32_t *ni;
	unsigned char *nl;

	if (st->nids + n <= st->capids)
		return 0;
	if (n > SIZE_MAX / 8 - st->nids)
		return -1;
	while (nc < st->nids + n)
		nc *= 2;
	if (nc > st->r.p->arena.cap / per) {
		nc = st->nids + n;
		if (nc > st->r.p->arena.cap / per)
			return PSYM_ELIMIT;
	}
	ni = realloc(st->ids, nc * sizeof(*ni));
	if (!ni)
		return -1;
	st->ids = ni;
	if (st->no_inl) {
		st->capids = nc;
		return 0;
	}
	nl = realloc(st->inl, nc * sizeof(*nl));
	if (!nl)
		return -1;
	st->inl = nl;
	st->capids = nc;
	return 0;
}

/*
 * Each location's frames where a sample's stack reads them: up to three in
 * place, root first (one cache line holds a location's whole answer, and
 * most locations have one or two frames), else where they start in
 * r->frames (innermost first there).
 */
#define LF_INLINE 3
struct loc_fr {
	uint32_t n;
	uint32_t id[LF_INLINE]; /* n > LF_INLINE: id[0] is the first in r->frames */
};

/* How many frames sample s has (every location's, inline ones included). */
static size_t count_frames(const struct rep *r, const struct loc_fr *lf, const pb_sample *s)
{
	size_t total = 0;

	for (size_t i = 0; i < s->n_location_id; i++) {
		long pos = psym_rpt_loc_pos(r->p, s->location_id[i]);

		if (pos >= 0)
			total += lf[pos].n;
	}
	return total;
}

/*
 * Append the total frames of sample s to st->ids, root first (within a
 * location, the outermost inline frame first); st->ids has LF_INLINE
 * entries to spare. Returns the count.
 */
static size_t push_sample(struct psym_rpt_stacks *st, const struct loc_fr *lf, const pb_sample *s)
{
	const struct rep *r = &st->r;
	const struct psym_profile *p = r->p;
	uint32_t *restrict ids = st->ids + st->nids, *start = ids;
	unsigned char *restrict inl = st->inl ? st->inl + st->nids : NULL;
	/* Root first, a location's frames are inlined but for the first. */
	static const unsigned char inl_marks[LF_INLINE] = { 0, 1, 1 };

	for (size_t i = s->n_location_id; i-- > 0;) {
		long pos = psym_rpt_loc_pos(p, s->location_id[i]);
		const struct loc_fr *l;
		size_t k;

		if (pos < 0)
			continue;
		l = &lf[pos];
		k = l->n;
		if (k <= LF_INLINE) {
			/* Whole copies (the spare room takes the excess): no branch on k. */
			memcpy(ids, l->id, sizeof(l->id));
			ids += k;
			if (inl) {
				memcpy(inl, inl_marks, sizeof(inl_marks));
				inl += k;
			}
			continue;
		}
		for (size_t j = k; j-- > 0;) {
			*ids++ = r->frames[l->id[0] + j];
			if (inl)
				*inl++ = j < k - 1;
		}
	}
	st->nids += (size_t)(ids - start);
	return (size_t)(ids - start);
}

/*
 * Ask for the locations of a sample PREFETCH samples ahead: their frames
 * are all over a large profile's table, and read one after the other they
 * would each wait for memory.
 */
#define PREFETCH 8

static void prefetch_sample(const struct psym_profile *p, const struct loc_fr *lf,
			    const pb_sample *s)
{
	for (size_t j = 0; j < s->n_location_id; j++) {
		long pos = psym_rpt_loc_pos(p, s->location_id[j]);

		if (pos >= 0)
			__builtin_prefetch(&lf[pos]);
	}
}

/* A comm label as a frame shows it: its control characters escaped (in buf if any). */
static const char *label_shown(const char *l, char *buf, size_t sz)
{
	if (!psym_text_needs_escape(l, strlen(l)))
		return l;
	psym_text_escape_buf(buf, sz, l, strlen(l));
	return buf;
}

/* Every location's frames, in the order the locations lie in memory (cheaper than the samples'). */
static struct loc_fr *all_loc_frames(struct rep *r)
{
	size_t nl = r->p->pb->n_location;
	struct loc_fr *lf = malloc((nl ? nl : 1) * sizeof(*lf));

	for (size_t pos = 0; lf && pos < nl; pos++) {
		const uint32_t *f;
		long n = psym_rpt_loc_frames(r, pos, &f);

		if (n < 0) {
			free(lf);
			return NULL;
		}
		lf[pos].n = (uint32_t)n;
		memset(lf[pos].id, 0, sizeof(lf[pos].id));
		if (n <= LF_INLINE)
			for (long j = 0; j < n; j++)
				lf[pos].id[j] = f[n - 1 - j];
		else
			lf[pos].id[0] = r->loc[pos].first;
	}
	return lf;
}

int psym_rpt_stacks_collect(const struct psym_profile *p, const struct psym_report_opts *o,
			    struct psym_rpt_stacks *st, struct psym_err *e)
{
	int64_t base_key;
	const pb_profile *pb = p->pb;
	int ret = psym_rpt_init(&st->r, p, o, false, e);
	struct loc_fr *lf = NULL;

	base_key = psym_rpt_base_key(p);
	st->diff = base_key >= 0;
	st->top_n = o->max_rows;
	st->top_cum = o->sort_cum;
	if (ret)
		return ret;
	lf = all_loc_frames(&st->r);
	if (!lf)
		goto oom;
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		struct stack *sk;
		uint32_t pre[2];
		size_t extra = 0;
		long n;
		char buf[64], ebuf[1024];
		const char *l;

		if (i + PREFETCH < pb->n_sample && p->location_ix.dense)
			prefetch_sample(p, lf, pb->sample[i + PREFETCH]);
		if ((s->value[st->r.idx] == 0 && !st->zeros) || s->n_location_id == 0)
			continue; /* nothing to draw */
		n = psym_rpt_sample_kept(&st->r, s);
		if (n <= 0) {
			if (n < 0)
				goto oom;
			continue;
		}
		n = (long)count_frames(&st->r, lf, s);
		if (n == 0)
			continue;
		if (o->comm_frame && (l = psym_rpt_label_str(p, s, "comm", buf, sizeof(buf)))) {
			long id =
				psym_rpt_name_add(&st->r.names, label_shown(l, ebuf, sizeof(ebuf)));

			if (id < 0)
				goto oom;
			pre[extra++] = (uint32_t)id;
		}
		if (o->pid_frame && (l = psym_rpt_label_str(p, s, "pid", buf, sizeof(buf)))) {
			long id = psym_rpt_name_add(&st->r.names, l);

			if (id < 0)
				goto oom;
			pre[extra++] = (uint32_t)id;
		}
		{
			struct stack *ns =
				psym_array_grow(st->s, &st->cap, st->n + 1, sizeof(*ns), 0);

			if (!ns)
				goto oom;
			st->s = ns;
		}
		ret = reserve_ids(st, extra + (size_t)n + LF_INLINE);
		if (ret == PSYM_ELIMIT)
			goto limit;
		if (ret)
			goto oom;
		sk = &st->s[st->n];
		sk->off = sk->ioff = st->nids;
		for (size_t k = 0; k < extra; k++) {
			if (st->inl)
				st->inl[st->nids] = 0;
			st->ids[st->nids++] = pre[k];
		}
		sk->n = extra + push_sample(st, lf, s);
		sk->d = s->value[st->r.idx];
		sk->v = base_key >= 0 && psym_rpt_is_base(p, s, base_key) ? 0 : sk->d;
		if (sk->v < 0) {
			/* A subtraction's (--base) negative sample: no width, a change. */
			sk->v = 0;
			st->diff = true;
		}
		sk->pre = extra;
		sk->si = i;
		st->total = sat_add(st->total, sk->v);
		st->total_d = sat_add(st->total_d, sk->d);
		st->n++;
	}
	free(lf);
	return 0;
limit:
	free(lf);
	return psym_err_set(e, PSYM_ELIMIT,
			    "the samples' stacks take more than the memory cap of %zu bytes "
			    "(--max-memory)",
			    p->arena.cap);
oom:
	free(lf);
	return psym_err_set(e, PSYM_ENOMEM, "out of memory");
}

void psym_rpt_stacks_free(struct psym_rpt_stacks *st)
{
	free(st->ids);
	free(st->inl);
	free(st->s);
	free(st->rank);
	psym_rpt_free(&st->r);
}

/* ---- sorting stacks by their frames' names ------------------------------------ */

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct names *t = ctx;

	return strcmp(t->s[*(const uint32_t *)a], t->s[*(const uint32_t *)b]);
}

/*
 * Keys: from depth d, the ranks + 1 of per frames (0: past the stack's
 * end), bits each, above the stack's position in st->s (the low idx_bits).
 * Sorting keys sorts by those frames, ties in the order of the samples.
 */
struct sorter {
	const struct psym_rpt_stacks *st;
	unsigned idx_bits, bits, per;
	uint64_t *tmp;
};

struct span {
	size_t at, n, depth;
};

static uint64_t stack_key(const struct sorter *so, uint64_t idx, size_t d)
{
	const struct stack *k = &so->st->s[idx];
	const uint32_t *ids = so->st->ids + k->off;
	uint64_t key = 0;

	for (unsigned j = 0; j < so->per; j++)
		key = key << so->bits | (d + j < k->n ? (uint64_t)so->st->rank[ids[d + j]] + 1 : 0);
	return key << so->idx_bits | idx;
}

/*
 * Sort ord[] (stack positions in the low idx_bits) by the stacks' frames:
 * each span is keyed at its depth and sorted; runs that tie on every keyed
 * frame and go on past them become spans one key deeper. Runs that end
 * within the key are identical stacks, left in the samples' order.
 */
static int sort_stacks(struct sorter *so, uint64_t *ord, size_t n)
{
	uint64_t mask = ((uint64_t)1 << so->idx_bits) - 1, last = ((uint64_t)1 << so->bits) - 1;
	struct span *work = malloc(16 * sizeof(*work));
	size_t nwork = 0, cap = 16;

	if (!work)
		return -1;
	work[nwork++] = (struct span){ 0, n, 0 };
	while (nwork) {
		struct span sp = work[--nwork];
		uint64_t *a = ord + sp.at;

		for (size_t i = 0; i < sp.n; i++)
			a[i] = stack_key(so, a[i] & mask, sp.depth);
		psym_sort_u64_with(a, sp.n, 0, so->tmp + sp.at);
		for (size_t i = 0, j; i < sp.n; i = j) {
			uint64_t hi = a[i] >> so->idx_bits;

			for (j = i + 1; j < sp.n && a[j] >> so->idx_bits == hi; j++)
				;
			if (j - i < 2 || !(hi & last))
				continue; /* alone, or identical stacks */
			if (nwork == cap) {
				struct span *nw =
					psym_array_grow(work, &cap, nwork + 1, sizeof(*nw), 0);

				if (!nw) {
					free(work);
					return -1;
				}
				work = nw;
			}
			work[nwork++] = (struct span){ sp.at + i, j - i, sp.depth + so->per };
		}
	}
	free(work);
	return 0;
}

/*
 * Lay the frames out in the stacks' sorted order (sorted[], whose stack i
 * is st->s[ord[i] & mask]), so merging, folded lines and the flame layout
 * read them front to back. Each stack is read where it lies, in order, and
 * written to its sorted place: scattered writes cost less than scattered
 * reads. The inline marks stay (read only for the few frames a flame
 * graph draws).
 */
static int reorder_frames(struct psym_rpt_stacks *st, const uint64_t *ord, uint64_t mask,
			  struct stack *sorted)
{
	size_t *dest = malloc(st->n * sizeof(*dest)), at = 0;
	uint32_t *ids = malloc((st->nids ? st->nids : 1) * sizeof(*ids));

	if (!dest || !ids) {
		free(dest);
		free(ids);
		return -1;
	}
	for (size_t i = 0; i < st->n; i++) {
		dest[ord[i] & mask] = at;
		sorted[i].off = at;
		at += sorted[i].n;
	}
	for (size_t j = 0; j < st->n; j++) {
		const struct stack *k = &st->s[j];

		memcpy(ids + dest[j], st->ids + k->off, k->n * sizeof(*ids));
	}
	free(dest);
	free(st->ids);
	st->ids = ids;
	st->nids = at;
	st->capids = st->nids ? st->nids : 1;
	return 0;
}

static bool same_stack(const struct psym_rpt_stacks *st, const struct stack *x,
		       const struct stack *y)
{
	return x->n == y->n && !memcmp(st->ids + x->off, st->ids + y->off, x->n * sizeof(uint32_t));
}

/*
 * Sort the stacks by their frames' names (each name ranked once, so the
 * sort compares integers) and merge identical ones.
 */
static int sort_merge(struct psym_rpt_stacks *st)
{
	const struct names *t = &st->r.names;
	uint32_t *order = malloc((t->n ? t->n : 1) * sizeof(*order));
	size_t w = 0;

	free(st->rank);
	st->rank = malloc((t->n ? t->n : 1) * sizeof(*st->rank));
	if (!order || !st->rank) {
		free(order);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++)
		order[i] = (uint32_t)i;
	if (t->n)
		qsort_r(order, t->n, sizeof(*order), cmp_name, (void *)t);
	for (size_t i = 0; i < t->n; i++)
		st->rank[order[i]] = (uint32_t)i;
	free(order);
	if (st->n > 1) {
		struct sorter so = { st, 1, 1, 0, NULL };
		uint64_t *ord;
		struct stack *sorted;
		int bad;

		while (so.idx_bits < 63 && ((uint64_t)1 << so.idx_bits) < (uint64_t)st->n)
			so.idx_bits++;
		while (so.bits < 32 && ((uint64_t)1 << so.bits) < (uint64_t)t->n + 2)
			so.bits++;
		so.per = (64 - so.idx_bits) / so.bits;
		if (so.per == 0)
			return -1; /* over 2^32 stacks and names: refused as too many */
		ord = malloc(st->n * sizeof(*ord));
		so.tmp = malloc(st->n * sizeof(*so.tmp));
		sorted = malloc(st->n * sizeof(*sorted));
		for (size_t i = 0; ord && i < st->n; i++)
			ord[i] = i;
		bad = !ord || !so.tmp || !sorted || sort_stacks(&so, ord, st->n);
		free(so.tmp);
		for (size_t i = 0; !bad && i < st->n; i++)
			sorted[i] = st->s[ord[i] & (((uint64_t)1 << so.idx_bits) - 1)];
		bad = bad || reorder_frames(st, ord, ((uint64_t)1 << so.idx_bits) - 1, sorted);
		free(ord);
		if (bad) {
			free(sorted);
			return -1;
		}
		free(st->s);
		st->s = sorted;
		st->cap = st->n;
	}
	for (size_t r = 0; r < st->n; r++) {
		if (w && same_stack(st, &st->s[w - 1], &st->s[r])) {
			st->s[w - 1].v = sat_add(st->s[w - 1].v, st->s[r].v);
			st->s[w - 1].d = sat_add(st->s[w - 1].d, st->s[r].d);
			continue;
		}
		st->s[w++] = st->s[r];
	}
	st->n = w;
	return 0;
}

struct top_ctx {
	const struct names *names;
	const int64_t *flat, *cum;
	bool by_cum;
};

/* psym top's row order: |flat| (or |cum|), name, then the other value. */
static int cmp_top(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct top_ctx *c = ctx;
	int64_t kx = abs64(c->by_cum ? c->cum[x] : c->flat[x]),
		ky = abs64(c->by_cum ? c->cum[y] : c->flat[y]);
	int r;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	r = strcmp(c->names->s[x], c->names->s[y]);
	if (r)
		return r;
	kx = abs64(c->by_cum ? c->flat[x] : c->cum[x]);
	ky = abs64(c->by_cum ? c->flat[y] : c->cum[y]);
	return kx > ky ? -1 : kx < ky;
}

/*
 * Keep only the frames of the top_n functions, ranked as psym top ranks its
 * rows (flat, or cum; counted once per stack), as pprof's -nodecount keeps
 * the graph's top nodes: a stack's value stays, on its innermost kept frame.
 */
static int keep_top(struct psym_rpt_stacks *st)
{
	size_t nn = st->r.names.n ? st->r.names.n : 1, nrow = 0, w = 0;
	int64_t *flat = calloc(nn, sizeof(*flat)), *cum = calloc(nn, sizeof(*cum));
	size_t *stamp = calloc(nn, sizeof(*stamp));
	uint32_t *rows = malloc(nn * sizeof(*rows));
	unsigned char *kept = calloc(nn, 1);
	int ret = -1;

	if (!flat || !cum || !stamp || !rows || !kept)
		goto out;
	for (size_t i = 0; i < st->n; i++) {
		const struct stack *sk = &st->s[i];
		const uint32_t *ids = st->ids + sk->off;

		if (sk->n <= sk->pre)
			continue;
		flat[ids[sk->n - 1]] = sat_add(flat[ids[sk->n - 1]], sk->d);
		for (size_t k = sk->pre; k < sk->n; k++)
			if (stamp[ids[k]] != i + 1) {
				stamp[ids[k]] = i + 1;
				cum[ids[k]] = sat_add(cum[ids[k]], sk->d);
			}
	}
	for (size_t j = 0; j < st->r.names.n; j++)
		if (flat[j] || cum[j])
			rows[nrow++] = (uint32_t)j;
	{
		struct top_ctx c = { &st->r.names, flat, cum, st->top_cum };

		if (nrow)
			qsort_r(rows, nrow, sizeof(*rows), cmp_top, &c);
	}
	for (size_t j = 0; j < nrow && j < st->top_n; j++)
		kept[rows[j]] = 1;
	for (size_t i = 0; i < st->n; i++) {
		struct stack *sk = &st->s[i];
		uint32_t *ids = st->ids + sk->off;
		size_t o = sk->pre;

		for (size_t k = sk->pre; k < sk->n; k++)
			if (kept[ids[k]]) {
				if (st->inl)
					st->inl[sk->ioff + o] = st->inl[sk->ioff + k];
				ids[o++] = ids[k];
			}
		sk->n = o;
		if (o > sk->pre)
			st->s[w++] = *sk;
	}
	st->n = w;
	ret = 0;
out:
	free(flat);
	free(cum);
	free(stamp);
	free(rows);
	free(kept);
	return ret;
}

int psym_rpt_stacks_merge(struct psym_rpt_stacks *st, struct psym_err *e)
{
	if (sort_merge(st) || (st->top_n && (keep_top(st) || sort_merge(st))))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}
