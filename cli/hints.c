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

/* What gives a file's code names when the file is there but says nothing. */
#define DEBUG_HELP                                                                                 \
	"install the file's debug package, or give it with --debug-pkg FILE.deb or "               \
	"--debug-dir DIR, or set DEBUGINFOD_URLS"
#define BINARY_HELP "give the binary with --binary-path DIR (or --sysroot DIR)"

const char *hint_for_mapping(const struct psym_mapsum *x)
{
	if (x->cls != PSYM_MAP_FILE || x->done >= x->todo)
		return NULL;
	if (x->opened)
		return DEBUG_HELP;
	switch (x->why.code) {
	case PSYM_R_NOT_FOUND:
	case PSYM_R_NOT_REGULAR:
	case PSYM_R_BAD_FILE:
	case PSYM_R_BUILD_ID_MISMATCH:
	case PSYM_R_NO_BUILD_ID:
	case PSYM_R_OUTSIDE_ROOT:
	case PSYM_R_DEBUGINFOD: return BINARY_HELP;
	case PSYM_R_NO_DEBUG_INFO:
	case PSYM_R_NO_SYMBOL:
	case PSYM_R_CRC_MISMATCH: return DEBUG_HELP;
	default: return NULL;
	}
}

/* One line per advice, naming the files it is for (at most a few, then a count). */
void hint_unnamed_maps(const struct psym_symbolize_result *r, const char *what)
{
	const char *advice[] = { BINARY_HELP, DEBUG_HELP };
	const char *state[] = { "not found", "no symbols or lines for them" };

	for (size_t a = 0; a < 2; a++) {
		size_t n = 0, frames = 0;

		for (size_t i = 0; i < r->nmaps; i++) {
			const struct psym_mapsum *x = &r->maps[i];

			if (hint_for_mapping(x) != advice[a])
				continue;
			if (!n)
				fprintf(stderr, "%s: note: frames of %s left as addresses in ",
					progname, what);
			if (n < 4)
				fprintf(stderr, "%s'%s'", n ? ", " : "", x->name);
			n++;
			frames += x->todo - x->done;
		}
		if (n > 4)
			fprintf(stderr, " and %zu more files", n - 4);
		if (n)
			fprintf(stderr, " (%s: %zu address%s): %s\n", state[a], frames,
				frames == 1 ? "" : "es", advice[a]);
	}
}

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
			"'psym symbolize %s -o OUT' adds function names and lines (where it "
			"says a file is not found: %s)\n",
			progname, 100 * share, file, file, BINARY_HELP);
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
		"; running psym symbolize again changes nothing: " DEBUG_HELP
		", then 'psym symbolize %s -o OUT'\n",
		file);
	free(raw);
}
