/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the report filters' regular expressions (src/base/rx.c).
 * The input's first line is the pattern, the rest the text. Every compiled
 * pattern P is matched against the whole text and each of its lines, and
 * two spellings that must give the same answers are checked against it:
 * (?:P), and ^(?s:.*)(?:P) (the search anchored by hand), unless P has a \Q.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

/* The pattern with a prefix and ")"; NULL past the nesting cap. */
static struct psym_rx *wrapped(const char *pre, const char *pat)
{
	size_t n = strlen(pre) + strlen(pat) + 2;
	char *s = malloc(n);
	struct psym_rx *rx = NULL;
	struct psym_err e = { 0 };

	if (!s)
		return NULL;
	snprintf(s, n, "%s%s)", pre, pat);
	if (psym_rx_compile(s, &rx, &e) && !strstr(e.msg, "nests too deeply") &&
	    !strstr(e.msg, "too large") && e.code != PSYM_ENOMEM)
		abort(); /* P compiled, so (?:P) must */
	free(s);
	return rx;
}

static void check(struct psym_rx *rx, struct psym_rx *w1, struct psym_rx *w2, const char *t,
		  size_t n)
{
	bool m = psym_rx_match(rx, t, n);

	if (psym_rx_match(rx, t, n) != m)
		abort();
	if (w1 && psym_rx_match(w1, t, n) != m)
		abort();
	if (w2 && psym_rx_match(w2, t, n) != m)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t plen = nl ? (size_t)(nl - (const char *)data) : size;
	const char *text = nl ? nl + 1 : "";
	size_t tlen = nl ? size - plen - 1 : 0;
	struct psym_rx *rx, *w1, *w2;
	struct psym_err e = { 0 };
	char *pat;

	if (plen > 4096 || memchr(data, '\0', plen))
		return 0;
	pat = malloc(plen + 1);
	if (!pat)
		return 0;
	memcpy(pat, data, plen);
	pat[plen] = '\0';
	if (psym_rx_compile(pat, &rx, &e)) {
		if (!e.msg[0] || strchr(e.msg, '\n'))
			abort(); /* one line, always */
		free(pat);
		return 0;
	}
	/* A \Q with no \E would take the closing ')' as text. */
	w1 = strstr(pat, "\\Q") ? NULL : wrapped("(?:", pat);
	w2 = strstr(pat, "\\Q") ? NULL : wrapped("^(?s:.*)(?:", pat);
	check(rx, w1, w2, text, tlen);
	for (const char *l = text, *end = text + tlen; l < end;) {
		const char *le = memchr(l, '\n', (size_t)(end - l));
		size_t ln = le ? (size_t)(le - l) : (size_t)(end - l);

		check(rx, w1, w2, l, ln);
		l += ln + 1;
	}
	psym_rx_free(w2);
	psym_rx_free(w1);
	psym_rx_free(rx);
	free(pat);
	return 0;
}
