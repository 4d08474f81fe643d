/* SPDX-License-Identifier: MIT */
/*
 * The identity of the host a profile was recorded on: host name, kernel
 * release and boot ID (/proc/sys/kernel/random/boot_id, new at every
 * boot). psym-collect writes it as a Profile.comment line that pprof
 * readers ignore:
 *
 *   psym-collect: host=NAME kernel=RELEASE boot_id=UUID
 *
 * and psym uses this machine's own perf maps (/tmp/perf-PID.map), kernel
 * release and vDSO for a profile only when all three match: a pid, a
 * kernel or a JIT's map on another machine (or after a reboot) names
 * something else.
 */
#ifndef PSYM_HOSTID_H
#define PSYM_HOSTID_H

#include <stdbool.h>
#include <stddef.h>

#include "pprof.h"

#define PSYM_HOSTID_PREFIX "psym-collect: host="

struct psym_hostid {
	char host[65];	  /* printable, no spaces ('?' replaces others) */
	char kernel[65];  /* uname release, the same */
	char boot_id[40]; /* "" when unknown */
};

/* This machine's identity (a field that cannot be read stays ""). */
void psym_hostid_local(struct psym_hostid *h);

/* The comment line for h (see above); buf of at least 256 bytes. */
void psym_hostid_format(const struct psym_hostid *h, char *buf, size_t bufsz);

/* Parse a comment line: 0, or PSYM_NOENT when it is not an identity line. */
int psym_hostid_parse(const char *line, struct psym_hostid *h);

/* All three fields present and equal. */
bool psym_hostid_same(const struct psym_hostid *a, const struct psym_hostid *b);

/*
 * May this machine's own perf maps, kernel and vDSO stand in for p's
 * missing side files? True for a profile whose recorded identity is this
 * machine's, and for profiles that psym-collect did not write (no way to
 * tell; the user chose to symbolize them here). False for a psym-collect
 * profile from another host, another boot, or without an identity (an
 * older collector); then why (when not NULL) says which, in one line, and
 * *recorded gets the recorded identity (empty fields when none).
 */
bool psym_hostid_profile_is_local(const struct psym_profile *p, struct psym_hostid *recorded,
				  char *why, size_t whysz);

/*
 * The kernel release whose files (vmlinux, modules) p's kernel frames are
 * looked up in: this machine's when p may use this machine's files (see
 * above), else the recorded one; "" when unknown. The symbolizer's rule,
 * for those that prepare a run (--debug-pkg's module wants).
 */
void psym_hostid_profile_release(const struct psym_profile *p, char *buf, size_t bufsz);

/* The build ID of p's kernel mapping ([kernel.kallsyms]) into buf; "" when none. */
void psym_hostid_profile_kernel_build_id(const struct psym_profile *p, char *buf, size_t bufsz);

#endif
