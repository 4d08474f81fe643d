/* SPDX-License-Identifier: MIT */
/*
 * The addresses jobs (psym.h): one binary opened for lookups (psym addr,
 * psym run as addr2line), and the crash-log filter (psym addr --filter).
 * The binary is found and opened by the module driver (modset.h) as
 * symbolize finds and opens a mapping's file; each answer is the one
 * every command gives (psym_modset_answer: placed, code, else data), with
 * addr2line's own answer for padding when its names are asked for. What
 * was tried and what answered is said on the session's stream.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashlog.h"
#include "elffile.h"
#include "modset.h"
#include "resdesc.h"
#include "resolve_source.h"
#include "session.h"

struct psym_module {
	struct psym_session *s;
	struct psym_addr_args a;
	struct psym_binary_opts bo;
	struct psym_modset *mods;  /* the driver's set, of this one module */
	struct psym_elf *elf;	   /* its file (lives as long as the set) */
	struct psym_resolver *res; /* answers for it */
	bool offsets;		   /* addresses are section offsets: -j, or a .o/.ko */
	const char *alone;	   /* the source's file answering alone, or NULL */
	size_t asked, found;	   /* addresses looked up; of those, with a frame */
	struct psym_frames fr;
};

/* How the binary is found and answered: the session's, with the job's names and sources. */
static void binary_opts(struct psym_session *s, const struct psym_addr_args *a,
			struct psym_binary_opts *bo)
{
	*bo = (struct psym_binary_opts){
		.inlines = !s->so.no_inlines,
		.discriminators = true,
		.gnu_names = a->gnu_names,
		.locate = &s->lo,
		.limits = &s->limits,
		/* An index answers with psym's names: not addr2line's (gnu_names). */
		.index_store = a->gnu_names ? NULL : s->store,
		.named = s->named,
		.n_named = s->n_named,
	};
}

/* The session started for one binary: with --debug-pkg, its debug file extracted. */
static int start(struct psym_session *s, const struct psym_addr_args *a, struct psym_err *e)
{
	int ret;

	if (a->filter)
		ret = psym_session_want(s, PSYM_WANT_ALL, NULL, 0, e);
	else if (a->build_id)
		ret = psym_session_want(s, PSYM_WANT_BUILD_IDS, &a->build_id, 1, e);
	else
		ret = psym_session_want(s, PSYM_WANT_FILES, &a->exe, 1, e);
	return ret ? ret : psym_session_start(s, PSYM_START_NO_CACHE, e);
}

/*
 * No binary, a file named for an answer source (--gsym FILE): the source
 * answers alone, for the addresses of the binary it was made from.
 */
static int open_alone(struct psym_module *m, struct psym_err *e)
{
	const struct psym_named_source *n = &m->s->named[0];
	int ret = psym_source_resolver_new(n->option, n->path, &m->res, e);

	if (!ret && m->a.explain)
		fprintf(m->s->say.out, "psym: '%s' alone (--%s, no binary)\n", n->path, n->option);
	m->alone = n->path;
	return ret;
}

int psym_session_module(struct psym_session *s, const struct psym_addr_args *a,
			struct psym_module **out, struct psym_err *e)
{
	const char *name = a->exe ? a->exe : a->build_id;
	FILE *err = s->say.out;
	struct psym_reason why = { 0 };
	struct psym_module *m;
	struct psym_located *x;
	bool first;
	uint64_t va0;
	int ret;

	*out = NULL;
	ret = start(s, a, e);
	if (ret)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	m->s = s;
	m->a = *a;
	binary_opts(s, a, &m->bo);
	if (!a->exe && !a->build_id && s->n_named) {
		ret = open_alone(m, e);
		if (ret)
			free(m);
		else
			*out = m;
		return ret;
	}
	if (a->explain)
		fprintf(err, "psym: binary %s%s%s:\n", a->exe ? "'" : "build ID ", name,
			a->exe ? "'" : "");
	m->mods = psym_modset_new(&m->bo, 1);
	ret = m->mods ? psym_modset_find(m->mods, a->exe ? a->exe : "", a->build_id, a->exe, &x,
					 &first, e)
		      : psym_err_set(e, PSYM_ENOMEM, "out of memory");
	/* The table keeps every candidate and its verdict: said as tried. */
	for (size_t i = 0; !ret && a->explain && i < x->ntried; i++)
		psym_say_tried(err, x->tried[i].path, x->tried[i].verdict);
	m->elf = ret ? NULL : psym_objtab_elf(x);
	if (!ret)
		ret = psym_modset_open(m->mods, x, &m->res, NULL, &why, e);
	if (ret == PSYM_NOENT) {
		ret = psym_err_set(e, PSYM_EBADINPUT, "%s%s%s",
				   a->exe ? "" : "no file with build ID ",
				   a->exe ? "" : a->build_id, a->exe ? "" : ": ");
		psym_err_set(e, PSYM_EBADINPUT, "%s%s", e->msg, psym_reason_text(&why));
	}
	if (!ret && a->section && psym_elf_section_addr(m->elf, a->section, 0, &va0) != 0)
		ret = psym_err_set(e, PSYM_EBADINPUT, "'%s': no allocated section '%s'", name,
				   a->section);
	if (ret) {
		psym_modset_free(m->mods);
		free(m);
		return ret;
	}
	m->offsets = a->section || psym_elf_is_rel(m->elf);
	*out = m;
	return 0;
}

void psym_module_facts(const struct psym_module *m, const char **name, int *addr_width)
{
	*name = m->a.exe ? m->a.exe : m->alone ? m->alone : psym_elf_path(m->elf);
	*addr_width = m->elf && !psym_elf_is_64(m->elf) ? 8 : 16;
}

/*
 * An address no DWARF or sized symbol answers for, as GNU addr2line
 * answers it: the nearest code symbol below it (padding between
 * functions), without a line: "??:?", or "FILE:?" for a local symbol.
 */
static void gnu_symbol(struct psym_module *m, uint64_t vaddr)
{
	const char *file = NULL;
	const char *s = m->elf ? psym_elf_gnu_symbol(m->elf, vaddr, NULL, &file) : NULL;

	if (!s)
		return;
	/* A local symbol's file is its STT_FILE's: "file.cc:?", as addr2line. */
	m->fr.f[0] = (struct psym_frame){ .name = s, .linkage_name = s, .file = file };
	m->fr.n = 1;
}

size_t psym_module_lookup(struct psym_module *m, uint64_t addr, struct psym_answer *ans)
{
	uint64_t va = 0, start;
	/* The library's answer, as addr --filter's: placed, code, else data. */
	bool placed = !m->offsets || psym_elf_section_addr(m->elf, m->a.section, addr, &va) == 0;

	psym_modset_answer(m->res, m->a.section, addr, &va, &m->fr);
	/* addr2line's own answer for padding between functions. */
	if (placed && m->fr.n == 0 && m->a.gnu_names)
		gnu_symbol(m, m->offsets ? va : addr);
	m->asked++;
	m->found += m->fr.n > 0;
	*ans = (struct psym_answer){ .f = m->fr.f, .n = m->fr.n };
	ans->shift = m->offsets ? addr - va : 0;
	if (!ans->n || !m->a.starts)
		return ans->n;
	/*
	 * The outermost frame's function start: the symbol that holds the
	 * address (llvm-symbolizer's symbol table override), else the
	 * function's low_pc.
	 */
	if (psym_resolver_symbol_start(m->res, addr - ans->shift, &start) == 0) {
		ans->start = start + ans->shift;
		ans->has_start = true;
	} else {
		ans->start = m->fr.f[ans->n - 1].start_address + ans->shift;
		ans->has_start = m->fr.f[ans->n - 1].has_start_address;
	}
	return ans->n;
}

/* After the lookups (debug information is loaded lazily): what answered. */
static void describe(const struct psym_module *m, size_t bad)
{
	struct psym_resdesc desc_d = { .flags = PSYM_RESDESC_NOTE_ALWAYS };
	char desc[2400] = "", more[4400] = "";
	FILE *err = m->s->say.out;

	psym_resolver_describe(m->res, &desc_d);
	/* The files the lookups tried, from the table. */
	for (size_t i = 0; m->a.explain && i < psym_resdesc_ntried(&desc_d); i++) {
		char verdict[4400];
		const char *path;

		psym_resdesc_tried(&desc_d, i, &path, verdict, sizeof(verdict));
		psym_say_tried(err, path, verdict);
	}
	psym_resdesc_addr_warnings(&desc_d, more, sizeof(more));
	for (char *w = more, *nl; *w; w = nl ? nl + 1 : w + strlen(w)) {
		nl = strchr(w, '\n');
		fprintf(err, "psym: warning: %.*s\n", (int)(nl ? (size_t)(nl - w) : strlen(w)), w);
	}
	if (!m->a.verbose)
		return;
	psym_resdesc_summary(&desc_d, desc, sizeof(desc));
	fprintf(err, "psym: binary '%s': %s\n", psym_resdesc_path(&desc_d), desc);
	if (m->a.explain) {
		psym_resdesc_explain(&desc_d, more, sizeof(more));
		if (more[0])
			fprintf(err, "    %s\n", more);
	}
	fprintf(err, "psym: %zu/%zu addresses resolved%s\n", m->found, m->asked + bad,
		bad ? " (the others are not hex addresses)" : "");
}

void psym_module_close(struct psym_module *m, size_t bad)
{
	if (!m)
		return;
	describe(m, bad);
	psym_modset_finish(m->mods); /* the index build policy */
	psym_modset_free(m->mods);
	if (m->alone)
		psym_resolver_free(m->res);
	free(m);
}

/* ---- the crash-log filter ------------------------------------------------------ */

/* --filter's -v and --explain lines, worded from the filter's events. */
static void filter_event(void *ud, const struct psym_crashlog_ev *ev)
{
	const struct psym_addr_args *a = ud;
	const struct psym_located *x = ev->module;
	char desc[2400], more[4400];

	switch (ev->kind) {
	case PSYM_CRASHLOG_LOCATED:
		fprintf(stderr, "psym: module '%s'%s%s:\n", x->path,
			*x->build_id ? " build ID " : "", x->build_id);
		for (size_t i = 0; i < x->ntried; i++)
			psym_say_tried(stderr, x->tried[i].path, x->tried[i].verdict);
		break;
	case PSYM_CRASHLOG_NOT_OPEN:
		fprintf(stderr, "psym: module '%s': %s\n", x->path,
			ev->why ? psym_reason_text(ev->why) : ev->msg);
		break;
	case PSYM_CRASHLOG_TRIED: psym_say_tried(stderr, ev->path, ev->verdict); break;
	case PSYM_CRASHLOG_DESC:
		psym_resdesc_summary(ev->desc, desc, sizeof(desc));
		fprintf(stderr, "psym: module '%s': %s\n",
			psym_resdesc_path(ev->desc) ? psym_resdesc_path(ev->desc) : "?", desc);
		if (!a->explain)
			break;
		psym_resdesc_explain(ev->desc, more, sizeof(more));
		if (more[0])
			fprintf(stderr, "    %s\n", more);
		break;
	}
}

int psym_session_filter(struct psym_session *s, const struct psym_addr_args *a, FILE *in, FILE *out,
			size_t *unresolved, struct psym_err *e)
{
	struct psym_crashlog_result cr = { 0 };
	struct psym_binary_opts bo;
	struct psym_crashlog_opts co = {
		.binary = &bo,
		.demangle = a->demangle,
		.named = a->exe,
		.verbose = a->verbose,
		.explain = a->explain,
		.event = filter_event,
		.event_ud = (void *)a,
		.result = &cr,
	};
	int ret = start(s, a, e);

	*unresolved = 0;
	if (ret)
		return ret;
	binary_opts(s, a, &bo);
	ret = psym_crashlog_filter(in, out, &co, e);
	*unresolved = cr.unresolved;
	fflush(out);
	if (ferror(out))
		return ret; /* nobody reads on: the caller says whether that is an error */
	if (cr.unresolved)
		fprintf(s->say.out, "psym: %zu frame%s left unresolved%s%s\n", cr.unresolved,
			cr.unresolved == 1 ? "" : "s", cr.why.code ? ": " : "",
			cr.why.code ? psym_reason_text(&cr.why) : "");
	if (a->verbose)
		fprintf(s->say.out, "psym: %zu frame%s filled in, %zu left unresolved\n",
			cr.resolved, cr.resolved == 1 ? "" : "s", cr.unresolved);
	return ret;
}
