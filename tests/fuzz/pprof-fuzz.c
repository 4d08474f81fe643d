/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: pprof decode (gzip or raw) + validate + show + re-encode,
 * and psym's own packer checked against protobuf-c's on whatever decoded.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psym.h"

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
			psym_show_text(p, devnull);
			psym_show_json(p, devnull);
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
