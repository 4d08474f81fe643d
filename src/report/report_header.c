/* SPDX-License-Identifier: MIT */
/* The header lines every text report starts with, as pprof prints them. */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "report_int.h"
#include "textesc.h"

/* Go's time layout "Jan 2, 2006 at 3:04pm (MST)", local time. */
static void fmt_time(char *buf, size_t sz, int64_t nanos)
{
	time_t t = (time_t)(nanos / 1000000000);
	struct tm tm;
	char zone[64];

	if (!localtime_r(&t, &tm)) {
		snprintf(buf, sz, "?");
		return;
	}
	strftime(zone, sizeof(zone), "%Z", &tm);
	snprintf(buf, sz, "%s %d, %d at %d:%02d%s (%s)",
		 (const char *[]){ "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
				   "Oct", "Nov", "Dec" }[tm.tm_mon % 12],
		 tm.tm_mday, tm.tm_year + 1900, tm.tm_hour % 12 ? tm.tm_hour % 12 : 12, tm.tm_min,
		 tm.tm_hour < 12 ? "am" : "pm", zone);
}

/* A header line: head, then the text from input, control characters escaped. */
static void text_line(FILE *out, const char *head, const char *text)
{
	fputs(head, out);
	psym_text_puts(out, text);
	fputc('\n', out);
}

/* pprof's ProfileLabels. */
void psym_rpt_profile_labels(FILE *out, const struct psym_profile *p, size_t idx, int64_t total,
			     const char *ounit)
{
	const pb_profile *pb = p->pb;
	const char *unit = psym_profile_str(p, pb->sample_type[idx]->unit);
	char a[64], b[64], pa[32];

	if (pb->n_mapping) {
		const char *f = psym_profile_str(p, pb->mapping[0]->filename);
		const char *bs = strrchr(f, '/');

		if (*f)
			text_line(out, "File: ", bs && bs[1] ? bs + 1 : f);
		if (*psym_profile_str(p, pb->mapping[0]->build_id))
			text_line(out, "Build ID: ", psym_profile_str(p, pb->mapping[0]->build_id));
	}
	for (size_t i = 0; i < pb->n_comment; i++) {
		const char *c = psym_profile_str(p, pb->comment[i]);

		if (c[0] != '#')
			text_line(out, "", c);
	}
	text_line(out, "Type: ", psym_profile_str(p, pb->sample_type[idx]->type));
	if (pb->time_nanos) {
		char tb[128];

		fmt_time(tb, sizeof(tb), pb->time_nanos);
		fprintf(out, "Time: %s\n", tb);
	}
	if (pb->duration_nanos) {
		const char *tu;
		double tn = psym_rpt_scale(total, unit, "nanoseconds", &tu);

		psym_rpt_scaled_label(a, sizeof(a), pb->duration_nanos, "nanoseconds", "auto");
		psym_rpt_scaled_label(b, sizeof(b), total, unit, ounit);
		if (!strcmp(tu, "ns") && tn != 0) {
			psym_rpt_percentage(pa, sizeof(pa), tn >= 9.2e18 ? INT64_MAX : (int64_t)tn,
					    pb->duration_nanos);
			fprintf(out, "Duration: %s, Total samples = %s (%s)\n", a, b, pa);
		} else {
			fprintf(out, "Duration: %s, Total samples = %s \n", a, b);
		}
	}
}

/* pprof's legendActiveFilters: each filter set as "name=value", cut at 80 bytes. */
void psym_rpt_active_filters(FILE *out, const struct psym_report_filter *f)
{
	const char *const name[] = { "focus",	 "ignore",    "hide",  "show",
				     "tagfocus", "tagignore", "comms", "pids" };
	const char *const val[] = { f->focus,	 f->ignore,    f->hide,	 f->show,
				    f->tagfocus, f->tagignore, f->comms, f->pids };
	bool any = false;

	for (size_t i = 0; i < sizeof(name) / sizeof(name[0]); i++) {
		char buf[128];
		int n;

		if (!val[i] || !*val[i])
			continue;
		if (!any)
			fprintf(out, "Active filters:\n");
		any = true;
		n = snprintf(buf, sizeof(buf), "%s=%s", name[i], val[i]);
		if (n > 80)
			fprintf(out, "   %.80s\xe2\x80\xa6\n", buf);
		else
			fprintf(out, "   %s\n", buf);
	}
}

int64_t psym_rpt_total(const struct psym_profile *p, size_t idx)
{
	int64_t total = 0, diff_total = 0, base_key = psym_rpt_base_key(p);

	for (size_t i = 0; i < p->pb->n_sample; i++) {
		const pb_sample *s = p->pb->sample[i];

		total = sat_add(total, abs64(s->value[idx]));
		if (base_key >= 0 && psym_rpt_is_base(p, s, base_key))
			diff_total = sat_add(diff_total, abs64(s->value[idx]));
	}
	return diff_total > 0 ? diff_total : total;
}
