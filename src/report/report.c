/* SPDX-License-Identifier: MIT */
/*
 * The report tree and its aggregation: frame names (units: report_units.c), each location's
 * frames, the sample index, and the merged stacks of folded and flame.
 * The outputs are report_top.c, report_folded.c and report_flame.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mapping.h"
#include "merge.h"
#include "report_int.h"
#include "textesc.h"
#include "show.h"
#include "sidenames.h"
#include "array.h"

/* ---- names: an interner of frame names -------------------------------------- */

static uint64_t name_hash_at(void *ctx, uint32_t i)
{
	struct names *t = ctx;

	return psym_idxset_hash_bytes(&t->idx, t->s[i], strlen(t->s[i]));
}

long psym_rpt_name_add(struct names *t, const char *s)
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

/* ---- nodes of locations ------------------------------------------------------ */
int psym_rpt_init(struct rep *r, const struct psym_profile *p, const struct psym_report_opts *o,
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
	r->loc = malloc((nl ? nl : 1) * sizeof(*r->loc));
	if (!r->loc)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	memset(r->loc, 0xff, (nl ? nl : 1) * sizeof(*r->loc));
	r->map_kind = calloc(p->pb->n_mapping + 1, 1);
	if (!r->map_kind)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	/* By function, a named function's key is its name: interned once. */
	if (o->by == PSYM_BY_FUNCTION) {
		r->fn_name = calloc(p->pb->n_function + 1, sizeof(*r->fn_name));
		if (!r->fn_name)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	return psym_rpt_filter_new(p, &o->filter, &r->flt, e);
}

void psym_rpt_free(struct rep *r)
{
	free(r->loc);
	free(r->frames);
	free(r->fn_name);
	free(r->map_kind);
	psym_rpt_filter_free(r->flt);
	names_free(&r->names);
}

/* Kind of a location's code, from its mapping (K_USER when nothing special). */
static enum kind mapping_kind(const pb_mapping *m, const char *mn, uint64_t address);

static enum kind location_kind(struct rep *r, const pb_location *l)
{
	const struct psym_profile *p = r->p;
	long mpos = l->mapping_id ? psym_profile_mapping_pos(p, l->mapping_id) : -1;
	const pb_mapping *m = mpos >= 0 ? p->pb->mapping[mpos] : NULL;
	const char *mn;
	enum kind k;

	if (m && r->map_kind[mpos])
		return (enum kind)(r->map_kind[mpos] - 1);
	mn = m ? psym_profile_str(p, m->filename) : "";
	k = mapping_kind(m, mn, l->address);
	if (m)
		r->map_kind[mpos] = (unsigned char)(k + 1);
	return k;
}

/*
 * The kind of code of mapping m named mn (NULL: no mapping, by the
 * address), as the symbolizer classifies mappings (mapping.c): the kernel
 * and its modules; anonymous memory and perf's JIT maps (/tmp/perf-PID.map,
 * where perf places the code a perf map names) as JIT; the rest user.
 */
static enum kind mapping_kind(const pb_mapping *m, const char *mn, uint64_t address)
{
	const char *base = strrchr(mn, '/');

	if (!m)
		return address >= 0xffff800000000000ULL ? K_KERNEL : K_USER;
	switch (psym_mapping_classify(mn, NULL, 0, NULL)) {
	case PSYM_MAP_KERNEL:
	case PSYM_MAP_KMODULE: return K_KERNEL;
	case PSYM_MAP_ANON: return K_JIT;
	default: break;
	}
	base = base ? base + 1 : mn;
	if (psym_side_is_perf_map(base))
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
void psym_rpt_clean_path(char *buf, size_t sz, const char *path)
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
 * this granularity, its control characters escaped (textesc.h).
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
	int64_t line = ln && (r->by == PSYM_BY_LINE || r->by == PSYM_BY_ADDRESS) ? ln->line : 0;
	char cfile[4096];
	size_t n = 0;

	base = base ? base + 1 : obj;
	if (*file)
		psym_rpt_clean_path(cfile, sizeof(cfile), file);
	else
		cfile[0] = '\0';
	buf[0] = '\0';
	/* pprof's NameComponents: the address first, when kept and not 0. */
	if (r->by == PSYM_BY_ADDRESS && loc->address)
		n = (size_t)snprintf(buf, sz, "%016" PRIx64, loc->address);
	if (*name)
		n += (size_t)snprintf(buf + n, sz - n, "%s%s", n ? " " : "", name);
	if (n >= sz)
		n = sz - 1;
	if (line)
		n += (size_t)snprintf(buf + n, sz - n, "%s%s:%" PRId64, n ? " " : "", cfile, line);
	else if (*cfile)
		n += (size_t)snprintf(buf + n, sz - n, "%s%s", n ? " " : "", cfile);
	else if (*name)
		;
	else if (*obj)
		n += (size_t)snprintf(buf + n, sz - n, "%s[%s]", n ? " " : "", base);
	else
		n += (size_t)snprintf(buf + n, sz - n, "%s<unknown>", n ? " " : "");
	if (n >= sz)
		n = sz - 1;
	if (psym_text_needs_escape(buf, n)) {
		/* Names from input show their control characters, not send them. */
		char raw[8192];

		memcpy(raw, buf, n < sizeof(raw) ? n : sizeof(raw));
		n = psym_text_escape_buf(buf, sz, raw, n < sizeof(raw) ? n : sizeof(raw));
	}
	/* pprof keeps the binary and start line of nameless functions apart. */
	if (r->exact && (!*name || r->objnames) && (*obj || (f && f->start_line)))
		snprintf(buf + n, sz - n, "\x1f%s\x1f%" PRId64, obj, f ? f->start_line : 0);
}

static int push_frame(struct rep *r, uint32_t id)
{
	uint32_t *nf = psym_array_grow(r->frames, &r->cap, r->nframes + 1, sizeof(*nf), UINT32_MAX);

	if (!nf)
		return -1;
	r->frames = nf;
	r->frames[r->nframes++] = id;
	return 0;
}

/* Frames (node ids, innermost first) of the location at position pos; -1: no memory. */
long psym_rpt_loc_frames(struct rep *r, size_t pos, const uint32_t **out)
{
	const pb_location *loc;
	enum kind k;
	char buf[8192];
	size_t first = r->nframes;

	if (r->loc[pos].first != UINT32_MAX) {
		*out = r->frames ? r->frames + r->loc[pos].first : NULL;
		return r->loc[pos].n;
	}
	loc = r->p->pb->location[pos];
	k = location_kind(r, loc);
	for (size_t j = 0; j < (loc->n_line ? loc->n_line : 1); j++) {
		const pb_line *ln = loc->n_line ? loc->line[j] : NULL;
		long id = -1, fpos = -1;
		size_t fresh = SIZE_MAX; /* names before a lookup: id >= fresh is new */

		if (r->flt && !psym_rpt_filter_line_shown(r->flt, r->p, loc, ln))
			continue;
		if (r->fn_name && ln) {
			fpos = psym_profile_function_pos(r->p, ln->function_id);
			if (fpos >= 0 && r->fn_name[fpos])
				id = (long)r->fn_name[fpos] - 1;
		}
		if (id < 0) {
			fresh = r->names.n;
			node_key(r, loc, ln, buf, sizeof(buf));
			id = psym_rpt_name_add(&r->names, buf);
			if (id < 0)
				return -1;
			if (fpos >= 0 && *psym_profile_str(r->p, r->p->pb->function[fpos]->name))
				r->fn_name[fpos] = (uint32_t)id + 1;
		}
		if (push_frame(r, (uint32_t)id))
			return -1;
		/* Kernel/JIT locations win; unsymbolized frames are "unknown". */
		if (!loc->n_line)
			r->names.kind[id] = K_UNKNOWN;
		else if (k != K_USER || ((size_t)id >= fresh && r->names.kind[id] == K_USER))
			/* A user location changes nothing of a known name's kind. */
			r->names.kind[id] = frame_kind(k, r->names.s[id]);
	}
	if (r->nframes - first > UINT32_MAX)
		return -1;
	r->loc[pos].first = (uint32_t)first;
	r->loc[pos].n = (uint32_t)(r->nframes - first);
	*out = r->frames ? r->frames + first : NULL; /* no frames yet: NULL + 0 is UB */
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
	unsigned char *nolines;
	int ret = psym_report_sample_index(p, o, &idx, e);

	*share = 0;
	if (ret)
		return ret;
	/*
	 * Which locations have no lines, read in the order they lie in memory:
	 * the samples' leaves are all over a large profile.
	 */
	nolines = malloc(pb->n_location ? pb->n_location : 1);
	if (!nolines)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < pb->n_location; i++)
		nolines[i] = pb->location[i]->n_line == 0;
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];
		double v = (double)abs64(s->value[idx]);
		long pos;

		if (!s->n_location_id)
			continue;
		all += v;
		pos = psym_rpt_loc_pos(p, s->location_id[0]);
		if (pos >= 0 && nolines[pos])
			raw += v;
	}
	free(nolines);
	*share = all > 0 ? raw / all : 0;
	return 0;
}

int64_t psym_rpt_base_key(const struct psym_profile *p)
{
	for (size_t i = 1; i < p->pb->n_string_table; i++)
		if (!strcmp(p->pb->string_table[i], PSYM_DIFF_BASE_LABEL))
			return (int64_t)i;
	return -1;
}

bool psym_rpt_is_base(const struct psym_profile *p, const pb_sample *s, int64_t key)
{
	for (size_t j = 0; j < s->n_label; j++)
		if (s->label[j]->key == key &&
		    !strcmp(psym_profile_str(p, s->label[j]->str), "true"))
			return true;
	return false;
}

const char *psym_rpt_label_str(const struct psym_profile *p, const pb_sample *s, const char *key,
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

/* The number of frames location pos shows (the filter's question); -1: no memory. */
static long loc_nframes(void *ud, size_t pos)
{
	const uint32_t *fr;

	return psym_rpt_loc_frames(ud, pos, &fr);
}

int psym_rpt_sample_kept(struct rep *r, const pb_sample *s)
{
	return psym_rpt_filter_sample_kept(r->flt, r->p, s, loc_nframes, r);
}
