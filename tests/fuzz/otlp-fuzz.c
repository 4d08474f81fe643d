/* SPDX-License-Identifier: MIT */
/*
 * OTLP profiles (src/input/otlp*.c): any bytes, as binary or OTLP/JSON,
 * are refused with one line or read; what is read converts to pprof,
 * writes back as OTLP, converts from pprof, and its writing decodes again.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "otlp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_limits lim = {
		.max_input = 1 << 24,
		.max_profile = 1 << 24,
		.max_memory = 1 << 28,
	};
	struct psym_err e = { 0 };
	struct psym_otlp *o = NULL, *back = NULL;
	struct psym_profile *p = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int ret;

	(void)psym_otlp_sniff(data, size);
	ret = psym_otlp_decode(data, size, "fuzz", &lim, &o, &e);
	if (ret && (ret >= 0 || !e.msg[0]))
		abort(); /* an error without its line */
	if (ret)
		return 0;
	e = (struct psym_err){ 0 };
	if (psym_otlp_to_profile(o, "fuzz", &lim, &p, &e))
		goto out;
	fp = open_memstream(&buf, &len);
	if (!fp)
		goto out;
	ret = psym_otlp_write(o, p, fp, "fuzz", &e);
	fclose(fp);
	if (!ret) {
		e = (struct psym_err){ 0 };
		if (psym_otlp_decode((unsigned char *)buf, len, "back", &lim, &back, &e))
			abort(); /* psym cannot read what it wrote */
		psym_otlp_free(back);
		back = NULL;
	}
	e = (struct psym_err){ 0 };
	if (!psym_otlp_from_profile(p, &lim, 0, &back, &e))
		psym_otlp_free(back);
out:
	free(buf);
	psym_profile_free(p);
	psym_otlp_free(o);
	return 0;
}
