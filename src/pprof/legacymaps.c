/* SPDX-License-Identifier: MIT */
/* The legacy reader's lines, memory map section and profile (legacyread.h). */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "legacyread.h"

bool psym_legacy_scan_next(struct scan *s)
{
	const char *nl;
	size_t n;

	s->have = false;
	if (s->p >= s->end || s->too_long)
		return false;
	nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
	n = nl ? (size_t)(nl - s->p) : (size_t)(s->end - s->p);
	if (n > LINE_MAX_BYTES) {
		s->too_long = true;
		return false;
	}
	if (n + 1 > s->cap) {
		char *t = realloc(s->tok, n + 1);

		if (!t) {
			s->too_long = true;
			return false;
		}
		s->tok = t;
		s->cap = n + 1;
	}
	memcpy(s->tok, s->p, n);
	if (n && s->tok[n - 1] == '\r')
		n--;
	s->tok[n] = '\0';
	s->p = nl ? nl + 1 : s->end;
	s->have = true;
	return true;
}

const char *psym_legacy_scan_text(const struct scan *s)
{
	return s->have ? s->tok : "";
}

/* Leading and trailing white space removed, in place. */
char *psym_legacy_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

bool psym_legacy_space_or_comment(const char *l)
{
	while (isspace((unsigned char)*l))
		l++;
	return !*l || *l == '#';
}

bool psym_legacy_map_sentinel(const char *l)
{
	return strstr(l, "--- Memory map: ---") || strstr(l, "MAPPED_LIBRARIES:");
}

bool psym_legacy_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int psym_legacy_grow(struct legacy *L, void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (L->mem + (ncap - *cap) * size > L->max_mem)
		return psym_err_set(
			L->e, PSYM_ELIMIT,
			"'%s': reading it needs more than the memory limit of %zu bytes", L->name,
			L->max_mem);
	n = realloc(*arr, ncap * size);
	if (!n)
		return psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
	L->mem += (ncap - *cap) * size;
	*arr = n;
	*cap = ncap;
	return 0;
}

int psym_legacy_add_addr(struct legacy *L, uint64_t a)
{
	int ret = psym_legacy_grow(L, (void **)&L->addrs, &L->capa, L->na + 1, sizeof(*L->addrs));

	if (!ret)
		L->addrs[L->na++] = a;
	return ret;
}

/* A new sample whose addresses are the ones added since first. */
int psym_legacy_add_sample(struct legacy *L, const int64_t *v, size_t nv, size_t first)
{
	int ret = psym_legacy_grow(L, (void **)&L->s, &L->caps, L->ns + 1, sizeof(*L->s));
	struct lsample *s;

	if (ret)
		return ret;
	s = &L->s[L->ns++];
	memset(s, 0, sizeof(*s));
	memcpy(s->v, v, nv * sizeof(*v));
	s->nv = nv;
	s->first = first;
	s->n = L->na - first;
	return 0;
}

int psym_legacy_malformed(struct legacy *L, const char *what, const char *line)
{
	return psym_err_set(L->e, PSYM_EBADPROFILE, "'%s': malformed legacy profile: %s: '%.80s'",
			    L->name, what, line);
}

/* Every "0x[0-9a-f]+" of s, as pprof's parseHexAddresses; adjust: - 1 each. */
int psym_legacy_hex_addresses(struct legacy *L, const char *s, bool adjust_all, bool adjust_callers)
{
	size_t i = 0;

	for (const char *p = s; (p = strstr(p, "0x"));) {
		const char *q = p + 2;
		uint64_t a = 0;
		size_t nd = 0;

		while ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')) {
			if (a >> 60)
				return psym_legacy_malformed(L, "address over 64 bits", s);
			nd++;
			a = a << 4 | (uint64_t)(*q <= '9' ? *q - '0' : *q - 'a' + 10);
			q++;
		}
		if (!nd) {
			p += 2;
			continue;
		}
		if (adjust_all || (adjust_callers && i > 0))
			a--;
		if (psym_legacy_add_addr(L, a))
			return -1;
		i++;
		p = q;
	}
	return 0;
}

/* ---- values ------------------------------------------------------------ */

/*
 * A scaled value as an integer: hostile inputs scale past int64 (a double
 * outside its range, or NaN, is undefined to convert): clamped, as no real
 * profile comes near.
 */
int64_t psym_legacy_to_i64(double x)
{
	if (!(x == x))
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

/* A heap sample unsampled at rate (pprof's scaleHeapSample); *osize its size. */
int64_t psym_legacy_scale_heap(int64_t count, int64_t size, int64_t rate, int64_t *osize)
{
	double scale;

	if (count == 0 || size == 0) {
		*osize = 0;
		return 0;
	}
	if (rate <= 1) {
		*osize = size;
		return count;
	}
	scale = 1 / (1 - exp(-((double)size / (double)count) / (double)rate));
	*osize = psym_legacy_to_i64((double)size * scale);
	return psym_legacy_to_i64((double)count * scale);
}

/* ---- the memory map ---------------------------------------------------- */

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static const char *strip_log_prefix(const char *l)
{
	/* glog's "...file:line] " prefix: no '[' or ']' before ":NNN] ". */
	const char *b = strchr(l, ']');

	if (!b || b == l || b[1] == '\0' || !isspace((unsigned char)b[1]))
		return l;
	for (const char *p = l; p < b; p++)
		if (*p == '[')
			return l;
	{
		const char *d = b;

		while (d > l && isdigit((unsigned char)d[-1]))
			d--;
		if (d == b || d == l || d[-1] != ':' || d - 1 == l)
			return l;
	}
	b++;
	while (isspace((unsigned char)*b))
		b++;
	return b;
}

/* One mapping line: /proc/self/maps or pprof's brief form; 1 when taken. */
static int map_line(struct legacy *L, const char *line)
{
	regmatch_t m[13];
	const char *l = line;
	const char *start, *end, *perm = NULL, *off = NULL, *file = NULL, *bid = NULL;
	size_t ls = 0, le = 0, lp = 0, lo = 0, lf = 0, lb = 0;
	struct lmap *x;
	char *endp, buf[24];

	/* Groups: 2 start, 4 end, 6 perm, then (maps) 8 offset, 10 file or
	 * (brief) 8 file, 10 offset, 12 build ID. */
	if (regexec(&L->re_maps, l, 11, m, 0) == 0) {
		if (m[8].rm_so >= 0)
			off = l + m[8].rm_so, lo = (size_t)(m[8].rm_eo - m[8].rm_so);
		if (m[10].rm_so >= 0)
			file = l + m[10].rm_so, lf = (size_t)(m[10].rm_eo - m[10].rm_so);
	} else if (regexec(&L->re_brief, l, 13, m, 0) == 0) {
		if (m[8].rm_so >= 0)
			file = l + m[8].rm_so, lf = (size_t)(m[8].rm_eo - m[8].rm_so);
		if (m[10].rm_so >= 0)
			off = l + m[10].rm_so, lo = (size_t)(m[10].rm_eo - m[10].rm_so);
		if (m[12].rm_so >= 0)
			bid = l + m[12].rm_so, lb = (size_t)(m[12].rm_eo - m[12].rm_so);
	} else {
		return 0; /* not a mapping: ignored, as pprof does */
	}
	start = l + m[2].rm_so, ls = (size_t)(m[2].rm_eo - m[2].rm_so);
	end = l + m[4].rm_so, le = (size_t)(m[4].rm_eo - m[4].rm_so);
	if (m[6].rm_so >= 0)
		perm = l + m[6].rm_so, lp = (size_t)(m[6].rm_eo - m[6].rm_so);
	if (perm && lp && !memchr(perm, 'x', lp))
		return 0; /* not executable */
	if (ls > 16 || le > 16 || lo > 16)
		return 0; /* pprof: a number over 64 bits makes the line unrecognized */
	if (psym_legacy_grow(L, (void **)&L->m, &L->capm, L->nm + 1, sizeof(*L->m)))
		return -1;
	x = &L->m[L->nm];
	memset(x, 0, sizeof(*x));
	memcpy(buf, start, ls), buf[ls] = '\0';
	x->start = strtoull(buf, &endp, 16);
	memcpy(buf, end, le), buf[le] = '\0';
	x->limit = strtoull(buf, &endp, 16);
	if (off) {
		memcpy(buf, off, lo), buf[lo] = '\0';
		x->offset = strtoull(buf, &endp, 16);
	}
	x->file = dupn(file ? file : "", lf);
	x->build_id = dupn(bid ? bid : "", lb);
	if (!x->file || !x->build_id) {
		free(x->file);
		free(x->build_id);
		return psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
	}
	L->mem += lf + lb + 2;
	L->nm++;
	return 1;
}

/* line with every "$NAME" defined so far replaced (first definition wins). */
static const char *substitute(struct legacy *L, const char *line)
{
	size_t n = 0, cap = LINE_MAX_BYTES;

	if (!L->nattr)
		return line;
	if (!L->sub && !(L->sub = malloc(cap + 1)))
		return line;
	for (const char *p = line; *p && n < cap;) {
		size_t i;

		for (i = 0; i < L->nattr; i++) {
			size_t kl = strlen(L->attr[2 * i]);

			if (!strncmp(p, L->attr[2 * i], kl)) {
				size_t vl = strlen(L->attr[2 * i + 1]);

				if (vl > cap - n)
					vl = cap - n;
				memcpy(L->sub + n, L->attr[2 * i + 1], vl);
				n += vl;
				p += kl;
				break;
			}
		}
		if (i == L->nattr)
			L->sub[n++] = *p++;
	}
	L->sub[n] = '\0';
	return L->sub;
}

/* A line that is not a mapping may define an attribute: "NAME=VALUE". */
static int define_attr(struct legacy *L, const char *line)
{
	const char *eq = strchr(line, '=');
	char *k, *v, **na;

	if (!eq || L->nattr == MAX_ATTRS)
		return 0;
	na = realloc(L->attr, (L->nattr + 1) * 2 * sizeof(*na));
	if (!na)
		return psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
	L->attr = na;
	k = malloc((size_t)(eq - line) + 2);
	v = strdup(eq + 1);
	if (!k || !v) {
		free(k);
		free(v);
		return psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
	}
	k[0] = '$';
	memcpy(k + 1, line, (size_t)(eq - line));
	k[eq - line + 1] = '\0';
	memmove(k + 1, psym_legacy_trim(k + 1), strlen(psym_legacy_trim(k + 1)) + 1);
	memmove(v, psym_legacy_trim(v), strlen(psym_legacy_trim(v)) + 1);
	na[2 * L->nattr] = k;
	na[2 * L->nattr + 1] = v;
	L->nattr++;
	return 0;
}

/* The rest of the input, from the current position: mapping lines. */
int psym_legacy_maps_from(struct legacy *L, struct scan *s)
{
	while (psym_legacy_scan_next(s)) {
		const char *line = substitute(L, strip_log_prefix(s->tok));
		int r = map_line(L, line);

		if (r < 0 || (r == 0 && define_attr(L, line)))
			return -1;
	}
	if (s->too_long)
		return psym_err_set(L->e, PSYM_EBADPROFILE, "'%s': a line longer than %zu bytes",
				    L->name, LINE_MAX_BYTES);
	return 0;
}

/* pprof's parseAdditionalSections: skip to the memory map, then read it. */
int psym_legacy_additional_sections(struct legacy *L, struct scan *s)
{
	while (!psym_legacy_map_sentinel(psym_legacy_scan_text(s)) && psym_legacy_scan_next(s))
		;
	if (s->too_long)
		return psym_err_set(L->e, PSYM_EBADPROFILE, "'%s': a line longer than %zu bytes",
				    L->name, LINE_MAX_BYTES);
	return psym_legacy_maps_from(L, s);
}

/* "lib.so", "lib.so.6", "lib.so_1": a shared library's name. */
static bool lib_name(const char *f)
{
	size_t n = strlen(f);
	const char *p;

	if (n >= 3 && strcmp(f + n - 3, ".so") == 0)
		return true;
	for (p = f; (p = strstr(p, ".so")); p += 3)
		if ((p[3] == '.' || p[3] == '_') && isdigit((unsigned char)p[4]))
			return true;
	return false;
}

static bool adjacent(const struct lmap *a, const struct lmap *b)
{
	if (a->file[0] && b->file[0] && strcmp(a->file, b->file))
		return false;
	if (a->build_id[0] && b->build_id[0] && strcmp(a->build_id, b->build_id))
		return false;
	if (a->limit != b->start)
		return false;
	if (a->offset && b->offset && a->offset + (a->limit - a->start) != b->offset)
		return false;
	return true;
}

/* pprof's massageMappings and the mapping fixes of remapMappingIDs. */
static void massage(struct legacy *L)
{
	size_t n = 0;

	for (size_t i = 0; i < L->nm; i++) {
		struct lmap *m = &L->m[i];

		if (n && adjacent(&L->m[n - 1], m)) {
			struct lmap *lm = &L->m[n - 1];

			lm->limit = m->limit;
			if (m->file[0]) {
				free(lm->file);
				lm->file = m->file;
				m->file = NULL;
			}
			if (m->build_id[0]) {
				free(lm->build_id);
				lm->build_id = m->build_id;
				m->build_id = NULL;
			}
			free(m->file);
			free(m->build_id);
			continue;
		}
		L->m[n++] = *m;
	}
	L->nm = n;
	/* The main binary (not a library, not [vdso] and the like) first. */
	for (size_t i = 0; i < L->nm; i++) {
		char *f = L->m[i].file, clean[4096];
		char *d;
		size_t k = 0;

		/* The name without "(deleted)", trimmed. */
		for (const char *p = f; *p && k + 1 < sizeof(clean); p++)
			clean[k++] = *p;
		clean[k] = '\0';
		while ((d = strstr(clean, "(deleted)")))
			memmove(d, d + 9, strlen(d + 9) + 1);
		d = psym_legacy_trim(clean);
		if (!*d || lib_name(d) || *d == '[')
			continue;
		{
			struct lmap t = L->m[0];

			L->m[0] = L->m[i];
			L->m[i] = t;
		}
		break;
	}
	if (L->nm && psym_legacy_starts(L->m[0].file, "/anon_hugepage") && L->nm > 1 &&
	    L->m[0].limit == L->m[1].start) {
		free(L->m[0].file);
		free(L->m[0].build_id);
		memmove(L->m, L->m + 1, (L->nm - 1) * sizeof(*L->m));
		L->nm--;
	}
	if (L->nm && L->m[0].start - L->m[0].offset == 0x400000) {
		L->m[0].start = 0x400000;
		L->m[0].offset = 0;
	}
}

/* The mapping of a location's address, with pprof's fixes; -1: none. */
static long mapping_of(struct legacy *L, uint64_t a)
{
	if (a == 0)
		return -1;
	/* The fake mapping (0 to the top, last) takes whatever the others do not. */
	for (size_t i = 0; i < L->nm; i++)
		if (L->m[i].start <= a && a < L->m[i].limit)
			return (long)i;
	for (size_t i = 0; i < L->nm; i++) {
		struct lmap *m = &L->m[i];

		if (!m->fake && m->offset && m->start - m->offset <= a && a < m->start) {
			m->start -= m->offset;
			m->offset = 0;
			return (long)i;
		}
	}
	if (psym_legacy_grow(L, (void **)&L->m, &L->capm, L->nm + 1, sizeof(*L->m)))
		return -2;
	L->m[L->nm] = (struct lmap){ .limit = UINT64_MAX, .fake = true };
	L->m[L->nm].file = dupn("", 0);
	L->m[L->nm].build_id = dupn("", 0);
	if (!L->m[L->nm].file || !L->m[L->nm].build_id) {
		free(L->m[L->nm].file);
		free(L->m[L->nm].build_id);
		psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
		return -2;
	}
	return (long)L->nm++;
}

/* ---- the profile ------------------------------------------------------- */

int psym_legacy_period(struct legacy *L, struct psym_builder *b, struct psym_profile *p)
{
	pb_value_type *pt;

	for (size_t i = 0; i < L->ntypes; i++)
		if (psym_builder_sample_type(b, L->types[i][0], L->types[i][1]))
			return -1;
	pt = psym_arena_alloc(&p->arena, sizeof(*pt));
	if (!pt)
		return -1;
	perftools__profiles__value_type__init(pt);
	pt->type = psym_builder_str(b, L->ptype[0] ? L->ptype[0] : "");
	pt->unit = psym_builder_str(b, L->ptype[1] ? L->ptype[1] : "");
	if (pt->type < 0 || pt->unit < 0)
		return -1;
	p->pb->period_type = pt;
	p->pb->period = L->period;
	p->pb->duration_nanos = L->duration;
	return 0;
}

int psym_legacy_nomem(struct legacy *L, struct psym_builder *b, const struct psym_limits *lim)
{
	if (psym_builder_error(b) == PSYM_ELIMIT)
		return psym_err_set(
			L->e, PSYM_ELIMIT,
			"'%s': the profile needs more than the memory limit of %zu bytes", L->name,
			lim ? lim->max_memory : 0);
	return psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
}

int psym_legacy_build(struct legacy *L, const struct psym_limits *lim, struct psym_profile **out)
{
	struct psym_profile *p = NULL;
	struct psym_builder *b = NULL;
	uint64_t *locid = NULL, *mapid = NULL;
	long *mof = NULL;
	int ret;

	ret = psym_profile_new(lim, &p, L->e);
	if (ret)
		return ret;
	p->was_gzip = false;
	ret = psym_builder_new(p, &b, L->e);
	if (ret)
		goto fail;
	massage(L);
	/* Each address's mapping, in the order of first use by samples. */
	if (L->na && !(mof = calloc(L->na, sizeof(*mof)))) {
		ret = psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
		goto fail;
	}
	for (size_t i = 0; i < L->na; i++) {
		mof[i] = mapping_of(L, L->addrs[i]);
		if (mof[i] == -2) {
			ret = -1;
			goto fail;
		}
	}
	mapid = calloc(L->nm + 1, sizeof(*mapid));
	locid = calloc(L->na + 1, sizeof(*locid));
	if (!mapid || !locid) {
		ret = psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
		goto fail;
	}
	for (size_t i = 0; i < L->nm; i++) {
		pb_mapping *m =
			psym_builder_mapping(b, L->m[i].start, L->m[i].limit, L->m[i].offset,
					     L->m[i].file, L->m[i].build_id);

		if (!m)
			goto nomem;
		mapid[i] = m->id;
	}
	/* Locations numbered by first use (pprof's remapLocationIDs). */
	for (size_t k = 0; k < L->ns; k++)
		for (size_t i = L->s[k].first; i < L->s[k].first + L->s[k].n; i++)
			if (!(locid[i] = psym_builder_location(b, mof[i] >= 0 ? mapid[mof[i]] : 0,
							       L->addrs[i])))
				goto nomem;
	for (size_t k = 0; k < L->ns; k++) {
		struct lsample *s = &L->s[k];
		uint64_t *ids = locid + s->first;
		size_t n = s->n;
		pb_sample *x;

		/*
		 * The profiler may record the leaf twice (from the signal context
		 * and from unwinding, that one - 1): the copy goes (pprof's
		 * cleanupDuplicateLocations, after numbering).
		 */
		if (L->dup_leaf && n > 1 && L->addrs[s->first] == L->addrs[s->first + 1] + 1) {
			ids[1] = ids[0];
			ids++;
			n--;
		}
		x = psym_builder_sample(b, ids, n, s->v, s->nv);
		if (!x || (s->has_bytes && psym_builder_label_num(b, x, "bytes", s->bytes, NULL)))
			goto nomem;
	}
	if (psym_legacy_period(L, b, p))
		goto nomem;
	free(mof);
	free(mapid);
	free(locid);
	psym_builder_free(b);
	*out = p;
	return 0;
nomem:
	ret = psym_legacy_nomem(L, b, lim);
fail:
	free(mof);
	free(mapid);
	free(locid);
	psym_builder_free(b);
	psym_profile_free(p);
	return ret;
}
