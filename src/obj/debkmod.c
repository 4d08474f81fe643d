/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debkmod.h"
#include "elffile.h"
#include "fileio.h"
#include "kmod.h"

bool psym_debkmod_member(const char *path, char *rel, size_t relsz, const char **base)
{
	const char *r = path + strlen(PSYM_DEBKMOD_PREFIX), *slash, *b;

	if (strncmp(path, PSYM_DEBKMOD_PREFIX, strlen(PSYM_DEBKMOD_PREFIX)) != 0)
		return false;
	slash = strchr(r, '/');
	if (!slash || slash == r || (size_t)(slash - r) >= relsz)
		return false;
	b = strrchr(slash, '/') + 1;
	if (!psym_kmod_name_is(b))
		return false;
	memcpy(rel, r, (size_t)(slash - r));
	rel[slash - r] = '\0';
	*base = b;
	return true;
}

bool psym_debkmod_matches(const struct psym_deb_kmod *w, const char *rel, const char *base)
{
	return (!w->release || strcmp(w->release, rel) == 0) && psym_kmod_names(base, w->name);
}

int psym_debkmod_build_id(const char *file, const char *name, char id[PSYM_BUILD_ID_HEX_MAX],
			  bool *plain)
{
	struct psym_elf *elf = NULL;
	struct psym_err le = { 0 };
	unsigned char *buf = NULL;
	const char *bid;
	size_t len = 0;
	int ret;

	*plain = psym_elf_file_build_id(file, id, NULL) == 0;
	if (*plain)
		return 0;
	/* Compressed as kmod installs modules: the file is at most the cap. */
	ret = psym_read_file(file, PSYM_KMOD_MAX_BYTES, &buf, &len, &le);
	if (ret)
		return ret;
	ret = psym_kmod_open_compressed(name, buf, len, 0, NULL, &elf, &le);
	free(buf);
	if (ret)
		return ret < 0 ? ret : PSYM_EBADELF;
	bid = psym_elf_build_id(elf);
	if (!bid || strlen(bid) >= PSYM_BUILD_ID_HEX_MAX) {
		ret = PSYM_NOENT;
	} else {
		memcpy(id, bid, strlen(bid) + 1);
		psym_build_id_lower(id);
	}
	psym_elf_close(elf);
	return ret;
}

/* A field of an index line: printable, no space, not empty. */
static bool plain_field(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

bool psym_debkmod_key(const struct psym_deb_kmod *w, char *buf, size_t bufsz)
{
	char name[256];
	size_t n = strlen(w->name);
	int k;

	if (n >= sizeof(name) || !plain_field(w->name) ||
	    (w->release && !plain_field(w->release)) || (w->build_id && !plain_field(w->build_id)))
		return false;
	for (size_t i = 0; i <= n; i++)
		name[i] = w->name[i] == '-' ? '_' : w->name[i];
	k = snprintf(buf, bufsz, "ko %s %s %s", w->release ? w->release : "*", name,
		     w->build_id ? w->build_id : "-");
	return k > 0 && (size_t)k < bufsz;
}

bool psym_debkmod_parse(const char *line, size_t *path_off)
{
	const char *p = line, *path;

	if (strncmp(line, "ko ", 3) != 0)
		return false;
	p += 3;
	/* RELEASE NAME BUILD-ID: three fields, one space after each. */
	for (int f = 0; f < 3; f++) {
		const char *sp = strchr(p, ' ');

		if (!sp || sp == p)
			return false;
		for (const char *c = p; c < sp; c++)
			if ((unsigned char)*c < ' ' || (unsigned char)*c >= 0x7f)
				return false;
		p = sp + 1;
	}
	path = p;
	if (strcmp(path, "-") != 0 &&
	    (strncmp(path, PSYM_DEBKMOD_PREFIX, strlen(PSYM_DEBKMOD_PREFIX)) != 0 ||
	     strstr(path, "..") || strchr(path, '\n')))
		return false;
	*path_off = (size_t)(path - line);
	return true;
}
