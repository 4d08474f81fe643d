/* SPDX-License-Identifier: MIT */
/*
 * Bounds-checked reading of a DWARF section: a cursor never reads past the
 * end of its section. A bad read sets ok to false and moves the cursor to
 * the end, so loops stop. Integers are read in the file's byte order.
 */
#ifndef PSYM_DWARF_CURSOR_H
#define PSYM_DWARF_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cur {
	const uint8_t *p, *end;
	bool ok, swap;
};

static inline struct cur cur_at(const uint8_t *base, size_t len, uint64_t off, bool swap)
{
	static const uint8_t empty[1];
	struct cur c;

	if (!base) { /* an absent section */
		base = empty;
		len = 0;
	}
	c = (struct cur){ base + len, base + len, false, swap };

	if (off <= len) {
		c.p = base + off;
		c.ok = true;
	}
	return c;
}

static inline void cur_fail(struct cur *c)
{
	c->ok = false;
	c->p = c->end;
}

static inline size_t cur_left(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

static inline void skip(struct cur *c, uint64_t n)
{
	if (n > cur_left(c))
		cur_fail(c);
	else
		c->p += n;
}

static inline uint8_t rd_u8(struct cur *c)
{
	if (c->p >= c->end) {
		cur_fail(c);
		return 0;
	}
	return *c->p++;
}

/* Unsigned integer of n (1..8) bytes in the file's byte order. */
static inline uint64_t rd_un(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if (n > cur_left(c) || n == 0 || n > 8) {
		cur_fail(c);
		return 0;
	}
	if (!c->swap) {
		for (unsigned i = n; i-- > 0;)
			v = (v << 8) | c->p[i];
	} else {
		for (unsigned i = 0; i < n; i++)
			v = (v << 8) | c->p[i];
	}
	c->p += n;
	return v;
}

static inline uint16_t rd_u16(struct cur *c)
{
	uint16_t v;

	if (cur_left(c) < 2) {
		cur_fail(c);
		return 0;
	}
	memcpy(&v, c->p, 2);
	c->p += 2;
	return c->swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t rd_u32(struct cur *c)
{
	uint32_t v;

	if (cur_left(c) < 4) {
		cur_fail(c);
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	return c->swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t rd_u64(struct cur *c)
{
	uint64_t v;

	if (cur_left(c) < 8) {
		cur_fail(c);
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return c->swap ? __builtin_bswap64(v) : v;
}

static inline uint64_t rd_off(struct cur *c, unsigned offsz)
{
	return offsz == 8 ? rd_u64(c) : rd_u32(c);
}

static inline uint64_t rd_uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	if (c->p < c->end && *c->p < 0x80)
		return *c->p++;
	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift < 70)
			shift += 7;
	}
	cur_fail(c);
	return 0;
}

static inline int64_t rd_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (shift < 70)
			shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	cur_fail(c);
	return 0;
}

static inline const char *rd_cstr(struct cur *c)
{
	const uint8_t *s = c->p, *z;

	if (c->p >= c->end) {
		cur_fail(c);
		return NULL;
	}
	z = memchr(s, 0, cur_left(c));
	if (!z) {
		cur_fail(c);
		return NULL;
	}
	c->p = z + 1;
	return (const char *)s;
}

/* Unit length: sets *offsz to 4 or 8; 0 with ok false for reserved values. */
static inline uint64_t rd_unit_length(struct cur *c, unsigned *offsz)
{
	uint64_t len = rd_u32(c);

	*offsz = 4;
	if (len == 0xffffffffu) {
		*offsz = 8;
		len = rd_u64(c);
	} else if (len >= 0xfffffff0u) {
		cur_fail(c);
		return 0;
	}
	return len;
}

#endif
