/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "fileio.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static uint32_t rd32(const unsigned char *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int psym_notes_build_id(const void *notes, size_t len, size_t align, bool swap,
			char out[PSYM_BUILD_ID_HEX_MAX])
{
	const unsigned char *p = notes;
	size_t off = 0;

	if (align != 8)
		align = 4;
	while (len - off >= 12 && off <= len) {
		uint32_t namesz = rd32(p + off, swap);
		uint32_t descsz = rd32(p + off + 4, swap);
		uint32_t type = rd32(p + off + 8, swap);
		size_t name_off = off + 12, desc_off, next;

		if (namesz > len || descsz > len)
			break;
		desc_off = align_up(name_off + namesz, align);
		if (desc_off > len || descsz > len - desc_off)
			break;
		next = align_up(desc_off + descsz, align);
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + name_off, "GNU", 4) == 0 &&
		    descsz >= 1 && descsz <= PSYM_BUILD_ID_MAX) {
			static const char hex[] = "0123456789abcdef";

			for (uint32_t i = 0; i < descsz; i++) {
				out[2 * i] = hex[p[desc_off + i] >> 4];
				out[2 * i + 1] = hex[p[desc_off + i] & 15];
			}
			out[2 * descsz] = '\0';
			return 0;
		}
		if (next <= off)
			break;
		off = next;
		if (off > len)
			break;
	}
	return PSYM_NOENT;
}

static int debug_sup_id(Elf *elf, char out[PSYM_BUILD_ID_HEX_MAX]);

int psym_libelf_build_id(void *handle, char out[PSYM_BUILD_ID_HEX_MAX])
{
	Elf *elf = handle;
	int ret = PSYM_NOENT;
	size_t n;

	if (elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n && ret == PSYM_NOENT; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						 ELF_T_NHDR);
			if (d && d->d_buf)
				ret = psym_notes_build_id(d->d_buf, d->d_size,
							  ph.p_align == 8 ? 8 : 4, false, out);
		}
	}
	if (ret == PSYM_NOENT) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn)) && ret == PSYM_NOENT) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
			    (sh.sh_flags & SHF_COMPRESSED))
				continue;
			d = elf_getdata(scn, NULL);
			if (d && d->d_buf)
				ret = psym_notes_build_id(d->d_buf, d->d_size,
							  sh.sh_addralign == 8 ? 8 : 4, false, out);
		}
	}
	if (ret == PSYM_NOENT)
		ret = debug_sup_id(elf, out);
	return ret;
}

int psym_debug_sup_parse(const void *data, size_t len, bool msb, struct psym_debug_sup *out)
{
	const uint8_t *p = data, *end = p + len, *z;
	uint64_t n = 0;
	unsigned shift = 0;

	memset(out, 0, sizeof(*out));
	if (len < 4 || (msb ? (p[0] << 8 | p[1]) : (p[1] << 8 | p[0])) != 5 || p[2] > 1)
		return PSYM_EBADDWARF;
	out->is_supplementary = p[2] == 1;
	z = memchr(p + 3, 0, len - 3);
	if (!z)
		return PSYM_EBADDWARF;
	out->name = (const char *)(p + 3);
	for (p = z + 1;; p++) { /* ULEB128 length */
		if (p >= end || shift > 56)
			return PSYM_EBADDWARF;
		n |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
		if (!(*p & 0x80))
			break;
	}
	p++;
	if (n > (uint64_t)(end - p))
		return PSYM_EBADDWARF;
	out->checksum = p;
	out->checksum_len = (size_t)n;
	return 0;
}

/* The checksum a supplementary file's own .debug_sup gives, as its build ID. */
static int debug_sup_id(Elf *elf, char out[PSYM_BUILD_ID_HEX_MAX])
{
	static const char digits[] = "0123456789abcdef";
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstr) != 0)
		return PSYM_NOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		struct psym_debug_sup s;
		const char *name;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstr, sh.sh_name)) || strcmp(name, ".debug_sup") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf ||
		    psym_debug_sup_parse(d->d_buf, d->d_size, eh.e_ident[EI_DATA] == ELFDATA2MSB,
					 &s) != 0 ||
		    !s.is_supplementary || s.checksum_len < 1 || s.checksum_len > PSYM_BUILD_ID_MAX)
			return PSYM_NOENT;
		for (size_t i = 0; i < s.checksum_len; i++) {
			out[2 * i] = digits[s.checksum[i] >> 4];
			out[2 * i + 1] = digits[s.checksum[i] & 15];
		}
		out[2 * s.checksum_len] = '\0';
		return 0;
	}
	return PSYM_NOENT;
}

int psym_elf_fd_build_id(int fd, const char *name, char out[PSYM_BUILD_ID_HEX_MAX],
			 struct psym_err *e)
{
	GElf_Ehdr eh;
	Elf *elf;
	int ret;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		ret = psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF file", name);
	else
		ret = psym_libelf_build_id(elf, out);
	elf_end(elf);
	return ret;
}

int psym_elf_file_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX], struct psym_err *e)
{
	int fd = psym_open_regular(path, e), ret;

	if (fd < 0)
		return fd;
	ret = psym_elf_fd_build_id(fd, path, out, e);
	close(fd);
	return ret;
}

int psym_kernel_notes_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX],
			       struct psym_err *e)
{
	unsigned char *buf;
	size_t len;
	int ret;

	/* /sys files report size 4096 but are not regular in every kernel: read
	 * them directly with a small cap. */
	ret = psym_read_file(path, 1 << 20, &buf, &len, e);
	if (ret)
		return ret;
	ret = psym_notes_build_id(buf, len, 4, false, out);
	free(buf);
	return ret;
}

bool psym_build_id_valid(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return false;
	return n >= 2 && n <= 2 * PSYM_BUILD_ID_MAX && n % 2 == 0;
}

bool psym_build_id_canonical(const char *s)
{
	return psym_build_id_valid(s) && strspn(s, "0123456789abcdef") == strlen(s);
}

void psym_build_id_lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}
