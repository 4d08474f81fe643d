/* SPDX-License-Identifier: MIT */
/*
 * libpsym's public API: everything psym's main (cli/) uses, declared here
 * and nowhere else (scripts/check-api checks that cli/ names nothing more,
 * and that this header includes no header of the tree). The library's
 * modules include it for the public types they implement.
 *
 * The shape, as libdwfl's and blazesym's: a session (struct psym_session)
 * holds how files are found (binary path, debug dirs, packages, debuginfod,
 * caches, indexes, reader caps), set by option name as the command line
 * spells them; profiles are opaque (struct psym_profile), read through the
 * input table whatever their kind; each job is one verb over them
 * (symbolize, stack, report, index, archive, show, merge, addresses), with
 * an options struct holding only what a caller may choose, and a result
 * freed by one call. Errors: action functions return 0 or a negative
 * PSYM_E* code and put one line in the caller's struct psym_err.
 */
#ifndef PSYM_H
#define PSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- errors ------------------------------------------------------------- */

/*
 * Action functions return 0 on success or a negative PSYM_E* code. Lookups
 * that find nothing return PSYM_NOENT (positive, not an error). The detailed
 * one-line message for the last error lives in a struct psym_err owned by
 * the caller, never in static state.
 */
/* X(name, exit-code class, message) */
#define PSYM_ERRORS(X)                                                                             \
	X(OK, 0, "success")                                                                        \
	X(NOMEM, 3, "out of memory")                                                               \
	X(LIMIT, 2, "size limit exceeded")                                                         \
	X(IO, 3, "input/output error")                                                             \
	X(USAGE, 2, "invalid usage")                                                               \
	X(BADGZIP, 2, "corrupt gzip data")                                                         \
	X(BADPROTO, 2, "not a valid protocol buffer")                                              \
	X(BADPROFILE, 2, "invalid profile")                                                        \
	X(BADELF, 2, "invalid ELF file")                                                           \
	X(BADDWARF, 2, "invalid DWARF data")                                                       \
	X(BADINPUT, 2, "invalid input")                                                            \
	X(NOTREG, 2, "not a regular file")                                                         \
	X(UNSUPPORTED, 2, "unsupported")                                                           \
	X(BPF, 3, "BPF failure")                                                                   \
	X(INTERNAL, 3, "internal error")

enum psym_error {
#define PSYM_X_ENUM(name, cls, msg) PSYM__IDX_##name,
	PSYM_ERRORS(PSYM_X_ENUM)
#undef PSYM_X_ENUM
	PSYM__NERRORS
};

/* Negative error codes: PSYM_ENOMEM == -1, ... */
#define PSYM_X_DEF(name, cls, msg) PSYM_E##name = -PSYM__IDX_##name,
enum {
	PSYM_ERRORS(PSYM_X_DEF)
};
#undef PSYM_X_DEF

/* Positive "nothing found" result of a lookup: not an error. */
#define PSYM_NOENT 1

/* Exit codes of the programs (documented in psym(1)). */
enum psym_exit {
	PSYM_EXIT_OK = 0,
	PSYM_EXIT_PARTIAL = 1,
	PSYM_EXIT_BADINPUT = 2,
	PSYM_EXIT_SYSTEM = 3,
};

struct psym_err {
	int code;	/* last negative code, 0 if none */
	char msg[1024]; /* one line, no trailing newline */
};

/* Generic text of a code (0 or negative). Never NULL. */
const char *psym_strerror(int code);

/* Exit code class for an error code. */
int psym_exit_code(int code);

/*
 * Record an error with a printf-style message and return the code, so that
 * callers can write `return psym_err_set(e, PSYM_EIO, "...")`. e may be NULL.
 */
int psym_err_set(struct psym_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the current message with "prefix: " (e.g. the file name). */
void psym_err_prefix(struct psym_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void psym_err_clear(struct psym_err *e);

/* ---- limits ------------------------------------------------------------- */

/* Caps on what an input may make psym read or allocate. */
struct psym_limits {
	size_t max_input;   /* bytes of the (possibly compressed) file */
	size_t max_profile; /* bytes of the decoded protobuf message */
	size_t max_memory;  /* arena cap of one profile */
};

#define PSYM_DEFAULT_MAX_INPUT ((size_t)1 << 30)
#define PSYM_DEFAULT_MAX_PROFILE ((size_t)512 << 20)
#define PSYM_DEFAULT_MAX_MEMORY ((size_t)8 << 30)

void psym_limits_default(struct psym_limits *l);

/* ---- profiles --------------------------------------------------------- */

/* A profile in memory: opaque; one arena holds all of it. */
struct psym_profile;

/*
 * Read and validate one profile of any kind the input table knows (pprof,
 * its legacy text forms, perf.data, OTLP; "-" is stdin): *out is the
 * caller's (psym_profile_free). Errors name the file. A file read in part
 * gives 0 with e->code set and its one line in e->msg: warn, go on.
 */
int psym_profile_load(const char *path, const struct psym_limits *lim, struct psym_profile **out,
		      struct psym_err *e);

void psym_profile_free(struct psym_profile *p);

/* Encode and write atomically to path ("-" = stdout). */
int psym_profile_write(const struct psym_profile *p, const char *path, bool gzip,
		       struct psym_err *e);

enum psym_merge_role {
	PSYM_MERGE_ADD,
	PSYM_MERGE_DIFF_BASE,
	PSYM_MERGE_SUBTRACT,
};

/*
 * A new profile (*out, arena capped by lim) merged from in[0..n). names[i]
 * names profile i in errors; role may be NULL (every profile added).
 * PSYM_EBADPROFILE when the types differ.
 */
int psym_profile_merge(struct psym_profile *const *in, const char *const *names,
		       const enum psym_merge_role *role, size_t n, const struct psym_limits *lim,
		       struct psym_profile **out, struct psym_err *e);

/*
 * pprof's Profile.Normalize (-normalize): scale p's values in place, per
 * sample type, by base's sum over p's sum (0 when p's is 0), so p's total
 * is base's; each value rounded half away from zero, and samples whose
 * scaled values are all 0 dropped. PSYM_EBADPROFILE when the types differ
 * (names name the profiles in that error).
 */
int psym_profile_normalize(struct psym_profile *p, const char *name,
			   const struct psym_profile *base, const char *base_name,
			   struct psym_err *e);

/* What psym show prints of a (validated) profile. */
enum psym_show_style {
	PSYM_SHOW_TEXT,	  /* a readable dump */
	PSYM_SHOW_JSON,	  /* the same as JSON */
	PSYM_SHOW_COUNTS, /* "(N samples, N locations, N mappings, N functions)" */
};

int psym_show(const struct psym_profile *p, enum psym_show_style style, FILE *out);

/* ---- the session: how files are found, what may be read ------------------ */

/* Opaque; one per run of a command (session.h). */
struct psym_session;

/* A new session with every default; NULL when out of memory. */
struct psym_session *psym_session_new(void);

/*
 * One option, by the name the command line gives it (without "--"), arg
 * NULL for a flag. Where files are found: binary-path, sysroot, debug-dir,
 * dwo-dir, dwp, modules-dir, debug-pkg, debuginfod, debuginfod-timeout,
 * offline; caches and indexes: cache, no-cache, index-store, no-index,
 * no-index-build; caps: max-input-size, max-profile-size, max-memory,
 * limit (NAME=N); how addresses are answered: main-binary, force,
 * explain, quiet, no-inlines, demangle, no-demangle, adjust-callers,
 * kallsyms, vdso, vmlinux, perf-map, perf-map-dir, pid, format; and the
 * option of each answer source that takes a file (gsym). 0;
 * PSYM_NOENT when name is none of these; PSYM_EUSAGE with the one line
 * when arg is not a valid value. Strings are copied.
 */
int psym_session_set(struct psym_session *s, const char *name, const char *arg, struct psym_err *e);

/* --limit help: every reader cap, its value and what it bounds. */
void psym_session_print_limits(const struct psym_session *s, FILE *out);

/* The caps on one profile (max-input-size, max-profile-size, max-memory). */
const struct psym_limits *psym_session_limits(const struct psym_session *s);

/*
 * What the run will read, so that --debug-pkg extracts only what it
 * needs (a no-op without --debug-pkg): profiles (files, or directories of
 * them), cores, binaries by path, build IDs, or everything.
 */
enum psym_want {
	PSYM_WANT_PROFILES,
	PSYM_WANT_CORES,
	PSYM_WANT_FILES,
	PSYM_WANT_BUILD_IDS,
	PSYM_WANT_ALL,
};
int psym_session_want(struct psym_session *s, enum psym_want what, const char *const *v, size_t n,
		      struct psym_err *e);

/* psym_session_start's flags. */
enum {
	PSYM_START_PERF_MAPS = 1,      /* perf maps in /tmp by default (symbolize) */
	PSYM_START_NO_INDEX_BUILD = 2, /* indexes used, never built by lookups */
	PSYM_START_NO_MEMORY_CAP = 4,  /* max-memory does not cap DWARF (index) */
	PSYM_START_NO_CACHE = 8,       /* no answer cache (addr) */
};

/*
 * Once, after the options and the wants, before any thread: packages
 * extracted, debug dirs completed, debuginfod's session made, the answer
 * cache and the index store opened. 0 or an error (a named index store
 * that cannot be used is PSYM_EUSAGE).
 */
int psym_session_start(struct psym_session *s, unsigned flags, struct psym_err *e);

/* NULL is fine; removes a --no-cache extraction. */
void psym_session_free(struct psym_session *s);

/* ---- outputs: written whole or not at all ---------------------------------- */

struct psym_out {
	char *path; /* destination ("-" for stdout; a symlink's target) */
	char *tmp;  /* temporary file, NULL for stdout or a direct write */
	FILE *fp;
	bool direct; /* fp is a device, FIFO, terminal or /proc file of ours */
};

/*
 * Start writing path ("-" = stdout). A regular file (or a new one) is
 * written to a temporary file and renamed into place; a symbolic link is
 * followed and its target replaced, the link kept; a device, FIFO, socket,
 * terminal or a file reached through /proc (/dev/stdout) is written
 * directly, since it cannot be replaced (so an abort cannot take back what
 * was written there). A link in a sticky world-writable directory (/tmp)
 * owned by neither this user nor the directory's owner is not followed
 * (PSYM_EUSAGE), as the kernel's protected_symlinks would refuse it, also
 * where that setting is off. Removes stale temporaries of dead psyms.
 */
int psym_out_open(struct psym_out *o, const char *path, struct psym_err *e);
/* Flush, fsync and rename into place; closes o in all cases. */
int psym_out_commit(struct psym_out *o, struct psym_err *e);
/* Drop the temporary file; the destination is untouched. Accepts closed o. */
void psym_out_abort(struct psym_out *o);

/* a and b name the same file (both exist). */
bool psym_same_file(const char *a, const char *b);

/* ---- the jobs ----------------------------------------------------------------- */

/* psym symbolize: one profile IN -> OUT, or a batch. */
struct psym_symbolize_args {
	const char *const *inputs; /* profiles, or directories of them */
	size_t n_inputs;
	const char *output;   /* a file (one input), or the batch's directory */
	const char *manifest; /* INPUT<TAB>OUTPUT lines instead of inputs/output */
	const char *results;  /* a JSON line per batch input appended here, or NULL */
	unsigned jobs;	      /* a batch of this many at once (0: not given) */
	bool gzip;
	bool strict; /* unresolved locations of file-backed mappings: exit 1 */
	bool resume; /* a batch skips outputs already complete */
};

/*
 * Symbolize, starting the session (the inputs' packages extracted first).
 * A batch when there is a manifest, jobs, several inputs or a directory.
 * What it says goes to stderr (summary, notes, --explain). *active is the
 * output being written, for a signal handler to remove (psym_out). 0 with
 * *status the PSYM_EXIT_* the run ends with, or an error.
 */
int psym_session_symbolize(struct psym_session *s, const struct psym_symbolize_args *a,
			   struct psym_out *volatile *active, int *status, struct psym_err *e);

/* psym stack: cores unwound and symbolized. */
struct psym_stack_args {
	bool json;	    /* one JSON object per core on stdout */
	const char *output; /* write the stacks as a pprof profile here instead */
	size_t max_frames;  /* per thread; 0: 256 */
	unsigned signature; /* --group-by signature: frames in it (0: none) */
};

int psym_session_stack(struct psym_session *s, const char *const *cores, size_t n,
		       const struct psym_stack_args *a, int *status, struct psym_err *e);

/* psym index: a binary's or debug file's index built into the session's store. */
#define PSYM_BUILD_ID_HEX_LEN 129 /* a build ID in hex, with its NUL */
struct psym_index_info {
	char build_id[PSYM_BUILD_ID_HEX_LEN];
	char source[4096]; /* the file it was made from (psym_index_check) */
	uint64_t size;	   /* bytes (psym_session_index) */
	double seconds;	   /* taken (psym_session_index) */
	size_t records;	   /* function records */
};

/*
 * Build the index of the ELF file at path into the session's store
 * (started on the first call: every package extracted; an error when
 * there is no store). 0 or an error naming the file, most of the time.
 * path NULL: the session started and the store checked only.
 */
int psym_session_index(struct psym_session *s, const char *path, struct psym_index_info *info,
		       struct psym_err *e);

/* psym index --verify: an index file checked whole (checksums, every record). */
int psym_index_check(const char *path, struct psym_index_info *info, struct psym_err *e);

/* psym archive: the binaries and debug files a profile needs, packed. */
struct psym_archive_args {
	const char *profile;
	const char *output;	    /* NULL: the profile's name with its extension replaced */
	const char *const *exclude; /* mapping paths under these prefixes skipped */
	size_t n_exclude;
	const char *const *debug_dirs; /* .build-id trees; none: /usr/lib/debug */
	size_t n_debug_dirs;
	uint64_t max_bytes; /* cap on the file bytes packed; 0: the default */
	int level;	    /* zstd level; 0: 3 */
	bool verbose;	    /* each file packed, each mapping not, on stderr */
	bool quiet;	    /* no summary line */
};

int psym_archive(const struct psym_archive_args *a, const struct psym_limits *lim, int *status,
		 struct psym_err *e);

/* ---- addresses of one binary; the crash-log filter ------------------------- */

/*
 * One symbolized frame, innermost first: what becomes a pprof Line and its
 * Function. Strings are borrowed from what answered (until its next
 * lookup).
 */
struct psym_frame {
	const char *name;	  /* name as the source spells it (DW_AT_name,
				   * symbol name, JIT name); never NULL from a
				   * resolver ("" when unknown); the DWARF reader
				   * itself gives NULL for unnamed DIEs */
	const char *linkage_name; /* mangled/system name, NULL when none */
	const char *file;	  /* source file of `line`, NULL if unknown */
	int64_t line;		  /* 0 if unknown */
	int64_t column;		  /* 0 if unknown */
	int64_t start_line;	  /* line of the function's declaration, 0 if unknown */
	const char *start_file;	  /* its file (DW_AT_decl_file, as llvm-symbolizer
				   * reads it), NULL if unknown */
	uint64_t start_address;	  /* this frame's own DW_AT_low_pc: an inlined
				   * call's or the function's (has_start_address) */
	bool has_start_address;
	uint32_t discriminator; /* line-table discriminator of `line` (innermost
				   * frame, when asked for: psym addr), 0 if none */
};

/* psym addr: which binary, and how it answers. */
struct psym_addr_args {
	const char *exe;      /* -e FILE (with --filter: modules of that name) */
	const char *build_id; /* --build-id: a file with it, or a check of exe's */
	const char *section;  /* -j: addresses are offsets in this section */
	bool gnu_names;	      /* the outermost frame named as GNU addr2line names it */
	bool filter;	      /* the crash-log filter (psym_session_filter) */
	bool demangle;	      /* the filter's names demangled */
	bool verbose;	      /* say which files answered, and counts */
	bool explain;	      /* say every file tried */
	bool starts;	      /* answers give the outermost frame's start (JSON) */
};

/* One binary opened for lookups (opaque). */
struct psym_module;

/* An answer: frames innermost first, in the input's terms. */
struct psym_answer {
	const struct psym_frame *f; /* borrowed until the next lookup */
	size_t n;		    /* 0: nothing holds the address */
	uint64_t shift;		    /* input address less the address looked up */
	uint64_t start;		    /* the outermost frame's function start, with
				     * starts asked (has_start) */
	bool has_start;
};

/*
 * The binary found and opened (the session started for it: with
 * --debug-pkg its debug file extracted), saying what was tried with
 * explain; with neither exe nor build_id, the file named for an answer
 * source (the session's gsym) answers alone. 0 with *out, or an error
 * (no file: PSYM_EBADINPUT, why).
 */
int psym_session_module(struct psym_session *s, const struct psym_addr_args *a,
			struct psym_module **out, struct psym_err *e);

/* Its name (as named, else its path) and the hex digits of its addresses (8 or 16). */
void psym_module_facts(const struct psym_module *m, const char **name, int *addr_width);

/* The frames at an address (placed first in a .o/.ko or with section). */
size_t psym_module_lookup(struct psym_module *m, uint64_t addr, struct psym_answer *ans);

/*
 * The lookups are over: say what answered (warnings; with verbose the
 * counts, bad inputs that were not addresses among them), act on what was
 * learned (index builds), free. NULL is fine.
 */
void psym_module_close(struct psym_module *m, size_t bad);

/*
 * psym addr --filter: in copied to out with sanitizer, backtrace_symbols
 * and module+offset frames filled in; the frames left unresolved are
 * counted and said on stderr.
 */
int psym_session_filter(struct psym_session *s, const struct psym_addr_args *a, FILE *in, FILE *out,
			size_t *unresolved, struct psym_err *e);

/* ---- build IDs ------------------------------------------------------------- */

/* True when s is 2..2*PSYM_BUILD_ID_MAX lowercase/uppercase hex digits, even. */
bool psym_build_id_valid(const char *s);

/* True when s is a Go build ID in the "go:" form psym_notes_go_build_id writes. */
bool psym_build_id_is_go(const char *s);

/* ---- reports ------------------------------------------------------------------ */

/* The reports, each as pprof prints it (top, -traces, -tree, -peek, -list). */
enum psym_report_kind {
	PSYM_REPORT_TOP,
	PSYM_REPORT_FOLDED,
	PSYM_REPORT_FLAME,
	PSYM_REPORT_TRACES,
	PSYM_REPORT_TREE,
	PSYM_REPORT_PEEK,
	PSYM_REPORT_LIST,
	PSYM_REPORT_GRAPH, /* -dot: DOT, or drawn by Graphviz's dot as SVG or PNG */
};

/* One report's options (opaque). NULL: out of memory. */
struct psym_report;
struct psym_report *psym_report_new(enum psym_report_kind kind);
void psym_report_free(struct psym_report *r);

/*
 * One option, by the name the command line gives it (without "--"), arg
 * NULL for a flag; arg is borrowed (it must outlive r). pprof's: sample-index,
 * nodecount (nodes), nodefraction, edgefraction, cum, lines, files,
 * addresses, filefunctions, focus, ignore, hide, show, tagfocus,
 * tagignore, diff-base, base, normalize, tagroot, tagleaf, demangle,
 * source-path, trim-path; perf's comm and pid (a LIST, or NULL: a frame
 * per label), comms, pids; output and title (flame, graph); format (graph:
 * dot, svg or png; default: output's extension, else dot); max-input-size,
 * max-profile-size, max-memory. 0; PSYM_NOENT when name is none of
 * these; PSYM_EUSAGE with the one line when arg is not a valid value.
 */
int psym_report_set(struct psym_report *r, const char *name, const char *arg, struct psym_err *e);

/* After the options: PSYM_EUSAGE with the one line for what does not fit the report. */
int psym_report_check(struct psym_report *r, struct psym_err *e);

/*
 * The report of the profile at file (regex: peek's and list's), to
 * standard output (flame, graph: to their output, *active while it is
 * written; graph's SVG and PNG drawn by Graphviz's dot, run as a child),
 * with a note on stderr when most of the profile is raw addresses. 0
 * with *status PSYM_EXIT_OK or PSYM_EXIT_PARTIAL (read in part, said), or
 * an error (a report's names the file).
 */
int psym_report_run(struct psym_report *r, const char *regex, const char *file,
		    struct psym_out *volatile *active, int *status, struct psym_err *e);

/* ---- text from input, on its way out --------------------------------------- */

/* s with C0 controls and DEL shown, not sent (\n, \r, \t, else \xNN). */
void psym_text_puts(FILE *out, const char *s);

/*
 * One line of in (its '\n' left out) into *buf (malloc'd, *cap bytes,
 * grown as needed; NUL-terminated): its length, or -1 at the end. A line
 * of more than max bytes keeps its first max and sets *overlong, as does a
 * line memory ran out for, so one hostile line cannot take more.
 */
ssize_t psym_read_line_cap(FILE *in, char **buf, size_t *cap, size_t max, bool *overlong);

/* s as a JSON string (with its quotes), valid UTF-8 (U+FFFD for bad bytes). */
void psym_json_string(FILE *out, const char *s);

/*
 * A malloc'd demangled form of name (caller frees), or NULL when name is
 * not mangled or cannot be demangled. libiberty's recursion limit stays on,
 * so hostile names cannot exhaust the stack. libiberty's answer, except
 * that an inheriting constructor is named after its own class, as LLVM's
 * demangler and gdb name it (Derived::Derived, not Derived::Base).
 */
char *psym_demangle(const char *name);

/*
 * libiberty's answer as it is, as GNU addr2line -C prints it (an
 * inheriting constructor after its base: Derived::Base); malloc'd or NULL.
 */
char *psym_demangle_gnu(const char *name);

/* ---- command lines ---------------------------------------------------------- */

/* A byte size or count with optional K/M/G suffix (powers of 1024), > 0. */
bool psym_parse_size(const char *s, unsigned long long *out);

/*
 * An option's value: a whole decimal number in [lo, hi] (what names the
 * option in the one-line PSYM_EUSAGE error), or a size as psym_parse_size.
 */
int psym_parse_whole(const char *arg, long lo, long hi, const char *what, long *out,
		     struct psym_err *e);
int psym_parse_size_arg(const char *arg, size_t *out, struct psym_err *e);

/*
 * What getopt_long refused, in words, after it returned '?' with its own
 * message off (opterr = 0): "unrecognized option '--x'", "option '--x'
 * needs an argument", "option '--x' takes no argument", "invalid option
 * '-x'", naming the option as given. Reads getopt's optind and optopt.
 */
void psym_bad_option_text(char *buf, size_t n, char *const *argv, const char *shortopts);

/*
 * How a function is named from its system (linkage) name, as pprof's
 * -symbolize=demangle=MODE names it: SIMPLE (pprof's default) without
 * parameters, template arguments, return type and clone suffixes;
 * TEMPLATES keeps the template arguments; FULL is the whole signature
 * without clone suffixes; NONE keeps the system name.
 */
enum psym_demangle_mode {
	PSYM_DEMANGLE_SIMPLE = 0,
	PSYM_DEMANGLE_TEMPLATES,
	PSYM_DEMANGLE_FULL,
	PSYM_DEMANGLE_NONE,
	PSYM_DEMANGLE_CLONES, /* FULL with clone suffixes (psym_demangle): crash stacks */
};

/* MODE from "default", "templates", "full" or "none"; -1: none of them. */
int psym_demangle_mode_parse(const char *s);

/* The OpenTelemetry profiles release whose wire psym reads and writes. */
#define PSYM_OTLP_VERSION "1.10.0"

/* ---- sorting ------------------------------------------------------------------ */

/*
 * v[0..n) sorted ascending by bits from_bit..63 (a stable radix sort: keys
 * equal there keep their order, so the low bits can carry a payload such
 * as a position), in the caller's scratch space tmp[n]. Cannot fail.
 */
void psym_sort_u64_with(uint64_t *v, size_t n, unsigned from_bit, uint64_t *tmp);

#endif
