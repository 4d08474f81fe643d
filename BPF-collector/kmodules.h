/* SPDX-License-Identifier: MIT */
/*
 * psym-collect's record of the loaded kernel modules, a side file
 * (FILE.d/modules) that psym reads to find each module's debug file by its
 * build ID (.build-id trees, debuginfod) when the name alone does not:
 *
 *   NAME BUILD-ID TEXT-ADDRESS
 *
 * one line per module with code, from /sys/module/NAME/notes/
 * .note.gnu.build-id and /sys/module/NAME/sections/.text ("-" for what
 * cannot be read; the address is 0 without privileges).
 */
#ifndef PSYM_COLLECT_KMODULES_H
#define PSYM_COLLECT_KMODULES_H

#include "error.h"

/* Write dir/modules from sysroot's /sys/module ("" or NULL: "/"). */
int psym_collect_modules(const char *sysroot, const char *dir, struct psym_err *e);

#endif
