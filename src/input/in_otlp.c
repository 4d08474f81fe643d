/* SPDX-License-Identifier: MIT */
/*
 * The "otlp" input kind: OpenTelemetry profiles (otlp.h), binary or
 * OTLP/JSON, raw or gzip (input.c undoes gzip). The decoded message stays
 * in in->state, so that `psym symbolize --format otlp` writes it back
 * with the lines found (psym_otlp_write).
 */
#include "config.h"
#include "input.h"
#include "otlp.h"

static int otlp_read(const unsigned char *buf, size_t len, bool was_gzip, unsigned flags,
		     const struct psym_limits *lim, struct psym_input *in, struct psym_err *e)
{
	struct psym_otlp *o;
	int ret;

	(void)flags;
	ret = psym_otlp_decode(buf, len, in->name, lim, &o, e);
	if (ret)
		return ret;
	ret = psym_otlp_to_profile(o, in->name, lim, &in->profile, e);
	if (ret) {
		psym_otlp_free(o);
		return ret;
	}
	in->profile->was_gzip = was_gzip;
	in->state = o;
	return 0;
}

static int otlp_write(const struct psym_input *in, const struct psym_profile *p, FILE *fp,
		      const char *name, struct psym_err *e)
{
	return psym_otlp_write(in->state, p, fp, name, e);
}

static void otlp_free_state(void *state, void *stacks_ud)
{
	(void)stacks_ud;
	psym_otlp_free(state);
}

const struct psym_input_kind psym_input_otlp = {
	.name = "otlp",
	.sniff = psym_otlp_sniff,
	.read = otlp_read,
	.write = otlp_write,
	.free_state = otlp_free_state,
};

int psym_otlp_write_input(const struct psym_input *in, const struct psym_profile *p,
			  const struct psym_limits *lim, FILE *fp, const char *name,
			  struct psym_err *e)
{
	struct psym_otlp *o = NULL;
	int ret;

	if (in->kind == &psym_input_otlp && in->state)
		return psym_otlp_write(in->state, p, fp, name, e);
	ret = psym_otlp_from_profile(p, lim, 0, &o, e);
	if (!ret)
		ret = psym_otlp_encode_fp(o, fp, name, e);
	psym_otlp_free(o);
	return ret;
}
