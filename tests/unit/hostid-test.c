/* SPDX-License-Identifier: MIT */
/*
 * The host identity psym-collect records (hostid.h): format and parse
 * round trip, hostile comment lines, the local/foreign decision on
 * profiles; and the collector's pread build-ID reader against libelf's
 * (psym_elf_file_build_id) on this test's own executable, plus truncated
 * and non-ELF files.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psym-int.h"
#include "tap.h"

static struct psym_profile *profile_with(const char *c1, const char *c2)
{
	struct psym_profile *p = NULL;
	struct psym_builder *b = NULL;
	struct psym_err e = { 0 };

	if (psym_profile_new(NULL, &p, &e) || psym_builder_new(p, &b, &e))
		abort();
	if ((c1 && psym_builder_comment(b, c1)) || (c2 && psym_builder_comment(b, c2)))
		abort();
	psym_builder_free(b);
	return p;
}

int main(int argc, char **argv)
{
	char rel[65];
	struct psym_hostid here, h, rec;
	struct psym_profile *p;
	char line[256], why[256], a[PSYM_BUILD_ID_HEX_MAX], b[PSYM_BUILD_ID_HEX_MAX];
	struct psym_err e = { 0 };
	int fd;

	(void)argc;
	psym_hostid_local(&here);
	ok(here.host[0] && here.kernel[0], "local identity: host '%s' kernel '%s' boot '%s'",
	   here.host, here.kernel, here.boot_id);
	psym_hostid_format(&here, line, sizeof(line));
	ok(!strncmp(line, PSYM_HOSTID_PREFIX, strlen(PSYM_HOSTID_PREFIX)), "format: %s", line);
	ok(psym_hostid_parse(line, &h) == 0 && psym_hostid_same(&h, &here) == !!here.boot_id[0],
	   "parse(format) is the same identity");
	ok(psym_hostid_parse("psym-collect: caller frames are recorded as return address - 1",
			     &h) == PSYM_NOENT,
	   "another comment is not an identity");
	ok(psym_hostid_parse("psym-collect: host=a kernel=b", &h) == PSYM_NOENT,
	   "missing boot_id: not an identity");
	{
		char longer[400];

		memset(longer, 'x', sizeof(longer));
		memcpy(longer, PSYM_HOSTID_PREFIX, strlen(PSYM_HOSTID_PREFIX));
		strcpy(longer + 300, " kernel=k boot_id=b");
		ok(psym_hostid_parse(longer, &h) == PSYM_NOENT, "over-long host name refused");
	}
	{
		struct psym_hostid x = { "", "k", "b" };

		ok(!psym_hostid_same(&x, &x), "an empty field never matches");
	}

	/* Which profiles may use this machine's perf maps. */
	p = profile_with(NULL, NULL);
	ok(psym_hostid_profile_is_local(p, NULL, why, sizeof(why)),
	   "not from psym-collect: local files allowed (as before)");
	psym_profile_free(p);
	p = profile_with(PSYM_COLLECT_COMMENT, NULL);
	ok(!psym_hostid_profile_is_local(p, NULL, why, sizeof(why)) && strstr(why, "does not say"),
	   "psym-collect without identity: not local (%s)", why);
	psym_profile_free(p);
	if (here.boot_id[0]) {
		p = profile_with(PSYM_COLLECT_COMMENT, line);
		ok(psym_hostid_profile_is_local(p, &rec, why, sizeof(why)) &&
			   !strcmp(rec.kernel, here.kernel),
		   "this machine's identity: local");
		psym_profile_free(p);
	}
	snprintf(line, sizeof(line), PSYM_HOSTID_PREFIX "elsewhere kernel=%s boot_id=%s",
		 here.kernel, here.boot_id);
	p = profile_with(PSYM_COLLECT_COMMENT, line);
	ok(!psym_hostid_profile_is_local(p, &rec, why, sizeof(why)) &&
		   strstr(why, "host 'elsewhere'") && !strcmp(rec.host, "elsewhere"),
	   "another host: not local (%s)", why);
	psym_profile_free(p);
	/* The release kernel files are looked up for: the recorded one, else this machine's. */
	snprintf(line, sizeof(line), PSYM_HOSTID_PREFIX "elsewhere kernel=6.1.0-other boot_id=b");
	p = profile_with(line, NULL);
	psym_hostid_profile_release(p, rel, sizeof(rel));
	is_str(rel, "6.1.0-other", "another host: its recorded release");
	psym_profile_free(p);
	p = profile_with(PSYM_COLLECT_COMMENT, NULL);
	psym_hostid_profile_release(p, rel, sizeof(rel));
	is_str(rel, "", "psym-collect without identity: no release");
	psym_profile_free(p);
	p = profile_with(NULL, NULL);
	psym_hostid_profile_release(p, rel, sizeof(rel));
	is_str(rel, here.kernel, "not from psym-collect: this machine's (uname)");
	psym_profile_free(p);
	snprintf(line, sizeof(line), PSYM_HOSTID_PREFIX "%s kernel=%s boot_id=00000000-old",
		 here.host, here.kernel);
	p = profile_with(line, NULL);
	ok(!psym_hostid_profile_is_local(p, NULL, why, sizeof(why)) && strstr(why, "boot"),
	   "another boot: not local (%s)", why);
	psym_profile_free(p);

	/* The pread build-ID reader agrees with libelf's. */
	fd = open(argv[0], O_RDONLY);
	if (fd >= 0 && psym_elf_file_build_id(argv[0], a, &e) == 0) {
		ok(psym_procmaps_fd_build_id(fd, b) == 0 && !strcmp(a, b),
		   "pread build ID of %s: %s", argv[0], b);
	} else {
		ok(1, "# skip: %s has no build ID", argv[0]);
	}
	if (fd >= 0)
		close(fd);
	{
		char tmpl[] = "/tmp/hostid-test-XXXXXX";
		int t = mkstemp(tmpl);
		unsigned char hdr[64];

		ok(t >= 0, "temporary file");
		fd = open(argv[0], O_RDONLY);
		ok(fd >= 0 && read(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr), "read a header");
		if (fd >= 0)
			close(fd);
		/* The ELF header alone: program headers beyond the end. */
		ok(write(t, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr), "write a truncated ELF");
		ok(psym_procmaps_fd_build_id(t, b) < 0 ||
			   psym_procmaps_fd_build_id(t, b) == PSYM_NOENT,
		   "truncated ELF: no build ID, no crash");
		ok(ftruncate(t, 0) == 0 && write(t, "#!/bin/sh\n", 10) == 10, "a script");
		ok(psym_procmaps_fd_build_id(t, b) != 0, "not an ELF: no build ID");
		close(t);
		unlink(tmpl);
	}
	return tap_failed ? 1 : 0;
}
