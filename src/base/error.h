/* SPDX-License-Identifier: MIT */
/*
 * One error convention for all of libpsym: the codes, struct psym_err and
 * its functions are public, declared in psym.h; error.c implements them.
 */
#ifndef PSYM_ERROR_H
#define PSYM_ERROR_H

#include "psym.h"

#endif
