/* SPDX-License-Identifier: MIT */
/* Fuzz target: the crash-log filter (sanitizer, backtrace_symbols, module+offset lines). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "crashlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_binary_opts bo = { .inlines = true };
	struct psym_crashlog_opts o = { .binary = &bo, .demangle = true };
	struct psym_err e = { 0 };
	FILE *in = fmemopen((void *)data, size, "r"), *out = fopen("/dev/null", "w");

	if (in && out)
		psym_crashlog_filter(in, out, &o, &e);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return 0;
}
