/* SPDX-License-Identifier: MIT */
/* psym folded: the merged stacks as "a;b;c VALUE" lines. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

int psym_report_folded(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		       struct psym_err *e)
{
	struct psym_rpt_stacks st = { 0 };
	size_t *len = NULL;
	int ret = psym_rpt_stacks_collect(p, o, &st, e);

	if (!ret)
		ret = psym_rpt_stacks_merge(&st, e);
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

			if (st.diff && st.s[i].d == 0)
				continue; /* no change */
			for (size_t k = 0; k < st.s[i].n; k++) {
				if (k)
					putc(';', out);
				fwrite(st.r.names.s[ids[k]], 1, len[ids[k]], out);
			}
			fprintf(out, " %" PRId64 "\n", st.s[i].d);
		}
	}
	free(len);
	psym_rpt_stacks_free(&st);
	return ret ? ret : (ferror(out) ? PSYM_EIO : 0);
}
