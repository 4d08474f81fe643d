/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "htlhash.h"
#include "sha256.h"

#define PART 4096

bool psym_build_id_is_htlhash(const char *s)
{
	size_t pfx = sizeof(PSYM_HTLHASH_PREFIX) - 1, n = 0;

	if (!s || strncmp(s, PSYM_HTLHASH_PREFIX, pfx))
		return false;
	for (s += pfx; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return false;
	return n == PSYM_HTLHASH_HEX - 1;
}

static bool read_at(int fd, unsigned char *buf, size_t n, off_t off)
{
	while (n) {
		ssize_t r = pread(fd, buf, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		buf += r;
		n -= (size_t)r;
		off += r;
	}
	return true;
}

int psym_file_htlhash(const char *path, char hex[PSYM_HTLHASH_HEX], struct psym_err *e)
{
	unsigned char buf[2 * PART + 8];
	uint8_t sum[32];
	struct stat st;
	size_t head, tail;
	uint64_t len;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = psym_err_set(e, PSYM_ENOTREG, "'%s': not a regular file", path);
		goto out;
	}
	len = (uint64_t)st.st_size;
	head = len < PART ? (size_t)len : PART;
	tail = head;
	if (!read_at(fd, buf, head, 0) || !read_at(fd, buf + head, tail, (off_t)(len - tail))) {
		ret = psym_err_set(e, PSYM_EIO, "cannot read '%s'", path);
		goto out;
	}
	for (int i = 0; i < 8; i++)
		buf[head + tail + i] = (unsigned char)(len >> (56 - 8 * i));
	psym_sha256(buf, head + tail + 8, sum);
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", sum[i]);
out:
	close(fd);
	return ret;
}
