/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "show.h"
#include "textesc.h"

#define S(idx) psym_profile_str(p, (idx))

static void print_value_type(const struct psym_profile *p, FILE *out, const pb_value_type *vt)
{
	fprintf(out, "%s/%s", S(vt->type), S(vt->unit));
}

static void print_label(const struct psym_profile *p, FILE *out, const pb_label *lb)
{
	if (lb->str)
		fprintf(out, " %s:[%s]", S(lb->key), S(lb->str));
	else if (lb->num_unit)
		fprintf(out, " %s:[%" PRId64 " %s]", S(lb->key), lb->num, S(lb->num_unit));
	else
		fprintf(out, " %s:[%" PRId64 "]", S(lb->key), lb->num);
}

static int show_text(const struct psym_profile *p, FILE *out)
{
	const pb_profile *pb = p->pb;

	if (pb->time_nanos) {
		time_t t = (time_t)(pb->time_nanos / 1000000000);
		struct tm tm;
		char buf[64];

		gmtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
		fprintf(out, "Time: %s\n", buf);
	}
	if (pb->duration_nanos)
		fprintf(out, "Duration: %.3fs\n", (double)pb->duration_nanos / 1e9);
	if (pb->period_type) {
		fprintf(out, "PeriodType: ");
		print_value_type(p, out, pb->period_type);
		fprintf(out, "\n");
	}
	fprintf(out, "Period: %" PRId64 "\n", pb->period);
	if (pb->default_sample_type)
		fprintf(out, "DefaultSampleType: %s\n", S(pb->default_sample_type));
	if (pb->drop_frames)
		fprintf(out, "DropFrames: %s\n", S(pb->drop_frames));
	if (pb->keep_frames)
		fprintf(out, "KeepFrames: %s\n", S(pb->keep_frames));
	if (pb->doc_url)
		fprintf(out, "DocURL: %s\n", S(pb->doc_url));
	for (size_t i = 0; i < pb->n_comment; i++)
		fprintf(out, "Comment: %s\n", S(pb->comment[i]));

	fprintf(out, "SampleTypes:");
	for (size_t i = 0; i < pb->n_sample_type; i++) {
		fprintf(out, " ");
		print_value_type(p, out, pb->sample_type[i]);
	}
	fprintf(out, "\n");

	fprintf(out, "Mappings: %zu\n", pb->n_mapping);
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const pb_mapping *m = pb->mapping[i];

		fprintf(out, "  %" PRIu64 ": 0x%" PRIx64 "-0x%" PRIx64 " offset 0x%" PRIx64 " %s",
			m->id, m->memory_start, m->memory_limit, m->file_offset,
			*S(m->filename) ? S(m->filename) : "(no name)");
		if (m->build_id)
			fprintf(out, " build_id=%s", S(m->build_id));
		fprintf(out, "%s%s%s%s\n", m->has_functions ? " [functions]" : "",
			m->has_filenames ? " [filenames]" : "",
			m->has_line_numbers ? " [lines]" : "",
			m->has_inline_frames ? " [inlines]" : "");
	}

	fprintf(out, "Locations: %zu\n", pb->n_location);
	for (size_t i = 0; i < pb->n_location; i++) {
		const pb_location *l = pb->location[i];

		fprintf(out, "  %" PRIu64 ": 0x%" PRIx64 " M=%" PRIu64 "%s", l->id, l->address,
			l->mapping_id, l->is_folded ? " [folded]" : "");
		if (l->n_line == 0)
			fprintf(out, "\n");
		for (size_t j = 0; j < l->n_line; j++) {
			const pb_line *ln = l->line[j];
			const pb_function *f = psym_profile_function(p, ln->function_id);

			fprintf(out, "%s%s", j ? "        " : " ",
				f && *S(f->name) ? S(f->name) : "??");
			if (f && *S(f->filename))
				fprintf(out, " %s", S(f->filename));
			if (ln->line)
				fprintf(out, ":%" PRId64, ln->line);
			if (ln->column)
				fprintf(out, ":%" PRId64, ln->column);
			if (f && f->start_line)
				fprintf(out, " s=%" PRId64, f->start_line);
			if (j + 1 < l->n_line)
				fprintf(out, " (inlined)");
			fprintf(out, "\n");
		}
	}

	fprintf(out, "Samples: %zu\n", pb->n_sample);
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];

		fprintf(out, " ");
		for (size_t j = 0; j < s->n_value; j++)
			fprintf(out, " %" PRId64, s->value[j]);
		fprintf(out, ":");
		for (size_t j = 0; j < s->n_location_id; j++)
			fprintf(out, " %" PRIu64, s->location_id[j]);
		fprintf(out, "\n");
		if (s->n_label) {
			fprintf(out, "   ");
			for (size_t j = 0; j < s->n_label; j++)
				print_label(p, out, s->label[j]);
			fprintf(out, "\n");
		}
	}
	return ferror(out) ? PSYM_EIO : 0;
}

/*
 * The text form shows the strings' control characters escaped: when a
 * string has some, the text is printed from a view of p whose string
 * table holds escaped copies (the profile itself keeps its bytes).
 */
static int show_dump(const struct psym_profile *p, FILE *out)
{
	const pb_profile *pb = p->pb;
	struct psym_profile view;
	pb_profile vpb;
	char **st;
	size_t i = 0;
	int ret;

	while (i < pb->n_string_table &&
	       !psym_text_needs_escape(pb->string_table[i], strlen(pb->string_table[i])))
		i++;
	if (i == pb->n_string_table)
		return show_text(p, out);
	st = calloc(pb->n_string_table, sizeof(*st));
	if (!st)
		return PSYM_ENOMEM;
	ret = 0;
	for (i = 0; i < pb->n_string_table && !ret; i++) {
		const char *s = pb->string_table[i];
		size_t n = strlen(s);

		if (!psym_text_needs_escape(s, n))
			continue;
		st[i] = malloc(4 * n + 1); /* an escape is at most 4 bytes a byte */
		if (!st[i])
			ret = PSYM_ENOMEM;
		else
			psym_text_escape_buf(st[i], 4 * n + 1, s, n);
	}
	if (!ret) {
		vpb = *pb;
		vpb.string_table = calloc(pb->n_string_table, sizeof(*vpb.string_table));
		if (!vpb.string_table) {
			ret = PSYM_ENOMEM;
		} else {
			for (i = 0; i < pb->n_string_table; i++)
				vpb.string_table[i] = st[i] ? st[i] : pb->string_table[i];
			view = *p;
			view.pb = &vpb;
			ret = show_text(&view, out);
			free(vpb.string_table);
		}
	}
	for (i = 0; i < pb->n_string_table; i++)
		free(st[i]);
	free(st);
	return ret;
}

static void json_value_type(const struct psym_profile *p, FILE *out, const pb_value_type *vt)
{
	fprintf(out, "{\"type\":");
	psym_json_string(out, S(vt->type));
	fprintf(out, ",\"unit\":");
	psym_json_string(out, S(vt->unit));
	fprintf(out, "}");
}

static int show_json(const struct psym_profile *p, FILE *out)
{
	const pb_profile *pb = p->pb;

	fprintf(out,
		"{\n\"time_nanos\":%" PRId64 ",\n\"duration_nanos\":%" PRId64
		",\n\"period\":%" PRId64 ",\n",
		pb->time_nanos, pb->duration_nanos, pb->period);
	fprintf(out, "\"period_type\":");
	if (pb->period_type)
		json_value_type(p, out, pb->period_type);
	else
		fprintf(out, "null");
	fprintf(out, ",\n\"default_sample_type\":");
	psym_json_string(out, S(pb->default_sample_type));
	fprintf(out, ",\n\"drop_frames\":");
	psym_json_string(out, S(pb->drop_frames));
	fprintf(out, ",\n\"keep_frames\":");
	psym_json_string(out, S(pb->keep_frames));
	fprintf(out, ",\n\"doc_url\":");
	psym_json_string(out, S(pb->doc_url));
	fprintf(out, ",\n\"comments\":[");
	for (size_t i = 0; i < pb->n_comment; i++) {
		fprintf(out, i ? "," : "");
		psym_json_string(out, S(pb->comment[i]));
	}
	fprintf(out, "],\n\"sample_types\":[");
	for (size_t i = 0; i < pb->n_sample_type; i++) {
		fprintf(out, i ? "," : "");
		json_value_type(p, out, pb->sample_type[i]);
	}
	fprintf(out, "],\n\"mappings\":[");
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const pb_mapping *m = pb->mapping[i];

		fprintf(out,
			"%s\n {\"id\":%" PRIu64 ",\"memory_start\":%" PRIu64
			",\"memory_limit\":%" PRIu64 ",\"file_offset\":%" PRIu64 ",\"filename\":",
			i ? "," : "", m->id, m->memory_start, m->memory_limit, m->file_offset);
		psym_json_string(out, S(m->filename));
		fprintf(out, ",\"build_id\":");
		psym_json_string(out, S(m->build_id));
		fprintf(out,
			",\"has_functions\":%s,\"has_filenames\":%s,"
			"\"has_line_numbers\":%s,\"has_inline_frames\":%s}",
			m->has_functions ? "true" : "false", m->has_filenames ? "true" : "false",
			m->has_line_numbers ? "true" : "false",
			m->has_inline_frames ? "true" : "false");
	}
	fprintf(out, "],\n\"functions\":[");
	for (size_t i = 0; i < pb->n_function; i++) {
		const pb_function *f = pb->function[i];

		fprintf(out, "%s\n {\"id\":%" PRIu64 ",\"name\":", i ? "," : "", f->id);
		psym_json_string(out, S(f->name));
		fprintf(out, ",\"system_name\":");
		psym_json_string(out, S(f->system_name));
		fprintf(out, ",\"filename\":");
		psym_json_string(out, S(f->filename));
		fprintf(out, ",\"start_line\":%" PRId64 "}", f->start_line);
	}
	fprintf(out, "],\n\"locations\":[");
	for (size_t i = 0; i < pb->n_location; i++) {
		const pb_location *l = pb->location[i];

		fprintf(out,
			"%s\n {\"id\":%" PRIu64 ",\"mapping_id\":%" PRIu64 ",\"address\":%" PRIu64
			",\"is_folded\":%s,\"lines\":[",
			i ? "," : "", l->id, l->mapping_id, l->address,
			l->is_folded ? "true" : "false");
		for (size_t j = 0; j < l->n_line; j++)
			fprintf(out,
				"%s{\"function_id\":%" PRIu64 ",\"line\":%" PRId64
				",\"column\":%" PRId64 "}",
				j ? "," : "", l->line[j]->function_id, l->line[j]->line,
				l->line[j]->column);
		fprintf(out, "]}");
	}
	fprintf(out, "],\n\"samples\":[");
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_sample *s = pb->sample[i];

		fprintf(out, "%s\n {\"location_ids\":[", i ? "," : "");
		for (size_t j = 0; j < s->n_location_id; j++)
			fprintf(out, "%s%" PRIu64, j ? "," : "", s->location_id[j]);
		fprintf(out, "],\"values\":[");
		for (size_t j = 0; j < s->n_value; j++)
			fprintf(out, "%s%" PRId64, j ? "," : "", s->value[j]);
		fprintf(out, "],\"labels\":[");
		for (size_t j = 0; j < s->n_label; j++) {
			const pb_label *lb = s->label[j];

			fprintf(out, "%s{\"key\":", j ? "," : "");
			psym_json_string(out, S(lb->key));
			if (lb->str) {
				fprintf(out, ",\"str\":");
				psym_json_string(out, S(lb->str));
			} else {
				fprintf(out, ",\"num\":%" PRId64, lb->num);
				if (lb->num_unit) {
					fprintf(out, ",\"num_unit\":");
					psym_json_string(out, S(lb->num_unit));
				}
			}
			fprintf(out, "}");
		}
		fprintf(out, "]}");
	}
	fprintf(out, "]\n}\n");
	return ferror(out) ? PSYM_EIO : 0;
}

int psym_show(const struct psym_profile *p, enum psym_show_style style, FILE *out)
{
	switch (style) {
	case PSYM_SHOW_TEXT: return show_dump(p, out);
	case PSYM_SHOW_JSON: return show_json(p, out);
	case PSYM_SHOW_COUNTS:
		fprintf(out, "(%zu samples, %zu locations, %zu mappings, %zu functions)",
			p->pb->n_sample, p->pb->n_location, p->pb->n_mapping, p->pb->n_function);
		return ferror(out) ? PSYM_EIO : 0;
	}
	return PSYM_EUSAGE;
}
