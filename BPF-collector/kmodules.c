/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "kmodules.h"
#include "sidenames.h"

/* A kernel has a few hundred modules; a note a few dozen bytes. */
#define MAX_MODULES 16384
#define NOTE_BYTES 4096

static ssize_t read_small(const char *path, unsigned char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < cap && (n = read(fd, buf + got, cap - (size_t)got)) > 0)
		got += n;
	close(fd);
	return got;
}

/* The GNU build ID of a notes file, as hex into out; false when none. */
static bool note_build_id(const unsigned char *p, size_t len, char *out, size_t outsz)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_end, desc_end;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_end = off + 12 + (((size_t)namesz + 3) & ~(size_t)3);
		desc_end = name_end + (((size_t)descsz + 3) & ~(size_t)3);
		if (namesz > len || descsz > len || name_end > len || desc_end > len)
			return false;
		if (type == 3 && namesz == 4 && memcmp(p + off + 12, "GNU", 4) == 0 && descsz &&
		    descsz * 2 < outsz && descsz <= 64) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", p[name_end + i]);
			return true;
		}
		off = desc_end;
	}
	return false;
}

int psym_collect_modules(const char *sysroot, const char *dir, struct psym_err *e)
{
	char base[4096], path[4600], bid[130];
	unsigned char note[NOTE_BYTES];
	struct psym_out o;
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int ret;

	snprintf(base, sizeof(base), "%s/sys/module", sysroot && *sysroot ? sysroot : "");
	d = opendir(base);
	if (!d)
		return 0; /* no /sys/module: nothing to record */
	snprintf(path, sizeof(path), "%s/" PSYM_SIDE_MODULES, dir);
	ret = psym_out_open(&o, path, e);
	if (ret) {
		closedir(d);
		return ret;
	}
	while ((de = readdir(d)) && n < MAX_MODULES) {
		unsigned char text[64];
		ssize_t got;
		uint64_t addr = 0;

		if (de->d_name[0] == '.' || strchr(de->d_name, ' '))
			continue;
		/* Only modules with code: built-in ones have no sections/. */
		snprintf(path, sizeof(path), "%s/%s/sections/.text", base, de->d_name);
		got = read_small(path, text, sizeof(text) - 1);
		if (got < 0)
			continue;
		text[got] = '\0';
		addr = strtoull((const char *)text, NULL, 16);
		snprintf(path, sizeof(path), "%s/%s/notes/.note.gnu.build-id", base, de->d_name);
		got = read_small(path, note, sizeof(note));
		if (got < 0 || !note_build_id(note, (size_t)got, bid, sizeof(bid)))
			snprintf(bid, sizeof(bid), "-");
		fprintf(o.fp, "%s %s %" PRIx64 "\n", de->d_name, bid, addr);
		n++;
	}
	closedir(d);
	if (ferror(o.fp)) {
		psym_out_abort(&o);
		return psym_err_set(e, PSYM_EIO, "cannot write '%s/modules': %s", dir,
				    strerror(errno));
	}
	return psym_out_commit(&o, e);
}
