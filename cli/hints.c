/* SPDX-License-Identifier: MIT */
/*
 * The note a report prints when much of a profile is raw addresses: what
 * would give them names. The profile's own mapping flags tell an
 * unsymbolized profile (psym symbolize helps) from one a symbolizer has
 * already been through (it found no debug information for some files: a
 * debug package, --debug-pkg or debuginfod would help, not another run).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Hint only when at least this share of the samples is raw addresses. */
#define UNSYMBOLIZED_HINT 0.25

void hint_unsymbolized(const struct psym_profile *p, const struct psym_report_opts *ro,
		       const char *file)
{
	const pb_profile *pb = p->pb;
	struct psym_err e = { 0 };
	double share, *raw = NULL, best = -1;
	bool symbolized = false;
	size_t idx, worst = 0;

	if (psym_report_unsymbolized(p, ro, &share, &e) || share < UNSYMBOLIZED_HINT)
		return;
	for (size_t i = 0; i < pb->n_mapping; i++)
		symbolized |= pb->mapping[i]->has_functions;
	if (!symbolized) {
		fprintf(stderr,
			"%s: note: %.0f%% of '%s' is in unsymbolized code; "
			"'psym symbolize %s -o OUT' adds function names and lines\n",
			progname, 100 * share, file, file);
		return;
	}
	/* Symbolized already: name the file that holds most of the raw code. */
	if (psym_report_sample_index(p, ro, &idx, &e) == 0 && pb->n_mapping &&
	    (raw = calloc(pb->n_mapping, sizeof(*raw)))) {
		for (size_t i = 0; i < pb->n_sample; i++) {
			const pb_sample *s = pb->sample[i];
			const pb_location *l;
			long m;

			if (!s->n_location_id || idx >= s->n_value)
				continue;
			l = psym_profile_location(p, s->location_id[0]);
			if (!l || l->n_line || (m = psym_profile_mapping_pos(p, l->mapping_id)) < 0)
				continue;
			raw[m] += (double)(s->value[idx] < 0 ? -s->value[idx] : s->value[idx]);
		}
		for (size_t i = 0; i < pb->n_mapping; i++)
			if (raw[i] > best) {
				best = raw[i];
				worst = i;
			}
	}
	fprintf(stderr,
		"%s: note: %.0f%% of '%s' is in code a symbolizer already tried and could "
		"not name",
		progname, 100 * share, file);
	if (raw && best > 0) {
		const pb_mapping *m = pb->mapping[worst];
		const char *name = psym_profile_str(p, m->filename);
		const char *bid = psym_profile_str(p, m->build_id);

		fprintf(stderr, ", most of it in '%s'%s%s%s", name[0] ? name : "(no file name)",
			bid[0] ? " (build ID " : "", bid, bid[0] ? ")" : "");
	}
	fprintf(stderr,
		"; running psym symbolize again changes nothing: install the file's debug "
		"package, or give it with --debug-pkg FILE.deb or --debug-dir, or set "
		"DEBUGINFOD_URLS, then 'psym symbolize %s -o OUT'\n",
		file);
	free(raw);
}
