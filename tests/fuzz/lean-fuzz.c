/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the lean reader (lean.h) against the complete one. For any
 * input both must accept or refuse it alike, with the same code and
 * message; what both accept must encode to the same profile (byte for
 * byte once re-encoded by protobuf-c's reader and psym's packer, and byte
 * for byte as it is when the input is psym's own encoding); Lines given
 * to the lean locations must encode as the builder's chains do; the
 * streamed writer must write what the encoder gives.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lean.h"
#include "psym-int.h"

static const struct psym_limits lim = {
	.max_input = 1 << 24,
	.max_profile = 1 << 24,
	.max_memory = 1 << 28,
};

/* p's canonical encoding (psym's packer), or NULL. */
static unsigned char *canon(const struct psym_profile *p, size_t *n)
{
	struct psym_err e = { 0 };
	unsigned char *b = NULL;

	return psym_profile_encode(p, false, &b, n, &e) ? NULL : b;
}

/* The lean profile's encoding, read back whole and encoded canonically. */
static unsigned char *lean_canon(const struct psym_lean *lp, size_t *n)
{
	struct psym_profile *q = NULL;
	struct psym_err e = { 0 };
	unsigned char *b = NULL, *c;
	size_t bn;

	if (psym_lean_encode(lp, &b, &bn, &e))
		return NULL;
	if (psym_profile_parse(b, bn, "lean", &lim, &q, &e))
		abort(); /* what the lean writer writes always decodes */
	free(b);
	c = canon(q, n);
	psym_profile_free(q);
	return c;
}

static void same(const unsigned char *a, size_t an, const unsigned char *b, size_t bn)
{
	if (a && b && (an != bn || memcmp(a, b, an) != 0))
		abort();
}

/*
 * Give each location of lp, and the same location of p, the same made-up
 * Lines (the lean profile's own way, records and messages alike, and p's
 * builder): the profiles must still encode alike.
 */
static void give_lines(struct psym_lean *lp, struct psym_profile *p)
{
	struct psym_line_val v[4];
	struct psym_builder *b = NULL, *lb = NULL;
	struct psym_err e = { 0 };
	unsigned char *x, *y;
	size_t xn = 0, yn = 0;

	if (!p->pb->n_function || psym_builder_new(p, &b, &e) ||
	    psym_builder_new(psym_lean_profile(lp), &lb, &e))
		goto out;
	for (size_t i = 0; i < psym_lean_nlocations(lp); i++) {
		size_t n = i % 4;

		for (size_t k = 0; k < n; k++)
			v[k] = (struct psym_line_val){
				p->pb->function[(i + k) % p->pb->n_function]->id,
				(int64_t)(i % 7) - 2, (int64_t)(k * 3 % 5) - 1
			};
		if (psym_lean_set_lines(lp, lb, i, v, n) ||
		    psym_builder_set_line_chain(b, p->pb->location[i], v, n))
			goto out; /* the memory cap: not a finding */
	}
	x = canon(p, &xn);
	y = lean_canon(lp, &yn);
	same(x, xn, y, yn);
	free(x);
	free(y);
out:
	psym_builder_free(lb);
	psym_builder_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_profile *p = NULL;
	struct psym_lean *lp = NULL, *lq = NULL;
	struct psym_err e1 = { 0 }, e2 = { 0 };
	int r1, r2;

	r1 = psym_profile_parse(data, size, "fuzz", &lim, &p, &e1);
	if (!r1)
		r1 = psym_profile_validate(p, &e1);
	r2 = psym_lean_parse(data, size, "fuzz", &lim, &lp, &e2);
	if (!r2)
		r2 = psym_lean_validate(lp, &e2);
	/* The memory cap may be reached by one reader and not the other. */
	if ((r1 == PSYM_ELIMIT || r2 == PSYM_ELIMIT) && r1 != r2)
		goto out;
	if (r1 != r2 || (r1 && strcmp(e1.msg, e2.msg) != 0)) {
		fprintf(stderr, "complete: %d %s\nlean: %d %s\n", r1, e1.msg, r2, e2.msg);
		abort();
	}
	if (r1)
		goto out;
	{
		unsigned char *a, *b, *c = NULL, *w = NULL;
		size_t an = 0, bn = 0, cn = 0, wn = 0;
		FILE *fp;

		a = canon(p, &an);
		b = lean_canon(lp, &bn);
		same(a, an, b, bn);
		/* psym's own encoding goes through unchanged, byte for byte. */
		if (a && psym_lean_parse(a, an, "canon", &lim, &lq, &e2) == 0 &&
		    psym_lean_validate(lq, &e2) == 0 && psym_lean_encode(lq, &c, &cn, &e2) == 0)
			same(a, an, c, cn);
		/* The streamed writer, raw, writes what the encoder gives. */
		fp = open_memstream((char **)&w, &wn);
		if (fp && lq) {
			int ret = psym_lean_write_fp(lq, false, fp, "mem", &e2);

			fclose(fp);
			if (!ret)
				same(w, wn, c, cn);
		} else if (fp) {
			fclose(fp);
		}
		free(a);
		free(b);
		free(c);
		free(w);
		if (psym_lean_nlocations(lp) == p->pb->n_location)
			give_lines(lp, p);
	}
out:
	psym_lean_free(lq);
	psym_lean_free(lp);
	psym_profile_free(p);
	return 0;
}
