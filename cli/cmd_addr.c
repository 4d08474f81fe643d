/* SPDX-License-Identifier: MIT */
/* psym addr: addresses of one binary, or the crash-log filter. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addr_order.h"
#include "cli.h"

/* ---- addr ------------------------------------------------------------------ */

static const char addr_help[] =
	"Usage: psym addr -e BINARY [OPTIONS] [ADDRESS...]\n"
	"       psym addr --gsym FILE [OPTIONS] [ADDRESS...]\n"
	"Symbolize addresses of BINARY (ELF virtual addresses, hex, as addr2line\n"
	"takes them; read from standard input when none are given), with inline\n"
	"frames, in addr2line -f -i -C style or JSON.\n\n"
	"  -e, --exe FILE             the binary\n"
	"      --build-id ID          the binary with this build ID, found in the debug\n"
	"                             dirs (.build-id trees) or with debuginfod; a Go\n"
	"                             build ID (go:...) checks the binary -e names\n"
	"      --filter               copy standard input to standard output, filling in\n"
	"                             sanitizer frames (#N 0x... (module+0x...)),\n"
	"                             backtrace_symbols lines (prog(+0x...)[0x...]) and\n"
	"                             module+0xoffset frames; other lines unchanged\n"
	"      --gsym FILE            answer from this GSYM file (llvm-gsymutil\n"
	"                             --convert) instead of the DWARF: no columns,\n"
	"                             start lines or discriminators; without -e or\n"
	"                             --build-id it answers alone, for the ELF\n"
	"                             addresses of the binary it was made from\n"
	"      --json                 what llvm-symbolizer --output-style=JSON writes:\n"
	"                             one object per input line (one array for\n"
	"                             arguments) with ModuleName and Symbol, frames\n"
	"                             innermost first (FunctionName, FileName, Line,\n"
	"                             Column, Discriminator, StartAddress, StartLine)\n"
	"      --output-style S       GNU (addr2line's, the default), LLVM\n"
	"                             (llvm-symbolizer's: FILE:LINE:COLUMN, a blank\n"
	"                             line after each address) or JSON\n"
	"  -a, --addresses            print each address before its frames\n"
	"  -j, --section NAME         addresses are offsets in section NAME; in a\n"
	"                             relocatable object (.o, .ko) they always are,\n"
	"                             by default in the first code section long\n"
	"                             enough, as llvm-symbolizer and addr2line take them\n"
	"  -p, --pretty-print         one line per frame: FUNCTION at FILE:LINE, then\n"
	"                             \" (inlined by) \" lines\n"
	"  -s, --basenames            file names without their directories\n"
	"      --functions[=none]     function names (default); none: locations only\n"
	"      --columns              FILE:LINE:COLUMN in addr2line's format too\n"
	"  -f, -i, -C                 accepted (addr2line habits: always on)\n"
	"      --compat=addr2line     addr2line's defaults: function names only with\n"
	"                             -f, inline frames only with -i (else the\n"
	"                             innermost frame alone), demangled only with -C,\n"
	"                             -e a.out when no binary is named; psym run\n"
	"                             under the name addr2line behaves so\n"
	"An ADDRESS (or input line) that is not hex is answered ?? and ??:0, as\n"
	"addr2line does, so answers line up with the input; psym then exits 1.\n"
	"      --no-inlines           only the function that contains the code\n"
	"      --explain              list every file tried for the binary (each module\n"
	"                             with --filter) and what was used, on stderr\n"
	"  -v, --verbose              say which files answered and how many addresses\n"
	"                             were resolved, on stderr\n"
	"      --no-demangle          keep mangled names\n"
	"With --filter, -e FILE stands for the modules of the log that have FILE's\n"
	"name; frames left unresolved are counted on standard error.\n"
	"      --max-memory N         cap on one binary's decompressed DWARF sections\n"
	"                             together (default 8G, as symbolize's)\n" INDEX_HELP
		DISCOVERY_HELP "  -h, --help                 show this help\n";

/* How answers are printed: addr2line's and llvm-symbolizer's options. */
enum addr_style {
	STYLE_GNU,
	STYLE_LLVM,
	STYLE_JSON
};

struct addr_out {
	enum addr_style style;
	bool show_addr;	    /* -a */
	bool pretty;	    /* -p: one line per frame */
	bool basenames;	    /* -s */
	bool functions;	    /* --functions=none turns names off */
	bool columns;	    /* --columns: FILE:LINE:COLUMN in GNU style */
	bool demangle;	    /* not --no-demangle */
	bool array;	    /* JSON of arguments: one array, as llvm-symbolizer */
	bool innermost;	    /* --compat=addr2line without -i: the innermost frame only */
	bool a2l_disc;	    /* --compat=addr2line: every line repeats the innermost
				    * frame's discriminator, as GNU addr2line prints them */
	bool gnu_demangle;  /* --compat=addr2line: libiberty's names as they are */
	size_t n_out;	    /* answers written (JSON array separators) */
	const char *module; /* JSON ModuleName: the binary as named */
	int addr_width;	    /* -a: hex digits, as addr2line (16, 8 for ELFCLASS32) */
};

static const char *base_name(const struct addr_out *o, const char *file)
{
	const char *sl;

	if (!file || !o->basenames)
		return file;
	sl = strrchr(file, '/');
	return sl ? sl + 1 : file;
}

/* JSON: one answer opens; arguments go in one array, input lines one per line. */
static void json_open(FILE *out, struct addr_out *o)
{
	if (o->array)
		fputc(o->n_out ? ',' : '[', out);
	o->n_out++;
}

static void json_close(FILE *out, const struct addr_out *o)
{
	if (!o->array)
		fputc('\n', out);
}

/*
 * One frame as llvm-symbolizer --output-style=JSON writes it (keys sorted):
 * StartAddress is the frame's own DW_AT_low_pc (an inlined call's, none
 * with DW_AT_ranges), the outermost frame's the start of the symbol that
 * holds the address (has_start: either), StartFileName its decl file.
 */
static void json_frame(FILE *out, const struct addr_out *o, const struct psym_frame *f,
		       const char *name, bool has_start, uint64_t start)
{
	char sa[24] = "";

	if (has_start)
		snprintf(sa, sizeof(sa), "0x%" PRIx64, start);
	fprintf(out, "{\"Column\":%" PRId64 ",\"Discriminator\":%" PRIu32 ",\"FileName\":",
		f ? f->column : 0, f ? f->discriminator : 0);
	psym_json_string(out, f && f->file ? base_name(o, f->file) : "");
	fprintf(out, ",\"FunctionName\":");
	psym_json_string(out, name ? name : "");
	fprintf(out,
		",\"Line\":%" PRId64 ",\"StartAddress\":\"%s\",\"StartFileName\":", f ? f->line : 0,
		sa);
	psym_json_string(out, f && f->start_file ? f->start_file : "");
	fprintf(out, ",\"StartLine\":%" PRId64 "}", f ? f->start_line : 0);
}

/* The frame of an address nothing is known of: "??" and "??:0", as addr2line. */
static void print_unknown(FILE *out, const struct addr_out *o)
{
	bool llvm = o->style == STYLE_LLVM;

	/* Nothing known: addr2line says "??:0" ("??:?" is a symbol without a line). */
	if (!o->functions)
		fputs(llvm ? "??:0:0\n" : "??:0\n", out);
	else if (o->pretty)
		fputs(llvm ? "?? at ??:0:0\n" : "?? ??:0\n", out);
	else
		fputs(llvm ? "??\n??:0:0\n" : "??\n??:0\n", out);
}

/*
 * sep and v in decimal, as fprintf's "%c%" PRId64 " writes them, without
 * its format parsing (a tenth of writing the answers).
 */
static void put_num(FILE *out, char sep, int64_t v)
{
	char b[24], *p = b + sizeof(b);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	*--p = sep;
	fwrite(p, 1, (size_t)(b + sizeof(b) - p), out);
}

static void print_addr(FILE *out, struct addr_out *o, uint64_t addr, const struct psym_answer *ans)
{
	const struct psym_frame *fr = ans ? ans->f : NULL;
	size_t n = ans ? ans->n : 0;
	bool llvm = o->style == STYLE_LLVM;

	if (o->innermost && n > 1)
		n = 1;

	if (o->style == STYLE_JSON) {
		json_open(out, o);
		fprintf(out, "{\"Address\":\"0x%" PRIx64 "\",\"ModuleName\":", addr);
		psym_json_string(out, o->module ? o->module : "");
		fprintf(out, ",\"Symbol\":[");
		if (n == 0)
			json_frame(out, o, NULL, NULL, false, 0);
	} else if (o->show_addr) {
		if (llvm)
			fprintf(out, o->pretty ? "0x%" PRIx64 ": " : "0x%" PRIx64 "\n", addr);
		else
			fprintf(out, o->pretty ? "0x%0*" PRIx64 ": " : "0x%0*" PRIx64 "\n",
				o->addr_width ? o->addr_width : 16, addr);
	}
	if (n == 0 && o->style != STYLE_JSON)
		print_unknown(out, o);
	for (size_t i = 0; i < n; i++) {
		const char *sys = fr[i].linkage_name ? fr[i].linkage_name : fr[i].name;
		char *dem = !o->demangle      ? NULL
			    : o->gnu_demangle ? psym_demangle_gnu(sys)
					      : psym_demangle(sys);
		/* addr2line prints the mangled name libiberty cannot demangle. */
		const char *name = dem ? dem : o->demangle && !o->gnu_demangle ? fr[i].name : sys;
		const char *file = fr[i].file ? base_name(o, fr[i].file) : "??";

		if (!name || !*name)
			name = NULL;
		if (o->style == STYLE_JSON) {
			if (i)
				fputc(',', out);
			/* The outermost frame's: the symbol that holds the address, else low_pc. */
			uint64_t start = i + 1 == n ? ans->start : fr[i].start_address + ans->shift;
			bool has = i + 1 == n ? ans->has_start : fr[i].has_start_address;

			json_frame(out, o, &fr[i], name, has, start);
			free(dem);
			continue;
		}
		if (o->pretty && i)
			fputs(" (inlined by) ", out);
		if (o->functions) {
			psym_text_puts(out, name ? name : "??");
			fputs(o->pretty ? " at " : "\n", out);
		}
		/* addr2line: a known function without a line is "FILE:?". */
		psym_text_puts(out, file);
		if (fr[i].line || llvm)
			put_num(out, ':', fr[i].line);
		else
			fputs(":?", out);
		if (llvm || o->columns)
			put_num(out, ':', fr[i].column);
		/*
		 * As addr2line: "FILE:LINE (discriminator N)", a call site's
		 * own (llvm-symbolizer's GNU style); GNU addr2line repeats the
		 * innermost line's on every line.
		 */
		uint32_t disc = o->a2l_disc ? fr[0].discriminator : fr[i].discriminator;

		if (disc && !llvm)
			fprintf(out, " (discriminator %" PRIu32 ")", disc);
		fputc('\n', out);
		free(dem);
	}
	if (o->style == STYLE_JSON) {
		fprintf(out, "]}");
		json_close(out, o);
	} else if (llvm) {
		fputc('\n', out); /* llvm-symbolizer ends each answer with a blank line */
	}
}

/* Longest line psym addr reads from standard input. */
#define ADDR_LINE_MAX ((size_t)1 << 20)
#define ADDR_CHUNK 32768 /* inputs answered in address order at a time */

/* The answer for an input that is not an address: "??", as addr2line gives. */
static void print_bad_addr(FILE *out, struct addr_out *o, const char *arg, const char *why)
{
	if (o->style == STYLE_JSON) {
		/* As llvm-symbolizer: an Error object in the answer's place. */
		json_open(out, o);
		fprintf(out, "{\"Error\":{\"Message\":");
		if (*arg) {
			char *msg;

			if (asprintf(&msg, "'%.200s': %s", arg, why) < 0)
				msg = NULL;
			psym_json_string(out, msg ? msg : why);
			free(msg);
		} else {
			psym_json_string(out, why);
		}
		fprintf(out, "},\"ModuleName\":");
		psym_json_string(out, o->module ? o->module : "");
		fputc('}', out);
		json_close(out, o);
		return;
	}
	if (o->show_addr)
		fputs(o->pretty ? "??: " : "??\n", out);
	print_unknown(out, o);
	if (o->style == STYLE_LLVM)
		fputc('\n', out);
}

/* psym addr's command line, parsed (addr_parse). */
struct addr_cli {
	struct addr_out ao;
	struct psym_session *s;
	struct psym_addr_args aa; /* -e, --build-id, -j, --filter, -v, --explain */
	bool gsym;		  /* --gsym FILE: with no binary, it answers alone */
	char **args;		  /* the ADDRESS arguments; none: standard input */
	int nargs;
};

static const struct option addr_options[] = {
	{ "exe", required_argument, NULL, 'e' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "output-style", required_argument, NULL, OPT_STYLE },
	{ "pretty-print", no_argument, NULL, 'p' },
	{ "basenames", no_argument, NULL, 's' },
	{ "functions", optional_argument, NULL, OPT_FUNCTIONS },
	{ "columns", no_argument, NULL, OPT_COLUMNS },
	{ "inlines", no_argument, NULL, 'i' },
	{ "demangle", no_argument, NULL, 'C' },
	{ "addresses", no_argument, NULL, 'a' },
	{ "no-inlines", no_argument, NULL, OPT_NO_INLINES },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "build-id", required_argument, NULL, OPT_BUILD_ID },
	{ "filter", no_argument, NULL, OPT_FILTER },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "verbose", no_argument, NULL, 'v' },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "section", required_argument, NULL, 'j' },
	DISCOVERY_OPTIONS,
	INDEX_OPTIONS,
	{ "gsym", required_argument, NULL, OPT_GSYM },
	{ "compat", required_argument, NULL, OPT_COMPAT },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* --output-style's value. */
static enum addr_style parse_style(const char *arg)
{
	if (!strcmp(arg, "GNU"))
		return STYLE_GNU;
	if (!strcmp(arg, "LLVM"))
		return STYLE_LLVM;
	if (!strcmp(arg, "JSON"))
		return STYLE_JSON;
	die_usage("addr ", "--output-style takes GNU, LLVM or JSON, not '%s'", arg);
}

/* --functions[=KIND]: names on (linkage and short print alike here), none: off. */
static bool parse_functions(const char *arg)
{
	if (!arg || !strcmp(arg, "linkage") || !strcmp(arg, "short"))
		return true;
	if (!strcmp(arg, "none"))
		return false;
	die_usage("addr ", "--functions takes none, short or linkage, not '%s'", arg);
}

/* The options that do not fit together, said as usage errors (exit 2). */
static void addr_check(const struct psym_addr_args *o, bool gsym)
{
	if (o->filter && o->section)
		die_usage("addr ", "--section names a section of one binary, not of a log's");
	if (o->filter && o->build_id)
		die_usage("addr ", "--filter takes the build IDs from the log, not --build-id");
	if (!o->filter && !o->exe && !o->build_id && !gsym)
		die_usage("addr ", "no binary: give -e FILE, --build-id ID or --gsym FILE");
	if (gsym && o->section && !o->exe && !o->build_id)
		die_usage("addr ", "--section places addresses in a binary's sections: a GSYM "
				   "file has ELF virtual addresses");
	/*
	 * A Go build ID ("go:") names no file to look for: nothing is keyed
	 * by it. It checks the file named, as a GNU build ID does.
	 */
	if (o->build_id && psym_build_id_is_go(o->build_id) && !o->exe)
		die_usage("addr ",
			  "'%s' is a Go build ID: no store is keyed by one (the .build-id trees "
			  "and debuginfod take GNU build IDs); name the binary with -e FILE and "
			  "--build-id checks it",
			  o->build_id);
	if (o->build_id && !psym_build_id_valid(o->build_id) && !psym_build_id_is_go(o->build_id))
		die_usage("addr ", "'%s' is not a build ID", o->build_id);
}

/*
 * addr2line's defaults (--compat=addr2line, or psym run as addr2line),
 * given which of -f, -i and -C the command line has: names, inline
 * frames and demangling each only when asked, the binary a.out by
 * default, as GNU addr2line and llvm-addr2line have them.
 */
static void addr2line_defaults(struct addr_cli *o, bool f, bool i, bool C)
{
	o->ao.functions = f;
	o->ao.innermost = !i;
	o->ao.demangle = C;
	o->ao.a2l_disc = true;
	o->ao.gnu_demangle = true;
	o->aa.gnu_names = true; /* the outermost frame's name as addr2line's */
	if (!o->aa.exe && !o->aa.build_id && !o->aa.filter)
		o->aa.exe = "a.out";
}

/*
 * The command line into o (o->s to be freed), with addr2line's defaults
 * when compat (or --compat=addr2line). False after --help (printed); a
 * usage error exits 2.
 */
static bool addr_parse(int argc, char **argv, struct addr_cli *o, bool compat)
{
	static const char shortopts[] = "he:aCfivpsj:";
	bool f = false, i = false, C = false;
	int c;

	*o = (struct addr_cli){
		.ao = { .style = STYLE_GNU, .functions = true, .demangle = true },
		.s = session_new(),
	};
	while ((c = getopt_long(argc, argv, shortopts, addr_options, NULL)) != -1) {
		if (c == OPT_NO_DEMANGLE)
			o->ao.demangle = false;
		if (c == OPT_EXPLAIN)
			o->aa.explain = o->aa.verbose = true;
		if (c == OPT_GSYM)
			o->gsym = true;
		/* -C is addr2line's --demangle, not the session's --demangle=MODE. */
		if (c != 'C' && session_option(o->s, addr_options, c, optarg, "addr "))
			continue;
		switch (c) {
		case 'e': o->aa.exe = optarg; break;
		case OPT_JSON: o->ao.style = STYLE_JSON; break;
		case OPT_STYLE: o->ao.style = parse_style(optarg); break;
		case 'a': o->ao.show_addr = true; break;
		case 'p': o->ao.pretty = true; break;
		case 's': o->ao.basenames = true; break;
		case OPT_COLUMNS: o->ao.columns = true; break;
		case OPT_FUNCTIONS: o->ao.functions = parse_functions(optarg); break;
		/* addr2line habits: always on, but with --compat=addr2line */
		case 'C': C = true; break;
		case 'f': f = true; break;
		case 'i': i = true; break;
		case OPT_COMPAT:
			if (strcmp(optarg, "addr2line") != 0)
				die_usage("addr ", "--compat takes addr2line, not '%s'", optarg);
			compat = true;
			break;
		case OPT_BUILD_ID: o->aa.build_id = optarg; break;
		case OPT_FILTER: o->aa.filter = true; break;
		case 'v': o->aa.verbose = true; break;
		case 'j': o->aa.section = optarg; break;
		case 'h': fputs(addr_help, stdout); return false;
		default: die_bad_option("addr ", argv, shortopts);
		}
	}
	if (compat)
		addr2line_defaults(o, f, i, C);
	o->aa.demangle = o->ao.demangle;
	o->aa.starts = o->ao.style == STYLE_JSON;
	addr_check(&o->aa, o->gsym);
	o->args = argv + optind;
	o->nargs = argc - optind;
	return true;
}

/*
 * How psym addr ends once its answers are out: exit 1 when some input was
 * not an address (standard output's errors are finish_stdout's, main.c).
 */
static int addr_exit(size_t nbad)
{
	return nbad ? PSYM_EXIT_PARTIAL : 0;
}

/* --filter: the crash log on standard input to standard output, frames filled in. */
static int addr_filter(struct addr_cli *o)
{
	struct psym_err e = { 0 };
	size_t unresolved;
	int ret = psym_session_filter(o->s, &o->aa, stdin, stdout, &unresolved, &e);

	if (stdout_state() > 0)
		return 0; /* the reader went away: not an error for a filter */
	return ret ? report(&e, ret) : addr_exit(0);
}

/* Where the addresses come from: the arguments, or standard input's lines. */
struct addr_input {
	int next;      /* the argument to answer next */
	char *line;    /* standard input's line under way */
	size_t cap;    /* of line */
	size_t lineno; /* of line, from 1 */
	bool overlong; /* the line was longer than ADDR_LINE_MAX: not kept */
};

/*
 * The next address to answer: an argument, or the first word of an input
 * line, read whole (up to ADDR_LINE_MAX bytes). NULL at the end.
 */
static char *next_input(const struct addr_cli *o, struct addr_input *in)
{
	char *arg;

	if (o->nargs)
		return in->next < o->nargs ? o->args[in->next++] : NULL;
	if (psym_read_line_cap(stdin, &in->line, &in->cap, ADDR_LINE_MAX, &in->overlong) < 0)
		return NULL;
	in->lineno++;
	arg = in->line ? in->line + strspn(in->line, " \t\r") : (char *)"";
	arg[strcspn(arg, " \t\r")] = '\0';
	return arg;
}

/*
 * The key of an input in answer_all's order: 0 for one that is not an
 * address, else the address + 1 (UINT64_MAX for the two highest and an
 * overflow: those are parsed again).
 */
static uint64_t addr_key(const char *arg, bool overlong)
{
	char *end;
	uint64_t key = overlong ? 0 : strtoull(arg, &end, 16);

	return overlong || end == arg || *end ? 0 : key + (key < UINT64_MAX);
}

/*
 * One input that is an address (or said not to be) answered on standard
 * output; key (addr_key) gives the address without the text being read
 * again, when it can.
 */
static void answer_one(struct addr_cli *o, struct psym_module *m, const char *arg, uint64_t key,
		       size_t lineno, size_t *bad, FILE *out)
{
	struct psym_answer ans;
	char *end = NULL;
	uint64_t a;

	errno = 0;
	a = key && key < UINT64_MAX ? key - 1 : strtoull(arg, &end, 16);
	if (end && (errno || end == arg || *end)) {
		if (o->nargs)
			fprintf(stderr, "%s: '%.200s': not a hex address\n", progname, arg);
		else
			fprintf(stderr,
				"%s: standard input, line %zu: '%.200s': not a hex address\n",
				progname, lineno, arg);
		print_bad_addr(out, &o->ao, arg, "not a hex address");
		(*bad)++;
		return;
	}
	psym_module_lookup(m, a, &ans);
	print_addr(out, &o->ao, a, &ans);
}

struct addr_run {
	struct addr_cli *o;
	struct psym_module *m;
	size_t bad; /* inputs that are not addresses */
};

/* One input (an argument, or a line's first word) answered onto out. */
static void answer_input(void *ud, const char *arg, size_t lineno, bool overlong, uint64_t key,
			 FILE *out)
{
	struct addr_run *r = ud;
	struct addr_cli *o = r->o;

	if (overlong) {
		fprintf(stderr,
			"%s: standard input, line %zu: longer than %zu bytes, not an address\n",
			progname, lineno, ADDR_LINE_MAX);
		print_bad_addr(out, &o->ao, "", "longer than 1 MiB, not an address");
		r->bad++;
	} else if (!o->nargs && !key && !*arg) {
		/*
		 * A blank input line: an empty answer, and on (addr2line
		 * answers it as address 0, llvm-symbolizer echoes it).
		 */
		if (o->ao.style == STYLE_LLVM)
			fputc('\n', out);
		else if (o->ao.style == STYLE_JSON)
			print_bad_addr(out, &o->ao, "", "empty line");
		else
			print_addr(out, &o->ao, 0, NULL);
	} else {
		answer_one(o, r->m, arg, key, lineno, &r->bad, out);
	}
}

/*
 * Every argument, every input line gets exactly one answer, "??" for one
 * that is not an address (said on stderr, exit 1 at the end), so the
 * output lines up with the input as addr2line's does. Inputs that are all
 * there (arguments, a file) are answered in address order (addr_order.h),
 * a pipe's as they come; as addr2line (gnu_names), always in input order,
 * since its names depend on the addresses asked before.
 */
static size_t answer_all(struct addr_cli *o, struct psym_module *m)
{
	struct addr_run r = { o, m, 0 };
	struct addr_input in = { 0 };
	struct stat st;
	struct addr_order *q = NULL;
	char *arg;

	if (!o->ao.array && !o->aa.gnu_names &&
	    (o->nargs > 1 || (!o->nargs && fstat(fileno(stdin), &st) == 0 && S_ISREG(st.st_mode))))
		q = addr_order_new(ADDR_CHUNK);
	/* ferror: nobody reads the answers any more. */
	while (!ferror(stdout) && (arg = next_input(o, &in)) != NULL) {
		/* Not addresses first, in input order (their messages too). */
		uint64_t key = addr_key(arg, in.overlong);

		if (q && !addr_order_add(q, arg, in.lineno, in.overlong, key)) {
			addr_order_flush(q, answer_input, &r, stdout);
			if (addr_order_add(q, arg, in.lineno, in.overlong, key))
				continue;
		} else if (q) {
			continue;
		}
		answer_input(&r, arg, in.lineno, in.overlong, key, stdout);
	}
	if (q)
		addr_order_flush(q, answer_input, &r, stdout);
	addr_order_free(q);
	free(in.line);
	return r.bad;
}

/* -e FILE or --build-id ID: the addresses of that binary answered. An exit code. */
static int addr_binary(struct addr_cli *o)
{
	struct psym_module *m = NULL;
	struct psym_err e = { 0 };
	size_t bad;
	int ret = psym_session_module(o->s, &o->aa, &m, &e);

	if (ret)
		return report(&e, ret);
	psym_module_facts(m, &o->ao.module, &o->ao.addr_width);
	/* JSON answers to arguments: one array, as llvm-symbolizer writes them. */
	o->ao.array = o->ao.style == STYLE_JSON && o->nargs;
	bad = answer_all(o, m);
	if (o->ao.array)
		fputs(o->ao.n_out ? "]\n" : "[]\n", stdout);
	psym_module_close(m, bad);
	return addr_exit(bad);
}

static int addr_main(int argc, char **argv, bool compat)
{
	struct addr_cli o;
	int ret = 0;

	if (addr_parse(argc, argv, &o, compat))
		ret = o.aa.filter ? addr_filter(&o) : addr_binary(&o);
	psym_session_free(o.s);
	return ret;
}

int cmd_addr(int argc, char **argv)
{
	return addr_main(argc, argv, false);
}

int cmd_addr2line(int argc, char **argv)
{
	return addr_main(argc, argv, true);
}
