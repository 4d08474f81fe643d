/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hashtab.h"
#include "tap.h"

#define N 200000

int main(void)
{
	struct psym_hashtab h, g;
	struct psym_err e = { 0 };
	char(*keys)[16] = malloc((size_t)N * sizeof(*keys));
	size_t pos = 0, seen = 0, bad = 0, sum = 0;
	const void *k;
	size_t klen;
	void *v = NULL;
	int ret = 0;

	/* FNV-1a test vectors (Fowler/Noll/Vo reference, 64-bit). */
	is_int(psym_fnv1a("", 0, PSYM_FNV1A_INIT) == 0xcbf29ce484222325ULL, 1, "FNV-1a of \"\"");
	is_int(psym_fnv1a("a", 1, PSYM_FNV1A_INIT) == 0xaf63dc4c8601ec8cULL, 1, "FNV-1a of \"a\"");
	is_int(psym_fnv1a("foobar", 6, PSYM_FNV1A_INIT) == 0x85944171f73967e8ULL, 1,
	       "FNV-1a of \"foobar\"");
	is_int(psym_fnv1a("bar", 3, psym_fnv1a("foo", 3, PSYM_FNV1A_INIT)) ==
		       psym_fnv1a("foobar", 6, PSYM_FNV1A_INIT),
	       1, "FNV-1a continues from h");

	psym_hashtab_init(&h, 0);
	is_int(psym_hashtab_get(&h, "x", 1, &v), PSYM_NOENT, "empty table: not found");
	ok(!psym_hashtab_next(&h, &pos, &k, &klen, &v), "empty table: nothing to walk");
	for (size_t i = 0; keys && i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "/lib/m%zu.so", i);
		ret |= psym_hashtab_put(&h, keys[i], strlen(keys[i]), (void *)(uintptr_t)(i + 1),
					&e);
	}
	ok(keys && ret == 0, "%d keys put", N);
	is_int(psym_hashtab_count(&h), N, "count");
	for (size_t i = 0; keys && i < N; i++) {
		char copy[16];

		memcpy(copy, keys[i], sizeof(copy)); /* equal bytes, another pointer */
		if (psym_hashtab_get(&h, copy, strlen(copy), &v) != 0 ||
		    v != (void *)(uintptr_t)(i + 1))
			bad++;
	}
	is_int(bad, 0, "every key found with its value");
	is_int(psym_hashtab_get(&h, "/lib/m200000.so", 15, &v), PSYM_NOENT, "absent key");
	is_int(psym_hashtab_get(&h, "/lib/m1.s", 9, &v), PSYM_NOENT, "a prefix is another key");
	ok(psym_hashtab_put(&h, keys[7], strlen(keys[7]), (void *)42, &e) == 0 &&
		   psym_hashtab_get(&h, keys[7], strlen(keys[7]), &v) == 0 && v == (void *)42 &&
		   psym_hashtab_count(&h) == N,
	   "put of an equal key replaces its value");
	pos = 0;
	while (psym_hashtab_next(&h, &pos, &k, &klen, &v)) {
		seen++;
		sum += (uintptr_t)v;
	}
	is_int(seen, N, "the walk sees every entry once");
	is_int(sum, (size_t)N * (N + 1) / 2 - 8 + 42, "... with its value");
	psym_hashtab_free(&h);
	psym_hashtab_free(&h);
	psym_hashtab_free(NULL);
	ok(1, "free twice and free(NULL)");

	/* Keys are bytes: NUL inside, empty key, NULL with length 0. */
	psym_hashtab_init(&g, 3);
	ok(psym_hashtab_put(&g, "a\0b", 3, (void *)1, &e) == 0 &&
		   psym_hashtab_put(&g, "a\0c", 3, (void *)2, &e) == 0,
	   "keys with NUL bytes");
	ok(psym_hashtab_get(&g, "a\0b", 3, &v) == 0 && v == (void *)1 &&
		   psym_hashtab_get(&g, "a\0c", 3, &v) == 0 && v == (void *)2 &&
		   psym_hashtab_get(&g, "a", 1, &v) == PSYM_NOENT,
	   "... are told apart by all their bytes");
	ok(psym_hashtab_put(&g, NULL, 0, (void *)3, &e) == 0 &&
		   psym_hashtab_get(&g, "", 0, &v) == 0 && v == (void *)3,
	   "empty key (NULL, 0) is \"\"");
	/* The cap: a fourth key is refused, the table unchanged; replacing still works. */
	is_int(psym_hashtab_put(&g, "d", 1, (void *)4, &e), PSYM_ELIMIT,
	       "max entries: PSYM_ELIMIT");
	ok(strstr(e.msg, "more than 3 entries") != NULL, "... said: %s", e.msg);
	ok(psym_hashtab_count(&g) == 3 && psym_hashtab_get(&g, "d", 1, &v) == PSYM_NOENT,
	   "... and nothing stored");
	ok(psym_hashtab_put(&g, "a\0b", 3, (void *)5, &e) == 0, "replacing at the cap is allowed");
	psym_hashtab_free(&g);
	free(keys);
	return tap_done();
}
