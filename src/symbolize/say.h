/* SPDX-License-Identifier: MIT */
/*
 * The run's words: what a symbolizing run says on its stream (stderr),
 * worded from the library's data, for every command that symbolizes
 * (symbolize, stack, the reports' advice). The callbacks take a struct
 * psym_say as ud.
 */
#ifndef PSYM_SAY_H
#define PSYM_SAY_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "batch.h"
#include "report.h"
#include "symbolize.h"

struct psym_say {
	FILE *out;
	bool partial; /* a note said an input was read in part */
	/* the progress line, on a terminal */
	struct timespec start, last;
	bool shown;
};

/* One file tried and its verdict, as every --explain says it: "    tried 'P': V". */
void psym_say_tried(FILE *out, const char *path, const char *verdict);
/* psym_symbolize_opts' callbacks: --explain's events, notes, progress. */
void psym_say_explain(void *ud, const struct psym_explain_ev *ev);
void psym_say_note(void *ud, const struct psym_note *n);
void psym_say_progress(void *ud, size_t mapping, size_t nmappings, size_t resolved);
/* A batch's input done (ud: the run's symbolize options, for quiet). */
void psym_say_job(void *ud, const struct psym_result_line *r);
/* Every mapping's line, or with many: counts and the worst (all: every one). */
void psym_say_summary(const struct psym_symbolize_result *r, bool all, FILE *out);
/* Once: the files whose frames of WHAT stayed addresses, and what would help. */
void psym_say_unnamed_maps(const struct psym_symbolize_result *r, const char *what, FILE *err);

#endif
