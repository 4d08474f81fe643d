/* SPDX-License-Identifier: MIT */
/* Human-readable and JSON dumps of a profile (psym show). */
#ifndef PSYM_SHOW_H
#define PSYM_SHOW_H

#include <stdio.h>

#include "pprof.h"

/* psym_show (psym.h): the profile must have been validated (indexes built). */

#endif
