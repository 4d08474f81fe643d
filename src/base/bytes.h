/* SPDX-License-Identifier: MIT */
/*
 * Fixed-size integers of a file's own byte order: an N-byte field (N at
 * most 8) read or written little- or big-endian (msb). For readers of
 * formats whose byte order the file says (ELF notes and relocations, Go's
 * pc-line table, a link map in a core); the caller has checked the bytes
 * are inside its buffer.
 */
#ifndef PSYM_BYTES_H
#define PSYM_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The host's order: for readers told "swapped" (the file's order is not the host's). */
#define PSYM_HOST_MSB (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static inline uint64_t psym_get_uint(const uint8_t *p, size_t n, bool msb)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

static inline void psym_put_uint(uint8_t *p, size_t n, bool msb, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		p[msb ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

#endif
