/* SPDX-License-Identifier: MIT */
/*
 * The name of an index in a store, the one rule both stores use: the
 * directory store (store.h) and the HTTP store below it (store_http.h).
 */
#ifndef PSYM_STOREKEY_H
#define PSYM_STOREKEY_H

#include <stddef.h>

/*
 * The store's name of build_id's index under the answer rules variant, in
 * this psym's index format: "<build ID>.<variant>.f<PSYM_INDEX_VERSION>".
 * -1 when the build ID is not lowercase hex (psym_build_id_canonical), the variant holds anything but
 * [A-Za-z0-9._+-], or buf is too small.
 */
int psym_index_store_key(const char *build_id, const char *variant, char *buf, size_t bufsz);

#endif
