/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static const struct {
	int cls;
	const char *msg;
} errors[PSYM__NERRORS] = {
#define PSYM_X_TAB(name, c, m) [PSYM__IDX_##name] = { c, m },
	PSYM_ERRORS(PSYM_X_TAB)
#undef PSYM_X_TAB
};

const char *psym_strerror(int code)
{
	int idx = -code;

	if (idx < 0 || idx >= PSYM__NERRORS)
		return "unknown error";
	return errors[idx].msg;
}

int psym_exit_code(int code)
{
	int idx = -code;

	if (code == 0)
		return PSYM_EXIT_OK;
	if (idx <= 0 || idx >= PSYM__NERRORS)
		return PSYM_EXIT_SYSTEM;
	return errors[idx].cls;
}

int psym_err_set(struct psym_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	/* Keep it one line: untrusted text may carry newlines. */
	for (char *p = e->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return code;
}

void psym_err_prefix(struct psym_err *e, const char *fmt, ...)
{
	char prefix[512], old[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	{
		size_t pl = strlen(prefix);

		if (pl + 2 >= sizeof(e->msg))
			pl = sizeof(e->msg) - 3;
		memcpy(e->msg, prefix, pl);
		memcpy(e->msg + pl, ": ", 2);
		memcpy(e->msg + pl + 2, old, sizeof(e->msg) - pl - 3);
		e->msg[sizeof(e->msg) - 1] = '\0';
	}
}

void psym_err_clear(struct psym_err *e)
{
	if (!e)
		return;
	e->code = 0;
	e->msg[0] = '\0';
}
