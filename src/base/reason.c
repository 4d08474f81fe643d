/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reason.h"

static const char *const names[] = {
#define PSYM_REASON_NAME(n, s) s,
	PSYM_REASONS(PSYM_REASON_NAME)
#undef PSYM_REASON_NAME
};

const char *psym_reason_name(enum psym_reason_code c)
{
	return (unsigned)c < PSYM_R_COUNT ? names[c] : "unknown reason";
}

static void set_v(struct psym_reason *r, enum psym_reason_code code, const char *fmt, va_list ap)
{
	r->code = code;
	if (fmt)
		vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	else
		r->detail[0] = '\0';
}

void psym_reason_set(struct psym_reason *r, enum psym_reason_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_v(r, code, fmt, ap);
	va_end(ap);
}

void psym_reason_offer(struct psym_reason *r, enum psym_reason_code code, int rank, const char *fmt,
		       ...)
{
	va_list ap;

	if (r->code != PSYM_R_NONE && rank <= r->rank)
		return;
	r->rank = rank;
	va_start(ap, fmt);
	set_v(r, code, fmt, ap);
	va_end(ap);
}

const char *psym_reason_text(const struct psym_reason *r)
{
	return r->detail[0] ? r->detail : psym_reason_name(r->code);
}

void psym_reason_keep(struct psym_reason_kept *k, const struct psym_reason *r)
{
	free(k->detail);
	k->code = r->code;
	k->rank = r->rank;
	k->detail = r->detail[0] ? strndup(r->detail, sizeof(r->detail) - 1) : NULL;
}

void psym_reason_unkeep(const struct psym_reason_kept *k, struct psym_reason *out)
{
	out->code = k->code;
	out->rank = k->rank;
	snprintf(out->detail, sizeof(out->detail), "%s", k->detail ? k->detail : "");
}

const char *psym_reason_kept_text(const struct psym_reason_kept *k)
{
	return k->detail ? k->detail : psym_reason_name(k->code);
}

void psym_reason_kept_free(struct psym_reason_kept *k)
{
	free(k->detail);
	k->detail = NULL;
	k->code = PSYM_R_NONE;
	k->rank = 0;
}
