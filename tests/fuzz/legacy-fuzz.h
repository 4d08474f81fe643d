/* SPDX-License-Identifier: MIT */
/*
 * The body of the legacy-profile fuzz targets (one per format): the input
 * follows a fixed header naming the format, so every run reaches that
 * format's reader. Whatever reads must validate (the reader builds valid
 * profiles only) and survive an encode and decode round trip.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psym-int.h"

static int fuzz_legacy(const uint8_t *head, size_t hlen, const uint8_t *data, size_t size)
{
	struct psym_limits lim = {
		.max_input = 1 << 24,
		.max_profile = 1 << 24,
		.max_memory = 1 << 28,
	};
	struct psym_profile *p = NULL, *q = NULL;
	struct psym_err e = { 0 };
	unsigned char *buf, *enc = NULL;
	size_t len;

	buf = malloc(hlen + size + 1);
	if (!buf)
		return 0;
	memcpy(buf, head, hlen);
	if (size)
		memcpy(buf + hlen, data, size);
	if (psym_profile_parse(buf, hlen + size, "fuzz", &lim, &p, &e) == 0) {
		FILE *devnull = fopen("/dev/null", "w");

		if (psym_profile_validate(p, &e) != 0) {
			fprintf(stderr, "legacy reader built an invalid profile: %s\n", e.msg);
			abort();
		}
		if (devnull) {
			psym_show(p, PSYM_SHOW_TEXT, devnull);
			fclose(devnull);
		}
		if (psym_profile_encode(p, false, &enc, &len, &e) != 0 ||
		    psym_profile_parse(enc, len, "re-encoded", &lim, &q, &e) != 0)
			abort();
		psym_profile_free(q);
		free(enc);
		psym_profile_free(p);
	}
	free(buf);
	return 0;
}
