/* SPDX-License-Identifier: MIT */
/* psym folded: the merged stacks as "a;b;c VALUE" lines. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* Lines are built here and written in large pieces: one fwrite per frame costs. */
struct linebuf {
	char b[1 << 16];
	size_t n;
	FILE *out;
};

static void lb_put(struct linebuf *lb, const char *s, size_t n)
{
	if (lb->n + n > sizeof(lb->b)) {
		fwrite(lb->b, 1, lb->n, lb->out);
		lb->n = 0;
		if (n > sizeof(lb->b)) {
			fwrite(s, 1, n, lb->out);
			return;
		}
	}
	memcpy(lb->b + lb->n, s, n);
	lb->n += n;
}

int psym_report_folded(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		       struct psym_err *e)
{
	struct psym_rpt_stacks st = { 0 };
	struct linebuf *lb = malloc(sizeof(*lb));
	size_t *len = NULL;
	int ret = psym_rpt_stacks_collect(p, o, &st, e);

	if (!ret)
		ret = psym_rpt_stacks_merge(&st, e);
	if (!ret) {
		/* ';' separates frames and '\n' stacks: keep them out of names. */
		len = malloc((st.r.names.n ? st.r.names.n : 1) * sizeof(*len));
		if (!len || !lb) {
			free(len);
			len = NULL;
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		} else {
			lb->n = 0;
			lb->out = out;
		}
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

			if (st.diff && st.s[i].d == 0)
				continue; /* no change */
			char num[32];
			int nn;

			for (size_t k = 0; k < st.s[i].n; k++) {
				if (k)
					lb_put(lb, ";", 1);
				lb_put(lb, st.r.names.s[ids[k]], len[ids[k]]);
			}
			nn = snprintf(num, sizeof(num), " %" PRId64 "\n", st.s[i].d);
			lb_put(lb, num, (size_t)nn);
		}
		if (len && lb->n)
			fwrite(lb->b, 1, lb->n, out);
	}
	free(len);
	free(lb);
	psym_rpt_stacks_free(&st);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
