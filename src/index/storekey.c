/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "buildid.h"
#include "index.h"
#include "storekey.h"

int psym_index_store_key(const char *build_id, const char *variant, char *buf, size_t bufsz)
{
	int k;

	if (!build_id || !psym_build_id_canonical(build_id) || !variant || !*variant ||
	    strspn(variant, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") !=
		    strlen(variant))
		return -1;
	k = snprintf(buf, bufsz, "%s.%s.f%d", build_id, variant, PSYM_INDEX_VERSION);
	return k < 0 || (size_t)k >= bufsz ? -1 : 0;
}
