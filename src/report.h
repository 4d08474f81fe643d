/* SPDX-License-Identifier: MIT */
/*
 * Reports on a (symbolized) profile: the top table (flat and cumulative per
 * function, line or file, like pprof -top), collapsed stacks ("a;b;c N",
 * root first, inline frames expanded) and an SVG flame graph.
 *
 * Frames are named as pprof names them: the function of each Line (inline
 * frames are their own frames), or the address when a location has no
 * lines. Values are summed with overflow checks (saturating).
 */
#ifndef PSYM_REPORT_H
#define PSYM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "pprof.h"

enum psym_report_granularity {
	PSYM_BY_FUNCTION,
	PSYM_BY_LINE,
	PSYM_BY_FILE,
};

struct psym_report_opts {
	long sample_index;      /* -1: default_sample_type or the last type */
	const char *sample_name; /* or by type name ("samples", "cpu") */
	enum psym_report_granularity by;
	size_t max_rows;        /* top: 0 = all */
	bool sort_cum;          /* top: by cumulative value */
	bool comm_frame;        /* folded/flame: prefix "comm" label frame */
	bool pid_frame;         /* folded/flame: prefix "pid N" frame */
};

/* Resolve the sample index; PSYM_EUSAGE with a message if it does not exist. */
int psym_report_sample_index(const struct psym_profile *p, const struct psym_report_opts *o,
			     size_t *idx, struct psym_err *e);

int psym_report_top(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		    struct psym_err *e);
int psym_report_folded(const struct psym_profile *p, const struct psym_report_opts *o,
		       FILE *out, struct psym_err *e);
/* title: shown at the top of the graph. */
int psym_report_flame(const struct psym_profile *p, const struct psym_report_opts *o,
		      const char *title, FILE *out, struct psym_err *e);

#endif
