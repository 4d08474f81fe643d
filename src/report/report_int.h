/* SPDX-License-Identifier: MIT */
/*
 * Private to src/report: the report tree shared by top, folded and flame.
 * A profile's locations become frames (node ids into an interner of
 * printable names, computed once per location); folded and flame further
 * turn samples into root-first stacks, sorted by name and merged.
 */
#ifndef PSYM_REPORT_INT_H
#define PSYM_REPORT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hashtab.h"
#include "report.h"

/* Report nodes and edges are 32-bit ids; a profile with more is refused. */
#define MAX_NODES ((size_t)UINT32_MAX - 1)

/* Colour class of a frame in the flame graph. */
enum kind {
	K_USER,
	K_KERNEL,
	K_JIT,
	K_UNKNOWN
};

/*
 * Keys of report nodes. A key is the node's printable name, optionally
 * followed by '\x1f' and what else tells nodes of the same name apart (as
 * pprof's NodeInfo does: the binary and start line of a nameless function).
 * kind[] grows with s[]: each name carries the kind of the locations it
 * came from, so no array indexed by name id is ever sized before the table
 * is complete.
 */
struct names {
	char **s;
	unsigned char *kind; /* enum kind */
	size_t n, cap;
	struct psym_idxset idx; /* indices of s by text */
};

/* Add s (a copy) to t if new; its id, or -1 on out of memory or too many. */
long psym_rpt_name_add(struct names *t, const char *s);

/* Go's filepath.Clean, which pprof applies to file names; into buf. */
void psym_rpt_clean_path(char *buf, size_t sz, const char *path);

/* Length of the printable part of a key. */
static inline size_t name_len(const char *key)
{
	return strcspn(key, "\x1f");
}

static inline int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t abs64(int64_t v)
{
	return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/*
 * pprof's measurement.Scale: value in from, scaled to the unit to ("auto"
 * or "minimum": the largest unit the value is at least 1 of). *out_unit is
 * "" for units not worth printing (count, samples).
 */
double psym_rpt_scale(int64_t value, const char *from, const char *to, const char **out_unit);
/* pprof's measurement.ScaledLabel: "%.2f" without ".00", then the unit. */
void psym_rpt_scaled_label(char *buf, size_t sz, int64_t value, const char *from, const char *to);
/* pprof's measurement.Percentage. */
void psym_rpt_percentage(char *buf, size_t sz, int64_t value, int64_t total);

/*
 * The report's view of a profile: each location's frames as node ids,
 * computed once per location (innermost first, as its lines are).
 */
struct rep {
	const struct psym_profile *p;
	enum psym_report_granularity by;
	bool exact;    /* keys tell apart what pprof's NodeInfo does */
	bool objnames; /* and every node's binary and start line (pprof's ObjNames: list) */
	size_t idx;    /* sample value index */
	struct names names;
	/* Per location position: its frames[first..first + n); first UINT32_MAX: not yet. */
	struct {
		uint32_t first, n;
	} * loc;
	uint32_t *frames;
	size_t nframes, cap;
	unsigned char *map_kind;     /* per mapping position: its enum kind + 1; 0: not yet */
	uint32_t *fn_name;	     /* by function: per function position, its name's id + 1 */
	struct psym_rpt_filter *flt; /* NULL: every sample and frame */
};

/* ---- filters (report_filter.c) ---- */

struct psym_rpt_filter;

bool psym_rpt_filter_active(const struct psym_report_filter *o);
/* NULL in *out when no filter is set; PSYM_EUSAGE for a bad expression. */
int psym_rpt_filter_new(const struct psym_profile *p, const struct psym_report_filter *o,
			struct psym_rpt_filter **out, struct psym_err *e);
void psym_rpt_filter_free(struct psym_rpt_filter *f);
/* Whether line ln of loc (NULL: a location without lines) is a frame (hide/show). */
bool psym_rpt_filter_line_shown(const struct psym_rpt_filter *f, const struct psym_profile *p,
				const pb_location *loc, const pb_line *ln);

/* Position of location id in the profile, or -1 (the common dense case inline). */
static inline long psym_rpt_loc_pos(const struct psym_profile *p, uint64_t id)
{
	if (p->location_ix.dense)
		return id >= 1 && id <= p->pb->n_location ? (long)(id - 1) : -1;
	return psym_profile_location_pos(p, id);
}

/* exact: keys tell apart what pprof's NodeInfo does (top), else names only. */
int psym_rpt_init(struct rep *r, const struct psym_profile *p, const struct psym_report_opts *o,
		  bool exact, struct psym_err *e);
void psym_rpt_free(struct rep *r);
/* Frames (node ids, innermost first) of the location at position pos; -1: no memory. */
long psym_rpt_loc_frames(struct rep *r, size_t pos, const uint32_t **out);
/*
 * The string index of pprof's diff-base label key ("pprof::base") in p,
 * or -1 when p has no diff base; whether sample s is of the base.
 */
int64_t psym_rpt_base_key(const struct psym_profile *p);
bool psym_rpt_is_base(const struct psym_profile *p, const pb_sample *s, int64_t key);

/* 1: sample s passes the filters; 0: not; -1: out of memory. */
int psym_rpt_sample_kept(struct rep *r, const pb_sample *s);
/*
 * The same for the filter f (NULL: every sample) of profile p, asking
 * nframes(ud, pos) how many frames location pos shows (hide/show applied;
 * -1: no memory): the filter is below the report tree, which asks it which
 * lines to show.
 */
int psym_rpt_filter_sample_kept(struct psym_rpt_filter *f, const struct psym_profile *p,
				const pb_sample *s, long (*nframes)(void *ud, size_t pos),
				void *ud);
/* The label key of sample s as text ("key N" for a number), or NULL; in buf or the profile. */
const char *psym_rpt_label_str(const struct psym_profile *p, const pb_sample *s, const char *key,
			       char *buf, size_t bufsz);

struct stack {
	size_t off;  /* frames at ids[off..off + n), root first */
	size_t ioff; /* their inline marks at inl[ioff..ioff + n) (not moved by sorting) */
	size_t n;
	int64_t v;  /* width: the value (0 if negative), of the new profile only in a diff */
	int64_t d;  /* the change in a diff (new - base); else v */
	size_t pre; /* label frames (comm, pid) first: no functions */
	size_t si;  /* the sample's position in the profile (before merging) */
};

struct psym_rpt_stacks {
	struct rep r;
	uint32_t *ids;
	unsigned char *inl; /* per ids[] entry: an inlined frame (not its location's last line) */
	bool no_inl;	    /* set before collecting: no inl[] (NULL), for folded */
	bool zeros;	    /* set before collecting: keep samples of value 0 (traces) */
	size_t nids, capids;
	struct stack *s;
	size_t n, cap;
	int64_t total;
	int64_t total_d; /* sum of d */
	bool diff;	 /* the profile has diff-base or negative samples */
	uint32_t *rank;	 /* per name id: its place in name order */
	size_t top_n;	 /* keep only the frames of the top N functions; 0: all */
	bool top_cum;	 /* ranked by cumulative value */
};

/* The samples' stacks (root first; comm/pid frames first when asked). */
int psym_rpt_stacks_collect(const struct psym_profile *p, const struct psym_report_opts *o,
			    struct psym_rpt_stacks *st, struct psym_err *e);
/*
 * Sort the stacks by their frames' names (each name ranked once, so the
 * sort compares integers) and merge identical ones.
 */
int psym_rpt_stacks_merge(struct psym_rpt_stacks *st, struct psym_err *e);
void psym_rpt_stacks_free(struct psym_rpt_stacks *st);

/*
 * pprof's NumLabelUnits: per numeric label key, the first unit a label
 * gives, else "bytes" for alignment and request, else the key itself.
 * *out (malloc'd, keys and units borrowed from p) has *n entries.
 */
struct psym_rpt_numunit {
	const char *key, *unit;
};
int psym_rpt_num_units(const struct psym_profile *p, struct psym_rpt_numunit **out, size_t *n);
/* The unit of key in the table; the key itself when absent. */
const char *psym_rpt_num_unit(const struct psym_rpt_numunit *nu, size_t n, const char *key);
/* Whether label l is what pprof decodes as a numeric label (not a string, nor an empty one). */
static inline bool psym_rpt_label_numeric(const pb_label *l)
{
	return !l->str && (l->num || l->num_unit);
}

/* ---- the flame graph's script (flame_script.c) ---- */

/* The SVG's script: zoom, search, labels fitted to the window (JavaScript). */
extern const char psym_flame_script[];

/* ---- header lines (report_header.c) ---- */

/* pprof's ProfileLabels: File, Build ID, comments, Type, Time, Duration. */
void psym_rpt_profile_labels(FILE *out, const struct psym_profile *p, size_t idx, int64_t total,
			     const char *ounit);
/* pprof's legendActiveFilters: each filter set as "name=value", cut at 80 bytes. */
void psym_rpt_active_filters(FILE *out, const struct psym_report_filter *f);
/* pprof's report total: the sum of |value| (of the base's samples with a diff base). */
int64_t psym_rpt_total(const struct psym_profile *p, size_t idx);

/* ---- pprof's call graph (report_graph.c) ---- */

struct rpt_node {
	int64_t flat, cum;
	size_t stamp;	 /* last sample counted in cum, + 1; then: a row shown */
	bool inl, noinl; /* incoming edges: some inline, some not */
};

/* Caller -> callee edges. */
struct rpt_edge {
	uint64_t key; /* (caller + 1) << 32 | (callee + 1); 0: empty slot */
	size_t stamp; /* last sample that counted it, + 1 */
	int64_t w;    /* weight: the values of the samples that make the call */
	bool inl;     /* every counted call was inline */
	bool residual, gone;
};

/* An open-addressing table of edges. */
struct rpt_etab {
	struct rpt_edge *e;
	size_t n, slots;
};

/* The edge from -> to, a new one (inline, weight 0) if absent; NULL: no memory. */
struct rpt_edge *psym_rpt_edge_get(struct rpt_etab *t, uint32_t from, uint32_t to);

/*
 * The element of the pair (a, b) in an open-addressing table kept at most
 * half full, of *slots elements of elem bytes (first slots when it is made)
 * whose first member is their uint64_t key (0: an empty slot): the one
 * there, or a new zeroed one with its key (*fresh set). NULL: no memory.
 */
void *psym_rpt_pair_get(void **e, size_t *n, size_t *slots, size_t elem, size_t first, uint32_t a,
			uint32_t b, bool *fresh);

struct rpt_node_order {
	const struct names *names;
	const struct rpt_node *nodes;
	bool by_cum;
};
/* qsort_r order of node ids as pprof sorts report rows (ctx: struct rpt_node_order). */
int psym_rpt_cmp_node(const void *a, const void *b, void *ctx);
/* pprof's selectOutputUnit over the rows shown. */
const char *psym_rpt_output_unit(const struct rpt_node *nodes, const uint32_t *rows, size_t n,
				 int64_t total, const char *unit);

struct psym_rpt_graph {
	struct rep r;
	struct rpt_node *nodes; /* per name id */
	struct rpt_etab et;
	uint32_t *order; /* the graph's nodes, sorted; n of them */
	size_t n;
	size_t orig;		 /* nodes before nodecount */
	size_t dropped_nodes;	 /* by nodefraction */
	int64_t total, node_cut; /* the report total and its node fraction */
	/* After psym_rpt_graph_edges: per node id i, the slots of its in-edges
	 * in[in_at[i]..in_at[i + 1]), of its out-edges likewise, sorted. */
	uint32_t *in, *out;
	size_t *in_at, *out_at;
};

/* pprof's newTrimmedGraph with o's fractions and node count (max_rows). */
int psym_rpt_graph_new(const struct psym_profile *p, const struct psym_report_opts *o,
		       struct psym_rpt_graph *g, struct psym_err *e);
/* The same, nodes keyed as pprof's ObjNames keys them (list: per binary and start line). */
int psym_rpt_graph_new_objnames(const struct psym_profile *p, const struct psym_report_opts *o,
				struct psym_rpt_graph *g, struct psym_err *e);
/*
 * The parts of newTrimmedGraph, for a graph trimmed otherwise (report_dot.c):
 * the report's nodes with nothing counted yet (objnames as above); then
 * pprof's newGraph over the kept samples, only the nodes with kept[id] set
 * (NULL: all), leaving g->order the nodes with a value, unsorted (-1: no
 * memory).
 */
int psym_rpt_graph_init(const struct psym_profile *p, const struct psym_report_opts *o,
			bool objnames, struct psym_rpt_graph *g, struct psym_err *e);
int psym_rpt_graph_build(struct psym_rpt_graph *g, const unsigned char *kept);
/* qsort_r order of edge slots as pprof sorts edges (ctx: the graph). */
int psym_rpt_cmp_edge(const void *a, const void *b, void *ctx);
/* After trimming: each node's live in- and out-edges, sorted (g->in, g->out). */
int psym_rpt_graph_edges(struct psym_rpt_graph *g, struct psym_err *e);
void psym_rpt_graph_free(struct psym_rpt_graph *g);
/* What a report's header says about its rows (pprof's reportLabels). */
struct rpt_counts {
	int64_t total, flat_sum, node_cut;
	size_t dropped_nodes, shown, orig;
};
void psym_rpt_report_labels(FILE *out, const struct psym_profile *p, size_t idx,
			    const struct psym_report_filter *f, const char *ounit,
			    const struct rpt_counts *c);
/* A graph's counts (pprof's text reports say nothing of dropped edges). */
struct rpt_counts psym_rpt_graph_counts(const struct psym_rpt_graph *g);

/* ---- pprof's call graph for -dot (report_vgraph.c) ---- */

#define MAX_NODELETS 4
#define NAME_MAX_DOT 8192

/* A tag of a node: key (node + 1) << 32 | (tag name + 1). */
struct dtag {
	uint64_t key;
	int64_t flat, cum;
	bool gone;
};

/*
 * Tags of all nodes: pprof keeps every node's label sets, which a profile
 * whose samples each have their own label (a span ID) makes as many as its
 * frames; past MAX_TAGS (256 MB of table) the graph is refused.
 */
#define MAX_TAGS ((size_t)1 << 22)
struct dtab {
	struct dtag *e;
	size_t n, slots;
	bool over; /* MAX_TAGS reached */
};

/* What a tag name is: a labels tag, or a numeric one under labels lab. */
struct tmeta {
	bool num;
	uint32_t lab; /* numeric: the labels tag name + 1; 0: samples without labels */
	int64_t value;
};

/*
 * The graph pprof -dot draws: pprof's newTrimmedGraph in its visual mode
 * over g, with the nodes' tags; the legend's counts; the units.
 */
struct psym_rpt_vgraph {
	struct psym_rpt_graph g; /* g.order: the nodes in pprof's order */
	const char *unit, *ounit, *num_unit;
	struct names tn; /* tag names: "L" + labels (escaped for DOT), "N" + lab + "\x1f" + value */
	struct tmeta *tm; /* per tag name */
	size_t tmcap;
	struct dtab tags; /* gone: trimmed */
	uint32_t *slab;	  /* per sample: its labels tag name + 1, 0: none */
	uint32_t *snum;	  /* numeric tag names of all samples ... */
	size_t *snum_at;  /* ... sample i's at snum[snum_at[i]..snum_at[i + 1]) */
	size_t *stamp;	  /* per node: last sample that counted its tags, + 1 */
	unsigned char *kept;
	size_t dropped_edges;
	int64_t node_cut, edge_cut;
	uint32_t *rep_pos, *rep_line; /* per node: a location position and line of it
					 (UINT32_MAX: none; a location without lines) */
	struct psym_rpt_numunit *nu;
};

/* Build it with o's trimming (nodecount, fractions) and filters. Free it even on error. */
int psym_rpt_vgraph_new(const struct psym_profile *p, const struct psym_report_opts *o,
			struct psym_rpt_vgraph *d, struct psym_err *e);
void psym_rpt_vgraph_free(struct psym_rpt_vgraph *d);
/* pprof's escapeForDot (\\, \", newline as \l) of s[0..len), appended to b at *n (cut at sz). */
void psym_rpt_dot_esc(char *b, size_t sz, size_t *n, const char *s, size_t len);

#endif
