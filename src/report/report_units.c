/* SPDX-License-Identifier: MIT */
/*
 * Units and values as pprof's internal/measurement prints them: below the
 * report tree and the filters, which both scale values.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

struct unit {
	const char *name;
	const char *alias[4];
	double factor;
};

struct unit_type {
	struct unit u[9];
	struct unit def;
};

static const struct unit_type unit_types[] = {
	{ { { "B", { "b", "byte" }, 1 },
	    { "kB", { "kb", "kbyte", "kilobyte" }, 1024.0 },
	    { "MB", { "mb", "mbyte", "megabyte" }, 1048576.0 },
	    { "GB", { "gb", "gbyte", "gigabyte" }, 1073741824.0 },
	    { "TB", { "tb", "tbyte", "terabyte" }, 1099511627776.0 },
	    { "PB", { "pb", "pbyte", "petabyte" }, 1125899906842624.0 } },
	  { "B", { 0 }, 1 } },
	{ { { "ns", { "ns", "nanosecond" }, 1 },
	    { "us", { "\xce\xbcs", "us", "microsecond" }, 1e3 },
	    { "ms", { "ms", "millisecond" }, 1e6 },
	    { "s", { "s", "sec", "second" }, 1e9 },
	    { "hrs", { "hour", "hr" }, 3600e9 } },
	  { "s", { 0 }, 1e9 } },
	{ { { "n*GCU", { "nanogcu" }, 1e-9 },
	    { "u*GCU", { "microgcu" }, 1e-6 },
	    { "m*GCU", { "milligcu" }, 1e-3 },
	    { "GCU", { "gcu" }, 1 },
	    { "k*GCU", { "kilogcu" }, 1e3 },
	    { "M*GCU", { "megagcu" }, 1e6 },
	    { "G*GCU", { "gigagcu" }, 1e9 },
	    { "T*GCU", { "teragcu" }, 1e12 },
	    { "P*GCU", { "petagcu" }, 1e15 } },
	  { "GCU", { 0 }, 1 } },
};

/* pprof's sniffUnit: lower case, a plural 's' dropped, then the aliases. */
static const struct unit *sniff_unit(const struct unit_type *ut, const char *name)
{
	char low[32];
	size_t n = strlen(name);

	if (n >= sizeof(low))
		return NULL;
	for (size_t i = 0; i <= n; i++)
		low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
	if (n > 2 && low[n - 1] == 's')
		low[n - 1] = '\0';
	for (size_t i = 0; i < sizeof(ut->u) / sizeof(ut->u[0]) && ut->u[i].name; i++)
		for (size_t k = 0; k < 4 && ut->u[i].alias[k]; k++)
			if (!strcmp(ut->u[i].alias[k], low))
				return &ut->u[i];
	return NULL;
}

/*
 * pprof's measurement.Scale: value in from, scaled to the unit to ("auto"
 * or "minimum": the largest unit the value is at least 1 of). *out_unit is
 * "" for units not worth printing (count, samples).
 */
double psym_rpt_scale(int64_t value, const char *from, const char *to, const char **out_unit)
{
	if (value < 0 && value != INT64_MIN)
		return -psym_rpt_scale(-value, from, to, out_unit);
	for (size_t t = 0; t < sizeof(unit_types) / sizeof(unit_types[0]); t++) {
		const struct unit_type *ut = &unit_types[t];
		const struct unit *fu = sniff_unit(ut, from), *tu;
		double v;

		if (!fu)
			continue;
		v = (double)value * fu->factor;
		if (!strcmp(to, "minimum") || !strcmp(to, "auto")) {
			double f = 0;
			const char *un = NULL;

			for (size_t i = 0; i < sizeof(ut->u) / sizeof(ut->u[0]) && ut->u[i].name;
			     i++)
				if (ut->u[i].factor >= f && v / ut->u[i].factor >= 1.0) {
					f = ut->u[i].factor;
					un = ut->u[i].name;
				}
			if (un) {
				*out_unit = un;
				return v / f;
			}
			*out_unit = ut->def.name;
			return v / ut->def.factor;
		}
		tu = sniff_unit(ut, to);
		if (!tu) {
			*out_unit = ut->def.name;
			return v / ut->def.factor;
		}
		*out_unit = tu->name;
		return v / tu->factor;
	}
	if (!strcmp(to, "count") || !strcmp(to, "sample") || !strcmp(to, "unit") ||
	    !strcmp(to, "minimum") || !strcmp(to, "auto"))
		*out_unit = "";
	else
		*out_unit = to;
	return (double)value;
}

/* pprof's measurement.ScaledLabel: "%.2f" without ".00", then the unit. */
void psym_rpt_scaled_label(char *buf, size_t sz, int64_t value, const char *from, const char *to)
{
	const char *u;
	double v = psym_rpt_scale(value, from, to, &u);
	size_t n;

	snprintf(buf, sz, "%.2f", v);
	n = strlen(buf);
	if (n > 3 && !strcmp(buf + n - 3, ".00"))
		buf[n - 3] = '\0';
	if (!strcmp(buf, "0") || !strcmp(buf, "-0")) {
		snprintf(buf, sz, "0");
		return;
	}
	n = strlen(buf);
	snprintf(buf + n, sz - n, "%s", u);
}

void psym_report_value(char *buf, size_t sz, int64_t value, const char *unit)
{
	psym_rpt_scaled_label(buf, sz, value, unit, "auto");
}

/* pprof's measurement.Percentage. */
void psym_rpt_percentage(char *buf, size_t sz, int64_t value, int64_t total)
{
	double r = total ? (double)abs64(value) / (double)abs64(total) * 100 : 0;

	if (r >= 99.95 && r <= 100.05)
		snprintf(buf, sz, "  100%%");
	else if (r >= 1.0)
		snprintf(buf, sz, "%5.2f%%", r);
	else
		snprintf(buf, sz, "%5.2g%%", r);
}
