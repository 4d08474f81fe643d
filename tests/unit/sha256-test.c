/* SPDX-License-Identifier: MIT */
/*
 * base's SHA-256 (sha256.h) against digests made by another implementation
 * (Python's hashlib, when this test was written): FIPS 180-4's "abc" and
 * two-block examples, a million 'a's, and a byte pattern at every length
 * where the padding changes shape (55/56, 63/64/65, 119/120, 127/128).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "tap.h"

static const struct {
	size_t len;
	const char *hex;
} pattern[] = {
	{ 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ 1, "084fed08b978af4d7d196a7446a86b58009e636b611db16211b65a9aadff29c5" },
	{ 55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b" },
	{ 56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27" },
	{ 63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055" },
	{ 64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241" },
	{ 65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e" },
	{ 119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e" },
	{ 120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5" },
	{ 127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07" },
	{ 128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6" },
	{ 1000, "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371" },
};

static void check(const void *buf, size_t len, const char *want, const char *what)
{
	char hex[PSYM_SHA256_HEX];

	psym_sha256_hex(buf, len, hex);
	ok(!strcmp(hex, want), "%s", what);
}

int main(void)
{
	unsigned char *b = malloc(1000000);
	char what[64];

	if (!b)
		return 1;
	check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	      "FIPS 180-4: abc");
	check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	      "FIPS 180-4: two blocks");
	memset(b, 'a', 1000000);
	check(b, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	      "a million a's");
	for (size_t i = 0; i < 1000; i++)
		b[i] = (unsigned char)(i * 7 + 3);
	for (size_t i = 0; i < sizeof(pattern) / sizeof(pattern[0]); i++) {
		snprintf(what, sizeof(what), "pattern of %zu bytes", pattern[i].len);
		check(b, pattern[i].len, pattern[i].hex, what);
	}
	free(b);
	return tap_done();
}
