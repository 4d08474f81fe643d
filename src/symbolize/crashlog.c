/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crashlog.h"
#include "demangle.h"
#include "modset.h"
#include "resdesc.h"

#define LINE_MAX_BYTES 8192
/* Modules remembered at most: a log naming more passes their lines through. */
#define CRASHLOG_MAX_MODULES ((size_t)1 << 20)

struct filter {
	const struct psym_crashlog_opts *o;
	long shift;		  /* sanitizer frames are renumbered: inline frames added so far */
	struct psym_modset *mods; /* modules by path and build ID, located and opened once */
	struct psym_frames *fr;
	size_t unresolved;	     /* frames left as they were */
	size_t resolved;	     /* frames filled in */
	struct psym_reason why;	     /* the last reason a module was not found */
	struct psym_resolver *fresh; /* just opened: described after its first lookup */
	bool perf_caller; /* perf script: frames after a sample's first are return addresses */
};

/*
 * The module named by a frame, located like every other binary (path,
 * search dirs, sysroot, then its build ID in the debug dirs and with
 * debuginfod) as the log names it (a log is read as a stream: each module
 * is located when first named, and opened at its first frame); NULL when
 * not found, with the reason kept for the summary.
 */
static struct psym_resolver *module(struct filter *f, const char *path, const char *bid)
{
	const char *named = f->o->named, *nb, *pb;
	struct psym_located *x;
	struct psym_resolver *r;
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	bool first, opened;
	int ret;

	/* -e FILE stands for the log's modules of the same name. */
	if (named) {
		nb = strrchr(named, '/') ? strrchr(named, '/') + 1 : named;
		pb = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		if (strcmp(nb, pb) != 0)
			named = NULL;
	}
	if (!f->o->binary->locate) {
		psym_reason_set(&f->why, PSYM_R_NOT_FOUND, "no places to look for modules");
		return NULL;
	}
	if (!f->mods || psym_modset_find(f->mods, path, bid, named, &x, &first, &e))
		return NULL;
	/* The table keeps every candidate and its verdict: the caller says them. */
	if (first && f->o->explain && f->o->event) {
		struct psym_crashlog_ev ev = { .kind = PSYM_CRASHLOG_LOCATED, .module = x };

		f->o->event(f->o->event_ud, &ev);
	}
	ret = psym_modset_open(f->mods, x, &r, &opened, &why, &e);
	/* Found: said after its first lookup (debug information loads lazily). */
	if (opened && ret && f->o->verbose && f->o->event) {
		struct psym_crashlog_ev ev = {
			.kind = PSYM_CRASHLOG_NOT_OPEN,
			.module = x,
			.why = ret == PSYM_NOENT ? &why : NULL,
			.msg = ret == PSYM_NOENT ? NULL : e.msg,
		};

		f->o->event(f->o->event_ud, &ev);
	}
	if (opened)
		f->fresh = r;
	if (ret == PSYM_NOENT)
		f->why = why;
	return r;
}

/* --explain: the files d says its lookups tried since the last describe. */
static void tried(const struct filter *f, const struct psym_resdesc *d)
{
	for (size_t i = 0; f->o->explain && f->o->event && i < psym_resdesc_ntried(d); i++) {
		struct psym_crashlog_ev ev = { .kind = PSYM_CRASHLOG_TRIED };
		char verdict[4400];

		psym_resdesc_tried(d, i, &ev.path, verdict, sizeof(verdict));
		ev.verdict = verdict;
		f->o->event(f->o->event_ud, &ev);
	}
}

/* -v: what a module's file gave (--explain: and how), once, after its first lookup. */
static void describe(struct filter *f, struct psym_resolver *r)
{
	struct psym_resdesc d = { .flags = PSYM_RESDESC_KEEP_WARNING };
	struct psym_crashlog_ev ev = { .kind = PSYM_CRASHLOG_DESC, .desc = &d };

	f->fresh = NULL;
	if (!f->o->verbose || !f->o->event)
		return;
	psym_resolver_describe(r, &d);
	tried(f, &d);
	f->o->event(f->o->event_ud, &ev);
}

/* --explain after a later lookup: only the files it tried (no notes read). */
static void describe_tried(struct filter *f, struct psym_resolver *r)
{
	struct psym_resdesc d = { .flags = PSYM_RESDESC_KEEP_WARNING | PSYM_RESDESC_NO_NOTE };

	if (!f->o->explain || !f->o->event)
		return;
	psym_resolver_describe(r, &d);
	tried(f, &d);
}

/*
 * Frames for module+offset (an ELF virtual address; a section offset of
 * an object file): psym addr's answer (modset.h: code, else the data
 * symbol); how many.
 */
static size_t lookup(struct filter *f, struct psym_resolver *r, uint64_t vaddr)
{
	size_t n;

	if (!r || !f->fr)
		return 0;
	n = psym_modset_answer(r, NULL, vaddr, NULL, f->fr);
	if (f->fresh == r)
		describe(f, r);
	else
		describe_tried(f, r);
	return n;
}

static const char *fname(const struct psym_frame *fr, bool demangle, char **tofree)
{
	const char *sys = fr->linkage_name ? fr->linkage_name : fr->name;
	char *d = demangle ? psym_demangle(sys) : NULL;

	*tofree = d;
	if (d)
		return d;
	return fr->name && *fr->name ? fr->name : "??";
}

/* Resolve module+offset; returns the number of frames, counting a miss. */
static size_t resolve(struct filter *f, const char *path, const char *bid, uint64_t off)
{
	size_t n = lookup(f, module(f, path, bid), off);

	if (!n)
		f->unresolved++;
	else
		f->resolved++;
	return n;
}

static bool parse_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (!(s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) || !isxdigit((unsigned char)s[2]))
		return false;
	*v = strtoull(s + 2, &e, 16);
	*end = e;
	return true;
}

/*
 * A sanitizer's module reference at open: "(/path/bin+0x1139)", then
 * optionally " (BuildId: AB12)" (lowercased into bid, else ""). The end of
 * the reference, or NULL when open holds none.
 */
static const char *sanitizer_module(const char *open, char path[4096], uint64_t *off, char bid[256])
{
	const char *plus, *close, *q, *b;

	bid[0] = '\0';
	if (*open != '(' || !(plus = strstr(open, "+0x")) || !(close = strchr(plus, ')')) ||
	    plus == open + 1 || (size_t)(plus - open - 1) >= 4096)
		return NULL;
	memcpy(path, open + 1, (size_t)(plus - open - 1));
	path[plus - open - 1] = '\0';
	if (!parse_hex(plus + 1, &q, off) || q != close)
		return NULL;
	b = strstr(close, "(BuildId: ");
	if (b && sscanf(b, "(BuildId: %255[0-9a-fA-F])", bid) == 1)
		for (char *c = bid; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	return close + 1;
}

/* "    #3 0x55d1c0a1b139 ... (/path/bin+0x1139) (BuildId: ab12)" */
static bool sanitizer_line(struct filter *f, const char *line, FILE *out)
{
	const struct psym_frame *fr = f->fr ? f->fr->f : NULL;
	const char *p = line, *q, *open;
	char path[4096], bid[256], *free_me;
	uint64_t pc, off;
	long num;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '#' || !isdigit((unsigned char)p[1]))
		return false;
	num = strtol(p + 1, (char **)&q, 10);
	while (*q == ' ')
		q++;
	if (!parse_hex(q, &q, &pc))
		return false;
	open = strchr(q, '(');
	if (!open || !sanitizer_module(open, path, &off, bid))
		return false;
	n = resolve(f, path, bid[0] ? bid : NULL, num > 0 && off ? off - 1 : off);
	if (num == 0)
		f->shift = 0; /* a new stack */
	if (!n) {
		/* Unchanged, but renumbered if inline frames came before it. */
		if (f->shift == 0)
			fputs(line, out);
		else
			fprintf(out, "%.*s#%ld%s", (int)(strchr(line, '#') - line), line,
				num + f->shift,
				strchr(line, '#') + 1 +
					strspn(strchr(line, '#') + 1, "0123456789"));
		return true; /* handled: no other pattern counts it again */
	}
	/* As the sanitizers print it: one line per frame, inline frames too. */
	for (size_t i = 0; i < n; i++) {
		const char *nm = fname(&fr[i], f->o->demangle, &free_me);

		fprintf(out, "%.*s#%ld 0x%" PRIx64 " in %s", (int)(strchr(line, '#') - line), line,
			num + f->shift + (long)i, pc, nm);
		if (fr[i].file) {
			fprintf(out, " %s:%" PRId64, fr[i].file, fr[i].line);
			if (fr[i].column)
				fprintf(out, ":%" PRId64, fr[i].column);
		}
		fprintf(out, " %s", open);
		free(free_me);
	}
	f->shift += (long)n - 1;
	return true;
}

/*
 * A sanitizer's summary of an unsymbolized report, "SUMMARY: AddressSanitizer:
 * heap-buffer-overflow (/path/bin+0x11f8) (BuildId: ab12)", in the shape
 * the sanitizer gives it when it symbolizes: "... heap-buffer-overflow
 * /src/crash.cpp:3 in touch(Box<int>&)", from the innermost frame at that
 * address (the faulting pc: looked up as it is).
 */
static bool summary_line(struct filter *f, const char *line, FILE *out)
{
	const struct psym_frame *fr = f->fr ? f->fr->f : NULL;
	const char *open;
	char path[4096], bid[256], *free_me;
	uint64_t off;
	size_t n;

	if (strncmp(line, "SUMMARY: ", 9) != 0 || !(open = strstr(line, " (")) ||
	    !sanitizer_module(open + 1, path, &off, bid))
		return false;
	n = resolve(f, path, bid[0] ? bid : NULL, off);
	if (!n) {
		fputs(line, out); /* as it was, counted once (not again as module+offset) */
		return true;
	}
	fprintf(out, "%.*s ", (int)(open - line), line);
	if (fr[0].file)
		fprintf(out, "%s:%" PRId64, fr[0].file, fr[0].line);
	else
		fprintf(out, "(%s+0x%" PRIx64 ")", path, off);
	fprintf(out, " in %s\n", fname(&fr[0], f->o->demangle, &free_me));
	free(free_me);
	return true;
}

/* "./prog(+0x1139)[0x55...]" or "./prog(func+0x15)[0x...]" */
static bool backtrace_line(struct filter *f, const char *line, FILE *out)
{
	const struct psym_frame *fr = f->fr ? f->fr->f : NULL;
	const char *open = strchr(line, '('), *plus, *close, *q;
	char path[4096], sym[1024], *free_me, *nl;
	uint64_t off, base = 0;
	struct psym_resolver *r;
	size_t n;

	if (!open || open == line || !(close = strchr(open, ')')) || close[1] != '[' ||
	    !(plus = memchr(open, '+', (size_t)(close - open))) ||
	    (size_t)(open - line) >= sizeof(path) || (size_t)(plus - open - 1) >= sizeof(sym))
		return false;
	memcpy(path, line, (size_t)(open - line));
	path[open - line] = '\0';
	memcpy(sym, open + 1, (size_t)(plus - open - 1));
	sym[plus - open - 1] = '\0';
	if (!parse_hex(plus + 1, &q, &off) || q != close)
		return false;
	r = module(f, path, NULL);
	if (!r) {
		f->unresolved++;
		return false;
	}
	if (sym[0] && psym_resolver_lookup_symbol(r, sym, &base) != 0) {
		f->unresolved++;
		return false;
	}
	/* Every backtrace() frame is a return address. */
	n = lookup(f, r, base + off - (base + off ? 1 : 0));
	if (!n) {
		f->unresolved++;
		return false;
	}
	f->resolved++;
	nl = strchr(line, '\n');
	fprintf(out, "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
	for (size_t i = 0; i < n; i++) {
		const char *nm = fname(&fr[i], f->o->demangle, &free_me);

		fprintf(out, "%s%s", i ? " (inlined into) " : " ", nm);
		if (fr[i].file)
			fprintf(out, " at %s:%" PRId64, fr[i].file, fr[i].line);
		free(free_me);
	}
	fputc('\n', out);
	return true;
}

/* Any "module+0xoffset" token: the frame appended in brackets. */
static bool module_offset_line(struct filter *f, const char *line, FILE *out)
{
	const struct psym_frame *fr = f->fr ? f->fr->f : NULL;
	const char *plus = strstr(line, "+0x"), *start, *q;
	char path[4096], *free_me, *nl;
	uint64_t off;
	size_t n;

	if (!plus || plus == line)
		return false;
	start = plus;
	while (start > line && !isspace((unsigned char)start[-1]) && start[-1] != '(' &&
	       start[-1] != '[' && start[-1] != '"')
		start--;
	if ((size_t)(plus - start) >= sizeof(path) || plus == start ||
	    !parse_hex(plus + 1, &q, &off))
		return false;
	memcpy(path, start, (size_t)(plus - start));
	path[plus - start] = '\0';
	if (!strchr(path, '/') && !strstr(path, ".so"))
		return false;
	n = resolve(f, path, NULL, off);
	if (!n)
		return false;
	nl = strchr(line, '\n');
	fprintf(out, "%.*s [", nl ? (int)(nl - line) : (int)strlen(line), line);
	for (size_t i = 0; i < n; i++) {
		const char *nm = fname(&fr[i], f->o->demangle, &free_me);

		fprintf(out, "%s%s", i ? " <- " : "", nm);
		if (fr[i].file)
			fprintf(out, " %s:%" PRId64, fr[i].file, fr[i].line);
		free(free_me);
	}
	fprintf(out, "]\n");
	return true;
}

/*
 * perf script's callchain frame that perf could not name:
 * "\t    55d1c0a1b139 [unknown] (/path/lib.so)". The address is the one perf
 * prints for the frame's dso: relative to it (an ELF virtual address) when
 * perf knew the mapping. Each frame becomes one line per function, inline
 * frames first, in perf's own format: "ADDR NAME (DSO)".
 */
static bool perf_script_line(struct filter *f, const char *line, FILE *out)
{
	const struct psym_frame *fr = f->fr ? f->fr->f : NULL;
	const char *p = line, *h, *open, *close;
	char path[4096], *free_me, *end;
	uint64_t addr;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (p == line || !isxdigit((unsigned char)*p))
		return false;
	h = p;
	addr = strtoull(h, &end, 16);
	if (end == h || strncmp(end, " [unknown] (", 12))
		return false;
	open = end + 11;
	close = strrchr(open, ')');
	if (!close || (close[1] != '\n' && close[1] != '\0') || close - open - 1 <= 0 ||
	    (size_t)(close - open - 1) >= sizeof(path))
		return false;
	memcpy(path, open + 1, (size_t)(close - open - 1));
	path[close - open - 1] = '\0';
	if (path[0] != '/' && !strstr(path, ".so"))
		return false; /* "[unknown]", "[vdso]": no file */
	n = resolve(f, path, NULL, f->perf_caller && addr ? addr - 1 : addr);
	if (!n) {
		fputs(line, out);
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		const char *nm = fname(&fr[i], f->o->demangle, &free_me);

		/* The name where perf prints it: between the address and the dso. */
		fprintf(out, "%.*s %s (%s)\n", (int)(end - line), line, nm, path);
		free(free_me);
	}
	return true;
}

/* An indented "HEX ..." line: a frame of a perf script callchain. */
static bool perf_frame_like(const char *line)
{
	const char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (p == line || !isxdigit((unsigned char)*p))
		return false;
	while (isxdigit((unsigned char)*p))
		p++;
	return *p == ' ';
}

/* Up to cap - 1 bytes, ending after the first '\n'; NUL-terminated; 0 at EOF. */
static size_t read_chunk(FILE *in, char *buf, size_t cap)
{
	size_t n = 0;
	int c;

	while (n + 1 < cap && (c = getc(in)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	return n;
}

int psym_crashlog_filter(FILE *in, FILE *out, const struct psym_crashlog_opts *o,
			 struct psym_err *e)
{
	struct filter f = { .o = o };
	char line[LINE_MAX_BYTES];

	f.mods = psym_modset_new(o->binary, CRASHLOG_MAX_MODULES);
	f.fr = malloc(sizeof(*f.fr));
	if (!f.mods || !f.fr) {
		psym_modset_free(f.mods);
		free(f.fr);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	bool continued = false; /* inside a line longer than the buffer */
	size_t n;
	int ret = 0;

	/*
	 * Lines that are not frames go out byte for byte (NUL bytes and
	 * over-long lines included); only whole text lines are parsed.
	 */
	bool prev_frame = false;

	while ((n = read_chunk(in, line, sizeof(line))) > 0) {
		bool whole = line[n - 1] == '\n' || n < sizeof(line) - 1;
		bool frame = !continued && whole && perf_frame_like(line);

		/* perf script: the frames after a sample's first are return addresses. */
		f.perf_caller = frame && prev_frame;
		prev_frame = frame;
		if (!continued && whole && !memchr(line, '\0', n) &&
		    (sanitizer_line(&f, line, out) || summary_line(&f, line, out) ||
		     backtrace_line(&f, line, out) || perf_script_line(&f, line, out) ||
		     module_offset_line(&f, line, out)))
			continue;
		fwrite(line, 1, n, out);
		continued = line[n - 1] != '\n';
	}
	if (ferror(in))
		ret = psym_err_set(e, PSYM_EIO, "cannot read standard input");
	else if (ferror(out))
		ret = psym_err_set(e, PSYM_EIO, "cannot write to standard output");
	if (o->result)
		*o->result = (struct psym_crashlog_result){
			.resolved = f.resolved,
			.unresolved = f.unresolved,
			.why = f.why,
		};
	if (!ret)
		psym_modset_finish(f.mods); /* the index build policy */
	psym_modset_free(f.mods);
	free(f.fr);
	return ret;
}
