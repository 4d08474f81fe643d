/* SPDX-License-Identifier: MIT */
/*
 * Reading a profile file of any format psym takes: pprof (gzip or raw
 * protobuf, pprof.h) or one of gperftools' and pprof's legacy text and
 * binary formats (legacy.h), told apart by their bytes. Above both, so
 * the pprof core never calls the legacy readers that build on it.
 */
#ifndef PSYM_PROFREAD_H
#define PSYM_PROFREAD_H

#include <stddef.h>

#include "pprof.h"

/*
 * Read and decode a profile from path ("-" = stdin). Does not validate.
 * Errors name the file.
 */
int psym_profile_read(const char *path, const struct psym_limits *lim, struct psym_profile **out,
		      struct psym_err *e);

/* The bytes of path ("-" = stdin) within lim->max_input; an empty file is refused. */
int psym_profile_slurp(const char *path, const struct psym_limits *lim, unsigned char **buf,
		       size_t *len, struct psym_err *e);

/* Decode from memory (gzip or raw). name is used in messages. */
int psym_profile_parse(const unsigned char *buf, size_t len, const char *name,
		       const struct psym_limits *lim, struct psym_profile **out,
		       struct psym_err *e);

#endif
