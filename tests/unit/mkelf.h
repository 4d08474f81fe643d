/* SPDX-License-Identifier: MIT */
/*
 * Hand-made inputs for the unit tests of readers: a little-endian byte
 * buffer with the DWARF encodings (ULEB/SLEB128, strings, patched
 * lengths), and an ELF64 image holding given sections, at given
 * addresses, with a section-header string table.
 */
#ifndef PSYM_TEST_MKELF_H
#define PSYM_TEST_MKELF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t b[4096];
	size_t n;
};

static inline void u8(struct buf *b, uint64_t v)
{
	if (b->n >= sizeof(b->b))
		abort();
	b->b[b->n++] = (uint8_t)v;
}

static inline void un(struct buf *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		u8(b, v >> (8 * i));
}

static inline void uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t x = v & 0x7f;

		v >>= 7;
		u8(b, x | (v ? 0x80 : 0));
	} while (v);
}

static inline void sleb(struct buf *b, int64_t v)
{
	for (;;) {
		uint8_t x = v & 0x7f;

		v >>= 7; /* arithmetic */
		if ((v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40))) {
			u8(b, x);
			return;
		}
		u8(b, x | 0x80);
	}
}

static inline void str(struct buf *b, const char *s)
{
	do
		u8(b, (uint8_t)*s);
	while (*s++);
}

static inline void patch32(struct buf *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 4; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * i));
}

struct sec {
	const char *name;
	const struct buf *data;
	uint64_t addr;
};

/*
 * An ELF64 x86-64 ET_EXEC image (malloc'd; *len its size): the sections'
 * contents right after the ELF header, then .shstrtab, then the section
 * headers (null, the sections as PROGBITS, .shstrtab). At most 15 sections.
 */
static inline uint8_t *mkelf_image(const struct sec *secs, size_t n, size_t *lenp)
{
	uint8_t *p = calloc(1, 8 * sizeof(struct buf));
	size_t shstr_off, shoff, off[16], nameoff[16], shstr_name, len;
	size_t pos = 64;
	char *names;

	if (!p || n > 15) {
		free(p);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		off[i] = pos;
		memcpy(p + pos, secs[i].data->b, secs[i].data->n);
		pos += secs[i].data->n;
	}
	shstr_off = pos;
	names = (char *)p + pos;
	len = 1; /* "" */
	names[0] = 0;
	for (size_t i = 0; i < n; i++) {
		nameoff[i] = len;
		strcpy(names + len, secs[i].name);
		len += strlen(secs[i].name) + 1;
	}
	shstr_name = len;
	strcpy(names + len, ".shstrtab");
	len += strlen(".shstrtab") + 1;
	pos += len;
	shoff = (pos + 7) & ~(size_t)7;
	memcpy(p, "\177ELF\2\1\1", 7);
	p[16] = 2;  /* ET_EXEC */
	p[18] = 62; /* EM_X86_64 */
	p[20] = 1;  /* EV_CURRENT */
	memcpy(p + 40, &shoff, 8);
	p[52] = 64; /* e_ehsize */
	p[58] = 64; /* e_shentsize */
	p[60] = (uint8_t)(n + 2);
	p[62] = (uint8_t)(n + 1); /* e_shstrndx */
	for (size_t i = 0; i <= n; i++) {
		uint8_t *sh = p + shoff + 64 * (i + 1);
		uint32_t name = (uint32_t)(i < n ? nameoff[i] : shstr_name);
		uint32_t type = i < n ? 1 : 3; /* PROGBITS, STRTAB */
		uint64_t o = i < n ? off[i] : shstr_off, sz = i < n ? secs[i].data->n : len;
		uint64_t addr = i < n ? secs[i].addr : 0;

		memcpy(sh, &name, 4);
		memcpy(sh + 4, &type, 4);
		memcpy(sh + 16, &addr, 8);
		memcpy(sh + 24, &o, 8);
		memcpy(sh + 32, &sz, 8);
		sh[48] = 1; /* sh_addralign */
	}
	*lenp = shoff + 64 * (n + 2);
	return p;
}

#endif
