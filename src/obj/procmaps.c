/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "procmaps.h"
#include "array.h"

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
	uint64_t major, minor;
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
	if (!psym_parse_hex(&p, end, &major) || p >= end || *p++ != ':' ||
	    !psym_parse_hex(&p, end, &minor) || major > UINT32_MAX || minor > UINT32_MAX)
		return false;
	m->dev = major << 32 | minor;
	skip_spaces(&p, end);
	while (p < end && *p >= '0' && *p <= '9' && m->inode <= UINT64_MAX / 10 - 1)
		m->inode = m->inode * 10 + (uint64_t)(*p++ - '0');
	if (p < end && *p != ' ' && *p != '\t')
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
	struct psym_procmap *maps = NULL, *nm, m;
	const char *p = text, *end = text + len;
	size_t n = 0, cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (parse_line(p, le, &m) && m.exec) {
			if (n == PSYM_PROCMAPS_MAX)
				break;
			nm = psym_array_grow(maps, &cap, n + 1, sizeof(*nm), 0);
			if (!nm) {
				free(maps);
				return psym_err_set(e, PSYM_ENOMEM, "out of memory");
			}
			maps = nm;
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
	enum {
		MAX = 1 << 22
	};
	char path[64], *buf = NULL;
	size_t len = 0, cap = 1 << 16;
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	/* procfs sizes are 0: read until EOF into a buffer that grows, capped. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return psym_err_set(e, errno == ENOENT || errno == ESRCH ? PSYM_NOENT : PSYM_EIO,
				    "cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		ssize_t got;

		if (!buf || len + 1 == cap) {
			char *nb;

			if (buf && cap >= MAX)
				break; /* capped: parse what fits */
			if (buf)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
			buf = nb;
		}
		got = read(fd, buf + len, cap - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			/* A process that exits while it is read: ESRCH. */
			ret = psym_err_set(e, errno == ESRCH ? PSYM_NOENT : PSYM_EIO,
					   "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	buf[len] = '\0';
	ret = psym_procmaps_parse(buf, len, out, n, e);
out:
	close(fd);
	free(buf);
	return ret;
}

/* ELF header fields, 32 or 64 bit, this machine's byte order only. */
struct ehdr_info {
	bool is64;
	uint64_t phoff;
	size_t phentsize, phnum;
};

static bool read_all(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t got;

	do
		got = pread(fd, buf, len, (off_t)off);
	while (got < 0 && errno == EINTR);
	return got == (ssize_t)len;
}

static bool parse_ehdr(const unsigned char *h, struct ehdr_info *x)
{
	if (memcmp(h, ELFMAG, SELFMAG) != 0)
		return false;
#if __BYTE_ORDER == __LITTLE_ENDIAN
	if (h[EI_DATA] != ELFDATA2LSB)
		return false;
#else
	if (h[EI_DATA] != ELFDATA2MSB)
		return false;
#endif
	if (h[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;

		memcpy(&eh, h, sizeof(eh));
		x->is64 = true;
		x->phoff = eh.e_phoff;
		x->phentsize = eh.e_phentsize;
		x->phnum = eh.e_phnum;
		return x->phentsize == sizeof(Elf64_Phdr);
	}
	if (h[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;

		memcpy(&eh, h, sizeof(eh));
		x->is64 = false;
		x->phoff = eh.e_phoff;
		x->phentsize = eh.e_phentsize;
		x->phnum = eh.e_phnum;
		return x->phentsize == sizeof(Elf32_Phdr);
	}
	return false;
}

int psym_procmaps_fd_build_id(int fd, char out[PSYM_BUILD_ID_HEX_MAX])
{
	enum {
		MAX_PHDRS = 256,
		MAX_NOTE = 1 << 16
	};
	unsigned char h[sizeof(Elf64_Ehdr)], *ph = NULL, *note = NULL;
	char go[PSYM_BUILD_ID_HEX_MAX] = "";
	struct ehdr_info x;
	int ret = PSYM_NOENT;

	if (!read_all(fd, h, sizeof(Elf32_Ehdr), 0))
		return PSYM_EIO;
	if (h[EI_CLASS] == ELFCLASS64 && !read_all(fd, h, sizeof(Elf64_Ehdr), 0))
		return PSYM_EIO;
	/* PN_XNUM (0xffff) and absurd counts: no build ID from the headers. */
	if (!parse_ehdr(h, &x) || x.phnum == 0 || x.phnum > MAX_PHDRS)
		return PSYM_NOENT;
	ph = malloc(x.phnum * x.phentsize);
	note = malloc(MAX_NOTE);
	if (!ph || !note) {
		ret = PSYM_ENOMEM;
		goto out;
	}
	if (!read_all(fd, ph, x.phnum * x.phentsize, x.phoff)) {
		ret = PSYM_EIO;
		goto out;
	}
	for (size_t i = 0; i < x.phnum && ret == PSYM_NOENT; i++) {
		uint64_t type, off, size, align;

		if (x.is64) {
			Elf64_Phdr p;

			memcpy(&p, ph + i * x.phentsize, sizeof(p));
			type = p.p_type, off = p.p_offset, size = p.p_filesz, align = p.p_align;
		} else {
			Elf32_Phdr p;

			memcpy(&p, ph + i * x.phentsize, sizeof(p));
			type = p.p_type, off = p.p_offset, size = p.p_filesz, align = p.p_align;
		}
		if (type != PT_NOTE || size < 12 || size > MAX_NOTE)
			continue;
		if (!read_all(fd, note, (size_t)size, off))
			continue;
		ret = psym_notes_build_id(note, (size_t)size, align == 8 ? 8 : 4, false, out);
		if (ret == PSYM_NOENT && !go[0] &&
		    psym_notes_go_build_id(note, (size_t)size, align == 8 ? 8 : 4, false, go) != 0)
			go[0] = '\0';
	}
	if (ret == PSYM_NOENT && go[0]) { /* no GNU build ID in any note: Go's */
		memcpy(out, go, sizeof(go));
		ret = 0;
	}
out:
	free(ph);
	free(note);
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
		if (psym_elf_file_mapping_build_id(path, maps[i].build_id, &e) == 0)
			continue;
		if (len > 10 && !strcmp(name + len - 10, " (deleted)"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/root%s", pid, name);
		if (psym_elf_file_mapping_build_id(path, maps[i].build_id, &e) != 0)
			maps[i].build_id[0] = '\0';
	next:;
	}
}

uint64_t psym_procmaps_mntns_other(int pid)
{
	struct stat self, st;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	if (pid <= 0 || stat("/proc/self/ns/mnt", &self) != 0 || stat(path, &st) != 0)
		return 0;
	if (st.st_ino == self.st_ino && st.st_dev == self.st_dev)
		return 0;
	return (uint64_t)st.st_ino;
}
