/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the crash-log filter (sanitizer, backtrace_symbols, module+
 * offset lines), resolution path included: modules are located under a
 * sysroot holding one real ELF file with DWARF, the fuzz binary itself
 * (as /prog), so frames such as "(/prog+0x1139)" reach the locator, the
 * registry, the resolver and the DWARF reader.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psym-int.h"

static char sysroot[64];

static void cleanup(void)
{
	char prog[128];

	snprintf(prog, sizeof(prog), "%s/prog", sysroot);
	unlink(prog);
	rmdir(sysroot);
}

/* SYSROOT/prog: a copy of this very program (the runs must not write it). */
static const char *make_sysroot(void)
{
	char prog[128], buf[1 << 16];
	FILE *in, *out;
	size_t n;

	if (sysroot[0])
		return sysroot;
	snprintf(sysroot, sizeof(sysroot), "/tmp/psym-fuzz-root.XXXXXX");
	if (!mkdtemp(sysroot)) {
		sysroot[0] = '\0';
		return NULL;
	}
	atexit(cleanup);
	snprintf(prog, sizeof(prog), "%s/prog", sysroot);
	in = fopen("/proc/self/exe", "rb");
	out = fopen(prog, "wb");
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return sysroot;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_reader_limits lim;
	struct psym_locate_opts lo = { 0 };
	struct psym_binary_opts bo = { .inlines = true, .locate = &lo };
	struct psym_crashlog_opts o = { .binary = &bo, .demangle = true };
	struct psym_err e = { 0 };
	FILE *in, *out;

	psym_reader_limits_default(&lim);
	lo.sysroot = make_sysroot();
	lo.elf_limits = &lim.elf;
	bo.limits = &lim;
	if (!lo.sysroot)
		return 0;
	in = fmemopen((void *)data, size, "r");
	out = fopen("/dev/null", "w");
	if (in && out)
		psym_crashlog_filter(in, out, &o, &e);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return 0;
}
