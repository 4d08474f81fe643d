/* SPDX-License-Identifier: MIT */
/*
 * The psym command line: what the commands share. Each command lives in its
 * own file (cmd_*.c): it parses its arguments (symbolize and addr into an
 * options struct), sets up what they name, calls libpsym through its public
 * header and prints what comes back. The discovery and cache options (how
 * binaries and debug information are found) are declared once here and
 * shared by symbolize, addr, addr --filter and index.
 *
 * psym addr looks addresses up by module rather than by profile: its one
 * binary, like the crash-log filter's modules (psym_crashlog_filter), is
 * found and opened by the library's module driver (modset.h), which
 * locates and opens it as symbolize does a mapping's file; cmd_addr.c
 * reads the addresses, asks the binary's resolver and prints the answers.
 */
#ifndef PSYM_CLI_H
#define PSYM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>

#include "psym.h"

extern const char *progname;

/* Options shared by every command that reads a profile. */
enum {
	OPT_MAX_INPUT = 1000,
	OPT_MAX_PROFILE,
	OPT_MAX_MEMORY,
	OPT_JSON,
	OPT_RAW,
	OPT_IN_PLACE,
	OPT_NEXT, /* first free value for command-specific options */
};

enum {
	OPT_BINARY_PATH = OPT_NEXT,
	OPT_SYSROOT,
	OPT_MAIN_BINARY,
	OPT_FORCE,
	OPT_EXPLAIN,
	OPT_STRICT,
	OPT_DEBUG_DIR,
	OPT_DEBUG_PKG,
	OPT_DEBUGINFOD,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_OFFLINE,
	OPT_NO_INLINES,
	OPT_NO_DEMANGLE,
	OPT_ADJUST_CALLERS,
	OPT_KALLSYMS,
	OPT_VDSO,
	OPT_PERF_MAP,
	OPT_PERF_MAP_DIR,
	OPT_PID,
	OPT_BUILD_ID,
	OPT_LIMIT,
	OPT_VMLINUX,
	OPT_JOBS,
	OPT_CACHE,
	OPT_NO_CACHE,
	OPT_FILTER,
	OPT_DWO_DIR,
	OPT_DWP,
	OPT_INDEX_STORE,
	OPT_NO_INDEX,
	OPT_STYLE,
	OPT_FUNCTIONS,
	OPT_COLUMNS,
	OPT_MODULES_DIR,
	OPT_NO_INDEX_BUILD,
	OPT_GSYM,
	OPT_COMPAT,
	OPT_DEMANGLE,
};

#define LIMIT_OPTIONS                                                                              \
	{ "max-input-size", required_argument, NULL, OPT_MAX_INPUT },                              \
		{ "max-profile-size", required_argument, NULL, OPT_MAX_PROFILE },                  \
		{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },                         \
	{                                                                                          \
		"help", no_argument, NULL, 'h'                                                     \
	}

#define READER_LIMIT_HELP                                                                          \
	"      --limit NAME=N         raise (or lower) a cap on what one input may\n"              \
	"                             cost: ELF sections/symbols, DWARF depth/entries/\n"          \
	"                             rows/section bytes, perf map entries, kallsyms\n"            \
	"                             symbols, .deb bytes/files; --limit help lists\n"             \
	"                             them\n"

#define DISCOVERY_OPTIONS                                                                          \
	{ "binary-path", required_argument, NULL, OPT_BINARY_PATH },                               \
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },                               \
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },                           \
		{ "debug-pkg", required_argument, NULL, OPT_DEBUG_PKG },                           \
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },                         \
		{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },         \
		{ "offline", no_argument, NULL, OPT_OFFLINE },                                     \
		{ "dwo-dir", required_argument, NULL, OPT_DWO_DIR },                               \
		{ "dwp", required_argument, NULL, OPT_DWP },                                       \
		{ "modules-dir", required_argument, NULL, OPT_MODULES_DIR },                       \
		{ "cache", required_argument, NULL, OPT_CACHE },                                   \
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },                                   \
	{                                                                                          \
		"limit", required_argument, NULL, OPT_LIMIT                                        \
	}

#define DISCOVERY_HELP                                                                             \
	"\nFinding binaries (in this order):\n"                                                    \
	"      --binary-path DIR[:DIR...]  search DIR/BUILDID/BASENAME, DIR/BUILDID/*,\n"          \
	"                             DIR/BUILDID, DIR/PATH/BUILDID, DIR/BASENAME,\n"              \
	"                             DIR/PATH; then $PPROF_BINARY_PATH the same way\n"            \
	"      --sysroot DIR          look for each binary's own path under DIR\n"                 \
	"                             (default /); '..' never leaves DIR; then files\n"            \
	"                             with the binary's build ID in the debug dirs\n"              \
	"                             and on debuginfod servers\n"                                 \
	"\nDebug information (lines, inline frames; looked for in this order):\n"                  \
	"      --debug-dir DIR        search DIR/.build-id/NN/REST.debug,\n"                       \
	"                             DIR/<binary's dir>/<debuglink>, DIR/<its\n"                  \
	"                             trailing components>/<debuglink> and\n"                      \
	"                             DIR/<debuglink> (repeatable; /usr/lib/debug is\n"            \
	"                             always searched last)\n"                                     \
	"      --debug-pkg FILE.deb   use a Debian -dbg/-dbgsym package (repeatable;\n"            \
	"                             what the run needs of it is extracted into\n"                \
	"                             the cache, or a temporary dir with --no-cache)\n"            \
	"      --debuginfod URL       ask this debuginfod server (repeatable;\n"                   \
	"                             default: $DEBUGINFOD_URLS)\n"                                \
	"      --debuginfod-timeout S seconds for all debuginfod lookups of the run\n"             \
	"                             together (a batch is one run; default 30);\n"                \
	"                             then the rest are not asked\n"                               \
	"      --offline              never use the network\n"                                     \
	"      --dwo-dir DIR          split DWARF: look for .dwo files as DIR/DWO_NAME,\n"         \
	"                             DIR/COMP_DIR/DWO_NAME and DIR/BASENAME after\n"              \
	"                             COMP_DIR/DWO_NAME and beside the binary\n"                   \
	"                             (repeatable; for builds moved elsewhere)\n"                  \
	"      --dwp FILE             split DWARF: the .dwp package (default:\n"                   \
	"                             BINARY.dwp, then DEBUGDIR/BASENAME.dwp)\n"                   \
	"      --modules-dir DIR      kernel modules with DWARF (.ko, .ko.xz, .ko.zst,\n"          \
	"                             .ko.gz, .ko.debug) anywhere under DIR, before\n"             \
	"                             DEBUGDIR/lib/modules/RELEASE and the sysroot's\n"            \
	"                             /lib/modules/RELEASE (repeatable)\n"                         \
	"\nCaches (the same on symbolize, addr, addr --filter and index):\n"                       \
	"      --cache DIR            psym's cache directory: symbolize's answers\n"               \
	"                             (addresses answered from DWARF before), the\n"               \
	"                             --debug-pkg extractions (DIR/debs) and the\n"                \
	"                             default index store (DIR/index); default\n"                  \
	"                             $XDG_CACHE_HOME/psym or ~/.cache/psym (answers\n"            \
	"                             in its symbols/)\n"                                          \
	"      --no-cache             no answer cache, and --debug-pkg extracted into\n"           \
	"                             a temporary dir (indexes stay on: --no-index)\n"             \
	"A file whose build ID differs from the profile's is never used, not even\n"               \
	"when named (--main-binary of another build is refused); one without a build\n"            \
	"ID, when the profile has one, only where named (-e, --main-binary, --vmlinux).\n" READER_LIMIT_HELP

#define LIMIT_HELP                                                                                 \
	"      --max-input-size N     refuse input files larger than N bytes (default 1G)\n"       \
	"      --max-profile-size N   refuse profiles that decompress to more than N bytes\n"      \
	"                             (default 512M)\n"                                            \
	"      --max-memory N         memory cap for one profile (default 8G)\n"                   \
	"  -h, --help                 show this help\n"

/* common.c */
void die_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* After getopt_long returned '?': the one-line error naming the option. */
void die_bad_option(const char *cmd, char **argv, const char *shortopts) __attribute__((noreturn));
int report(const struct psym_err *e, int code);
int stdout_state(void);
int finish_stdout(int code);
/* An input was read in part (its one line said): the command exits 1 (finish_stdout). */
void input_partial(const char *msg);
bool parse_size(const char *s, size_t *out);
bool limit_option(int c, const char *arg, struct psym_limits *lim, const char *cmd);
int load(const char *path, const struct psym_limits *lim, struct psym_profile **p);
extern struct psym_out *volatile active_out;
bool is_dir(const char *path);
void on_signal(int sig);
void add_owned(char *s, const char ***list, size_t *n);
void add_one(const char *arg, const char ***list, size_t *n);
long parse_long_arg(const char *cmd, const char *arg, long lo, long hi, const char *what);
void free_list(const char **list, size_t n);

/*
 * The session's options (psym_session_set), found by their long name in
 * opts: true when c was one; a bad value exits 2, --limit help exits 0.
 */
bool session_option(struct psym_session *s, const struct option *opts, int c, const char *arg,
		    const char *cmd);
/* A new session, or exit 3. */
struct psym_session *session_new(void);

/* The commands. */
int cmd_show(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_addr(int argc, char **argv);
/* psym run as addr2line (a link of that name): psym addr --compat=addr2line. */
int cmd_addr2line(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_folded(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_traces(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_peek(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_archive(int argc, char **argv);

/* cmd_index.c: per-build-ID indexes (--index-store, --no-index). */
#define INDEX_OPTIONS                                                                              \
	{ "index-store", required_argument, NULL, OPT_INDEX_STORE },                               \
		{ "no-index-build", no_argument, NULL, OPT_NO_INDEX_BUILD },                       \
	{                                                                                          \
		"no-index", no_argument, NULL, OPT_NO_INDEX                                        \
	}

#define INDEX_HELP                                                                                 \
	"      --index-store STORE    per-build-ID indexes: a directory (default\n"                \
	"                             CACHE/index) or an http:// URL (GET and PUT)\n"              \
	"      --no-index             neither use nor build indexes\n"                             \
	"      --no-index-build       use indexes, never build them (a read-only store)\n"

int cmd_index(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_stack(int argc, char **argv);

#endif
