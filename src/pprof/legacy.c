/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "legacyread.h"

/* ---- the formats ------------------------------------------------------- */
/* (Java's text profiles and symbol sections: legacyjava.c.) */

typedef uint64_t (*word_fn)(const unsigned char *p);

static uint64_t w32l(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t w32b(const unsigned char *p)
{
	return (uint64_t)p[3] | (uint64_t)p[2] << 8 | (uint64_t)p[1] << 16 | (uint64_t)p[0] << 24;
}

static uint64_t w64l(const unsigned char *p)
{
	return w32l(p) | w32l(p + 4) << 32;
}

static uint64_t w64b(const unsigned char *p)
{
	return w32b(p) << 32 | w32b(p + 4);
}

static const struct {
	word_fn fn;
	size_t size;
} cpu_words[] = { { w32l, 4 }, { w32b, 4 }, { w64l, 8 }, { w64b, 8 } };

/* The CPU profile header: 0, 3, 0 (C++) or 1 (Java), period > 0, 0. */
static int cpu_header(const unsigned char *buf, size_t len, size_t *which, uint64_t *period)
{
	for (size_t i = 0; i < 4; i++) {
		size_t w = cpu_words[i].size;
		uint64_t h[5];

		if (len < 5 * w)
			continue;
		for (size_t k = 0; k < 5; k++)
			h[k] = cpu_words[i].fn(buf + k * w);
		if (h[0] == 0 && h[1] == 3 && (h[2] == 0 || h[2] == 1) && h[3] > 0 && h[4] == 0) {
			*which = i;
			*period = h[3];
			return h[2] == 0 ? PSYM_LEGACY_CPU : PSYM_LEGACY_JAVA_CPU;
		}
	}
	return PSYM_LEGACY_NONE;
}

/* Drop the CPU profiler's signal frame: a second frame most samples share. */
static void strip_signal_frames(struct legacy *L)
{
	size_t margin = L->ns / 32;

	for (int iter = 0; iter < 2; iter++) {
		uint64_t cand = 0;
		bool found = false;

		/* A frame in all but margin samples is the majority (Boyer-Moore vote). */
		size_t votes = 0;
		for (size_t i = 0; i < L->ns; i++) {
			uint64_t a;

			if (L->s[i].n < 2)
				continue;
			a = L->addrs[L->s[i].first + 1];
			if (!votes)
				cand = a, votes = 1;
			else
				votes += a == cand ? 1 : (size_t)-1;
		}
		if (votes) {
			size_t count = 0;

			for (size_t i = 0; i < L->ns; i++)
				count += L->s[i].n >= 2 && L->addrs[L->s[i].first + 1] == cand;
			found = count >= L->ns - margin;
		}
		if (!found)
			continue;
		for (size_t i = 0; i < L->ns; i++) {
			struct lsample *s = &L->s[i];
			uint64_t *a = L->addrs + s->first;

			if (s->n >= 2 && a[1] == cand) {
				memmove(a + 1, a + 2, (s->n - 2) * sizeof(*a));
				s->n--;
			}
		}
	}
}

/* Java's (java): no return-address adjustment or signal frames; symbols follow. */
static int parse_cpu(struct legacy *L, const unsigned char *buf, size_t len, size_t which,
		     uint64_t period, bool java)
{
	word_fn fn = cpu_words[which].fn;
	size_t w = cpu_words[which].size, pos = 5 * w;
	struct scan s = { 0 };
	int ret;

	L->ptype[0] = "cpu", L->ptype[1] = "nanoseconds";
	L->dup_leaf = !java;
	L->period = (int64_t)(period * 1000);
	L->types[0][0] = "samples", L->types[0][1] = "count";
	L->types[1][0] = "cpu", L->types[1][1] = "nanoseconds";
	L->ntypes = 2;
	while (pos < len) {
		uint64_t count, nstk;
		size_t first = L->na;
		int64_t v[2];

		if (len - pos < 2 * w)
			return psym_err_set(L->e, PSYM_EBADPROFILE,
					    "'%s': CPU profile: a sample cut short at byte %zu",
					    L->name, pos);
		count = fn(buf + pos);
		nstk = fn(buf + pos + w);
		pos += 2 * w;
		if (nstk > (len - pos) / 4 || nstk * w > len - pos)
			return psym_err_set(L->e, PSYM_EBADPROFILE,
					    "'%s': CPU profile: a stack of %" PRIu64
					    " frames past the end of the file",
					    L->name, nstk);
		if (count == 0 && nstk == 1 && fn(buf + pos) == 0) {
			pos += w;
			break; /* the end-of-data marker */
		}
		for (uint64_t i = 0; i < nstk; i++) {
			uint64_t a = fn(buf + pos + i * w);

			if (psym_legacy_add_addr(L, i > 0 && !java ? a - 1 : a))
				return -1;
		}
		pos += nstk * w;
		v[0] = (int64_t)count;
		v[1] = (int64_t)(count * (uint64_t)L->period);
		if (psym_legacy_add_sample(L, v, 2, first))
			return -1;
	}
	if (java)
		return psym_legacy_java_symbols(L, (const char *)buf + pos,
						(const char *)buf + len);
	strip_signal_frames(L);
	s.p = (const char *)buf + pos;
	s.end = (const char *)buf + len;
	ret = psym_legacy_maps_from(L, &s);
	free(s.tok);
	return ret;
}

static int parse_heap(struct legacy *L, struct scan *s)
{
	regex_t hdr, gro, frag, smp;
	regmatch_t m[7];
	bool v2 = false, alloc = false;
	int ret = 0;

	if (regcomp(&hdr,
		    "heap profile: *([0-9]+): *([0-9]+) *\\[ *([0-9]+): *([0-9]+) *\\] *@ "
		    "*(heap[_a-z0-9]*)/?([0-9]*)",
		    REG_EXTENDED))
		return psym_err_set(L->e, PSYM_ENOMEM, "out of memory");
	regcomp(&gro,
		"heap profile: *([0-9]+): *([0-9]+) *\\[ *([0-9]+): *([0-9]+) *\\] @ growthz?",
		REG_EXTENDED);
	regcomp(&frag,
		"heap profile: *([0-9]+): *([0-9]+) *\\[ *([0-9]+): *([0-9]+) *\\] @ "
		"fragmentationz?",
		REG_EXTENDED);
	regcomp(&smp, "(-?[0-9]+): *(-?[0-9]+) *\\[ *([0-9]+): *([0-9]+) *] @([ x0-9a-f]*)",
		REG_EXTENDED);
	L->ptype[0] = "space", L->ptype[1] = "bytes";
	if (regexec(&hdr, s->tok, 7, m, 0) == 0) {
		char kind[32] = "", num[32] = "", f[4][32];
		size_t kl = (size_t)(m[5].rm_eo - m[5].rm_so),
		       nl = (size_t)(m[6].rm_eo - m[6].rm_so);

		for (int i = 0; i < 4; i++) {
			size_t fl = (size_t)(m[i + 1].rm_eo - m[i + 1].rm_so);

			snprintf(f[i], sizeof(f[i]), "%.*s", (int)(fl < 31 ? fl : 31),
				 s->tok + m[i + 1].rm_so);
		}
		snprintf(kind, sizeof(kind), "%.*s", (int)(kl < 31 ? kl : 31), s->tok + m[5].rm_so);
		snprintf(num, sizeof(num), "%.*s", (int)(nl < 31 ? nl : 31), s->tok + m[6].rm_so);
		if (nl > 18) {
			ret = psym_legacy_malformed(L, "sampling period out of range", s->tok);
			goto out;
		}
		L->period = nl ? strtoll(num, NULL, 10) : 0;
		alloc = (strcmp(f[2], f[0]) && strcmp(f[2], "0")) ||
			(strcmp(f[3], f[1]) && strcmp(f[3], "0"));
		if (!strcmp(kind, "heapz_v2") || !strcmp(kind, "heap_v2")) {
			v2 = true;
		} else if (!strcmp(kind, "heapprofile")) {
			L->period = 1;
		} else if (!strcmp(kind, "heap")) {
			v2 = true;
			L->period /= 2;
		} else {
			ret = psym_legacy_malformed(L, "unknown heap profile kind", s->tok);
			goto out;
		}
	} else if (regexec(&gro, s->tok, 0, NULL, 0) == 0 ||
		   regexec(&frag, s->tok, 0, NULL, 0) == 0) {
		L->period = 1; /* growthz, fragmentationz */
	} else {
		ret = psym_legacy_malformed(L, "not a heap profile header", s->tok);
		goto out;
	}
	if (alloc) {
		L->types[0][0] = "alloc_objects", L->types[0][1] = "count";
		L->types[1][0] = "alloc_space", L->types[1][1] = "bytes";
		L->types[2][0] = "inuse_objects", L->types[2][1] = "count";
		L->types[3][0] = "inuse_space", L->types[3][1] = "bytes";
		L->ntypes = 4;
	} else {
		L->types[0][0] = "objects", L->types[0][1] = "count";
		L->types[1][0] = "space", L->types[1][1] = "bytes";
		L->ntypes = 2;
	}
	while (psym_legacy_scan_next(s)) {
		char *line = psym_legacy_trim(s->tok);
		int64_t v[4], bytes = 0;
		size_t nv = 0, first = L->na;

		if (psym_legacy_space_or_comment(line))
			continue;
		if (psym_legacy_map_sentinel(line))
			break;
		if (regexec(&smp, line, 6, m, 0)) {
			ret = psym_legacy_malformed(L, "not a heap sample", line);
			goto out;
		}
		/* alloc pair (fields 3, 4) first when present, then inuse (1, 2) */
		for (int pass = alloc ? 0 : 1; pass < 2; pass++) {
			int ci = pass == 0 ? 3 : 1;
			char cs[32], ss[32];
			size_t cl = (size_t)(m[ci].rm_eo - m[ci].rm_so),
			       sl = (size_t)(m[ci + 1].rm_eo - m[ci + 1].rm_so);
			int64_t count, size;

			if (cl > 19 || sl > 19) {
				ret = psym_legacy_malformed(L, "value out of range", line);
				goto out;
			}
			memcpy(cs, line + m[ci].rm_so, cl), cs[cl] = '\0';
			memcpy(ss, line + m[ci + 1].rm_so, sl), ss[sl] = '\0';
			count = strtoll(cs, NULL, 10);
			size = strtoll(ss, NULL, 10);
			if (count == 0 && size != 0) {
				ret = psym_legacy_malformed(L, "count 0 with a non-zero size",
							    line);
				goto out;
			}
			if (count != 0) {
				bytes = size / count;
				if (v2)
					count = psym_legacy_scale_heap(count, size, L->period,
								       &size);
			}
			v[nv++] = count;
			v[nv++] = size;
		}
		{
			char save = line[m[5].rm_eo];

			line[m[5].rm_eo] = '\0';
			ret = psym_legacy_hex_addresses(L, line + m[5].rm_so, true, false);
			line[m[5].rm_eo] = save;
		}
		if (ret || (ret = psym_legacy_add_sample(L, v, nv, first)))
			goto out;
		L->s[L->ns - 1].has_bytes = true;
		L->s[L->ns - 1].bytes = bytes;
	}
	ret = psym_legacy_additional_sections(L, s);
out:
	regfree(&hdr);
	regfree(&gro);
	regfree(&frag);
	regfree(&smp);
	return ret;
}

/* "N @ 0x... 0x..." exactly; the count in *v, the addresses at *at. */
static bool count_sample(const char *l, int64_t *v, const char **at)
{
	const char *p = l;
	char *end;

	if (!isdigit((unsigned char)*p))
		return false;
	*v = strtoll(p, &end, 10);
	if (strncmp(end, " @ 0x", 5))
		return false;
	*at = p = end + 2;
	while (*p) {
		if (strncmp(p, " 0x", 3))
			return false;
		p += 3;
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
		while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
			p++;
	}
	return true;
}

/* Go count profiles (goroutine, threadcreate); type set by the caller. */
static int parse_count(struct legacy *L, struct scan *s)
{
	int ret;

	L->ptype[1] = "count";
	L->types[0][1] = "count";
	L->ntypes = 1;
	L->period = 1;
	while (psym_legacy_scan_next(s)) {
		const char *at;
		size_t first = L->na;
		int64_t v;

		if (psym_legacy_space_or_comment(s->tok))
			continue;
		if (psym_legacy_starts(s->tok, "---"))
			break;
		if (!count_sample(s->tok, &v, &at))
			return psym_legacy_malformed(L, "not a count sample", s->tok);
		if ((ret = psym_legacy_hex_addresses(L, at, true, false)) ||
		    (ret = psym_legacy_add_sample(L, &v, 1, first)))
			return ret;
	}
	return psym_legacy_additional_sections(L, s);
}

static bool thread_start(const char *l)
{
	/* "--- Thread HEX (name: NAME/DIGITS) stack: ---" */
	const char *p = strstr(l, "--- Thread ");
	const char *q, *slash;

	if (!p)
		return false;
	p += 11;
	q = p;
	while (isxdigit((unsigned char)*q))
		q++;
	if (q == p || strncmp(q, " (name: ", 8))
		return false;
	q += 8;
	slash = strstr(q, ") stack: ---");
	if (!slash)
		return false;
	while (slash > q && isdigit((unsigned char)slash[-1]))
		slash--;
	return slash > q && slash[-1] == '/' && isdigit((unsigned char)*slash);
}

static bool threadz_start(const char *l)
{
	const char *p = strstr(l, "--- threadz ");

	if (!p)
		return false;
	p += 12;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return strncmp(p, " ---", 4) == 0;
}

static int parse_thread(struct legacy *L, struct scan *s)
{
	char *line;
	int ret;

	L->ptype[0] = "thread", L->ptype[1] = "count";
	L->dup_leaf = true;
	L->types[0][0] = "thread", L->types[0][1] = "count";
	L->ntypes = 1;
	L->period = 1;
	if (threadz_start(s->tok)) {
		while (psym_legacy_scan_next(s))
			if (psym_legacy_map_sentinel(s->tok) || s->tok[0] == '-')
				break;
	}
	line = (char *)psym_legacy_scan_text(s);
	while (!psym_legacy_map_sentinel(line)) {
		size_t first = L->na;
		bool same = false;
		int64_t one = 1;

		if (psym_legacy_starts(line, "---- no stack trace for"))
			break;
		if (!thread_start(line))
			return psym_legacy_malformed(L, "not a thread header", line);
		line = (char *)"";
		while (psym_legacy_scan_next(s)) {
			line = psym_legacy_trim(s->tok);
			if (!*line)
				continue;
			if (psym_legacy_starts(line, "---"))
				break;
			if (strstr(line, "same as previous thread")) {
				same = true;
				continue;
			}
			if ((ret = psym_legacy_hex_addresses(L, line, false, false)))
				return ret;
		}
		if (s->too_long)
			return psym_legacy_malformed(L, "line too long", "");
		if (same)
			L->na = first;
		if (L->na == first) {
			if (L->ns)
				L->s[L->ns - 1].v[0]++;
			continue;
		}
		/* Callers are return addresses: - 1 (the leaf is not a call). */
		for (size_t i = first + 1; i < L->na; i++)
			L->addrs[i]--;
		if ((ret = psym_legacy_add_sample(L, &one, 1, first)))
			return ret;
	}
	return psym_legacy_additional_sections(L, s);
}

static int parse_contention(struct legacy *L, struct scan *s)
{
	regex_t smp;
	regmatch_t m[4];
	int64_t hz = 0;
	int ret = 0;
	char *line;

	L->ptype[0] = "contentions", L->ptype[1] = "count";
	L->types[0][0] = "contentions", L->types[0][1] = "count";
	L->types[1][0] = "delay", L->types[1][1] = "nanoseconds";
	L->ntypes = 2;
	L->period = 1;
	while (psym_legacy_scan_next(s)) {
		char *eq, *key, *val;

		line = psym_legacy_trim(s->tok);
		if (psym_legacy_space_or_comment(line))
			continue;
		if (psym_legacy_starts(line, "---"))
			break;
		eq = strchr(line, '=');
		if (!eq)
			break;
		*eq = '\0';
		key = psym_legacy_trim(line);
		val = psym_legacy_trim(eq + 1);
		if (!strcmp(key, "cycles/second"))
			hz = strtoll(val, NULL, 0);
		else if (!strcmp(key, "sampling period"))
			L->period = strtoll(val, NULL, 0);
		else if (!strcmp(key, "ms since reset")) {
			long long ms = strtoll(val, NULL, 0);

			if (__builtin_mul_overflow(ms, 1000000LL, &L->duration))
				return psym_legacy_malformed(L, "ms since reset out of range", val);
		} else if (!strcmp(key, "format") || !strcmp(key, "resolution"))
			return 1; /* a Java profile: psym_legacy_java_text() reads it */
		else if (strcmp(key, "discarded samples"))
			return psym_legacy_malformed(L, "unknown contention attribute", key);
	}
	if (regcomp(&smp, "([0-9]+) *([0-9]+) @([ x0-9a-f]*)", REG_EXTENDED))
		return psym_err_set(L->e, PSYM_ENOMEM, "out of memory");
	for (;;) {
		line = psym_legacy_trim((char *)psym_legacy_scan_text(s));
		if (psym_legacy_starts(line, "---"))
			break;
		if (!psym_legacy_space_or_comment(line)) {
			char a[32], b[32];
			size_t al, bl, first = L->na;
			int64_t v1, v2, v[2];

			if (regexec(&smp, line, 4, m, 0)) {
				ret = psym_legacy_malformed(L, "not a contention sample", line);
				break;
			}
			al = (size_t)(m[1].rm_eo - m[1].rm_so);
			bl = (size_t)(m[2].rm_eo - m[2].rm_so);
			if (al > 18 || bl > 18) {
				ret = psym_legacy_malformed(L, "value out of range", line);
				break;
			}
			memcpy(a, line + m[1].rm_so, al), a[al] = '\0';
			memcpy(b, line + m[2].rm_so, bl), b[bl] = '\0';
			v1 = strtoll(a, NULL, 10);
			v2 = strtoll(b, NULL, 10);
			if (L->period > 0) {
				if (hz > 0)
					v1 = psym_legacy_to_i64((double)v1 * (double)L->period /
								((double)hz / 1e9));
				v2 = (int64_t)((uint64_t)v2 * (uint64_t)L->period);
			}
			v[0] = v2, v[1] = v1;
			line[m[3].rm_eo] = '\0';
			if ((ret = psym_legacy_hex_addresses(L, line + m[3].rm_so, true, false)) ||
			    (ret = psym_legacy_add_sample(L, v, 2, first)))
				break;
		}
		if (!psym_legacy_scan_next(s))
			break;
	}
	regfree(&smp);
	return ret ? ret : psym_legacy_additional_sections(L, s);
}

/* ---- detection --------------------------------------------------------- */

/* The first line that is not blank or a comment, in s. */
static bool first_real_line(struct scan *s)
{
	while (psym_legacy_scan_next(s))
		if (!psym_legacy_space_or_comment(s->tok))
			return true;
	return false;
}

static bool count_header(const char *l)
{
	/* "\A(\S+) profile: total \d+\z" */
	const char *p = strstr(l, " profile: total ");
	const char *q;

	if (!p || p == l)
		return false;
	for (q = l; q < p; q++)
		if (isspace((unsigned char)*q))
			return false;
	q = p + 16;
	if (!isdigit((unsigned char)*q))
		return false;
	while (isdigit((unsigned char)*q))
		q++;
	return !*q;
}

static enum psym_legacy_kind detect_text(struct scan *s)
{
	const char *l;

	if (!psym_legacy_scan_next(s))
		return PSYM_LEGACY_NONE;
	l = s->tok;
	if (strstr(l, "heap profile:"))
		return PSYM_LEGACY_HEAP;
	if (psym_legacy_starts(l, "--- contentionz ") || psym_legacy_starts(l, "--- mutex:") ||
	    psym_legacy_starts(l, "--- contention:"))
		return PSYM_LEGACY_CONTENTION;
	if (psym_legacy_space_or_comment(l) && !first_real_line(s))
		return PSYM_LEGACY_NONE;
	l = s->tok;
	if (count_header(l))
		return PSYM_LEGACY_COUNT;
	if (threadz_start(l) || thread_start(l))
		return PSYM_LEGACY_THREAD;
	if (psym_legacy_starts(l, "--- heapz "))
		return PSYM_LEGACY_JAVA;
	return PSYM_LEGACY_NONE;
}

enum psym_legacy_kind psym_legacy_detect(const unsigned char *buf, size_t len)
{
	struct scan s = { .p = (const char *)buf, .end = (const char *)buf + len };
	enum psym_legacy_kind k;
	uint64_t period;
	size_t which;

	if ((k = (enum psym_legacy_kind)cpu_header(buf, len, &which, &period)) != PSYM_LEGACY_NONE)
		return k;
	k = detect_text(&s);
	free(s.tok);
	return k;
}

int psym_legacy_parse(const unsigned char *buf, size_t len, const char *name,
		      const struct psym_limits *lim, struct psym_profile **out, struct psym_err *e)
{
	struct legacy L = { .name = name, .e = e };
	struct scan s = { .p = (const char *)buf, .end = (const char *)buf + len };
	enum psym_legacy_kind k;
	char type[256] = "";
	uint64_t period;
	size_t which;
	int ret;

	L.max_mem = lim ? lim->max_memory : PSYM_DEFAULT_MAX_MEMORY;
	ret = 0;
	{
		/* Capture groups only where they are wanted (regex.h has no (?:)). */
		static const char maps_re[] =
			"^[[:space:]]*(0x)?([[:xdigit:]]+)[[:space:]-]?[[:space:]]*(0x)?"
			"([[:xdigit:]]+):?([[:space:]]+([-rwxp]+))?([[:space:]]+([[:xdigit:]]+))?"
			"[[:space:]]+[[:xdigit:]]+:[[:xdigit:]]+[[:space:]]+[[:digit:]]+"
			"([[:space:]]+([^[:space:]]+))?";
		static const char brief_re[] =
			"^[[:space:]]*(0x)?([[:xdigit:]]+)[[:space:]-]?[[:space:]]*(0x)?"
			"([[:xdigit:]]+):?([[:space:]]+([-rwxp]+))?([[:space:]]+([^[:space:]]+))?"
			"([[:space:]]+\\(@([[:xdigit:]]+)\\))?([[:space:]]+([[:xdigit:]]+))?";

		if (regcomp(&L.re_maps, maps_re, REG_EXTENDED))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if (regcomp(&L.re_brief, brief_re, REG_EXTENDED)) {
			regfree(&L.re_maps);
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
	}
	k = (enum psym_legacy_kind)cpu_header(buf, len, &which, &period);
	if (k == PSYM_LEGACY_NONE)
		k = detect_text(&s);
	switch (k) {
	case PSYM_LEGACY_CPU:
	case PSYM_LEGACY_JAVA_CPU:
		ret = parse_cpu(&L, buf, len, which, period, k == PSYM_LEGACY_JAVA_CPU);
		break;
	case PSYM_LEGACY_JAVA: ret = psym_legacy_java_text(&L, buf, len); break;
	case PSYM_LEGACY_HEAP: ret = parse_heap(&L, &s); break;
	case PSYM_LEGACY_COUNT:
		snprintf(type, sizeof(type), "%.*s", (int)strcspn(s.tok, " "), s.tok);
		L.ptype[0] = L.types[0][0] = type;
		ret = parse_count(&L, &s);
		break;
	case PSYM_LEGACY_THREAD: ret = parse_thread(&L, &s); break;
	case PSYM_LEGACY_CONTENTION:
		/* Java's has attributes C++'s has not (pprof tries it next). */
		if ((ret = parse_contention(&L, &s)) == 1)
			ret = psym_legacy_java_text(&L, buf, len);
		break;
	default: ret = psym_err_set(e, PSYM_EBADPROTO, "'%s': not a pprof profile", name); break;
	}
	if (ret < 0 && !e->msg[0])
		psym_err_set(e, ret, "'%s': out of memory", name);
	if (!ret)
		ret = L.java ? psym_legacy_java_build(&L, lim, out)
			     : psym_legacy_build(&L, lim, out);
	free(s.tok);
	regfree(&L.re_maps);
	regfree(&L.re_brief);
	for (size_t i = 0; i < L.nm; i++) {
		free(L.m[i].file);
		free(L.m[i].build_id);
	}
	for (size_t i = 0; i < 2 * L.nattr; i++)
		free(L.attr[i]);
	free(L.attr);
	free(L.sub);
	psym_legacy_java_free(&L);
	free(L.m);
	free(L.s);
	free(L.addrs);
	return ret;
}
