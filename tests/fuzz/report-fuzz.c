/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the reports (top at each granularity, sorted both ways and
 * cut short, folded with label frames, the flame graph, the call graph's
 * DOT, the unsymbolized share) on any profile the pprof reader accepts and validates.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "psym-int.h"
#include "merge.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_limits lim = {
		.max_input = 1 << 24,
		.max_profile = 1 << 24,
		.max_memory = 1 << 28,
	};
	static const struct psym_report_opts opts[] = {
		{ .sample_index = -1 },
		{ .sample_index = 0, .by = PSYM_BY_LINE, .sort_cum = true, .max_rows = 3 },
		{ .sample_index = -1, .by = PSYM_BY_FILE, .max_rows = 1 },
		{ .sample_index = -1, .by = PSYM_BY_ADDRESS },
		{ .sample_index = 0, .by = PSYM_BY_FILEFUNCTION, .sort_cum = true },
		{ .sample_index = 1, .comm_frame = true, .pid_frame = true },
		{ .sample_index = -1, .sample_name = "cpu" },
		{ .sample_index = -1,
		  .max_rows = 2,
		  .filter = { .focus = "a|main",
			      .ignore = "^z",
			      .hide = "[0-9]",
			      .show = "(?i)\\w" } },
		{ .sample_index = 0,
		  .filter = { .tagfocus = "pid=1:100", .tagignore = "comm=x,y", .pids = "1,2" } },
		{ .sample_index = -1, .filter = { .tagfocus = "1kb:", .comms = "a,b" } },
	};
	struct psym_profile *p = NULL;
	struct psym_err e = { 0 };
	FILE *devnull;

	if (psym_profile_parse(data, size, "fuzz", &lim, &p, &e))
		return 0;
	if (psym_profile_validate(p, &e) == 0 && (devnull = fopen("/dev/null", "w"))) {
		for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
			double share;

			e = (struct psym_err){ 0 };
			psym_report_top(p, &opts[i], devnull, &e);
			if (i == 0)
				psym_report_fp_note(p, devnull);
			e = (struct psym_err){ 0 };
			psym_report_folded(p, &opts[i], devnull, &e);
			e = (struct psym_err){ 0 };
			psym_report_flame(p, &opts[i], "fuzz <&>", devnull, &e);
			e = (struct psym_err){ 0 };
			psym_report_dot(p, &opts[i], i & 1 ? "fuzz \"\\" : NULL, devnull, &e);
			e = (struct psym_err){ 0 };
			if (psym_report_unsymbolized(p, &opts[i], &share, &e) == 0 &&
			    (share < 0 || share > 1))
				abort();
		}
		{
			/* Merged with itself, as its own diff base, and minus itself. */
			struct psym_profile *in[2] = { p, p }, *m = NULL;
			const char *names[2] = { "a", "b" };
			const enum psym_merge_role role[3][2] = {
				{ PSYM_MERGE_ADD, PSYM_MERGE_ADD },
				{ PSYM_MERGE_ADD, PSYM_MERGE_DIFF_BASE },
				{ PSYM_MERGE_ADD, PSYM_MERGE_SUBTRACT },
			};

			for (int b = 0; b < 3; b++) {
				e = (struct psym_err){ 0 };
				if (psym_profile_merge(in, names, role[b], 2, &lim, &m, &e))
					continue;
				if (psym_profile_validate(m, &e))
					abort(); /* a merge of valid profiles is valid */
				psym_report_top(m, &opts[0], devnull, &e);
				psym_report_flame(m, &opts[0], "m", devnull, &e);
				psym_report_dot(m, &opts[b], "m", devnull, &e);
				/* Scaled to p's total, as --normalize scales: still valid. */
				if (!psym_profile_normalize(m, "m", p, "p", &e)) {
					if (psym_profile_validate(m, &e))
						abort();
					psym_report_top(m, &opts[0], devnull, &e);
				}
				psym_profile_free(m);
				m = NULL;
			}
		}
		fclose(devnull);
	}
	psym_profile_free(p);
	return 0;
}
