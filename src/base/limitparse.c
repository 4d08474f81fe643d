/* SPDX-License-Identifier: MIT */
/* Named caps: the parser (limitparse.h). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limitparse.h"

static void put(void *l, const struct psym_limit_def *d, unsigned long long v)
{
	char *p = (char *)l + d->off;

	if (d->kind == PSYM_LIMIT_SIZE)
		*(size_t *)(void *)p = (size_t)v;
	else
		*(uint64_t *)(void *)p = v;
}

static unsigned long long get(const void *l, const struct psym_limit_def *d)
{
	const char *p = (const char *)l + d->off;

	return d->kind == PSYM_LIMIT_SIZE ? *(const size_t *)(const void *)p
					  : *(const uint64_t *)(const void *)p;
}

void psym_limits_defaults(const struct psym_limit_def *defs, size_t n, void *base)
{
	for (size_t i = 0; i < n; i++)
		put(base, &defs[i], defs[i].def);
}

bool psym_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case '\0': break;
	default: return false;
	}
	if (*end || (shift && v > (ULLONG_MAX >> shift)))
		return false;
	*out = v << shift;
	return *out > 0;
}

int psym_limits_set(const struct psym_limit_def *defs, size_t n, void *base, const char *spec,
		    struct psym_err *e)
{
	const char *eq = strchr(spec, '=');
	unsigned long long v;

	for (size_t i = 0; eq && i < n; i++) {
		if (strlen(defs[i].name) != (size_t)(eq - spec) ||
		    strncmp(defs[i].name, spec, (size_t)(eq - spec)) != 0)
			continue;
		if (!psym_parse_size(eq + 1, &v) ||
		    (defs[i].kind == PSYM_LIMIT_SIZE && v > SIZE_MAX))
			return psym_err_set(e, PSYM_EUSAGE,
					    "--limit %s: '%s' is not a positive size", defs[i].name,
					    eq + 1);
		put(base, &defs[i], v);
		return 0;
	}
	return psym_err_set(e, PSYM_EUSAGE,
			    "--limit '%s': want NAME=N with NAME one of those of --limit help",
			    spec);
}

void psym_limits_print(const struct psym_limit_def *defs, size_t n, const void *base, FILE *out)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%-19s %12llu  %s\n", defs[i].name, get(base, &defs[i]), defs[i].what);
}

void psym_bad_option_text(char *buf, size_t n, char *const *argv, const char *shortopts)
{
	const char *arg = optind > 0 && argv[optind - 1] ? argv[optind - 1] : "";
	const char *eq = strchr(arg, '=');
	int len = eq ? (int)(eq - arg) : (int)strlen(arg);

	if (len > 100)
		len = 100;
	if (arg[0] == '-' && arg[1] == '-')
		snprintf(buf, n, "%s '%.*s'%s", !optopt ? "unrecognized option" : "option", len,
			 arg,
			 !optopt ? ""
			 : eq	 ? " takes no argument"
				 : " needs an argument");
	else if (optopt > 0 && optopt < 256 && optopt != ':' && strchr(shortopts, optopt))
		snprintf(buf, n, "option '-%c' needs an argument", optopt);
	else
		snprintf(buf, n, "invalid option '-%c'", optopt > 0 && optopt < 256 ? optopt : '?');
}

int psym_parse_whole(const char *arg, long lo, long hi, const char *what, long *out,
		     struct psym_err *e)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < lo || v > hi) {
		if (hi == LONG_MAX)
			return psym_err_set(e, PSYM_EUSAGE,
					    "invalid %s '%s': a whole number from %ld", what, arg,
					    lo);
		return psym_err_set(e, PSYM_EUSAGE,
				    "invalid %s '%s': a whole number from %ld to %ld", what, arg,
				    lo, hi);
	}
	*out = v;
	return 0;
}

int psym_parse_size_arg(const char *arg, size_t *out, struct psym_err *e)
{
	unsigned long long v;

	if (!psym_parse_size(arg, &v) || v > SIZE_MAX)
		return psym_err_set(e, PSYM_EUSAGE, "invalid size '%s'", arg);
	*out = (size_t)v;
	return 0;
}
