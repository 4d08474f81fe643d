/* SPDX-License-Identifier: MIT */
/*
 * Report filters with pprof's semantics (profile/filter.go and
 * driver/driver_focus.go): focus/ignore select samples by the names of their
 * locations, hide/show drop lines (frames) of locations, tagfocus/tagignore
 * select samples by label; comms/pids as perf's options of those names.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "rx.h"

enum {
	RX_FOCUS,
	RX_IGNORE,
	RX_HIDE,
	RX_SHOW,
	RX_N
};

enum {
	LOC_UNKNOWN,
	LOC_NONE,
	LOC_FOCUS,
	LOC_IGNORE
};

enum {
	NUM_EQ,
	NUM_GE,
	NUM_LE,
	NUM_RANGE
};

struct tagf {
	bool set;
	char *key; /* NULL: any key */
	bool numeric;
	int mode;
	double v1, v2;
	const char *unit; /* of v1/v2, a static unit name or the range's own text */
	char unitbuf[32];
	struct psym_rx **rx;
	size_t nrx;
};

struct psym_rpt_filter {
	struct psym_rx *re[RX_N];
	/* Per string of the profile, per RX_*: 0 not matched yet, 1 no, 2 yes. */
	unsigned char *memo[RX_N];
	size_t nstr;
	bool has[RX_N];
	struct tagf tf[2]; /* tagfocus, tagignore */
	char **comms;
	size_t ncomm;
	int64_t *pids;
	size_t npid;
	unsigned char *locfi;	     /* per location position: LOC_* */
	struct psym_rpt_numunit *nu; /* pprof's NumLabelUnits, for numeric tag filters */
	size_t nnu;
};

/* A pattern as Go's regexp reads it (rx.h): what pprof refuses is refused here. */
static int compile_rx(struct psym_rx **re, const char *src, const char *what, struct psym_err *e)
{
	struct psym_err re_e = { 0 };
	int rc = psym_rx_compile(src, re, &re_e);

	if (rc == PSYM_ENOMEM)
		return psym_err_set(e, rc, "out of memory");
	if (rc) /* a long pattern shortened, so that the reason fits on the line */
		return psym_err_set(e, PSYM_EUSAGE, "bad %s regular expression '%.100s%s': %s",
				    what, src, strlen(src) > 100 ? "..." : "", re_e.msg);
	return 0;
}

static bool rx_match(struct psym_rx *re, const char *s)
{
	return psym_rx_match(re, s, strlen(s));
}

/*
 * Filter i against string idx of the profile, each string matched once
 * (the same function, file and binary names recur in many locations).
 */
static bool str_matches(const struct psym_rpt_filter *f, int i, const struct psym_profile *p,
			int64_t idx)
{
	bool m;

	if (idx < 0 || (size_t)idx >= f->nstr || !f->memo[i])
		return rx_match(f->re[i], psym_profile_str(p, idx));
	if (f->memo[i][idx])
		return f->memo[i][idx] == 2;
	m = rx_match(f->re[i], psym_profile_str(p, idx));
	f->memo[i][idx] = m ? 2 : 1;
	return m;
}

/* ---- tag filters ------------------------------------------------------------- */

/* pprof's tagFilterRangeRx: [+-]?digits, then letters; the next match from *c. */
static bool range_token(const char **c, const char **start, int64_t *v, char *unit, size_t usz)
{
	const char *s = *c;

	for (; *s; s++) {
		const char *d = s;

		if (*d == '+' || *d == '-')
			d++;
		if (*d >= '0' && *d <= '9')
			break;
	}
	if (!*s)
		return false;
	*start = s;
	{
		const char *d = s + (*s == '+' || *s == '-');
		const char *u;
		char *end;

		errno = 0;
		*v = strtoll(s, &end, 10);
		if (errno || end <= d)
			return false;
		u = end;
		while ((*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z'))
			u++;
		if ((size_t)(u - end) >= usz)
			return false;
		memcpy(unit, end, (size_t)(u - end));
		unit[u - end] = '\0';
		*c = u;
	}
	return true;
}

/* pprof's parseTagFilterRange; false: not a range (a regexp then). */
static bool parse_range(struct tagf *t, const char *f)
{
	const char *c = f, *s1, *e1, *s2, *e2;
	int64_t v1, v2;
	char u1[32], u2[32];
	const char *su;

	if (!range_token(&c, &s1, &v1, u1, sizeof(u1)))
		return false;
	e1 = c;
	if (!range_token(&c, &s2, &v2, u2, sizeof(u2))) {
		size_t ml = (size_t)(e1 - s1), fl = strlen(f);

		if (s1 == f && fl == ml)
			t->mode = NUM_EQ;
		else if (s1 == f && fl == ml + 1 && f[ml] == ':')
			t->mode = NUM_GE;
		else if (s1 == f + 1 && f[0] == ':' && fl == ml + 1)
			t->mode = NUM_LE;
		else
			return false;
		t->v1 = psym_rpt_scale(v1, u1, u1, &su);
		snprintf(t->unitbuf, sizeof(t->unitbuf), "%s", su);
		t->unit = t->unitbuf;
		return true;
	}
	e2 = c;
	if (s1 != f || *e1 != ':' || s2 != e1 + 1 || *e2)
		return false;
	t->v1 = psym_rpt_scale(v1, u1, u1, &su);
	snprintf(t->unitbuf, sizeof(t->unitbuf), "%s", su);
	t->unit = t->unitbuf;
	t->v2 = psym_rpt_scale(v2, u2, t->unit, &su);
	if (strcmp(su, t->unit))
		return false;
	t->mode = NUM_RANGE;
	return true;
}

static int tagf_compile(struct tagf *t, const char *spec, const char *what, struct psym_err *e)
{
	const char *eq = strchr(spec, '=');
	const char *val = eq ? eq + 1 : spec;
	char *dup, *save = NULL;

	t->set = true;
	if (eq) {
		t->key = strndup(spec, (size_t)(eq - spec));
		if (!t->key)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (parse_range(t, val)) {
		t->numeric = true;
		return 0;
	}
	dup = strdup(val);
	t->rx = calloc(strlen(val) + 1, sizeof(*t->rx));
	if (!dup || !t->rx) {
		free(dup);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	/* strings.Split: empty pieces are regexps too (matching anything). */
	for (char *c = dup;; c = NULL) {
		char *piece = c ? c : save;
		char *comma;
		int ret;

		if (!piece)
			break;
		comma = strchr(piece, ',');
		if (comma)
			*comma = '\0';
		save = comma ? comma + 1 : NULL;
		ret = compile_rx(&t->rx[t->nrx], piece, what, e);
		if (ret) {
			free(dup);
			return ret;
		}
		t->nrx++;
		if (!comma)
			break;
	}
	free(dup);
	return 0;
}

static void tagf_free(struct tagf *t)
{
	for (size_t i = 0; i < t->nrx; i++)
		psym_rx_free(t->rx[i]);
	free(t->rx);
	free(t->key);
}

/* pprof's NumLabelUnits (report_int.h). */
int psym_rpt_num_units(const struct psym_profile *p, struct psym_rpt_numunit **out, size_t *n)
{
	const pb_profile *pb = p->pb;
	struct psym_rpt_numunit *nu = NULL;
	size_t nnu = 0;

	for (size_t i = 0; i < pb->n_sample; i++)
		for (size_t j = 0; j < pb->sample[i]->n_label; j++) {
			const pb_label *l = pb->sample[i]->label[j];
			const char *k = psym_profile_str(p, l->key);
			const char *u = psym_profile_str(p, l->num_unit);
			size_t x;

			if (!psym_rpt_label_numeric(l))
				continue;
			for (x = 0; x < nnu && strcmp(nu[x].key, k); x++)
				;
			if (x == nnu) {
				struct psym_rpt_numunit *nn = realloc(nu, (nnu + 1) * sizeof(*nn));

				if (!nn) {
					free(nu);
					return -1;
				}
				nu = nn;
				nu[nnu++] = (struct psym_rpt_numunit){ k, "" };
			}
			if (!*nu[x].unit && *u)
				nu[x].unit = u;
		}
	for (size_t x = 0; x < nnu; x++)
		if (!*nu[x].unit)
			nu[x].unit =
				!strcmp(nu[x].key, "alignment") || !strcmp(nu[x].key, "request")
					? "bytes"
					: nu[x].key;
	*out = nu;
	*n = nnu;
	return 0;
}

const char *psym_rpt_num_unit(const struct psym_rpt_numunit *nu, size_t n, const char *key)
{
	for (size_t x = 0; x < n; x++)
		if (!strcmp(nu[x].key, key))
			return nu[x].unit;
	return key;
}

static bool num_match(const struct psym_rpt_filter *f, const struct tagf *t, const char *key,
		      int64_t v)
{
	const char *u = psym_rpt_num_unit(f->nu, f->nnu, key), *su;
	double sv;

	sv = psym_rpt_scale(v, u, t->unit, &su);
	if (strcmp(su, t->unit))
		return false;
	switch (t->mode) {
	case NUM_EQ: return sv == t->v1;
	case NUM_GE: return sv >= t->v1;
	case NUM_LE: return sv <= t->v1;
	default: return sv >= t->v1 && sv <= t->v2;
	}
}

/* A string label's value or a numeric label as pprof decodes them (zero, no unit: none). */
static bool tag_match(const struct psym_rpt_filter *f, const struct tagf *t,
		      const struct psym_profile *p, const pb_sample *s)
{
	if (t->numeric) {
		for (size_t j = 0; j < s->n_label; j++) {
			const pb_label *l = s->label[j];
			const char *k = psym_profile_str(p, l->key);

			if (l->str || (!l->num && !l->num_unit))
				continue;
			if (t->key && strcmp(k, t->key))
				continue;
			if (num_match(f, t, k, l->num))
				return true;
		}
		return false;
	}
	if (!t->key) {
		/* Every regexp must match some "key:value" of a string label. */
		for (size_t r = 0; r < t->nrx; r++) {
			bool m = false;

			for (size_t j = 0; j < s->n_label && !m; j++) {
				const pb_label *l = s->label[j];
				const char *k = psym_profile_str(p, l->key);
				const char *v = psym_profile_str(p, l->str);
				char buf[1024];

				if (!l->str)
					continue;
				if (snprintf(buf, sizeof(buf), "%s:%s", k, v) >= (int)sizeof(buf))
					continue;
				m = rx_match(t->rx[r], buf);
			}
			if (!m)
				return false;
		}
		return true;
	}
	for (size_t j = 0; j < s->n_label; j++) {
		const pb_label *l = s->label[j];

		if (!l->str || strcmp(psym_profile_str(p, l->key), t->key))
			continue;
		for (size_t r = 0; r < t->nrx; r++)
			if (rx_match(t->rx[r], psym_profile_str(p, l->str)))
				return true;
	}
	return false;
}

/* ---- the filter -------------------------------------------------------------- */

static int split_list(const char *spec, char ***out, size_t *n)
{
	char *dup = strdup(spec), *save = NULL;

	if (!dup)
		return -1;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **nn = realloc(*out, (*n + 1) * sizeof(*nn));

		if (!nn || !(nn[*n] = strdup(t))) {
			if (nn)
				*out = nn;
			free(dup);
			return -1;
		}
		*out = nn;
		(*n)++;
	}
	free(dup);
	return 0;
}

bool psym_rpt_filter_active(const struct psym_report_filter *o)
{
	return o->focus || o->ignore || o->hide || o->show || o->tagfocus || o->tagignore ||
	       o->comms || o->pids;
}

int psym_rpt_filter_new(const struct psym_profile *p, const struct psym_report_filter *o,
			struct psym_rpt_filter **out, struct psym_err *e)
{
	const char *rx[RX_N] = { o->focus, o->ignore, o->hide, o->show };
	static const char *const rxname[RX_N] = { "focus", "ignore", "hide", "show" };
	struct psym_rpt_filter *f;
	int ret = 0;

	*out = NULL;
	if (!psym_rpt_filter_active(o))
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (int i = 0; i < RX_N && !ret; i++)
		if (rx[i]) {
			ret = compile_rx(&f->re[i], rx[i], rxname[i], e);
			f->has[i] = !ret;
			/* Without room for the memo, every match is made anew. */
			f->nstr = p->pb->n_string_table;
			if (!ret && f->nstr)
				f->memo[i] = calloc(f->nstr, 1);
		}
	if (!ret && o->tagfocus)
		ret = tagf_compile(&f->tf[0], o->tagfocus, "tagfocus", e);
	if (!ret && o->tagignore)
		ret = tagf_compile(&f->tf[1], o->tagignore, "tagignore", e);
	if (!ret && (f->tf[0].numeric || f->tf[1].numeric) &&
	    psym_rpt_num_units(p, &f->nu, &f->nnu))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (!ret && o->comms && split_list(o->comms, &f->comms, &f->ncomm))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (!ret && o->pids) {
		char **l = NULL;
		size_t n = 0;

		if (split_list(o->pids, &l, &n) || !(f->pids = calloc(n + 1, sizeof(*f->pids))))
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		for (size_t i = 0; !ret && i < n; i++) {
			char *end;

			errno = 0;
			f->pids[i] = strtoll(l[i], &end, 10);
			if (errno || *end || end == l[i])
				ret = psym_err_set(e, PSYM_EUSAGE, "bad process ID '%s' in --pids",
						   l[i]);
		}
		f->npid = n;
		for (size_t i = 0; i < n; i++)
			free(l[i]);
		free(l);
	}
	if (!ret && !(f->locfi = calloc(p->pb->n_location ? p->pb->n_location : 1, 1)))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (ret) {
		psym_rpt_filter_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

void psym_rpt_filter_free(struct psym_rpt_filter *f)
{
	if (!f)
		return;
	for (int i = 0; i < RX_N; i++)
		if (f->has[i])
			psym_rx_free(f->re[i]);
	for (int i = 0; i < RX_N; i++)
		free(f->memo[i]);
	tagf_free(&f->tf[0]);
	tagf_free(&f->tf[1]);
	for (size_t i = 0; i < f->ncomm; i++)
		free(f->comms[i]);
	free(f->comms);
	free(f->pids);
	free(f->locfi);
	free(f->nu);
	free(f);
}

static bool fn_matches(const struct psym_rpt_filter *f, int i, const struct psym_profile *p,
		       const pb_line *ln)
{
	const pb_function *fn = psym_profile_function(p, ln->function_id);

	return fn && (str_matches(f, i, p, fn->name) || str_matches(f, i, p, fn->filename));
}

static bool map_matches(const struct psym_rpt_filter *f, int i, const struct psym_profile *p,
			const pb_location *loc)
{
	const pb_mapping *m = psym_profile_mapping(p, loc->mapping_id);

	return m && str_matches(f, i, p, m->filename);
}

/* pprof's Location.matchesName. */
static bool loc_matches(const struct psym_rpt_filter *f, int i, const struct psym_profile *p,
			const pb_location *loc)
{
	for (size_t j = 0; j < loc->n_line; j++)
		if (fn_matches(f, i, p, loc->line[j]))
			return true;
	return map_matches(f, i, p, loc);
}

bool psym_rpt_filter_line_shown(const struct psym_rpt_filter *f, const struct psym_profile *p,
				const pb_location *loc, const pb_line *ln)
{
	if (!f)
		return true;
	if (!ln) /* a location without lines: --show leaves it no line */
		return !f->has[RX_SHOW] && !(f->has[RX_HIDE] && map_matches(f, RX_HIDE, p, loc));
	if (f->has[RX_HIDE] && (map_matches(f, RX_HIDE, p, loc) || fn_matches(f, RX_HIDE, p, ln)))
		return false;
	if (f->has[RX_SHOW] && !map_matches(f, RX_SHOW, p, loc) &&
	    psym_profile_function(p, ln->function_id) && !fn_matches(f, RX_SHOW, p, ln))
		return false;
	return true;
}

static int loc_focus(struct psym_rpt_filter *f, const struct psym_profile *p, size_t pos)
{
	const pb_location *loc = p->pb->location[pos];

	if (f->locfi[pos] != LOC_UNKNOWN)
		return f->locfi[pos];
	if (f->has[RX_IGNORE] && loc_matches(f, RX_IGNORE, p, loc))
		f->locfi[pos] = LOC_IGNORE;
	else if (!f->has[RX_FOCUS] || loc_matches(f, RX_FOCUS, p, loc))
		f->locfi[pos] = LOC_FOCUS;
	else
		f->locfi[pos] = LOC_NONE;
	return f->locfi[pos];
}

int psym_rpt_filter_sample_kept(struct psym_rpt_filter *f, const struct psym_profile *p,
				const pb_sample *s, long (*nframes)(void *ud, size_t pos), void *ud)
{
	if (!f)
		return 1;
	if (f->has[RX_FOCUS] || f->has[RX_IGNORE] || f->has[RX_HIDE] || f->has[RX_SHOW]) {
		bool focused = false, shown = !(f->has[RX_HIDE] || f->has[RX_SHOW]);

		for (size_t i = 0; i < s->n_location_id; i++) {
			long pos = psym_profile_location_pos(p, s->location_id[i]);
			int fi;

			if (pos < 0)
				continue;
			fi = loc_focus(f, p, (size_t)pos);
			if (fi == LOC_IGNORE)
				return 0;
			if (fi == LOC_FOCUS)
				focused = true;
			if (!shown) {
				long n = nframes(ud, (size_t)pos);

				if (n < 0)
					return -1;
				shown = n > 0;
			}
		}
		if (!focused || !shown)
			return 0;
	}
	if (f->tf[0].set && !tag_match(f, &f->tf[0], p, s))
		return 0;
	if (f->tf[1].set && tag_match(f, &f->tf[1], p, s))
		return 0;
	if (f->ncomm || f->npid) {
		bool cm = !f->ncomm, pm = !f->npid;

		for (size_t j = 0; j < s->n_label; j++) {
			const pb_label *l = s->label[j];
			const char *k = psym_profile_str(p, l->key);

			if (!cm && !strcmp(k, "comm") && l->str)
				for (size_t i = 0; i < f->ncomm && !cm; i++)
					cm = !strcmp(f->comms[i], psym_profile_str(p, l->str));
			if (!pm && !strcmp(k, "pid"))
				for (size_t i = 0; i < f->npid && !pm; i++) {
					char *end;
					const char *sv = psym_profile_str(p, l->str);

					pm = l->str ? (strtoll(sv, &end, 10) == f->pids[i] &&
						       !*end && end != sv)
						    : l->num == f->pids[i];
				}
		}
		if (!cm || !pm)
			return 0;
	}
	return 1;
}
