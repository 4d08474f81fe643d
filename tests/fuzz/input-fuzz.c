/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the front door. Any bytes through the input table
 * (src/input/), as a profile and lean, gzip'd or not: whichever reader
 * takes them must give a profile that validates or one clean error, and
 * the lean and complete reads of one input must agree on success.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "psym-int.h"

static void one(const uint8_t *data, size_t size, const struct psym_limits *lim)
{
	struct psym_input *a = NULL, *b = NULL;
	struct psym_err e = { 0 };
	struct psym_profile *p;
	struct psym_lean *lp;
	int ra, rb;

	ra = psym_input_parse(data, size, "fuzz", 0, lim, &a, &e);
	if (ra && (ra >= 0 || !e.msg[0]))
		abort(); /* an error without its line */
	e = (struct psym_err){ 0 };
	rb = psym_input_parse(data, size, "fuzz", PSYM_INPUT_LEAN, lim, &b, &e);
	/* The memory cap may be reached by one reader and not the other (lean-fuzz.c). */
	if ((ra == PSYM_ELIMIT || rb == PSYM_ELIMIT) && ra != rb)
		goto out;
	if ((ra == 0) != (rb == 0))
		abort();
	if (!ra) {
		p = psym_input_take_profile(a);
		lp = psym_input_take_lean(b);
		if (!p || !lp)
			abort();
		e = (struct psym_err){ 0 };
		ra = psym_profile_validate(p, &e);
		e = (struct psym_err){ 0 };
		rb = psym_lean_validate(lp, &e);
		if ((ra == 0) != (rb == 0))
			abort();
		psym_profile_free(p);
		psym_lean_free(lp);
	}
out:
	psym_input_free(a);
	psym_input_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_limits lim = {
		.max_input = 1 << 24,
		.max_profile = 1 << 24,
		.max_memory = 1 << 28,
	};
	unsigned char *gz = NULL;
	size_t gzlen = 0;

	one(data, size, &lim);
	/* The same bytes gzip'd: the table undoes gzip for every kind. */
	if (size && psym_gzip(data, size, &gz, &gzlen, NULL) == 0) {
		one(gz, gzlen, &lim);
		free(gz);
	}
	return 0;
}
