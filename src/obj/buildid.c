/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "bytes.h"
#include "fileio.h"
#include "hashtab.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static uint32_t rd32(const unsigned char *p, bool swap)
{
	return (uint32_t)psym_get_uint(p, 4, swap != PSYM_HOST_MSB);
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static bool zeros(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The one walker of ELF note buffers: the first note of this owner name
 * (with its NUL, and any NUL padding Go adds) and type, bounds-checked. 0 with its descriptor, or
 * PSYM_NOENT.
 */
static int note_find(const unsigned char *p, size_t len, size_t align, bool swap, const char *owner,
		     uint32_t want_type, const unsigned char **desc, size_t *desclen)
{
	size_t off = 0, ownersz = strlen(owner) + 1;

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
		/* Go's linker pads its owner "Go" with NULs to namesz 4. */
		if (type == want_type && namesz >= ownersz && namesz <= 8 &&
		    memcmp(p + name_off, owner, ownersz) == 0 &&
		    zeros(p + name_off + ownersz, namesz - ownersz)) {
			*desc = p + desc_off;
			*desclen = descsz;
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

int psym_notes_build_id(const void *notes, size_t len, size_t align, bool swap,
			char out[PSYM_BUILD_ID_HEX_MAX])
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *d;
	size_t n;

	if (note_find(notes, len, align, swap, "GNU", NT_GNU_BUILD_ID, &d, &n) != 0 || n < 1 ||
	    n > PSYM_BUILD_ID_MAX)
		return PSYM_NOENT;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * n] = '\0';
	return 0;
}

/* A character Go build IDs are made of (base64url, '/', and what -buildid= may add). */
static bool go_id_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '/' || c == '+' || c == '=' || c == '.';
}

int psym_notes_go_build_id(const void *notes, size_t len, size_t align, bool swap,
			   char out[PSYM_BUILD_ID_HEX_MAX])
{
	const size_t pfx = sizeof(PSYM_GO_BUILD_ID_PREFIX) - 1;
	const unsigned char *d;
	size_t n;

	if (note_find(notes, len, align, swap, "Go", PSYM_NT_GO_BUILD_ID, &d, &n) != 0)
		return PSYM_NOENT;
	while (n > 0 && d[n - 1] == '\0') /* padding some linkers may add */
		n--;
	if (n < 1 || n > PSYM_GO_BUILD_ID_MAX)
		return PSYM_NOENT;
	for (size_t i = 0; i < n; i++)
		if (!go_id_char(d[i]))
			return PSYM_NOENT;
	memcpy(out, PSYM_GO_BUILD_ID_PREFIX, pfx);
	memcpy(out + pfx, d, n);
	out[pfx + n] = '\0';
	return 0;
}

int psym_notes_mapping_build_id(const void *notes, size_t len, size_t align, bool swap,
				char out[PSYM_BUILD_ID_HEX_MAX])
{
	if (psym_notes_build_id(notes, len, align, swap, out) == 0)
		return 0;
	return psym_notes_go_build_id(notes, len, align, swap, out);
}

bool psym_build_id_is_go(const char *s)
{
	const size_t pfx = sizeof(PSYM_GO_BUILD_ID_PREFIX) - 1;
	size_t n = 0;

	if (!s || strncmp(s, PSYM_GO_BUILD_ID_PREFIX, pfx) != 0)
		return false;
	for (s += pfx; s[n]; n++)
		if (n >= PSYM_GO_BUILD_ID_MAX || !go_id_char((unsigned char)s[n]))
			return false;
	return n >= 1;
}

int psym_go_build_id_key(const char *go, char out[PSYM_BUILD_ID_HEX_MAX])
{
	size_t n;

	if (!psym_build_id_is_go(go))
		return PSYM_NOENT;
	n = strlen(go);
	/* Two starting values: two hashes, 128 bits together. */
	snprintf(out, PSYM_BUILD_ID_HEX_MAX, "676f%016llx%016llx",
		 (unsigned long long)psym_fnv1a(go, n, PSYM_FNV1A_INIT),
		 (unsigned long long)psym_fnv1a(go, n, PSYM_FNV1A_INIT ^ 0x9e3779b97f4a7c15ULL));
	return 0;
}

static int debug_sup_id(Elf *elf, char out[PSYM_BUILD_ID_HEX_MAX]);

typedef int (*notes_reader)(const void *notes, size_t len, size_t align, bool swap,
			    char out[PSYM_BUILD_ID_HEX_MAX]);

/* The first answer of rd over the PT_NOTE segments, then the SHT_NOTE sections. */
static int libelf_notes(Elf *elf, notes_reader rd, char out[PSYM_BUILD_ID_HEX_MAX])
{
	Elf_Scn *scn = NULL;
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
				ret = rd(d->d_buf, d->d_size, ph.p_align == 8 ? 8 : 4, false, out);
		}
	}
	while (ret == PSYM_NOENT && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    (sh.sh_flags & SHF_COMPRESSED))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			ret = rd(d->d_buf, d->d_size, sh.sh_addralign == 8 ? 8 : 4, false, out);
	}
	return ret;
}

int psym_libelf_build_id(void *handle, char out[PSYM_BUILD_ID_HEX_MAX])
{
	int ret = libelf_notes(handle, psym_notes_build_id, out);

	if (ret == PSYM_NOENT)
		ret = debug_sup_id(handle, out);
	return ret;
}

int psym_libelf_go_build_id(void *handle, char out[PSYM_BUILD_ID_HEX_MAX])
{
	return libelf_notes(handle, psym_notes_go_build_id, out);
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

static int fd_build_id(int fd, const char *name, bool go, char out[PSYM_BUILD_ID_HEX_MAX],
		       struct psym_err *e)
{
	GElf_Ehdr eh;
	Elf *elf;
	int ret;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		ret = psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF file", name);
	else if ((ret = psym_libelf_build_id(elf, out)) == PSYM_NOENT && go)
		ret = psym_libelf_go_build_id(elf, out);
	elf_end(elf);
	return ret;
}

int psym_elf_fd_build_id(int fd, const char *name, char out[PSYM_BUILD_ID_HEX_MAX],
			 struct psym_err *e)
{
	return fd_build_id(fd, name, false, out, e);
}

static int file_build_id(const char *path, bool go, char out[PSYM_BUILD_ID_HEX_MAX],
			 struct psym_err *e)
{
	int fd = psym_open_regular(path, e), ret;

	if (fd < 0)
		return fd;
	ret = fd_build_id(fd, path, go, out, e);
	close(fd);
	return ret;
}

int psym_elf_file_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX], struct psym_err *e)
{
	return file_build_id(path, false, out, e);
}

int psym_elf_file_mapping_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX],
				   struct psym_err *e)
{
	return file_build_id(path, true, out, e);
}

int psym_elf_fd_mapping_build_id(int fd, const char *name, char out[PSYM_BUILD_ID_HEX_MAX],
				 struct psym_err *e)
{
	return fd_build_id(fd, name, true, out, e);
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
