/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elfreloc.h"
#include "kmod.h"
#include "kmodfile.h"

int psym_kmod_open_compressed(const char *path, const unsigned char *buf, size_t len, size_t max,
			      const struct psym_elf_limits *lim, struct psym_elf **out,
			      struct psym_err *e)
{
	unsigned char *img;
	size_t n;
	int ret = psym_kmod_decompress(path, buf, len, max, &img, &n, e);

	if (ret)
		return ret;
	return psym_elf_open_mem(img, n, true, path, lim, out, e);
}

/* ---- finding a module's file ------------------------------------------------- */

#define WALK_DEPTH 8
#define WALK_ENTRIES 200000

bool psym_kmod_names(const char *d, const char *module)
{
	size_t n = strlen(d), x = psym_kmod_ext_len(d, n), m = strlen(module);

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
