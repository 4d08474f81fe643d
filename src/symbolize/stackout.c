/* SPDX-License-Identifier: MIT */
/* psym stack's outputs: text and JSON, read from the symbolized profile (stack.h). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "show.h"
#include "stack.h"
#include "textesc.h"

/* One frame as both outputs show it. */
struct frame {
	uint64_t address;
	uint64_t module_addr; /* UINT64_MAX: not known */
	const char *function, *file, *module, *build_id;
	int64_t line, column;
	bool inlined;
	bool guessed; /* found through the frame pointer where a frame had no CFI */
};

typedef void (*frame_fn)(void *ud, size_t n, const struct frame *f);

/*
 * Every frame of a sample, innermost first, inline frames before their
 * caller; those of the addresses from guessed on (0: none) marked so.
 */
static void each_frame(const struct psym_stack_result *r, const pb_sample *s, size_t guessed,
		       frame_fn fn, void *ud)
{
	const struct psym_profile *p = r->profile;
	size_t n = 0;

	for (size_t i = 0; i < s->n_location_id; i++) {
		const pb_location *l = psym_profile_location(p, s->location_id[i]);
		const pb_mapping *m = l ? psym_profile_mapping(p, l->mapping_id) : NULL;
		struct frame f = { 0 };

		if (!l)
			continue;
		f.address = l->address;
		f.module_addr = UINT64_MAX;
		if (r->module_addr) {
			long pos = psym_profile_location_pos(p, l->id);

			if (pos >= 0)
				f.module_addr = r->module_addr[pos];
		}
		f.guessed = guessed && i >= guessed;
		f.module = m ? psym_profile_str(p, m->filename) : NULL;
		f.build_id = m ? psym_profile_str(p, m->build_id) : NULL;
		if (!l->n_line) {
			fn(ud, n++, &f);
			continue;
		}
		for (size_t j = 0; j < l->n_line; j++) {
			const pb_function *fu = psym_profile_function(p, l->line[j]->function_id);

			f.function = fu ? psym_profile_str(p, fu->name) : NULL;
			f.file = fu ? psym_profile_str(p, fu->filename) : NULL;
			f.line = l->line[j]->line;
			f.column = l->line[j]->column;
			f.inlined = j + 1 < l->n_line;
			fn(ud, n++, &f);
		}
	}
}

static void text_frame(void *ud, size_t n, const struct frame *f)
{
	FILE *out = ud;

	fprintf(out, "#%-3zu 0x%016" PRIx64 " ", n, f->address);
	psym_text_puts(out, f->function && *f->function ? f->function : "??");
	if (f->inlined)
		fputs(" [inlined]", out);
	if (f->file && *f->file) {
		fputs(" at ", out);
		psym_text_puts(out, f->file);
		if (f->line > 0)
			fprintf(out, ":%" PRId64, f->line);
		if (f->line > 0 && f->column > 0)
			fprintf(out, ":%" PRId64, f->column);
	}
	if (f->module && *f->module) {
		fputs(" (", out);
		psym_text_puts(out, f->module);
		fputc(')', out);
	}
	fputs(f->guessed ? " [guessed]\n" : "\n", out);
}

static void signal_text(int sig, FILE *out)
{
	const char *name = psym_core_signame(sig);

	if (name)
		fprintf(out, "%s (%d)", name, sig);
	else
		fprintf(out, "signal %d", sig);
}

void psym_stack_print_text(const struct psym_stack_result *r, bool explain, FILE *out)
{
	(void)explain; /* every early stop is said, --explain or not */
	for (size_t i = 0; i < r->ncores; i++) {
		const struct psym_stack_core *c = &r->cores[i];

		if (i)
			fputc('\n', out);
		if (c->error) {
			fputs("core ", out);
			psym_text_puts(out, c->name);
			fputs(": not read: ", out);
			psym_text_puts(out, c->error);
			fputc('\n', out);
			continue;
		}
		fputs("core ", out);
		psym_text_puts(out, c->name);
		fprintf(out, ": pid %" PRIu32 " (", c->pid);
		psym_text_puts(out, c->comm);
		fputc(')', out);
		if (c->executable) {
			fputs(", ", out);
			psym_text_puts(out, c->executable);
		}
		if (c->signal) {
			fputs(", ", out);
			signal_text(c->signal, out);
		}
		if (c->has_fault_addr)
			fprintf(out, " at 0x%" PRIx64, c->fault_addr);
		fprintf(out, ", %zu thread%s\n", c->nthreads, c->nthreads == 1 ? "" : "s");
		if (c->partial[0]) {
			fputs("(read in part: ", out);
			psym_text_puts(out, c->partial);
			fputs(")\n", out);
		}
		for (size_t t = 0; t < c->nthreads; t++) {
			const struct psym_stack_thread *th = &c->threads[t];

			fprintf(out, "\nthread %" PRIu32, th->tid);
			if (th->crashed) {
				fputs(" (crashed: ", out);
				signal_text(th->signal ? th->signal : c->signal, out);
				fputc(')', out);
			}
			fputs(":\n", out);
			if (r->profile)
				each_frame(r, r->profile->pb->sample[th->sample], th->guessed,
					   text_frame, out);
			if (th->guessed) {
				fputc('(', out);
				psym_text_puts(out, th->guess_why);
				fputs(")\n", out);
			}
			if (th->stop != PSYM_UNWIND_END) {
				fputs("(unwinding stopped ", out);
				psym_text_puts(out, th->why);
				fputs(")\n", out);
			}
		}
	}
}

struct jctx {
	FILE *out;
};

static void json_frame(void *ud, size_t n, const struct frame *f)
{
	FILE *out = ((struct jctx *)ud)->out;

	fprintf(out, "%s{\"address\":\"0x%" PRIx64 "\",\"module_address\":", n ? "," : "",
		f->address);
	if (f->module_addr != UINT64_MAX)
		fprintf(out, "\"0x%" PRIx64 "\"", f->module_addr);
	else
		fputs("null", out);
	fputs(",\"function\":", out);
	if (f->function && *f->function)
		psym_json_string(out, f->function);
	else
		fputs("null", out);
	fputs(",\"file\":", out);
	if (f->file && *f->file)
		psym_json_string(out, f->file);
	else
		fputs("null", out);
	if (f->line > 0)
		fprintf(out, ",\"line\":%" PRId64, f->line);
	else
		fputs(",\"line\":null", out);
	if (f->line > 0 && f->column > 0)
		fprintf(out, ",\"column\":%" PRId64, f->column);
	else
		fputs(",\"column\":null", out);
	fprintf(out, ",\"inlined\":%s,\"guessed\":%s,\"module\":", f->inlined ? "true" : "false",
		f->guessed ? "true" : "false");
	if (f->module && *f->module)
		psym_json_string(out, f->module);
	else
		fputs("null", out);
	fputs(",\"build_id\":", out);
	if (f->build_id && *f->build_id)
		psym_json_string(out, f->build_id);
	else
		fputs("null", out);
	fputc('}', out);
}

void psym_stack_print_json(const struct psym_stack_result *r, FILE *out)
{
	struct jctx j = { out };

	for (size_t i = 0; i < r->ncores; i++) {
		const struct psym_stack_core *c = &r->cores[i];

		if (c->error)
			continue;
		fputs("{\"core\":", out);
		psym_json_string(out, c->name);
		fprintf(out, ",\"pid\":%" PRIu32 ",\"executable\":", c->pid);
		if (c->executable)
			psym_json_string(out, c->executable);
		else
			fputs("null", out);
		fprintf(out, ",\"signal\":%d,\"fault_address\":", c->signal);
		if (c->has_fault_addr)
			fprintf(out, "\"0x%" PRIx64 "\"", c->fault_addr);
		else
			fputs("null", out);
		fputs(",\"threads\":[", out);
		for (size_t t = 0; t < c->nthreads; t++) {
			const struct psym_stack_thread *th = &c->threads[t];

			fprintf(out, "%s{\"tid\":%" PRIu32 ",\"crashed\":%s,\"frames\":[",
				t ? "," : "", th->tid, th->crashed ? "true" : "false");
			if (r->profile)
				each_frame(r, r->profile->pb->sample[th->sample], th->guessed,
					   json_frame, &j);
			fputs("],\"stopped\":", out);
			if (th->stop != PSYM_UNWIND_END)
				psym_json_string(out, th->why);
			else
				fputs("null", out);
			fputs(",\"guessed_why\":", out);
			if (th->guessed)
				psym_json_string(out, th->guess_why);
			else
				fputs("null", out);
			fputc('}', out);
		}
		fputs("]}\n", out);
	}
}
