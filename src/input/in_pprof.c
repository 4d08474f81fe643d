/* SPDX-License-Identifier: MIT */
/*
 * pprof's own inputs as two kinds of the input table: the protobuf profile
 * (pprof.h; read lean for symbolize, lean.h) and gperftools' and pprof's
 * legacy text and binary formats (legacy.h), told apart by their bytes.
 */
#include "config.h"

#include <stdlib.h>

#include "input.h"
#include "legacy.h"
#include "looks.h"

/* A decoded message over --max-profile-size, as the pprof reader says it. */
static int too_large(const struct psym_input *in, size_t len, bool was_gzip,
		     const struct psym_limits *lim, struct psym_err *e)
{
	/* gzip was undone within the cap already. */
	if (was_gzip || len <= lim->max_profile)
		return 0;
	return psym_err_set(e, PSYM_ELIMIT, "'%s': profile larger than the limit of %zu bytes",
			    in->name, lim->max_profile);
}

static bool legacy_sniff(const unsigned char *buf, size_t len)
{
	return psym_legacy_detect(buf, len) != PSYM_LEGACY_NONE;
}

static int legacy_read(const unsigned char *buf, size_t len, bool was_gzip, unsigned flags,
		       const struct psym_limits *lim, struct psym_input *in, struct psym_err *e)
{
	int ret = too_large(in, len, was_gzip, lim, e);

	(void)flags;
	return ret ? ret : psym_legacy_parse(buf, len, in->name, lim, &in->profile, e);
}

const struct psym_input_kind psym_input_legacy = {
	.name = "legacy",
	.sniff = legacy_sniff,
	.read = legacy_read,
};

/* Protobuf has no magic: whatever no other kind knows and nothing names. */
static bool pprof_sniff(const unsigned char *buf, size_t len)
{
	return !psym_input_looks_like(buf, len);
}

static int pprof_read(const unsigned char *buf, size_t len, bool was_gzip, unsigned flags,
		      const struct psym_limits *lim, struct psym_input *in, struct psym_err *e)
{
	int ret = too_large(in, len, was_gzip, lim, e);

	if (ret)
		return ret;
	if (!(flags & PSYM_INPUT_LEAN))
		return psym_profile_decode(buf, len, in->name, lim, was_gzip, &in->profile, e);
	/* Lean keeps the message's bytes: it takes the table's copy over. */
	if (buf == in->buf) {
		in->buf = NULL;
		in->len = 0;
		return psym_lean_adopt((unsigned char *)buf, len, was_gzip, in->name, lim,
				       &in->lean, e);
	}
	return psym_lean_parse(buf, len, in->name, lim, &in->lean, e);
}

const struct psym_input_kind psym_input_pprof = {
	.name = "pprof",
	.sniff = pprof_sniff,
	.read = pprof_read,
};
