/* SPDX-License-Identifier: MIT */
/*
 * Java legacy profiles, read as go tool pprof reads them: the heapz and
 * contentionz text profiles ("--- heapz 1 ---" / "--- contentionz 1 ---",
 * "NAME = VALUE" attributes with format = java, "V1 V2 @ 0x..." samples)
 * and the symbol section that follows them and the Java CPU profile's
 * binary samples ("0xADDR FUNCTION (FILE:LINE)" lines). The profile comes
 * out symbolized: one location per address in the order samples first use
 * them, each with one Line of its function (functions by name, numbered in
 * the order locations use them) and address 0; a location the symbol
 * section does not name keeps no Line and goes to a mapping covering all
 * addresses. Values: a heap sample's counts are unsampled (Java's 512 KiB
 * sampling rate) and labelled with the block size ("bytes"); a contention
 * sample's are multiplied by the sampling period.
 *
 * The input is untrusted: lines are capped (LINE_MAX_BYTES), numbers
 * checked as Go's strconv checks them, every matcher runs in linear time,
 * and the memory used counts against the profile's cap.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "legacyread.h"
#include "search.h"

/* Heap samples are taken every 512 KiB on average (the Java agent's rate). */
#define JAVA_HEAP_RATE 524288

enum jkind {
	J_HEAP,
	J_CONTENTION
};

/* ---- lines and characters ---------------------------------------------- */

/* Go's \s: space, \t, \n, \f, \r (not \v). */
static bool go_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* [\w ]: ASCII letters, digits, '_' and space. */
static bool word_or_space(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == ' ';
}

static bool digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

struct jline {
	struct scan s; /* the input's lines (psym_legacy_scan_next) */
	char *buf;     /* the current line, trimmed (in s.tok) */
	size_t len;
};

/*
 * The next line into l->buf, trimmed: with need_nl, only a line ended by a
 * newline (Go's header and sample loops leave the last, unended line to the
 * symbol section). 1: a line; 0: none; negative: an error (set).
 */
static int next_line(struct legacy *L, struct jline *l, bool need_nl)
{
	const char *nl;

	if (l->s.p >= l->s.end || (need_nl && !memchr(l->s.p, '\n', (size_t)(l->s.end - l->s.p))))
		return 0;
	/*
	 * A NUL byte would cut the line short where pprof reads it whole (a
	 * name would lose its end, silently): refused, as no name can hold it.
	 */
	nl = memchr(l->s.p, '\n', (size_t)(l->s.end - l->s.p));
	if (memchr(l->s.p, '\0', (size_t)((nl ? nl : l->s.end) - l->s.p)))
		return psym_err_set(L->e, PSYM_EBADPROFILE,
				    "'%s': Java profile: a line with a NUL byte", L->name);
	if (!psym_legacy_scan_next(&l->s))
		return psym_err_set(L->e, PSYM_EBADPROFILE,
				    "'%s': Java profile: a line over %zu bytes", L->name,
				    (size_t)LINE_MAX_BYTES);
	l->buf = psym_legacy_trim(l->s.tok);
	l->len = strlen(l->buf);
	return 1;
}

/* ---- numbers as Go's strconv reads them -------------------------------- */

/* Go's underscoreOK: '_' only between digits (a base prefix counts as one). */
static bool underscores_ok(const char *s, size_t n)
{
	char saw = '^';
	size_t i = 0;
	bool hex = false;

	if (n >= 2 && s[0] == '0' && strchr("bBoOxX", s[1]) && s[1]) {
		i = 2, saw = '0';
		hex = s[1] == 'x' || s[1] == 'X';
	}
	for (; i < n; i++) {
		if (digit((unsigned char)s[i]) || (hex && isxdigit((unsigned char)s[i]))) {
			saw = '0';
			continue;
		}
		if (s[i] == '_') {
			if (saw != '0')
				return false;
			saw = '_';
			continue;
		}
		if (saw == '_')
			return false;
		saw = '!';
	}
	return saw != '_';
}

/* strconv.ParseInt(s, 0, 64) of an unsigned s[0..n): 0 or -1 (not a number, out of range). */
static int go_int0(const char *s, size_t n, int64_t *out)
{
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;
	bool under = false;

	if (!n)
		return -1;
	if (s[0] == '0') {
		char c = n >= 3 ? (char)tolower((unsigned char)s[1]) : 0;

		base = c == 'b' ? 2 : c == 'x' ? 16 : 8;
		i = c == 'b' || c == 'o' || c == 'x' ? 2 : 1;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		unsigned d;

		if (c == '_') {
			under = true;
			continue;
		}
		if (digit(c))
			d = c - '0';
		else if (isxdigit(c))
			d = (unsigned)(tolower(c) - 'a' + 10);
		else
			return -1;
		if (d >= base)
			return -1;
		if (v > ((uint64_t)INT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	if (under && !underscores_ok(s, n))
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* ---- the symbol section ------------------------------------------------ */

/* path.Base as filepath.Base gives it on Linux. */
static void base_name(const char *s, size_t n, const char **b, size_t *bn)
{
	size_t i;

	if (!n) {
		*b = ".", *bn = 1;
		return;
	}
	while (n > 0 && s[n - 1] == '/')
		n--;
	if (!n) {
		*b = "/", *bn = 1;
		return;
	}
	for (i = n; i > 0 && s[i - 1] != '/'; i--)
		;
	*b = s + i, *bn = n - i;
}

/*
 * The last k with s[k] == '(' after a space (Go's \s) and at most kmax:
 * where "^(.*)\s+\(" with the longest (.*) puts the parenthesis.
 */
static bool last_open(const char *s, size_t kmax, size_t *k)
{
	for (size_t i = kmax + 1; i-- > 1;)
		if (s[i] == '(' && go_space((unsigned char)s[i - 1])) {
			*k = i;
			return true;
		}
	return false;
}

static char *dup_counted(struct legacy *L, const char *s, size_t n)
{
	char *d;

	if (L->mem + n + 1 > L->max_mem) {
		psym_err_set(L->e, PSYM_ELIMIT,
			     "'%s': reading it needs more than the memory limit of %zu bytes",
			     L->name, L->max_mem);
		return NULL;
	}
	d = malloc(n + 1);
	if (!d) {
		psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	L->mem += n + 1;
	return d;
}

/* FUNCTION (FILE:LINE), FUNCTION (PATH), a stub, or a bare name: into y. */
static int split_symbol(struct legacy *L, const char *s, size_t n, struct ljsym *y)
{
	const char *fn = s, *file = "";
	size_t fnl = n, filel = 0, k;

	y->line = 0;
	if (n >= 2 && s[n - 1] == ')' && digit((unsigned char)s[n - 2])) {
		size_t c = n - 1, colon = 0;
		bool neg = false, ok = false;

		while (c > 0 && digit((unsigned char)s[c - 1]))
			c--;
		if (c >= 1 && s[c - 1] == ':')
			colon = c - 1, ok = true;
		else if (c >= 2 && s[c - 1] == '-' && s[c - 2] == ':')
			colon = c - 2, ok = neg = true;
		if (ok && colon >= 2 && last_open(s, colon - 2, &k)) {
			int64_t v = 0;

			for (size_t i = c; i < n - 1; i++) {
				if (v > (INT64_MAX - (s[i] - '0')) / 10) {
					v = 0; /* out of range: no line, as Go's ParseInt error */
					break;
				}
				v = v * 10 + (s[i] - '0');
			}
			y->line = neg ? 0 : v;
			fn = s, fnl = k - 1;
			file = s + k + 1, filel = colon - k - 1;
			goto done;
		}
	}
	if (n >= 2 && s[n - 1] == ')' && last_open(s, n - 2, &k)) {
		fn = s, fnl = k - 1;
		base_name(s + k + 1, n - 2 - k, &file, &filel);
	} else if (memmem(s, n, "generated stub/JIT", 18)) {
		fn = "STUB", fnl = 4;
	}
done:
	y->func = dup_counted(L, fn, fnl);
	y->file = y->func ? dup_counted(L, file, filel) : NULL;
	return y->file ? 0 : -1;
}

/* One "0xADDR REST" line (javaLocationRx); other lines are skipped. */
static int symbol_line(struct legacy *L, const char *s, size_t n)
{
	size_t i = 2, j;
	uint64_t a = 0;
	struct ljsym *y;

	if (n < 3 || s[0] != '0' || s[1] != 'x')
		return 0;
	while (i < n && isxdigit((unsigned char)s[i]))
		i++;
	for (j = i; j < n && go_space((unsigned char)s[j]); j++)
		;
	if (i == 2 || j == i || j == n)
		return 0;
	for (size_t d = 2; d < i; d++) {
		unsigned char c = (unsigned char)s[d];

		if (a >> 60)
			return psym_legacy_malformed(L, "symbol address over 64 bits", s);
		a = a << 4 | (uint64_t)(digit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	if (psym_legacy_grow(L, (void **)&L->js, &L->capjs, L->njs + 1, sizeof(*L->js)))
		return -1;
	y = &L->js[L->njs];
	memset(y, 0, sizeof(*y));
	y->addr = a;
	y->idx = L->njs;
	if (split_symbol(L, s + j, n - j, y)) {
		free(y->func);
		return -1;
	}
	L->njs++;
	return 0;
}

int psym_legacy_java_symbols(struct legacy *L, const char *p, const char *end)
{
	struct jline l = { .s = { .p = p, .end = end } };
	int ret;

	L->java = true;
	while ((ret = next_line(L, &l, false)) > 0)
		if (l.len && (ret = symbol_line(L, l.buf, l.len)))
			break;
	free(l.s.tok);
	return ret;
}

/* ---- heapz and contentionz --------------------------------------------- */

/* "KEY=VALUE" somewhere in s, KEY and VALUE runs of [\w ] (attributeRx). */
static bool attribute(char *s, size_t n, char **key, char **val)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i, v;

		if (!word_or_space((unsigned char)s[i]))
			continue;
		while (j < n && word_or_space((unsigned char)s[j]))
			j++;
		if (j + 1 < n && s[j] == '=' && word_or_space((unsigned char)s[j + 1])) {
			for (v = j + 1; v < n && word_or_space((unsigned char)s[v]); v++)
				;
			s[j] = '\0', s[v] = '\0';
			*key = psym_legacy_trim(s + i);
			*val = psym_legacy_trim(s + j + 1);
			return true;
		}
		i = j;
	}
	return false;
}

static int header_attribute(struct legacy *L, enum jkind k, const char *key, const char *val)
{
	int64_t v;

	if (!strcmp(key, "format")) {
		if (strcmp(val, "java"))
			return psym_err_set(L->e, PSYM_EBADPROFILE,
					    "'%s': Java profile: format = %.80s, not java", L->name,
					    val);
	} else if (!strcmp(key, "resolution")) {
		char *u = dup_counted(L, val, strlen(val));

		if (!u)
			return -1;
		free(L->junit);
		L->junit = u;
		L->types[0][0] = k == J_HEAP ? "inuse_objects" : "contentions";
		L->types[0][1] = "count";
		L->types[1][0] = k == J_HEAP ? "inuse_space" : "delay";
		L->types[1][1] = u;
		L->ntypes = 2;
	} else if (k == J_CONTENTION && !strcmp(key, "sampling period")) {
		if (go_int0(val, strlen(val), &v))
			return psym_legacy_malformed(L, "sampling period not a number", val);
		L->ptype[0] = "contentions", L->ptype[1] = "count";
		L->period = v;
	} else if (k == J_CONTENTION && !strcmp(key, "ms since reset")) {
		if (go_int0(val, strlen(val), &v))
			return psym_legacy_malformed(L, "ms since reset not a number", val);
		L->duration = (int64_t)((uint64_t)v * 1000000u);
	} else {
		return psym_legacy_malformed(L, "unknown Java profile attribute", key);
	}
	return 0;
}

/*
 * " *(\d+) +(\d+) +@ +([ x0-9a-f]*)" anywhere in s (javaSampleRx): the
 * groups' bounds in g. Every start inside the spaces and first number of a
 * failed try fails alike, so the next try starts after them: linear time.
 */
static bool sample_match(const char *s, size_t n, size_t g[3][2])
{
	size_t i = 0;

	while (i < n) {
		size_t k = i;

		while (k < n && s[k] == ' ')
			k++;
		if (k == n || !digit((unsigned char)s[k])) {
			i = k + 1;
			continue;
		}
		g[0][0] = k;
		while (k < n && digit((unsigned char)s[k]))
			k++;
		i = g[0][1] = k;
		if (k == n || s[k] != ' ')
			continue;
		while (k < n && s[k] == ' ')
			k++;
		if (k == n || !digit((unsigned char)s[k]))
			continue;
		g[1][0] = k;
		while (k < n && digit((unsigned char)s[k]))
			k++;
		g[1][1] = k;
		if (k == n || s[k] != ' ')
			continue;
		while (k < n && s[k] == ' ')
			k++;
		if (k + 1 >= n || s[k] != '@' || s[k + 1] != ' ')
			continue;
		for (k++; k < n && s[k] == ' '; k++)
			;
		g[2][0] = k;
		while (k < n && (s[k] == ' ' || s[k] == 'x' || digit((unsigned char)s[k]) ||
				 (s[k] >= 'a' && s[k] <= 'f')))
			k++;
		g[2][1] = k;
		return true;
	}
	return false;
}

static int java_sample(struct legacy *L, enum jkind k, char *s, size_t n, bool *done)
{
	size_t g[3][2], first = L->na;
	int64_t v[2], bytes = 0;
	int ret;

	if (!sample_match(s, n, g)) {
		*done = true;
		return 0;
	}
	/* The second number is the first value (Java's fields are inverted). */
	if (go_int0(s + g[1][0], g[1][1] - g[1][0], &v[0]) ||
	    go_int0(s + g[0][0], g[0][1] - g[0][0], &v[1]))
		return psym_legacy_malformed(L, "sample value not a number", s);
	s[g[2][1]] = '\0';
	if ((ret = psym_legacy_hex_addresses(L, s + g[2][0], false, false)))
		return ret;
	if (k == J_HEAP) {
		if (v[0] == 0)
			return psym_legacy_malformed(L, "heap sample with a zero count", s);
		bytes = v[1] / v[0];
		v[0] = psym_legacy_scale_heap(v[0], v[1], JAVA_HEAP_RATE, &v[1]);
	} else if (L->period != 0) {
		v[0] = (int64_t)((uint64_t)v[0] * (uint64_t)L->period);
		v[1] = (int64_t)((uint64_t)v[1] * (uint64_t)L->period);
	}
	if ((ret = psym_legacy_add_sample(L, v, 2, first)))
		return ret;
	if (k == J_HEAP) {
		L->s[L->ns - 1].has_bytes = true;
		L->s[L->ns - 1].bytes = bytes;
	}
	return 0;
}

int psym_legacy_java_text(struct legacy *L, const unsigned char *buf, size_t len)
{
	struct jline l = { .s = { .p = (const char *)buf, .end = (const char *)buf + len } };
	const char *at;
	enum jkind k;
	bool done = false;
	int ret;

	L->java = true;
	L->ptype[0] = L->ptype[1] = "";
	L->period = L->duration = 0;
	L->ntypes = 0;
	if ((ret = next_line(L, &l, true)) <= 0) {
		if (!ret)
			ret = psym_err_set(L->e, PSYM_EBADPROFILE,
					   "'%s': Java profile: nothing after the header", L->name);
		goto out;
	}
	if (!strcmp(l.buf, "--- heapz 1 ---")) {
		k = J_HEAP;
	} else if (!strcmp(l.buf, "--- contentionz 1 ---")) {
		k = J_CONTENTION;
	} else {
		ret = psym_legacy_malformed(L, "not a Java profile header", l.buf);
		goto out;
	}
	/* Attributes until a line that is none. */
	for (at = l.s.p; (ret = next_line(L, &l, true)) > 0; at = l.s.p) {
		char *key, *val;

		if (!l.len)
			continue;
		if (!attribute(l.buf, l.len, &key, &val))
			break;
		if ((ret = header_attribute(L, k, key, val)))
			goto out;
	}
	if (ret < 0)
		goto out;
	/* Samples from that line on, until a line that is none. */
	l.s.p = at;
	for (at = l.s.p; (ret = next_line(L, &l, true)) > 0; at = l.s.p) {
		if (l.len && (ret = java_sample(L, k, l.buf, l.len, &done)))
			goto out;
		if (done)
			break;
	}
	if (ret < 0)
		goto out;
	if (L->ns && L->ntypes == 0) {
		ret = psym_err_set(L->e, PSYM_EBADPROFILE,
				   "'%s': Java profile: samples but no 'resolution' attribute",
				   L->name);
		goto out;
	}
	ret = psym_legacy_java_symbols(L, at, (const char *)buf + len);
out:
	free(l.s.tok);
	return ret < 0 ? ret : 0;
}

/* ---- the profile ------------------------------------------------------- */

static int by_addr_then_idx(const void *a, const void *b)
{
	const struct ljsym *x = *(const struct ljsym *const *)a,
			   *y = *(const struct ljsym *const *)b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_func_then_idx(const void *a, const void *b)
{
	const struct ljsym *x = *(const struct ljsym *const *)a,
			   *y = *(const struct ljsym *const *)b;
	int c = strcmp(x->func, y->func);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The symbol lines that name a used address, sorted by address (the last
 * of one address wins); each function's file is the one its first line in
 * the section gave (pprof keeps one function per name).
 */
static int used_symbols(struct legacy *L, struct ljsym ***out, size_t *nout)
{
	uint64_t *used = NULL;
	struct ljsym **v = NULL;
	size_t nu = 0, n = 0;

	*out = NULL, *nout = 0;
	if (!L->njs || !L->na)
		return 0;
	used = malloc(L->na * sizeof(*used));
	v = malloc(L->njs * sizeof(*v));
	if (!used || !v) {
		free(used);
		free(v);
		return psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
	}
	memcpy(used, L->addrs, L->na * sizeof(*used));
	qsort(used, L->na, sizeof(*used), cmp_u64);
	for (size_t i = 0; i < L->na; i++)
		if (!nu || used[nu - 1] != used[i])
			used[nu++] = used[i];
	for (size_t i = 0; i < L->njs; i++)
		if (bsearch(&L->js[i].addr, used, nu, sizeof(*used), cmp_u64))
			v[n++] = &L->js[i];
	free(used);
	qsort(v, n, sizeof(*v), by_func_then_idx);
	for (size_t i = 0; i < n; i++)
		v[i]->ffile =
			i && !strcmp(v[i]->func, v[i - 1]->func) ? v[i - 1]->ffile : v[i]->file;
	qsort(v, n, sizeof(*v), by_addr_then_idx);
	*out = v, *nout = n;
	return 0;
}

/* The last symbol line for address a in v[n] (sorted), or NULL. */
static const struct ljsym *symbol_of(struct ljsym **v, size_t n, uint64_t a)
{
	size_t lo = PSYM_LOWER_BOUND(0, n, i, v[i]->addr > a);

	return lo > 0 && v[lo - 1]->addr == a ? v[lo - 1] : NULL;
}

static int java_locations(struct legacy *L, struct psym_builder *b, pb_profile *pb, uint64_t *locid)
{
	struct ljsym **v;
	size_t nv, nloc;
	uint64_t fake = 0;
	int ret = used_symbols(L, &v, &nv);

	if (ret)
		return ret;
	/* Locations numbered by first use, as pprof's remapLocationIDs. */
	for (size_t k = 0; k < L->ns; k++)
		for (size_t i = L->s[k].first; i < L->s[k].first + L->s[k].n; i++)
			if (!(locid[i] = psym_builder_location(b, 0, L->addrs[i])))
				goto nomem;
	nloc = pb->n_location;
	for (size_t i = 0; i < nloc; i++) {
		pb_location *loc = pb->location[i];
		const struct ljsym *y = symbol_of(v, nv, loc->address);
		uint64_t fid;

		if (!y) {
			if (loc->address && !fake) {
				pb_mapping *m = psym_builder_mapping(b, 0, UINT64_MAX, 0, "", "");

				if (!m)
					goto nomem;
				fake = m->id;
			}
			if (loc->address)
				loc->mapping_id = fake;
			loc->address = 0;
			continue;
		}
		fid = psym_builder_function(b, y->func, y->func, y->ffile, 0);
		if (!fid || psym_builder_add_line(b, loc, fid, y->line, 0))
			goto nomem;
		loc->address = 0;
	}
	free(v);
	return 0;
nomem:
	free(v);
	return -1;
}

int psym_legacy_java_build(struct legacy *L, const struct psym_limits *lim,
			   struct psym_profile **out)
{
	struct psym_profile *p = NULL;
	struct psym_builder *b = NULL;
	uint64_t *locid = NULL;
	int ret;

	ret = psym_profile_new(lim, &p, L->e);
	if (ret)
		return ret;
	p->was_gzip = false;
	ret = psym_builder_new(p, &b, L->e);
	if (ret)
		goto fail;
	locid = calloc(L->na + 1, sizeof(*locid));
	if (!locid) {
		ret = psym_err_set(L->e, PSYM_ENOMEM, "'%s': out of memory", L->name);
		goto fail;
	}
	if ((ret = java_locations(L, b, p->pb, locid))) {
		if (L->e->msg[0])
			goto fail;
		goto nomem;
	}
	for (size_t k = 0; k < L->ns; k++) {
		struct lsample *s = &L->s[k];
		pb_sample *x = psym_builder_sample(b, locid + s->first, s->n, s->v, s->nv);

		if (!x || (s->has_bytes && psym_builder_label_num(b, x, "bytes", s->bytes, NULL)))
			goto nomem;
	}
	if (psym_legacy_period(L, b, p))
		goto nomem;
	free(locid);
	psym_builder_free(b);
	*out = p;
	return 0;
nomem:
	ret = psym_legacy_nomem(L, b, lim);
fail:
	free(locid);
	psym_builder_free(b);
	psym_profile_free(p);
	return ret;
}

void psym_legacy_java_free(struct legacy *L)
{
	for (size_t i = 0; i < L->njs; i++) {
		free(L->js[i].func);
		free(L->js[i].file);
	}
	free(L->js);
	free(L->junit);
}
