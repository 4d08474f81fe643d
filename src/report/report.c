/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hashtab.h"
#include "report.h"
#include "show.h"

#define MAX_STACK 4096
/* Report nodes and edges are 32-bit ids; a profile with more is refused. */
#define MAX_NODES ((size_t)UINT32_MAX - 1)

/* ---- names: an interner of frame names -------------------------------------- */

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

static uint64_t name_hash_at(void *ctx, uint32_t i)
{
	struct names *t = ctx;

	return psym_idxset_hash_bytes(&t->idx, t->s[i], strlen(t->s[i]));
}

static long names_add(struct names *t, const char *s)
{
	uint64_t h = psym_idxset_hash_bytes(&t->idx, s, strlen(s));

	PSYM_IDXSET_PROBE(&t->idx, h, j)
		if (!strcmp(t->s[t->idx.slot[j] - 1], s))
			return t->idx.slot[j] - 1;
	if (t->n >= MAX_NODES)
		return -1;
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
	if (psym_idxset_add(&t->idx, (uint32_t)t->n, h, name_hash_at, t)) {
		free(t->s[t->n]);
		return -1;
	}
	return (long)t->n++;
}

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->kind);
	psym_idxset_free(&t->idx);
}

/* Length of the printable part of a key. */
static size_t name_len(const char *key)
{
	return strcspn(key, "\x1f");
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/* ---- units, as pprof's internal/measurement prints them ---------------------- */

struct unit {
	const char *name;
	const char *alias[4];
	double factor;
};

struct unit_type {
	struct unit u[9];
	struct unit def;
};

static const struct unit_type unit_types[] = {
	{ { { "B", { "b", "byte" }, 1 },
	    { "kB", { "kb", "kbyte", "kilobyte" }, 1024.0 },
	    { "MB", { "mb", "mbyte", "megabyte" }, 1048576.0 },
	    { "GB", { "gb", "gbyte", "gigabyte" }, 1073741824.0 },
	    { "TB", { "tb", "tbyte", "terabyte" }, 1099511627776.0 },
	    { "PB", { "pb", "pbyte", "petabyte" }, 1125899906842624.0 } },
	  { "B", { 0 }, 1 } },
	{ { { "ns", { "ns", "nanosecond" }, 1 },
	    { "us", { "\xce\xbcs", "us", "microsecond" }, 1e3 },
	    { "ms", { "ms", "millisecond" }, 1e6 },
	    { "s", { "s", "sec", "second" }, 1e9 },
	    { "hrs", { "hour", "hr" }, 3600e9 } },
	  { "s", { 0 }, 1e9 } },
	{ { { "n*GCU", { "nanogcu" }, 1e-9 },
	    { "u*GCU", { "microgcu" }, 1e-6 },
	    { "m*GCU", { "milligcu" }, 1e-3 },
	    { "GCU", { "gcu" }, 1 },
	    { "k*GCU", { "kilogcu" }, 1e3 },
	    { "M*GCU", { "megagcu" }, 1e6 },
	    { "G*GCU", { "gigagcu" }, 1e9 },
	    { "T*GCU", { "teragcu" }, 1e12 },
	    { "P*GCU", { "petagcu" }, 1e15 } },
	  { "GCU", { 0 }, 1 } },
};

/* pprof's sniffUnit: lower case, a plural 's' dropped, then the aliases. */
static const struct unit *sniff_unit(const struct unit_type *ut, const char *name)
{
	char low[32];
	size_t n = strlen(name);

	if (n >= sizeof(low))
		return NULL;
	for (size_t i = 0; i <= n; i++)
		low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
	if (n > 2 && low[n - 1] == 's')
		low[n - 1] = '\0';
	for (size_t i = 0; i < sizeof(ut->u) / sizeof(ut->u[0]) && ut->u[i].name; i++)
		for (size_t k = 0; k < 4 && ut->u[i].alias[k]; k++)
			if (!strcmp(ut->u[i].alias[k], low))
				return &ut->u[i];
	return NULL;
}

/*
 * pprof's measurement.Scale: value in from, scaled to the unit to ("auto"
 * or "minimum": the largest unit the value is at least 1 of). *out_unit is
 * "" for units not worth printing (count, samples).
 */
static double scale(int64_t value, const char *from, const char *to, const char **out_unit)
{
	if (value < 0 && value != INT64_MIN)
		return -scale(-value, from, to, out_unit);
	for (size_t t = 0; t < sizeof(unit_types) / sizeof(unit_types[0]); t++) {
		const struct unit_type *ut = &unit_types[t];
		const struct unit *fu = sniff_unit(ut, from), *tu;
		double v;

		if (!fu)
			continue;
		v = (double)value * fu->factor;
		if (!strcmp(to, "minimum") || !strcmp(to, "auto")) {
			double f = 0;
			const char *un = NULL;

			for (size_t i = 0; i < sizeof(ut->u) / sizeof(ut->u[0]) && ut->u[i].name;
			     i++)
				if (ut->u[i].factor >= f && v / ut->u[i].factor >= 1.0) {
					f = ut->u[i].factor;
					un = ut->u[i].name;
				}
			if (un) {
				*out_unit = un;
				return v / f;
			}
			*out_unit = ut->def.name;
			return v / ut->def.factor;
		}
		tu = sniff_unit(ut, to);
		if (!tu) {
			*out_unit = ut->def.name;
			return v / ut->def.factor;
		}
		*out_unit = tu->name;
		return v / tu->factor;
	}
	if (!strcmp(to, "count") || !strcmp(to, "sample") || !strcmp(to, "unit") ||
	    !strcmp(to, "minimum") || !strcmp(to, "auto"))
		*out_unit = "";
	else
		*out_unit = to;
	return (double)value;
}

/* pprof's measurement.ScaledLabel: "%.2f" without ".00", then the unit. */
static void scaled_label(char *buf, size_t sz, int64_t value, const char *from, const char *to)
{
	const char *u;
	double v = scale(value, from, to, &u);
	size_t n;

	snprintf(buf, sz, "%.2f", v);
	n = strlen(buf);
	if (n > 3 && !strcmp(buf + n - 3, ".00"))
		buf[n - 3] = '\0';
	if (!strcmp(buf, "0") || !strcmp(buf, "-0")) {
		snprintf(buf, sz, "0");
		return;
	}
	n = strlen(buf);
	snprintf(buf + n, sz - n, "%s", u);
}

void psym_report_value(char *buf, size_t sz, int64_t value, const char *unit)
{
	scaled_label(buf, sz, value, unit, "auto");
}

/* pprof's measurement.Percentage. */
static void percentage(char *buf, size_t sz, int64_t value, int64_t total)
{
	double r = total ? (double)abs64(value) / (double)abs64(total) * 100 : 0;

	if (r >= 99.95 && r <= 100.05)
		snprintf(buf, sz, "  100%%");
	else if (r >= 1.0)
		snprintf(buf, sz, "%5.2f%%", r);
	else
		snprintf(buf, sz, "%5.2g%%", r);
}

/* ---- nodes of locations ------------------------------------------------------ */

/*
 * The report's view of a profile: each location's frames as node ids,
 * computed once per location (innermost first, as its lines are).
 */
struct rep {
	const struct psym_profile *p;
	enum psym_report_granularity by;
	bool exact; /* keys tell apart what pprof's NodeInfo does */
	size_t idx; /* sample value index */
	struct names names;
	uint32_t *loc_first; /* per location position: first frame; UINT32_MAX: not yet */
	uint32_t *loc_n;
	uint32_t *frames;
	size_t nframes, cap;
};

static int rep_init(struct rep *r, const struct psym_profile *p, const struct psym_report_opts *o,
		    bool exact, struct psym_err *e)
{
	size_t nl = p->pb->n_location;
	int ret;

	memset(r, 0, sizeof(*r));
	psym_idxset_init(&r->names.idx);
	r->p = p;
	r->by = o->by;
	r->exact = exact;
	ret = psym_report_sample_index(p, o, &r->idx, e);
	if (ret)
		return ret;
	r->loc_first = malloc((nl ? nl : 1) * sizeof(*r->loc_first));
	r->loc_n = calloc(nl ? nl : 1, sizeof(*r->loc_n));
	if (!r->loc_first || !r->loc_n)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	memset(r->loc_first, 0xff, (nl ? nl : 1) * sizeof(*r->loc_first));
	return 0;
}

static void rep_free(struct rep *r)
{
	free(r->loc_first);
	free(r->loc_n);
	free(r->frames);
	names_free(&r->names);
}

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
	if (!strncmp(n, "JS:", 3) || !strncmp(n, "LazyCompile:", 12) || strstr(n, "Interpreted") ||
	    !strncmp(n, "py::", 4))
		return K_JIT;
	return K_USER;
}

/* Go's filepath.Clean, which pprof applies to file names; into buf. */
static void clean_path(char *buf, size_t sz, const char *path)
{
	size_t n = 0, start;
	bool rooted = path[0] == '/';
	const char *c = path;

	if (sz < 2)
		return;
	if (!*path) {
		snprintf(buf, sz, ".");
		return;
	}
	if (rooted)
		buf[n++] = '/';
	start = n;
	while (*c) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.')) {
			/* empty or "." */
		} else if (len == 2 && c[0] == '.' && c[1] == '.') {
			size_t d = n;

			/* back to the previous '/', unless that is a "..". */
			while (d > start && buf[d - 1] != '/')
				d--;
			if (n > start && !(n - d == 2 && buf[d] == '.' && buf[d + 1] == '.')) {
				n = d > start ? d - 1 : start;
			} else if (!rooted) {
				if (n > start && n + 1 < sz)
					buf[n++] = '/';
				if (n + 2 < sz) {
					buf[n++] = '.';
					buf[n++] = '.';
				}
			}
		} else {
			if (n > start && n + 1 < sz)
				buf[n++] = '/';
			for (size_t i = 0; i < len && n + 1 < sz; i++)
				buf[n++] = c[i];
		}
		c += len;
		if (*c == '/')
			c++;
	}
	if (n == 0)
		buf[n++] = '.';
	buf[n] = '\0';
}

/*
 * The key of the node of one line of a location (ln NULL: a location
 * without lines), named as pprof's NodeInfo.PrintableName names it at
 * this granularity.
 */
static void node_key(const struct rep *r, const pb_location *loc, const pb_line *ln, char *buf,
		     size_t sz)
{
	const struct psym_profile *p = r->p;
	const pb_mapping *m = psym_profile_mapping(p, loc->mapping_id);
	const char *obj = m ? psym_profile_str(p, m->filename) : "";
	const char *base = strrchr(obj, '/');
	const pb_function *f = ln ? psym_profile_function(p, ln->function_id) : NULL;
	const char *name = f && r->by != PSYM_BY_FILE ? psym_profile_str(p, f->name) : "";
	const char *file = f && r->by != PSYM_BY_FUNCTION ? psym_profile_str(p, f->filename) : "";
	int64_t line = ln && r->by == PSYM_BY_LINE ? ln->line : 0;
	char cfile[4096];
	size_t n = 0;

	base = base ? base + 1 : obj;
	if (*file)
		clean_path(cfile, sizeof(cfile), file);
	else
		cfile[0] = '\0';
	buf[0] = '\0';
	if (*name)
		n = (size_t)snprintf(buf, sz, "%s", name);
	if (n >= sz)
		n = sz - 1;
	if (line)
		n += (size_t)snprintf(buf + n, sz - n, "%s%s:%" PRId64, n ? " " : "", cfile, line);
	else if (*cfile)
		n += (size_t)snprintf(buf + n, sz - n, "%s%s", n ? " " : "", cfile);
	else if (*name)
		;
	else if (*obj)
		n += (size_t)snprintf(buf + n, sz - n, "[%s]", base);
	else
		n += (size_t)snprintf(buf + n, sz - n, "<unknown>");
	if (n >= sz)
		n = sz - 1;
	/* pprof keeps the binary and start line of nameless functions apart. */
	if (r->exact && !*name && (*obj || (f && f->start_line)))
		snprintf(buf + n, sz - n, "\x1f%s\x1f%" PRId64, obj, f ? f->start_line : 0);
}

static int push_frame(struct rep *r, uint32_t id)
{
	if (r->nframes == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 4096;
		uint32_t *nf;

		if (nc > UINT32_MAX)
			return -1;
		nf = realloc(r->frames, nc * sizeof(*nf));
		if (!nf)
			return -1;
		r->frames = nf;
		r->cap = nc;
	}
	r->frames[r->nframes++] = id;
	return 0;
}

/* Frames (node ids, innermost first) of the location at position pos; -1: no memory. */
static long loc_frames(struct rep *r, size_t pos, const uint32_t **out)
{
	const pb_location *loc = r->p->pb->location[pos];
	enum kind k;
	char buf[8192];
	size_t first = r->nframes;

	if (r->loc_first[pos] != UINT32_MAX) {
		*out = r->frames + r->loc_first[pos];
		return r->loc_n[pos];
	}
	k = location_kind(r->p, loc);
	for (size_t j = 0; j < (loc->n_line ? loc->n_line : 1); j++) {
		long id;

		node_key(r, loc, loc->n_line ? loc->line[j] : NULL, buf, sizeof(buf));
		id = names_add(&r->names, buf);
		if (id < 0 || push_frame(r, (uint32_t)id))
			return -1;
		/* Kernel/JIT locations win; unsymbolized frames are "unknown". */
		if (!loc->n_line)
			r->names.kind[id] = K_UNKNOWN;
		else if (k != K_USER || r->names.kind[id] == K_USER)
			r->names.kind[id] = frame_kind(k, buf);
	}
	if (r->nframes - first > UINT32_MAX)
		return -1;
	r->loc_first[pos] = (uint32_t)first;
	r->loc_n[pos] = (uint32_t)(r->nframes - first);
	*out = r->frames + first;
	return (long)(r->nframes - first);
}

/* ---- frames of a sample ------------------------------------------------------ */

int psym_report_sample_index(const struct psym_profile *p, const struct psym_report_opts *o,
			     size_t *idx, struct psym_err *e)
{
	const pb_profile *pb = p->pb;

	if (pb->n_sample_type == 0)
		return psym_err_set(e, PSYM_EBADPROFILE, "profile has no sample types");
	if (o->sample_name) {
		for (size_t i = 0; i < pb->n_sample_type; i++)
			if (!strcmp(psym_profile_str(p, pb->sample_type[i]->type),
				    o->sample_name)) {
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

int psym_report_unsymbolized(const struct psym_profile *p, const struct psym_report_opts *o,
			     double *share, struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	double all = 0, raw = 0;
	size_t idx;
	int ret = psym_report_sample_index(p, o, &idx, e);

	*share = 0;
	if (ret)
		return ret;
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		double v = (double)abs64(s->value[idx]);
		const pb_location *l;

		if (!s->n_location_id)
			continue;
		all += v;
		l = psym_profile_location(p, s->location_id[0]);
		if (l && l->n_line == 0)
			raw += v;
	}
	*share = all > 0 ? raw / all : 0;
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
 * Frames of a sample into ids[], leaf first (inline frames innermost first
 * within a location), at most max. Returns the count, or -1 on out of memory.
 */
static long sample_frames(struct rep *r, const pb_sample *s, uint32_t *ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_location_id && n < max; i++) {
		long pos = psym_profile_location_pos(r->p, s->location_id[i]);
		const uint32_t *f;
		long k;

		if (pos < 0)
			continue;
		k = loc_frames(r, (size_t)pos, &f);
		if (k < 0)
			return -1;
		for (long j = 0; j < k && n < max; j++)
			ids[n++] = f[j];
	}
	return (long)n;
}

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

struct edges {
	struct edge *e;
	size_t n, slots;
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
		for (size_t li = s->n_location_id; li-- > 0;) {
			long pos = psym_profile_location_pos(r->p, s->location_id[li]);
			const uint32_t *f;
			long nf;

			if (pos < 0)
				continue;
			nf = loc_frames(r, (size_t)pos, &f); /* known by now: no new names */
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

/* Go's time layout "Jan 2, 2006 at 3:04pm (MST)", local time. */
static void fmt_time(char *buf, size_t sz, int64_t nanos)
{
	time_t t = (time_t)(nanos / 1000000000);
	struct tm tm;
	char zone[64];

	if (!localtime_r(&t, &tm)) {
		snprintf(buf, sz, "?");
		return;
	}
	strftime(zone, sizeof(zone), "%Z", &tm);
	snprintf(buf, sz, "%s %d, %d at %d:%02d%s (%s)",
		 (const char *[]){ "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
				   "Oct", "Nov", "Dec" }[tm.tm_mon % 12],
		 tm.tm_mday, tm.tm_year + 1900, tm.tm_hour % 12 ? tm.tm_hour % 12 : 12, tm.tm_min,
		 tm.tm_hour < 12 ? "am" : "pm", zone);
}

int psym_report_top(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		    struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	struct rep r;
	struct node *nodes = NULL;
	struct edges edges = { 0 };
	uint32_t *rows = NULL;
	size_t ncap = 0, nrows = 0, shown;
	int64_t total = 0, flat_sum = 0, sum = 0;
	const char *unit, *ounit = NULL;
	char a[64], b[64], pa[32], pb2[32], pc[32];
	int ret = rep_init(&r, p, o, true, e);

	if (ret)
		goto out;
	unit = psym_profile_str(p, pb->sample_type[r.idx]->unit);
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		int64_t v = s->value[r.idx];
		uint32_t parent = UINT32_MAX;

		total = sat_add(total, abs64(v));
		if (v == 0)
			continue; /* pprof: a zero sample adds no node and no edge */
		/*
		 * Root to leaf as pprof walks it: a node counts once per sample in
		 * cum (recursion). The leaf (innermost frame of the first
		 * location) gets the flat value.
		 */
		for (size_t li = s->n_location_id; li-- > 0;) {
			long pos = psym_profile_location_pos(p, s->location_id[li]);
			const uint32_t *f;
			long nf;

			if (pos < 0)
				continue;
			nf = loc_frames(&r, (size_t)pos, &f);
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
		scale(minv, unit, "minimum", &minu);
		scale(maxv, unit, "minimum", &maxu);
		ounit = minu;
		if (strcmp(minu, maxu) && minv <= INT64_MAX / 100 && minv * 100 < maxv)
			scale(minv * 100, unit, "minimum", &ounit);
		if (!*ounit)
			ounit = unit;
	}
	for (size_t i = 0; i < shown; i++)
		flat_sum = sat_add(flat_sum, nodes[rows[i]].flat);
	/* pprof's ProfileLabels */
	if (pb->n_mapping) {
		const char *f = psym_profile_str(p, pb->mapping[0]->filename);
		const char *bs = strrchr(f, '/');

		if (*f)
			fprintf(out, "File: %s\n", bs && bs[1] ? bs + 1 : f);
		if (*psym_profile_str(p, pb->mapping[0]->build_id))
			fprintf(out, "Build ID: %s\n",
				psym_profile_str(p, pb->mapping[0]->build_id));
	}
	for (size_t i = 0; i < pb->n_comment; i++) {
		const char *c = psym_profile_str(p, pb->comment[i]);

		if (c[0] != '#')
			fprintf(out, "%s\n", c);
	}
	fprintf(out, "Type: %s\n", psym_profile_str(p, pb->sample_type[r.idx]->type));
	if (pb->time_nanos) {
		char tb[128];

		fmt_time(tb, sizeof(tb), pb->time_nanos);
		fprintf(out, "Time: %s\n", tb);
	}
	if (pb->duration_nanos) {
		const char *tu;
		double tn = scale(total, unit, "nanoseconds", &tu);

		scaled_label(a, sizeof(a), pb->duration_nanos, "nanoseconds", "auto");
		scaled_label(b, sizeof(b), total, unit, ounit);
		if (!strcmp(tu, "ns") && tn != 0) {
			percentage(pa, sizeof(pa), tn >= 9.2e18 ? INT64_MAX : (int64_t)tn,
				   pb->duration_nanos);
			fprintf(out, "Duration: %s, Total samples = %s (%s)\n", a, b, pa);
		} else {
			fprintf(out, "Duration: %s, Total samples = %s \n", a, b);
		}
	}
	scaled_label(a, sizeof(a), flat_sum, unit, ounit);
	scaled_label(b, sizeof(b), total, unit, ounit);
	percentage(pa, sizeof(pa), flat_sum, total);
	fprintf(out, "Showing nodes accounting for %s, %s of %s total\n", a, pa + strspn(pa, " "),
		b);
	if (total && shown < nrows)
		fprintf(out, "Showing top %zu nodes out of %zu\n", shown, nrows);
	fprintf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	for (size_t i = 0; i < shown && !ferror(out); i++) {
		const struct node *nd = &nodes[rows[i]];
		const char *key = r.names.s[rows[i]];

		sum = sat_add(sum, nd->flat);
		scaled_label(a, sizeof(a), nd->flat, unit, ounit);
		scaled_label(b, sizeof(b), nd->cum, unit, ounit);
		percentage(pa, sizeof(pa), nd->flat, total);
		percentage(pb2, sizeof(pb2), sum, total);
		percentage(pc, sizeof(pc), nd->cum, total);
		fprintf(out, "%10s %s %s %10s %s  %.*s%s\n", a, pa, pb2, b, pc, (int)name_len(key),
			key, nd->inl ? (nd->noinl ? " (partial-inline)" : " (inline)") : "");
	}
	goto out;
oom:
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
out:
	free(rows);
	free(nodes);
	free(edges.e);
	rep_free(&r);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}

/* ---- stacks, shared by folded and flame ---------------------------------------- */

struct stack {
	size_t off; /* frames at ids[off..off + n), root first */
	size_t n;
	int64_t v;
};

struct stacks {
	struct rep r;
	uint32_t *ids;
	size_t nids, capids;
	struct stack *s;
	size_t n, cap;
	int64_t total;
	uint32_t *rank; /* per name id: its place in name order */
};

static int push_ids(struct stacks *st, const uint32_t *ids, size_t n, bool reverse)
{
	if (st->nids + n > st->capids) {
		size_t nc = st->capids ? st->capids : 4096;
		uint32_t *ni;

		while (nc < st->nids + n)
			nc *= 2;
		ni = realloc(st->ids, nc * sizeof(*ni));
		if (!ni)
			return -1;
		st->ids = ni;
		st->capids = nc;
	}
	for (size_t k = 0; k < n; k++)
		st->ids[st->nids++] = reverse ? ids[n - 1 - k] : ids[k];
	return 0;
}

static int collect_stacks(const struct psym_profile *p, const struct psym_report_opts *o,
			  struct stacks *st, struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	uint32_t *ids = malloc(MAX_STACK * sizeof(*ids));
	int ret = rep_init(&st->r, p, o, false, e);

	if (ret || !ids) {
		free(ids);
		return ret ? ret : psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		struct stack *sk;
		uint32_t pre[2];
		size_t extra = 0;
		long n;
		char buf[64];
		const char *l;

		if (s->value[st->r.idx] == 0 || s->n_location_id == 0)
			continue; /* nothing to draw */
		n = sample_frames(&st->r, s, ids, MAX_STACK);
		if (n <= 0) {
			if (n < 0)
				goto oom;
			continue;
		}
		if (o->comm_frame && (l = label_str(p, s, "comm", buf, sizeof(buf)))) {
			long id = names_add(&st->r.names, l);

			if (id < 0)
				goto oom;
			pre[extra++] = (uint32_t)id;
		}
		if (o->pid_frame && (l = label_str(p, s, "pid", buf, sizeof(buf)))) {
			long id = names_add(&st->r.names, l);

			if (id < 0)
				goto oom;
			pre[extra++] = (uint32_t)id;
		}
		if (st->n == st->cap) {
			size_t nc = st->cap ? st->cap * 2 : 1024;
			struct stack *ns = realloc(st->s, nc * sizeof(*ns));

			if (!ns)
				goto oom;
			st->s = ns;
			st->cap = nc;
		}
		sk = &st->s[st->n];
		sk->off = st->nids;
		sk->n = (size_t)n + extra;
		sk->v = s->value[st->r.idx];
		if (push_ids(st, pre, extra, false) || push_ids(st, ids, (size_t)n, true))
			goto oom;
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
	free(st->ids);
	free(st->s);
	free(st->rank);
	rep_free(&st->r);
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct names *t = ctx;

	return strcmp(t->s[*(const uint32_t *)a], t->s[*(const uint32_t *)b]);
}

static int cmp_stack(const void *a, const void *b, void *ctx)
{
	const struct stack *x = a, *y = b;
	const struct stacks *st = ctx;
	const uint32_t *xi = st->ids + x->off, *yi = st->ids + y->off;

	for (size_t i = 0; i < x->n && i < y->n; i++)
		if (xi[i] != yi[i])
			return st->rank[xi[i]] < st->rank[yi[i]] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static bool same_stack(const struct stacks *st, const struct stack *x, const struct stack *y)
{
	return x->n == y->n && !memcmp(st->ids + x->off, st->ids + y->off, x->n * sizeof(uint32_t));
}

/*
 * Sort the stacks by their frames' names (each name ranked once, so the
 * sort compares integers) and merge identical ones.
 */
static int merge_stacks(struct stacks *st, struct psym_err *e)
{
	const struct names *t = &st->r.names;
	uint32_t *order = malloc((t->n ? t->n : 1) * sizeof(*order));
	size_t w = 0;

	st->rank = malloc((t->n ? t->n : 1) * sizeof(*st->rank));
	if (!order || !st->rank) {
		free(order);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < t->n; i++)
		order[i] = (uint32_t)i;
	if (t->n)
		qsort_r(order, t->n, sizeof(*order), cmp_name, (void *)t);
	for (size_t i = 0; i < t->n; i++)
		st->rank[order[i]] = (uint32_t)i;
	free(order);
	if (st->n)
		qsort_r(st->s, st->n, sizeof(*st->s), cmp_stack, st);
	for (size_t r = 0; r < st->n; r++) {
		if (w && same_stack(st, &st->s[w - 1], &st->s[r])) {
			st->s[w - 1].v = sat_add(st->s[w - 1].v, st->s[r].v);
			continue;
		}
		st->s[w++] = st->s[r];
	}
	st->n = w;
	return 0;
}

int psym_report_folded(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		       struct psym_err *e)
{
	struct stacks st = { 0 };
	size_t *len = NULL;
	int ret = collect_stacks(p, o, &st, e);

	if (!ret)
		ret = merge_stacks(&st, e);
	if (!ret) {
		/* ';' separates frames and '\n' stacks: keep them out of names. */
		len = malloc((st.r.names.n ? st.r.names.n : 1) * sizeof(*len));
		if (!len)
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		for (size_t i = 0; len && i < st.r.names.n; i++) {
			char *c = st.r.names.s[i];

			for (; *c; c++)
				if (*c == ';')
					*c = ':';
				else if (*c == '\n')
					*c = ' ';
			len[i] = (size_t)(c - st.r.names.s[i]);
		}
		for (size_t i = 0; len && i < st.n && !ferror(out); i++) {
			const uint32_t *ids = st.ids + st.s[i].off;

			for (size_t k = 0; k < st.s[i].n; k++) {
				if (k)
					putc(';', out);
				fwrite(st.r.names.s[ids[k]], 1, len[ids[k]], out);
			}
			fprintf(out, " %" PRId64 "\n", st.s[i].v);
		}
	}
	free(len);
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
				putc(*c, out);
		}
	}
}

/* One frame: a (depth, run of stacks with equal prefix) of the merged stacks. */
static void flame_frame(FILE *out, const struct stacks *st, const char *unit, uint32_t id, size_t d,
			int64_t x, int64_t val, double W, double H, double pad, double y0)
{
	static const char *const fill[] = { "#f4a261", "#e76f51", "#2a9d8f", "#b0b0b0" };
	const char *nm = st->r.names.s[id];
	double fw = (double)val / (double)st->total;
	double px = (double)x / (double)st->total;
	double rw = fw * (W - 2 * pad), y = y0 + (double)d * H;
	size_t c = (size_t)(rw / 7);
	char v[64], pct[32];

	psym_report_value(v, sizeof(v), val, unit);
	percentage(pct, sizeof(pct), val, st->total);
	fprintf(out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%zu\"><title>", px,
		fw, d);
	xml_text(out, nm);
	fprintf(out,
		" (%s, %s)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		"fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\" data-n=\"",
		v, pct + strspn(pct, " "), pad + px * (W - 2 * pad), y, rw > 0.5 ? rw - 0.5 : rw,
		H - 1, fill[st->r.names.kind[id] & 3], pad + px * (W - 2 * pad) + 3, y + 12);
	xml_text(out, nm);
	fprintf(out, "\">");
	if (c >= 3) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%s", nm);
		if (strlen(buf) > c)
			strcpy(buf + c - 2, "..");
		xml_text(out, buf);
	}
	fprintf(out, "</text></g>\n");
}

int psym_report_flame(const struct psym_profile *p, const struct psym_report_opts *o,
		      const char *title, FILE *out, struct psym_err *e)
{
	static const char *const fill[] = { "#f4a261", "#e76f51", "#2a9d8f", "#b0b0b0" };
	const double W = 1200.0, H = 17.0, pad = 10.0;
	struct stacks st = { 0 };
	size_t maxdepth = 0, omitted = 0;
	int64_t *acc = NULL;
	const char *unit;
	int ret = collect_stacks(p, o, &st, e);

	if (!ret)
		ret = merge_stacks(&st, e);
	if (ret)
		goto out;
	unit = psym_profile_str(p, p->pb->sample_type[st.r.idx]->unit);
	for (size_t i = 0; i < st.n; i++)
		if (st.s[i].n > maxdepth)
			maxdepth = st.s[i].n;
	{
		/* Root at the top, under the title: what a viewer sees first. */
		double y0 = pad + 2.5 * H, height = y0 + (double)(maxdepth + 1) * H + pad;
		char tv[64];

		fprintf(out,
			"<?xml version=\"1.0\" standalone=\"no\"?>\n"
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
			"]]></script>\n",
			W, pad);
		fprintf(out,
			"<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fdf6e3\"/>\n",
			W, height);
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"16\">",
			W / 2, pad + 12);
		xml_text(out, title ? title : "Flame graph");
		psym_report_value(tv, sizeof(tv), st.total, unit);
		fprintf(out,
			"</text>\n<text id=\"total\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">",
			W / 2, pad + 12 + H);
		xml_text(out, psym_profile_str(p, p->pb->sample_type[st.r.idx]->type));
		fprintf(out, ": %s total</text>\n", tv);
		fprintf(out,
			"<text id=\"search\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" "
			"style=\"cursor:pointer\">Search</text>\n",
			W - pad, pad + 12);
		fprintf(out,
			"<text id=\"reset\" x=\"%.0f\" y=\"%.0f\" style=\"cursor:pointer\">Reset zoom"
			"</text>\n",
			pad, pad + 12);
		fprintf(out, "<g id=\"legend\">");
		{
			static const char *const kname[] = { "user", "kernel", "JIT", "unknown" };

			for (int k = 0; k < 4; k++)
				fprintf(out,
					"<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
					"<text x=\"%.0f\" y=\"%.0f\">%s</text>",
					W / 2 + 180 + k * 80.0, pad + 3, fill[k],
					W / 2 + 194 + k * 80.0, pad + 12, kname[k]);
		}
		fprintf(out, "</g>\n");
		/*
		 * Frames: the merged stacks are sorted, so equal prefixes are
		 * adjacent; each (depth, run of equal prefix) is one frame.
		 */
		if (st.total > 0) {
			int64_t x = 0;

			acc = calloc(maxdepth + 1, sizeof(*acc));
			if (!acc) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
			for (size_t i = 0; i <= st.n && !ferror(out); i++) {
				/* Depth at which stack i differs from stack i-1. */
				size_t common = 0;

				if (i > 0 && i < st.n) {
					const uint32_t *a = st.ids + st.s[i].off,
						       *b = st.ids + st.s[i - 1].off;

					while (common < st.s[i].n && common < st.s[i - 1].n &&
					       a[common] == b[common])
						common++;
				}
				if (i > 0) {
					/* Close frames of stack i-1 deeper than common. */
					const struct stack *pv = &st.s[i - 1];

					for (size_t d = pv->n; d-- > common;) {
						int64_t val = acc[d];

						acc[d] = 0;
						if ((double)val / (double)st.total * (W - 2 * pad) <
						    0.1) {
							omitted++;
							continue;
						}
						flame_frame(out, &st, unit, st.ids[pv->off + d], d,
							    x - val, val, W, H, pad, y0);
					}
				}
				if (i == st.n)
					break;
				for (size_t d = 0; d < st.s[i].n; d++)
					acc[d] = sat_add(acc[d], st.s[i].v);
				x = sat_add(x, st.s[i].v);
			}
		}
		if (omitted)
			fprintf(out,
				"<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">%zu frames too narrow to "
				"draw</text>\n",
				pad, height - 3, omitted);
		fprintf(out, "</svg>\n");
	}
out:
	free(acc);
	stacks_free(&st);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
