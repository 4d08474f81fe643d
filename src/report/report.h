/* SPDX-License-Identifier: MIT */
/*
 * Reports on a (symbolized) profile: the top table (flat and cumulative per
 * function, line or file, like pprof -top), collapsed stacks ("a;b;c N",
 * root first, inline frames expanded) and an SVG flame graph.
 *
 * Frames are named as pprof names them (NodeInfo.PrintableName at the
 * chosen granularity): the function of each Line (inline frames are their
 * own frames), "[binary]" for a mapping's unsymbolized code and "<unknown>"
 * for code in no mapping. top prints what pprof -top prints, with pprof's
 * units, scaling, percentages and "(inline)" marks. Values are summed
 * with overflow checks (saturating).
 */
#ifndef PSYM_REPORT_H
#define PSYM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "demangle.h"
#include "pprof.h"

/*
 * pprof's -functions, -lines, -files, -filefunctions ("function file") and
 * -addresses (each location's address, as "%016x", before its function,
 * file and line; inline frames kept).
 */
enum psym_report_granularity {
	PSYM_BY_FUNCTION,
	PSYM_BY_LINE,
	PSYM_BY_FILE,
	PSYM_BY_FILEFUNCTION,
	PSYM_BY_ADDRESS,
};

/*
 * Which samples and frames a report shows, as pprof's options of the same
 * names (NULL: not set). focus and ignore select samples by any frame's
 * function name, file or mapping; hide and show drop frames; tagfocus and
 * tagignore select samples by label ("key=re1,re2", "re" on "key:value",
 * or a numeric range "key=1kb:4kb"). comms and pids (comma-separated, as
 * perf's --comms and --pids) keep samples whose comm / pid label is listed.
 * Regular expressions are POSIX extended ones, plus \d \D \w \W \s \S and
 * a leading (?i), as pprof's RE2 syntax writes them.
 */
struct psym_report_filter {
	const char *focus, *ignore, *hide, *show;
	const char *tagfocus, *tagignore;
	const char *comms, *pids;
};

struct psym_report_opts {
	long sample_index;	 /* -1: default_sample_type or the last type */
	const char *sample_name; /* or by type name ("samples", "cpu") */
	enum psym_report_granularity by;
	size_t max_rows; /* top: 0 = all */
	/* pprof's -nodefraction, -edgefraction: nodes (edges) under this share of the
	   total are left out of graph reports (top, tree); 0: none. */
	double node_fraction, edge_fraction;
	bool sort_cum;	 /* top: by cumulative value */
	bool comm_frame; /* folded/flame: prefix "comm" label frame */
	bool pid_frame;	 /* folded/flame: prefix "pid N" frame */
	struct psym_report_filter filter;
};

/*
 * Function names from their system names as pprof's Demangle pass makes
 * them (report_names.c), on a profile just read: without force only the
 * functions whose name is empty or equal to their system name (pprof's
 * default on every profile), with force all (pprof's
 * -symbolize=demangle=MODE). New names go at the end of the string table.
 */
int psym_report_demangle(struct psym_profile *p, enum psym_demangle_mode mode, bool force,
			 struct psym_err *e);

/*
 * pprof's -tagroot and -tagleaf (report_tagframes.c): one pseudo frame per
 * key of root_keys (leaf_keys), comma-separated, above each sample's root
 * (below its leaf), named by the sample's values of that label. pprof's
 * warning on warn (NULL: none) when no sample has a key's label.
 */
int psym_report_tag_frames(struct psym_profile *p, const char *root_keys, const char *leaf_keys,
			   FILE *warn, struct psym_err *e);

/* Resolve the sample index; PSYM_EUSAGE with a message if it does not exist. */
int psym_report_sample_index(const struct psym_profile *p, const struct psym_report_opts *o,
			     size_t *idx, struct psym_err *e);

int psym_report_top(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		    struct psym_err *e);
/*
 * Frame pointers that lie: one note line on err when a process of p (by
 * its pid label; samples without one are not judged) has at least PSYM_COLLECT_FP_MIN_SAMPLES symbolized
 * samples and fewer than half of them reach a root frame (_start, a
 * thread's start: report_fpnote.c), with frames lost (collectprof.h's
 * psym_collect_fp_broken). Returns whether it was printed.
 */
bool psym_report_fp_note(const struct psym_profile *p, FILE *err);
/*
 * Every kept sample's stack, leaf first, its labels and value, as pprof
 * -traces prints them, in the order of p's samples (merge p first, as
 * pprof does, for pprof's order and merged duplicates).
 */
int psym_report_traces(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		       struct psym_err *e);
/*
 * pprof -tree: the call graph trimmed by o's node_fraction, edge_fraction
 * and max_rows (the node count), each node with its callers and callees.
 * peek: the nodes whose printable name matches regex (Go's syntax), with
 * nothing trimmed, as pprof -peek; PSYM_EUSAGE when none matches.
 */
int psym_report_tree(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		     struct psym_err *e);
int psym_report_peek(const struct psym_profile *p, const struct psym_report_opts *o,
		     const char *regex, FILE *out, struct psym_err *e);
/*
 * pprof -dot: the call graph as Graphviz's DOT, trimmed by o's
 * node_fraction, edge_fraction and max_rows (the node count, each node's
 * label boxes counting) as pprof's visual mode trims it, with its legend,
 * node and edge styles, and the samples' labels (and "bytes" values) as
 * boxes under their nodes. title names the graph (NULL: the main binary,
 as pprof names it; "": none).
 */
int psym_report_dot(const struct psym_profile *p, const struct psym_report_opts *o,
		    const char *title, FILE *out, struct psym_err *e);
/*
 * pprof -list: the source of each function whose name matches regex, each
 * line with its flat and cumulative value (untrimmed, by line). Source
 * files are looked for in source_path (':'-separated; NULL: the current
 * directory) and their parents after trim_path's prefixes (NULL: pprof's
 * guess) are cut, as pprof's -source_path and -trim_path; each file not
 * found gets pprof's " Error:" line on out and one line on warn (NULL:
 * none). PSYM_EUSAGE when no function matches.
 */
struct psym_list_opts {
	const char *regex, *source_path, *trim_path;
};
int psym_report_list(const struct psym_profile *p, const struct psym_report_opts *o,
		     const struct psym_list_opts *lo, FILE *out, FILE *warn, struct psym_err *e);
int psym_report_folded(const struct psym_profile *p, const struct psym_report_opts *o, FILE *out,
		       struct psym_err *e);
/*
 * psym_flame_layout, then psym_flame_write_svg.
 * title: shown at the top of the graph. The root frames are drawn at the
 * top (where a viewer opens the file), tooltips give values in the sample
 * type's unit, scaled as psym_report_value() does.
 */
int psym_report_flame(const struct psym_profile *p, const struct psym_report_opts *o,
		      const char *title, FILE *out, struct psym_err *e);

/*
 * A flame graph's layout, apart from any drawing: one frame per (depth, run
 * of merged stacks with the same prefix), stacks sorted by frame names, so
 * x and value (in the sample's unit) place each frame. Frames narrower than
 * a tenth of a pixel of the default 1,180-pixel drawing are left out and
 * counted. With a diff base (--diff-base) the widths are the new profile's
 * values and each frame carries its change; a profile with negative values
 * (what --base leaves) is drawn the same way: widths of the positive
 * samples, each frame its change. Frames come in the order the SVG writer draws them: each
 * frame when its run ends, deepest first.
 */
/*
 * A frame's kind, which chooses its colour family: from its location's
 * mapping (the kernel and its modules; JIT code: anonymous memory, perf
 * maps, or a JIT's name such as "JS:"), else unsymbolized (no lines:
 * unknown), else user code, inlined into its caller or not. Kernel and JIT
 * frames that are inlined keep their kind (the SVG outlines every inlined
 * frame).
 */
enum psym_flame_kind {
	PSYM_FLAME_USER,
	PSYM_FLAME_KERNEL,
	PSYM_FLAME_JIT,
	PSYM_FLAME_UNKNOWN,
	PSYM_FLAME_INLINED,
	PSYM_FLAME_NKINDS
};

struct psym_flame_frame {
	const char *name; /* printable; owned by the layout */
	size_t depth;	  /* 0: a root */
	int64_t x, value; /* left edge and width, in sample value */
	int64_t delta;	  /* with a diff base: the change (else value) */
	enum psym_flame_kind kind;
	bool inl; /* inlined into its caller (not its location's last line) */
};

struct psym_rpt_stacks;

struct psym_flame {
	struct psym_flame_frame *frame;
	size_t n;
	int64_t total;	     /* of all stacks drawn */
	int64_t total_delta; /* with a diff base: the whole change */
	bool diff;	     /* the profile had a diff base: widths are the new
				 profile's values, delta the change */
	size_t maxdepth;     /* frames in the deepest stack */
	size_t omitted;	     /* frames too narrow to draw */
	const char *type;    /* sample type and unit; borrowed from the profile */
	const char *unit;
	struct psym_rpt_stacks *st; /* private: owns the names */
};

int psym_flame_layout(const struct psym_profile *p, const struct psym_report_opts *o,
		      struct psym_flame **out, struct psym_err *e);
/* Accepts NULL. */
void psym_flame_free(struct psym_flame *fl);
/* The SVG of a layout. */
int psym_flame_write_svg(const struct psym_flame *fl, const char *title, FILE *out,
			 struct psym_err *e);

/*
 * Share (0..1) of the chosen sample value whose leaf location has no lines
 * (an unsymbolized profile is close to 1).
 */
int psym_report_unsymbolized(const struct psym_profile *p, const struct psym_report_opts *o,
			     double *share, struct psym_err *e);

/*
 * A value as pprof's measurement.Label prints it: scaled to the largest
 * unit of its kind (ns..hrs, B..PB, GCU) that it is at least 1 of, "%.2f"
 * without ".00"; units pprof does not know are printed as given, "count"
 * and "samples" not at all.
 */
void psym_report_value(char *buf, size_t sz, int64_t value, const char *unit);

#endif
