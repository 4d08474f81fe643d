/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "legacy.h"
#include "profread.h"

int psym_profile_parse(const unsigned char *buf, size_t len, const char *name,
		       const struct psym_limits *limp, struct psym_profile **out,
		       struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	unsigned char *raw = NULL;
	const unsigned char *msg = buf;
	size_t msglen = len;
	bool was_gzip = false;
	int ret;

	if (psym_is_gzip(buf, len)) {
		ret = psym_gunzip(buf, len, lim.max_profile, name, &raw, &msglen, e);
		if (ret)
			return ret;
		msg = raw;
		was_gzip = true;
	} else if (len > lim.max_profile) {
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': profile larger than the limit of %zu bytes", name,
				    lim.max_profile);
	}
	/* gperftools and pprof's older formats: raw addresses and a maps section. */
	if (psym_legacy_detect(msg, msglen) != PSYM_LEGACY_NONE)
		ret = psym_legacy_parse(msg, msglen, name, &lim, out, e);
	else
		ret = psym_profile_decode(msg, msglen, name, &lim, was_gzip, out, e);
	free(raw);
	return ret;
}

int psym_profile_slurp(const char *path, const struct psym_limits *lim, unsigned char **buf,
		       size_t *len, struct psym_err *e)
{
	int ret = psym_read_input_cap(path, lim->max_input, "--max-input-size N", buf, len, e);

	if (!ret && *len == 0) {
		free(*buf);
		return psym_err_set(e, PSYM_EBADPROTO, "'%s': empty file",
				    strcmp(path, "-") ? path : "<stdin>");
	}
	return ret;
}

int psym_profile_read(const char *path, const struct psym_limits *limp, struct psym_profile **out,
		      struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	unsigned char *buf;
	size_t len;
	int ret;

	ret = psym_profile_slurp(path, &lim, &buf, &len, e);
	if (ret)
		return ret;
	ret = psym_profile_parse(buf, len, strcmp(path, "-") ? path : "<stdin>", &lim, out, e);
	free(buf);
	return ret;
}
