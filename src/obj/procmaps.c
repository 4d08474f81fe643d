/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "procmaps.h"

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

static bool skip_word(const char **p, const char *end)
{
	const char *s = *p;

	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	return *p > s;
}

/* "start-limit perms offset dev inode   path" */
static bool parse_line(const char *p, const char *end, struct psym_procmap *m)
{
	const char *perms;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (!psym_parse_hex(&p, end, &m->start) || p >= end || *p++ != '-' ||
	    !psym_parse_hex(&p, end, &m->limit) || m->limit <= m->start)
		return false;
	skip_spaces(&p, end);
	perms = p;
	if (!skip_word(&p, end) || p - perms < 4)
		return false;
	m->exec = perms[2] == 'x';
	skip_spaces(&p, end);
	if (!psym_parse_hex(&p, end, &m->offset))
		return false;
	skip_spaces(&p, end);
	if (!skip_word(&p, end)) /* dev */
		return false;
	skip_spaces(&p, end);
	if (!skip_word(&p, end)) /* inode */
		return false;
	skip_spaces(&p, end);
	n = (size_t)(end - p);
	if (n >= sizeof(m->path))
		n = sizeof(m->path) - 1;
	memcpy(m->path, p, n);
	m->path[n] = '\0';
	return true;
}

int psym_procmaps_parse(const char *text, size_t len, struct psym_procmap **out, size_t *np,
			struct psym_err *e)
{
	struct psym_procmap *maps = NULL, m;
	const char *p = text, *end = text + len;
	size_t n = 0, cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (parse_line(p, le, &m) && m.exec) {
			if (n == PSYM_PROCMAPS_MAX)
				break;
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 32;
				struct psym_procmap *nm = realloc(maps, ncap * sizeof(*nm));

				if (!nm) {
					free(maps);
					return psym_err_set(e, PSYM_ENOMEM, "out of memory");
				}
				maps = nm;
				cap = ncap;
			}
			maps[n++] = m;
		}
		p = nl ? nl + 1 : end;
	}
	*out = maps;
	*np = n;
	return 0;
}

int psym_procmaps_read(int pid, struct psym_procmap **out, size_t *n, struct psym_err *e)
{
	char path[64];
	unsigned char *buf;
	size_t len;
	int ret;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	/* procfs files are not regular in size terms: read with stdio, capped. */
	f = fopen(path, "r");
	if (!f)
		return psym_err_set(e, errno == ENOENT ? PSYM_EBADINPUT : PSYM_EIO,
				    "cannot open '%s': %s", path, strerror(errno));
	buf = malloc(1 << 22);
	if (!buf) {
		fclose(f);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	len = fread(buf, 1, (1 << 22) - 1, f);
	fclose(f);
	buf[len] = '\0';
	ret = psym_procmaps_parse((const char *)buf, len, out, n, e);
	free(buf);
	return ret;
}

void psym_procmaps_build_ids(int pid, struct psym_procmap *maps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct psym_err e = { 0 };
		char path[1024];
		const char *name = maps[i].path;
		size_t len = strlen(name);

		maps[i].build_id[0] = '\0';
		if (name[0] != '/')
			continue;
		/* Reuse the answer for the same file in this process. */
		for (size_t k = 0; k < i; k++)
			if (!strcmp(maps[k].path, name)) {
				memcpy(maps[i].build_id, maps[k].build_id,
				       sizeof(maps[i].build_id));
				goto next;
			}
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid,
			 maps[i].start, maps[i].limit);
		if (psym_elf_file_build_id(path, maps[i].build_id, &e) == 0)
			continue;
		if (len > 10 && !strcmp(name + len - 10, " (deleted)"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/root%s", pid, name);
		if (psym_elf_file_build_id(path, maps[i].build_id, &e) != 0)
			maps[i].build_id[0] = '\0';
	next:;
	}
}
