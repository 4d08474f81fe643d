/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: pprof decode (gzip or raw) + validate + show + re-encode,
 * and psym's own packer checked against protobuf-c's on whatever decoded.
 * Whatever validates also has its Lines given again as shared chains (as
 * symbolize does) and is written through psym_profile_write_fp: neither
 * may change a byte of the encoding.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psym-int.h"

/*
 * Give every location its own Lines again through the builder's shared
 * chains, then check that the encoding is what it was, in memory and
 * through psym_profile_write_fp. Lines with unknown fields (which
 * protobuf-c keeps, and a new Line cannot have) are left as they are.
 */
static void share_chains(struct psym_profile *p)
{
	struct psym_line_val v[PSYM_BUILDER_MAX_CHAIN];
	struct psym_builder *b = NULL;
	struct psym_err e = { 0 };
	unsigned char *before = NULL, *after = NULL, *file = NULL;
	size_t nb, na, nf = 0;
	FILE *fp;

	if (psym_profile_encode(p, false, &before, &nb, &e) || psym_builder_new(p, &b, &e)) {
		free(before);
		return;
	}
	for (size_t i = 0; i < p->pb->n_location; i++) {
		pb_location *l = p->pb->location[i];
		bool plain = l->n_line <= PSYM_BUILDER_MAX_CHAIN;

		for (size_t j = 0; plain && j < l->n_line; j++) {
			plain = l->line[j]->base.n_unknown_fields == 0;
			v[j] = (struct psym_line_val){ l->line[j]->function_id, l->line[j]->line,
						       l->line[j]->column };
		}
		if (plain && psym_builder_set_line_chain(b, l, v, l->n_line))
			goto out; /* the memory cap: not a finding */
	}
	if (psym_profile_encode(p, false, &after, &na, &e) == 0 &&
	    (na != nb || memcmp(before, after, nb) != 0))
		abort();
	fp = open_memstream((char **)&file, &nf);
	if (fp) {
		int ret = psym_profile_write_fp(p, false, fp, "mem", &e);

		fclose(fp);
		if (ret == 0 && (nf != nb || memcmp(before, file, nb) != 0))
			abort();
	}
out:
	psym_builder_free(b);
	free(file);
	free(after);
	free(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_limits lim = {
		.max_input = 1 << 24,
		.max_profile = 1 << 24,
		.max_memory = 1 << 28,
	};
	struct psym_profile *p = NULL, *q = NULL;
	struct psym_err e = { 0 };
	unsigned char *buf = NULL;
	size_t len;
	FILE *devnull;

	if (psym_profile_parse(data, size, "fuzz", &lim, &p, &e))
		return 0;
	if (psym_profile_validate(p, &e) == 0) {
		devnull = fopen("/dev/null", "w");
		if (devnull) {
			psym_show(p, PSYM_SHOW_TEXT, devnull);
			psym_show(p, PSYM_SHOW_JSON, devnull);
			fclose(devnull);
		}
	}
	{
		size_t n = psym_pprof_packed_size(p->pb);
		uint8_t *a = malloc(n ? n : 1), *b = malloc(n ? n : 1);

		if (a && b) {
			if (protobuf_c_message_get_packed_size(&p->pb->base) != n ||
			    protobuf_c_message_pack(&p->pb->base, a) != n ||
			    psym_pprof_pack(p->pb, b) != n || memcmp(a, b, n) != 0)
				abort();
		}
		if (a) {
			uint8_t *g = NULL;
			size_t gn;

			if (psym_pprof_pack_alloc(p->pb, 0, &g, &gn) == 0 &&
			    (gn != n || memcmp(a, g, n) != 0))
				abort();
			free(g);
		}
		free(a);
		free(b);
	}
	if (psym_profile_validate(p, &e) == 0)
		share_chains(p);
	/* Whatever decoded must encode and decode again. */
	if (psym_profile_encode(p, false, &buf, &len, &e) == 0) {
		if (psym_profile_parse(buf, len, "re-encoded", &lim, &q, &e) != 0)
			abort();
		psym_profile_free(q);
		free(buf);
	}
	psym_profile_free(p);
	return 0;
}
