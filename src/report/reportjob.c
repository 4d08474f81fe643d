/* SPDX-License-Identifier: MIT */
/*
 * The reports as jobs (psym.h): top, folded, flame, traces, tree, peek
 * and list, each set by option name as pprof and the command line spell
 * them, checked, then run on one profile: read (with its diff base,
 * merged as pprof merges), pseudo frames from labels, a note when most of
 * it is raw addresses, the report to standard output (the flame graph to
 * a file written whole).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "limitparse.h"
#include "merge.h"
#include "report.h"

/* Hint only when at least this share of the samples is raw addresses. */
#define UNSYMBOLIZED_HINT 0.25

/* What gives a file's code names when the file is there but says nothing. */
#define DEBUG_HELP                                                                                 \
	"install the file's debug package, or give it with --debug-pkg FILE.deb or "               \
	"--debug-dir DIR, or set DEBUGINFOD_URLS"
#define BINARY_HELP "give the binary with --binary-path DIR (or --sysroot DIR)"

struct psym_report {
	enum psym_report_kind kind;
	struct psym_report_opts ro;
	struct psym_limits lim;
	struct psym_list_opts lo;
	const char *out, *title, *base, *regex;
	bool subtract;	/* base is pprof's -base, not -diff_base */
	bool normalize; /* scale FILE to base's total first */
	bool nf_set, ef_set, n_set;
	enum psym_demangle_mode demangle; /* how functions are renamed */
	bool demangle_force;		  /* --demangle given */
	const char *tagroot, *tagleaf;	  /* label keys for pseudo frames */
	const char *format;		  /* graph: dot, svg or png */
};

struct psym_report *psym_report_new(enum psym_report_kind kind)
{
	struct psym_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->kind = kind;
	psym_limits_default(&r->lim);
	r->ro.sample_index = -1;
	return r;
}

void psym_report_free(struct psym_report *r)
{
	free(r);
}

static void say_unsymbolized(const struct psym_profile *p, const struct psym_report_opts *ro,
			     const char *file, FILE *err)
{
	const pb_profile *pb = p->pb;
	struct psym_err e = { 0 };
	double share, *raw = NULL, best = -1;
	bool symbolized = false;
	size_t idx, worst = 0;

	if (psym_report_unsymbolized(p, ro, &share, &e) || share < UNSYMBOLIZED_HINT)
		return;
	for (size_t i = 0; i < pb->n_mapping; i++)
		symbolized |= pb->mapping[i]->has_functions;
	if (!symbolized) {
		fprintf(err,
			"psym: note: %.0f%% of '%s' is in unsymbolized code; "
			"'psym symbolize %s -o OUT' adds function names and lines (where it "
			"says a file is not found: %s)\n",
			100 * share, file, file, BINARY_HELP);
		return;
	}
	/* Symbolized already: name the file that holds most of the raw code. */
	if (psym_report_sample_index(p, ro, &idx, &e) == 0 && pb->n_mapping &&
	    (raw = calloc(pb->n_mapping, sizeof(*raw)))) {
		for (size_t i = 0; i < pb->n_sample; i++) {
			const pb_sample *s = pb->sample[i];
			const pb_location *l;
			long m;

			if (!s->n_location_id || idx >= s->n_value)
				continue;
			l = psym_profile_location(p, s->location_id[0]);
			if (!l || l->n_line || (m = psym_profile_mapping_pos(p, l->mapping_id)) < 0)
				continue;
			raw[m] += (double)(s->value[idx] < 0 ? -s->value[idx] : s->value[idx]);
		}
		for (size_t i = 0; i < pb->n_mapping; i++)
			if (raw[i] > best) {
				best = raw[i];
				worst = i;
			}
	}
	fprintf(err,
		"psym: note: %.0f%% of '%s' is in code a symbolizer already tried and could "
		"not name",
		100 * share, file);
	if (raw && best > 0) {
		const pb_mapping *m = pb->mapping[worst];
		const char *name = psym_profile_str(p, m->filename);
		const char *bid = psym_profile_str(p, m->build_id);

		fprintf(err, ", most of it in '%s'%s%s%s", name[0] ? name : "(no file name)",
			bid[0] ? " (build ID " : "", bid, bid[0] ? ")" : "");
	}
	fprintf(err,
		"; running psym symbolize again changes nothing: " DEBUG_HELP
		", then 'psym symbolize %s -o OUT'\n",
		file);
	free(raw);
}

/* ---- the summary: progress line and per-mapping table ---------------------- */

/*
 * Profiles with more mappings than this get a summary (counts and the
 * mappings with the most unresolved locations) instead of a line per
 * mapping; --explain always lists every mapping.
 */
#define SUMMARY_ALL_UP_TO 20
#define SUMMARY_WORST 10

/* pprof: an empty filter is no filter. */
static const char *nonempty(const char *s)
{
	return *s ? s : NULL;
}

/* A fraction of the total, 0 to 1. */
static int fraction(const char *arg, const char *what, double *out, struct psym_err *e)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || end == arg || !(v >= 0 && v <= 1))
		return psym_err_set(e, PSYM_EUSAGE, "invalid %s '%s': a number from 0 to 1", what,
				    arg);
	*out = v;
	return 0;
}

/* Which samples and frames: pprof's filters, perf's --comm/--pid. */
static int set_filter(struct psym_report *r, const char *name, const char *arg)
{
	struct psym_report_filter *f = &r->ro.filter;

	/* perf's --comm=LIST / --pid=LIST filter; bare, a frame per label. */
	if (!strcmp(name, "comm")) {
		if (arg)
			f->comms = nonempty(arg);
		else
			r->ro.comm_frame = true;
	} else if (!strcmp(name, "pid")) {
		if (arg)
			f->pids = nonempty(arg);
		else
			r->ro.pid_frame = true;
	} else if (!strcmp(name, "comms")) {
		f->comms = nonempty(arg);
	} else if (!strcmp(name, "pids")) {
		f->pids = nonempty(arg);
	} else if (!strcmp(name, "focus")) {
		f->focus = nonempty(arg);
	} else if (!strcmp(name, "ignore")) {
		f->ignore = nonempty(arg);
	} else if (!strcmp(name, "hide")) {
		f->hide = nonempty(arg);
	} else if (!strcmp(name, "show")) {
		f->show = nonempty(arg);
	} else if (!strcmp(name, "tagfocus")) {
		f->tagfocus = nonempty(arg);
	} else if (!strcmp(name, "tagignore")) {
		f->tagignore = nonempty(arg);
	} else {
		return PSYM_NOENT;
	}
	return 0;
}

/* What the nodes are, how many, and their order. */
static int set_shape(struct psym_report *r, const char *name, const char *arg, struct psym_err *e)
{
	char *end;
	long v;

	if (!strcmp(name, "sample-index")) {
		errno = 0;
		v = strtol(arg, &end, 10);
		if (!errno && *end == '\0' && end != arg && v >= 0)
			r->ro.sample_index = v;
		else
			r->ro.sample_name = arg;
	} else if (!strcmp(name, "nodes") || !strcmp(name, "nodecount")) {
		if (psym_parse_whole(arg, 0, LONG_MAX, "-n", &v, e))
			return PSYM_EUSAGE;
		r->ro.max_rows = (size_t)v;
		r->n_set = true;
	} else if (!strcmp(name, "nodefraction")) {
		r->nf_set = true;
		return fraction(arg, "--nodefraction", &r->ro.node_fraction, e);
	} else if (!strcmp(name, "edgefraction")) {
		r->ef_set = true;
		return fraction(arg, "--edgefraction", &r->ro.edge_fraction, e);
	} else if (!strcmp(name, "cum")) {
		r->ro.sort_cum = true;
	} else if (!strcmp(name, "lines")) {
		r->ro.by = PSYM_BY_LINE;
	} else if (!strcmp(name, "files")) {
		r->ro.by = PSYM_BY_FILE;
	} else if (!strcmp(name, "addresses")) {
		r->ro.by = PSYM_BY_ADDRESS;
	} else if (!strcmp(name, "filefunctions")) {
		r->ro.by = PSYM_BY_FILEFUNCTION;
	} else {
		return PSYM_NOENT;
	}
	return 0;
}

int psym_report_set(struct psym_report *r, const char *name, const char *arg, struct psym_err *e)
{
	int ret = set_filter(r, name, arg);

	if (ret == PSYM_NOENT)
		ret = set_shape(r, name, arg, e);
	if (ret != PSYM_NOENT)
		return ret;
	if (!strcmp(name, "diff-base") || !strcmp(name, "base")) {
		bool sub = !strcmp(name, "base");

		if (r->base && r->subtract != sub)
			return psym_err_set(e, PSYM_EUSAGE,
					    "--base and --diff-base cannot both be given");
		r->base = arg;
		r->subtract = sub;
	} else if (!strcmp(name, "normalize")) {
		r->normalize = true;
	} else if (!strcmp(name, "source-path")) {
		r->lo.source_path = arg;
	} else if (!strcmp(name, "trim-path")) {
		r->lo.trim_path = arg;
	} else if (!strcmp(name, "output")) {
		r->out = arg;
	} else if (!strcmp(name, "format")) {
		r->format = arg;
	} else if (!strcmp(name, "title")) {
		r->title = arg;
	} else if (!strcmp(name, "tagroot")) {
		r->tagroot = arg;
	} else if (!strcmp(name, "tagleaf")) {
		r->tagleaf = arg;
	} else if (!strcmp(name, "demangle")) {
		int m = arg ? psym_demangle_mode_parse(arg) : -1;

		if (m < 0)
			return psym_err_set(
				e, PSYM_EUSAGE,
				"invalid --demangle '%s': default, templates, full or none",
				arg ? arg : "");
		r->demangle = (enum psym_demangle_mode)m;
		r->demangle_force = true;
	} else if (!strcmp(name, "max-input-size")) {
		return psym_parse_size_arg(arg, &r->lim.max_input, e);
	} else if (!strcmp(name, "max-profile-size")) {
		return psym_parse_size_arg(arg, &r->lim.max_profile, e);
	} else if (!strcmp(name, "max-memory")) {
		return psym_parse_size_arg(arg, &r->lim.max_memory, e);
	} else {
		return PSYM_NOENT;
	}
	return 0;
}

static const char *const kind_names[] = { "top ",  "folded ", "flame ", "traces ",
					  "tree ", "peek ",   "list ",	"graph " };

/* The graph's format: format, else the output's extension, else DOT; NULL: unknown. */
static const char *graph_format(const struct psym_report *r)
{
	static const char *const fmts[] = { "dot", "svg", "png" };
	const char *f = r->format;

	if (!f && r->out) {
		const char *dot = strrchr(r->out, '.');

		for (size_t i = 0; dot && i < sizeof(fmts) / sizeof(fmts[0]); i++)
			if (!strcmp(dot + 1, fmts[i]))
				f = fmts[i];
		if (dot && !strcmp(dot + 1, "gv"))
			f = "dot";
	}
	if (!f)
		return "dot";
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (!strcmp(f, fmts[i]))
			return fmts[i];
	return NULL;
}

int psym_report_check(struct psym_report *r, struct psym_err *e)
{
	enum psym_report_kind k = r->kind;
	const char *name = kind_names[k];

	/* pprof -peek and -traces trim nothing; an option that would do nothing is refused. */
	if ((k == PSYM_REPORT_PEEK || k == PSYM_REPORT_TRACES || k == PSYM_REPORT_LIST) &&
	    (r->nf_set || r->ef_set || r->n_set))
		return psym_err_set(e, PSYM_EUSAGE,
				    "%sshows everything, as pprof does: no --nodecount, "
				    "--nodefraction or --edgefraction",
				    name);
	if ((k == PSYM_REPORT_FOLDED || k == PSYM_REPORT_FLAME) && (r->nf_set || r->ef_set))
		return psym_err_set(e, PSYM_EUSAGE,
				    "--nodefraction and --edgefraction are for the graph reports "
				    "(top, tree); %skeeps whole stacks (see --nodecount)",
				    name);
	if (r->format && k != PSYM_REPORT_GRAPH)
		return psym_err_set(e, PSYM_EUSAGE, "--format is for psym graph");
	if (k == PSYM_REPORT_GRAPH) {
		const char *f = graph_format(r);

		if (!f)
			return psym_err_set(e, PSYM_EUSAGE,
					    "unknown --format '%s': dot, svg or png", r->format);
		r->format = f;
	}
	if (k == PSYM_REPORT_TREE || k == PSYM_REPORT_GRAPH) {
		/* pprof's defaults for its graph views. */
		if (!r->n_set)
			r->ro.max_rows = 80;
		if (!r->nf_set)
			r->ro.node_fraction = 0.005;
		if (!r->ef_set)
			r->ro.edge_fraction = 0.001;
	}
	if (r->normalize && !r->base)
		return psym_err_set(e, PSYM_EUSAGE, "--normalize needs --base or --diff-base");
	if (k == PSYM_REPORT_LIST &&
	    (r->ro.by == PSYM_BY_ADDRESS || r->ro.by == PSYM_BY_FILEFUNCTION))
		return psym_err_set(e, PSYM_EUSAGE,
				    "list is by source line: no --addresses or --filefunctions");
	if (k != PSYM_REPORT_LIST && (r->lo.source_path || r->lo.trim_path))
		return psym_err_set(e, PSYM_EUSAGE,
				    "--source-path and --trim-path are for psym list");
	if (k == PSYM_REPORT_FLAME && !r->out)
		return psym_err_set(e, PSYM_EUSAGE, "no output: give -o FILE.svg");
	return 0;
}

/* One profile read (a part read is said, and the run ends with exit 1). */
static int load(const char *path, const struct psym_limits *lim, struct psym_profile **p,
		int *status, struct psym_err *e)
{
	int ret = psym_profile_load(path, lim, p, e);

	if (!ret && e->code) {
		fprintf(stderr, "psym: %s: the records before it were read\n", e->msg);
		*e = (struct psym_err){ 0 };
		*status = PSYM_EXIT_PARTIAL;
	}
	return ret;
}

/* FILE and its base (pprof's -diff_base and -base), merged. */
static int with_base(struct psym_report *r, const char *file, struct psym_profile **pp, int *status,
		     struct psym_err *e)
{
	/* pprof's -diff_base: BASE negated and labelled, merged after FILE
	   (-base: negated only); -normalize scales FILE first. */
	struct psym_profile *in[2] = { *pp, NULL }, *m = NULL;
	const char *inames[2] = { file, r->base };
	const enum psym_merge_role role[2] = { PSYM_MERGE_ADD, r->subtract ? PSYM_MERGE_SUBTRACT
									   : PSYM_MERGE_DIFF_BASE };
	int ret = load(r->base, &r->lim, &in[1], status, e);

	if (!ret && r->demangle_force)
		ret = psym_report_demangle(in[1], r->demangle, true, e);
	if (!ret && r->normalize)
		ret = psym_profile_normalize(in[0], file, in[1], r->base, e);
	if (!ret)
		ret = psym_profile_merge(in, inames, role, 2, &r->lim, &m, e);
	psym_profile_free(in[0]);
	psym_profile_free(in[1]);
	*pp = m;
	return ret;
}

/* FILE (and its diff base), merged as pprof merges its inputs for traces. */
static int load_input(struct psym_report *r, const char *file, struct psym_profile **pp,
		      int *status, struct psym_err *e)
{
	int ret = load(file, &r->lim, pp, status, e);

	if (!ret && r->demangle_force)
		ret = psym_report_demangle(*pp, r->demangle, true, e);
	if (!ret && r->base)
		ret = with_base(r, file, pp, status, e);
	if (!ret && r->kind == PSYM_REPORT_TRACES && !r->base) {
		/* pprof merges even one profile: its samples' order, duplicates summed. */
		struct psym_profile *m = NULL;

		ret = psym_profile_merge(pp, &file, NULL, 1, &r->lim, &m, e);
		psym_profile_free(*pp);
		*pp = m;
	}
	/* As pprof: after the merge, before the filters. */
	if (!ret && (r->tagroot || r->tagleaf))
		ret = psym_report_tag_frames(*pp, r->tagroot, r->tagleaf, stderr, e);
	return ret;
}

/* What goes into an output: written to fp (path names it in messages). */
typedef int (*body_fn)(struct psym_profile *p, const struct psym_report *r, const char *file,
		       FILE *fp, const char *path, struct psym_err *e);

/*
 * path ("-": standard output) written by body, atomically: a temporary
 * file renamed when all of it is written, removed on error; *active names
 * it meanwhile, for the signal handler.
 */
static int write_out(const char *path, body_fn body, struct psym_profile *p,
		     const struct psym_report *r, const char *file,
		     struct psym_out *volatile *active, struct psym_err *e)
{
	struct psym_out o;
	int ret = psym_out_open(&o, path, e);

	if (ret)
		return ret;
	*active = &o;
	ret = body(p, r, file, o.fp, path, e);
	if (ret)
		psym_out_abort(&o);
	else
		ret = psym_out_commit(&o, e);
	*active = NULL;
	/* Standard output's errors are the caller's (psym's finish_stdout). */
	if (ret == PSYM_EIO && !strcmp(path, "-") && ferror(stdout))
		ret = 0;
	return ret;
}

/* The flame graph. */
static int flame_body(struct psym_profile *p, const struct psym_report *r, const char *file,
		      FILE *fp, const char *path, struct psym_err *e)
{
	(void)path;
	return psym_report_flame(p, &r->ro, r->title ? r->title : file, fp, e);
}

extern char **environ;

/* Graphviz's dot -Tfmt drawing the DOT text[0..n) into fd. */
static int run_dot(const char *fmt, const char *text, size_t n, int fd, struct psym_err *e)
{
	char tflag[16];
	char *argv[] = { "dot", tflag, NULL };
	posix_spawn_file_actions_t fa;
	int pfd[2], err, st;
	pid_t pid;

	snprintf(tflag, sizeof(tflag), "-T%s", fmt);
	if (pipe2(pfd, O_CLOEXEC))
		return psym_err_set(e, PSYM_EIO, "cannot make a pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[0], 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	err = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[0]);
	if (err) {
		close(pfd[1]);
		if (err == ENOENT)
			return psym_err_set(e, PSYM_EIO,
					    "graphviz's 'dot' not found: install graphviz, "
					    "or write DOT (--format dot)");
		return psym_err_set(e, PSYM_EIO, "cannot run 'dot': %s", strerror(err));
	}
	for (size_t off = 0; off < n;) {
		ssize_t w = write(pfd[1], text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* dot went away: its status says why */
		off += (size_t)w;
	}
	close(pfd[1]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return psym_err_set(e, PSYM_EIO, "cannot wait for 'dot': %s",
					    strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return psym_err_set(e, PSYM_EIO, "'dot -T%s' failed (status %d)", fmt,
				    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

/* The graph as DOT, or drawn by dot. */
static int graph_body(struct psym_profile *p, const struct psym_report *r, const char *file,
		      FILE *fp, const char *path, struct psym_err *e)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m;
	int ret;

	(void)file;
	if (!strcmp(r->format, "dot"))
		return psym_report_dot(p, &r->ro, r->title, fp, e);
	m = open_memstream(&text, &n);
	ret = m ? psym_report_dot(p, &r->ro, r->title, m, e)
		: psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (m && fclose(m) && !ret)
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (!ret && fflush(fp))
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", path, strerror(errno));
	if (!ret)
		ret = run_dot(r->format, text, n, fileno(fp), e);
	free(text);
	return ret;
}

static int to_stdout(struct psym_report *r, const struct psym_profile *p, struct psym_err *e)
{
	int ret;

	switch (r->kind) {
	case PSYM_REPORT_TOP:
		ret = psym_report_top(p, &r->ro, stdout, e);
		if (!ret)
			psym_report_fp_note(p, stderr);
		break;
	case PSYM_REPORT_TRACES: ret = psym_report_traces(p, &r->ro, stdout, e); break;
	case PSYM_REPORT_TREE: ret = psym_report_tree(p, &r->ro, stdout, e); break;
	case PSYM_REPORT_PEEK: ret = psym_report_peek(p, &r->ro, r->regex, stdout, e); break;
	case PSYM_REPORT_LIST:
		r->lo.regex = r->regex;
		ret = psym_report_list(p, &r->ro, &r->lo, stdout, stderr, e);
		break;
	default: ret = psym_report_folded(p, &r->ro, stdout, e); break;
	}
	/* Standard output's errors are the caller's (psym's finish_stdout). */
	if (ret == PSYM_EIO && ferror(stdout))
		ret = 0;
	return ret;
}

int psym_report_run(struct psym_report *r, const char *regex, const char *file,
		    struct psym_out *volatile *active, int *status, struct psym_err *e)
{
	struct psym_profile *p = NULL;
	int ret;

	*status = PSYM_EXIT_OK;
	r->regex = regex;
	ret = load_input(r, file, &p, status, e);
	if (ret) {
		psym_profile_free(p);
		return ret;
	}
	/* Mostly raw addresses: say what would give them names (stderr, once). */
	say_unsymbolized(p, &r->ro, file, stderr);
	if (r->kind == PSYM_REPORT_FLAME)
		ret = write_out(r->out, flame_body, p, r, file, active, e);
	else if (r->kind == PSYM_REPORT_GRAPH)
		ret = write_out(r->out ? r->out : "-", graph_body, p, r, file, active, e);
	else
		ret = to_stdout(r, p, e);
	psym_profile_free(p);
	if (ret && ret != PSYM_EIO && ret != PSYM_ENOMEM)
		psym_err_prefix(e, "'%s'", file);
	return ret;
}
