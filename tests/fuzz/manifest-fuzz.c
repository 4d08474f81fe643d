/* SPDX-License-Identifier: MIT */
/* Fuzz target: batch manifests (INPUT<TAB>OUTPUT lines) and results lines. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_manifest m;
	struct psym_err e = { 0 };
	int fd;

	if (psym_manifest_parse((const char *)data, size, "fuzz", 1 << 16, &m, &e))
		return 0;
	/* Every accepted path must come out as one valid JSON line. */
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (size_t i = 0; i < m.n && fd >= 0; i++) {
		struct psym_result_line r = { .input = m.v[i].in,
					      .output = m.v[i].out,
					      .line = m.v[i].line,
					      .error = m.v[i].in };

		psym_results_write(fd, &r, &e);
	}
	if (fd >= 0)
		close(fd);
	psym_manifest_free(&m);
	return 0;
}
