/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: perf map text and jitdump records (first byte picks), lookups;
 * a first byte 'b': a profile's jitdump comment (perfmap.h), parsed, and
 * what parses written back and parsed again to the same record.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfmap.h"

static void comment(const uint8_t *data, size_t size)
{
	struct psym_jitdump_rec r, r2;
	char s[4096], out[4200];

	if (size >= sizeof(s))
		return;
	memcpy(s, data, size);
	s[size] = 0;
	psym_jitdump_name_pid(s);
	if (!psym_jitdump_comment_parse(s, &r))
		return;
	psym_jitdump_name_pid(r.path);
	if (!psym_jitdump_comment(&r, out, sizeof(out)) || !psym_jitdump_comment_parse(out, &r2) ||
	    r2.pid != r.pid || r2.has_inode != r.has_inode || r2.maj != r.maj || r2.min != r.min ||
	    r2.ino != r.ino || strcmp(r2.path, r.path))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_perfmap_limits lim = { .max_entries = 1 << 16, .max_name_bytes = 1 << 20 };
	struct psym_perfmap *m = NULL;
	struct psym_err e = { 0 };
	struct psym_frame f;

	if (size >= 1 && data[0] == 'b') {
		comment(data + 1, size - 1);
		return 0;
	}
	if (size < 1 || psym_perfmap_new(&lim, &m, &e))
		return 0;
	if (data[0] & 1)
		psym_perfmap_add_jitdump_mem(m, data + 1, size - 1, "fuzz", &e);
	else
		psym_perfmap_add_text(m, (const char *)data + 1, size - 1, "fuzz", &e);
	for (uint64_t a = 0; a < 0x3000; a += 0x101)
		psym_perfmap_lookup(m, a, &f);
	psym_perfmap_lookup(m, UINT64_MAX, &f);
	psym_perfmap_free(m);
	return 0;
}
