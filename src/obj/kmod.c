/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "compress.h"
#include "elfreloc.h"
#include "kmod.h"

static const char *const kmod_ext[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz", ".ko.debug" };
#define N_EXT (sizeof(kmod_ext) / sizeof(kmod_ext[0]))

/* Length of path's module extension, 0 when it has none. */
static size_t ext_len(const char *path, size_t n)
{
	for (size_t i = 0; i < N_EXT; i++) {
		size_t k = strlen(kmod_ext[i]);

		if (n > k && strcmp(path + n - k, kmod_ext[i]) == 0)
			return k;
	}
	return 0;
}

bool psym_kmod_name_is(const char *path)
{
	return ext_len(path, strlen(path)) != 0;
}

/* zstd with an output cap: a frame may not say its size, so stream it. */
static int unzstd(const unsigned char *in, size_t len, size_t max, const char *name,
		  unsigned char **out, size_t *outlen, struct psym_err *e)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	unsigned char *buf = NULL;
	size_t cap = 0, got = 0, r = 1;
	int ret = 0;

	if (!ds)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	/* Decoder window capped too (2^27: zstd's default maximum). */
	ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, 27);
	while (ib.pos < ib.size || r != 0) {
		ZSTD_outBuffer ob;

		if (got == cap) {
			size_t ncap = cap ? cap * 2 : (size_t)1 << 20;
			unsigned char *nb;

			if (cap >= max) {
				ret = psym_err_set(
					e, PSYM_ELIMIT,
					"'%s': decompresses to more than the limit of %zu "
					"bytes",
					name, max);
				goto out;
			}
			if (ncap > max)
				ncap = max;
			nb = realloc(buf, ncap);
			if (!nb) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		ob = (ZSTD_outBuffer){ buf + got, cap - got, 0 };
		r = ZSTD_decompressStream(ds, &ob, &ib);
		if (ZSTD_isError(r)) {
			ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': corrupt zstd data: %s", name,
					   ZSTD_getErrorName(r));
			goto out;
		}
		got += ob.pos;
		if (ob.pos == 0 && ib.pos == ib.size && r != 0) {
			ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': truncated zstd data", name);
			goto out;
		}
	}
	*out = buf;
	*outlen = got;
	buf = NULL;
out:
	free(buf);
	ZSTD_freeDStream(ds);
	return ret;
}

int psym_kmod_open_compressed(const char *path, const unsigned char *buf, size_t len, size_t max,
			      const struct psym_elf_limits *lim, struct psym_elf **out,
			      struct psym_err *e)
{
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	unsigned char *img = NULL;
	size_t n = 0;
	int ret;

	if (!max)
		max = PSYM_KMOD_MAX_BYTES;
	/*
	 * Modules, DWARF and all, compress 3 to 10 times; zeros 6,000 times.
	 * A claim past 64 times (plus 64 MiB) is a bomb, refused before it
	 * costs the full cap in memory.
	 */
	if (len < ((size_t)1 << 40) && max > len * 64 + ((size_t)64 << 20))
		max = len * 64 + ((size_t)64 << 20);
	if (len >= 6 && memcmp(buf, xz, 6) == 0)
		ret = psym_unxz(buf, len, max, path, &img, &n, e);
	else if (len >= 4 && memcmp(buf, zst, 4) == 0)
		ret = unzstd(buf, len, max, path, &img, &n, e);
	else if (psym_is_gzip(buf, len))
		ret = psym_gunzip(buf, len, max, path, &img, &n, e);
	else
		return PSYM_NOENT;
	if (ret)
		return ret;
	if (n < 4 || memcmp(img, ELFMAG, 4) != 0) {
		free(img);
		return psym_err_set(e, PSYM_EBADELF, "'%s': decompresses to no ELF file", path);
	}
	return psym_elf_open_mem(img, n, true, path, lim, out, e);
}

/* ---- finding a module's file ------------------------------------------------- */

#define WALK_DEPTH 8
#define WALK_ENTRIES 200000

bool psym_kmod_names(const char *d, const char *module)
{
	size_t n = strlen(d), x = ext_len(d, n), m = strlen(module);

	if (!x || n - x != m)
		return false;
	for (size_t i = 0; i < m; i++) {
		char a = d[i] == '-' ? '_' : d[i], b = module[i] == '-' ? '_' : module[i];

		if (a != b)
			return false;
	}
	return true;
}

static int walk(const char *dir, const char *module, int depth, size_t *budget, char *buf,
		size_t bufsz)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	int ret = PSYM_NOENT;

	if (!dp)
		return PSYM_NOENT;
	while (ret != 0 && (de = readdir(dp)) && *budget) {
		char path[4096];
		struct stat st;

		(*budget)--;
		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < WALK_DEPTH)
				ret = walk(path, module, depth + 1, budget, buf, bufsz);
			continue;
		}
		if (!psym_kmod_names(de->d_name, module) || stat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if ((size_t)snprintf(buf, bufsz, "%s", path) < bufsz)
			ret = 0;
	}
	closedir(dp);
	return ret;
}

int psym_kmod_find(const char *root, const char *module, char *buf, size_t bufsz)
{
	size_t budget = WALK_ENTRIES;

	if (!*module || strchr(module, '/'))
		return PSYM_NOENT;
	return walk(root, module, 0, &budget, buf, bufsz);
}

/* ---- psym-collect's record ---------------------------------------------------- */

int psym_kmod_record_find(const char *text, size_t len, const char *module, char *bid, size_t bidsz,
			  uint64_t *text_addr)
{
	size_t m = strlen(module);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *id, *ide, *a;
		char num[24];
		size_t idn, an;

		if ((size_t)(eol - p) > m + 1 && memcmp(p, module, m) == 0 && p[m] == ' ') {
			id = p + m + 1;
			ide = memchr(id, ' ', (size_t)(eol - id));
			idn = ide ? (size_t)(ide - id) : 0;
			if (ide && idn >= 2 && idn < bidsz &&
			    strspn(id, "0123456789abcdef") >= idn) {
				memcpy(bid, id, idn);
				bid[idn] = '\0';
				a = ide + 1;
				an = (size_t)(eol - a);
				*text_addr = 0;
				if (an && an < sizeof(num)) {
					memcpy(num, a, an);
					num[an] = '\0';
					*text_addr = strtoull(num, NULL, 16);
				}
				return 0;
			}
		}
		p = eol + 1;
	}
	return PSYM_NOENT;
}

/* ---- placing the code sections ------------------------------------------------ */

/* Symbols tried per section before it is given up (a renamed or hidden one is not in kallsyms). */
#define TRIES_PER_SECTION 16

size_t psym_kmod_place(struct psym_elf *ko, psym_kmod_addr_fn addr, void *ud)
{
	Elf *elf = psym_elf_libelf(ko);
	size_t nsec = psym_elf_nsections(ko), placed = 0, shstr;
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, ssh;
	Elf_Data *d;
	size_t nsyms;

	if (!psym_elf_is_rel(ko) || elf_getshdrstrndx(elf, &shstr) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			ssh = sh;
			break;
		}
	if (!symscn || !ssh.sh_entsize || !(d = elf_getdata(symscn, NULL)))
		return 0;
	nsyms = d->d_size / ssh.sh_entsize;
	for (size_t i = 1; i < nsec; i++) {
		Elf_Scn *t = elf_getscn(elf, i);
		const char *sname;
		int tries = 0;

		if (!t || !gelf_getshdr(t, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		sname = elf_strptr(elf, shstr, sh.sh_name);
		if (!sname)
			continue;
		for (size_t k = 1; k < nsyms && tries < TRIES_PER_SECTION; k++) {
			GElf_Sym s;
			const char *name;
			uint64_t a;
			int type;

			if (!gelf_getsym(d, (int)k, &s) || s.st_shndx != i)
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if (type != STT_FUNC && type != STT_NOTYPE)
				continue;
			name = elf_strptr(elf, ssh.sh_link, s.st_name);
			if (!name || !*name || name[0] == '.' || name[0] == '$')
				continue;
			tries++;
			if (addr(ud, name, &a) != 0 || a < s.st_value)
				continue;
			if (psym_elf_place(ko, sname, a - s.st_value) == 0)
				placed++;
			break;
		}
	}
	return placed;
}
