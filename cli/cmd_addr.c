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

#include "cli.h"

/* ---- addr ------------------------------------------------------------------ */

static const char addr_help[] =
	"Usage: psym addr -e BINARY [OPTIONS] [ADDRESS...]\n"
	"Symbolize addresses of BINARY (ELF virtual addresses, hex, as addr2line\n"
	"takes them; read from standard input when none are given), with inline\n"
	"frames, in addr2line -f -i -C style or JSON.\n\n"
	"  -e, --exe FILE             the binary\n"
	"      --build-id ID          the binary with this build ID, found in the debug\n"
	"                             dirs (.build-id trees) or with debuginfod\n"
	"      --filter               copy standard input to standard output, filling in\n"
	"                             sanitizer frames (#N 0x... (module+0x...)),\n"
	"                             backtrace_symbols lines (prog(+0x...)[0x...]) and\n"
	"                             module+0xoffset frames; other lines unchanged\n"
	"      --gsym FILE            answer from this GSYM file (llvm-gsymutil\n"
	"                             --convert) instead of the DWARF: no columns,\n"
	"                             start lines or discriminators\n"
	"      --json                 one JSON object per address, frames innermost\n"
	"                             first (FunctionName, FileName, Line, Column,\n"
	"                             StartLine)\n"
	"  -a, --addresses            print each address before its frames\n"
	"An ADDRESS (or input line) that is not hex is answered ?? and ??:0, as\n"
	"addr2line does, so answers line up with the input; psym then exits 1.\n"
	"      --no-inlines           only the function that contains the code\n"
	"      --no-demangle          keep mangled names\n"
	"With --filter, -e FILE stands for the modules of the log that have FILE's\n"
	"name; frames left unresolved are counted on standard error.\n" INDEX_HELP DISCOVERY_HELP
	"  -h, --help                 show this help\n";

static void print_addr(FILE *out, uint64_t addr, const struct psym_frame *fr, size_t n, bool json,
		       bool show_addr, bool demangle)
{
	if (json) {
		fprintf(out, "{\"Address\":\"0x%" PRIx64 "\",\"Symbol\":[", addr);
	} else if (show_addr) {
		fprintf(out, "0x%016" PRIx64 "\n", addr);
	}
	if (n == 0) {
		if (json)
			fprintf(out, "{\"FunctionName\":\"??\",\"FileName\":\"??\",\"Line\":0,"
				     "\"Column\":0,\"StartLine\":0,\"Discriminator\":0}");
		else
			fprintf(out, "??\n??:0\n");
	}
	for (size_t i = 0; i < n; i++) {
		const char *sys = fr[i].linkage_name ? fr[i].linkage_name : fr[i].name;
		char *dem = demangle ? psym_demangle(sys) : NULL;
		const char *name = dem ? dem : (demangle ? fr[i].name : sys);

		if (json) {
			fprintf(out, "%s{\"FunctionName\":", i ? "," : "");
			psym_json_string(out, name && *name ? name : "??");
			fprintf(out, ",\"FileName\":");
			psym_json_string(out, fr[i].file ? fr[i].file : "??");
			fprintf(out,
				",\"Line\":%" PRId64 ",\"Column\":%" PRId64
				",\"StartLine\":%" PRId64 ",\"Discriminator\":%" PRIu32 "}",
				fr[i].line, fr[i].column, fr[i].start_line, fr[i].discriminator);
		} else {
			/* As addr2line: "FILE:LINE (discriminator N)". */
			fprintf(out, "%s\n%s:%" PRId64, name && *name ? name : "??",
				fr[i].file ? fr[i].file : "??", fr[i].line);
			if (fr[i].discriminator)
				fprintf(out, " (discriminator %" PRIu32 ")", fr[i].discriminator);
			fputc('\n', out);
		}
		free(dem);
	}
	if (json)
		fprintf(out, "]}\n");
}

/* Longest line psym addr reads from standard input. */
#define ADDR_LINE_MAX ((size_t)1 << 20)

/*
 * One line of in (without its '\n') into *buf, which grows up to max + 1
 * bytes; the rest of a longer line is read and dropped, *overlong set.
 * Returns the bytes kept, or -1 at the end of the input.
 */
static ssize_t read_addr_line(FILE *in, char **buf, size_t *cap, size_t max, bool *overlong)
{
	size_t n = 0;
	int c;

	*overlong = false;
	while ((c = getc(in)) != EOF && c != '\n') {
		if (n == max) {
			*overlong = true;
			continue;
		}
		if (n + 1 >= *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			char *nb;

			if (ncap > max + 1)
				ncap = max + 1;
			nb = realloc(*buf, ncap);
			if (!nb) {
				*overlong = true; /* answered as not an address */
				continue;
			}
			*buf = nb;
			*cap = ncap;
		}
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && n == 0 && !*overlong)
		return -1;
	if (*buf)
		(*buf)[n] = '\0';
	return (ssize_t)n;
}

/* The answer for an input that is not an address: "??", as addr2line gives. */
static void print_bad_addr(FILE *out, const char *arg, bool json, bool show_addr)
{
	if (json) {
		fprintf(out, "{\"Address\":\"??\",\"Error\":{\"Message\":\"not a hex address\"},"
			     "\"Input\":");
		psym_json_string(out, arg);
		fprintf(out, ",\"Symbol\":[{\"FunctionName\":\"??\",\"FileName\":\"??\",\"Line\":0,"
			     "\"Column\":0,\"StartLine\":0,\"Discriminator\":0}]}\n");
		return;
	}
	if (show_addr)
		fprintf(out, "??\n");
	fprintf(out, "??\n??:0\n");
}

int cmd_addr(int argc, char **argv)
{
	static const struct option opts[] = { { "exe", required_argument, NULL, 'e' },
					      { "json", no_argument, NULL, OPT_JSON },
					      { "addresses", no_argument, NULL, 'a' },
					      { "no-inlines", no_argument, NULL, OPT_NO_INLINES },
					      { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
					      { "build-id", required_argument, NULL, OPT_BUILD_ID },
					      { "filter", no_argument, NULL, OPT_FILTER },
					      DISCOVERY_OPTIONS,
					      INDEX_OPTIONS,
					      { "gsym", required_argument, NULL, OPT_GSYM },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	struct psym_frames *fr = NULL;
	struct psym_binary_opts bo = { .inlines = true, .discriminators = true };
	struct psym_resolver *res = NULL;
	struct psym_binary *bin;
	struct psym_elf *elf = NULL;
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	struct discovery d;
	struct index_cli ic = { 0 };
	struct psym_index_store *store = NULL;
	const char *exe = NULL, *build_id = NULL;
	bool filter = false, json = false, show_addr = false, demangle = true;
	char *line = NULL;
	size_t linecap = 0, lineno = 0, nbad = 0;
	int c, ret;

	discovery_init(&d);
	while ((c = getopt_long(argc, argv, "he:aCfi", opts, NULL)) != -1) {
		if (discovery_option(c, optarg, &d, "addr ") || index_option(c, optarg, &ic))
			continue;
		switch (c) {
		case 'e': exe = optarg; break;
		case OPT_JSON: json = true; break;
		case 'a': show_addr = true; break;
		case 'C':
		case 'f':
		case 'i': break; /* addr2line habits: always on */
		case OPT_NO_INLINES: bo.inlines = false; break;
		case OPT_NO_DEMANGLE: demangle = false; break;
		case OPT_BUILD_ID: build_id = optarg; break;
		case OPT_FILTER: filter = true; break;
		case 'h': fputs(addr_help, stdout); return 0;
		default: die_usage("addr ", "invalid option");
		}
	}
	if (filter && build_id)
		die_usage("addr ", "--filter takes the build IDs from the log, not --build-id");
	if (!filter && !exe && !build_id)
		die_usage("addr ", "no binary: give -e FILE or --build-id ID");
	if (build_id && !psym_build_id_valid(build_id))
		die_usage("addr ", "'%s' is not a build ID", build_id);
	/* --debug-pkg: the binary's debug file (a log's modules: all of them). */
	ret = 0;
	if (filter) {
		d.want_all = true;
	} else if (build_id) {
		ret = idset_add(&d.want, build_id);
	} else {
		char own[PSYM_BUILD_ID_HEX_MAX];

		ret = psym_elf_file_build_id(exe, own, NULL) == 0 ? idset_add(&d.want, own) : 0;
	}
	if (!ret)
		ret = discovery_finish(&d, &e);
	if (ret)
		goto fail;
	bo.locate = &d.lo;
	bo.limits = &d.limits;
	if (index_store_open(&ic, true, &store)) {
		discovery_free(&d);
		return PSYM_EXIT_BADINPUT;
	}
	bo.index_store = store;
	bo.gsym = ic.gsym;
	if (filter) {
		struct psym_crashlog_opts co = {
			.binary = &bo,
			.demangle = demangle,
			.named = exe,
			.log = stderr,
		};

		ret = psym_crashlog_filter(stdin, stdout, &co, &e);
		if (stdout_state() > 0) {
			ret = 0; /* the reader went away: not an error for a filter */
			goto out_quiet;
		}
		if (ret)
			goto fail;
		goto out;
	}
	/* The binary: the file named, or any file with the build ID (checked). */
	if (exe) {
		struct psym_objkey k = { .path = exe, .build_id = build_id, .named = exe };

		ret = psym_locate_binary(&d.lo, &k, &elf, &why, &e);
	} else {
		ret = psym_locate_by_build_id(&d.lo, build_id, &elf, &why, &e);
	}
	if (ret == PSYM_NOENT) {
		ret = psym_err_set(&e, PSYM_EBADINPUT, "%s%s%s",
				   exe ? "" : "no file with build ID ", exe ? "" : build_id,
				   exe ? "" : ": ");
		psym_err_set(&e, PSYM_EBADINPUT, "%s%s", e.msg, psym_reason_text(&why));
	}
	if (!ret)
		ret = psym_file_resolver_new(elf, &bo, "file", &res, &e);
	fr = ret ? NULL : malloc(sizeof(*fr));
	if (!ret && !fr)
		ret = psym_err_set(&e, PSYM_ENOMEM, "out of memory");
	if (ret)
		goto fail;
	bin = psym_file_resolver_binary(res);
	/*
	 * Every argument, every input line gets exactly one answer, "??" for
	 * one that is not an address (said on stderr, exit 1 at the end), so
	 * the output lines up with the input as addr2line's does. A line is
	 * read whole (up to ADDR_LINE_MAX bytes); its first word is the address.
	 */
	for (int i = optind;; i++) {
		struct psym_lookup_ctx ctx = { 0 };
		char *end, *arg;
		bool overlong = false;
		uint64_t a;

		if (ferror(stdout))
			break; /* nobody reads the answers any more */
		if (optind < argc) {
			if (i >= argc)
				break;
			arg = argv[i];
		} else {
			if (read_addr_line(stdin, &line, &linecap, ADDR_LINE_MAX, &overlong) < 0)
				break;
			lineno++;
			arg = line ? line + strspn(line, " \t\r") : (char *)"";
			arg[strcspn(arg, " \t\r")] = '\0';
		}
		if (overlong) {
			fprintf(stderr,
				"%s: standard input, line %zu: longer than %zu bytes, not an "
				"address\n",
				progname, lineno, ADDR_LINE_MAX);
			print_bad_addr(stdout, "", json, show_addr);
			nbad++;
			continue;
		}
		errno = 0;
		a = strtoull(arg, &end, 16);
		if (errno || end == arg || *end) {
			if (optind < argc)
				fprintf(stderr, "%s: '%.200s': not a hex address\n", progname, arg);
			else
				fprintf(stderr,
					"%s: standard input, line %zu: '%.200s': not a hex address\n",
					progname, lineno, arg);
			print_bad_addr(stdout, arg, json, show_addr);
			nbad++;
			continue;
		}
		if (psym_resolver_lookup(res, &ctx, a, fr, &why) != 0)
			fr->n = 0;
		print_addr(stdout, a, fr->f, fr->n, json, show_addr, demangle);
	}
	free(line);
	{
		const char *dmg = psym_binary_take_index_damage(bin);

		if (dmg)
			fprintf(stderr, "%s: warning: %s: answered from the debug information\n",
				progname, dmg);
	}
	/* Debug info that could not be read: said once, like llvm-symbolizer. */
	if (psym_binary_debug_note(bin) && psym_binary_debug_note(bin)[0])
		fprintf(stderr, "%s: warning: %s\n", progname, psym_binary_debug_note(bin));
	goto out;
fail:
	ret = report(&e, ret);
	free(fr);
	psym_resolver_free(res);
	psym_index_store_free(store);
	discovery_free(&d);
	return ret;
out:
	free(fr);
	psym_resolver_free(res);
	psym_index_store_free(store);
	discovery_free(&d);
	c = stdout_state();
	if (c < 0) {
		fprintf(stderr, "%s: cannot write to standard output: %s\n", progname,
			strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	return nbad && c == 0 ? PSYM_EXIT_PARTIAL : 0;
out_quiet:
	free(fr);
	psym_resolver_free(res);
	psym_index_store_free(store);
	discovery_free(&d);
	return 0;
}
