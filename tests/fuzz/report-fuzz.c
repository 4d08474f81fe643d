/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the reports (top at each granularity, sorted both ways and
 * cut short, folded with label frames, the flame graph, the unsymbolized
 * share) on any profile the pprof reader accepts and validates.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "psym.h"
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
		{ .sample_index = 1, .comm_frame = true, .pid_frame = true },
		{ .sample_index = -1, .sample_name = "cpu" },
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
			e = (struct psym_err){ 0 };
			psym_report_folded(p, &opts[i], devnull, &e);
			e = (struct psym_err){ 0 };
			psym_report_flame(p, &opts[i], "fuzz <&>", devnull, &e);
			e = (struct psym_err){ 0 };
			if (psym_report_unsymbolized(p, &opts[i], &share, &e) == 0 &&
			    (share < 0 || share > 1))
				abort();
		}
		fclose(devnull);
	}
	psym_profile_free(p);
	return 0;
}
