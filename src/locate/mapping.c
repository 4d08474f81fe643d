/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mapping.h"

static bool has_suffix(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);

	return n >= m && memcmp(s + n - m, suf, m) == 0;
}

static bool starts(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

enum psym_map_class psym_mapping_classify(const char *name, char *clean, size_t cleansz,
					  bool *deletedp)
{
	char buf[4096];
	size_t n = strlen(name);
	bool deleted = false;
	enum psym_map_class c;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
	if (has_suffix(buf, n, " (deleted)")) {
		deleted = true;
		n -= strlen(" (deleted)");
		buf[n] = '\0';
	}
	if (n == 0 || !strcmp(buf, "//anon") || starts(buf, "[anon") || starts(buf, "/memfd:") ||
	    starts(buf, "memfd:") || starts(buf, "/dev/zero") || starts(buf, "[jit") ||
	    starts(buf, "/SYSV")) {
		c = PSYM_MAP_ANON;
	} else if (!strcmp(buf, "[vdso]") || !strcmp(buf, "linux-vdso.so.1") ||
		   !strcmp(buf, "linux-vdso.so") || !strcmp(buf, "linux-gate.so.1")) {
		c = PSYM_MAP_VDSO;
	} else if (starts(buf, "[kernel.kallsyms]")) {
		/* perf writes "[kernel.kallsyms]_text" or "..._stext". */
		c = PSYM_MAP_KERNEL;
		buf[strlen("[kernel.kallsyms]")] = '\0';
	} else if (!strcmp(buf, "[vmlinux]") || !strcmp(buf, "vmlinux") ||
		   has_suffix(buf, n, "/vmlinux")) {
		c = PSYM_MAP_KERNEL;
	} else if (has_suffix(buf, n, ".ko") || has_suffix(buf, n, ".ko.xz") ||
		   has_suffix(buf, n, ".ko.zst") || has_suffix(buf, n, ".ko.gz")) {
		c = PSYM_MAP_KMODULE;
	} else if (buf[0] == '[') {
		static const char *const specials[] = {
			"[heap]",    "[stack",	  "[vvar",     "[vsyscall]",
			"[uprobes]", "[sigpage]", "[vectors]", "[stack_guard",
		};

		c = PSYM_MAP_SPECIAL;
		for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
			if (starts(buf, specials[i]))
				goto out;
		/* Any other "[name]" is how perf names a kernel module. */
		c = n > 2 && buf[n - 1] == ']' ? PSYM_MAP_KMODULE : PSYM_MAP_SPECIAL;
	} else {
		c = PSYM_MAP_FILE;
	}
out:
	if (clean && cleansz) {
		snprintf(clean, cleansz, "%s", buf);
	}
	if (deletedp)
		*deletedp = deleted;
	return c;
}

const char *psym_map_class_name(enum psym_map_class c)
{
	switch (c) {
	case PSYM_MAP_FILE: return "file";
	case PSYM_MAP_VDSO: return "vdso";
	case PSYM_MAP_KERNEL: return "kernel";
	case PSYM_MAP_KMODULE: return "kernel module";
	case PSYM_MAP_ANON: return "anonymous (JIT?)";
	case PSYM_MAP_SPECIAL: return "special";
	}
	return "?";
}
