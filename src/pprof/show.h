/* SPDX-License-Identifier: MIT */
/* Human-readable and JSON dumps of a profile (psym show). */
#ifndef PSYM_SHOW_H
#define PSYM_SHOW_H

#include <stdio.h>

#include "pprof.h"

/* The profile must have been validated (indexes built). */
int psym_show_text(const struct psym_profile *p, FILE *out);
int psym_show_json(const struct psym_profile *p, FILE *out);

#endif
