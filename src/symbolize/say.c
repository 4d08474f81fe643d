/* SPDX-License-Identifier: MIT */
/*
 * The run's words (say.h): what psym prints on stderr of a symbolizing
 * run, worded from the library's data: the progress line, --explain's
 * candidates, notes and warnings, the per-mapping summary, a batch's
 * lines, and the advice when frames stay addresses (what would give them
 * names: a binary path, a debug package).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "say.h"
#include "textesc.h"

/*
 * Profiles with more mappings than this get a summary (counts and the
 * mappings with the most unresolved locations) instead of a line per
 * mapping; --explain always lists every mapping.
 */
#define SUMMARY_ALL_UP_TO 20
#define SUMMARY_WORST 10

/* Hint only when at least this share of the samples is raw addresses. */
#define UNSYMBOLIZED_HINT 0.25

/* What gives a file's code names when the file is there but says nothing. */
#define DEBUG_HELP                                                                                 \
	"install the file's debug package, or give it with --debug-pkg FILE.deb or "               \
	"--debug-dir DIR, or set DEBUGINFOD_URLS"
#define BINARY_HELP "give the binary with --binary-path DIR (or --sysroot DIR)"

static const char *hint_for_mapping(const struct psym_mapsum *x)
{
	if (x->cls != PSYM_MAP_FILE || x->done >= x->todo)
		return NULL;
	if (x->opened)
		return DEBUG_HELP;
	switch (x->why.code) {
	case PSYM_R_NOT_FOUND:
	case PSYM_R_NOT_REGULAR:
	case PSYM_R_BAD_FILE:
	case PSYM_R_BUILD_ID_MISMATCH:
	case PSYM_R_NO_BUILD_ID:
	case PSYM_R_OUTSIDE_ROOT:
	case PSYM_R_DEBUGINFOD: return BINARY_HELP;
	case PSYM_R_NO_DEBUG_INFO:
	case PSYM_R_NO_SYMBOL:
	case PSYM_R_CRC_MISMATCH: return DEBUG_HELP;
	default: return NULL;
	}
}

/* One line per advice, naming the files it is for (at most a few, then a count). */
void psym_say_unnamed_maps(const struct psym_symbolize_result *r, const char *what, FILE *err)
{
	const char *advice[] = { BINARY_HELP, DEBUG_HELP };
	const char *state[] = { "not found", "no symbols or lines for them" };

	for (size_t a = 0; a < 2; a++) {
		size_t n = 0, frames = 0;

		for (size_t i = 0; i < r->nmaps; i++) {
			const struct psym_mapsum *x = &r->maps[i];

			if (hint_for_mapping(x) != advice[a])
				continue;
			if (!n)
				fprintf(err, "psym: note: frames of %s left as addresses in ",
					what);
			if (n < 4)
				fprintf(err, "%s'%s'", n ? ", " : "", x->name);
			n++;
			frames += x->todo - x->done;
		}
		if (n > 4)
			fprintf(err, " and %zu more files", n - 4);
		if (n)
			fprintf(err, " (%s: %zu address%s): %s\n", state[a], frames,
				frames == 1 ? "" : "es", advice[a]);
	}
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The library's progress callback: a line on a terminal, redrawn in place. */
void psym_say_progress(void *ud, size_t mi, size_t nm, size_t resolved)
{
	struct psym_say *pl = ud;
	struct timespec now;

	if (!nm) {
		if (pl->shown)
			fprintf(pl->out, "\r\033[K");
		pl->shown = false;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (elapsed(&pl->start, &now) < 1.0 || elapsed(&pl->last, &now) < 0.2)
		return;
	pl->last = now;
	pl->shown = true;
	fprintf(pl->out, "\rpsym: symbolizing mapping %zu/%zu, %zu locations resolved ", mi + 1, nm,
		resolved);
	fflush(pl->out);
}

static size_t unresolved(const struct psym_mapsum *x)
{
	return x->todo - x->done;
}

static void mapping_line(const struct psym_mapsum *x, FILE *out)
{
	const char *nm = *x->name ? x->name : "(no name)";

	if (!x->todo && !x->kept)
		return; /* no location of the profile is in it: nothing to say */
	if (!x->todo)
		fprintf(out,
			"psym: mapping %" PRIu64 " '%s': %zu locations already symbolized, kept\n",
			x->id, x->name, x->kept);
	else if (x->cls == PSYM_MAP_FILE && x->opened)
		fprintf(out, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations %s%s%s\n", x->id,
			x->name, x->done, x->todo, x->from, x->kept ? " (others kept)" : "",
			x->unverified ? "; unverified: the profile has no build ID for it" : "");
	else if (x->cls == PSYM_MAP_FILE) {
		const char *why = psym_reason_kept_text(&x->why), *hint = hint_for_mapping(x);

		if (hint && strstr(why, "--binary-path"))
			hint = NULL; /* the reason gives its own advice */
		fprintf(out, "psym: mapping %" PRIu64 " '%s': 0/%zu locations: %s%s%s\n", x->id,
			x->name, x->todo, why, hint ? "; " : "", hint ? hint : "");
	} else if (x->done < x->todo && x->why.code != PSYM_R_NONE &&
		   x->why.code != PSYM_R_NO_SYMBOL)
		fprintf(out, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s): %s\n", x->id,
			nm, x->done, x->todo, psym_map_class_name(x->cls),
			psym_reason_kept_text(&x->why));
	else
		fprintf(out, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s)\n", x->id, nm,
			x->done, x->todo, psym_map_class_name(x->cls));
}

/* Worst first: most unresolved, then profile order. */
static int cmp_worst(const void *a, const void *b)
{
	const struct psym_mapsum *const *x = a, *const *y = b;

	if (unresolved(*x) != unresolved(*y))
		return unresolved(*x) > unresolved(*y) ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

static int cmp_order(const void *a, const void *b)
{
	const struct psym_mapsum *const *x = a, *const *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Every mapping's line, or with many: counts and the worst. */
/* --explain, worded from the run's data (symbolize.h): ud is the stream. */
void psym_say_tried(FILE *out, const char *path, const char *verdict)
{
	fprintf(out, "    tried '%s': %s\n", path, verdict);
}

void psym_say_explain(void *ud, const struct psym_explain_ev *ev)
{
	const struct psym_located *x = ev->obj;
	FILE *out = ((struct psym_say *)ud)->out;
	char more[4400];

	switch (ev->kind) {
	case PSYM_EXPLAIN_OBJECT:
		fprintf(out, "psym: object '%s'%s%s (%s, mapping %" PRIu64 "):\n",
			x->cls == PSYM_MAP_FILE ? x->path : "[vdso]",
			*x->build_id ? " build ID " : "", x->build_id, psym_map_class_name(x->cls),
			ev->mapping_id);
		for (size_t i = 0; i < x->ntried; i++)
			psym_say_tried(out, x->tried[i].path, x->tried[i].verdict);
		if (x->file)
			fprintf(out, "    located: '%s'%s\n", x->file,
				x->index ? " (with a symbol index)" : "");
		else
			fprintf(out, "    not located: %s\n", psym_reason_kept_text(&x->why));
		break;
	case PSYM_EXPLAIN_TRIED: psym_say_tried(out, ev->path, ev->verdict); break;
	case PSYM_EXPLAIN_MAPPING:
		fprintf(out, "psym: mapping %" PRIu64 " '%s'%s%s:\n", ev->mapping_id, ev->name,
			*ev->build_id ? " build ID " : "", ev->build_id);
		break;
	case PSYM_EXPLAIN_DESC:
		psym_resdesc_explain(ev->desc, more, sizeof(more));
		if (more[0])
			fprintf(out, "    %s\n", more);
		break;
	}
}

/*
 * The unwinding's counts: one summary line (samples, frames, stop reasons,
 * missing files), then a line for each stop reason other than "end" and
 * for the files not found, saying what it means and what to do about it.
 */
static void print_unwound(const struct psym_unwindprof_stats *st, FILE *out)
{
	fprintf(out, "psym: unwound %zu samples, %zu frames (%zu by CFI, %zu by frame pointer);",
		st->samples, st->frames, st->cfi_frames, st->fp_frames);
	for (int i = 0; i < PSYM_UNWIND_NSTOPS; i++)
		if (st->stops[i])
			fprintf(out, " %s %zu", psym_unwind_stop_name(i), st->stops[i]);
	if (st->no_maps)
		fprintf(out, "; %zu samples of processes without mappings", st->no_maps);
	fprintf(out, "; %zu/%zu files found", st->files - st->files_missing, st->files);
	if (st->budget_why[0])
		fprintf(out, "; unwinding cut short: %s", st->budget_why);
	fputc('\n', out);
	if (st->stops[PSYM_UNWIND_OUT_OF_STACK])
		fprintf(out,
			"psym:   out-of-stack %zu: the caller's frame lay beyond the stack bytes "
			"psym-collect copied (%zu at most); %s\n",
			st->stops[PSYM_UNWIND_OUT_OF_STACK], st->max_stack_len,
			st->files_missing
				? "first give the files not found (below): without their CFI the "
				  "unwinder guessed with frame pointers, and a larger --stack-copy "
				  "BYTES may not help"
				: "record with a larger --stack-copy BYTES to reach it");
	if (st->stops[PSYM_UNWIND_BAD_RULE])
		fprintf(out,
			"psym:   bad-rule %zu: code with no CFI (.eh_frame, .debug_frame) psym "
			"could apply and no frame pointer; the binary or its debug file must be "
			"found (see the files below)\n",
			st->stops[PSYM_UNWIND_BAD_RULE]);
	if (st->stops[PSYM_UNWIND_NO_PROGRESS])
		fprintf(out,
			"psym:   no-progress %zu: a frame did not move the stack pointer up (bad "
			"CFI or a corrupt stack): unwinding stopped there\n",
			st->stops[PSYM_UNWIND_NO_PROGRESS]);
	if (st->stops[PSYM_UNWIND_DEPTH])
		fprintf(out, "psym:   depth %zu: the frame cap was reached\n",
			st->stops[PSYM_UNWIND_DEPTH]);
	if (st->files_missing) {
		fprintf(out,
			"psym:   %zu of %zu files not found: their frames cannot be unwound by "
			"CFI (give them with --binary-path, --sysroot or --debug-dir)",
			st->files_missing, st->files);
		for (size_t i = 0; i < st->nmissing; i++)
			fprintf(out, "%s%s", i ? ", " : ": ", st->missing[i]);
		fprintf(out, "%s\n", st->files_missing > st->nmissing ? ", ..." : "");
	}
}

/* A run's warnings and notes, worded from its data (symbolize.h): ud is the stream. */
void psym_say_note(void *ud, const struct psym_note *n)
{
	struct psym_say *say = ud;
	FILE *out = say->out;
	char more[4400];

	switch (n->kind) {
	case PSYM_NOTE_WARNING:
		psym_resdesc_warning(n->desc, more, sizeof(more));
		for (char *w = more, *nl; *w; w = nl ? nl + 1 : w + strlen(w)) {
			nl = strchr(w, '\n');
			fprintf(out, "psym: warning: %.*s\n",
				(int)(nl ? (size_t)(nl - w) : strlen(w)), w);
		}
		break;
	case PSYM_NOTE_SKIPPED:
		fprintf(out, "psym: '%s': %zu malformed %s skipped\n", n->name, n->skipped,
			n->records ? "records" : "lines");
		break;
	case PSYM_NOTE_SIDE_REFUSED:
		fputs("psym: warning: side file '", out);
		psym_text_puts(out, n->name);
		fprintf(out, "' refused: %s\n", n->why);
		break;
	case PSYM_NOTE_NO_USTACKS:
		fprintf(out,
			"psym: the user stacks need unwinding, but there is no side file %s next "
			"to the profile: only kernel frames and the leaf are known\n",
			n->name);
		break;
	case PSYM_NOTE_UNWOUND: print_unwound(n->unwound, out); break;
	case PSYM_NOTE_PARTIAL:
		fprintf(out, "psym: %s: the records before it were read\n", n->why);
		say->partial = true;
		break;
	case PSYM_NOTE_MAIN_BINARY:
		if (n->same_build_id)
			fprintf(out,
				"psym: --main-binary applies to mapping %" PRIu64
				" '%s' (same build ID)\n",
				n->mapping_id, n->name);
		else
			fprintf(out,
				"psym: --main-binary applies to mapping %" PRIu64
				" '%s', the first user-space mapping\n",
				n->mapping_id, n->name);
		break;
	}
}

/* A batch's input done (batch.h): a failure always, the others without -q. */
void psym_say_job(void *ud, const struct psym_result_line *r)
{
	const struct psym_symbolize_opts *so = ud;

	if (r->status == PSYM_RESULT_FAILED)
		fprintf(stderr, "psym: %s\n", r->error);
	else if (so->quiet)
		return;
	else if (r->status == PSYM_RESULT_SKIPPED)
		fprintf(stderr, "psym: '%s' -> '%s': already complete, skipped\n", r->input,
			r->output);
	else
		fprintf(stderr, "psym: '%s' -> '%s': %zu/%zu locations symbolized%s%s\n", r->input,
			r->output, r->resolved, r->locations, r->note ? "; " : "",
			r->note ? r->note : "");
}

void psym_say_summary(const struct psym_symbolize_result *r, bool all, FILE *out)
{
	const struct psym_mapsum **v;
	size_t shown = r->nmaps, full = 0, partial = 0, none = 0;

	if (r->nmaps > SUMMARY_ALL_UP_TO && !all) {
		v = malloc(r->nmaps * sizeof(*v));
		if (!v)
			goto plain;
		for (size_t i = 0; i < r->nmaps; i++) {
			const struct psym_mapsum *x = &r->maps[i];

			v[i] = x;
			if (!x->todo)
				continue;
			if (x->done == x->todo)
				full++;
			else if (x->done)
				partial++;
			else
				none++;
		}
		qsort(v, r->nmaps, sizeof(*v), cmp_worst);
		shown = 0;
		while (shown < SUMMARY_WORST && shown < r->nmaps && unresolved(v[shown]))
			shown++;
		qsort(v, shown, sizeof(*v), cmp_order);
		fprintf(out,
			"psym: %zu mappings: %zu fully resolved, %zu in part, %zu not at all%s\n",
			r->nmaps, full, partial, none,
			shown ? "; those with the most unresolved locations:" : "");
		for (size_t i = 0; i < shown; i++)
			mapping_line(v[i], out);
		free(v);
		if (shown < r->nmaps && shown)
			fprintf(out,
				"psym: %zu more mappings not listed (--explain lists every one)\n",
				r->nmaps - shown);
		else if (shown < r->nmaps)
			fprintf(out, "psym: (--explain lists every mapping)\n");
		goto nomap;
	}
plain:
	for (size_t i = 0; i < r->nmaps; i++)
		mapping_line(&r->maps[i], out);
nomap:
	if (r->no_mapping)
		fprintf(out, "psym: %zu locations have no mapping: left as addresses\n",
			r->no_mapping);
	if (r->unverified)
		fprintf(out,
			"psym: %zu mapping%s without a build ID in the profile, matched to the "
			"file at %s path alone: unverified (a file rebuilt since the profile "
			"was taken answers wrongly)\n",
			r->unverified, r->unverified == 1 ? "" : "s",
			r->unverified == 1 ? "its" : "their");
}
