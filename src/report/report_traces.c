/* SPDX-License-Identifier: MIT */
/*
 * psym traces: every sample's stack, leaf first, with its labels, as pprof
 * -traces prints them. The stacks are folded's (report_stacks.c), in the
 * order of the samples and not merged: a caller that wants pprof's
 * order merges the profile first (pprof merges even a single profile).
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "textesc.h"

#define TRACES_SEP "-----------+-------------------------------------------------------"

/* A growing list of malloc'd strings. */
struct lines {
	char **s;
	size_t n, cap;
};

/* Add the line "key:  val" (right-aligned key), their control characters escaped. */
static int lines_add(struct lines *l, const char *key, const char *val)
{
	char **ns, *ek, *ev;
	size_t kl = strlen(key), vl = strlen(val), len;

	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 8;

		ns = realloc(l->s, nc * sizeof(*ns));
		if (!ns)
			return -1;
		l->s = ns;
		l->cap = nc;
	}
	/* An escape is at most 4 bytes a byte. */
	if (kl > SIZE_MAX / 8 - vl - 16)
		return -1;
	len = 4 * (kl + vl) + 16;
	ek = malloc(len);
	if (!ek)
		return -1;
	psym_text_escape_buf(ek, 4 * kl + 1, key, kl);
	ev = ek + strlen(ek) + 1;
	psym_text_escape_buf(ev, 4 * vl + 1, val, vl);
	l->s[l->n] = malloc(len);
	if (l->s[l->n])
		snprintf(l->s[l->n], len, "%10s:  %s\n", ek, ev);
	free(ek);
	if (!l->s[l->n])
		return -1;
	l->n++;
	return 0;
}

static void lines_clear(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	l->n = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append text to a growing buffer; -1: no memory. */
static int buf_cat(char **buf, size_t *len, size_t *cap, const char *text)
{
	size_t tl = strlen(text);

	if (*len + tl + 2 > *cap) {
		size_t nc = (*len + tl + 2) * 2;
		char *nb = realloc(*buf, nc);

		if (!nb)
			return -1;
		*buf = nb;
		*cap = nc;
	}
	if (*len)
		(*buf)[(*len)++] = ' ';
	memcpy(*buf + *len, text, tl + 1);
	*len += tl;
	return 0;
}

/*
 * The labels of sample s as pprof prints them: one line per key, its
 * values space-separated in order; the string labels' lines sorted, then
 * the numeric ones' (each value scaled as measurement.Label does).
 */
static int print_labels(FILE *out, const struct psym_profile *p, const pb_sample *s,
			const struct psym_rpt_numunit *nu, size_t nnu, struct lines *l)
{
	char *val = NULL;
	size_t cap = 0;
	int ret = 0;

	for (int numeric = 0; numeric < 2 && !ret; numeric++) {
		lines_clear(l);
		for (size_t j = 0; j < s->n_label && !ret; j++) {
			const pb_label *lj = s->label[j];
			const char *key = psym_profile_str(p, lj->key);
			size_t len = 0;
			bool first = true;

			if (psym_rpt_label_numeric(lj) != numeric || (!numeric && !lj->str))
				continue;
			/* Only the first label of each key starts a line. */
			for (size_t k = 0; k < j && first; k++)
				if (psym_rpt_label_numeric(s->label[k]) == numeric &&
				    (numeric || s->label[k]->str) &&
				    !strcmp(psym_profile_str(p, s->label[k]->key), key))
					first = false;
			if (!first)
				continue;
			for (size_t k = j; k < s->n_label && !ret; k++) {
				const pb_label *lk = s->label[k];
				char vb[64];
				const char *v = vb;

				if (psym_rpt_label_numeric(lk) != numeric ||
				    (!numeric && !lk->str) ||
				    strcmp(psym_profile_str(p, lk->key), key))
					continue;
				if (numeric)
					psym_rpt_scaled_label(vb, sizeof(vb), lk->num,
							      psym_rpt_num_unit(nu, nnu, key),
							      "auto");
				else
					v = psym_profile_str(p, lk->str);
				ret = buf_cat(&val, &len, &cap, v);
			}
			if (!ret)
				ret = lines_add(l, key, len ? val : "");
		}
		if (ret)
			break;
		if (l->n > 1)
			qsort(l->s, l->n, sizeof(*l->s), cmp_str);
		for (size_t i = 0; i < l->n; i++)
			fputs(l->s[i], out);
	}
	free(val);
	return ret;
}

int psym_report_traces(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		       struct psym_err *e)
{
	struct psym_rpt_stacks st = { 0 };
	struct psym_rpt_numunit *nu = NULL;
	struct lines l = { 0 };
	size_t nnu = 0;
	const char *unit;
	int ret;

	st.zeros = true; /* pprof prints them */
	ret = psym_rpt_stacks_collect(p, o, &st, e);
	if (ret)
		goto out;
	unit = psym_profile_str(p, p->pb->sample_type[st.r.idx]->unit);
	if (psym_rpt_num_units(p, &nu, &nnu))
		goto oom;
	/* pprof -traces scales each value on its own ("minimum"). */
	psym_rpt_profile_labels(out, p, st.r.idx, psym_rpt_total(p, st.r.idx), "minimum");
	for (size_t i = 0; i < st.n && !ferror(out); i++) {
		const struct stack *sk = &st.s[i];
		char vb[64];

		fprintf(out, "%s\n", TRACES_SEP);
		if (print_labels(out, p, p->pb->sample[sk->si], nu, nnu, &l))
			goto oom;
		psym_rpt_scaled_label(vb, sizeof(vb), sk->d, unit, "minimum");
		for (size_t k = sk->n; k-- > sk->pre;) {
			const char *key = st.r.names.s[st.ids[sk->off + k]];

			fprintf(out, "%10s   %.*s%s\n", k == sk->n - 1 ? vb : "",
				(int)name_len(key), key, st.inl[sk->ioff + k] ? " (inline)" : "");
		}
	}
	fprintf(out, "%s\n", TRACES_SEP);
	goto out;
oom:
	ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
out:
	lines_clear(&l);
	free(l.s);
	free(nu);
	psym_rpt_stacks_free(&st);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
